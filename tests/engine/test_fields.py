"""The table of a state's fields (``board.FIELDS``) is the one list of them: the slots, the
copy, a view's public part, positions_equal and with_hidden_from all follow it, so a field
added to the table is handled everywhere, and one added elsewhere fails here.

The table is the reference's (``board.py``): these tests run on the reference whatever
``ARENA_ENGINE`` selects; the native engine is held to it by ``test_native.py``."""

from __future__ import annotations

import random
from typing import Any

import pytest

from arena.engine.board import (
    CACHE,
    COPIED,
    COPIED_PUBLIC,
    FIELD_NAMES,
    FIELDS,
    HISTORY,
    SHARED_PUBLIC,
    Board,
    copy_public,
)
from arena.engine.position import from_position, positions_equal, to_position
from arena.engine.state import GameState, new_game
from arena.engine.view import PlayerView


class Sentinel:
    """A field value that tells whether a copy shared it or copied it."""

    def __init__(self, name: str, copy_of: Sentinel | None = None) -> None:
        self.name = name
        self.copy_of = copy_of

    def copy(self) -> Sentinel:
        return Sentinel(self.name, self)


def sentinel_state() -> GameState:
    state = new_game(2, 3)
    for name, how, _public in FIELDS:
        setattr(state, name, [(name,)] if how == HISTORY else Sentinel(name))
    return state


def played(players: int = 3, moves: int = 50, seed: int = 11) -> GameState:
    state = new_game(players, seed)
    rng = random.Random(seed)
    for _ in range(moves):
        if state.ended:
            break
        state.apply(rng.choice(state.legal_actions()))
    return state


def test_the_table_names_every_field_once_and_declares_each() -> None:
    assert len(set(FIELD_NAMES)) == len(FIELDS)
    assert GameState.__slots__ == FIELD_NAMES
    # Each field's type is declared once: the public ones on Board, the others on GameState.
    board, state = set(Board.__annotations__), set(GameState.__annotations__)
    assert board.isdisjoint(state)
    assert board | state == set(FIELD_NAMES)
    assert board == {name for name, _how, public in FIELDS if public} | {"_plot_ok"}
    assert set(SHARED_PUBLIC) | set(COPIED_PUBLIC) <= set(PlayerView.__slots__)


@pytest.mark.parametrize("history", [False, True])
def test_copy_shares_or_copies_every_field_as_the_table_says(history: bool) -> None:
    state = sentinel_state()
    copy = state.copy(history=history)
    for name, how, _public in FIELDS:
        old, new = getattr(state, name), getattr(copy, name)
        if how == COPIED:
            assert new.copy_of is old, name
        elif how == HISTORY:
            assert (new == old and new is not old) if history else new is None, name
        else:
            assert new is old, name


def test_copy_public_gives_a_view_every_public_field() -> None:
    state = sentinel_state()
    view = PlayerView.__new__(PlayerView)
    copy_public(state, view)
    for name, how, public in FIELDS:
        if not public:
            continue
        old, new = getattr(state, name), getattr(view, name)
        assert (new.copy_of is old) if how == COPIED else (new is old), name


def set_fields(state: Any) -> set[str]:
    return {name for name in FIELD_NAMES if hasattr(state, name)}


def test_every_way_to_make_a_state_sets_every_field() -> None:
    for players in (2, 3, 4):
        assert set_fields(new_game(players, players)) == set(FIELD_NAMES)
    state = played()
    assert set_fields(from_position(to_position(state))) == set(FIELD_NAMES)
    sample = PlayerView.of(state, state.current).determinize(random.Random(1))
    assert set_fields(sample) == set(FIELD_NAMES)
    assert set_fields(sample.with_hidden_from(sample, 0)) == set(FIELD_NAMES)


def test_with_hidden_from_takes_the_samples_hidden_parts_and_nothing_else() -> None:
    """Every hidden field comes from the sample, but the searching seat's own hand and the
    plots it drew (a path of its own open actions shows them): a hidden field added to the
    table must be added to ``with_hidden_from`` or here."""
    state = played()
    seat = state.current
    view = PlayerView.of(state, seat)
    public, sample = view.determinize(random.Random(1)), view.determinize(random.Random(2))
    assert public.hands != sample.hands and public.plot_deck != sample.plot_deck
    mixed = public.with_hidden_from(sample, seat)
    for name, how, is_public in FIELDS:
        if how in (CACHE, HISTORY):
            continue
        ours, theirs, got = getattr(public, name), getattr(sample, name), getattr(mixed, name)
        if name == "hands":
            assert got[seat] == ours[seat]
            assert [h for s, h in enumerate(got) if s != seat] == [
                h for s, h in enumerate(theirs) if s != seat
            ]
        elif is_public or name == "drawn":
            assert got == ours, name
        else:
            assert got == theirs, name
    assert mixed.hands is not sample.hands and public.hands[seat] == view.hand


def test_positions_equal_compares_every_field_and_the_order_of_plots() -> None:
    state = played()
    back = from_position(to_position(state))
    assert positions_equal(back, state)
    for name, how, _public in FIELDS:
        if how in (CACHE, HISTORY):
            continue
        other = back.copy()
        setattr(other, name, Sentinel(name))
        assert not positions_equal(other, state), name
    reordered = back.copy()
    reordered.bamboo = dict(reversed(list(back.bamboo.items())))
    assert not positions_equal(reordered, state)
