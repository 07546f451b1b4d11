"""The leaves of ``mcts``: what its search asks of a sampled state it stops at.

A leaf evaluation is an object (as OpenSpiel's IS-MCTS takes an ``evaluator``): the search in
``bots.mcts_search`` holds the nodes and the selection, and calls a :class:`Leaf` for the
per-seat values of the states it reaches.  The values are win chances in [0, 1], one per seat,
so that every node can be judged by the seat to move there (max^n with 3-4 players).

The leaves (``eval=``): ``deny`` (the 3-4 player default) and ``fitted`` (the 2-player one)
are built on ``bots.heuristics.evaluate``, the measure the ``objective`` bot plans with, and
judge the searching seat against its rivals as reckoned from public information only, so
that its values do not swing with the hands a sample deals the opponents.  ``progress`` (this
module's own cheaper measure: points plus each card's points times ``0.6 ** steps``, against
the public estimate of the others), ``sampled`` (``progress`` read from sampled hands),
``heuristics-public`` and ``score`` (points only, a baseline) are kept as baselines for
screens; how each fared is in ``docs/experiments.md``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from arena.engine import STEP_ACTIONS, GameState, PlayerView
from arena.engine.components import (
    CARD_CATEGORY,
    CARDS,
    ENCLOSURE,
    FERTILIZER,
    GARDENER_CARD,
    PANDA_CARD,
    PLOT_CARD,
    WATERSHED,
)
from arena.engine.grid import POND
from arena.engine.objectives import PLOT_SHIFTS

from . import heuristics

# ------------------------------------------------------------------------- card tables

#: Per card: the colour a gardener card grows, else -1.
GARDEN_COLOUR: tuple[int, ...] = tuple(
    c.colour if c.category == GARDENER_CARD else -1 for c in CARDS
)
#: Per card: the sections a panda card needs, else None.
PANDA_NEED: tuple[tuple[int, int, int] | None, ...] = tuple(
    c.eat if c.category == PANDA_CARD else None for c in CARDS
)


# ------------------------------------------------------------------------- evaluation

#: Leaf values: per missing step an objective in hand is worth this much less.
STEP_DISCOUNT = 0.6
#: After the Emperor is taken only a turn or so is left: hands are worth much less.
LATE_DISCOUNT = 0.25
#: Points per action left in the turn of the seat to move (so that a leaf in the middle of
#: a turn is not worse than one after it).
TEMPO = 0.35
#: Logistic scale (points) from a lead over the best opponent to a win chance.
TEMPERATURE = 3.0
#: A card in another seat's hand, valued from public information only.
HAND_CARD = 1.0
#: An eaten section in a stock, valued from public information only (up to six).
STOCK_SECTION = 0.25
#: Steps an objective with no usable plot, shoot or pattern start is reckoned to need.
FAR = 5.0

_plot_cache: dict[tuple[tuple[int, int, int], int], float] = {}


def plot_steps(irrigated_by_colour: tuple[int, int, int], card: int) -> float:
    """Actions a plot card still needs: about 1.5 per pattern cell that is not there (R10.3).

    A cell may be missing if nothing blocks it (an irrigated plot of another colour, or the
    pond); with bit sets over the board this is a few big-int operations per rotation, and
    the answer depends only on the irrigated plots, so it is cached across searches.
    """
    key = (irrigated_by_colour, card)
    steps = _plot_cache.get(key)
    if steps is not None:
        return steps
    blocked = irrigated_by_colour[0] | irrigated_by_colour[1] | irrigated_by_colour[2]
    blocked |= 1 << POND
    best = 3
    for rotation in PLOT_SHIFTS[card]:
        ok = [irrigated_by_colour[colour] >> shift for shift, colour in rotation]
        free = [
            (irrigated_by_colour[colour] >> shift) | ~(blocked >> shift)
            for shift, colour in rotation
        ]
        n = len(ok)
        full = -1
        for m in ok:
            full &= m
        if full:
            best = 0
            break
        if best <= 1:
            continue
        for j in range(n):
            m = free[j]
            for i in range(n):
                if i != j:
                    m &= ok[i]
            if m:
                best = 1
                break
        if best <= 2:
            continue
        for j in range(n):
            for k in range(j + 1, n):
                m = free[j] & free[k]
                for i in range(n):
                    if i != j and i != k:
                        m &= ok[i]
                if m:
                    best = 2
                    break
            if best == 2:
                break
    steps = 1.5 * best if best < 3 else FAR
    if len(_plot_cache) > 200_000:
        _plot_cache.clear()
    _plot_cache[key] = steps
    return steps


def _plots_by_colour(s: GameState) -> list[list[tuple[int, int, bool]]]:
    """Per colour, ``(height, improvement, irrigated)`` of every plot in play."""
    out: list[list[tuple[int, int, bool]]] = [[], [], []]
    tiles, improvement, irrigated = s.tiles, s.improvement, s.irrigated
    for cell, h in s.bamboo.items():
        out[tiles[cell] >> 2].append((h, improvement.get(cell, 0), cell in irrigated))
    return out


def gardener_steps(card: int, plots: list[tuple[int, int, bool]]) -> float:
    """Actions a gardener card still needs (R10.4, R10.5), from the plots of its colour."""
    c = CARDS[card]
    if c.shoots == 1:
        want = c.improvement
        best = FAR
        for h, imp, irr in plots:
            if imp != want:
                continue
            grow = 2 if imp == FERTILIZER else 1
            if not irr:
                # Irrigating it is one action and one growth.
                h = min(4, h + grow)
                steps = 1.0
            else:
                steps = 0.0
            steps += -(-(4 - h) // grow)
            if steps < best:
                best = steps
        if best >= FAR and want:
            # A plot without bamboo can still take the improvement: one more step.
            for h, imp, irr in plots:
                if imp == 0 and h == 0:
                    grow = 2 if want == FERTILIZER else 1
                    steps = 1.0 + (0 if irr or want == WATERSHED else 1) + -(-4 // grow)
                    best = min(best, steps)
        return best
    needs = []
    for h, imp, _irr in plots:
        if h == 3:
            needs.append(0)
        elif h == 4:
            if imp != ENCLOSURE:
                needs.append(1)
        elif imp == FERTILIZER:
            needs.append(1 if h == 1 else 2 if h == 2 else 3)
        else:
            needs.append(3 - h)
    needs.sort()
    k = c.shoots
    total = float(sum(needs[:k])) + 3.5 * max(0, k - len(needs))
    # One gardener move grows the same-colour plots around it too.
    return total * 0.6


def progress(s: GameState) -> list[float]:
    """Per seat: points plus the discounted points of the objectives in hand, plus tempo."""
    players = s.players
    plots = None
    base = LATE_DISCOUNT if s.emperor >= 0 else STEP_DISCOUNT
    out = []
    bamboo_left: list[int] | None = None
    for p in range(players):
        value = 0.0
        for card in s.completed[p]:
            value += s.card_points[card]
        if s.emperor == p:
            value += s.options.emperor_points
        stock: list[int] | None = None
        for card in s.hands[p]:
            category = CARD_CATEGORY[card]
            if category == PANDA_CARD:
                if stock is None:
                    stock = list(s.eaten[p])
                need = PANDA_NEED[card]
                assert need is not None
                steps = 0.0
                for colour in (0, 1, 2):
                    k = need[colour]
                    if k:
                        have = stock[colour]
                        if have >= k:
                            stock[colour] = have - k
                        else:
                            missing = k - have
                            stock[colour] = 0
                            if bamboo_left is None:
                                bamboo_left = _edible(s)
                            steps += missing
                            if bamboo_left[colour] < missing:
                                steps += missing - bamboo_left[colour]
            elif category == GARDENER_CARD:
                if plots is None:
                    plots = _plots_by_colour(s)
                steps = gardener_steps(card, plots[GARDEN_COLOUR[card]])
            else:
                steps = plot_steps(s.irrigated_by_colour, card)
            value += s.card_points[card] * 0.95 * base**steps
        out.append(value)
    _add_tempo(s, out)
    return out


def _add_tempo(s: GameState, values: list[float]) -> None:
    """The seat to move gets a little for each action left in its turn."""
    if not s.ended:
        left = s.actions_left()
        if left > 0:
            values[s.current] += TEMPO * left


def public_progress(s: GameState) -> list[float]:
    """Per seat, what anyone could reckon: points, a flat value per card in hand, the stock.

    A card in hand is worth ``HAND_CARD`` on average (measured on ``objective`` games), and
    eaten sections are the raw material of panda cards.  No tempo: actions left are only
    worth something to the seat that spends them, and a seat's actions show in public only
    when they score, so with tempo here a seat would look worse for every action it takes.
    """
    out = []
    for p in range(s.players):
        value = float(HAND_CARD * len(s.hands[p]))
        for card in s.completed[p]:
            value += s.card_points[card]
        if s.emperor == p:
            value += s.options.emperor_points
        e = s.eaten[p]
        value += STOCK_SECTION * min(e[0] + e[1] + e[2], 6)
        out.append(value)
    return out


def _edible(s: GameState) -> list[int]:
    """Sections of each colour the panda could eat (on plots without an enclosure)."""
    out = [0, 0, 0]
    tiles, improvement = s.tiles, s.improvement
    for cell, h in s.bamboo.items():
        if h and improvement.get(cell) != ENCLOSURE:
            out[tiles[cell] >> 2] += h
    return out


def score_only(s: GameState) -> list[float]:
    """Per seat: the points scored so far (the ``eval=score`` baseline)."""
    return [float(x) for x in s.scores()]


class Leaf:
    """A leaf evaluation, the search's evaluator: per-seat win chances of a sampled state.

    ``prepare(view)`` is told each decision's view before the search (what the searching
    seat has not seen, its seat).  ``mine(s)`` is the searching seat's value alone, the other
    seats 0: where that seat moves in every sample the search reads no other seat's value,
    and a leaf with ``alone`` set computes it more cheaply than ``__call__``.
    """

    #: Whether ``mine`` is cheaper than ``__call__`` (the search then uses it).
    alone = False

    def prepare(self, view: PlayerView) -> None:
        """Nothing to prepare: the value reads the state only."""

    def __call__(self, s: GameState) -> list[float]:
        raise NotImplementedError

    def mine(self, s: GameState) -> list[float]:
        """The searching seat's value (here with the others'; see ``alone``)."""
        return self(s)


class FunctionLeaf(Leaf):
    """A leaf that is a function of the state alone (``progress``, ``sampled``, ``score``)."""

    def __init__(self, value: Callable[[GameState], list[float]]) -> None:
        self.value = value

    def __call__(self, s: GameState) -> list[float]:
        return self.value(s)


def leaf_progress(s: GameState) -> list[float]:
    """Win chances: each seat's own ``progress`` against the others' public estimate.

    A seat knows its own hand and not the others', so it is judged that way: its progress
    from its hand (for the searching seat, the true hand; for another seat, the hand of the
    sample) against the best ``public_progress`` of the others.  The searching seat's value
    then never depends on the opponents' sampled hands, which would otherwise add noise far
    larger than the difference between two actions.
    """
    own = progress(s)
    public = public_progress(s)
    return against_best(own, public)


def leaf_sampled(s: GameState) -> list[float]:
    """Win chances from every seat's ``progress`` with the hands of the sample."""
    return win_chances(progress(s))


