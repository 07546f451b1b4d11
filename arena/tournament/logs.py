"""Logging of a run: ``DIR/arena.log`` and the console, worker processes included.

The handlers are wrapped in ``multiprocessing_logging.MultiProcessingHandler`` before the
workers are forked: a forked worker inherits the wrapper, whose ``emit`` puts the record on
a multiprocessing queue, and a thread in the parent hands it to the real handler, so worker
lines are never interleaved mid-line with the parent's.  Only our handlers are wrapped (not
``install_mp_handler`` on the whole root logger, which would also wrap whatever a host such
as pytest installed), and everything is put back as it was when the run ends.

A known limit of that design: the queue has one write lock shared by all processes, so a
worker killed (by its bot, or by the watchdog) at the very moment its feeder thread was
writing a record would leave the lock taken and later log records lost; the games and
their files are not affected, and closing does not wait for the stuck thread.

Console lines go through ``tqdm.write`` so that they appear above a progress bar instead of
through it.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from multiprocessing_logging import MultiProcessingHandler

FORMAT = "%(asctime)s %(processName)s %(levelname)s %(name)s: %(message)s"


class TqdmConsole(logging.Handler):
    """Writes records to a stream with ``tqdm.write`` (safe beside a live bar)."""

    def __init__(self, stream: IO[str]) -> None:
        super().__init__()
        self.stream = stream

    def emit(self, record: logging.LogRecord) -> None:
        try:
            from tqdm import tqdm

            tqdm.write(self.format(record), file=self.stream)
        except Exception:  # logging must never break the run
            self.handleError(record)


class _FanOut(logging.Handler):
    """Hands each record to several handlers, each with its own level and filters.

    One forwarding thread for the file and the console instead of one each; ``None`` is the
    wake-up call :class:`_Forwarder` sends when it closes, and is ignored.
    """

    def __init__(self, handlers: list[logging.Handler]) -> None:
        super().__init__(min(h.level for h in handlers))
        self.handlers = handlers

    def emit(self, record: logging.LogRecord | None) -> None:
        if record is None:
            return
        for handler in self.handlers:
            if record.levelno >= handler.level:
                handler.handle(record)

    def close(self) -> None:
        for handler in self.handlers:
            handler.close()
        super().close()


class _Forwarder(MultiProcessingHandler):
    """``MultiProcessingHandler`` that closes at once.

    The library's receiving thread polls its queue every 0.2 s and ``close`` waits for it;
    a run of a few seconds would spend a tenth of its time there.  Putting ``None`` on the
    queue wakes the thread, which then sees it is closed and stops (records sent before are
    handled first: the queue is in order, and the workers have exited by then).
    """

    def close(self) -> None:
        if not self._is_closed:
            self._is_closed = True
            with contextlib.suppress(Exception):
                self.queue.put_nowait(None)
            self._receive_thread.join(5.0)
            if self._receive_thread.is_alive():
                # Our feeder thread is stuck (see the module docstring): do not let it
                # hold the interpreter's exit too.
                self.queue.cancel_join_thread()
            self.sub_handler.close()
            logging.Handler.close(self)


def _ours(record: logging.LogRecord) -> bool:
    """The console shows our records (and bots'); a library's go to the file only, unless
    critical (Dask reports each worker a bot killed as an error, which we report better).
    What isolated bots print (``arena.bot_output``) goes to the file only."""
    if record.name.startswith("arena.bot_output"):
        return False
    return record.name.startswith(("arena", "bots")) or record.levelno >= logging.CRITICAL


@contextlib.contextmanager
def run_logging(log_file: Path, *, verbose: bool = False,
                console: IO[str] | None = None) -> Iterator[None]:
    """Log to ``log_file`` (INFO and up, DEBUG with ``verbose``) and the console
    (WARNING and up, INFO with ``verbose``) for the duration of the block."""
    root = logging.getLogger()
    old_level = root.level
    # Made (or checked) without following a link first: the log is the run folder's own.
    os.close(os.open(log_file, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW, 0o644))
    file_handler = logging.FileHandler(log_file, encoding="utf-8")
    file_handler.setLevel(logging.DEBUG if verbose else logging.INFO)
    file_handler.setFormatter(logging.Formatter(FORMAT))
    console_handler = TqdmConsole(console if console is not None else sys.stderr)
    console_handler.setLevel(logging.INFO if verbose else logging.WARNING)
    console_handler.setFormatter(logging.Formatter("%(levelname)s: %(message)s"))
    console_handler.addFilter(_ours)
    fan_out = _FanOut([file_handler, console_handler])
    # Our workers are always forked (see local.py), which is what the wrapper needs.
    wrapped = _Forwarder("arena-log", sub_handler=fan_out)
    root.addHandler(wrapped)
    root.setLevel(logging.DEBUG if verbose else logging.INFO)
    try:
        yield
    finally:
        root.removeHandler(wrapped)
        wrapped.close()
        root.setLevel(old_level)
