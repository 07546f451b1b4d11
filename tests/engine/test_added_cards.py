"""Cards a set adds, on the reference engine: dealt from their decks, every invariant kept,
and at every step the engine's "does this card hold?" equal to a plain count on the board
(a pattern search over the irrigated plots in every rotation, the shoots of the colour,
height and improvement asked, the sections eaten), in random games with cards the printed
catalog has no like of: a pattern of two colours, shoots of height 2, an improvement that
is asked of a height-3 shoot.  The native engine refuses such a set (one sentence)."""

from __future__ import annotations

import random

import pytest

from arena.engine import OptionError, grid
from arena.engine import actions as act
from arena.engine.components import COLOURS, IMPROVEMENTS, CardSet, install
from arena.engine.native import engine
from tests.engine.helpers import check_board, check_components

REFERENCE = engine("reference")


@pytest.fixture(autouse=True)
def printed_tables_after() -> object:
    """A game of a set with added cards installs them in this process's card tables; the
    next test of the process finds the printed tables, as after a printed game."""
    yield
    install(())

ADD = {
    "plot": [{"id": "plot-16", "points": 3, "cells": [
                 {"at": "0,0", "colour": "green"}, {"at": "1,0", "colour": "yellow"}]},
             {"id": "plot-17", "points": 6, "cells": [
                 {"at": "0,0", "colour": "green"}, {"at": "1,0", "colour": "green"},
                 {"at": "0,1", "colour": "pink"}, {"at": "-1,1", "colour": "yellow"}]}],
    "gardener": [{"id": "gardener-16", "colour": "green", "shoots": 1, "height": 2,
                  "improvement": "any", "points": 2},
                 {"id": "gardener-17", "colour": "yellow", "shoots": 2, "height": 1,
                  "improvement": "none", "points": 2},
                 {"id": "gardener-18", "colour": "pink", "shoots": 1, "height": 3,
                  "improvement": "watershed", "points": 4}],
    "panda": [{"id": "panda-16", "eat": {"green": 1, "pink": 1}, "points": 2},
              {"id": "panda-17", "eat": {"yellow": 3}, "points": 4}],
}
CARDS = CardSet.from_changes(name="seven new cards", add=ADD)
ENTRIES = {e["id"]: (k, e) for k, es in ADD.items() for e in es}


def _rotations(cells: list[tuple[int, int, int]]) -> list[list[tuple[int, int, int]]]:
    out, current = [], cells
    for _ in range(6):
        out.append(current)
        current = [(-r, q + r, c) for q, r, c in current]
    return out


def holds(state, seat: int, card_id: str) -> bool:  # type: ignore[no-untyped-def]
    """The card's condition counted on the board, without the engine's tables."""
    category, entry = ENTRIES[card_id]
    if category == "panda":
        eaten = state.eaten[seat]
        return all(eaten[COLOURS.index(c)] >= n for c, n in entry["eat"].items())
    if category == "gardener":
        colour = COLOURS.index(entry["colour"])
        imp = entry["improvement"]
        want = None if imp == "any" else IMPROVEMENTS.index(imp)
        count = sum(1 for cell, h in state.bamboo.items()
                    if h == entry["height"] and state.tiles[cell] >> 2 == colour
                    and (want is None or state.improvement.get(cell, 0) == want))
        if count < entry["shoots"]:
            return False
        if not state.options.gardener_on_shoot:
            return True
        g = state.gardener
        return (g != grid.POND and state.bamboo.get(g) == entry["height"]
                and state.tiles[g] >> 2 == colour
                and (want is None or state.improvement.get(g, 0) == want))
    wet = {grid.coords_of(c): state.tiles[c] >> 2 for c in state.irrigated
           if c != grid.POND}
    cells = [(*(int(x) for x in cell["at"].split(",")), COLOURS.index(cell["colour"]))
             for cell in entry["cells"]]
    for rotation in _rotations(cells):
        q0, r0, _c = rotation[0]
        for (q, r), _colour in wet.items():
            if all(wet.get((q + dq - q0, r + dr - r0)) == c for dq, dr, c in rotation):
                return True
    return False


def test_cards_a_set_adds_follow_the_printed_ones() -> None:
    assert [c.index for c in CARDS.added] == list(range(45, 52))
    assert [len(d) for d in CARDS.decks] == [17, 18, 17]
    assert CARDS.changes()["add"]["plot"][1]["id"] == "plot-17"
    again = CardSet.from_changes(add=CARDS.changes()["add"])
    assert again == CARDS and again.points == CARDS.points


@pytest.mark.parametrize("seed", range(12))
def test_added_cards_are_played_by_the_rules(seed: int) -> None:
    rng = random.Random(seed)
    players = 2 + seed % 3
    state = REFERENCE.new_game(players, seed=seed, cards=CARDS)
    seen = 0
    chosen: list[int] = []
    while not state.ended:
        check_components(state)
        check_board(state)
        legal = state.legal_actions()
        for seat in range(players):
            for card in state.hands[seat]:
                if card >= 45:
                    seen += 1
                    card_id = CARDS.card(card).id
                    assert state.objective_found(seat, card) == holds(state, seat, card_id), (
                        card_id, seat)
        completes = [a for a in legal if act.kind_of(a) == act.COMPLETE]
        # a random player that completes what it can, so added cards are completed too
        action = rng.choice(completes) if completes and rng.random() < 0.8 else rng.choice(
            legal)
        if act.kind_of(action) == act.COMPLETE and act.card_of(action) >= 45:
            assert holds(state, state.current, CARDS.card(act.card_of(action)).id)
        chosen.append(action)
        state.apply(action)
    assert seen, "no added card was ever in a hand"
    # Replayed from its seed and choices, the game is the same, bit for bit.
    replayed = REFERENCE.new_game(players, seed=seed, cards=CARDS)
    for action in chosen:
        replayed.apply(action)
    assert REFERENCE.to_position(replayed) == REFERENCE.to_position(state)
    assert "add" in REFERENCE.to_position(state)["card_set"]
    back = REFERENCE.from_position(REFERENCE.to_position(state))
    assert back.card_set == CARDS


def test_added_cards_are_completed_in_some_games() -> None:
    done = set()
    for seed in range(30):
        rng = random.Random(seed)
        state = REFERENCE.new_game(2, seed=seed, cards=CARDS)
        while not state.ended:
            legal = state.legal_actions()
            completes = [a for a in legal if act.kind_of(a) == act.COMPLETE]
            action = rng.choice(completes) if completes else rng.choice(legal)
            if act.kind_of(action) == act.COMPLETE and act.card_of(action) >= 45:
                done.add(CARDS.card(act.card_of(action)).id)
            state.apply(action)
    assert len(done) >= 4, done


def test_the_native_engine_refuses_added_cards() -> None:
    with pytest.raises(OptionError, match=r"adds cards \(plot-16, plot-17, gardener-16"):
        engine("native").new_game(2, seed=1, cards=CARDS)


def test_a_printed_game_after_an_added_one_is_the_printed_game() -> None:
    before = REFERENCE.new_game(2, seed=5).hands
    REFERENCE.new_game(2, seed=5, cards=CARDS)
    assert REFERENCE.new_game(2, seed=5).hands == before
