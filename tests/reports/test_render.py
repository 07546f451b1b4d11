"""How a table is shown in Markdown and HTML: the column conventions of ``render.display``."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from reports import render


def test_an_interval_is_one_column() -> None:
    frame = pd.DataFrame({"who": ["A", "B"], "rate": [0.5, math.nan],
                          "rate_lo": [0.25, math.nan], "rate_hi": [0.75, math.nan]})
    shown = render.display(frame)
    assert list(shown.columns) == ["who", "rate [95% CI]"]
    assert shown["rate [95% CI]"].tolist() == ["0.500 [0.250, 0.750]", "–"]


def test_a_clipped_value_is_shown_as_a_bound() -> None:
    frame = pd.DataFrame({"elo": [-999.0, 12.0], "elo_lo": [math.nan, -40.0],
                          "elo_hi": [math.nan, 60.0], "elo_clipped": [True, False]})
    assert render.display(frame)["elo [95% CI]"].tolist() == ["< -999", "12.00 [-40.00, 60.00]"]


def test_a_figure_too_few_games_resolve_says_how_many_are_needed() -> None:
    """NaN with a count of games needed reads as a sentence; an estimate stays a number,
    a NaN without a count a dash, and the count is not shown as a column of its own."""
    frame = pd.DataFrame({
        "card": ["plot-01", "plot-02", "plot-03"],
        "value": [1.5, math.nan, math.nan], "value_lo": [0.5, math.nan, math.nan],
        "value_hi": [2.5, math.nan, math.nan], "value_games_needed": [300.0, 1200.0, math.nan],
        "drawn": [40, 3, 0]})
    shown = render.display(frame)
    assert list(shown.columns) == ["card", "value [95% CI]", "drawn"]
    assert shown["value [95% CI]"].tolist() == [
        "1.500 [0.500, 2.500]", "not enough games: about 1200 needed", "–"]
    md = render.markdown_table(frame)
    assert "not enough games: about 1200 needed" in md and "games_needed" not in md
    html = render.html_table(frame)
    assert "not enough games: about 1200 needed" in html


def test_a_count_of_games_needed_without_its_figure_is_an_ordinary_column() -> None:
    """The card table's ``games_needed`` (to detect a one-point imbalance) names no figure,
    so it is shown as it is."""
    frame = pd.DataFrame({"fair_value": [math.nan], "games_needed": [500.0]})
    assert list(render.display(frame).columns) == ["fair_value", "games_needed"]


def test_a_wide_table_is_split_in_markdown_never_dropped() -> None:
    """45 rows of many columns: every column is in report.md, in parts that fit the page,
    each led by the row's name."""
    frame = pd.DataFrame({"card": [f"panda-{i:02d}" for i in range(45)]})
    for k in range(9):
        frame[f"figure_{k}"] = np.linspace(0.1, 0.9, 45) + k
        frame[f"figure_{k}_lo"] = frame[f"figure_{k}"] - 0.05
        frame[f"figure_{k}_hi"] = frame[f"figure_{k}"] + 0.05
    text = render.markdown_table(frame, 60, "cards.csv")
    assert "too wide" not in text
    for k in range(9):
        assert f"figure_{k} [95% CI]" in text
    lines = text.splitlines()
    headers = [a for a, b in itertools.pairwise(lines) if b.startswith("| ---")]
    assert len(headers) > 1 and all(h.startswith("| card |") for h in headers)
    assert max(len(line) for line in lines) <= render.MD_WIDTH
    assert text.count("panda-44") == len(headers)


def test_report_out_refuses_another_runs_folder(tmp_path: Path) -> None:
    import reports
    from tests.reports.report_helpers import duel

    run = duel(tmp_path / "duel")
    other = duel(tmp_path / "other")
    with pytest.raises(reports.ReportError, match="is a run's folder"):
        reports.write_report([run], out=other)
    assert not (other / "report.md").exists()
