"""The short form of ``scripts/bench_report.py``: the report's cost is linear in the games.

A million games must report in minutes (issue "A million games"), which only a cost linear
in the games allows: one table that loops over pairs of games, or a Python loop per game
with a large constant, shows at a million long before it shows at a thousand.  This test
reports two synthetic runs sealed into segments as a run writes them, ``SMALL`` and
``LARGE`` games, and compares CPU times (not wall-clock: the machine may be loaded): a cost
``t = c + k n`` (any constant ``c``: imports, charts) has ``(t2 - t1) / (n2 - n1) = k <=
t1 / n1``, so the marginal cost per game of the larger run may not exceed ``MARGIN`` times
the average cost per game of the smaller.  A quadratic cost fails by a factor ``(n1 + n2) /
n1`` (5 here); ``n log n`` passes (a factor of about 1.15).  ``ARENA_LONG=1`` uses 20,000
and 100,000 games.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

import reports
from arena.runs.segments import seal_journal
from reports import synthetic
from reports.report import analyse

LONG = os.environ.get("ARENA_LONG") == "1"
SMALL, LARGE = (20_000, 100_000) if LONG else (4_000, 20_000)
MARGIN = 1.5


def _sealed(directory: Path, games: int) -> Path:
    synthetic.write_tournament(directory, participants=("random", "greedy", "objective"),
                               players=2, games=games, seed=3)
    seal_journal(directory)
    return directory


def _cpu(directory: Path, out: Path) -> float:
    start = time.process_time()
    tables = reports.load(directory)
    analyse(tables, out, replicates=200)
    return time.process_time() - start


@pytest.mark.long
def test_the_report_costs_no_more_per_game_at_five_times_the_games(tmp_path: Path) -> None:
    warm = _sealed(tmp_path / "warm", 300)
    _cpu(warm, tmp_path / "warm-report")  # imports, font caches: not the games' cost
    small = _sealed(tmp_path / "small", SMALL)
    large = _sealed(tmp_path / "large", LARGE)
    n1 = len(reports.load(small).games)
    n2 = len(reports.load(large).games)
    t1 = _cpu(small, tmp_path / "small-report")
    t2 = _cpu(large, tmp_path / "large-report")
    average, marginal = t1 / n1, (t2 - t1) / (n2 - n1)
    assert marginal <= MARGIN * average, (
        f"{n1} games: {t1:.1f} s CPU ({average * 1e6:.0f} us a game); {n2} games: {t2:.1f} s "
        f"({marginal * 1e6:.0f} us for each game more): the report's cost grows faster than "
        "the games")
