"""Progress of a run: a tqdm bar on a terminal, plain periodic lines elsewhere.

In a CI log or a file a redrawn bar is noise, so when the stream is not a terminal the
runner prints one line every ``every`` seconds or each further 10% of the games::

    [  120/400] 30.0%  8.1 games/s  ETA 0:00:34  leader: greedy 71.3%
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import timedelta
from typing import IO, Any


def _eta(seconds: float) -> str:
    if seconds != seconds or seconds == float("inf"):  # NaN or no rate yet
        return "?"
    return str(timedelta(seconds=round(seconds)))


class Progress:
    """``update(done, leader)`` as games finish; ``close()`` at the end."""

    def __init__(self, total: int, initial: int, stream: IO[str], *, mode: str = "auto",
                 every: float = 10.0) -> None:
        self.total = total
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
        if mode == "bar":
            import tqdm as tqdm_module

            # No monitor thread: the runner forks worker processes while the bar is up.
            tqdm_module.tqdm.monitor_interval = 0
            self.bar = tqdm_module.tqdm(total=total, initial=initial, file=stream,
                                        unit="game", dynamic_ncols=True, smoothing=0.05)

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
            if step and (force or now - self.last_line > 0.5):
                self.last_line = now
                self.leader = leader() if callable(leader) else leader
                self.bar.set_postfix_str(f"leader: {self.leader}" if self.leader else "",
                                         refresh=False)
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
            text += f"  leader: {self.leader}"
        return text

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None
