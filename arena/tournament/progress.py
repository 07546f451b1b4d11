"""Progress of a run: a tqdm bar on a terminal, plain periodic lines elsewhere.

In a CI log or a file a redrawn bar is noise, so when the stream is not a terminal the
runner prints one line every ``every`` seconds or each further 10% of the games::

    [  120/400] 30.0%  8.1 games/s  ETA 0:00:34  leader: greedy 71.3%

On a terminal a ``table`` (``live.LiveTable.lines``) is drawn under the bar and redrawn in
place, each of its lines a tqdm line of its own so that log lines (``tqdm.write``) still go
above it.  The rate is always in games per second, however slow the games (tqdm's own
format turns to seconds per game below one a second).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import timedelta
from typing import IO, Any

#: tqdm's default format with the rate always per second (``rate_noinv_fmt``).
BAR_FORMAT = ("{l_bar}{bar}| {n_fmt}/{total_fmt} [{elapsed}<{remaining}, "
              "{rate_noinv_fmt}{postfix}]")


def _eta(seconds: float) -> str:
    if seconds != seconds or seconds == float("inf"):  # NaN or no rate yet
        return "?"
    return str(timedelta(seconds=round(seconds)))


class Progress:
    """``update(done, leader)`` as games finish; ``close()`` at the end."""

    def __init__(self, total: int, initial: int, stream: IO[str], *, mode: str = "auto",
                 every: float = 10.0, table: Callable[[], list[str]] | None = None,
                 label: str = "leader") -> None:
        self.total = total
        #: What the line's last figure is: a tournament's leader, or (empty) a figure that
        #: names itself, as a study's complete deals (its leader is a level's own copy).
        self.label = label
        self.initial = initial
        self.done = initial
        self.stream = stream
        self.every = every
        self.started = time.monotonic()
        self.last_line = self.started
        self.last_tenth = (10 * initial) // max(1, total)
        self.leader = ""
        self.printed = -1
        if mode == "auto":
            isatty = getattr(stream, "isatty", None)
            mode = "bar" if isatty is not None and isatty() else "lines"
        self.mode = mode
        self.bar: Any = None
        self.table = table
        self.rows: list[Any] = []
        if mode == "bar":
            import tqdm as tqdm_module

            # No monitor thread: the runner forks worker processes while the bar is up.
            tqdm_module.tqdm.monitor_interval = 0
            self.bar = tqdm_module.tqdm(total=total, initial=initial, file=stream,
                                        unit=" games", dynamic_ncols=True, smoothing=0.05,
                                        bar_format=BAR_FORMAT)

    def rate(self) -> float:
        elapsed = time.monotonic() - self.started
        played = self.done - self.initial
        return played / elapsed if elapsed > 0 and played > 0 else 0.0

    def update(self, done: int, leader: str | Callable[[], str], *, force: bool = False
               ) -> None:
        """Record progress; draws at most a few times a second.

        ``leader`` may be a function, called only when something is drawn.
        """
        step = done - self.done
        self.done = done
        if self.mode == "bar":
            if step:
                self.bar.update(step)
            now = time.monotonic()
            if (step or force) and (force or now - self.last_line > 0.5):
                self.last_line = now
                if self.table is not None:
                    self.draw(self.table())
                else:
                    self.leader = leader() if callable(leader) else leader
                    self.bar.set_postfix_str(self.figure(), refresh=False)
        elif self.mode == "lines":
            now = time.monotonic()
            tenth = (10 * done) // max(1, self.total)
            due = tenth > self.last_tenth or now - self.last_line >= self.every
            if (due or force) and done != self.printed:
                self.leader = leader() if callable(leader) else leader
                self.last_tenth = tenth
                self.printed = done
                self.last_line = now
                self.stream.write(self.line() + "\n")
                self.stream.flush()

    def line(self) -> str:
        rate = self.rate()
        left = (self.total - self.done) / rate if rate > 0 else float("nan")
        width = len(str(self.total))
        text = (f"[{self.done:>{width}}/{self.total}] {100 * self.done / max(1, self.total):5.1f}%"
                f"  {rate:.1f} games/s  ETA {_eta(left)}")
        if self.leader:
            text += f"  {self.figure()}"
        return text

    def figure(self) -> str:
        """The last figure of the line, with its label."""
        if not self.leader:
            return ""
        return f"{self.label}: {self.leader}" if self.label else self.leader

    def draw(self, lines: list[str]) -> None:
        """The table under the bar, each line in place (a tqdm line of its own)."""
        import tqdm as tqdm_module

        for i, text in enumerate(lines):
            if i >= len(self.rows):
                self.rows.append(tqdm_module.tqdm(
                    total=0, position=i + 1, file=self.stream, bar_format="{desc}",
                    dynamic_ncols=True, leave=False))
            self.rows[i].set_description_str(text, refresh=True)

    def close(self) -> None:
        for row in reversed(self.rows):
            row.close()
        self.rows = []
        if self.bar is not None:
            self.bar.close()
            self.bar = None
