"""Issue 52: ``arena report A B`` compares only runs that can be compared, and says how."""

from __future__ import annotations

import warnings
from pathlib import Path

from click.testing import CliRunner

from arena.cli import main
from reports.report import write_report


def _run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    assert "Traceback" not in result.output
    return result.exit_code, result.output


def _tournament(directory: Path, *bots: str, seed: int = 1) -> Path:
    """A small real tournament (its records signed, as ``arena report`` wants them)."""
    args = ["tournament", "--games", "20", "--seed", str(seed), "--workers", "1", "--quiet",
            "--out", str(directory)]
    for bot in bots:
        args += ["--bot", bot]
    code, out = _run(*args)
    assert code == 0, out
    return directory


def test_a_study_against_a_tournament_is_one_sentence(tmp_path: Path) -> None:
    study, tour = tmp_path / "sc", tmp_path / "cc"
    code, out = _run("balance", "study", "--bot", "greedy", "--games", "30", "--seed", "1",
                     "--category", "plot", "--no-report", "--quiet", "--workers", "1",
                     "--out", str(study))
    assert code == 0, out
    _tournament(tour, "greedy", "random")
    code, out = _run("report", str(tour), str(study), "--out", str(tmp_path / "mix"))
    assert code == 2
    assert "card study" in out and "tournament" in out
    assert "invalid value" not in out and "largest change" not in out
    assert "computing tables" not in out  # refused before the work is announced


def test_runs_with_no_bot_in_common_are_refused(tmp_path: Path) -> None:
    a = _tournament(tmp_path / "a", "greedy", "random")
    b = _tournament(tmp_path / "b", "objective", "greedy:name=g2")
    code, out = _run("report", str(a), str(b), "--out", str(tmp_path / "ab"))
    assert code == 2 and "no bot in common" in out


def test_other_bots_and_other_deals_are_said_in_the_headline(tmp_path: Path) -> None:
    """greedy against random, then greedy against objective on other deals: the change of
    greedy's win rate is the opponents', and the headline says the runs are unpaired; no
    numpy warning about the participant one run lacks reaches the output."""
    a = _tournament(tmp_path / "base", "greedy", "random", seed=1)
    b = _tournament(tmp_path / "t1", "greedy", "objective", seed=2)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        out = write_report([a, b], tmp_path / "cmp")
    text = (out / "summary.txt").read_text()
    assert "unpaired" in text
    code, printed = _run("report", str(a), str(b), "--out", str(tmp_path / "cmp2"))
    assert code == 0 and "note: invalid value" not in printed and "unpaired" in printed
