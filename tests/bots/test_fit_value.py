"""``scripts/fit_value.py --records``: the leaf's rows re-played from recorded games."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from arena.engine import STEP_ACTIONS, PlayerView, new_game
from arena.play.registry import BotSpec
from arena.runs.records import make_record
from bots.mcts_leaves import FittedLeaf
from tests.scripts import load_script

fit_value = load_script("fit_value")


def _game(seed: int, players: int = 2) -> tuple[dict, list[tuple[int, float, list[float]]]]:
    """A game between ``greedy`` bots, its record, and the rows taken while it was played
    (each seat's leaf features at every action-step decision, and whether it won)."""
    s = new_game(players, seed)
    bots = [BotSpec.parse("greedy").create(random.Random(seed + p)) for p in range(players)]
    for p, bot in enumerate(bots):
        bot.start(p, players, s.options)
    leaves = [FittedLeaf(8.0) for _ in range(players)]
    seen: list[tuple[int, list[float]]] = []
    while not s.ended:
        if s.step == STEP_ACTIONS:
            for p, leaf in enumerate(leaves):
                leaf.prepare(PlayerView.of(s, p))
                own, rival, q = leaf.own_and_rival(s)
                seen.append((p, leaf.features(s, p, own[p], q, rival)))
        s.apply(bots[s.current].choose(PlayerView.of(s, s.current), list(s.legal_actions())))
    record = make_record(s, [f"greedy#{p}" for p in range(players)], [0.0] * players, None,
                         {"game": f"g{seed}", "deal": seed, "rotation": 0})
    winners = s.result().winners
    rows = [(seed, 1.0 / len(winners) if p in winners else 0.0, f) for p, f in seen]
    return dict(record), rows


def test_rows_from_a_record_are_the_rows_of_the_game_played() -> None:
    record, rows = _game(31)
    assert rows and fit_value.rows_from_record(json.loads(json.dumps(record))) == rows


def test_a_game_that_ended_in_a_bot_error_gives_no_rows() -> None:
    record, _rows = _game(32)
    record["error"] = {"seat": 0, "kind": "crash", "message": "boom"}
    assert fit_value.rows_from_record(record) == []


def test_fits_on_record_files_and_says_what_it_compared(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    games = tmp_path / "games.jsonl"
    games.write_text("".join(json.dumps(_game(40 + i)[0]) + "\n" for i in range(10)))
    assert fit_value.main(["--records", str(games), "--workers", "1"]) == 0
    out = capsys.readouterr().out
    assert "rows from 10 games; held out" in out and "from 2 deals" in out  # seeds 40, 45
    assert "FITTED_WEIGHTS now" in out and "weights: (" in out


def _choice(record: dict, start: int) -> int:
    """The index of the first choice (not an event) at or after ``start`` in the moves."""
    return next(i for i, line in enumerate(record["moves"]) if i >= start and line[0] != "*")


@pytest.mark.parametrize(("damage", "message"), [
    (lambda r: r["moves"].insert(_choice(r, 3), r["moves"][_choice(r, 3)][0] + " panda 3,0"),
     "'panda 3,0' is not legal for seat"),
    (lambda r: r["moves"].__setitem__(slice(20, None), []), "stop before the end"),
    (lambda r: r["moves"].__setitem__(2, "1" + r["moves"][2][1:]), "it is seat 0's turn"),
    (lambda r: r["moves"].__setitem__(3, 7), "7 is not text"),
    (lambda r: r["scores"].reverse(), "scores: recorded"),
    (lambda r: r.pop("seed"), "the record has no 'seed' field"),
])
def test_a_damaged_record_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], damage, message: str
) -> None:
    record, _rows = _game(33)
    damage(record)
    games = tmp_path / "games.jsonl"
    games.write_text(json.dumps(record) + "\n")
    assert fit_value.main(["--records", str(games), "--workers", "1"]) == 2
    err = capsys.readouterr().err
    assert "error: game 'g33'" in err and message in err


def test_missing_files_and_mixed_player_counts_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert fit_value.main(["--records", str(tmp_path / "none.jsonl")]) == 2
    assert "cannot read" in capsys.readouterr().err
    games = tmp_path / "games.jsonl"
    games.write_text(json.dumps(_game(34)[0]) + "\n" + json.dumps(_game(35, 3)[0]) + "\n")
    assert fit_value.main(["--records", str(games)]) == 2
    assert "mix games of [2, 3] players" in capsys.readouterr().err


def test_games_from_too_few_deals_to_hold_some_out_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    games = tmp_path / "games.jsonl"
    games.write_text(json.dumps(_game(36)[0]) + "\n" + json.dumps(_game(37)[0]) + "\n")
    assert fit_value.main(["--records", str(games), "--workers", "1"]) == 2
    assert "the rows come from 2 seeds, all of them fitted on" in capsys.readouterr().err
