"""The ``greedy`` bot: legal, complete games; one-ply choices on crafted positions."""

from __future__ import annotations

import random

import pytest

from arena.engine import RuleOptions, action_text
from arena.engine.components import DEFAULT_CARD_SET as PRINTED
from arena.play.match import play_game
from arena.play.registry import BotSpec, make_bot
from bots.greedy import GreedyBot

from .positions import ONE_GROWTH_TO_GO, SHORT, decide, position


@pytest.mark.parametrize(("players", "seed"), [(2, 1), (3, 2), (4, 3)])
def test_plays_short_games_with_legal_moves_only(players: int, seed: int) -> None:
    """``play_game`` records any illegal action or crash as an error: there must be none."""
    specs = ["greedy", "random:complete=true", "greedy:samples=2", "random"][:players]
    bots = [make_bot(BotSpec.parse(s), seed, i) for i, s in enumerate(specs)]
    outcome = play_game(bots, seed, SHORT)
    assert outcome.error is None
    assert outcome.state.ended
    assert outcome.state.emperor >= 0 or outcome.state.capped
    assert outcome.record  # a record was produced


def test_same_seed_same_game() -> None:
    def moves(seed: int) -> list[str]:
        bots = [GreedyBot(random.Random(seed)), GreedyBot(random.Random(seed + 1))]
        out = play_game(bots, 5, RuleOptions(max_rounds=4))
        return out.state.history_text()

    assert moves(1) == moves(1)


def test_completes_a_satisfied_objective_first() -> None:
    state = position(
        [{"objectives": ["gardener-04", "panda-11"]}, {"objectives": ["panda-01"]}],
        [{"at": "1,0", "tile": "green", "bamboo": 4}, {"at": "1,-1", "tile": "pink", "bamboo": 1}],
    )
    assert "complete gardener-04" in [action_text(a, PRINTED) for a in state.legal_actions()]
    for seed in range(3):
        assert decide("greedy", state, seed) == "complete gardener-04"


def test_completing_action_is_valued_above_the_rest() -> None:
    """Without the shortcut, the evaluation alone ranks completion first (score weight > 1)."""
    state = position(
        [{"objectives": ["panda-01"], "eaten": {"green": 2}}, {"objectives": ["panda-02"]}],
        [{"at": "1,0", "tile": "green", "bamboo": 2}],
    )
    values = {
        action_text(a, PRINTED): GreedyBot.value_after(state, a, 0) for a in state.legal_actions()
    }
    assert max(values, key=values.__getitem__) == "complete panda-01"


def test_grows_the_shoot_its_card_needs() -> None:
    state = position(**ONE_GROWTH_TO_GO)
    # Greedy may prefer drawing a card first; but among moves of the gardener it grows 1,0,
    # and it never moves the panda onto its own nearly finished shoot.
    values = {
        action_text(a, PRINTED): GreedyBot.value_after(state, a, 0) for a in state.legal_actions()
    }
    gardener = {k: v for k, v in values.items() if k.startswith("gardener")}
    assert max(gardener, key=gardener.__getitem__) == "gardener 1,0"
    assert values["panda 1,0"] < values["gardener 1,0"]


def test_rain_and_storm_go_where_the_hand_needs_them() -> None:
    tiles = [
        {"at": "1,0", "tile": "yellow", "bamboo": 2},
        {"at": "1,-1", "tile": "green", "bamboo": 3},
        {"at": "0,-1", "tile": "green", "bamboo": 1},
    ]
    rain = position(
        [{"objectives": ["gardener-04"]}, {"objectives": ["panda-02"]}], tiles,
        step="rain", weather="rain",
    )
    assert decide("greedy", rain) == "rain 1,-1"
    storm = position(
        [{"objectives": ["panda-06"], "eaten": {"yellow": 1}}, {"objectives": ["panda-02"]}],
        tiles, step="storm", weather="storm",
    )
    assert decide("greedy", storm) == "storm 1,0"


def test_more_samples_still_decide_legally() -> None:
    state = position(**ONE_GROWTH_TO_GO)
    for seed in range(2):
        assert decide("greedy:samples=3", state, seed) in {
            action_text(a, PRINTED) for a in state.legal_actions()
        }
