"""The built-in bots at the decisions R3.1 and R12 ``redraw_satisfied=all`` added: free moves
at weather, place and redraw steps, and the choice of a replacement's deck."""

from __future__ import annotations

import random

import pytest

from arena.engine import GameState, PlayerView, RuleOptions
from arena.engine.actions import B_SHIFT, KIND_MASK, REDRAW
from arena.play.match import play_game
from arena.play.registry import BotSpec
from bots.heuristics import draw_value
from bots.objective import ObjectiveBot
from tests.engine.helpers import hand, legal, load, play, tile
from tests.engine.test_rule_options import redraw_all_position

SPECS = ["random", "greedy", "objective", "mcts:iterations=40", "mcts:iterations=40,delegate=none"]


def decisions() -> list[GameState]:
    """A redraw decision with a stored channel, and rain with no target but a channel."""
    redraw = redraw_all_position(channels=1)
    play(redraw, "objective panda")
    rain = load(
        tiles=[tile("1,0", "green", 4), tile("1,-1", "green", 4), tile("2,-1", "green", 0)],
        channels=["1,0|1,-1"], step="roll", dice=["rain"], hands=[hand(channels=1), hand()],
    )
    assert (redraw.step_name, rain.step_name) == ("redraw", "rain")
    assert len(legal(redraw)) == 4 and len(legal(rain)) == 3
    return [redraw, rain]


@pytest.mark.parametrize("spec", SPECS)
def test_R3_1_R12_every_bot_chooses_a_legal_action_at_the_new_decisions(spec: str) -> None:
    """R3.1, R12: at a redraw step and at a weather step opened by a free move, each bot
    answers with one of the listed actions."""
    for state in decisions():
        bot = BotSpec.parse(spec).create(random.Random(1))
        bot.start(state.current, state.players, state.options)
        action = bot.choose(PlayerView.of(state, state.current), list(state.legal_actions()))
        assert action in state.legal_actions()


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("players", [2, 3])
def test_R3_1_R12_every_bot_plays_legal_games_with_the_redraw_variant(
    spec: str, players: int
) -> None:
    """R3.1, R12: short games (6 rounds) with ``redraw_satisfied=all`` and the other options
    that add decisions end without a fault (every choice was checked legal)."""
    options = RuleOptions(redraw_satisfied="all", cloud_when_empty="move_improvement",
                          max_rounds=6)
    for seed in (3, 4):
        bots = [BotSpec.parse(spec).create(random.Random(seed + i)) for i in range(players)]
        outcome = play_game(bots, seed, options)
        assert outcome.error is None, outcome.error
        assert outcome.state.ended


def test_R12_the_objective_bot_redraws_from_the_deck_with_the_best_expected_card() -> None:
    """R12 redraw_satisfied=all: the ``objective`` bot picks the replacement's deck by its
    expected card value, as it does for the objective action, and places no stored piece
    there (they wait for the action step)."""
    state = redraw_all_position(channels=1)
    play(state, "objective panda")
    view = PlayerView.of(state, 0)
    bot = ObjectiveBot(random.Random(0))
    bot.start(0, 2, state.options)
    action = bot.choose(view, list(state.legal_actions()))
    values = [draw_value(view, 0, k, bot.decay, bot.race) for k in range(3)]
    assert action & KIND_MASK == REDRAW
    assert values[action >> B_SHIFT] == max(values) > min(values)
