"""Workers whose run was killed outright stop within seconds (no orphans playing for nobody)."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

psutil = pytest.importorskip("psutil")

pytestmark = pytest.mark.timeout(120, method="thread")


def running(pid: int) -> bool:
    """Whether `pid` is alive and not a zombie; one that ends while it is read has ended."""
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def gone_within(pids: list[int], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not [p for p in pids if running(p)]:
            return True
        time.sleep(0.1)
    return False


@pytest.mark.parametrize(("isolate", "processes"), [("none", 2), ("untrusted", 10)])
def test_workers_of_a_killed_run_stop(tmp_path: Path, isolate: str, processes: int) -> None:
    # Every game of X sleeps 30 s in its first decision: the workers (or, isolated, the bot
    # processes, under their hosts in their jails (bwrap, its PID 1, the host) under the
    # workers) are inside bot code.
    run = subprocess.Popen(
        [sys.executable, "-m", "arena", "tournament", "--bot",
         "tests.tournament.broken_bots.Sleeper:at=1", "--bot", "random", "--games", "4",
         "--workers", "2", "--quiet", "--rule", "max_rounds=8", "--out", str(tmp_path / "r"),
         "--isolate", isolate],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        parent = psutil.Process(run.pid)
        deadline = time.monotonic() + 30
        while (len(parent.children(recursive=True)) < processes
               and time.monotonic() < deadline):
            time.sleep(0.1)
        descendants = [p.pid for p in parent.children(recursive=True)]
        assert len(descendants) == processes
        time.sleep(0.5)
    finally:
        run.send_signal(signal.SIGKILL)
        run.wait()
    assert gone_within(descendants, 5.0)


def test_a_worker_forked_from_another_thread_polls_its_parent() -> None:
    # No parent-death signal (the fork was not from a main thread): the watch thread's poll.
    code = (
        "import os, subprocess, sys\n"
        "child = subprocess.Popen([sys.executable, '-c', "
        "'import os, time; from arena.tournament.local import die_with_parent; "
        "die_with_parent(os.getppid(), by_signal=False); print(os.getpid(), flush=True); "
        "time.sleep(60)'], stdout=subprocess.PIPE, text=True)\n"
        "print(child.stdout.readline().strip(), flush=True)\n"
        "os._exit(0)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60)
    orphan = int(out.stdout.strip())
    assert gone_within([orphan], 5.0)
