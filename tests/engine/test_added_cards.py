"""Cards a set adds, on the reference engine: dealt from their decks, every invariant kept,
and at every step the engine's "does this card hold?" equal to a plain count on the board
(a pattern search over the irrigated plots in every rotation, the shoots of the colour,
height and improvement asked, the sections eaten), in random games with cards the printed
catalog has no like of: a pattern of two colours, shoots of height 2, an improvement that
is asked of a height-3 shoot.  The native engine plays them step for step as the reference
does (legal lists, positions, views and their samples, histories, results), and refuses a
set beyond its arrays in one sentence."""

from __future__ import annotations

import json
import pickle
import random

import pytest

from arena.engine import OptionError, PositionError, RuleOptions, grid, native
from arena.engine import actions as act
from arena.engine.components import COLOURS, IMPROVEMENTS, CardSet
from arena.engine.native import engine
from tests.engine.helpers import check_board, check_components

REFERENCE = engine("reference")
NATIVE = engine("native") if native.available() else None


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


@pytest.mark.skipif(not native.available(), reason="the native engine is not built")
@pytest.mark.parametrize("seed", range(16))
def test_the_native_engine_plays_added_cards_as_the_reference(seed: int) -> None:
    from tests.engine.test_native import check_same, random_options

    rng = random.Random(seed)
    players = 2 + seed % 3
    points = {e["id"]: rng.randrange(0, 8) for es in ADD.values() for e in es
              if rng.random() < 0.3}
    remove = rng.sample([f"{k}-{i:02}" for k in ("plot", "gardener", "panda")
                         for i in range(1, 16)], rng.choice((0, 4, 12)))
    cards = CardSet.from_changes(points, remove, add=ADD)
    options = random_options(rng)
    ref = REFERENCE.new_game(players, seed=seed, options=options, cards=cards)
    nat = NATIVE.new_game(players, seed=seed, options=options, cards=cards)
    check_same(ref, nat, rng, views=True)
    while not ref.is_terminal():
        legal = ref.legal_actions()
        completes = [a for a in legal if act.kind_of(a) == act.COMPLETE]
        action = rng.choice(completes) if completes and rng.random() < 0.8 else rng.choice(
            legal)
        ref.apply(action)
        nat.apply(action)
        check_same(ref, nat, rng, views=rng.random() < 0.1)
        for seat in range(players):
            for card in range(45, 52):
                assert nat.objective_found(seat, card) == ref.objective_found(seat, card)
        if rng.random() < 0.05:
            data = REFERENCE.to_position(ref)
            back = NATIVE.from_position(json.loads(json.dumps(data)))
            assert NATIVE.to_position(back) == data
            assert back.card_set == cards
            assert NATIVE.positions_equal(back, nat)
            view = pickle.loads(pickle.dumps(NATIVE.PlayerView.of(nat, 0)))
            assert view.to_dict() == REFERENCE.PlayerView.of(ref, 0).to_dict()
    assert nat.result() == ref.result()
    assert nat.history_text() == ref.history_text()
    again = pickle.loads(pickle.dumps(nat))
    assert NATIVE.positions_equal(again, nat) and again.card_set == cards


@pytest.mark.skipif(not native.available(), reason="the native engine is not built")
def test_the_native_engine_refuses_a_set_beyond_its_arrays() -> None:
    many = {"panda": [{"id": f"panda-x{i}", "eat": {"green": 1 + i % 3}, "points": 2}
                      for i in range(20)]}
    big = CardSet.from_changes(add=many)
    with pytest.raises(OptionError, match=r"adds 20 cards: the native engine plays at most "
                                          r"64 in all \(19 added\)"):
        NATIVE.new_game(2, seed=1, cards=big)
    deep = CardSet.from_changes(add={"panda": many["panda"][:18]})
    with pytest.raises(OptionError, match=r"the panda deck holds 33 cards: the native engine "
                                          r"plays at most 32 a deck"):
        NATIVE.new_game(2, seed=1, cards=deep)
    # The core refuses them by itself too, with the same sentence (a caller past the check).
    with pytest.raises(OptionError, match=r"the panda deck holds 33 cards"):
        native._module().new_game(2, 1, RuleOptions(), [], True, deep)
    REFERENCE.new_game(2, seed=1, cards=big)  # the reference has no such bound


@pytest.mark.skipif(not native.available(), reason="the native engine is not built")
def test_a_position_adding_a_bad_card_is_refused_alike() -> None:
    data = REFERENCE.to_position(REFERENCE.new_game(2, seed=3, cards=CARDS))
    data["card_set"]["add"]["panda"][0]["eat"] = {}
    refusals = []
    for eng in (REFERENCE, NATIVE):
        with pytest.raises(PositionError) as caught:
            eng.from_position(json.loads(json.dumps(data)))
        refusals.append(str(caught.value))
    assert refusals[0] == refusals[1] and refusals[0].startswith("card_set.add: add.panda[0]")


def test_a_printed_game_after_an_added_one_is_the_printed_game() -> None:
    before = REFERENCE.new_game(2, seed=5).hands
    REFERENCE.new_game(2, seed=5, cards=CARDS)
    assert REFERENCE.new_game(2, seed=5).hands == before
