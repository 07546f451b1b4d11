"""``scripts/paired.py``: the paired comparison of two strength runs on the same deals."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.scripts import load_script

paired = load_script("paired")


def _run(path: Path, subject: str, wins: dict[tuple[int, int], list[int]],
         extra: str = "") -> Path:
    """A strength run's folder, unsigned (an earlier version's: the one reader reads it with
    a warning): two-player games, the subject in the rotation's seat."""
    path.mkdir()
    (path / "manifest.json").write_text(json.dumps(
        {"file_format": "takenoko-arena-manifest/1", "participants": []}))
    with (path / "games.jsonl").open("w") as out:
        for (deal, rotation), winners in wins.items():
            seats = [subject, "objective#1"] if rotation == 0 else ["objective#1", subject]
            game = {"deal": deal, "rotation": rotation, "seats": seats, "winners": winners}
            out.write(json.dumps(game) + "\n")
        out.write(extra)
    return path


def test_counts_discordant_games_on_the_deals_both_runs_played(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = _run(tmp_path / "base", "mcts", {
        (0, 0): [0], (0, 1): [0], (1, 0): [0], (1, 1): [1], (2, 0): [0, 1],
    })
    # The subject's results, base against new: (0, 0) won by both; (0, 1) lost, then won;
    # (1, 0) and (1, 1) won, then lost; (2, 0) shared (half a win), then lost.  (3, 0) is in
    # one run only, and the new run's last line was cut off mid-write.
    new = _run(tmp_path / "new", "mcts:c=0.1", {
        (0, 0): [0], (0, 1): [1], (1, 0): [1], (1, 1): [0], (2, 0): [1], (3, 0): [0],
    }, extra='{"deal": 4, "rot')
    assert paired.main([str(base), str(new)]) == 0
    out = capsys.readouterr().out
    assert "5 games played by both runs (2 players, deals 0-2)" in out
    assert "3.5 wins" in out and "2.0 wins" in out
    assert "(1 unreadable lines skipped)" in out
    assert "base better 3, new better 1" in out
    assert "p = 0.625" in out


def test_deals_from_skips_the_games_a_default_was_chosen_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    wins = {(d, r): [0] for d in range(4) for r in (0, 1)}
    base = _run(tmp_path / "base", "mcts", wins)
    new = _run(tmp_path / "new", "greedy", {k: [1] for k in wins})
    assert paired.main([str(base), str(new), "--deals-from", "2"]) == 0
    out = capsys.readouterr().out
    assert "4 games played by both runs (2 players, deals 2-3)" in out
    # Seat 0 always wins in base and seat 1 in new: the subject sits in seat 0 in rotation 0.
    assert "base better 2, new better 2" in out


@pytest.mark.parametrize(
    ("case", "message"),
    [
        ("missing", "no games.jsonl"),
        ("no_common", "no game of"),
        ("two_subjects", "'seats' should hold one spec"),
    ],
)
def test_bad_runs_are_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str, message: str
) -> None:
    base = _run(tmp_path / "base", "mcts", {(0, 0): [0]})
    if case == "missing":
        new = tmp_path / "nothing"
    elif case == "no_common":
        new = _run(tmp_path / "new", "mcts", {(5, 0): [0]})
    else:
        new = _run(tmp_path / "new", "mcts", {})
        game = {"deal": 0, "rotation": 0, "seats": ["mcts", "greedy"], "winners": [0]}
        (new / "games.jsonl").write_text(json.dumps(game) + "\n")
    assert paired.main([str(base), str(new)]) == 2
    assert message in capsys.readouterr().err