def leaf_score(s: GameState) -> list[float]:
    """Win chances from the points scored only (a baseline)."""
    return win_chances(score_only(s))


class _LayoutInterner:
    """Points a state's layout objects at the first ones seen with the same content.

    ``bots.heuristics`` caches what it derives from a board layout (tiles, irrigation,
    channels, improvements) by the identity of those objects, which the engine replaces
    rather than mutates.  A plot or channel placed inside an iteration makes new objects in
    every sample, so that cache would miss every time; interning them by content makes it
    hit.  The values are equal, so the state is unchanged (and a leaf state is thrown away
    after its evaluation anyway).
    """

    def __init__(self) -> None:
        self.table: dict[tuple[Any, ...], tuple[Any, ...]] = {}
        self.last: tuple[Any, ...] = (None, None, None, None)
        #: Bumped when the table is emptied (identities of old layouts may then be reused).
        self.generation = 0

    def __call__(self, s: GameState) -> None:
        last = self.last
        if (
            s.tiles is last[0] and s.irrigated is last[1] and s.channels is last[2]
            and s.improvement is last[3]
        ):
            return
        key = (frozenset(s.tiles.items()), s.irrigated, s.channels,
               frozenset(s.improvement.items()))
        canon = self.table.get(key)
        if canon is None:
            if len(self.table) > 20_000:
                self.table.clear()
                self.generation += 1
            canon = self.table[key] = (s.tiles, s.irrigated, s.channels, s.improvement)
        s.tiles, s.irrigated, s.channels, s.improvement = canon  # type: ignore[assignment]
        self.last = canon


