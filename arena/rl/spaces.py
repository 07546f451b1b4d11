"""The environment's fixed action space and its observation of one seat, as numpy arrays.

The engine's actions are ints ``kind | a << 5 | b << 17`` (``arena.engine.actions``): sparse,
and their number depends on the board.  A learner needs one fixed, dense index space, so
``ActionTable`` enumerates every action that can name cells within ``radius`` of the pond,
kind by kind, and maps each to an index and back.  Random games stay within distance 7 (most
within 4; measured in ``docs/rl.md``); the default radius, 9, leaves a margin.  A legal
action beyond the radius has no index: the mask leaves it out, and an observation with no
indexed legal action is an error that names the radius (``RadiusError``), never a silent
wrong move.  ``clouds move`` (rule option ``cloud_when_empty=move_improvement``) joins two
cells, so its block exists only when that option is on.

``Observation`` encodes a ``PlayerView`` (what the seat may know, nothing else) as one flat
float32 vector: board planes over the axial box ``q, r in [-radius, radius]``, then the
seat's own information and every seat's public one, seats counted from the observer (0 is
"me", 1 the next to play after me, ...).  ``layout`` names every segment with its shape;
``docs/rl.md`` prints it.

Both have one slot per objective card of the game's card set (``card_slots``): the printed
cards' 45, then one per card the set adds (indices 45 on, in the set's order).  The count
comes from the set given (a game's own, ``view.card_set``): a printed environment keeps its
sizes whatever other sets play beside it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from arena.engine import Board, CardSet, PlayerView, RuleOptions, grid
from arena.engine import actions as A
from arena.engine.components import POND_TILE, PRINTED_CARDS

DEFAULT_RADIUS = 9


class RadiusError(RuntimeError):
    """The board grew past what the action space names: every legal action is beyond it."""


class CardSlotError(ValueError):
    """A view's card set has another number of cards than the spaces have slots: they were
    made for another card set."""


def card_slots(cards: CardSet | None = None) -> int:
    """The number of card slots for ``cards`` (None: the printed set): the printed cards, then
    the added ones.  Removed cards keep their slots, so every set with the same added count
    shares one layout and the printed cards' slots never move."""
    return PRINTED_CARDS + (len(cards.added) if cards is not None else 0)


def cells_within(radius: int) -> tuple[int, ...]:
    """The cells within ``radius`` of the pond, nearest first, then by index."""
    return tuple(sorted((c for c in grid.CELLS if grid.distance(grid.POND, c) <= radius),
                        key=lambda c: (grid.distance(grid.POND, c), c)))


class ActionTable:
    """A dense, fixed numbering of the engine's actions (for one radius, rule set and card
    set: ``complete CARD`` has one index per card slot, ``card_slots(cards)``)."""

    def __init__(self, radius: int = DEFAULT_RADIUS, options: RuleOptions | None = None,
                 cards: CardSet | None = None) -> None:
        options = options or RuleOptions()
        self.cards = card_slots(cards)
        cells = cells_within(radius)
        inside = set(cells)
        edges = tuple(e for e, (a, b) in enumerate(grid.EDGE_CELLS)
                      if a in inside and b in inside and e not in grid.POND_EDGES)
        blocks: list[tuple[str, list[int]]] = [
            ("end", [A.END]), ("plot", [A.PLOT]), ("irrigation keep", [A.IRRIGATE_KEEP]),
            ("skip", [A.SKIP]),
            ("place", [A.place(k, c, imp, bool(swap)) for k in range(3) for c in cells
                       for imp in range(4) for swap in (0, 1)]),
            ("irrigation", [A.make(A.IRRIGATE, e) for e in edges]),
            ("channel", [A.make(A.CHANNEL, e) for e in edges]),
            ("gardener", [A.make(A.GARDENER, c) for c in cells]),
            ("panda", [A.make(A.PANDA, c) for c in cells]),
            ("rain", [A.make(A.RAIN, c) for c in cells]),
            ("storm", [A.make(A.STORM, c) for c in cells]),
            ("objective", [A.make(A.OBJECTIVE, 0, k) for k in range(3)]),
            ("redraw", [A.make(A.REDRAW, 0, k) for k in range(3)]),
            ("complete", [A.make(A.COMPLETE, 0, card) for card in range(self.cards)]),
            ("weather", [A.make(A.WEATHER, 0, face) for face in range(5)]),
            ("improve", [A.make(A.IMPROVE, c, imp) for imp in (1, 2, 3) for c in cells]),
            ("clouds", [A.make(A.CLOUDS, c, imp) for imp in (1, 2, 3) for c in cells]),
            ("clouds keep", [A.make(A.CLOUDS_KEEP, 0, imp) for imp in (1, 2, 3)]),
        ]
        if options.cloud_when_empty == "move_improvement":
            blocks.append(("clouds move", [A.make(A.CLOUDS_MOVE, s, d) for s in cells
                                           for d in cells if s != d]))
        self.radius = radius
        self.blocks: tuple[tuple[str, int, int], ...] = ()
        actions: list[int] = []
        spans = []
        for name, items in blocks:
            spans.append((name, len(actions), len(items)))
            actions += items
        self.blocks = tuple(spans)
        self.actions: tuple[int, ...] = tuple(actions)
        self.index: dict[int, int] = {a: i for i, a in enumerate(actions)}
        assert len(self.index) == len(actions), "two indices for one action"

    def __len__(self) -> int:
        return len(self.actions)

    def mask(self, legal: list[int]) -> np.ndarray:
        """1 at the index of each legal action (int8, as PettingZoo's masked sampling wants)."""
        mask = np.zeros(len(self.actions), dtype=np.int8)
        index = self.index
        found = [index[a] for a in legal if a in index]
        if legal and not found:
            raise RadiusError(
                f"every legal action lies beyond distance {self.radius} of the pond: make "
                f"the environment with a larger radius (radius={self.radius + 3})")
        mask[found] = 1
        return mask


