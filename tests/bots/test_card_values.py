"""Bots value cards from the game's card table (issue 19), and the ``objective`` archetypes.

The statistical test plays the same deals twice, plot-01 worth its printed 2 and then 20,
with plot-01 put in the ``objective`` seat's hand, and counts the deals where the bot has
completed it by the end of round 5.  Measured while writing it: 11 of 30 deals at 2 points,
27 of 30 at 20 (seeds 0-29), about 3 s of CPU per arm.
"""

from __future__ import annotations

import random

import pytest
from scipy.stats import fisher_exact

from arena.engine import (
    CardSet,
    GameState,
    PlayerView,
    RuleOptions,
    from_position,
    new_game,
    to_position,
)
from arena.engine import components as comp
from arena.play.bot import BotConfigError
from arena.play.registry import BotSpec
from bots.objective import ObjectiveBot

PLOT_01 = comp.CARD_INDEX["plot-01"]


def _dealt_plot_01(seed: int, cards: CardSet, rounds: int) -> GameState:
    """A new game whose seat 0 holds plot-01 (swapped with its dealt plot card)."""
    position = to_position(new_game(2, seed, RuleOptions(max_rounds=rounds), cards=cards))
    hand = position["hands"][0]["objectives"]
    if "plot-01" not in hand:
        deck = position["decks"]["plot"]
        where = deck if "plot-01" in deck else position["hands"][1]["objectives"]
        where[where.index("plot-01")] = hand[0]
        hand[0] = "plot-01"
    return from_position(position)


def _completes_plot_01(seed: int, points: int, rounds: int = 5) -> bool:
    state = _dealt_plot_01(seed, CardSet.from_changes({"plot-01": points}), rounds)
    bots = [BotSpec.parse("objective").create(random.Random(seed)),
            BotSpec.parse("random:complete=true").create(random.Random(seed + 1))]
    for seat, bot in enumerate(bots):
        bot.start(seat, 2, state.options)
    while not state.ended:
        seat = state.current
        state.apply(bots[seat].choose(PlayerView.of(state, seat), list(state.legal_actions())))
        if PLOT_01 in state.completed[0]:
            return True
    return False


def test_objective_completes_plot_01_far_more_often_when_it_is_worth_20() -> None:
    seeds = range(30)
    printed = sum(_completes_plot_01(seed, 2) for seed in seeds)
    rich = sum(_completes_plot_01(seed, 20) for seed in seeds)
    # One-sided Fisher test on the two arms' counts: a bot reading CARD_POINTS (the
    # constant) would play both arms alike and fail it.
    _, p = fisher_exact([[rich, 30 - rich], [printed, 30 - printed]], alternative="greater")
    assert p < 0.001, (printed, rich, p)
    assert rich >= 2 * printed, (printed, rich)


def test_the_archetype_weights_only_its_category_and_only_for_itself() -> None:
    game = new_game(2, 3)
    bot = ObjectiveBot(random.Random(1), prefer="panda", weight=3.0)
    bot.start(0, 2, game.options)
    view = PlayerView.of(game, 0)
    weighted = bot._preferring(view)
    for card in comp.CARDS:
        factor = 3.0 if card.category == comp.PANDA_CARD else 1
        assert weighted.card_points[card.index] == factor * view.card_points[card.index]
    assert view.card_points == game.card_points == comp.CARD_POINTS  # the game is untouched
    assert weighted is not view and weighted.card_set == view.card_set


@pytest.mark.parametrize("spec", ["objective:prefer=pandas", "objective:weight=-1",
                                  "objective:weight=nan"])
def test_bad_archetype_parameters_are_refused(spec: str) -> None:
    with pytest.raises(BotConfigError):
        BotSpec.parse(spec)


def test_every_archetype_plays_a_legal_game() -> None:
    for prefer in ("plot", "gardener", "panda"):
        state = new_game(2, 5, RuleOptions(max_rounds=4))
        bots = [BotSpec.parse(f"objective:prefer={prefer}").create(random.Random(0)),
                BotSpec.parse("objective").create(random.Random(1))]
        for seat, bot in enumerate(bots):
            bot.start(seat, 2, state.options)
        while not state.ended:
            seat = state.current
            legal = list(state.legal_actions())
            action = bots[seat].choose(PlayerView.of(state, seat), legal)
            assert action in legal
            state.apply(action)