class HeuristicsPublicLeaf(Leaf):
    """``eval=heuristics-public``: ``bots.heuristics.evaluate`` of each seat against the
    others' public estimate.

    As ``eval=progress`` does with this module's measure: a seat's own value reads its hand,
    the others are valued as ``bots.heuristics`` values a hand it cannot see (a flat value
    per card), so the searching seat's values do not depend on the sampled hands.
    """

    def __init__(self) -> None:
        self.intern = _LayoutInterner()

    def __call__(self, s: GameState) -> list[float]:
        h = heuristics
        self.intern(s)
        n = s.players
        own = [h.evaluate(s, p) for p in range(n)]
        public = []
        for q in range(n):
            stored = s.stored_improvements[q]
            public.append(
                h.SCORE_WEIGHT * h.score(s, q) + h.UNKNOWN_CARD_VALUE * len(s.hands[q])
                + h.CHANNEL_VALUE * s.stored_channels[q]
                + h.IMPROVEMENT_VALUE * (stored[1] + stored[2] + stored[3])
            )
        return against_best(own, public)


class DenyLeaf(Leaf):
    """``eval=deny``: the ``objective`` bot's measure, own progress against expected rivals.

    Per seat ``bots.heuristics.evaluate`` (each seat read from its hand in the sample).  The
    searching seat's value is its own evaluation against the best opponent as the
    ``objective`` bot reckons opponents for denial: points, stored pieces, and each hidden
    card valued as the mean over the unseen cards of its category on this board
    (``heuristics.expected_hand_value``; plot cards at a flat mean worked out once per
    decision).  So our values do not swing with the hands the samples deal the opponents
    (noise far larger than the difference between two actions), yet eating the shoots an
    opponent's cards probably need still counts.  An opponent's value (what it maximises at
    its own nodes) is its sampled evaluation against the others' sampled ones.  Both become
    win chances through a logistic of the lead, scaled by ``temperature``.
    """

    alone = True

    def __init__(self, temperature: float) -> None:
        self.h = heuristics
        self.temperature = temperature
        self.intern = _LayoutInterner()
        self.seat = 0
        self.pools: tuple[list[int], ...] = ([], [], [])
        self.plot_card = 0.0
        self.cache: dict[tuple[Any, ...], float] = {}

    def prepare(self, view: PlayerView) -> None:
        """The searching seat and what it has not seen (once per decision)."""
        h = self.h
        self.seat = view.seat
        self.pools = ([], view.unseen_cards(GARDENER_CARD), view.unseen_cards(PANDA_CARD))
        plots = view.unseen_cards(PLOT_CARD)
        if plots:
            costs = h.card_costs(view, view.seat, plots)
            self.plot_card = sum(
                h.card_value(view.card_points[c], costs[c]) for c in plots
            ) / len(plots)
        else:
            self.plot_card = 0.0
        self.cache.clear()

    def rival(self, s: GameState, q: int) -> float:
        """What the searching seat reckons seat ``q`` is worth (public information only)."""
        h = self.h
        stored = s.stored_improvements[q]
        value = (
            h.SCORE_WEIGHT * h.score(s, q) + h.CHANNEL_VALUE * s.stored_channels[q]
            + h.IMPROVEMENT_VALUE * (stored[1] + stored[2] + stored[3])
        )
        hand = s.hands[q]
        if not hand or (s.emperor >= 0 and h.actions_horizon(s, q) == 0):
            return value
        key = (
            q, id(self.intern.last), self.intern.generation, tuple(s.bamboo.items()), s.panda,
            s.eaten[q], stored,
            s.reserve_improvements, tuple(sorted(CARD_CATEGORY[c] for c in hand)),
        )
        cards = self.cache.get(key)
        if cards is None:
            cards = h.expected_hand_value(s, q, self.pools)
            cards += self.plot_card * sum(1 for c in hand if CARD_CATEGORY[c] == PLOT_CARD)
            if len(self.cache) > 100_000:
                self.cache.clear()
            self.cache[key] = cards
        return value + cards

    def own_and_rival(self, s: GameState) -> tuple[list[float], float, int]:
        """Every seat's evaluation from its hand in ``s``, and the searching seat's
        strongest rival as reckoned from public information: its value and its seat."""
        self.intern(s)
        own = [self.h.evaluate(s, p) for p in range(s.players)]
        rival, q = self.public_rival(s)
        return own, rival, q

    def public_rival(self, s: GameState) -> tuple[float, int]:
        """The searching seat's strongest rival as reckoned from public information (the
        layout interned first): its value and its seat."""
        me = self.seat
        if s.players == 2:
            return self.rival(s, 1 - me), 1 - me
        return max((self.rival(s, q), q) for q in range(s.players) if q != me)

    def __call__(self, s: GameState) -> list[float]:
        own, rival, _q = self.own_and_rival(s)
        out = against_best(own, own, self.temperature)
        out[self.seat] = lead_chance(own[self.seat] - rival, self.temperature)
        return out

    def mine(self, s: GameState) -> list[float]:
        """The searching seat's value alone, as ``__call__`` gives it (the other seats 0):
        for the iterations whose values are read for that seat only (``Search.iterate``).
        It reads no other seat's hand, so their evaluations are not needed."""
        self.intern(s)
        me = self.seat
        own = self.h.evaluate(s, me)
        rival, _q = self.public_rival(s)
        out = [0.0] * s.players
        out[me] = lead_chance(own - rival, self.temperature)
        return out


