"""Properties that must hold for any input, checked with hypothesis."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import reports
from reports import stats
from tests.reports.report_helpers import card, record, write_run


# database=None: no .hypothesis folder left in the working tree.
@settings(database=None)
@given(x=st.integers(0, 500), extra=st.integers(0, 500))
def test_wilson_holds_the_observed_rate(x: int, extra: int) -> None:
    n = x + extra
    if n == 0:
        return
    lo, hi = stats.wilson(x, n)
    assert 0.0 <= lo <= x / n <= hi <= 1.0


@settings(database=None)
@given(x1=st.integers(0, 60), n1=st.integers(1, 60), x2=st.integers(0, 60),
       n2=st.integers(1, 60))
def test_newcombe_holds_the_observed_difference(x1: int, n1: int, x2: int, n2: int) -> None:
    x1, x2 = min(x1, n1), min(x2, n2)
    d, lo, hi = stats.newcombe(x1, n1, x2, n2)
    assert -1.0 - 1e-12 <= lo <= d <= hi <= 1.0 + 1e-12


def _sample_file() -> bytes:
    games = [
        record(0, deal, rot, ["A", "B"] if rot == 0 else ["B", "A"], [10 + deal, 9], [0],
               cards=[card("plot-01", 0, 0, 3), card("panda-02", 1, 1, None)])
        for deal in range(3) for rot in range(2)
    ]
    with tempfile.TemporaryDirectory() as tmp:
        return (write_run(Path(tmp), games, ["A", "B"]) / "games.jsonl").read_bytes()


SAMPLE = _sample_file()


@settings(max_examples=30, deadline=None, database=None)
@given(cut=st.integers(0, len(SAMPLE)))
def test_any_prefix_of_a_games_file_loads(cut: int) -> None:
    """A tournament stopped at any byte loses at most the game it was writing."""
    tmp = Path(tempfile.mkdtemp())
    try:
        write_run(tmp, [], ["A", "B"])
        (tmp / "games.jsonl").write_bytes(SAMPLE[:cut])
        t = reports.load(tmp)
        complete = SAMPLE[:cut].count(b"\n")
        assert len(t.games) in (complete, complete + 1)  # +1: cut right before a newline
        assert len(t.seats) == 2 * len(t.games)
        assert np.all(t.games.groupby("deal_key").size() <= 2)
        partial = not SAMPLE[:cut].endswith(b"\n") and cut > 0
        if len(t.games) == complete and partial:
            assert any("cut short" in w for w in t.warnings)
    finally:
        shutil.rmtree(tmp)
