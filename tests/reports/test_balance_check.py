"""``scripts/balance_check.py``: the planted-imbalance and A/A validation of the paired card
report, run at a size a test can afford (random bots, a few deals): the runs it plays must be
the ones it describes (same deals, the planted points, renamed A/A participants) and its JSON
summary must carry every figure the closing note quotes."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from tests.scripts import load_script

check = load_script("balance_check")


def _games(directory: Path) -> list[dict]:
    return [json.loads(line) for line in (directory / "games.jsonl").read_text().splitlines()]


def test_plays_the_three_runs_on_the_same_deals_and_summarises_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "check"
    argv = ["--bot", "random", "--games", "6", "--replicates", "20", "--workers", "1",
            "--progress", "none", "--out", str(out), "--rich", "plot-11", "--zero", "panda-06",
            "--plus", "2", "--at", "4", "--at", "40"]
    assert check.main(argv) == 0
    text = capsys.readouterr().out
    summary = json.loads((out / "balance_check+2.json").read_text())

    # The planted run carries the planted points; the others the printed ones.
    planted = json.loads((out / "planted+2" / "manifest.json").read_text())["card_set"]
    default = json.loads((out / "default" / "manifest.json").read_text())["card_set"]
    assert planted["points"]["plot-11"] == default["points"]["plot-11"] + 2 == 6
    assert planted["points"]["panda-06"] == 0 and default["points"]["panda-06"] == 4
    # Same deals in all three; the A/A under other names (other random streams).
    seeds = {name: sorted((g["game"], g["seed"]) for g in _games(out / d))
             for name, d in (("default", "default"), ("planted", "planted+2"), ("aa", "aa"))}
    assert seeds["default"] == seeds["planted"] == seeds["aa"] and len(seeds["aa"]) == 6
    names = {tuple(sorted(g["seats"])) for g in _games(out / "aa")}
    assert names == {("random (A) A/A", "random#1 A/A")}

    assert summary["settings"]["plus"] == 2 and summary["settings"]["fdr"] == 0.05
    assert set(summary["runs"]) == {"default", "planted", "aa"}
    assert all(r["games"] == 6 and r["played"] == 6 for r in summary["runs"].values())
    p = summary["planted"]
    assert p["games"] == 6 and p["deals"] == 3
    assert set(p["planted"]) == {"plot-11", "panda-06"}
    assert p["planted"]["plot-11"]["moved"] == 2 and p["planted"]["panda-06"]["moved"] == -4
    for entry in p["planted"].values():
        for m in ("fair_value", "completion_rate"):
            assert set(entry[m]) == {"change", "lo", "hi", "q", "flagged"}
    for part in (p, summary["aa"]):
        assert set(part["flagged"]) == {"fair_value", "completion_rate"}
        assert all(c.split("-")[0] in ("plot", "panda", "gardener")
                   for cards in part["flagged"].values() for c in cards)
    assert isinstance(summary["aa"]["within_fdr"], bool)
    # --at: the first 4 games (2 deals) checked too; 40 is past the run's size, skipped.
    (row,) = summary["smaller"]
    assert row["games"] == 4 and set(row["planted"]) == {"plot-11", "panda-06"}
    assert "First 4 games:" in text
    # Changed winners are counted by seat: renaming the A/A's participants changes no winner.
    winners = {name: {g["game"]: sorted(g["winners"]) for g in _games(out / name)}
               for name in ("default", "aa")}
    changed = sum(winners["default"][g] != winners["aa"][g] for g in winners["default"])
    assert summary["aa"]["winner_changed"] == changed < 6
    assert "plot-11 moved +2" in text and "panda-06 moved -4" in text and "A/A" in text

    # Run again: everything is resumed, nothing played.
    assert check.main(argv) == 0
    again = json.loads((out / "balance_check+2.json").read_text())
    assert all(r["played"] == 0 for r in again["runs"].values())
    assert again["planted"]["planted"] == summary["planted"]["planted"]


@pytest.mark.parametrize(("argv", "message"), [
    (["--rich", "plot-99"], "--rich: unknown card 'plot-99'"),
    (["--zero", "panda-16"], "--zero: unknown card 'panda-16'"),
    (["--rich", "plot-03", "--zero", "plot-03"], "--rich and --zero name the same card"),
    (["--plus", "0"], "argument --plus: must be at least 1, not 0"),
])
def test_bad_planting_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    with pytest.raises(SystemExit) as exit_:
        check.main([*argv, "--out", str(tmp_path / "never")])
    assert exit_.value.code == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "never").exists()


def test_games_to_find_grows_with_the_square_of_the_error() -> None:
    # se = 1 point at 100 games: a 4-point change needs (1 * 2.80 / 4)^2 * 100 = 50 games.
    z = check.stats.Z
    assert check.games_to_find(100, -z, z, 4) == math.ceil(100 * ((z + 0.8416212) / 4) ** 2)
    # Twice the error: four times the games; the same error for twice the change: a quarter.
    assert abs(check.games_to_find(100, -2 * z, 2 * z, 4)
               - 4 * check.games_to_find(100, -z, z, 4)) <= 4
    assert check.games_to_find(100, -2 * z, 2 * z, 8) == check.games_to_find(100, -z, z, 4)
    assert check.games_to_find(100, 0.0, 0.0, 4) is None
    assert check.games_to_find(100, math.nan, math.nan, 4) is None
