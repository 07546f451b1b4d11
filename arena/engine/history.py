"""A game's history: its entries, their notation, and the events a seat may see of them.

The state records the game as plain tuples, ``(tag, round, ...)``, appended as things happen
(cheap on the hot path, and enough to replay a game): ``(MOVE, round, seat, action)`` for a
choice, and an entry per chance event (a roll, a draw, a deal).  ``event_text`` writes an
entry in notation (docs/notation.md), as game records keep it.

Bots are told what happened as an ``Event``: the same entry as data, with what their seat may
not see taken out (R2.6): another seat's drawn plots and cards are ``None`` there, only their
number and the cards' categories remain.  Its text is the entry's notation as that seat may
read it, so a bot never parses the text back.

A card is an index in the game's own set, so the notation of an entry takes that set
(``event_text(entry, state.card_set)``) and an event carries it (``Event.card_set``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from arena.engine.actions import action_text, parse_action
from arena.engine.aliases import Action, CardId
from arena.engine.components import (
    CATEGORIES,
    DEFAULT_CARD_SET,
    FACES,
    PLOT_COUNTS,
    CardSet,
    tile_name,
)
from arena.engine.errors import NotationError

# History entries: (tag, round, ...).  Moves are (MOVE, round, seat, action).
MOVE, ROLLED, DREW_PLOTS, DREW, RETURNED, DEALT, EMPEROR, GAME_OVER = range(8)

#: ``Event.kind`` per history tag.
EVENT_KINDS: tuple[str, ...] = (
    "move", "roll", "drew_plots", "drew", "returned", "deal", "emperor", "game_over",
)  # fmt: skip
#: Tags of the entries that some seats see only in part (the others' are the same for all).
PRIVATE_TAGS: frozenset[int] = frozenset((DREW_PLOTS, DREW, RETURNED, DEALT))
#: Seats are 0..3 (R2.1: 2 to 4 players).
_SEATS = range(4)


def event_text(entry: tuple, cards: CardSet) -> str:
    """Notation of a history entry of a game of the set ``cards``."""
    tag = entry[0]
    if tag == MOVE:
        return f"{entry[2]} {action_text(entry[3], cards)}"
    if tag == ROLLED:
        return f"* roll {FACES[entry[2]]}"
    if tag == DREW_PLOTS:
        return "* drew plots " + " ".join(tile_name(t) for t in entry[2])
    if tag == DREW:
        return f"* drew {cards.cards[entry[2]].id}"
    if tag == RETURNED:
        return f"* returned {cards.cards[entry[2]].id}"
    if tag == DEALT:
        return f"* deal {entry[2]} " + " ".join(cards.cards[c].id for c in entry[3])
    if tag == EMPEROR:
        return f"* emperor {entry[2]}"
    if tag == GAME_OVER:
        return "* game over"
    raise ValueError(f"not a history entry: {entry!r}")


@dataclass(frozen=True, slots=True)
class Event:
    """What happened, as one seat may see it: a move, or chance (docs/notation.md, "Events").

    ``kind`` is one of ``EVENT_KINDS``; the fields that do not belong to it keep their
    defaults.  ``seat`` is the seat that acted: the mover, the seat dealt to, the seat that
    drew or put back a card or drew plots, the seat that took the Emperor; ``None`` for a
    roll and the end of the game.  Hidden parts are ``None``: a seat sees another's drawn
    plots as ``(None, None, None)`` and its cards only by ``categories``.  ``card_set`` is
    the game's set, which names its cards (``text``); it is not part of what happened.
    """

    kind: str
    round: int
    seat: int | None = None
    #: ``move``: the action (``arena.engine.actions``).
    action: Action | None = None
    #: ``roll``: the face, an index in ``FACES``.
    face: int | None = None
    #: ``drew_plots``: the tiles drawn, in draw order (tile codes; ``None`` if hidden).
    plots: tuple[int | None, ...] = ()
    #: ``deal``, ``drew``, ``returned``: the cards (indices in ``card_set``; ``None`` if hidden).
    cards: tuple[CardId | None, ...] = ()
    #: The category of each of ``cards`` (an index in ``CATEGORIES``), seen by every seat.
    categories: tuple[int, ...] = ()
    #: The game's card set (its cards' names and categories).
    card_set: CardSet = field(default=DEFAULT_CARD_SET, compare=False, repr=False)

    @classmethod
    def of(cls, entry: tuple, actor: int, viewer: int | None = None, *,
           cards: CardSet) -> Event:
        """The event of a history entry of a game of the set ``cards`` as ``viewer`` may see
        it (R2.6); every part if ``viewer`` is None.

        ``actor`` is the seat of the last move (or deal) before the entry: the history does
        not repeat who draws, since a draw always follows its seat's move.  ``events``
        keeps it while it walks a history.
        """
        tag, round_ = entry[0], entry[1]
        if tag == MOVE:
            return cls("move", round_, entry[2], action=entry[3], card_set=cards)
        if tag == ROLLED:
            return cls("roll", round_, face=entry[2], card_set=cards)
        if tag == DREW_PLOTS:
            plots = entry[2] if viewer is None or viewer == actor else (None,) * len(entry[2])
            return cls("drew_plots", round_, actor, plots=plots, card_set=cards)
        category = cards.categories
        if tag in (DREW, RETURNED):
            card = entry[2]
            shown = card if viewer is None or viewer == actor else None
            return cls(EVENT_KINDS[tag], round_, actor, cards=(shown,),
                       categories=(category[card],), card_set=cards)
        if tag == DEALT:
            seat, hand = entry[2], entry[3]
            seen = hand if viewer is None or viewer == seat else (None,) * len(hand)
            return cls("deal", round_, seat, cards=seen,
                       categories=tuple(category[c] for c in hand), card_set=cards)
        if tag == EMPEROR:
            return cls("emperor", round_, entry[2], card_set=cards)
        if tag == GAME_OVER:
            return cls("game_over", round_, card_set=cards)
        raise ValueError(f"not a history entry: {entry!r}")

    @property
    def text(self) -> str:
        """The notation of the event (docs/notation.md), hidden parts as ``?``."""
        kind = self.kind
        if kind == "move":
            return f"{self.seat} {action_text(self.action, self.card_set)}"  # type: ignore[arg-type]
        if kind == "roll":
            return f"* roll {FACES[self.face]}"  # type: ignore[index]
        if kind == "drew_plots":
            return "* drew plots " + " ".join(
                "?" if t is None else tile_name(t) for t in self.plots
            )
        if kind == "deal":
            return f"* deal {self.seat} {self._cards_text()}"
        if kind == "drew" or kind == "returned":
            return f"* {kind} {self._cards_text()}"
        if kind == "emperor":
            return f"* emperor {self.seat}"
        return "* game over"

    def _cards_text(self) -> str:
        cards = self.card_set.cards
        return " ".join(
            f"{CATEGORIES[k]} ?" if c is None else cards[c].id
            for c, k in zip(self.cards, self.categories)
        )

    def __str__(self) -> str:
        return self.text

    def to_dict(self) -> dict[str, Any]:
        """The event as JSON-ready data: ``kind``, ``round`` and the fields of its kind."""
        out: dict[str, Any] = {"kind": self.kind, "round": self.round}
        for name in _FIELDS[self.kind]:
            value = getattr(self, name)
            out[name] = list(value) if isinstance(value, tuple) else value
        return out

    @classmethod
    def from_dict(cls, data: Any, cards: CardSet) -> Event:
        """The event of ``to_dict``'s data in a game of the set ``cards``, checked as data
        from elsewhere is: NotationError names the field that is missing, unknown or out of
        range."""
        if not isinstance(data, dict):
            raise NotationError(f"an event is an object, not {type(data).__name__}")
        kind = data.get("kind")
        if kind not in _FIELDS:
            raise NotationError(f"kind: {kind!r} is not an event kind ({', '.join(_FIELDS)})")
        fields = _FIELDS[kind]
        unknown = sorted(str(k) for k in data if k not in ("kind", "round", *fields))
        if unknown:
            raise NotationError(f"{unknown[0]}: not a field of a {kind} event")
        values: dict[str, Any] = {"round": _int(data, "round", range(1 << 16))}
        if "seat" in fields:
            values["seat"] = _int(data, "seat", _SEATS)
        if kind == "move":
            action = _int(data, "action", range(1 << 40))
            try:
                if parse_action(action_text(action, cards), cards) != action:
                    raise ValueError
            except (ValueError, IndexError, KeyError):
                raise NotationError(f"action: {action} is not an action") from None
            values["action"] = action
        elif kind == "roll":
            values["face"] = _int(data, "face", range(len(FACES)))
        elif kind == "drew_plots":
            values["plots"] = _items(data, "plots", range(1, 4), PLOT_COUNTS)
        elif kind in ("deal", "drew", "returned"):
            counts = range(3, 4) if kind == "deal" else range(1, 2)
            seen = _items(data, "cards", counts, range(len(cards)))
            categories = _items(data, "categories", range(len(seen), len(seen) + 1),
                                range(len(CATEGORIES)), hidden=False)
            for i, (card, category) in enumerate(zip(seen, categories)):
                if card is not None and cards.category(card) != category:
                    raise NotationError(f"categories[{i}]: card {cards.card(card).id} is a "
                                        f"{cards.card(card).category_name} card")
            values["cards"], values["categories"] = seen, categories
        return cls(kind, **values, card_set=cards)


#: The fields of each kind of event besides ``kind`` and ``round`` (``to_dict``'s keys).
_FIELDS: dict[str, tuple[str, ...]] = {
    "move": ("seat", "action"),
    "roll": ("face",),
    "drew_plots": ("seat", "plots"),
    "drew": ("seat", "cards", "categories"),
    "returned": ("seat", "cards", "categories"),
    "deal": ("seat", "cards", "categories"),
    "emperor": ("seat",),
    "game_over": (),
}


def _int(data: dict[str, Any], name: str, valid: range) -> int:
    value = data.get(name)
    if type(value) is not int or value not in valid:
        raise NotationError(f"{name}: expected an integer {valid.start}..{valid.stop - 1}, "
                            f"not {value!r}"[:200])
    return value


def _items(
    data: dict[str, Any], name: str, counts: range, valid: Iterable[int], *, hidden: bool = True
) -> tuple[Any, ...]:
    """A list field: ``counts`` items, each in ``valid`` (or None where ``hidden``)."""
    value = data.get(name)
    if type(value) is not list or len(value) not in counts:
        raise NotationError(f"{name}: expected a list of {counts.start}..{counts.stop - 1} "
                            "items")
    for i, item in enumerate(value):
        if not (item is None and hidden) and (type(item) is not int or item not in valid):
            raise NotationError(f"{name}[{i}]: {item!r} is not allowed here"[:200])
    return tuple(value)


def events(history: Iterable[tuple], viewer: int | None = None, *,
           cards: CardSet) -> Iterator[Event]:
    """The events of a history of a game of the set ``cards`` as ``viewer`` may see them
    (every part if None)."""
    actor = 0
    for entry in history:
        if entry[0] == MOVE or entry[0] == DEALT:
            actor = entry[2]
        yield Event.of(entry, actor, viewer, cards=cards)
