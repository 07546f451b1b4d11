"""Shared evaluation and planning estimates: how good a position is for one seat.

Idea: a seat's prospects are the points it has scored plus, for each objective in its hand,
the card's points discounted by how many actions it still needs.  ``evaluate`` is that
number; ``card_cost`` is the "actions still needed" estimate behind it, which the planner
(``bots.objective``) also uses to pick a target and which a search bot can use at its leaves.

The evaluation of seat ``s`` (``evaluate(board, s)``)::

    SCORE_WEIGHT * (score(s) + race * cards completed)   points now, the Emperor included
  + Σ over cards in s's hand: (points(card) + race) * DECAY ** cost(card) * late(cost)
  + CHANNEL_VALUE * stored channels + IMPROVEMENT_VALUE * stored improvements
  + SPARE_SECTION_VALUE * eaten sections no panda card in hand asks for (capped)

``SCORE_WEIGHT`` > 1, so completing a satisfied card (cost 0, worth ``points``) always raises
the value: completion is free points and every bot built on this evaluation takes it.
``race`` (``Weights.race``, 0 unless a bot asks) is what a card is worth beyond its points:
each one completed brings the Emperor (R13.1) a step closer, and the seat that takes it wins
most 2-player games (86% of 1,061 recorded ``mcts``-``objective`` games).
``DECAY ** cost`` is convex, so finishing one card is worth more than spreading the same
work over several.  ``late`` drops cards that cannot be finished in the turns left once
somebody holds the Emperor (R13.2).

``cost(card)`` estimates the actions still needed (0 when the card's condition holds now):

- panda (R10.6): per colour, the sections the card asks for that the stock does not hold
  (the stock is shared out among the hand's panda cards, nearest first), one panda action
  each while enough unfenced bamboo of that colour is on the board, two (grow, then eat)
  for each one beyond; half an action more when no such bamboo is one panda move away.
- gardener, one shoot (R10.4): the cheapest plot of the colour that meets (or can take) the
  improvement condition: growths to reach 4 (halved on fertilizer), plus irrigation if the
  plot is dry, plus getting the improvement (a stored token: nearly free; the clouds: two
  actions' worth); with no such plot, a new plot's cost.
- gardener, several shoots (R10.5): the same per plot towards exactly 3 (a fertilized plot
  may need to overshoot to 4 and be eaten back), the cheapest ``n`` plots summed, missing
  plots at a new plot's cost.
- plot (R10.3): over every placement of every rotation of the pattern that uses at least one
  plot already in play: 0 per cell on an irrigated plot of the right colour, the irrigation
  cost on a dry one, a plot action (dearer for rarer colours) plus irrigation for an empty
  space (more if it cannot be placed yet); a plot of the wrong colour rules the placement out.
  The cheapest placement wins.  This is the slow part: the placements are found with bit
  sets (per colour, the cells a pattern cell must not meet and the plots it may use, shifted
  by the cell's offset), and the costs are cached per board layout, found by the identity
  of the ``tiles``, ``irrigated``, ``channels`` and ``improvement`` objects (the engine
  replaces them rather than mutates them) and else by their content (a search makes the
  same layout again in new objects: the same plot placed after another first action or in
  another sample).  Layouts that differ only in improvements share their plot costs.

Limits: the costs are estimates, not plans: they ignore that two cards may compete for
the same bamboo (except panda cards, which share the stock), that the gardener must reach a
plot in a straight line, and which plots the deck still holds; weights were tuned by
matches of the bots that use them, not derived.

Honesty: given a ``PlayerView``, only public information and the viewer's own hand are read;
another seat's hand counts as ``UNKNOWN_CARD_VALUE`` per card.  Given a ``GameState`` (say a
determinization), ``evaluate(state, s)`` reads ``s``'s hand only: call it for the searching
seat, or for a sampled opponent in a determinized state, never on the true game state for a
seat that is not yours.

API (stable; ``board`` is a ``GameState`` or a ``PlayerView``):

- ``evaluate(board, seat, weights=DEFAULT_WEIGHTS, horizon=None) -> float``; and
  ``evaluate_all(board, weights) -> list[float]``, one value per seat.
- ``card_cost(board, seat, card) -> float`` and ``card_costs(board, seat, hand=None)
  -> dict[int, float]``: the estimated actions still needed.
- ``card_value(points, cost, decay=DECAY, horizon=99) -> float``: a card's worth in hand.
- ``draw_value(board, seat, category, decay=DECAY, race=0) -> float``: the expected worth of the
  next card of a deck for ``seat``.
- ``expected_hand_value(board, seat, pools, decay=DECAY, race=0) -> float``: what another seat's
  hidden hand is expected to be worth (for denial, or for an opponent's leaf value).
- ``score``, ``own_hand``, ``known_hand``, ``actions_horizon``, ``unseen_for``, ``Weights``.
- ``Snapshot(board)``: ``evaluate(seat, weights, horizon) -> (value, costs)``, ``costs``,
  ``card_cost`` and ``expected_hand_value`` on one board read once; ``layout_token(board)``:
  an object standing for the board's layout (equal layouts, the same object), for a bot's
  own memory.

``Snapshot`` answers several questions about one board for the price of one layout look-up
(a planner's value: its evaluation, a target's cost, each rival's hand).  What an evaluation
costs, cached and not: ``scripts/bench_heuristics.py``, and its figures in
docs/experiments.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from arena.engine import (
    STATE_TYPES,
    STEP_ACTIONS,
    STEP_PLACE,
    STEP_REDRAW,
    VIEW_TYPES,
    Board,
)
from arena.engine.components import (
    ENCLOSURE,
    FACE_SUN,
    FERTILIZER,
    GARDENER_CARD,
    PANDA_CARD,
    PLOT_CARD,
    POND_TILE,
    PRINTED_CARDS,
    Card,
)
from arena.engine.grid import CELL_EDGES, EDGE_CELLS, EDGE_ENDS, POND, POND_RING, RAYS

#: Weight of a point already scored, against a point still in hand (must stay above 1).
SCORE_WEIGHT = 1.5
#: A card worth ``p`` that needs ``k`` more actions counts ``p * DECAY ** k``.  Tuned by
#: matches: greedy with 0.5 beat greedy with 0.72 in 59.5% of 200 games, and the objective
#: planner won about 70% against greedy with 0.5 where 0.72 gave 55% and 0.82 gave 40%: a
#: steep discount finishes cards instead of collecting them.
DECAY = 0.5
#: A stored channel or improvement saves an action later.
CHANNEL_VALUE = 0.35
IMPROVEMENT_VALUE = 0.3
#: Eaten sections not claimed by a card in hand: raw material for a future panda card.
SPARE_SECTION_VALUE = 0.12
SPARE_SECTION_CAP = 4
#: What an unknown card in another seat's hand is worth on average (views only).
UNKNOWN_CARD_VALUE = 1.2
#: An action on a plot of a colour: plots of rarer colours are harder to draw (11/9/7 plots).
PLOT_ACTION_COST = (1.0, 1.2, 1.5)
#: Irrigating a dry plot: one channel when one can go on its edges now, else more.
IRRIGATION_NEAR = 1.0
IRRIGATION_FAR = 2.0
#: An empty space that cannot take a plot yet needs another plot first.
NOT_PLACEABLE_YET = 1.0
#: Getting an improvement onto a bare plot: from the own stock, or through the weather.
IMPROVEMENT_FROM_STOCK = 0.3
IMPROVEMENT_FROM_CLOUDS = 2.0
#: Cards needing more than this many actions are worth next to nothing once the
#: Emperor is taken (the last turn has 2 or 3 actions).
LATE_FACTOR = 0.05
#: Beyond this, a cost is "never": the card is worth nothing.
UNREACHABLE = 30.0


class Weights(NamedTuple):
    """The evaluation's weights, for bots that want to tune them (defaults above).

    ``race`` is the only one off by default: it changes what a card is worth, not how a
    position is read, so a bot opts in (``objective``'s ``race`` parameter).
    """

    score: float = SCORE_WEIGHT
    decay: float = DECAY
    channel: float = CHANNEL_VALUE
    improvement: float = IMPROVEMENT_VALUE
    spare_section: float = SPARE_SECTION_VALUE
    race: float = 0.0


DEFAULT_WEIGHTS = Weights()

# ----------------------------------------------------------------- static board summary


class _Layout:
    """What the heuristics need from a board layout, computed once per layout.

    A layout is the tiles, irrigation, channels and improvements: they change only when a
    plot, a channel or an improvement is placed, and the engine then swaps in new objects.
    Two caches find it: by the identities of those four objects (the entry keeps them
    alive so their ids cannot be reused while it is cached), and, on a miss, by their
    content, since a search makes the same layout again and again in other objects (the
    same plot placed in another sample, or after other first actions).
    """

    __slots__ = ("by_colour", "near", "plots", "unfenced")

    def __init__(self, board: Board, plots: _PlotLayout) -> None:
        improvement = board.improvement
        by_colour: list[list[tuple[int, int, bool, float]]] = [[], [], []]
        unfenced: list[list[int]] = [[], [], []]
        dry = plots.dry
        irrigated = board.irrigated
        for cell, code in board.tiles.items():
            if code == POND_TILE:
                continue
            colour = code >> 2
            imp = improvement.get(cell, 0)
            by_colour[colour].append((cell, imp, cell in irrigated, dry[cell]))
            if imp != ENCLOSURE:
                unfenced[colour].append(cell)
        self.by_colour = by_colour
        self.unfenced = unfenced
        self.plots = plots
        #: Per panda cell: the unfenced plots of each colour one panda move away.
        self.near: dict[int, tuple[list[int], list[int], list[int]]] = {}


class _PlotLayout:
    """The part of a layout that plot cards read: tiles, irrigation and channels only (an
    improvement placed elsewhere leaves every pattern's cost as it was)."""

    __slots__ = ("cells", "dry", "empty_extra", "masks", "plot_costs", "spaces")

    def __init__(self, board: Board) -> None:
        irrigated = board.irrigated
        cells: list[list[int]] = [[], [], []]
        dry: dict[int, float] = {}
        masks = [0, 0, 0]
        for cell, code in board.tiles.items():
            if code == POND_TILE:
                continue
            colour = code >> 2
            cells[colour].append(cell)
            masks[colour] |= 1 << cell
            dry[cell] = 0.0 if cell in irrigated else _irrigation_cost(board, cell)
        self.cells = cells
        #: Per colour, the cells that a pattern cell of that colour must not meet (the pond
        #: and the plots of the other colours), and the plots of that colour, as bit sets.
        pond = 1 << POND
        self.masks = tuple(
            (pond | (masks[0] | masks[1] | masks[2]) & ~masks[colour], masks[colour])
            for colour in (0, 1, 2)
        )
        #: Per plot: irrigating it (0 once irrigated).
        self.dry = dry
        #: Per plot card (its index, or the card itself if a set adds it).
        self.plot_costs: dict[int | Card, float] = {}
        #: Per empty cell met by a pattern: irrigation and "not placeable yet" costs.
        self.empty_extra: dict[int, float] = {}
        self.spaces: frozenset[int] | None = None


#: Layouts by the identities of (tiles, irrigated, channels, improvement): the entry holds
#: those four objects, then the layout.
_LAYOUTS: dict[tuple[int, int, int, int], tuple[Any, Any, Any, Any, _Layout]] = {}
#: Layouts, and their plot parts, by content.
_BY_CONTENT: dict[tuple[Any, ...], _Layout] = {}
_PLOTS_BY_CONTENT: dict[tuple[Any, ...], _PlotLayout] = {}
_LAYOUT_LIMIT = 4000


def _layout(board: Board) -> _Layout:
    tiles, irrigated, channels, improvement = (
        board.tiles, board.irrigated, board.channels, board.improvement,
    )  # fmt: skip
    key = (id(tiles), id(irrigated), id(channels), id(improvement))
    entry = _LAYOUTS.get(key)
    if entry is not None and (
        entry[0] is tiles and entry[1] is irrigated and entry[2] is channels
        and entry[3] is improvement
    ):
        return entry[4]
    if len(_LAYOUTS) >= _LAYOUT_LIMIT:
        _LAYOUTS.clear()
    plot_key = (frozenset(tiles.items()), irrigated, channels)
    content = (plot_key, frozenset(improvement.items()))
    layout = _BY_CONTENT.get(content)
    if layout is None:
        plots = _PLOTS_BY_CONTENT.get(plot_key)
        if plots is None:
            if len(_PLOTS_BY_CONTENT) >= _LAYOUT_LIMIT:
                _PLOTS_BY_CONTENT.clear()
            plots = _PLOTS_BY_CONTENT[plot_key] = _PlotLayout(board)
        if len(_BY_CONTENT) >= _LAYOUT_LIMIT:
            _BY_CONTENT.clear()
        layout = _BY_CONTENT[content] = _Layout(board, plots)
    _LAYOUTS[key] = (tiles, irrigated, channels, improvement, layout)
    return layout


def layout_token(board: Board) -> object:
    """An object that stands for the board's layout (tiles, irrigation, channels,
    improvements): boards with the same layout give the same object while it is cached, so
    a bot can key its own memory by it (holding it keeps the token from being reused)."""
    return _layout(board)


def _clear_caches() -> None:
    """Forget every cached layout (tests: a cold start must give the same values)."""
    _LAYOUTS.clear()
    _BY_CONTENT.clear()
    _PLOTS_BY_CONTENT.clear()


# ----------------------------------------------------------------- per-card costs


def _plot_card_cost(board: Board, layout: _Layout, card: int) -> float:
    """Actions to lay out a plot card's pattern (see the module docstring)."""
    plots = layout.plots
    c = board.card_set.cards[card]
    # A layout is shared by the boards of every game with its content; a card a set adds is
    # its own key there, as another set gives its index another card.
    key: int | Card = card if card < PRINTED_CARDS else c
    cost = plots.plot_costs.get(key)
    if cost is not None:
        return cost
    if board.plot_objective_found(card):
        plots.plot_costs[key] = 0.0
        return 0.0
    spaces = plots.spaces
    if spaces is None:
        spaces = plots.spaces = frozenset(board.placement_spaces())
    dry, extra = plots.dry, plots.empty_extra
    masks = plots.masks
    rotations = c.shifts
    # A placement on empty spaces only: the fallback (the pond ring always has room early).
    best = sum(PLOT_ACTION_COST[c] + IRRIGATION_NEAR for _s, c in rotations[0])
    for rotation in rotations:
        # Anchors where the pattern uses a plot of its colour and meets no other colour
        # and not the pond (bit ``a`` of ``mask >> shift`` is cell ``a + shift``).
        touching = spoiled = 0
        for shift, colour in rotation:
            bad, good = masks[colour]
            spoiled |= bad >> shift
            touching |= good >> shift
        anchors = touching & ~spoiled
        while anchors:
            low = anchors & -anchors
            anchors ^= low
            anchor = low.bit_length() - 1
            total = 0.0
            for shift, colour in rotation:
                cell = anchor + shift
                d = dry.get(cell)
                if d is not None:
                    total += d  # a plot of the colour: 0.0 when irrigated
                else:
                    more = extra.get(cell)
                    if more is None:
                        more = 0.0 if cell in POND_RING else _irrigation_cost(board, cell)
                        if cell not in spaces:
                            more += NOT_PLACEABLE_YET
                        extra[cell] = more
                    total += PLOT_ACTION_COST[colour] + more
            if total < best:
                best = total
    plots.plot_costs[key] = best
    return best


def _irrigation_cost(board: Board, cell: int) -> float:
    """Channels to irrigate a plot (or a plot to come) at ``cell``: near when one of its
    edges could take a channel joined to the network, else far."""
    tiles, network = board.tiles, board.network
    for edge in CELL_EDGES[cell]:
        a, b = EDGE_CELLS[edge]
        other = b if a == cell else a
        code = tiles.get(other)
        if code is None or code == POND_TILE or edge in board.channels:
            continue
        ends = EDGE_ENDS[edge]
        if ends[0] in network or ends[1] in network:
            return IRRIGATION_NEAR
    return IRRIGATION_FAR


def _grow_steps(height: int, target: int, fertilized: bool) -> float:
    """Growths (or eats) to bring an irrigated bamboo from ``height`` to exactly ``target``."""
    if height == target:
        return 0.0
    if height > target:
        return float(height - target)  # the panda eats it back
    gap = target - height
    if not fertilized:
        return float(gap)
    if gap % 2 == 0:
        return gap / 2
    if target == 4:
        return (gap + 1) / 2  # the last growth is capped at 4
    return (gap + 1) / 2 + 1.0  # overshoot to 4, then eat one


#: ``_grow_steps`` as a table: ``_GROW[target][fertilized][height]``.
_GROW: tuple[tuple[tuple[float, ...], ...], ...] = tuple(
    tuple(tuple(_grow_steps(h, t, f) for h in range(5)) for f in (False, True))
    for t in range(5)
)


def _new_plot_cost(colour: int, target: int) -> float:
    """A plot not in play yet: draw and place it, irrigate it, grow it."""
    return PLOT_ACTION_COST[colour] + 0.5 + (target - 1)


def _gardener_cost(
    board: Board, layout: _Layout, card: int, stored: tuple[int, int, int, int]
) -> float:
    c = board.card_set.cards[card]
    colour, target, need = c.colour, c.height, c.improvement
    bamboo = board.bamboo
    reserve = board.reserve_improvements
    grow = _GROW[target]
    if c.shoots == 1:
        best = UNREACHABLE
        for cell, imp, wet, dry_cost in layout.by_colour[colour]:
            extra = 0.0
            if need > 0 and imp != need:
                if imp or bamboo[cell]:
                    continue
                if stored[need]:
                    extra = IMPROVEMENT_FROM_STOCK
                elif reserve[need]:
                    extra = IMPROVEMENT_FROM_CLOUDS
                else:
                    continue
                imp = need
            elif need == 0 and imp:
                continue
            fert = imp == FERTILIZER
            if wet:
                cost = extra + grow[fert][bamboo[cell]]
            elif imp == 1:  # a watershed irrigates at once, with a first growth
                cost = extra + grow[fert][2 if fert else 1]
            else:
                cost = extra + dry_cost + grow[fert][2 if fert else 1]
            if cost < best:
                best = cost
                if cost == 0.0:
                    break
        fresh = _new_plot_cost(colour, target)
        if need > 0:
            # A plot with the improvement printed may be drawn, or a bare one improved.
            fresh += IMPROVEMENT_FROM_STOCK if stored[need] else IMPROVEMENT_FROM_CLOUDS
        return min(best, fresh)
    costs = []
    for cell, imp, wet, dry_cost in layout.by_colour[colour]:
        fert = imp == FERTILIZER
        if wet:
            costs.append(grow[fert][bamboo[cell]])
        else:
            first = 2 if fert else 1
            costs.append((0.0 if imp == 1 else dry_cost) + grow[fert][first])
    costs.sort()
    n = c.shoots
    total = sum(costs[:n])
    if len(costs) < n:
        total += (n - len(costs)) * _new_plot_cost(colour, target)
    return total


def _bamboo_for_panda(board: Board, layout: _Layout) -> tuple[list[int], list[bool]]:
    """Per colour: unfenced sections on the board, and whether one is a panda move away."""
    get = board.bamboo.__getitem__
    near = layout.near.get(board.panda)
    if near is None:
        near = layout.near[board.panda] = _near_unfenced(board, layout)
    unfenced = layout.unfenced
    avail = [sum(map(get, unfenced[0])), sum(map(get, unfenced[1])), sum(map(get, unfenced[2]))]
    reach = [any(map(get, near[0])), any(map(get, near[1])), any(map(get, near[2]))]
    return avail, reach


def _near_unfenced(board: Board, layout: _Layout) -> tuple[list[int], list[int], list[int]]:
    """The unfenced plots of each colour where the panda can go from where it stands."""
    reachable = set()
    tiles = board.tiles
    for ray in RAYS[board.panda]:
        for cell in ray:
            if cell not in tiles:
                break
            reachable.add(cell)
    unfenced = layout.unfenced
    return (
        [c for c in unfenced[0] if c in reachable],
        [c for c in unfenced[1] if c in reachable],
        [c for c in unfenced[2] if c in reachable],
    )


def _panda_costs(
    bamboo: tuple[list[int], list[bool]], cards: Sequence[int], stock: tuple[int, int, int],
    table: Sequence[Card],
) -> tuple[dict[int, float], int]:
    """Costs of the hand's panda cards, sharing the stock out nearest card first.

    ``bamboo`` is ``_bamboo_for_panda``'s answer (not changed here); ``table`` is the game's
    cards (``board.card_set.cards``).  Also returns how many
    eaten sections no card claims (spare).
    """
    avail, reach = list(bamboo[0]), bamboo[1]
    left = list(stock)
    if len(cards) > 1:
        s0, s1, s2 = stock
        missing = []
        for card in cards:
            n0, n1, n2 = table[card].eat
            missing.append(
                (n0 - s0 if n0 > s0 else 0) + (n1 - s1 if n1 > s1 else 0)
                + (n2 - s2 if n2 > s2 else 0)
            )
        order = [cards[i] for i in sorted(range(len(cards)), key=missing.__getitem__)]
    else:
        order = list(cards)
    out: dict[int, float] = {}
    for card in order:
        need = table[card].eat
        cost = 0.0
        for k in (0, 1, 2):
            asked = need[k]
            if not asked:
                continue
            have = left[k]
            if asked < have:
                have = asked
            left[k] -= have
            short = asked - have
            if short:
                on_board = avail[k]
                if short < on_board:
                    on_board = short
                avail[k] -= on_board
                cost += on_board + 2.0 * (short - on_board)
                if not reach[k]:
                    cost += 0.5
        out[card] = cost
    return out, left[0] + left[1] + left[2]


class Snapshot:
    """One board read for several questions, as a planner's value asks them (its own
    evaluation, a target card's cost, each rival's expected hand): the layout and the
    bamboo within the panda's reach are looked up once.  Valid while the board is unchanged;
    the module's functions each make one for their single question.
    """

    __slots__ = ("_panda", "_pools", "board", "layout")

    def __init__(self, board: Board, layout: object | None = None) -> None:
        self.board = board
        #: ``layout_token(board)``, when the caller has it already.
        self.layout: _Layout = layout if isinstance(layout, _Layout) else _layout(board)
        self._panda: tuple[list[int], list[bool]] | None = None
        #: ``expected_hand_value``'s sums over a pool, by what they read of the seat.
        self._pools: dict[tuple[Any, ...], tuple[Sequence[int], float]] = {}

    def panda_bamboo(self) -> tuple[list[int], list[bool]]:
        """``_bamboo_for_panda`` of the board, worked out once (callers do not change it)."""
        found = self._panda
        if found is None:
            found = self._panda = _bamboo_for_panda(self.board, self.layout)
        return found

    def costs(self, seat: int, hand: Sequence[int]) -> tuple[dict[int, float], int]:
        """Per card of ``hand``: the actions it still needs; and the spare sections."""
        board, layout = self.board, self.layout
        out: dict[int, float] = {}
        pandas = []
        stored = board.stored_improvements[seat]  # type: ignore[attr-defined]
        category_of = board.card_set.categories
        for card in hand:
            category = category_of[card]
            if category == PANDA_CARD:
                pandas.append(card)
            elif category == GARDENER_CARD:
                out[card] = (
                    0.0 if board.gardener_objective_found(card)
                    else _gardener_cost(board, layout, card, stored)
                )
            else:
                out[card] = _plot_card_cost(board, layout, card)
        stock = board.eaten[seat]
        spare = stock[0] + stock[1] + stock[2]
        if pandas:
            panda, spare = _panda_costs(self.panda_bamboo(), pandas, stock,
                                        board.card_set.cards)
            out.update(panda)
        return out, spare

    def card_cost(self, seat: int, card: int) -> float:
        """As ``card_cost``."""
        return self.costs(seat, (card,))[0][card]

    def evaluate(
        self, seat: int, weights: Weights = DEFAULT_WEIGHTS, horizon: int | None = None
    ) -> tuple[float, dict[int, float]]:
        """``evaluate``, and the costs of the hand's cards it read (empty for a hand it
        cannot see)."""
        board = self.board
        w_score, decay, w_channel, w_improvement, w_spare, race = weights
        total = w_score * board.score(seat)
        if race:
            total += w_score * race * len(board.completed[seat])  # type: ignore[attr-defined]
        hand = known_hand(board, seat)
        costs: dict[int, float] = {}
        if hand is None:
            total += UNKNOWN_CARD_VALUE * len(board.hand_categories[seat])  # type: ignore[attr-defined]
        else:
            costs, spare = self.costs(seat, hand)
            if horizon is None:
                horizon = actions_horizon(board, seat) if board.emperor >= 0 else 99  # type: ignore[attr-defined]
            points = board.card_points  # type: ignore[attr-defined]
            for card, cost in costs.items():
                if cost < UNREACHABLE:
                    value = (points[card] + race) * decay**cost
                    if cost > horizon:
                        value *= LATE_FACTOR
                    total += value
            total += w_spare * min(spare, SPARE_SECTION_CAP)
        stored = board.stored_improvements[seat]  # type: ignore[attr-defined]
        total += w_channel * board.stored_channels[seat]  # type: ignore[attr-defined]
        total += w_improvement * (stored[1] + stored[2] + stored[3])
        return total, costs

    def expected_hand_value(
        self, seat: int, pools: Sequence[Sequence[int]], decay: float = DECAY, race: float = 0.0
    ) -> float:
        """As ``expected_hand_value``."""
        board = self.board
        if isinstance(board, STATE_TYPES):
            category_of = board.card_set.categories
            categories = [category_of[c] for c in board.hands[seat]]
        else:
            categories = list(board.hand_categories[seat])  # type: ignore[attr-defined]
        if not categories:
            return 0.0
        stored = board.stored_improvements[seat]  # type: ignore[attr-defined]
        stock = board.eaten[seat]  # type: ignore[attr-defined]
        total = 0.0
        for category in (PLOT_CARD, GARDENER_CARD, PANDA_CARD):
            n = categories.count(category)
            pool = pools[category]
            if not n or not pool:
                continue
            # Seats with the same stock (panda cards) or the same improvements in store
            # (gardener cards) have the same sum over a pool: worked out once per board.
            if category == PANDA_CARD:
                key: tuple[Any, ...] = (category, id(pool), decay, race, stock)
            elif category == GARDENER_CARD:
                key = (category, id(pool), decay, race, stored[1] > 0, stored[2] > 0,
                       stored[3] > 0)
            else:
                key = (category, id(pool), decay, race)
            entry = self._pools.get(key)
            if entry is not None and entry[0] is pool:
                values = entry[1]
            else:
                values = self._pool_sum(category, pool, decay, race, seat)
                self._pools[key] = (pool, values)  # the pool kept: its id stays its own
            total += n * values / len(pool)
        return total

    def _pool_sum(
        self, category: int, pool: Sequence[int], decay: float, race: float, seat: int
    ) -> float:
        """Σ over ``pool`` of each card's worth to ``seat`` (``expected_hand_value``)."""
        board, layout = self.board, self.layout
        stored = board.stored_improvements[seat]  # type: ignore[attr-defined]
        stock = board.eaten[seat]  # type: ignore[attr-defined]
        points = board.card_points  # type: ignore[attr-defined]
        values = 0.0
        if category == PANDA_CARD:
            avail, reach = self.panda_bamboo()
            # Cards asking for the same sections cost the same: one discount per ask.
            discounts: dict[tuple[int, int, int], float] = {}
            table = board.card_set.cards
            for card in pool:
                need = table[card].eat
                discount = discounts.get(need)
                if discount is None:
                    cost = 0.0
                    for k in (0, 1, 2):
                        short = need[k] - stock[k]
                        if short > 0:
                            on_board = short if short <= avail[k] else avail[k]
                            cost += (
                                on_board + 2.0 * (short - on_board)
                                + (0.0 if reach[k] else 0.5)
                            )
                    discount = discounts[need] = decay**cost
                values += (points[card] + race) * discount
        elif category == GARDENER_CARD:
            for card in pool:
                if board.gardener_objective_found(card):
                    values += points[card] + race
                else:
                    cost = _gardener_cost(board, layout, card, stored)
                    if cost < UNREACHABLE:
                        values += (points[card] + race) * decay**cost
        else:
            for card in pool:
                cost = _plot_card_cost(board, layout, card)
                values += (points[card] + race) * decay**cost
        return values


def card_costs(board: Board, seat: int, hand: Sequence[int] | None = None) -> dict[int, float]:
    """Estimated actions still needed by each card of ``hand`` (default: the seat's own)."""
    if hand is None:
        hand = own_hand(board, seat)
    return Snapshot(board).costs(seat, hand)[0]


def card_cost(board: Board, seat: int, card: int) -> float:
    """Estimated actions ``seat`` still needs to complete ``card`` (0 when it holds now).

    For a panda card the seat's whole stock is available to it (no sharing with the hand).
    """
    return Snapshot(board).costs(seat, (card,))[0][card]


def _costs(board: Board, seat: int, hand: Sequence[int]) -> tuple[dict[int, float], int]:
    return Snapshot(board).costs(seat, hand)


# ----------------------------------------------------------------- the evaluation


def own_hand(board: Board, seat: int) -> tuple[int, ...]:
    """The objectives of ``seat`` that ``board`` shows: a state's hand, or a view's own.

    Empty when ``board`` is a view of another seat (use ``known_hand`` to tell apart).
    """
    hand = known_hand(board, seat)
    return () if hand is None else hand


def known_hand(board: Board, seat: int) -> tuple[int, ...] | None:
    """The hand of ``seat`` if ``board`` may show it, else None (a view of another seat)."""
    if isinstance(board, STATE_TYPES):
        return board.hands[seat]
    if isinstance(board, VIEW_TYPES) and board.seat == seat:
        return board.hand
    return None


def actions_horizon(board: Board, seat: int) -> int:
    """Actions ``seat`` can still take when the game is about to end, else a large number.

    Once a seat holds the Emperor (R13.2), every other seat has one turn left (two actions,
    three with the sun) and the Emperor's holder only the rest of its own turn.
    """
    emperor = board.emperor  # type: ignore[attr-defined]
    if emperor < 0:
        return 99
    current = board.current  # type: ignore[attr-defined]
    if current == seat:
        if board.step in (STEP_ACTIONS, STEP_PLACE, STEP_REDRAW):  # type: ignore[attr-defined]
            taken = len(board.taken)  # type: ignore[attr-defined]
            return max(0, (3 if board.weather == FACE_SUN else 2) - taken)  # type: ignore[attr-defined]
        return 3  # the weather comes first: the sun may still give a third action
    if seat == emperor:
        return 0
    # Seats after the current one in turn order, before the game ends, still play.
    left = board.last_turns  # type: ignore[attr-defined]
    players = board.players  # type: ignore[attr-defined]
    k, s = 0, current
    while k < left:
        s = (s + 1) % players
        if s == emperor:
            continue
        k += 1
        if s == seat:
            return 2
    return 0


def card_value(points: int, cost: float, decay: float = DECAY, horizon: int = 99) -> float:
    """What a card in hand is worth now: its points discounted by the actions it needs."""
    if cost >= UNREACHABLE:
        return 0.0
    value = points * decay**cost
    if cost > horizon:
        value *= LATE_FACTOR
    return value


def evaluate(
    board: Board, seat: int, weights: Weights = DEFAULT_WEIGHTS, horizon: int | None = None
) -> float:
    """The value of ``board`` (a ``GameState`` or a ``PlayerView``) for ``seat``.

    Higher is better; the scale is roughly points.  See the module docstring for the terms.
    ``horizon`` overrides ``actions_horizon`` (a planner that expects the game to end soon
    can say so before anyone holds the Emperor).
    """
    return Snapshot(board).evaluate(seat, weights, horizon)[0]


def evaluate_all(board: Board, weights: Weights = DEFAULT_WEIGHTS) -> list[float]:
    """``evaluate`` for every seat (for a search bot's leaves on a determinized state)."""
    return [evaluate(board, s, weights) for s in range(board.players)]  # type: ignore[attr-defined]


def expected_hand_value(
    board: Board,
    seat: int,
    pools: Sequence[Sequence[int]],
    decay: float = DECAY,
    race: float = 0.0,
) -> float:
    """What another seat's hidden hand is expected to be worth on this board.

    Each card ``seat`` holds is, for an observer, any of the cards of its category the
    observer has not seen (``pools[category]``, e.g. ``view.unseen_cards(k)``), equally
    likely; its worth is the mean of ``card_value`` over them, with ``seat``'s own stock
    and stored improvements.  Only categories (public) and public stocks are read, so it is
    honest on a view or a determinized state alike.  A planner subtracts it to value
    denial: eating a tall shoot or spoiling a pattern lowers it.
    """
    return Snapshot(board).expected_hand_value(seat, pools, decay, race)


def unseen_for(board: Board, seat: int, category: int) -> list[int]:
    """Cards of a category ``seat`` could draw, from what it may know."""
    if isinstance(board, VIEW_TYPES) and board.seat == seat:
        return board.unseen_cards(category)
    seen = {c for done in board.completed for c in done}  # type: ignore[attr-defined]
    seen.update(own_hand(board, seat))
    return [c for c in board.card_set.decks[category] if c not in seen]


def draw_value(
    board: Board, seat: int, category: int, decay: float = DECAY, race: float = 0.0
) -> float:
    """Expected value (as in ``evaluate``) of one card drawn from a category's deck."""
    pool = unseen_for(board, seat, category)
    if not pool:
        return 0.0
    hand = own_hand(board, seat)
    if category == PANDA_CARD:
        # Panda cards share the stock: value each candidate beside the hand's panda cards.
        category_of = board.card_set.categories
        pandas = tuple(c for c in hand if category_of[c] == PANDA_CARD)
        bamboo = Snapshot(board).panda_bamboo()
        stock = board.eaten[seat]  # type: ignore[attr-defined]
        total = 0.0
        for card in pool:
            costs, _ = _panda_costs(bamboo, (*pandas, card), stock, board.card_set.cards)
            total += card_value(board.card_points[card] + race, costs[card], decay)
        return total / len(pool)
    costs, _ = _costs(board, seat, pool)
    points = board.card_points
    return sum(card_value(points[c] + race, costs[c], decay) for c in pool) / len(pool)

