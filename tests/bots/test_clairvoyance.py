"""``scripts/clairvoyance.py``: a search bot's samples drawn from the true game (a diagnostic)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from arena.engine import GameState, PlayerView, new_game
from tests.scripts import load_script

clairvoyance = load_script("clairvoyance")
strength = load_script("strength")

SPEC = "mcts:iterations=20"


def _midgame(seed: int, decisions: int) -> GameState:
    state = new_game(2, seed)
    rng = random.Random(seed)
    for _ in range(decisions):
        state.apply(rng.choice(state.legal_actions()))
    return state


def _moves(run: Path) -> dict[str, list[str]]:
    lines = (run / "games.jsonl").read_text().splitlines()
    return {g["game"]: g["moves"] for g in map(json.loads, lines)}


@pytest.mark.parametrize("reveal", ["none", "hands", "cards", "all"])
def test_samples_keep_what_is_revealed_and_deal_the_rest_again(reveal: str) -> None:
    truth = _midgame(5, 60)
    assert not truth.ended
    view = PlayerView.of(truth, truth.current)
    sample = clairvoyance.RevealingView(view, truth, reveal).determinize(random.Random(1))
    if reveal == "none":  # the honest sample, drawn with the same generator
        honest = view.determinize(random.Random(1))
        assert sample.hands == honest.hands and sample.objective_decks == honest.objective_decks
        return
    assert sample.hands == truth.hands
    assert sample.legal_actions() == truth.legal_actions()
    # Deck by deck the same cards; in the same order only when the cards are revealed.
    assert [sorted(d) for d in sample.objective_decks] == [
        sorted(d) for d in truth.objective_decks
    ]
    assert sorted(sample.plot_deck) == sorted(truth.plot_deck)
    same_order = (sample.objective_decks == truth.objective_decks
                  and sample.plot_deck == truth.plot_deck)
    assert same_order == (reveal != "hands")
    assert (sample.rng == truth.rng) == (reveal == "all")
    # The sample is a copy: searching it leaves the game alone.
    before = truth.legal_actions()
    sample.apply(sample.legal_actions()[0])
    assert truth.legal_actions() == before


def test_reveal_none_plays_the_games_of_strength_py(tmp_path: Path) -> None:
    """Same schedule, seeds and bot generators: the honest run is the strength run."""
    assert strength.main([SPEC, "objective", "--games", "2", "--seed", "3", "--workers", "1",
                          "--out", str(tmp_path / "honest")]) == 0
    assert clairvoyance.main([SPEC, "objective", "--reveal", "none", "--games", "2",
                              "--seed", "3", "--workers", "1",
                              "--out", str(tmp_path / "none")]) == 0
    honest, none = _moves(tmp_path / "honest"), _moves(tmp_path / "none")
    assert len(honest) == 2 and honest == none


def test_a_run_resumes_and_refuses_another_runs_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run"
    args = [SPEC, "objective", "--games", "2", "--seed", "4", "--workers", "1",
            "--out", str(out)]
    assert clairvoyance.main([*args, "--reveal", "cards"]) == 0
    first = (out / "games.jsonl").read_text()
    assert len(first.splitlines()) == 2
    assert "(sees cards)" in first
    capsys.readouterr()
    with (out / "games.jsonl").open("a") as games:  # a kill in the middle of a write
        games.write('{"game": "000-00')
    assert clairvoyance.main([*args, "--reveal", "cards"]) == 0
    assert (out / "games.jsonl").read_text() == first  # the cut line dropped, nothing replayed
    assert "2 already in" in capsys.readouterr().err
    assert clairvoyance.main([*args, "--reveal", "hands"]) == 2
    err = capsys.readouterr().err
    assert "games.jsonl line 1" in err and "use another --out" in err
    assert (out / "games.jsonl").read_text() == first


def test_bad_input_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        clairvoyance.main(["mcts:iterations=x", "objective", "--reveal", "cards", "--out", "x"])
    assert exit_.value.code == 2
    assert "iterations" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        clairvoyance.main(["mcts", "objective", "--reveal", "decks", "--out", "x"])
    assert "invalid choice: 'decks'" in capsys.readouterr().err
