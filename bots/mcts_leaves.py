"""The leaves of ``mcts``: what its search asks of a sampled state it stops at.

A leaf evaluation is an object (as OpenSpiel's IS-MCTS takes an ``evaluator``): the search in
``bots.mcts_search`` holds the nodes and the selection, and calls a :class:`Leaf` for the
per-seat values of the states it reaches.  The values are win chances in [0, 1], one per seat,
so that every node can be judged by the seat to move there (max^n with 3-4 players).

The leaves (``eval=``): ``deny`` (the 3-4 player default) and ``fitted`` (the 2-player one)
are built on ``bots.heuristics.evaluate``, the measure the ``objective`` bot plans with, and
judge the searching seat against its rivals as reckoned from public information only, so
that its values do not swing with the hands a sample deals the opponents.  ``score`` (points
only) is the baseline: it reads no hand, so what the others gain over it is what their
reading of the hands is worth.  Every leaf turns a lead into a win chance through a
logistic that ``temperature`` scales.  Other leaves were screened and removed; their
figures are in ``docs/experiments.md``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from arena.engine import STEP_ACTIONS, GameState, PlayerView
from arena.engine.components import GARDENER_CARD, PANDA_CARD, PLOT_CARD

from . import heuristics

# ------------------------------------------------------------------------- evaluation

#: ``mcts``'s default ``temperature``, the one at which ``FittedLeaf`` reads its regression
#: as fitted (its logit is divided by ``temperature / DEFAULT_TEMPERATURE``).
DEFAULT_TEMPERATURE = 8.0


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


class ScoreLeaf(Leaf):
    """``eval=score``: win chances from the points scored only, the baseline.

    Each seat's lead in points over the best other seat, through a logistic scaled by
    ``temperature`` (here points of lead, not evaluation points).
    """

    def __init__(self, temperature: float) -> None:
        self.temperature = temperature

    def __call__(self, s: GameState) -> list[float]:
        return win_chances([float(x) for x in s.scores()], self.temperature)


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
        #: Layout content -> its first objects and a copy of a state that holds them.
        self.table: dict[tuple[Any, ...], tuple[Any, ...]] = {}
        self.last: tuple[Any, ...] = (None, None, None, None, None)
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
            canon = self.table[key] = (s.tiles, s.irrigated, s.channels, s.improvement,
                                       s.copy())
            self.last = canon
            return
        s.share_layout(canon[4])
        self.last = canon


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
            h.SCORE_WEIGHT * s.score(q) + h.CHANNEL_VALUE * s.stored_channels[q]
            + h.IMPROVEMENT_VALUE * (stored[1] + stored[2] + stored[3])
        )
        hand = s.hands[q]
        if not hand or (s.emperor >= 0 and h.actions_horizon(s, q) == 0):
            return value
        category = s.card_set.categories
        key = (
            q, id(self.intern.last), self.intern.generation, tuple(s.bamboo.items()), s.panda,
            s.eaten[q], stored,
            s.reserve_improvements, tuple(sorted(category[c] for c in hand)),
        )
        cards = self.cache.get(key)
        if cards is None:
            cards = h.expected_hand_value(s, q, self.pools)
            cards += self.plot_card * sum(1 for c in hand if category[c] == PLOT_CARD)
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

    Its scale was fitted too, so ``temperature`` is read relative to the default: the logit
    is divided by ``temperature / DEFAULT_TEMPERATURE``.  At the default that is 1 and the
    fit is read as made (the same floats to the last bit); a higher temperature flattens
    the win chances, as it does for ``deny``.
    """

    def __init__(self, temperature: float) -> None:
        super().__init__(temperature)
        self.weights = FITTED_WEIGHTS[2]
        #: What the fitted logit is divided by: 1.0 at the default temperature.
        self.scale = temperature / DEFAULT_TEMPERATURE

    def prepare(self, view: PlayerView) -> None:
        super().prepare(view)
        self.weights = FITTED_WEIGHTS[2 if view.players == 2 else 4]

    def features(self, s: GameState, p: int, own: float, q: int, rival: float) -> list[float]:
        """The regression's inputs for seat ``p`` against seat ``q`` (``FITTED_WEIGHTS``),
        ``own`` and ``rival`` their evaluations."""
        h = self.h
        sp, sq = s.score(p), s.score(q)
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
        """Seat ``p``'s win chance against seat ``q``: the fitted logistic, scaled."""
        w = self.weights
        z = w[0]
        for i, x in enumerate(self.features(s, p, own, q, rival), 1):
            z += w[i] * x
        return lead_chance(z, self.scale)

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
        scores = [s.score(p) for p in range(n)]
        done = [len(c) for c in completed]
        sizes = [len(hand) for hand in hands]
        phase = max(done) / s.options.objectives_needed(n)
        left = s.actions_left() if s.step == STEP_ACTIONS else 2
        current = s.current
        emperor = s.emperor
        me = self.seat
        scale = self.scale
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
            # lead_chance(z, scale)
            d = z / scale
            d = -30.0 if d < -30.0 else 30.0 if d > 30.0 else d
            out[p] = 1.0 / (1.0 + exp(-d))
        return out


#: Leaf evaluations by name: factories given the temperature (every leaf reads it).
LEAVES: dict[str, Callable[[float], Leaf]] = {
    "deny": DenyLeaf,
    "fitted": FittedLeaf,
    "score": ScoreLeaf,
}


def make_leaf(name: str, temperature: float) -> Leaf:
    """The leaf evaluation called ``name`` (a key of ``LEAVES``), new (a leaf keeps caches)."""
    return LEAVES[name](temperature)


def lead_chance(lead: float, temperature: float) -> float:
    """A win chance in (0, 1) from a lead in evaluation points: a logistic, clamped."""
    d = lead / temperature
    d = -30.0 if d < -30.0 else 30.0 if d > 30.0 else d
    return 1.0 / (1.0 + math.exp(-d))


def against_best(own: list[float], rivals: list[float], temperature: float) -> list[float]:
    """Per seat ``p``, the chance of its ``own`` value against the best ``rivals`` value of
    the other seats (the two lists differ where a seat is judged from public estimates)."""
    n = len(own)
    return [
        lead_chance(own[p] - max(rivals[q] for q in range(n) if q != p), temperature)
        for p in range(n)
    ]


def win_chances(values: list[float], temperature: float) -> list[float]:
    """Per seat, a logistic of its lead over the best other seat: a value in (0, 1)."""
    if len(values) == 2:
        v0 = lead_chance(values[0] - values[1], temperature)
        return [v0, 1.0 - v0]
    return against_best(values, values, temperature)

