"""Objective checks (R10) shared by the game state and the player views.

The checks take the card itself (``state.card_set.card(i)``): a game's set, added cards
included, is its own table.  Plot patterns are matched with bit sets: for each colour, the
irrigated plots of that colour form an int whose bit ``cell`` is set.  Because the cell index
is linear in ``(q, r)``, a pattern rotation is a list of ``(shift, colour)`` (``Card.shifts``)
and the cells where it can be anchored are the AND of the colour sets shifted by each cell's
offset: a handful of big-int operations per rotation instead of a walk over the board.
"""

from __future__ import annotations

from arena.engine.components import GARDENER_CARD, PANDA_CARD, PLOT_CARD, Card


def plot_pattern_found(irrigated_by_colour: tuple[int, int, int], card: Card) -> bool:
    """Whether a plot card's pattern lies on irrigated plots of its colours (R10.3)."""
    for rotation in card.shifts:
        anchors = -1
        for shift, colour in rotation:
            anchors &= irrigated_by_colour[colour] >> shift
            if not anchors:
                break
        if anchors:
            return True
    return False


def plot_pattern_places(
    irrigated_by_colour: tuple[int, int, int], card: Card
) -> list[tuple[int, ...]]:
    """Every placement of a plot card's pattern on the board, as tuples of cells."""
    places = []
    for rotation in card.shifts:
        anchors = -1
        for shift, colour in rotation:
            anchors &= irrigated_by_colour[colour] >> shift
        while anchors > 0:
            low = anchors & -anchors
            anchor = low.bit_length() - 1
            places.append(tuple(anchor + shift for shift, _c in rotation))
            anchors ^= low
    return places


#: Index into the shoot counters of a game: height-4 plots by (colour, improvement) at
#: ``colour * 4 + improvement``, height-3 plots by colour at ``12 + colour``.
SHOOT_COUNTERS = 15


def shoot_slot(colour: int, height: int, improvement: int) -> int:
    """Counter slot of a plot with this bamboo, or -1 when it counts for no objective."""
    if height == 4:
        return colour * 4 + improvement
    if height == 3:
        return 12 + colour
    return -1


def gardener_found(
    c: Card,
    shoots: list[int],
    gardener_plot: tuple[int, int, int] | None,
    on_shoot: bool,
) -> bool:
    """Whether a gardener card holds (R10.4, R10.5; option ``gardener_on_shoot``).

    ``shoots`` are the game's shoot counters; ``gardener_plot`` is ``(colour, height,
    improvement)`` of the plot under the gardener, or None on the pond.
    """
    if c.shoots == 1:
        if c.improvement < 0:
            count = sum(shoots[c.colour * 4 : c.colour * 4 + 4])
        else:
            count = shoots[c.colour * 4 + c.improvement]
        if not count:
            return False
    elif shoots[12 + c.colour] < c.shoots:
        return False
    if not on_shoot:
        return True
    if gardener_plot is None:
        return False
    colour, height, improvement = gardener_plot
    return (
        colour == c.colour
        and height == c.height
        and (c.shoots > 1 or c.improvement < 0 or improvement == c.improvement)
    )


def added_gardener_found(
    c: Card,
    tiles: dict[int, int],
    bamboo: dict[int, int],
    improvement: dict[int, int],
    gardener_plot: tuple[int, int, int] | None,
    on_shoot: bool,
) -> bool:
    """:func:`gardener_found` for a card a set adds, whose condition the shoot counters may
    not hold (they count height 4 by improvement and height 3 by colour, what the printed
    cards ask): its plots counted on the board, of its colour, at exactly its height, with
    its improvement (``none``: without one; ``any``: whatever)."""
    want = c.colour
    count = 0
    for cell, height in bamboo.items():
        if height == c.height and tiles[cell] >> 2 == want and (
                c.improvement < 0 or improvement.get(cell, 0) == c.improvement):
            count += 1
    if count < c.shoots:
        return False
    if not on_shoot:
        return True
    if gardener_plot is None:
        return False
    colour, height, imp = gardener_plot
    return colour == want and height == c.height and (
        c.improvement < 0 or imp == c.improvement)


def panda_found(card: Card, eaten: tuple[int, int, int]) -> bool:
    """Whether a stock holds the sections of a panda card (R10.6)."""
    need = card.eat
    return eaten[0] >= need[0] and eaten[1] >= need[1] and eaten[2] >= need[2]


__all__ = [
    "GARDENER_CARD",
    "PANDA_CARD",
    "PLOT_CARD",
    "SHOOT_COUNTERS",
    "added_gardener_found",
    "gardener_found",
    "panda_found",
    "plot_pattern_found",
    "plot_pattern_places",
    "shoot_slot",
]
