"""The local executor's processes: kept between calls, never orphaned, never respawned forever."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from arena.play.registry import BotSpec
from arena.tournament import local
from arena.tournament.local import LocalExecutor, WorkerFailure
from arena.tournament.schedule import TournamentConfig

pytestmark = pytest.mark.timeout(120, method="thread")

CONFIG = TournamentConfig((BotSpec.parse("random:name=R1"), BotSpec.parse("random:name=R2")),
                          games=4, seed=3)


def played(executor: LocalExecutor, indices: list[int]) -> list[int]:
    return sorted(item.index for item in executor.play(indices) if item is not None)


def test_a_kept_executor_plays_on_in_the_same_process_until_closed() -> None:
    executor = LocalExecutor(CONFIG, workers=1, keep=True)
    assert played(executor, [0, 1]) == [0, 1]
    process = executor.slots[0].process
    assert process.is_alive()
    assert played(executor, [2, 3]) == [2, 3]
    assert executor.slots[0].process is process
    executor.close()
    assert not executor.slots and not process.is_alive()


def test_an_executor_that_is_not_kept_stops_its_workers() -> None:
    executor = LocalExecutor(CONFIG, workers=2)
    assert played(executor, [0, 1, 2, 3]) == [0, 1, 2, 3]
    assert not executor.slots


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as f:  # a zombie has exited
        return f.read().split(")")[-1].split()[0] != "Z"


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads /proc")
def test_a_worker_whose_parent_is_killed_stops(tmp_path: Path) -> None:
    script = textwrap.dedent("""
        import os, sys
        from arena.tournament.local import LocalExecutor
        from tests.tournament.test_local import CONFIG
        executor = LocalExecutor(CONFIG, workers=2, keep=True)
        list(executor.play([0, 1, 2, 3]))
        print(*(slot.process.pid for slot in executor.slots), flush=True)
        os.kill(os.getpid(), 9)
    """)
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            cwd=Path(__file__).resolve().parents[2], timeout=60)
    assert result.returncode == -9, result.stderr
    pids = [int(pid) for pid in result.stdout.split()]
    assert len(pids) == 2
    deadline = time.monotonic() + 10
    while any(alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(alive(pid) for pid in pids)


def test_workers_that_keep_dying_outside_any_game_stop_the_run(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Forked workers run the patched function: each dies before it reads its first chunk.
    monkeypatch.setattr(local, "_worker_main", lambda *args: os._exit(7))
    executor = LocalExecutor(CONFIG, workers=1)
    with pytest.raises(WorkerFailure, match=r"5 worker processes in a row .* exit code 7"):
        played(executor, [0, 1])
    assert not executor.slots
