"""Events (docs/notation.md, "Events"; R2.6): a history entry as data, its text the notation of
the entry as the seat may read it, its dict a round trip, and another seat's draws hidden."""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

import pytest

from arena.engine import (
    CARDS,
    EVENT_KINDS,
    Event,
    GameState,
    NotationError,
    RuleOptions,
    event_text,
    events,
)
from arena.engine.components import DEFAULT_CARD_SET as PRINTED
from arena.engine.history import DEALT, DREW, DREW_PLOTS, MOVE, RETURNED

from .helpers import play_random_game


def seen_text(entry: tuple, viewer: int, actor: int) -> str:
    """The notation of an entry as ``viewer`` reads it: what ``observe`` was given as text
    before events were data (``visible_event_text``), kept as the reference."""
    tag = entry[0]
    if tag == DREW_PLOTS and viewer != actor:
        return "* drew plots " + " ".join("?" for _ in entry[2])
    if tag in (DREW, RETURNED) and viewer != actor:
        verb = "drew" if tag == DREW else "returned"
        return f"* {verb} {CARDS[entry[2]].category_name} ?"
    if tag == DEALT and viewer != entry[2]:
        return f"* deal {entry[2]} " + " ".join(f"{CARDS[c].category_name} ?" for c in entry[3])
    return event_text(entry, PRINTED)


def games() -> list[GameState]:
    """Random games of 2-4 players in which every kind of entry occurs (``returned`` needs
    ``redraw_satisfied``)."""
    return [
        play_random_game(players, seed, RuleOptions(redraw_satisfied=redraw))[0]
        for redraw in ("none", "plot_gardener", "all")
        for players in (2, 3, 4)
        for seed in range(2)
    ]


GAMES = games()


def with_actors(state: GameState) -> list[tuple[tuple, int]]:
    actor, out = 0, []
    for entry in state.history or ():
        if entry[0] in (MOVE, DEALT):
            actor = entry[2]
        out.append((entry, actor))
    return out


def test_the_games_hold_every_kind_of_event() -> None:
    kinds = Counter(e.kind for state in GAMES for e in events(state.history or (), cards=PRINTED))
    assert set(kinds) == set(EVENT_KINDS), kinds


def test_the_text_of_every_event_is_its_entrys_notation() -> None:
    for state in GAMES:
        full = list(events(state.history or (), cards=PRINTED))
        assert [str(e) for e in full] == state.history_text()
        assert [e.text for e in full] == state.history_text()
        for seat in range(state.players):
            seen = [e.text for e in events(state.history or (), seat, cards=PRINTED)]
            assert seen == [seen_text(entry, seat, actor) for entry, actor in with_actors(state)]


def test_events_are_data() -> None:
    state = GAMES[0]
    history = state.history or ()
    for event, entry in zip(events(history, cards=PRINTED), history):
        assert event.round == entry[1]
        if event.kind == "move":
            assert (event.seat, event.action) == (entry[2], entry[3])
        elif event.kind == "roll":
            assert event.face == entry[2] and event.seat is None
        elif event.kind == "deal":
            assert (event.seat, event.cards) == (entry[2], entry[3])
            assert event.categories == tuple(CARDS[c].category for c in entry[3])
    moves = [e for e in events(history, cards=PRINTED) if e.kind == "move"]
    assert [e.action for e in moves if e.seat == 0] == [
        entry[3] for entry in history if entry[0] == MOVE and entry[2] == 0
    ]


