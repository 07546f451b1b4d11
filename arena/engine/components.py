"""The published game's components (``arena/data/components.json``) as small ints and tables.

Tiles, colours, improvements and objective cards are ints in the hot path; their names exist
for notation and positions only.  The JSON file is the single source of the facts (counts,
card patterns and points): nothing here restates them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from arena import data as data_files

from . import grid
from .errors import OptionError

COLOURS: tuple[str, ...] = ("green", "yellow", "pink")
GREEN, YELLOW, PINK = 0, 1, 2

#: Improvement codes; 0 means none.
IMPROVEMENTS: tuple[str, ...] = ("none", "watershed", "enclosure", "fertilizer")
NO_IMPROVEMENT, WATERSHED, ENCLOSURE, FERTILIZER = 0, 1, 2, 3

CATEGORIES: tuple[str, ...] = ("plot", "gardener", "panda")
PLOT_CARD, GARDENER_CARD, PANDA_CARD = 0, 1, 2

#: The weather die's faces (R4.1); ``FACE_`` keeps them apart from the action kinds and
#: the decision steps of the same names.
FACES: tuple[str, ...] = ("sun", "rain", "wind", "storm", "clouds", "choice")
FACE_SUN, FACE_RAIN, FACE_WIND, FACE_STORM, FACE_CLOUDS, FACE_CHOICE = 0, 1, 2, 3, 4, 5

#: A tile code is ``colour * 4 + printed improvement``; the pond has its own code.
POND_TILE = 12


def tile_name(code: int) -> str:
    """``colour`` or ``colour/improvement`` (docs/notation.md)."""
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
    return data_files.load(data_files.COMPONENTS)


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
#: The Emperor card's printed points.  A game's own value is its rule option
#: ``emperor_points`` (a card-set file's ``emperor`` sets that option).
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


@dataclass(frozen=True, slots=True)
class CardSet:
    """The objective cards a game is played with: each card's points, and the cards left out.

    A designer's question ("what should plot-15 be worth?") is answered by playing games
    with another set, so the set belongs to the game (``GameState.card_set``, and its
    ``card_points`` read on the hot path), never to this module: games with different sets
    can run side by side in one process.  The printed set is ``DEFAULT_CARD_SET``.  The
    Emperor's points are not here: they are the rule option ``emperor_points``.
    """

    #: Points per card index (every card, removed ones included).
    points: tuple[int, ...] = CARD_POINTS
    #: Card indices taken out of their decks before the shuffle.
    removed: frozenset[int] = frozenset()
    #: A label for people (``"plot-15 at 5"``); not part of what is played.
    name: str = field(default="", compare=False)
    #: Per category, the cards in play in the file's order (each deck before shuffling).
    decks: tuple[tuple[int, ...], ...] = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        if len(self.points) != len(CARDS):
            raise OptionError(f"a card set gives points to {len(CARDS)} cards, "
                              f"not {len(self.points)}")
        for card, value in zip(CARDS, self.points):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise OptionError(f"card {card.id}'s points must be a whole number >= 0, "
                                  f"not {value!r}")
        for index in self.removed:
            if not isinstance(index, int) or not 0 <= index < len(CARDS):
                raise OptionError(f"{index!r} is not a card index (0..{len(CARDS) - 1})")
        decks = tuple(
            tuple(c for c in CATEGORY_CARDS[k] if c not in self.removed) for k in range(3)
        )
        object.__setattr__(self, "decks", decks)

    @classmethod
    def from_changes(
        cls, points: Mapping[str, int] | None = None, remove: Iterable[str] = (),
        name: str = "",
    ) -> CardSet:
        """The printed set with ``points`` (card id -> points) and ``remove`` (card ids)
        applied; OptionError names the field at fault (``points.plot-99``, ``remove[2]``)."""
        table = list(CARD_POINTS)
        for card_id, value in (points or {}).items():
            if card_id not in CARD_INDEX:
                raise OptionError(f"points.{card_id}: {card_id!r} is not an objective card "
                                  "(`arena cards` lists them)")
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise OptionError(f"points.{card_id} must be a whole number >= 0, "
                                  f"not {value!r}")
            table[CARD_INDEX[card_id]] = value
        removed: set[int] = set()
        for i, card_id in enumerate(remove):
            if not isinstance(card_id, str) or card_id not in CARD_INDEX:
                raise OptionError(f"remove[{i}]: {card_id!r} is not an objective card "
                                  "(`arena cards` lists them)")
            if CARD_INDEX[card_id] in removed:
                raise OptionError(f"remove[{i}]: {card_id} is removed twice")
            removed.add(CARD_INDEX[card_id])
        return cls(tuple(table), frozenset(removed), name)

    def changes(self) -> dict[str, object]:
        """What differs from the printed set, in the form ``from_changes`` reads: ``points``
        (only the cards whose points differ, by id) and ``remove`` (ids in card order);
        empty keys are left out, so the printed set gives ``{}``."""
        out: dict[str, object] = {}
        points = {CARDS[c].id: p for c, p in enumerate(self.points) if p != CARD_POINTS[c]}
        if points:
            out["points"] = points
        if self.removed:
            out["remove"] = [CARDS[c].id for c in sorted(self.removed)]
        return out

    def is_default(self) -> bool:
        """Whether this is the printed set (whatever its name)."""
        return self.points == CARD_POINTS and not self.removed

    def deal_problem(self, players: int) -> str | None:
        """Why a ``players``-seat game cannot be dealt from this set (R2.3), or None."""
        for k, deck in enumerate(self.decks):
            if len(deck) < players:
                return (f"the {CATEGORIES[k]} deck keeps {len(deck)} card"
                        f"{'' if len(deck) == 1 else 's'}, and a {players}-player game deals "
                        f"one to each seat (R2.3)")
        return None


DEFAULT_CARD_SET = CardSet()