#: ``eval=fitted``: logistic-regression weights for 2 and for 4 players (3-player games use
#: the 4-player ones) over ``FittedLeaf.features``, fitted by ``scripts/fit_value.py`` on
#: games between ``objective`` bots: whether a seat went on to win, against the features at
#: each decision of an action step.  Order: intercept, points lead, hand lead,
#: completed-cards lead, hand-size lead, actions left (+ own turn, - the rival's), Emperor
#: (+1 own, -1 another's), phase (most cards completed / cards needed), and the points, hand
#: and completed-cards leads times the phase.  The 4-player weights are the output of
#: ``scripts/fit_value.py --players 4 --games 400 --seed 1000`` (held out, 80 games: log loss
#: 0.472 against 0.541 for ``deny``).  The 2-player ones, which the screens of
#: ``docs/experiments.md`` used, come from the same features and fit on 366 games of an
#: earlier run (seeds 1000-1182 and 2000-2182); ``--players 2 --games 400 --seed 1000``
#: gives (-0.040, -0.031, 0.093, 0.182, 0.050, 0.051, 0.131, 0.144, 0.365, 0.159, 0.033),
#: log loss 0.558 against 0.574: with 400 games single weights move by up to 0.07, the
#: regression is loosely determined.
FITTED_WEIGHTS: dict[int, tuple[float, ...]] = {
    2: (-0.0537, 0.0347, 0.1341, 0.1683, 0.017, 0.0563, 0.0971, 0.1698, 0.3025, 0.1578,
        -0.0132),
    4: (-1.0488, 0.0574, 0.1393, 0.0284, -0.0231, 0.0483, 0.3201, 0.7448, 0.3174, 0.2768,
        0.1558),
}


