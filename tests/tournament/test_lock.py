"""One run per directory: an OS lock held for the run, released by the OS when it dies."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from arena.runs.store import LOCK, run_lock

from .conftest import FAST, read_records, run_cli

pytestmark = pytest.mark.timeout(120, method="thread")

START = ["--bot", "random:name=A", "--bot", "random:name=B", "--games", "4", "--seed", "5",
         "--workers", "1", "--quiet", *FAST]


def test_a_second_run_on_a_locked_directory_is_refused_naming_the_holder(
        tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert run_cli([*START, "--out", str(out)]).exit_code == 0
    with run_lock(out):
        for args in (["--resume", str(out)], [*START, "--out", str(out)]):
            result = run_cli(args)
            assert result.exit_code == 2, result.output
            message = result.stderr.strip().splitlines()[-1]
            assert message == (f"Error: {out} is in use by another run (process {os.getpid()}); "
                               "wait for it to end or stop it, then resume")
    assert len(read_records(out)) == 4  # nothing written by the refused runs
    assert run_cli(["--resume", str(out), "--quiet"]).exit_code == 0


def test_a_lock_left_by_a_killed_run_blocks_nothing(tmp_path: Path) -> None:
    out = tmp_path / "run"
    out.mkdir()
    code = ("import sys, time, pathlib; from arena.runs.store import run_lock\n"
            "with run_lock(pathlib.Path(sys.argv[1])):\n"
            "    print('locked', flush=True); time.sleep(60)\n")
    holder = subprocess.Popen([sys.executable, "-c", code, str(out)], stdout=subprocess.PIPE,
                              text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        refused = run_cli([*START, "--out", str(out)])
        assert refused.exit_code == 2 and f"process {holder.pid}" in refused.stderr
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
    assert (out / LOCK).read_text().strip() == str(holder.pid)  # the file stays: harmless
    result = run_cli([*START, "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert len(read_records(out)) == 4
