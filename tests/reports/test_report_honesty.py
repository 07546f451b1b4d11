"""Every table of every report says no more than its deals carry (``stats.withhold``).

Over small random tournaments (``reports.synthetic``), alone and compared with a re-play of
the same schedule: in every table the report writes (its CSV, Markdown and HTML are made
from the same frames) no interval of zero width appears anywhere; when the run (or the runs
compared) hold fewer than ``stats.MIN_UNITS`` deals, no interval, no test and no flag
appears at all, and no sentence lists a significant difference.
"""

from __future__ import annotations

import math
import shutil
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import reports
from reports import stats, synthetic
from reports.render import Part
from reports.report import analyse, compare


def _check_tables(parts: list[Part], thin: bool) -> None:
    """The property, on every table of the report's parts (what its CSV, Markdown and HTML
    are written from)."""
    seen = 0
    for path, frame in ((Path(t.stem), t.frame) for p in parts for t in p.tables):
        for col in frame.columns:
            if f"{col}_lo" not in frame.columns or f"{col}_hi" not in frame.columns:
                continue
            seen += 1
            lo = pd.to_numeric(frame[f"{col}_lo"], errors="coerce").to_numpy(dtype=float)
            hi = pd.to_numeric(frame[f"{col}_hi"], errors="coerce").to_numpy(dtype=float)
            both = np.isfinite(lo) & np.isfinite(hi)
            assert not np.any(both & (np.abs(hi - lo) <= stats.FLAT)), (path.name, col)
            if thin:
                assert not both.any(), (path.name, col)
        if thin:
            for col in frame.columns:
                name = str(col)
                if stats._is_test(name):
                    assert frame[col].isna().all(), (path.name, name)
                if stats._is_flag(name):
                    assert frame[col].fillna("").astype(str).eq("").all(), (path.name, name)
    assert seen > 0


def _deals(directory: Path) -> int:
    return int(reports.load(directory).games["deal_key"].nunique())


@settings(max_examples=6, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow], phases=[Phase.generate])
@given(games=st.integers(4, 40), seed=st.integers(0, 10_000))
def test_no_report_table_claims_more_than_its_deals(games: int, seed: int) -> None:
    tmp = Path(tempfile.mkdtemp())
    try:
        run = synthetic.write_tournament(tmp / "a", ("A", "B"), games=games, seed=seed,
                                         error_rate=0.0)
        thin = _deals(run) < stats.MIN_UNITS
        parts = analyse(reports.load(run), tmp / "out", replicates=40)
        _check_tables(parts, thin)
        if thin:
            headline = parts[0].text
            assert "How sure: not yet" in headline
            assert "[" not in headline  # no interval in the headline either
    finally:
        shutil.rmtree(tmp)


@settings(max_examples=4, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow], phases=[Phase.generate])
@given(games=st.integers(4, 40), seed=st.integers(0, 10_000))
def test_no_comparison_table_claims_more_than_its_deals(games: int, seed: int) -> None:
    tmp = Path(tempfile.mkdtemp())
    try:
        a = synthetic.write_tournament(tmp / "a", ("A", "B"), games=games, seed=seed,
                                       error_rate=0.0)
        b = synthetic.write_tournament(tmp / "b", ("A", "B"), games=games, seed=seed,
                                       error_rate=0.0, play_seed=seed + 1)
        thin = min(_deals(a), _deals(b)) < stats.MIN_UNITS
        parts = compare([reports.load(a), reports.load(b)], tmp / "out", replicates=40)
        _check_tables(parts, thin)
        if thin:
            text = " ".join(p.text for p in parts)
            assert "Significant differences" not in text
            assert "differs significantly" not in text  # nothing tested, nothing found
            for part in parts:
                if part.title.startswith("Paired"):
                    assert "completion rate changed: none tested" in part.text
                    assert "the cards): none tested" in part.text
    finally:
        shutil.rmtree(tmp)


def test_withhold_keeps_the_estimate_and_says_how_many_games() -> None:
    frame = pd.DataFrame({"x": [0.5, 0.25], "x_lo": [0.1, 0.25], "x_hi": [0.9, 0.25],
                          "q_x": [0.01, 0.01], "flag": ["too strong", "too strong"]})
    thin = stats.withhold(frame, units=4, games=8)
    assert thin["x"].tolist() == [0.5, 0.25]
    assert thin[["x_lo", "x_hi", "q_x"]].isna().all().all()
    assert thin["x_games_needed"].tolist() == [20.0, 20.0]
    assert thin["flag"].tolist() == ["", ""]
    enough = stats.withhold(frame, units=12, games=24)
    assert enough["x_lo"].tolist()[0] == 0.1 and math.isnan(enough["x_lo"].tolist()[1])
    assert math.isnan(enough["q_x"].tolist()[1]) and enough["q_x"].tolist()[0] == 0.01
    assert enough["flag"].tolist() == ["too strong", "too strong"]
    shown = reports.render.display(thin)
    assert shown["x [95% CI]"].tolist()[0] == "0.500 (CI needs ~20 games)"


def test_no_study_table_claims_more_than_its_deals(tmp_path: Path) -> None:
    """A card study of 4 deals: its own tables, and every other of its report, show no
    interval, test or flag, and its headline says how many games would carry one."""
    from click.testing import CliRunner

    from arena.cli import main

    out = tmp_path / "study"
    result = CliRunner().invoke(main, [
        "balance", "study", "--bot", "random:complete=true", "--deals", "4", "--category",
        "panda", "--price-cards", "panda-03", "--workers", "1", "--quiet", "--no-report",
        "--out", str(out)])
    assert result.exit_code == 0, result.output
    parts = analyse(reports.load(out), tmp_path / "report", replicates=40)
    _check_tables(parts, thin=True)
    assert "How sure: not yet: 4 deals" in parts[0].text