class FittedLeaf(DenyLeaf):
    """``eval=fitted``: a win chance fitted on recorded games rather than a hand-set scale.

    The same inputs as ``deny`` (the ``objective`` bot's measure of each hand, the
    searching seat's rivals reckoned from public information), split into terms whose
    weights a logistic regression chose: how far the game is (a lead in points counts for
    more near the end, a lead in hand value for more at the start), the number of cards
    completed (the race to the Emperor, R13.2) and whose actions are left this turn.
    """

    def __init__(self, temperature: float) -> None:
        super().__init__(temperature)
        self.weights = FITTED_WEIGHTS[2]

    def prepare(self, view: PlayerView) -> None:
        super().prepare(view)
        self.weights = FITTED_WEIGHTS[2 if view.players == 2 else 4]

    def features(self, s: GameState, p: int, own: float, q: int, rival: float) -> list[float]:
        """The regression's inputs for seat ``p`` against seat ``q`` (``FITTED_WEIGHTS``),
        ``own`` and ``rival`` their evaluations."""
        h = self.h
        sp, sq = h.score(s, p), h.score(s, q)
        points = sp - sq
        hand = (own - h.SCORE_WEIGHT * sp) - (rival - h.SCORE_WEIGHT * sq)
        done = len(s.completed[p]) - len(s.completed[q])
        phase = max(len(c) for c in s.completed) / s.options.objectives_needed(s.players)
        left = s.actions_left() if s.step == STEP_ACTIONS else 2
        tempo = left if s.current == p else -left if s.current == q else 0
        emperor = 0 if s.emperor < 0 else 1 if s.emperor == p else -1
        return [
            points, hand, done, len(s.hands[p]) - len(s.hands[q]), tempo, emperor, phase,
            phase * points, phase * hand, phase * done,
        ]

    def chance(self, s: GameState, p: int, own: float, q: int, rival: float) -> float:
        """Seat ``p``'s win chance against seat ``q``: the fitted logistic."""
        w = self.weights
        z = w[0]
        for i, x in enumerate(self.features(s, p, own, q, rival), 1):
            z += w[i] * x
        return lead_chance(z, 1.0)

    def __call__(self, s: GameState) -> list[float]:
        """Per seat, ``chance`` against its rival: the searching seat against the public
        estimate of its strongest rival, an opponent against the others' sampled hands.

        Written out rather than through ``chance``: the terms every seat shares (points,
        the phase, the actions left) are read once, and each sum is taken in the order
        ``chance`` takes it, so the values are the same to the last bit.
        """
        own, public_rival, public_q = self.own_and_rival(s)
        return self._chances(s, own, public_rival, public_q, range(s.players))

    def mine(self, s: GameState) -> list[float]:
        """The searching seat's chance alone, as ``__call__`` gives it (the other seats 0):
        for the iterations whose values are read for that seat only (``Search.iterate``).
        It is reckoned against the public estimate of its rival, so the other seats'
        evaluations are not needed."""
        self.intern(s)
        me = self.seat
        own = [0.0] * s.players
        own[me] = self.h.evaluate(s, me)
        rival, q = self.public_rival(s)
        return self._chances(s, own, rival, q, (me,))

    def _chances(
        self, s: GameState, own: list[float], public_rival: float, public_q: int,
        seats: Sequence[int],
    ) -> list[float]:
        """``chance`` of each of ``seats`` (the others 0), from the seats' evaluations."""
        n = s.players
        h = self.h
        weight = h.SCORE_WEIGHT
        w0, w1, w2, w3, w4, w5, w6, w7, w8, w9, w10 = self.weights
        completed, hands = s.completed, s.hands
        scores = [h.score(s, p) for p in range(n)]
        done = [len(c) for c in completed]
        sizes = [len(hand) for hand in hands]
        phase = max(done) / s.options.objectives_needed(n)
        left = s.actions_left() if s.step == STEP_ACTIONS else 2
        current = s.current
        emperor = s.emperor
        me = self.seat
        exp = math.exp
        out = [0.0] * n
        for p in seats:
            if p == me:
                rival, q = public_rival, public_q
            else:  # an opponent, against the others' sampled hands
                rival, q = max((own[k], k) for k in range(n) if k != p)
            sp, sq = scores[p], scores[q]
            points = sp - sq
            hand = (own[p] - weight * sp) - (rival - weight * sq)
            lead = done[p] - done[q]
            tempo = left if current == p else -left if current == q else 0
            z = w0
            z += w1 * points
            z += w2 * hand
            z += w3 * lead
            z += w4 * (sizes[p] - sizes[q])
            z += w5 * tempo
            z += w6 * (0 if emperor < 0 else 1 if emperor == p else -1)
            z += w7 * phase
            z += w8 * (phase * points)
            z += w9 * (phase * hand)
            z += w10 * (phase * lead)
            # lead_chance(z, 1.0)
            d = z / 1.0
            d = -30.0 if d < -30.0 else 30.0 if d > 30.0 else d
            out[p] = 1.0 / (1.0 + exp(-d))
        return out


