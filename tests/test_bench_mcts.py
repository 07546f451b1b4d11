"""``scripts/bench_mcts.py profile``: the top of a profile of the search, for the speed work's
before-and-after figures (the other subcommands time or play whole games: not tested here)."""

from __future__ import annotations

import subprocess
import sys

from tests.scripts import SCRIPTS


def test_profile_lists_the_search_by_own_and_cumulative_time() -> None:
    run = subprocess.run(
        [sys.executable, str(SCRIPTS / "bench_mcts.py"), "profile", "--bot",
         "mcts:iterations=100", "--positions", "1", "--runs", "1", "--top", "30"],
        capture_output=True, text=True, timeout=120,
    )
    assert run.returncode == 0, run.stderr
    out = run.stdout
    assert "1 decisions, 100 iterations" in out
    assert "Ordered by: internal time" in out and "Ordered by: cumulative time" in out
    assert "(choose)" in out and "(iterate)" in out