@dataclass(frozen=True)
class Segment:
    """A named part of the observation vector: its offset, shape and largest value."""

    name: str
    shape: tuple[int, ...]
    high: float
    meaning: str

    @property
    def size(self) -> int:
        return math.prod(self.shape)


#: The board planes, in order (the last axis of the ``board`` segment).
PLANES: tuple[str, ...] = (
    "pond", "green plot", "yellow plot", "pink plot", "irrigated", "bamboo height (0-4)",
    "watershed", "enclosure", "fertilizer", "improvement printed on the tile", "gardener",
    "panda", "open space (a plot may go there)", "channel on edge to (q+1, r)",
    "channel on edge to (q+1, r-1)", "channel on edge to (q, r-1)",
)

SEATS = 4


def layout(radius: int = DEFAULT_RADIUS, cards: CardSet | None = None
           ) -> tuple[Segment, ...]:
    """The segments of the observation vector, in order, for ``cards`` (None: printed)."""
    side = 2 * radius + 1
    slots = card_slots(cards)
    return (
        Segment("board", (side, side, len(PLANES)), 4,
                "planes over axial q, r in [-radius, radius]: [q + radius, r + radius, plane]"),
        Segment("players", (3,), 1, "one-hot: 2, 3 or 4 players"),
        Segment("to_play", (SEATS,), 1, "one-hot: the seat to play, counted from me"),
        Segment("round", (1,), 10_000, "the round (1, 2, ...)"),
        Segment("step", (8,), 1, "one-hot: roll, choose_weather, rain, storm, clouds, actions, "
                                 "place, redraw"),
        Segment("weather", (6,), 1, "one-hot: sun, rain, wind, storm, clouds, choice (none "
                                    "before the roll)"),
        Segment("taken", (5,), 1, "this turn's actions taken: plot, irrigation, gardener, "
                                  "panda, objective"),
        Segment("drawn", (3, 13), 1, "the plots I am choosing from (one-hot tile code each)"),
        Segment("hand", (slots,), 1, "the objective cards in my hand"),
        Segment("satisfied", (slots,), 1, "the cards of my hand whose condition holds now"),
        Segment("hand_sizes", (SEATS, 3), 10, "per seat, objectives in hand by category "
                                              "(plot, gardener, panda)"),
        Segment("completed", (SEATS, slots), 1, "per seat, the cards it completed"),
        Segment("scores", (SEATS,), 1000, "per seat, its points now"),
        Segment("eaten", (SEATS, 3), 100, "per seat, bamboo sections eaten by colour"),
        Segment("stored", (SEATS, 4), 100, "per seat, stored channels, watershed, enclosure, "
                                           "fertilizer"),
        Segment("emperor", (SEATS,), 1, "one-hot: the seat that took the Emperor"),
        Segment("reserve", (4,), 100, "channels, watershed, enclosure, fertilizer left"),
        Segment("decks", (4,), 100, "plots, plot, gardener and panda objectives left"),
        Segment("last_turns", (1,), 10, "final turns left once the Emperor is taken (else 0)"),
    )


