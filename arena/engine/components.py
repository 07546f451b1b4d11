"""The published game's components (``arena/data/components.json``) as small ints and tables.

Tiles, colours, improvements and objective cards are ints in the hot path; their names exist
for notation and positions only.  The JSON file is the single source of the facts (counts,
card patterns and points): nothing here restates them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from arena import data as data_files
from arena.engine import grid
from arena.engine.errors import OptionError

#: The most a count may be (points, a round, sections eaten, stored channels): the native
#: engine holds counts in 32 bits, and both engines refuse more with the same sentence.
COUNT_MAX = (1 << 32) - 1

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
    #: plot: per distinct rotation, the ``(shift, colour)`` of each cell, shifts >= 0 from
    #: the cell of smallest index (``objectives.plot_pattern_found``'s bit sets).
    shifts: tuple[tuple[tuple[int, int], ...], ...] = field(default=(), compare=False,
                                                             repr=False)

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


def _rotation_shifts(
    rotation: tuple[tuple[int, int, int], ...],
) -> tuple[tuple[int, int], ...]:
    """``(shift, colour)`` per pattern cell: a cell index is linear in ``(q, r)``, so a cell
    of the pattern is a fixed shift from its first one wherever it lies."""
    deltas = [(q + r * grid.WIDTH, colour) for q, r, colour in rotation]
    base = min(d for d, _c in deltas)
    return tuple((d - base, colour) for d, colour in deltas)


def card_of(index: int, category: str, entry: Mapping) -> Card:
    """A card from a catalog entry (``components.json``'s, or one a card set adds)."""
    if category == "plot":
        cells = []
        for cell in entry["cells"]:
            q, r = (int(x) for x in cell["at"].split(","))
            cells.append((q, r, COLOURS.index(cell["colour"])))
        rotations = _rotations(cells)
        return Card(index, entry["id"], PLOT_CARD, entry["points"], rotations=rotations,
                    shifts=tuple(_rotation_shifts(rot) for rot in rotations))
    if category == "gardener":
        improvement = -1 if entry["improvement"] == "any" else IMPROVEMENTS.index(
            entry["improvement"]
        )
        return Card(index, entry["id"], GARDENER_CARD, entry["points"],
                    colour=COLOURS.index(entry["colour"]), shoots=entry["shoots"],
                    height=entry["height"], improvement=improvement)
    eat = tuple(entry["eat"].get(c, 0) for c in COLOURS)
    return Card(index, entry["id"], PANDA_CARD, entry["points"], eat=eat)  # type: ignore[arg-type]


def _cards() -> list[Card]:
    cards: list[Card] = []
    for category in CATEGORIES:
        for entry in DATA["objectives"][category]:
            cards.append(card_of(len(cards), category, entry))
    return cards


#: The printed objective cards by index, in the file's order.  A game's cards, added ones
#: included, are its set's (``state.card_set.card(i)``): these tables are the printed set's
#: constants, never changed, so that two games of different sets can run side by side.
CARDS: tuple[Card, ...] = tuple(_cards())
PRINTED_CARDS: int = len(CARDS)
#: The printed cards' indices by id (a set's own, added ones included: ``CardSet.index``);
#: read-only, as every table here.
CARD_INDEX: Mapping[str, int] = MappingProxyType({card.id: card.index for card in CARDS})
#: The same table under the name that says it holds the printed cards only.
PRINTED_INDEX: Mapping[str, int] = CARD_INDEX
#: The printed cards' points (a card set's default).
CARD_POINTS: tuple[int, ...] = tuple(card.points for card in CARDS)
#: Category per printed card index (a set's own: ``CardSet.category``).
CARD_CATEGORY: tuple[int, ...] = tuple(card.category for card in CARDS)
#: The printed cards' indices per category, in the file's order (each deck before shuffling).
CATEGORY_CARDS: tuple[tuple[int, ...], ...] = tuple(
    tuple(card.index for card in CARDS if card.category == k) for k in range(3)
)


def parse_card(text: str) -> int:
    """Index of a printed card's id such as ``plot-07``; raises ValueError naming the id
    (a game's own set, added cards included: ``CardSet.index``)."""
    return DEFAULT_CARD_SET.index(text)


@dataclass(frozen=True, slots=True)
class CardSet:
    """The objective cards a game is played with: each card's points, the cards left out,
    and the cards the set adds to the printed ones.

    A designer's question ("what should plot-15 be worth?", "what about this new card?") is
    answered by playing games with another set, so the set belongs to the game
    (``GameState.card_set``, a view's ``card_set``, and its ``card_points`` read on the hot
    path), never to this module: games of different sets, added cards included, run side by
    side in one process.  The set is its own table of cards: whatever names or reads a card
    of a game (notation, events, bots, encoders, pictures) asks that game's set
    (:meth:`card`, :meth:`category`, :meth:`index`), never a table of the process.  The
    printed set is ``DEFAULT_CARD_SET``.  The Emperor's points are not here: they are the
    rule option ``emperor_points``.
    """

    #: Points per card index (every card, removed and added ones included).
    points: tuple[int, ...] = CARD_POINTS
    #: Card indices taken out of their decks before the shuffle.
    removed: frozenset[int] = frozenset()
    #: A label for people (``"plot-15 at 5"``); not part of what is played.
    name: str = field(default="", compare=False)
    #: The cards the set adds, as ``(category, entry as canonical JSON)`` in their order
    #: (indices ``PRINTED_CARDS`` on); entries already checked (``card_defs.py``).
    added_entries: tuple[tuple[str, str], ...] = ()
    #: Per category, the cards in play (printed, then added) (each deck before shuffling).
    decks: tuple[tuple[int, ...], ...] = field(init=False, compare=False, repr=False)
    #: The added cards as the engine's ``Card``s.
    added: tuple[Card, ...] = field(init=False, compare=False, repr=False)
    #: Every card of the set by index: the printed ones, then the added ones (removed cards
    #: too: a removed card still has its index and its name).
    cards: tuple[Card, ...] = field(init=False, compare=False, repr=False)
    #: The category of each card by index (``cards[i].category``, a flat table for hot paths).
    categories: tuple[int, ...] = field(init=False, compare=False, repr=False)
    #: Card index by id, added cards included.
    ids: Mapping[str, int] = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        added = tuple(card_of(PRINTED_CARDS + i, category, json.loads(text))
                      for i, (category, text) in enumerate(self.added_entries))
        count = PRINTED_CARDS + len(added)
        if len(self.points) != count:
            raise OptionError(f"a card set gives points to {count} cards, "
                              f"not {len(self.points)}")
        for index, value in enumerate(self.points):
            if isinstance(value, bool) or not isinstance(value, int) or not (
                    0 <= value <= COUNT_MAX):
                card = CARDS[index].id if index < PRINTED_CARDS else added[
                    index - PRINTED_CARDS].id
                span = ">= 0" if not isinstance(value, int) or value <= COUNT_MAX else (
                    f"0 to {COUNT_MAX}")
                raise OptionError(f"card {card}'s points must be a whole number {span}, "
                                  f"not {value!r}")
        for index in self.removed:
            if not isinstance(index, int) or not 0 <= index < count:
                raise OptionError(f"{index!r} is not a card index (0..{count - 1})")
        decks = tuple(
            tuple(c for c in (*CATEGORY_CARDS[k], *(a.index for a in added if a.category == k))
                  if c not in self.removed)
            for k in range(3)
        )
        object.__setattr__(self, "decks", decks)
        object.__setattr__(self, "added", added)
        # The printed set shares the module's tables; a set that adds cards has its own.
        cards = CARDS + added
        object.__setattr__(self, "cards", cards)
        object.__setattr__(self, "categories",
                           CARD_CATEGORY + tuple(card.category for card in added))
        object.__setattr__(self, "ids", MappingProxyType({card.id: card.index for card in cards})
                           if added else CARD_INDEX)

    def __reduce__(self) -> tuple:
        # The derived tables are rebuilt from the four fields that say what is played.
        return (CardSet, (self.points, self.removed, self.name, self.added_entries))

    def __len__(self) -> int:
        """The number of cards, printed and added (removed ones included)."""
        return len(self.cards)

    def __iter__(self) -> Iterator[Card]:
        """Every card of the set in index order."""
        return iter(self.cards)

    def category(self, index: int) -> int:
        """The category of a card of this set by index."""
        return self.categories[index]

    def index(self, card_id: str) -> int:
        """The index of a card of this set by id; ValueError names an id it does not have."""
        try:
            return self.ids[card_id]
        except (KeyError, TypeError):
            raise ValueError(f"{card_id!r} is not an objective card of the game") from None

    @classmethod
    def from_changes(
        cls, points: Mapping[str, int] | None = None, remove: Iterable[str] = (),
        name: str = "", add: Mapping[str, list[Mapping]] | None = None,
    ) -> CardSet:
        """The printed set with ``add`` (entries by category, already checked), ``points``
        (card id -> points) and ``remove`` (card ids) applied; OptionError names the field at
        fault (``points.plot-99``, ``remove[2]``)."""
        entries = tuple((category, json.dumps(dict(entry), sort_keys=True))
                        for category in CATEGORIES for entry in (add or {}).get(category, ()))
        index = dict(PRINTED_INDEX)
        table = list(CARD_POINTS)
        for i, (_category, text) in enumerate(entries):
            entry = json.loads(text)
            index[entry["id"]] = PRINTED_CARDS + i
            table.append(entry["points"])
        for card_id, value in (points or {}).items():
            if card_id not in index:
                raise OptionError(f"points.{card_id}: {card_id!r} is not an objective card "
                                  "(`arena cards` lists them)")
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise OptionError(f"points.{card_id} must be a whole number >= 0, "
                                  f"not {value!r}")
            if value > COUNT_MAX:
                raise OptionError(f"points.{card_id} must be at most {COUNT_MAX}, "
                                  f"not {value!r}")
            table[index[card_id]] = value
        removed: set[int] = set()
        for i, card_id in enumerate(remove):
            if not isinstance(card_id, str) or card_id not in index:
                raise OptionError(f"remove[{i}]: {card_id!r} is not an objective card "
                                  "(`arena cards` lists them)")
            if index[card_id] in removed:
                raise OptionError(f"remove[{i}]: {card_id} is removed twice")
            removed.add(index[card_id])
        return cls(tuple(table), frozenset(removed), name, entries)

    def card(self, index: int) -> Card:
        """A card of this set by index (printed or added)."""
        return self.cards[index]

    def index_of(self, card_id: str) -> int | None:
        """The index of a card of this set by id (printed or added), or None."""
        return self.ids.get(card_id)

    def changes(self) -> dict[str, object]:
        """What differs from the printed set, in the form ``from_changes`` reads: ``points``
        (only the cards whose points differ from their entry's, by id), ``remove`` (ids in
        card order) and ``add`` (the added entries by category); empty keys are left out, so
        the printed set gives ``{}``."""
        out: dict[str, object] = {}
        printed = (*CARD_POINTS, *(a.points for a in self.added))
        points = {self.card(c).id: p for c, p in enumerate(self.points) if p != printed[c]}
        if points:
            out["points"] = points
        if self.removed:
            out["remove"] = [self.card(c).id for c in sorted(self.removed)]
        if self.added_entries:
            add: dict[str, list] = {}
            for category, text in self.added_entries:
                add.setdefault(category, []).append(json.loads(text))
            out["add"] = add
        return out

    def is_default(self) -> bool:
        """Whether this is the printed set (whatever its name)."""
        return self.points == CARD_POINTS and not self.removed and not self.added_entries

    def deal_problem(self, players: int) -> str | None:
        """Why a ``players``-seat game cannot be dealt from this set (R2.3), or None."""
        for k, deck in enumerate(self.decks):
            if len(deck) < players:
                return (f"the {CATEGORIES[k]} deck keeps {len(deck)} card"
                        f"{'' if len(deck) == 1 else 's'}, and a {players}-player game deals "
                        f"one to each seat (R2.3)")
        return None


DEFAULT_CARD_SET = CardSet()
