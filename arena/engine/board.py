"""The public board, its queries, and the table of a game's fields.

``Board`` is what ``GameState`` (the whole truth) and ``PlayerView`` (what one seat may know)
have in common: the fields every seat sees, under the same names, and the questions the rules
ask of them (placement spaces, channel spots, objectives found).  Bots ask a view the same
questions the rules ask the state, and nothing is computed in two ways.

``FIELDS`` lists every field of a ``GameState`` once, with how a copy treats it and whether
every seat sees it.  The state's ``__slots__`` and ``copy()``, a view's public part
(``copy_public``) and ``positions_equal`` are derived from it, so a field added here is
copied everywhere it must be, and one left out cannot be set at all.
"""

from __future__ import annotations

import copy
from typing import Any

from arena.engine import grid
from arena.engine.components import (
    BAMBOO_SECTIONS,
    GARDENER_CARD,
    IMPROVEMENTS,
    PANDA_CARD,
    POND_TILE,
    PRINTED_CARDS,
    CardSet,
    tile_name,
)
from arena.engine.objectives import (
    added_gardener_found,
    gardener_found,
    panda_found,
    plot_pattern_found,
)
from arena.engine.options import RuleOptions

POND = grid.POND
_NEIGHBOURS = grid.NEIGHBOURS
_POND_RING = grid.POND_RING
_POND_EDGES = grid.POND_EDGES
_CORNER_EDGES = grid.CORNER_EDGES
_EDGE_CELLS = grid.EDGE_CELLS

# How ``GameState.copy`` treats a field.
#: Immutable, or replaced rather than changed in place by the rules: the copy shares it.
SHARED = "shared"
#: A container the rules change in place: the copy gets its own (``.copy()``, shallow: the
#: items are immutable).
COPIED = "copied"
#: Derived and costly, set to None when what it depends on changes: a copy shares it until
#: then, and a new state starts without it.
CACHE = "cache"
#: The move log: a copy drops it unless asked for (search copies states by the thousand).
HISTORY = "history"

#: Whether a ``PlayerView`` holds the state's value under the same name (``copy_public``).
PUBLIC = True
#: Not held by a view as the state holds it: hidden (decks, other hands, the generator), or
#: shown only in part (``drawn``), or derived from hidden parts (``_plot_ok``, ``_legal``).
HIDDEN = False

#: Every field of a ``GameState``, written once: name, how a copy treats it, who sees it.
FIELDS: tuple[tuple[str, str, bool], ...] = (
    # the game
    ("players", SHARED, PUBLIC),
    ("options", SHARED, PUBLIC),
    ("card_set", SHARED, PUBLIC),
    ("card_points", SHARED, PUBLIC),
    ("seed", SHARED, HIDDEN),
    ("rng", SHARED, HIDDEN),
    ("dice", SHARED, HIDDEN),
    # the turn
    ("round", SHARED, PUBLIC),
    ("current", SHARED, PUBLIC),
    ("step", SHARED, PUBLIC),
    ("weather", SHARED, PUBLIC),
    ("taken", SHARED, PUBLIC),
    ("drawn", SHARED, HIDDEN),
    ("put_back", SHARED, PUBLIC),
    # the board
    ("tiles", SHARED, PUBLIC),
    ("bamboo", COPIED, PUBLIC),
    ("improvement", SHARED, PUBLIC),
    ("irrigated", SHARED, PUBLIC),
    ("irrigated_by_colour", SHARED, PUBLIC),
    ("channels", SHARED, PUBLIC),
    ("network", SHARED, PUBLIC),
    ("shoots", COPIED, PUBLIC),
    ("gardener", SHARED, PUBLIC),
    ("panda", SHARED, PUBLIC),
    # the reserve and the decks
    ("reserve_channels", SHARED, PUBLIC),
    ("reserve_improvements", SHARED, PUBLIC),
    ("plot_deck", SHARED, HIDDEN),
    ("plot_known", SHARED, PUBLIC),
    ("objective_decks", SHARED, HIDDEN),
    ("objective_known", SHARED, PUBLIC),
    # the players
    ("hands", COPIED, HIDDEN),
    ("completed", COPIED, PUBLIC),
    ("eaten", COPIED, PUBLIC),
    ("stored_channels", COPIED, PUBLIC),
    ("stored_improvements", COPIED, PUBLIC),
    # the end
    ("emperor", SHARED, PUBLIC),
    ("last_turns", SHARED, PUBLIC),
    ("ended", SHARED, PUBLIC),
    ("capped", SHARED, PUBLIC),
    # the log and the caches
    ("history", HISTORY, HIDDEN),
    ("_legal", CACHE, HIDDEN),
    ("_spaces", CACHE, PUBLIC),
    ("_edges", CACHE, PUBLIC),
    ("_plot_ok", CACHE, HIDDEN),
)