class Observation:
    """Encodes a seat's view as the flat vector of ``layout(radius, cards)``."""

    def __init__(self, radius: int = DEFAULT_RADIUS, cards: CardSet | None = None) -> None:
        self.radius = radius
        self.cards = card_slots(cards)
        self.segments = layout(radius, cards)
        self.offsets: dict[str, tuple[int, Segment]] = {}
        self._slices: dict[str, tuple[int, int, tuple[int, ...]]] = {}
        at = 0
        for segment in self.segments:
            self.offsets[segment.name] = (at, segment)
            self._slices[segment.name] = (at, at + segment.size, segment.shape)
            at += segment.size
        self.size = at
        self.high = np.concatenate([np.full(s.size, s.high, dtype=np.float32)
                                    for s in self.segments])
        side = 2 * radius + 1
        self._where = {c: (grid.coords_of(c)[0] + radius) * side + grid.coords_of(c)[1] + radius
                       for c in cells_within(radius)}

    def part(self, vector: np.ndarray, name: str) -> np.ndarray:
        """A segment of an observation, in its shape (a view, not a copy)."""
        start, end, shape = self._slices[name]
        return vector[start:end].reshape(shape)

    def encode(self, view: PlayerView) -> np.ndarray:
        """The observation of ``view`` (a ``PlayerView``: the seat's information only)."""
        out = np.zeros(self.size, dtype=np.float32)
        self._board(view, self.part(out, "board"))
        players, me = view.players, view.seat

        def rel(seat: int) -> int:
            return (seat - me) % players

        self.part(out, "players")[players - 2] = 1
        if not view.ended:
            self.part(out, "to_play")[rel(view.current)] = 1
        self.part(out, "round")[0] = view.round
        self.part(out, "step")[view.step] = 1
        if view.weather >= 0:
            self.part(out, "weather")[view.weather] = 1
        taken = self.part(out, "taken")
        for kind in view.taken:
            taken[kind] = 1
        drawn = self.part(out, "drawn")
        for i, tile in enumerate(view.drawn[:3]):
            drawn[i, tile] = 1
        hand, satisfied = self.part(out, "hand"), self.part(out, "satisfied")
        if card_slots(view.card_set) != self.cards:
            # A card past the slots would raise IndexError, and one within them (a set
            # with fewer added cards) would be read as another card: say which it is.
            raise CardSlotError(
                f"the observation has {self.cards} card slots but the game's card set has "
                f"{card_slots(view.card_set)} cards: make the encoder with that card set")
        for card in view.hand:
            hand[card] = 1
            satisfied[card] = view.objective_found(me, card)
        sizes, completed = self.part(out, "hand_sizes"), self.part(out, "completed")
        scores, eaten = self.part(out, "scores"), self.part(out, "eaten")
        stored = self.part(out, "stored")
        board_scores = view.scores()
        for seat in range(players):
            r = rel(seat)
            for category in view.hand_categories[seat]:
                sizes[r, category] += 1
            for card in view.completed[seat]:
                completed[r, card] = 1
            scores[r] = board_scores[seat]
            eaten[r] = view.eaten[seat]
            stored[r, 0] = view.stored_channels[seat]
            stored[r, 1:] = view.stored_improvements[seat][1:]
        if view.emperor >= 0:
            self.part(out, "emperor")[rel(view.emperor)] = 1
        reserve = self.part(out, "reserve")
        reserve[0] = view.reserve_channels
        reserve[1:] = view.reserve_improvements[1:]
        decks = self.part(out, "decks")
        decks[0] = view.plot_deck_size
        decks[1:] = view.objective_deck_sizes
        self.part(out, "last_turns")[0] = max(0, view.last_turns)
        return out

    def _board(self, board: Board, planes: np.ndarray) -> None:
        flat = planes.reshape(-1, len(PLANES))
        where = self._where
        for cell, code in board.tiles.items():
            i = where.get(cell)
            if i is None:
                continue
            if code == POND_TILE:
                flat[i, 0] = 1
                continue
            flat[i, 1 + (code >> 2)] = 1
            flat[i, 4] = cell in board.irrigated
            flat[i, 5] = board.bamboo.get(cell, 0)
            improvement = board.improvement.get(cell, 0)
            if improvement:
                flat[i, 5 + improvement] = 1
            flat[i, 9] = bool(code & 3)
        for name, cell in ((10, board.gardener), (11, board.panda)):
            i = where.get(cell)
            if i is not None:
                flat[i, name] = 1
        for cell in board.placement_spaces():
            i = where.get(cell)
            if i is not None:
                flat[i, 12] = 1
        for edge in board.channels:
            a, b = grid.EDGE_CELLS[edge]
            for owner, other in ((a, b), (b, a)):
                neighbours = grid.NEIGHBOUR[owner]
                for d in range(3):
                    if neighbours[d] == other and owner in where:
                        flat[where[owner], 13 + d] = 1
