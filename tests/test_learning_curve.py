"""``scripts/learning_curve.py`` and its data: the learned value's learning curve (issue 51)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.scripts import load_script

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "docs" / "learning-curve.json"
learning_curve = load_script("learning_curve")


def test_every_figure_of_the_curve_is_one_the_research_log_records() -> None:
    """The chart redraws docs/experiments.md's figures: each win rate with its half-width
    must be there as written (a figure mistyped into the data file would fail here)."""
    log = " ".join((ROOT / "docs" / "experiments.md").read_text().split())
    for g in json.loads(DATA.read_text())["generations"]:
        assert f"{g['vs_objective']:.1f}% ± {g['half']:.1f}" in log, g["name"]
        if g["vs_previous"] is not None:
            assert f"{g['vs_previous']:.1f}% ± {g['vs_previous_half']:.1f}" in log, g["name"]
        assert g["family"] in learning_curve.FAMILIES


def test_the_chart_is_drawn_as_a_small_png(tmp_path) -> None:
    out = tmp_path / "curve.png"
    assert learning_curve.main(["--data", str(DATA), "--out", str(out)]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert out.stat().st_size < 100_000
    assert (ROOT / "docs" / "learning-curve.png").stat().st_size < 100_000
