"""``arena.runs.outputs``: a summary file is written whole even when Ctrl-C comes meanwhile."""

from __future__ import annotations

import signal
import threading
from pathlib import Path

import pytest

from arena.runs.outputs import interrupts_held, write_text_whole


def test_a_ctrl_c_inside_the_block_waits_for_its_end() -> None:
    before = signal.getsignal(signal.SIGINT)
    reached = []
    with pytest.raises(KeyboardInterrupt), interrupts_held():
        signal.raise_signal(signal.SIGINT)
        reached.append("after the signal")
    assert reached == ["after the signal"]
    assert signal.getsignal(signal.SIGINT) is before


def test_no_ctrl_c_no_interrupt_and_the_handler_is_put_back() -> None:
    before = signal.getsignal(signal.SIGINT)
    with interrupts_held():
        assert signal.getsignal(signal.SIGINT) is not before
    assert signal.getsignal(signal.SIGINT) is before


def test_outside_the_main_thread_the_block_just_runs() -> None:
    seen: list[str] = []

    def body() -> None:
        with interrupts_held():
            seen.append("ran")

    thread = threading.Thread(target=body)
    thread.start()
    thread.join()
    assert seen == ["ran"]


def test_a_whole_write_replaces_the_file_and_leaves_no_temporary(tmp_path: Path) -> None:
    path = tmp_path / "best.json"
    path.write_text("old")
    (tmp_path / "best.json.tmp").write_text("left by a crash")
    write_text_whole(path, "new\n")
    assert path.read_text() == "new\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["best.json"]