def test_another_seats_draws_are_hidden_but_their_number_and_categories() -> None:
    hidden = Counter()
    for state in GAMES:
        for entry, actor in with_actors(state):
            for viewer in range(state.players):
                event = Event.of(entry, actor, viewer, cards=PRINTED)
                full = Event.of(entry, actor, cards=PRINTED)
                assert event.kind == full.kind and event.seat == full.seat
                assert event.categories == full.categories
                assert len(event.plots) == len(full.plots)
                assert len(event.cards) == len(full.cards)
                if event.seat == viewer or event.kind not in ("drew_plots", "drew", "returned",
                                                              "deal"):
                    assert event == full
                else:
                    assert set(event.plots) <= {None} and set(event.cards) <= {None}
                    assert full.plots or full.cards
                    assert all(x is not None for x in (*full.plots, *full.cards))
                    hidden[event.kind] += 1
    assert set(hidden) == {"drew_plots", "drew", "returned", "deal"}


def test_to_dict_and_from_dict_round_trip_through_json() -> None:
    for state in GAMES[:6]:
        for viewer in (None, *range(state.players)):
            for event in events(state.history or (), viewer, cards=PRINTED):
                data = json.loads(json.dumps(event.to_dict()))
                assert Event.from_dict(data, PRINTED) == event
                assert set(data) <= {"kind", "round", "seat", "action", "face", "plots", "cards",
                                     "categories"}


def test_to_dict_holds_the_fields_of_its_kind() -> None:
    move = Event("move", 3, 1, action=6 | 40 << 5)
    assert move.to_dict() == {"kind": "move", "round": 3, "seat": 1, "action": 6 | 40 << 5}
    drew = Event("drew", 2, 0, cards=(None,), categories=(2,))
    assert drew.to_dict() == {"kind": "drew", "round": 2, "seat": 0, "cards": [None],
                              "categories": [2]}
    assert str(drew) == "* drew panda ?"
    assert Event("game_over", 9).to_dict() == {"kind": "game_over", "round": 9}


def good(kind: str) -> dict[str, Any]:
    return next(e.to_dict() for e in events(GAMES[-1].history or (), 0, cards=PRINTED)
                if e.kind == kind)


@pytest.mark.parametrize(("data", "field"), [
    ([], "an event is an object"),
    ({"kind": "nap", "round": 1}, "kind: 'nap'"),
    ({**good("move"), "extra": 1}, "extra: not a field"),
    ({**good("move"), "face": 1}, "face: not a field"),
    ({**good("move"), "seat": True}, "seat: expected an integer"),
    ({**good("move"), "seat": 4}, "seat: expected an integer"),
    ({**good("move"), "round": -1}, "round: expected an integer"),
    ({**good("move"), "action": 10**30}, "action: expected an integer"),
    ({**good("move"), "action": 31}, "action: 31 is not an action"),
    ({**good("move"), "action": 6 | 4095 << 5}, "action: 131046 is not an action"),
    ({**good("roll"), "face": 6}, "face: expected an integer"),
    ({**good("drew_plots"), "plots": [0, 1, 2, 3]}, "plots: expected a list of 1..3"),
    ({**good("drew_plots"), "plots": [12]}, "plots[0]: 12 is not allowed"),
    ({**good("drew_plots"), "plots": "pink"}, "plots: expected a list"),
    ({**good("drew"), "cards": [len(CARDS)]}, "cards[0]"),
    ({**good("drew"), "cards": [0], "categories": [2]}, "categories[0]: card plot-01"),
    ({**good("drew"), "categories": [None]}, "categories[0]: None is not allowed"),
    ({**good("drew"), "categories": [0, 1]}, "categories: expected a list of 1..1"),
    ({**good("deal"), "cards": [None, None]}, "cards: expected a list of 3..3"),
    ({k: v for k, v in good("emperor").items() if k != "seat"}, "seat: expected an integer"),
])
def test_from_dict_names_the_field_at_fault(data: Any, field: str) -> None:
    with pytest.raises(NotationError, match="^" + re.escape(field)):
        Event.from_dict(data, PRINTED)


def test_an_event_cannot_be_changed() -> None:
    event = Event("emperor", 4, 1)
    with pytest.raises(AttributeError):
        event.seat = 0  # type: ignore[misc]
    with pytest.raises((AttributeError, TypeError)):
        event.note = "x"  # type: ignore[attr-defined]