#: Leaf evaluations by name: factories given the temperature (``deny`` is the only leaf
#: that reads it; ``fitted``'s scale is fitted, the others use ``TEMPERATURE``).
LEAVES: dict[str, Callable[[float], Leaf]] = {
    "deny": DenyLeaf,
    "fitted": FittedLeaf,
    "heuristics-public": lambda t: HeuristicsPublicLeaf(),
    "progress": lambda t: FunctionLeaf(leaf_progress),
    "sampled": lambda t: FunctionLeaf(leaf_sampled),
    "score": lambda t: FunctionLeaf(leaf_score),
}


def make_leaf(name: str, temperature: float) -> Leaf:
    """The leaf evaluation called ``name`` (a key of ``LEAVES``), new (a leaf keeps caches)."""
    return LEAVES[name](temperature)


def lead_chance(lead: float, temperature: float = TEMPERATURE) -> float:
    """A win chance in (0, 1) from a lead in evaluation points: a logistic, clamped."""
    d = lead / temperature
    d = -30.0 if d < -30.0 else 30.0 if d > 30.0 else d
    return 1.0 / (1.0 + math.exp(-d))


def against_best(
    own: list[float], rivals: list[float], temperature: float = TEMPERATURE
) -> list[float]:
    """Per seat ``p``, the chance of its ``own`` value against the best ``rivals`` value of
    the other seats (the two lists differ where a seat is judged from public estimates)."""
    n = len(own)
    return [
        lead_chance(own[p] - max(rivals[q] for q in range(n) if q != p), temperature)
        for p in range(n)
    ]


def win_chances(values: list[float], temperature: float = TEMPERATURE) -> list[float]:
    """Per seat, a logistic of its lead over the best other seat: a value in (0, 1)."""
    if len(values) == 2:
        v0 = lead_chance(values[0] - values[1], temperature)
        return [v0, 1.0 - v0]
    return against_best(values, values, temperature)

