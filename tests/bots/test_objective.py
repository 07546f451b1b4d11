"""The ``objective`` planner: complete games, and its plan on crafted positions."""

from __future__ import annotations

import random

import pytest

from arena.engine import Event, PlayerView, RuleOptions, action_text, parse_action
from arena.engine.actions import KIND_MASK, OBJECTIVE
from arena.engine.components import DEFAULT_CARD_SET, parse_card
from arena.play.match import play_game
from arena.play.registry import BotSpec, make_bot
from bots.objective import ObjectiveBot

from .positions import ONE_GROWTH_TO_GO, SHORT, decide, position


@pytest.mark.parametrize(("players", "seed"), [(2, 4), (3, 5), (4, 6)])
def test_plays_short_games_with_legal_moves_only(players: int, seed: int) -> None:
    specs = ["objective", "greedy", "objective:protect=false,hand_size=2", "random"][:players]
    bots = [make_bot(BotSpec.parse(s), seed, i) for i, s in enumerate(specs)]
    outcome = play_game(bots, seed, SHORT)
    assert outcome.error is None
    assert outcome.state.ended
    assert outcome.state.emperor >= 0 or outcome.state.capped


def test_same_seed_same_game() -> None:
    def moves() -> list[str]:
        bots = [ObjectiveBot(random.Random(1)), ObjectiveBot(random.Random(2))]
        return play_game(bots, 8, RuleOptions(max_rounds=3)).state.history_text()

    assert moves() == moves()


def test_takes_the_gardener_move_that_completes_its_target() -> None:
    state = position(**ONE_GROWTH_TO_GO)
    for seed in range(4):
        assert decide("objective", state, seed) == "gardener 1,0"


def test_completes_first_the_card_worth_most() -> None:
    state = position(
        [{"objectives": ["panda-01", "panda-13"], "eaten": {"green": 2, "yellow": 1, "pink": 1}},
         {"objectives": ["panda-02"]}],
        [{"at": "1,0", "tile": "green", "bamboo": 2}],
    )
    assert decide("objective", state) == "complete panda-13"


def test_race_targets_the_quicker_card_over_the_richer_one() -> None:
    # panda-01 (3 points) needs one action, panda-13 (6 points) two.
    state = position(
        [{"objectives": ["panda-01", "panda-13"], "eaten": {"green": 1, "pink": 1}},
         {"objectives": ["panda-02"]}],
        [{"at": "1,0", "tile": "green", "bamboo": 2}, {"at": "1,-1", "tile": "yellow", "bamboo": 1},
         {"at": "0,-1", "tile": "pink", "bamboo": 1}],
    )
    targets = {}
    for race in (0.0, 5.0):
        bot = ObjectiveBot(random.Random(0), race=race)
        bot.start(0, 2, state.options)
        targets[race] = bot._plan(PlayerView.of(state, 0)).target
    assert targets == {0.0: parse_card("panda-13"), 5.0: parse_card("panda-01")}


# An opponent ate the yellow shoot at 1,0 down to nothing; seat 0 grows yellow shoots
# (gardener-14: three yellow plots at 3 sections, any improvement) and holds an enclosure.
EATEN_SHOOT = dict(
    tiles=[
        {"at": "1,0", "tile": "yellow", "bamboo": 0},
        {"at": "1,-1", "tile": "yellow", "bamboo": 2},
        {"at": "0,-1", "tile": "yellow", "bamboo": 1},
    ],
)


def test_protects_its_shoot_with_an_enclosure_when_an_opponent_eats_it() -> None:
    hands = [{"objectives": ["gardener-14", "plot-01"], "improvements": ["enclosure"]},
             {"objectives": ["panda-01"], "eaten": {"yellow": 1}}]
    state = position(hands, **EATEN_SHOOT)
    for seed in range(3):
        assert decide("objective", state, seed) == "improve enclosure 1,0"
    # The parameter turns the behaviour off: the token then stays in the stock.
    assert not decide("objective:protect=false", state).startswith("improve")


def test_protection_follows_what_it_saw_an_opponent_eat() -> None:
    """The opponent's stock is empty (a panda card used it up), but the bot saw the panda."""
    hands = [{"objectives": ["gardener-14", "plot-01"], "improvements": ["enclosure"]},
             {"objectives": ["panda-01"]}]
    state = position(hands, **EATEN_SHOOT)
    assert not decide("objective", state).startswith("improve")
    bot = ObjectiveBot(random.Random(0))
    bot.start(0, 2, state.options)
    bot.observe(Event("move", 3, 1, action=parse_action("panda 1,0", DEFAULT_CARD_SET)))
    action = bot.choose(PlayerView.of(state, 0), list(state.legal_actions()))
    assert action_text(action, DEFAULT_CARD_SET) == "improve enclosure 1,0"


