"""The search of ``mcts``: nodes, selection, tree keys and the rollout policy.

Single-observer information-set MCTS (SO-ISMCTS; Cowling, Powley & Whitehouse, "Information
Set Monte Carlo Tree Search", IEEE TCIAIG 4(2), 2012).  One tree is grown over the searching
seat's information set, its edges keyed by action ints (``tree_keys``).  Every iteration
samples a full state from the view (``view.determinize``), walks the tree choosing only among
the actions legal in that sample with the availability-aware UCB of the paper, adds one node,
plays a few cheap decisions on (``rollout``), and asks the leaf evaluation (a
``bots.mcts_leaves.Leaf``, as OpenSpiel's IS-MCTS takes an evaluator) for a value per seat.
The bot (``bots.mcts.MctsBot``) decides when to search, with which leaf, and what the root's
priors are.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from arena.engine import STEP_PLACE, Action, GameState, PlayerView
from arena.engine.actions import (
    B_SHIFT,
    CHANNEL,
    CLOUDS,
    CLOUDS_KEEP,
    CLOUDS_MOVE,
    COMPLETE,
    END,
    GARDENER,
    IMPROVE,
    IRRIGATE,
    IRRIGATE_KEEP,
    OBJECTIVE,
    PANDA,
    PLACE,
    PLOT,
    RAIN,
    SKIP,
    STORM,
    TURN_ACTION,
    WEATHER,
    Kind,
    cell_of,
    is_swap,
    kind_of,
    plot_of,
)
from arena.engine.components import ENCLOSURE, GARDENER_CARD, PANDA_CARD
from arena.engine.grid import POND, POND_RING

from .mcts_leaves import Leaf

#: Per action kind: whether it is one of the turn's actions (R3.5), not a free move.
TURN_KIND: tuple[bool, ...] = tuple(t >= 0 for t in TURN_ACTION)

#: Per action kind: whether, taken by the seat to move in its own turn, its outcome reads
#: nothing hidden (no deck, no other hand, no die while the turn goes on).  A plot draw, an
#: objective draw, a placement (the other plots go under the deck) and the end of a turn
#: (the next seat's die) do.
_OPEN_KINDS = frozenset(
    (GARDENER, PANDA, IRRIGATE, IRRIGATE_KEEP, CHANNEL, IMPROVE, COMPLETE, WEATHER, RAIN,
     STORM, CLOUDS, CLOUDS_KEEP, CLOUDS_MOVE, SKIP)
)
OPEN_KIND: tuple[bool, ...] = tuple(k in _OPEN_KINDS for k in Kind)


#: Per action kind: whether, taken by the searching seat, it may let another seat move next
#: in some samples and not in others (an objective drawn may or may not be completable at
#: once; the end of a turn).  Along other actions of its turn, from the root, the searching
#: seat moves at every node in every sample: the UCB there reads its values only, and an
#: iteration that adds a child at such a node needs no other seat's value (``mine_only``).
#: A placement keyed by its place in the draw (``position_keys``) puts another plot in
#: each sample, and what the seat may do next (complete a plot card, or nothing: the turn
#: ends) can differ with it; keyed by the plot (``tree_keys``) it is the same plot.
SEAT_TURN_ENDS: tuple[bool, ...] = tuple(k in (OBJECTIVE, END) for k in Kind)
SEAT_TURN_ENDS_BY_POSITION: tuple[bool, ...] = tuple(k in (OBJECTIVE, END, PLACE) for k in Kind)


# ------------------------------------------------------------------------- action scores


def action_score(s: GameState, a: Action) -> float:
    """A cheap guess of how useful an action is for the seat to move (no look-ahead).

    Used to order the actions a node expands and by the ``greedy-lite`` rollout: growing or
    eating the colours the hand asks for, drawing objectives when the hand is short, and not
    ending a turn with actions left.
    """
    kind = kind_of(a)
    if kind == COMPLETE:
        return 100.0
    p = s.current
    if kind in (GARDENER, RAIN):
        cell = cell_of(a)
        if cell == POND:
            return -1.0
        colour = s.tiles[cell] >> 2
        score = 0.0
        cards = s.card_set.cards
        for card in s.hands[p]:
            c = cards[card]
            if c.category == GARDENER_CARD and c.colour == colour:
                score += 2.0
            elif c.category == PANDA_CARD and c.eat[colour]:
                score += 0.5
        if cell in s.irrigated and s.bamboo[cell] < 4:
            score += 0.5
        return score
    if kind in (PANDA, STORM):
        cell = cell_of(a)
        if cell == POND:
            return -1.0
        h = s.bamboo[cell]
        if not h or s.improvement.get(cell) == ENCLOSURE:
            return -0.5
        colour = s.tiles[cell] >> 2
        score = 1.0
        cards = s.card_set.cards
        for card in s.hands[p]:
            c = cards[card]
            if c.category == PANDA_CARD and c.eat[colour] > s.eaten[p][colour]:
                score += 2.0
            elif c.category == GARDENER_CARD and c.colour == colour and h in (3, 4):
                score -= 1.0
        return score
    if kind == OBJECTIVE:
        return 2.5 if len(s.hands[p]) < 3 else 0.0
    if kind == END:
        return -2.0
    if kind == PLACE:
        cell = cell_of(a)
        return 1.0 if cell in POND_RING else 0.5
    if kind in (IRRIGATE, CHANNEL, PLOT, IMPROVE):
        return 0.5
    if kind == IRRIGATE_KEEP:
        return 0.2
    return 0.0


def candidates(legal: list[Action]) -> list[Action]:
    """The legal actions worth searching: completions first and alone, no ``swap`` twins.

    Completing a satisfied objective is a free move that scores (the engine lists
    completions first), so it is taken before anything else; the search still chooses
    between several completions.
    """
    if kind_of(legal[0]) == COMPLETE:
        out = []
        for a in legal:
            if kind_of(a) != COMPLETE:
                break
            out.append(a)
        return out
    if kind_of(legal[-1]) == PLACE:  # the place step (its free moves come first, R3.1)
        return [a for a in legal if not is_swap(a)]
    if len(legal) > 1 and legal[-1] == END and TURN_KIND[kind_of(legal[-2])]:
        # An action is left: ending the turn now throws it away.  Some action is always
        # about as harmless as none (a figure moved to the pond grows or eats nothing), and
        # an evaluation that is noisy, or that sees an opponent gain from every growth,
        # would otherwise end turns early: about one action in nine in matches.  (The turn's
        # actions come last in the legal list, just before END.)
        return legal[:-1]
    return legal


#: Where ``tree_keys`` puts the drawn plot's tile (plus one) in a ``place`` key, above every
#: field of a real action (``actions.place``: plot index, improvement and swap take 5 bits).
PLOT_KEY_SHIFT = B_SHIFT + 5
_PLOT_INDEX = 3 << B_SHIFT


def tree_keys(
    s: GameState | PlayerView, cands: list[int]
) -> tuple[list[int], dict[int, int] | None]:
    """The tree's keys for a decision's candidates, and the action of each key if they differ.

    A ``place`` action names a drawn plot by its position (``place 0``, ``place 1``...), and
    which plots those are is chance: each sample deals other ones.  Keyed by position, a
    node after ``plot`` adds up the values of placing a green plot in one sample and a pink
    one in the next, and no placement looks good (the search drew plots 4.7 times a game
    where ``objective`` drew 7.7, and 16 of the 61 times the planner would have).  So a
    placement is keyed by the plot itself (its tile: colour and printed improvement) and the
    cell; two drawn plots with the same tile are the same key.  Used with 2 players
    (``AUTO_PLOT_KEYS``).
    """
    if s.step != STEP_PLACE:
        return cands, None
    drawn = s.drawn
    actions: dict[int, int] = {}
    for a in cands:
        if kind_of(a) != PLACE:  # a free move at the place step (R3.1)
            actions.setdefault(a, a)
            continue
        key = (a & ~_PLOT_INDEX) | (drawn[plot_of(a)] + 1) << PLOT_KEY_SHIFT
        actions.setdefault(key, a)
    return list(actions), actions


def position_keys(
    s: GameState | PlayerView, cands: list[int]
) -> tuple[list[int], dict[int, int] | None]:
    """The actions as their own keys (``tree_keys`` off: placements by position)."""
    return cands, None


# ------------------------------------------------------------------------- the tree


class Node:
    """An edge of the tree and the node below it: statistics of one action in one context.

    ``totals`` holds the summed value per seat, so a node may be judged by whichever seat is
    to move above it; ``avail`` counts the iterations in which the action was legal when its
    parent was visited (the availability of SO-ISMCTS).
    """

    __slots__ = ("avail", "children", "order", "prior", "totals", "visits")

    def __init__(self, players: int) -> None:
        self.children: dict[int, Node] = {}
        self.order: list[int] | None = None
        #: One-step leaf values of the actions, where a look-ahead ordered them.
        self.prior: dict[int, list[float]] | None = None
        self.visits = 0
        self.avail = 1
        self.totals = [0.0] * players


Keys = Callable[[GameState | PlayerView, list[int]], tuple[list[int], dict[int, int] | None]]


class Search:
    """One searching seat's tree search, its leaf evaluation given as an object.

    The parameters are ``MctsBot``'s of the same names (its ``--help`` says what they do);
    ``rng`` is the bot's generator, shared so that a seeded bot plays the same game.
    ``configure`` sets what depends on the number of players (the leaf, the tree keys),
    ``prepare`` what depends on the decision; ``iterate`` runs one iteration below a root.
    """

    def __init__(self, rng: Any, *, c: float, depth: int, rollout: str, widen: float,
                 lookahead: int, prior: int, turns: int) -> None:
        self.rng = rng
        self.c = c
        self.depth = depth
        self.rollout_policy = rollout
        self.widen = widen
        self.lookahead = lookahead
        self.prior = prior
        self.turns = turns
        self.seat = 0
        self.keys: Keys = tree_keys
        self.turn_ends: tuple[bool, ...] = SEAT_TURN_ENDS
        self.evaluate: Leaf = Leaf()
        #: The leaf's value for the searching seat alone, if it has a cheaper one (``iterate``).
        self.mine: Callable[[GameState], list[float]] | None = None
        #: The root's tree keys and their actions in this decision, and those of the
        #: placements met, by the plots drawn and the legal list (``iterate``).
        self.root_keys: tuple[list[int], dict[int, int] | None] | None = None
        self.place_keys: dict[
            tuple[tuple[int, ...], tuple[int, ...]], tuple[list[int], dict[int, int] | None]
        ] = {}
        #: Per node reached from the root by open actions only, its state (``iterate``).
        self.states: dict[Node, GameState] = {}

    def configure(self, leaf: Leaf, plot_keys: bool) -> None:
        """The leaf evaluation, and whether placements are keyed by the plot drawn."""
        self.evaluate = leaf
        self.mine = leaf.mine if leaf.alone else None
        self.keys = tree_keys if plot_keys else position_keys
        self.turn_ends = SEAT_TURN_ENDS if plot_keys else SEAT_TURN_ENDS_BY_POSITION

    def prepare(self, view: PlayerView) -> None:
        """A new decision of ``view.seat``: the leaf is told the view, the caches emptied."""
        self.seat = view.seat
        self.evaluate.prepare(view)
        self.root_keys = None
        self.place_keys.clear()
        self.states.clear()

    def best(self, root: Node, view: PlayerView, legal: list[Action]) -> tuple[int, Action]:
        """The most visited root action (ties: the higher mean value for the searching seat)
        as its tree key and as the action to play."""
        cands, actions = self.keys(view, candidates(legal))
        best = cands[0]
        best_key = (-1, -1.0)
        for a in cands:
            child = root.children.get(a)
            if child is None or not child.visits:
                continue
            key = (child.visits, child.totals[self.seat] / child.visits)
            if key > best_key:
                best, best_key = a, key
        return best, best if actions is None else actions[best]

    def lookahead_order(
        self, node: Node, s: GameState, cands: list[int], actions: dict[int, int] | None = None,
        alone: bool = False,
    ) -> list[int]:
        """Order a node's actions by the evaluation one step ahead in one sample, best first.

        Used at the root and below it in the bot's own turn, where progressive widening
        must look at the promising actions first (a channel, then the gardener move that
        pays for it); deeper nodes use the cheap ``action_score`` instead.  The values are
        kept as priors: a child created later starts with ``prior`` virtual visits at its
        one-step value, so a few unlucky samples do not bury a good action.

        ``alone``: the searching seat moves at this node in every sample, so only its values
        are read (the order, and its children's totals); the leaf scores it alone
        (``iterate``).
        """
        evaluate = self.mine if alone and self.mine is not None else self.evaluate
        seat = s.current
        rand = self.rng.random
        scored = []
        prior: dict[int, list[float]] = {}
        for a in cands:
            t = s.copy()
            t.apply(a if actions is None else actions[a])
            values = [float(x) for x in t.returns()] if t.ended else evaluate(t)
            prior[a] = values
            scored.append((-values[seat], rand(), a))
        scored.sort()
        node.order = [a for _v, _r, a in scored]
        if self.prior > 0:
            node.prior = prior
        return node.order

    # --------------------------------------------------------------------- search

    def iterate(self, root: Node, view: PlayerView) -> None:
        """One iteration: sample, select, expand, roll out, evaluate, back up.

        The steps are methods of their own so that each reads alone; the walk down the tree
        (``_descend``) keeps its bookkeeping in locals, as this is the search's hot loop.
        """
        s = view.determinize(self.rng)
        s, path, turns, mover, mine_only = self._descend(root, s)
        if self.depth and not s.ended and (not self.turns or turns > 1 or s.current == mover):
            self.rollout(s, s.current if turns == 1 else -1)
        if s.ended:
            values = s.returns()
        elif mine_only and self.mine is not None:
            values = self.mine(s)
        else:
            values = self.evaluate(s)
        _back_up(path, values, s.players)

    def _descend(
        self, root: Node, s: GameState
    ) -> tuple[GameState, list[Node], int, int, bool]:
        """Select down the tree from ``root`` in the sample ``s`` and add one node.

        Returns the state reached (``s`` itself, or a kept state given its hidden parts),
        the path of nodes, the turns of the horizon left and the seat last seen to move
        (for the rollout's stop), and whether the node added is judged by the searching
        seat's values alone (``mine_only``).  While only open actions of the searching seat
        lead from the root, the state is one kept per node (``states``), given each
        sample's hidden parts (``with_hidden_from``).  ``mine_path``: whether the node
        reached is one where the searching seat moves in every sample, so its children are
        judged by that seat's values only.
        """
        node = root
        path = [root]
        turns = self.turns
        mover = s.current
        keyed = self.root_keys
        seat = self.seat
        open_path = mine_path = s.current == seat
        turn_ends = self.turn_ends
        while not s.ended:
            if turns and s.current != mover:
                mover = s.current
                turns -= 1
                if not turns:
                    break  # the horizon: as many turns as asked have ended
            cands, actions = keyed if keyed is not None else self._node_keys(s, node is root)
            keyed = None
            best_child, best_action = self._select(node, s, cands)
            if best_child is None:
                path.append(self._expand(node, s, cands, actions, len(path), open_path,
                                         mine_path))
                return s, path, turns, mover, mine_path
            action = best_action if actions is None else actions[best_action]
            if open_path:
                s, open_path = self._follow_open(best_child, s, action)
            else:
                s.apply(action)
            if mine_path and (turn_ends[kind_of(action)] or s.current != seat or s.ended):
                mine_path = False
            node = best_child
            path.append(node)
        return s, path, turns, mover, False

    def _node_keys(
        self, s: GameState, at_root: bool
    ) -> tuple[list[int], dict[int, int] | None]:
        """A node's candidates as tree keys, and the action of each key if they differ.

        The root's are the same in every sample (they are this seat's own, in the position
        it sees), so they are kept for the decision (``root_keys``).  Placements have dozens
        of candidates to filter and key, the same whenever the same plots are drawn at the
        same place in the tree, so they are kept by the plots drawn and the legal list.
        """
        if s.step == STEP_PLACE:
            legal = s.legal_actions()
            memo = (s.drawn, tuple(legal))
            found = self.place_keys.get(memo)
            if found is None:
                found = self.place_keys[memo] = self.keys(s, candidates(legal))
            return found
        found = self.keys(s, candidates(s.legal_actions()))
        if at_root:
            self.root_keys = found
        return found

    def _select(self, node: Node, s: GameState, cands: list[int]) -> tuple[Node | None, int]:
        """The child to descend to by the availability-aware UCB, and its key; or
        ``(None, -1)`` when a child is to be added here (progressive widening).

        Every child whose action is legal in this sample counts one more availability.
        """
        children = node.children
        widen = self.widen
        limit = 1.0 + widen * math.sqrt(node.visits) if widen > 0 else 1e18
        known = len(children)
        if known < limit and known < len(cands):
            # Fewer children than both bounds: a new one is added here whatever the
            # values, so only the availabilities are counted.
            for a in cands:
                child = children.get(a)
                if child is not None:
                    child.avail += 1
            return None, -1
        p = s.current
        c = self.c
        log, sqrt = math.log, math.sqrt
        best_child: Node | None = None
        best_action = -1
        best_value = -1e18
        available = 0
        for a in cands:
            child = children.get(a)
            if child is None:
                continue
            available += 1
            child.avail += 1
            n = child.visits
            value = child.totals[p] / n + c * sqrt(log(child.avail) / n)
            if value > best_value:
                best_value, best_child, best_action = value, child, a
        if available < limit and available < len(cands):
            return None, -1
        assert best_child is not None
        return best_child, best_action

    def _expand(
        self, node: Node, s: GameState, cands: list[int], actions: dict[int, int] | None,
        depth: int, open_path: bool, mine_path: bool,
    ) -> Node:
        """Add the next untried child below ``node`` (``depth``: the path's length so far)
        and play its action in ``s``.

        A child with a one-step prior starts with ``prior`` virtual visits at that value;
        one reached by open actions of the searching seat keeps its state (``_descend``).
        """
        a = self.untried(node, s, cands, depth <= self.lookahead, actions, mine_path)
        child = Node(s.players)
        node.children[a] = child
        prior = node.prior
        if prior is not None and a in prior:
            k = self.prior
            child.visits = k
            child.totals = [k * x for x in prior[a]]
        action = a if actions is None else actions[a]
        s.apply(action)
        if open_path and OPEN_KIND[kind_of(action)] and s.current == self.seat and (
            not s.ended
        ):
            self.states[child] = s.copy()
        return child

    def _follow_open(
        self, child: Node, s: GameState, action: Action
    ) -> tuple[GameState, bool]:
        """Step to ``child`` along a path of the searching seat's open actions: its kept
        state given this sample's hidden parts, or ``s`` played on (and kept while the path
        stays open).  Returns the state and whether the path is still open."""
        public = self.states.get(child)
        if public is not None:
            return public.with_hidden_from(s, self.seat), True
        s.apply(action)
        if OPEN_KIND[kind_of(action)] and s.current == self.seat and not s.ended:
            self.states[child] = s.copy()
            return s, True
        return s, False

    def untried(
        self, node: Node, s: GameState, cands: list[int], shallow: bool,
        actions: dict[int, int] | None = None, alone: bool = False,
    ) -> int:
        """The next action (tree key) to add below a node: the first untried one in its
        order (``alone``: see ``lookahead_order``)."""
        order = node.order
        if order is None and shallow and s.current == self.seat:
            order = self.lookahead_order(node, s, cands, actions, alone)
        elif order is None:
            rand = self.rng.random
            scored = sorted(
                (-action_score(s, a if actions is None else actions[a]), rand(), a)
                for a in cands
            )
            order = node.order = [a for _v, _r, a in scored]
        children = node.children
        legal = set(cands)
        for a in order:
            if a not in children and a in legal:
                return a
        # Actions legal in this sample that the first one did not have (other cards drawn).
        fresh = [a for a in cands if a not in children]
        a = fresh[int(self.rng.random() * len(fresh))]
        order.append(a)
        return a

    def rollout(self, s: GameState, mover: int = -1) -> None:
        """``depth`` decisions by the rollout policy (objectives always completed first).

        With ``mover`` set, the rollout stops when that seat's turn ends (the horizon).
        """
        rand = self.rng.random
        greedy = self.rollout_policy == "greedy-lite"
        for _ in range(self.depth):
            legal = s.legal_actions()
            a = legal[0]
            if kind_of(a) != COMPLETE:
                n = len(legal)
                if n > 1 and legal[-1] == END and TURN_KIND[kind_of(legal[-2])]:
                    n -= 1  # an action is left: do not end the turn (see ``candidates``)
                a = legal[int(rand() * n)]
                if greedy:
                    b = legal[int(rand() * n)]
                    if b != a and action_score(s, b) > action_score(s, a):
                        a = b
            s.apply(a)
            if s.ended or (mover >= 0 and s.current != mover):
                break


def _back_up(path: list[Node], values: Sequence[float], players: int) -> None:
    """Add one visit and the leaf's values to every node of the path (two players
    unrolled: this runs once per node per iteration)."""
    if players == 2:
        v0, v1 = values
        for n in path:
            n.visits += 1
            totals = n.totals
            totals[0] += v0
            totals[1] += v1
    else:
        for n in path:
            n.visits += 1
            totals = n.totals
            for i in range(players):
                totals[i] += values[i]
