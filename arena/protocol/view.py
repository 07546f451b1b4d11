"""A seat's view as the engine protocol sends it: the position format with the hidden parts
withheld, and the view rebuilt from it on the engine's side.

Why the position format: an engine in any language already has to read positions
(``arena legal``, the fixtures, the notation), so the view is one more position, with every
hidden item written ``null`` in the place it holds (another seat's objectives, the deck places
this seat does not know, the plots another seat is choosing from) and the generator, the
seed and the scripted dice left out.  What the seat may know about the hidden items (each
hand's categories in draw order, the decks' sizes, who knows which deck place) is all there.

``withhold(view)`` works from the ``PlayerView`` alone (one of its samples written as a
position, the sampled parts then nulled), so nothing of the game reaches the text; and
``rebuild(data)`` fills the nulls with any cards and plots consistent with it and reads the
position back, so that ``PlayerView.of`` gives the very view the seat had: what ``arena
engine`` gives a built-in bot, which then decides as it would in the arena's process.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from arena.engine import CATEGORIES, PlayerView, from_position, to_position
from arena.engine.components import ALL_PLOTS, CardSet, tile_name

#: Position fields that only the whole truth has.
HIDDEN_FIELDS = ("seed", "rng", "dice")


def withhold(view: Any) -> dict[str, Any]:
    """The position of ``view`` (either engine's ``PlayerView``) with its hidden parts
    ``null``: what the engine protocol's ``decide`` carries."""
    sample = view.determinize(random.Random(0))
    data = to_position(sample)
    seat = view.seat
    for name in HIDDEN_FIELDS:
        data.pop(name, None)
    data["seat"] = seat
    turn = data["turn"]
    if turn["drawn"] and not view.drawn:
        turn["drawn"] = [None] * len(turn["drawn"])
    known = data.get("known", {})
    bit_of = {name: masks for name, masks in known.items()}
    decks = data["decks"]
    for name, entries in decks.items():
        masks = bit_of.get(name)
        decks[name] = [entry if masks is not None and seat in masks[i] else None
                       for i, entry in enumerate(entries)]
    for other, hand in enumerate(data["hands"]):
        hand["categories"] = [CATEGORIES[k] for k in view.hand_categories[other]]
        if other != seat:
            hand["objectives"] = [None] * len(hand["objectives"])
    return data


def _card_set(data: dict[str, Any]) -> CardSet:
    changes = data.get("card_set") or {}
    return CardSet.from_changes(changes.get("points", {}), changes.get("remove", []),
                                add=changes.get("add"))


def rebuild(data: dict[str, Any]) -> Any:
    """The ``PlayerView`` of the seat a withheld position (``withhold``) was written for:
    the nulls filled with unseen cards and plots, the position read, the view taken.
    Raises the engine's PositionError (or ValueError) when the text does not add up."""
    data = dict(data)
    seat = data.pop("seat")
    data["seed"] = 0
    data["dice"] = []
    decks = {name: list(entries) for name, entries in data.get("decks", {}).items()}
    hands = [dict(h) for h in data.get("hands", [])]
    for hand in hands:
        hand.pop("categories", None)
    cards = _card_set(data)
    # Cards: the set's, less those anyone can see; other hands first, then the decks.
    seen = {c for h in hands for c in (*h.get("objectives", []), *h.get("completed", []))}
    seen.update(c for k in CATEGORIES for c in decks.get(k, []))
    for k, name in enumerate(CATEGORIES):
        pool = [cards.card(c).id for c in cards.decks[k]]
        pool = [c for c in pool if c not in seen]
        pool.reverse()
        categories = data["hands"]
        for other, hand in enumerate(hands):
            cats = categories[other].get("categories", [])
            hand["objectives"] = [
                pool.pop() if card is None and cats[i] == name else card
                for i, card in enumerate(hand.get("objectives", []))]
        decks[name] = [pool.pop() if c is None else c for c in decks.get(name, [])]
    # Plots: every plot less those on the board, in the deck's known places and shown.
    turn = dict(data["turn"])
    plots = Counter(tile_name(t) for t in ALL_PLOTS)
    plots.subtract(t["tile"] for t in data.get("tiles", []))
    plots.subtract(t for t in (*decks.get("plots", []), *turn.get("drawn", [])) if t)
    pool = sorted(plots.elements(), reverse=True)
    turn["drawn"] = [pool.pop() if t is None else t for t in turn.get("drawn", [])]
    decks["plots"] = [pool.pop() if t is None else t for t in decks.get("plots", [])]
    data.update(decks=decks, hands=hands, turn=turn)
    return PlayerView.of(from_position(data), seat)
