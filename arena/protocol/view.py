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

from arena.engine import (
    CATEGORIES,
    COLOURS,
    FACES,
    IMPROVEMENTS,
    STEP_REDRAW,
    PlayerView,
    from_position,
    grid,
    to_position,
)
from arena.engine.actions import ACTION_NAMES
from arena.engine.board import board_dict
from arena.engine.components import ALL_PLOTS, CardSet, tile_name
from arena.engine.position import DECK_NAMES, FORMAT

#: Position fields that only the whole truth has.
HIDDEN_FIELDS = ("seed", "rng", "dice")


def withhold(view: Any) -> dict[str, Any]:
    """The position of ``view`` (either engine's ``PlayerView``) with its hidden parts
    ``null``: what the engine protocol's ``decide`` carries.  Written from the view's
    fields (a decision's cost); ``withhold_by_sample`` is its specification."""
    seat, players = view.seat, view.players
    card = view.card_set.card
    data: dict[str, Any] = {
        "format": FORMAT, "options": _options(view.options), "players": players,
        "round": view.round, "current": view.current,
        "turn": {"step": view.step_name,
                 "weather": FACES[view.weather] if view.weather >= 0 else None,
                 "actions": [ACTION_NAMES[a] for a in view.taken],
                 "drawn": [tile_name(t) for t in view.drawn] if view.drawn
                 else [None] * view.drawn_count},
    }
    changes = _changes(view.card_set)
    if changes:
        data["card_set"] = changes
    if view.step == STEP_REDRAW:
        data["turn"]["put_back"] = dict(zip(CATEGORIES, view.put_back))
    data.update(_board(view))
    reserve = view.reserve_improvements
    data["reserve"] = {"channels": view.reserve_channels,
                       "improvements": {IMPROVEMENTS[i]: reserve[i] for i in (1, 2, 3)}}
    plots: list[str | None] = [None] * view.plot_deck_size
    for i, tile in view.known_plots:
        plots[i] = tile_name(tile)
    decks: dict[str, list[str | None]] = {"plots": plots}
    for k, name in enumerate(CATEGORIES):
        cards: list[str | None] = [None] * view.objective_deck_sizes[k]
        for i, c in view.known_objectives[k]:
            cards[i] = card(c).id
        decks[name] = cards
    data["decks"] = decks
    known = {}
    for name, masks in zip(DECK_NAMES, (view.plot_known, *view.objective_known)):
        if any(masks):
            known[name] = [[s for s in range(players) if m >> s & 1] for m in masks]
    if known:
        data["known"] = known
    data["hands"] = [
        {"objectives": [card(c).id for c in view.hand] if s == seat
         else [None] * len(view.hand_categories[s]),
         "completed": [card(c).id for c in view.completed[s]],
         "eaten": dict(zip(COLOURS, view.eaten[s])),
         "channels": view.stored_channels[s],
         "improvements": [IMPROVEMENTS[i] for i in (1, 2, 3)
                          for _ in range(view.stored_improvements[s][i])],
         "categories": [CATEGORIES[k] for k in view.hand_categories[s]]}
        for s in range(players)
    ]
    emperor = view.emperor if view.emperor >= 0 else None
    data.update(emperor=emperor, last_turns=view.last_turns if emperor is not None else None,
                ended=view.ended, capped=view.capped, seat=seat)
    return data


#: The last layout written: its objects (held, so that their identities stay theirs) and
#: per tile its fixed fields, with the channels' text.
_LAYOUT: list[Any] = [None, None, None]


def _board(view: Any) -> dict[str, Any]:
    """``board_dict(view)``, the layout's part (tiles, improvements, irrigation, channels)
    kept while the view's layout objects are the last ones: the engine hands out the same
    objects while the layout stands (the bamboo and figures change more often)."""
    layout = (view.tiles, view.improvement, view.irrigated, view.channels)
    held = _LAYOUT[0]
    if held is None or any(a is not b for a, b in zip(held, layout)):
        whole = board_dict(view)
        fixed = [(t["at"], t["tile"], t["improvement"], t["irrigated"]) for t in whole["tiles"]]
        _LAYOUT[:] = [layout, (tuple(view.bamboo), fixed), whole["channels"]]
        return whole
    order, fixed = _LAYOUT[1]
    bamboo = view.bamboo
    if tuple(bamboo) != order:  # another placement order: not this layout after all
        _LAYOUT[0] = None
        return board_dict(view)
    return {"tiles": [{"at": at, "tile": tile, "bamboo": bamboo[cell], "improvement": imp,
                       "irrigated": irrigated}
                      for cell, (at, tile, imp, irrigated) in zip(order, fixed)],
            "channels": list(_LAYOUT[2]), "gardener": grid.cell_text(view.gardener),
            "panda": grid.cell_text(view.panda)}


_OPTIONS: dict[int, tuple[Any, dict[str, Any]]] = {}
_CHANGES: dict[int, tuple[Any, dict[str, Any]]] = {}


def _options(options: Any) -> dict[str, Any]:
    """The rule options that differ from the defaults (one object plays many decisions:
    kept per object)."""
    hit = _OPTIONS.get(id(options))
    if hit is None or hit[0] is not options:
        hit = _OPTIONS[id(options)] = (options, options.to_dict(only_changed=True))
    return dict(hit[1])


def _changes(card_set: Any) -> dict[str, Any]:
    """The card set's changes (kept per object, as the options)."""
    hit = _CHANGES.get(id(card_set))
    if hit is None or hit[0] is not card_set:
        hit = _CHANGES[id(card_set)] = (card_set, card_set.changes())
    return hit[1]


def withhold_by_sample(view: Any) -> dict[str, Any]:
    """``withhold``'s specification: a sample of the view written as a position, then
    every part the seat does not see nulled (slower: a whole sample per call)."""
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
    decks = data["decks"]
    for name, entries in decks.items():
        masks = known.get(name)
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
