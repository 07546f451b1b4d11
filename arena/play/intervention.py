"""An experiment's intervention on a deal, as a game record carries it.

A balance study (``arena balance study``) plays one seed several times with a different card
in one place of the deal: a seat holds the card in place of the one it was dealt, or the
card sits at a given depth of its deck.  The engine's ``GameState.place_card`` does the
exchange; this module is the intervention as data: a tuple of :class:`Placement`, applied in
order right after ``new_game``, written in a record's ``intervention`` field as
``[{"card": "plot-07", "seat": 1}]`` or ``[{"card": "panda-03", "depth": 2}]``, and read
back (checked) by ``arena replay`` so that the replay deals the same cards.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from arena.engine import ArenaError, CardSet, GameState, PlacementError
from arena.engine.components import DEFAULT_CARD_SET


class InterventionError(ArenaError):
    """An intervention that cannot be read or applied (the message names the field)."""


@dataclass(frozen=True, slots=True)
class Placement:
    """One card put in one place: ``seat`` (it holds the card) or ``depth`` (of its deck)."""

    card: str
    seat: int | None = None
    depth: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """The record's form: the card and the one place given."""
        place = {"seat": self.seat} if self.seat is not None else {"depth": self.depth}
        return {"card": self.card, **place}

    @classmethod
    def from_dict(cls, data: Any, where: str = "intervention",
                  cards: CardSet | None = None) -> Placement:
        """A placement from a record, checked: InterventionError names the bad field; the
        card is one of ``cards`` (its added ones too; None: the printed set)."""
        if not isinstance(data, dict):
            raise InterventionError(f"{where} must be an object with card and seat or depth")
        unknown = sorted(str(k) for k in data if k not in ("card", "seat", "depth"))
        if unknown:
            raise InterventionError(f"{where}.{unknown[0]}: not a field of a placement")
        card = data.get("card")
        known = isinstance(card, str) and (cards or DEFAULT_CARD_SET).index_of(card) is not None
        if not isinstance(card, str) or not known:
            raise InterventionError(f"{where}.card: {card!r} is not an objective card")
        seat, depth = data.get("seat"), data.get("depth")
        if (seat is None) == (depth is None):
            raise InterventionError(f"{where} needs exactly one of seat and depth")
        for name, value in (("seat", seat), ("depth", depth)):
            if value is not None and (type(value) is not int or value < 0):
                raise InterventionError(f"{where}.{name} must be a whole number >= 0, "
                                        f"not {value!r}")
        return cls(card, seat, depth)


Intervention = tuple[Placement, ...]


def apply(state: GameState, intervention: Intervention) -> None:
    """Make the placements on a fresh game, in order (PlacementError if one cannot be)."""
    cards = state.card_set
    for p in intervention:
        index = cards.index_of(p.card)
        if index is None:
            raise PlacementError(f"{p.card} is not a card of this game's set")
        state.place_card(index, seat=p.seat, depth=p.depth)


def from_record(record: dict[str, Any], cards: CardSet | None = None) -> Intervention:
    """A record's intervention (none when the field is absent); ``cards``: the record's set."""
    data = record.get("intervention")
    if data is None:
        return ()
    if not isinstance(data, list):
        raise InterventionError("the record's intervention must be a list of placements")
    return tuple(Placement.from_dict(item, f"intervention[{i}]", cards)
                 for i, item in enumerate(data))
