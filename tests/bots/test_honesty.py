"""Honesty (issue: "The bots"): a seat's decision depends only on what that seat may see.

For every registered bot: two game states that differ only in information hidden from seat
``s`` (an opponent's hand swapped for other unseen cards of the same category, the decks
reordered where ``s`` does not know them, another generator state and seed) must give ``s``
the same view, and a fresh bot of the same spec and seed must return the same decision from
each.  A bot that peeked (at the state through the view, at a global, at the clock) would
show up as a different decision.
"""

from __future__ import annotations

import random

import pytest

from arena.engine import GameState, PlayerView, RuleOptions, new_game
from arena.engine.actions import COMPLETE, KIND_MASK, PLOT
from arena.play.bot import BotConfigError
from arena.play.registry import BotSpec, available, load_class
from tests.bots.positions import hidden_twin

#: Budget parameters shrunk so that search bots decide quickly in a unit test.
SMALL_BUDGETS = {"iterations": 60, "playouts": 20, "time": 0}


def reached(players: int, seed: int, moves: int, into_place: bool) -> GameState:
    """A state after ``moves`` random decisions; optionally at the seat's ``place`` step."""
    state = new_game(players, seed)
    rng = random.Random(seed)
    for _ in range(moves):
        legal = state.legal_actions()
        done = [a for a in legal if a & KIND_MASK == COMPLETE]
        state.apply(done[0] if done else rng.choice(legal))
        if state.ended:
            raise AssertionError("the game ended too soon for this test")
    if into_place:
        while PLOT not in state.legal_actions():
            state.apply(rng.choice(state.legal_actions()))
        state.apply(PLOT)
    return state


def bot_spec(name: str) -> BotSpec:
    try:
        cls = load_class(name)
    except BotConfigError as exc:
        pytest.skip(f"bot {name!r} does not load yet: {exc}")
    declared = {p.name for p in cls.PARAMS}
    small = {k: v for k, v in SMALL_BUDGETS.items() if k in declared}
    text = name + (":" + ",".join(f"{k}={v}" for k, v in small.items()) if small else "")
    return BotSpec.parse(text)


#: (players, seed, random decisions played first, stop at a ``place`` step)
POSITIONS = [(2, 11, 40, False), (3, 12, 30, True), (4, 13, 60, False)]


#: Bots that a person plays: the answers are the person's, and what it is shown is its view
#: (tests/cli/test_human.py checks the screen).
PEOPLE = {"human"}


@pytest.mark.parametrize("name", sorted(set(available()) - PEOPLE))
@pytest.mark.parametrize(("players", "seed", "moves", "into_place"), POSITIONS)
def test_same_view_same_decision(
    name: str, players: int, seed: int, moves: int, into_place: bool
) -> None:
    spec = bot_spec(name)
    state = reached(players, seed, moves, into_place)
    seat = state.current
    twin = hidden_twin(state, seat, random.Random(seed + 1))
    # The twin really differs, in hidden places only.
    assert (twin.hands, twin.objective_decks, twin.plot_deck, twin.rng) != (
        state.hands, state.objective_decks, state.plot_deck, state.rng,
    )
    assert twin.hands[seat] == state.hands[seat]
    view, twin_view = PlayerView.of(state, seat), PlayerView.of(twin, seat)
    assert view == twin_view
    assert view.to_json() == twin_view.to_json()
    legal = list(state.legal_actions())
    assert legal == list(twin.legal_actions())

    decisions = []
    for position in (view, twin_view):
        bot = spec.create(random.Random(99))
        bot.start(seat, players, RuleOptions())
        decisions.append(bot.choose(position, list(legal)))
    assert decisions[0] == decisions[1]
    assert decisions[0] in legal