#: The names of ``FIELDS``: a ``GameState``'s slots.
FIELD_NAMES: tuple[str, ...] = tuple(name for name, _how, _public in FIELDS)
#: The public game that ``copy_public`` gives a view or a sample: values shared as they are ...
SHARED_PUBLIC: tuple[str, ...] = tuple(
    name for name, how, public in FIELDS if public and how != COPIED
)
#: ... and the containers that the rules change in place, copied.
COPIED_PUBLIC: tuple[str, ...] = tuple(
    name for name, how, public in FIELDS if public and how == COPIED
)


class Board:
    """Queries on the public board, shared by ``GameState`` and ``PlayerView``.

    Both classes hold the public fields (``FIELDS`` marked ``PUBLIC``) in the same
    attributes, so bots can ask a view the same questions the rules ask the state.
    """

    __slots__ = ()
    players: int
    options: RuleOptions
    #: The game's objective cards (``components.CardSet``) and, for the hot path, their
    #: points by card index: scoring and every bot read cards' values here.
    card_set: CardSet
    card_points: tuple[int, ...]
    round: int
    current: int
    step: int
    weather: int
    taken: tuple[int, ...]
    #: Per objective category, the satisfied cards this objective action has put under the
    #: deck (``redraw_satisfied=all``, step ``redraw``); a deck whose every card is one of
    #: them cannot give a replacement.  Public: the ``returned`` events show everyone which
    #: deck each went under.
    put_back: tuple[int, int, int]
    tiles: dict[int, int]
    bamboo: dict[int, int]
    improvement: dict[int, int]
    irrigated: frozenset[int]
    irrigated_by_colour: tuple[int, int, int]
    channels: frozenset[int]
    network: frozenset[int]
    shoots: list[int]
    gardener: int
    panda: int
    reserve_channels: int
    reserve_improvements: tuple[int, int, int, int]
    #: Per deck position (top first), a bit mask of the seats that know the plot there.
    plot_known: tuple[int, ...]
    #: The same per objective deck.
    objective_known: tuple[tuple[int, ...], ...]
    completed: list[tuple[int, ...]]
    eaten: list[tuple[int, int, int]]
    stored_channels: list[int]
    stored_improvements: list[tuple[int, int, int, int]]
    emperor: int
    last_turns: int
    ended: bool
    capped: bool
    _spaces: tuple[int, ...] | None
    _edges: tuple[int, ...] | None
    #: Not public, but every board keeps one: a view starts its own, since the state's is
    #: keyed by the cards it was asked about, other seats' hands included (R2.6).
    _plot_ok: dict[int, bool] | None

    def colour(self, cell: int) -> int:
        """Colour of the plot at a cell (the pond and empty spaces have none: -1)."""
        code = self.tiles.get(cell, POND_TILE)
        return -1 if code == POND_TILE else code >> 2

    def plots(self) -> list[int]:
        """Cells of the plots in play, in the order they were placed."""
        return list(self.bamboo)

    def placement_spaces(self) -> tuple[int, ...]:
        """Empty spaces where a plot may go (R5.2), in cell order."""
        spaces = self._spaces
        if spaces is None:
            tiles = self.tiles
            candidates = {n for c in tiles for n in _NEIGHBOURS[c] if n not in tiles}
            out = []
            for n in sorted(candidates):
                if n in _POND_RING:
                    out.append(n)
                    continue
                touching = 0
                for m in _NEIGHBOURS[n]:
                    if m in tiles:
                        touching += 1
                if touching >= 2:
                    out.append(n)
            spaces = self._spaces = tuple(out)
        return spaces

    def channel_spots(self) -> tuple[int, ...]:
        """Edges where a channel may go now (R6.2, R6.3), in edge order."""
        edges = self._edges
        if edges is None:
            tiles, channels = self.tiles, self.channels
            found = set()
            for corner in self.network:
                for e in _CORNER_EDGES[corner]:
                    if e in channels or e in _POND_EDGES:
                        continue
                    a, b = _EDGE_CELLS[e]
                    if a in tiles and b in tiles:
                        found.add(e)
            edges = self._edges = tuple(sorted(found))
        return edges

    def improvable_plots(self) -> list[int]:
        """Plots that may take an improvement: none there yet and no bamboo (R11.1)."""
        improvement = self.improvement
        return [c for c, h in self.bamboo.items() if not h and c not in improvement]

    def token_improvements(self) -> list[int]:
        """Plots whose improvement is a token, not printed (what ``clouds move`` may move)."""
        tiles = self.tiles
        return [c for c in self.improvement if not tiles[c] & 3]

    def rain_targets(self) -> list[int]:
        """Plots that rain would grow (R4.2): irrigated and below 4, with supply left."""
        bamboo, irrigated = self.bamboo, self.irrigated
        out = [c for c in irrigated if bamboo[c] < 4]
        if self.options.bamboo_supply == "limited":
            out = [c for c in out if self.supply_left(self.tiles[c] >> 2) > 0]
        out.sort()
        return out

    def supply_left(self, colour: int) -> int:
        """Sections of a colour still in the reserve (R1.5, option ``bamboo_supply``)."""
        tiles = self.tiles
        used = sum(h for c, h in self.bamboo.items() if tiles[c] >> 2 == colour)
        used += sum(e[colour] for e in self.eaten)
        return BAMBOO_SECTIONS[colour] - used

    def scores(self) -> list[int]:
        """Points per seat now (R13.3): completed objectives plus the Emperor, all public."""
        return [self.score(seat) for seat in range(len(self.completed))]

    def score(self, seat: int) -> int:
        """One seat's points without the other seats' sums (an evaluation's hot path)."""
        points = self.card_points
        total = sum(points[c] for c in self.completed[seat])
        if self.emperor == seat:
            total += self.options.emperor_points
        return total

    def with_card_points(self, points: Any) -> Any:
        """A copy whose scores sum ``points`` (an archetype plans with weighted points)."""
        twin = copy.copy(self)
        twin.card_points = points
        return twin

    def plot_objective_found(self, card: int) -> bool:
        """Whether a plot card's pattern is on the board now (R10.3)."""
        found = self._plot_ok
        if found is None:
            found = self._plot_ok = {}
        ok = found.get(card)
        if ok is None:
            ok = found[card] = plot_pattern_found(self.irrigated_by_colour,
                                                  self.card_set.cards[card])
        return ok

    def gardener_objective_found(self, card: int) -> bool:
        """Whether a gardener card's shoots are on the board now (R10.4, R10.5)."""
        under = None
        if self.gardener != POND:
            c = self.gardener
            under = (self.tiles[c] >> 2, self.bamboo[c], self.improvement.get(c, 0))
        c = self.card_set.cards[card]
        if card >= PRINTED_CARDS:
            return added_gardener_found(c, self.tiles, self.bamboo, self.improvement, under,
                                        self.options.gardener_on_shoot)
        return gardener_found(c, self.shoots, under, self.options.gardener_on_shoot)

    def objective_found(self, seat: int, card: int) -> bool:
        """Whether a card's condition holds now for a seat (R10.3-R10.6); a caller's seat
        and card index are checked (IndexError, the native engine's sentences)."""
        if not 0 <= seat < self.players:
            raise IndexError(f"seat {seat} is not in the game")
        if not 0 <= card < len(self.card_set.cards):
            raise IndexError(f"{card} is not a card index")
        return self._objective_found(seat, card)

    def _objective_found(self, seat: int, card: int) -> bool:
        """``objective_found`` of a seat and card the rules hold (unchecked)."""
        c = self.card_set.cards[card]
        category = c.category
        if category == PANDA_CARD:
            return panda_found(c, self.eaten[seat])
        if category == GARDENER_CARD:
            return self.gardener_objective_found(card)
        return self.plot_objective_found(card)


def copy_public(source: Board, target: Board) -> None:
    """Give ``target`` the public game of ``source`` (a state's view, a view's sample)."""
    for name in SHARED_PUBLIC:
        setattr(target, name, getattr(source, name))
    for name in COPIED_PUBLIC:
        setattr(target, name, getattr(source, name).copy())


def board_dict(board: Board) -> dict[str, Any]:
    """The public board as JSON: tiles in the order they were placed, channels, figures."""
    tiles = []
    for cell, height in board.bamboo.items():
        imp = board.improvement.get(cell, 0)
        tiles.append(
            {
                "at": grid.cell_text(cell),
                "tile": tile_name(board.tiles[cell]),
                "bamboo": height,
                "improvement": IMPROVEMENTS[imp] if imp else None,
                "irrigated": cell in board.irrigated,
            }
        )
    return {
        "tiles": tiles,
        "channels": sorted(grid.edge_text(e) for e in board.channels),
        "gardener": grid.cell_text(board.gardener),
        "panda": grid.cell_text(board.panda),
    }
