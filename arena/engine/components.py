"""The published game's components (``data/components.json``) as small ints and tables.

Tiles, colours, improvements and objective cards are ints in the hot path; their names exist
for notation and positions only.  The JSON file is the single source of the facts (counts,
card patterns and points): nothing here restates them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources

from . import grid

COLOURS: tuple[str, ...] = ("green", "yellow", "pink")
GREEN, YELLOW, PINK = 0, 1, 2

#: Improvement codes; 0 means none.
IMPROVEMENTS: tuple[str, ...] = ("none", "watershed", "enclosure", "fertilizer")
NO_IMPROVEMENT, WATERSHED, ENCLOSURE, FERTILIZER = 0, 1, 2, 3

CATEGORIES: tuple[str, ...] = ("plot", "gardener", "panda")
PLOT_CARD, GARDENER_CARD, PANDA_CARD = 0, 1, 2

FACES: tuple[str, ...] = ("sun", "rain", "wind", "storm", "clouds", "choice")
SUN, RAIN, WIND, STORM, CLOUDS, CHOICE = 0, 1, 2, 3, 4, 5

#: A tile code is ``colour * 4 + printed improvement``; the pond has its own code.
POND_TILE = 12


def tile_code(colour: int, improvement: int = NO_IMPROVEMENT) -> int:
    """Code of a printed tile."""
    return colour * 4 + improvement


def tile_name(code: int) -> str:
    """``colour`` or ``colour/improvement`` (NOTATION.md)."""
    if code == POND_TILE:
        return "pond"
    colour, improvement = divmod(code, 4)
    if improvement:
        return f"{COLOURS[colour]}/{IMPROVEMENTS[improvement]}"
    return COLOURS[colour]


TILE_CODES: dict[str, int] = {tile_name(c): c for c in range(12)}


def parse_tile(text: str) -> int:
    """Tile code of a name; raises ValueError listing the valid names."""
    try:
        return TILE_CODES[text]
    except KeyError:
        raise ValueError(
            f"{text!r} is not a tile (expected one of {', '.join(TILE_CODES)})"
        ) from None


def _load() -> dict:
    return json.loads(resources.files(__package__).joinpath("data/components.json").read_text())


DATA: dict = _load()

#: Every plot of the game, as tile codes, in the file's order (the deck before shuffling).
ALL_PLOTS: tuple[int, ...] = tuple(
    parse_tile(p["tile"]) for p in DATA["plots"] for _ in range(p["count"])
)
PLOT_COUNTS: dict[int, int] = {parse_tile(p["tile"]): p["count"] for p in DATA["plots"]}
CHANNELS: int = DATA["irrigation_channels"]
IMPROVEMENT_TOKENS: tuple[int, int, int, int] = (
    0,
    DATA["improvement_tokens"]["watershed"],
    DATA["improvement_tokens"]["enclosure"],
    DATA["improvement_tokens"]["fertilizer"],
)
BAMBOO_SECTIONS: tuple[int, int, int] = tuple(  # type: ignore[assignment]
    DATA["bamboo_sections"][c] for c in COLOURS
)
EMPEROR_POINTS: int = DATA["emperor_points"]


@dataclass(frozen=True, slots=True)
class Card:
    """An objective card: facts of the printed card, plus the tables the rules need."""

    index: int
    id: str
    category: int
    points: int
    #: plot: the pattern's rotations, each a tuple of (axial q, r, colour) cells.
    rotations: tuple[tuple[tuple[int, int, int], ...], ...] = ()
    #: gardener: colour, number of shoots, height, improvement (code, or -1 for "any").
    colour: int = -1
    shoots: int = 0
    height: int = 0
    improvement: int = -1
    #: panda: sections to eat, per colour.
    eat: tuple[int, int, int] = (0, 0, 0)

    @property
    def category_name(self) -> str:
        return CATEGORIES[self.category]


def _rotations(cells: list[tuple[int, int, int]]) -> tuple[tuple[tuple[int, int, int], ...], ...]:
    """The distinct rotations of a pattern (never mirrored), each anchored at its first cell."""
    seen: set[frozenset[tuple[int, int, int]]] = set()
    out = []
    current = cells
    for _ in range(6):
        q0, r0, _c = current[0]
        anchored = tuple((q - q0, r - r0, c) for q, r, c in current)
        # Two rotations are the same placement when they cover the same cells with the same
        # colours up to a translation; compare them normalised to their smallest cell.
        mq, mr = min((q, r) for q, r, _c in anchored)
        key = frozenset((q - mq, r - mr, c) for q, r, c in anchored)
        if key not in seen:
            seen.add(key)
            out.append(anchored)
        current = [(*grid.rotate(q, r), c) for q, r, c in current]
    return tuple(out)


def _cards() -> tuple[Card, ...]:
    cards: list[Card] = []
    objectives = DATA["objectives"]
    for entry in objectives["plot"]:
        cells = []
        for cell in entry["cells"]:
            q, r = (int(x) for x in cell["at"].split(","))
            cells.append((q, r, COLOURS.index(cell["colour"])))
        cards.append(
            Card(len(cards), entry["id"], PLOT_CARD, entry["points"], rotations=_rotations(cells))
        )
    for entry in objectives["gardener"]:
        improvement = -1 if entry["improvement"] == "any" else IMPROVEMENTS.index(
            entry["improvement"]
        )
        cards.append(
            Card(
                len(cards),
                entry["id"],
                GARDENER_CARD,
                entry["points"],
                colour=COLOURS.index(entry["colour"]),
                shoots=entry["shoots"],
                height=entry["height"],
                improvement=improvement,
            )
        )
    for entry in objectives["panda"]:
        eat = tuple(entry["eat"].get(c, 0) for c in COLOURS)
        cards.append(
            Card(len(cards), entry["id"], PANDA_CARD, entry["points"], eat=eat)  # type: ignore[arg-type]
        )
    return tuple(cards)


CARDS: tuple[Card, ...] = _cards()
CARD_INDEX: dict[str, int] = {card.id: card.index for card in CARDS}
CARD_POINTS: tuple[int, ...] = tuple(card.points for card in CARDS)
CARD_CATEGORY: tuple[int, ...] = tuple(card.category for card in CARDS)
#: Card indices per category, in the file's order (each deck before shuffling).
CATEGORY_CARDS: tuple[tuple[int, ...], ...] = tuple(
    tuple(card.index for card in CARDS if card.category == k) for k in range(3)
)


def parse_card(text: str) -> int:
    """Card index of an id such as ``plot-07``; raises ValueError naming the id."""
    try:
        return CARD_INDEX[text]
    except KeyError:
        raise ValueError(f"{text!r} is not an objective card of the game") from None
