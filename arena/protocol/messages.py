"""The protocol's messages as data, built and read by both sides (docs/protocol.md).

Events travel in notation (an engine in C reads ``panda 1,0``, not an action code); the
arena's ``Event`` is rebuilt from them on the engine's side of ``arena engine``.
"""

from __future__ import annotations

from typing import Any

from arena.engine import CATEGORIES, FACES, CardSet, Event, action_text, parse_action
from arena.engine.components import parse_tile, tile_name


def event_message(event: Event) -> dict[str, Any]:
    """An event as the protocol's ``event`` message (hidden parts ``null``)."""
    out: dict[str, Any] = {"type": "event", "kind": event.kind, "round": event.round,
                           "seat": event.seat, "text": event.text}
    if event.action is not None:
        out["action"] = action_text(event.action, event.card_set)
    if event.face is not None:
        out["face"] = FACES[event.face]
    if event.plots:
        out["plots"] = [None if t is None else tile_name(t) for t in event.plots]
    if event.categories:
        cards = event.card_set.cards
        out["cards"] = [None if c is None else cards[c].id for c in event.cards]
        out["categories"] = [CATEGORIES[k] for k in event.categories]
    return out


def event_of(message: dict[str, Any], cards: CardSet) -> Event:
    """The ``Event`` of an ``event`` message in a game of the set ``cards`` (ValueError or
    NotationError when bad)."""
    kind = message["kind"]
    fields: dict[str, Any] = {}
    if "action" in message:
        fields["action"] = parse_action(message["action"], cards)
    if "face" in message:
        fields["face"] = FACES.index(message["face"])
    if "plots" in message:
        fields["plots"] = tuple(None if t is None else parse_tile(t) for t in message["plots"])
    if "categories" in message:
        fields["cards"] = tuple(None if c is None else cards.index(c) for c in message["cards"])
        fields["categories"] = tuple(CATEGORIES.index(k) for k in message["categories"])
    return Event(kind, int(message["round"]), message.get("seat"), **fields, card_set=cards)


def result_message(result: Any) -> dict[str, Any]:
    """The game's end: scores and winners (``result`` None: the game was stopped by a
    fault, then ``aborted``)."""
    if result is None:
        return {"type": "gameover", "aborted": True, "scores": None, "winners": None}
    return {"type": "gameover", "aborted": False, "scores": list(result.scores),
            "winners": list(result.winners)}
