"""``scripts/balance_calibration.py`` end to end on a tiny run of fast random bots: every
repetition a study of its own with planted cards, its summary, and resuming where it stopped.
(The rates themselves are measured at real sizes by the script; docs/balance.md.)"""

from __future__ import annotations

import json
from pathlib import Path

from tests.scripts import load_script

cal = load_script("balance_calibration")


def test_plans_plant_one_card_per_category_that_can_take_the_change() -> None:
    seen = set()
    for rep in range(8):
        p = cal.plan(1, rep)
        assert len(p["planted"]) == 3 and len(p["others"]) == 3
        assert sorted(c.split("-")[0] for c in p["planted"]) == ["gardener", "panda", "plot"]
        _, made = cal.planted_set(p["planted"])
        assert made == p["planted"]  # never clamped at 0
        seen.update(p["planted"].values())
    assert seen == set(cal.PLANTS)
    assert cal.plan(1, 3) == cal.plan(1, 3) != cal.plan(2, 3)


def test_a_tiny_calibration_runs_and_resumes(tmp_path: Path) -> None:
    out = tmp_path / "cal"
    argv = ["--bot", "random:complete=true", "--deals", "4", "--reps", "2", "--workers", "1",
            "--out", str(out)]
    assert cal.main(argv) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["repetitions"] == 2 and summary["aa_any_flag"]["n"] == 2
    assert "A/A" in (out / "summary.md").read_text()
    rep = json.loads((out / "rep-0001.json").read_text())
    assert rep["aa"]["cards"] == 45 and len(rep["cards"]) == 6
    # A second run reads the repetitions done instead of playing them again.
    before = (out / "rep-0000.json").stat().st_mtime_ns
    assert cal.main(argv) == 0
    assert (out / "rep-0000.json").stat().st_mtime_ns == before
    # --reanalyse plays nothing and rewrites the figures from the kept games.
    games = (out / "rep-0000" / "games.jsonl").read_bytes()
    (out / "rep-0001.json").write_text(json.dumps({**rep, "cards": []}) + "\n")
    assert cal.main([*argv, "--reps", "3", "--reanalyse"]) == 0
    assert (out / "rep-0000" / "games.jsonl").read_bytes() == games
    assert not (out / "rep-0002").exists()
    again = json.loads((out / "rep-0001.json").read_text())
    assert again["cards"] == rep["cards"] and again["made"] == rep["made"]
    assert json.loads((out / "summary.json").read_text())["repetitions"] == 2


def test_sizes_are_projected_from_a_pilot(tmp_path: Path, capsys: object) -> None:
    """``--project STUDY`` prints the power by size from a pilot's variance and slopes."""
    from click.testing import CliRunner

    from arena.cli import main

    result = CliRunner().invoke(main, [
        "balance", "study", "--bot", "random:complete=true", "--deals", "10", "--workers", "1",
        "--category", "panda", "--price-cards", "panda-03,panda-10", "--quiet", "--no-report",
        "--seed", "0", "--out", str(tmp_path / "pilot")])
    assert result.exit_code == 0, result.output
    text = cal.project(tmp_path / "pilot", [40, 400])
    assert "| 40 |" in text and "| 400 |" in text and "λ panda" in text


def test_a_subset_of_categories_per_repetition(tmp_path: Path) -> None:
    """``--categories-per-rep 1``: each repetition studies one category drawn at random (a
    different one across repetitions), plants one card in it, and the A/A takes several
    placebo draws, counted with an interval at the number of repetitions."""
    plans = [cal.plan(1, rep, 1) for rep in range(12)]
    for p in plans:
        assert len(p["categories"]) == 1 and len(p["planted"]) == 1 == len(p["others"])
        assert next(iter(p["planted"])).startswith(p["categories"][0])
    assert len({p["categories"][0] for p in plans}) == 3
    out = tmp_path / "cal"
    argv = ["--bot", "random:complete=true", "--deals", "4", "--reps", "2", "--workers", "1",
            "--categories-per-rep", "1", "--aa-draws", "3", "--out", str(out)]
    assert cal.main(argv) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["aa_draws"] == 6 and summary["aa_any_flag"]["n"] == 6
    assert summary["aa_any_flag"].get("n_effective", 2) == 2
    rep = json.loads((out / "rep-0000.json").read_text())
    assert rep["aa"]["cards"] == 15 and len(rep["cards"]) == 2 and len(rep["aa_draws"]) == 3
    assert "1 of the 3 categories" in (out / "summary.md").read_text()
    assert "power_bonferroni_pm2" in summary or "power_bonferroni_pm4" in summary
    # Coverage against a study of the printed set (here one of the repetitions' own).
    assert cal.main([*argv, "--reference", str(out / "rep-0000")]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert "coverage_reference" in summary
    assert "covers its fair points in" in (out / "summary.md").read_text()
    # Another calibration on new seeds, summarized with this one: its repetitions also
    # counted alone (held out), against references from both.
    out2 = tmp_path / "cal2"
    argv2 = [*argv[:-1], str(out2), "--seed", "2"]
    assert cal.main([*argv2, "--with", str(out)]) == 0
    pooled = json.loads((out2 / "summary-pooled.json").read_text())
    assert pooled["repetitions"] == 4 and "coverage_held_out" in pooled
    assert json.loads((out2 / "summary.json").read_text())["repetitions"] == 2
    assert "held out" in (out2 / "summary-pooled.md").read_text()
    assert cal.main([*argv2, "--with", str(tmp_path / "nothing")]) == 2