def test_uses_the_weather_for_its_target() -> None:
    tiles = [
        {"at": "1,0", "tile": "yellow", "bamboo": 2},
        {"at": "1,-1", "tile": "green", "bamboo": 3},
        {"at": "0,-1", "tile": "green", "bamboo": 1},
    ]
    hands = [{"objectives": ["gardener-04", "plot-01"]}, {"objectives": ["panda-02"]}]
    choice = position(hands, tiles, step="choose_weather", weather="choice")
    assert decide("objective", choice) == "weather rain"
    rain = position(hands, tiles, step="rain", weather="rain")
    assert decide("objective", rain) == "rain 1,-1"
    hungry = [{"objectives": ["panda-06"], "eaten": {"yellow": 1}}, {"objectives": ["panda-02"]}]
    storm = position(hungry, tiles, step="storm", weather="storm")
    assert decide("objective", storm) == "storm 1,0"


def test_stops_drawing_at_its_hand_size() -> None:
    state = position(
        [{"objectives": ["gardener-04", "panda-11"]}, {"objectives": ["panda-01"]}],
        [{"at": "1,0", "tile": "green", "bamboo": 1}, {"at": "1,-1", "tile": "pink", "bamboo": 1}],
    )
    assert any(a & KIND_MASK == OBJECTIVE for a in state.legal_actions())
    for seed in range(4):
        assert not decide("objective:hand_size=2", state, seed).startswith("objective")


def test_draws_during_a_turn_that_starts_with_an_empty_hand() -> None:
    state = position(
        [{"objectives": []}, {"objectives": ["panda-01"]}],
        [{"at": "1,0", "tile": "green", "bamboo": 1}],
    )
    bot = ObjectiveBot(random.Random(0))
    bot.start(0, 2, state.options)
    taken = []
    while state.current == 0 and not state.ended:
        action = bot.choose(PlayerView.of(state, 0), list(state.legal_actions()))
        taken.append(action_text(action, DEFAULT_CARD_SET))
        state.apply(action)
    assert any(t.startswith("objective") for t in taken), taken


def test_does_not_take_the_emperor_to_lose() -> None:
    """R13: the ninth objective ends the game; behind even with the Emperor, it waits."""
    done = ["panda-02", "panda-03", "panda-04", "panda-05", "plot-01", "plot-04",
            "plot-07", "plot-10"]  # 8 cards, 3*4 + 2*3 + 3 = 23 points
    rich = ["gardener-13", "gardener-14", "gardener-15", "gardener-12", "panda-13"]  # 35 points
    tiles = [{"at": "1,0", "tile": "green", "bamboo": 2}]
    behind = position(
        [{"objectives": ["panda-01"], "eaten": {"green": 2}, "completed": done},
         {"objectives": ["panda-06"], "completed": rich}],
        tiles,
    )
    assert "complete panda-01" in [action_text(a, DEFAULT_CARD_SET) for a in behind.legal_actions()]
    assert decide("objective", behind) != "complete panda-01"
    # Ahead, it takes the Emperor at once.
    ahead = position(
        [{"objectives": ["panda-01"], "eaten": {"green": 2}, "completed": done},
         {"objectives": ["panda-06"], "completed": ["gardener-15"]}],
        tiles,
    )
    assert decide("objective", ahead) == "complete panda-01"


class _CheckedValues(ObjectiveBot):
    """An ``objective`` bot that works every remembered value out again and compares."""

    hits = 0

    def value(self, state, plan):  # type: ignore[no-untyped-def]
        remembered = self._values_plan is plan and len(self._values)
        v = super().value(state, plan)
        assert v == self._value(state, plan)
        if remembered and len(self._values) == remembered:
            _CheckedValues.hits += 1
        return v


@pytest.mark.parametrize("players", [2, 4])
def test_a_remembered_value_is_the_value_worked_out_again(players: int) -> None:
    """``value`` remembers positions by what it reads (``_value_key``); if the key missed
    something, a remembered value would differ from the one worked out on the spot."""
    _CheckedValues.hits = 0
    bots = [_CheckedValues(random.Random(seat)) for seat in range(players)]
    outcome = play_game(bots, 31, RuleOptions(max_rounds=5))
    assert outcome.error is None, outcome.error
    assert _CheckedValues.hits > 100
