"""Writing a run's summary files whole, even when Ctrl-C comes in the middle.

The tuner and the design search rewrite ``best.json`` and their page after every trial, and
again when Ctrl-C stops them.  A Ctrl-C that lands inside that writing used to leave a
truncated ``best.json`` or, worse, matplotlib half-way through a figure or an import, so the
second writing (the one that keeps the results) failed with an internal error.  Here the
interrupt waits until the files are written, then goes on as a KeyboardInterrupt.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any


@contextlib.contextmanager
def interrupts_held() -> Iterator[None]:
    """Hold Ctrl-C (SIGINT) for the block; raise KeyboardInterrupt at its end if one came.

    Outside the main thread (where Python cannot set handlers) the block runs unchanged."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []

    def hold(signum: int, frame: Any) -> None:
        caught.append(signum)

    previous = signal.signal(signal.SIGINT, hold)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if caught:
        raise KeyboardInterrupt


def write_text_whole(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file and a rename, so a reader (or a
    crash) sees the old file or the new one, never a part."""
    tmp = path.with_name(path.name + ".tmp")
    with contextlib.suppress(FileNotFoundError):
        tmp.unlink()
    with open(tmp, "x", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)
