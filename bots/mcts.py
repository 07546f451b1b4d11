"""``mcts``: information-set Monte Carlo tree search with a Takenoko leaf evaluation.

Idea: single-observer information-set MCTS (SO-ISMCTS; Cowling, Powley & Whitehouse,
"Information Set Monte Carlo Tree Search", IEEE TCIAIG 4(2), 2012).  One tree is grown over
the bot's information set, its edges keyed by action ints.  Every iteration samples a full
state from the view (``view.determinize``: opponents' hands, deck orders and a fresh die
generator), walks the tree choosing only among the actions legal in that sample, with the
availability-aware UCB of the paper (``mean + c * sqrt(ln(availability) / visits)``: an action
that is legal in few samples is not punished for it), adds one node, plays a few cheap
decisions on, and scores the leaf with a heuristic.  The score is a vector (one value per
seat) and every node is chosen from the point of view of the seat to move there, so 3 and
4-player games are searched max^n style.  A Takenoko turn is a chain of decisions (weather,
action 1, action 2, free moves), so a turn is a path of nodes; the subtree under the chosen
action is kept for the next decision of the same turn.  The tree and its selection are
``bots.mcts_search``; the leaves ``bots.mcts_leaves``; this module is the bot: when to search,
what to delegate, the root's priors.

Chance (the die, cards and plots drawn) happens inside ``apply`` in each sampled state with
its own generator, and the tree is keyed by our choices only, so no outcome is assumed to
repeat across iterations.  The bot never reads hidden information: its only inputs are the
view and ``view.determinize(self.rng)``; hands it sees in a sample are samples, not peeks.

Guidance: a satisfied objective is always completed before anything else, and the ``swap``
variants of a plot placement are not searched.  Progressive widening lets a node consider
one more action each time its visits grow.  At the root and in the bot's own turn just below
it, the actions are ordered by a one-step look-ahead and each child starts with a few
virtual visits at that value (a progressive bias); deeper nodes order their actions by a
cheap action score.  At the root of the action step (``planner=true``) the ``objective``
bot's turn planner values every first action with its best follow-up in the turn, and those
values order the root's actions and are its prior.  While an action of the turn is left,
ending the turn is not searched (some action is always about as harmless as none).  With
``delegate=steps`` (the 2-player default) the decisions outside the action step (weather,
where a drawn plot goes, where rain, storm or clouds act) and the completions (including
whether to take the Emperor when that would end the game behind, R13) are the planner's,
which leaves the budget to the decisions that matter.

The leaf evaluations (``eval``: ``deny``, ``fitted``, ``score``) are ``bots.mcts_leaves``;
both ``deny`` and ``fitted`` are built on ``bots.heuristics.evaluate`` and value the
opponents' hidden cards from public information at the searching seat, so its values do not
swing with the hands a sample deals them.  A finished game scores its real result.

Two savings leave the decisions as they are: where the searching seat moves in every
sample (its own turn from the root), the UCB reads its values only, so a leaf there is
scored for it alone (``mine``); and the states reached by its open actions (``OPEN_KIND``:
no draw, no die) differ between samples only in the hidden parts, so they are kept per node
and given each sample's hidden parts (``GameState.with_hidden_from``).

On the native engine an ``mcts`` made from its spec is a native seat (``arena.play.seat``): its
Rust twin (``arena/native/core/src/bots/mcts.rs`` with ``mcts_search.rs`` and
``mcts_leaves.rs``) makes the same decisions with the same draws from the bot's generator
(its state is read once per decision and written back), so a seeded game is the same game
on either engine; with ``time`` set the clock decides how many iterations run, on either.
This class is the readable reference: it decides in Python wherever it is made directly
(a subclass, a search handed another leaf or keys, a test).

The parameters are ``MctsBot.PARAMS`` (``arena bots`` lists them); docs/bots.md says what
each does, the bot's strengths and limits, and its measured strength; how the defaults were
chosen, and the speed measurements, are in docs/experiments.md.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from typing import Any

from arena.engine import STEP_ACTIONS, Action, Event, GameState, PlayerView
from arena.engine.actions import COMPLETE, END, kind_of
from arena.play.limits import MAX_MOVE_TIME

from . import heuristics
from .base import Bot, declared
from .mcts_leaves import lead_chance, make_leaf
from .mcts_search import Node, Search, candidates

#: The default budget, delegation and leaf by number of players (2, and 3 or more), from
#: paired screens against ``objective`` (``docs/experiments.md``): with 2 players the fitted
#: leaf at 1000 iterations did as well as ``deny`` at 3000; with 3-4 players more
#: iterations, the delegation and the fitted leaf did worse.
AUTO_ITERATIONS = {2: 1000, 3: 1000}
AUTO_DELEGATE = {2: "steps", 3: "none"}
AUTO_EVAL = {2: "fitted", 3: "deny"}
#: Whether the tree keys plot placements by the plot drawn (``tree_keys``): with 2 players
#: it won 60.1% of 400 games where the same bot without it won 49.0%; with 4 players it
#: lost (``docs/experiments.md``).
AUTO_PLOT_KEYS = {2: True, 3: False}

def scaled_iterations(base: int, budget: float) -> int:
    """Iterations for a budget: ``base * budget`` rounded half up, at least one.

    Why this rounding: the Rust port computes the same (``mcts::scaled``), and at budget 1 it
    is exactly ``base``, so the default's decisions (its digests) hold."""
    return max(1, math.floor(base * budget + 0.5))


class MctsBot(Bot):
    """Information-set MCTS (SO-ISMCTS) with a heuristic leaf evaluation."""

    NATIVE = "mcts"  # arena/native/core/src/bots/mcts.rs

    #: Declared in arena/data/bot_params.json, which the native core compiles in too.
    PARAMS = declared("mcts")
    iterations: int
    time: float
    c: float
    depth: int
    rollout: str
    eval: str
    temperature: float
    widen: float
    lookahead: int
    prior: int
    reuse: bool
    turns: int
    planner: bool
    delegate: str
    budget: float

    def __init__(self, rng: Any = None, **params: Any) -> None:
        super().__init__(rng, **params)
        self._kept: Node | None = None
        self._kept_round = -1
        self._planner: Any = None
        self.search = Search(self.rng, c=self.c, depth=self.depth, rollout=self.rollout,
                             widen=self.widen, lookahead=self.lookahead, prior=self.prior,
                             turns=self.turns)
        self._eval_name = ""
        self._for_players(2)
        if self.planner or self.delegate != "none":
            from .objective import ObjectiveBot

            self._planner = ObjectiveBot(self.rng)
        #: Iterations run by the last ``choose`` (for benchmarks).
        self.last_iterations = 0

    def start(self, seat: int, players: int, options: Any) -> None:
        super().start(seat, players, options)
        self._for_players(players)
        self._kept = None
        self._kept_round = -1
        if self._planner is not None:
            self._planner.start(seat, players, options)

    def _for_players(self, players: int) -> None:
        """``iterations``, ``delegate``, ``eval`` and the tree keys for this game's number of
        players (their defaults were screened per number of players)."""
        key = min(players, 3)
        self._iterations = scaled_iterations(self.iterations or AUTO_ITERATIONS[key], self.budget)
        self._delegate = self.delegate if self.delegate != "auto" else AUTO_DELEGATE[key]
        name = self.eval if self.eval != "auto" else AUTO_EVAL[key]
        leaf = self.search.evaluate
        if name != self._eval_name:  # a leaf keeps caches: made again only when it changes
            self._eval_name = name
            leaf = make_leaf(name, self.temperature)
        self.search.configure(leaf, AUTO_PLOT_KEYS[key])

    def observe(self, event: Event) -> None:
        """Passed on to the planner (it remembers where opponents' pandas ate)."""
        if self._planner is not None:
            self._planner.observe(event)

    # --------------------------------------------------------------------- decisions

    def choose(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        """The most visited root action after the search."""
        if len(legal) == 1:
            self._kept = None
            return legal[0]
        if self._delegate != "none" and (
            kind_of(legal[0]) == COMPLETE
            or (self._delegate == "steps" and view.step != STEP_ACTIONS)
        ):
            self._kept = None
            self.last_iterations = 0
            return self._planner.choose(view, legal)
        thinking = min(self.time * self.budget, MAX_MOVE_TIME)
        deadline = time.perf_counter() + thinking if self.time > 0 else 0.0
        search = self.search
        search.prepare(view)
        root = self._root(view)
        n = 0
        while n < self._iterations:
            search.iterate(root, view)
            n += 1
            if deadline and not n & 7 and time.perf_counter() >= deadline:
                break
        self.last_iterations = n
        best, action = search.best(root, view, list(legal))
        if self.reuse and best != END and best in root.children:
            self._kept = root.children[best]
            self._kept_round = view.round
        else:
            self._kept = None
        return action

    def _root(self, view: PlayerView) -> Node:
        """The kept subtree when this decision continues the turn it was grown for."""
        kept = self._kept
        self._kept = None
        if kept is not None and view.round == self._kept_round and view.current == self.seat:
            return kept
        root = Node(view.players)
        s = view.determinize(self.rng)
        cands, actions = self.search.keys(s, candidates(s.legal_actions()))
        self.search.lookahead_order(root, s, cands, actions, alone=view.current == self.seat)
        if (
            self._planner is not None
            and view.step == STEP_ACTIONS
            and kind_of(cands[0]) != COMPLETE
        ):
            self._planner_prior(root, view, s, cands)
        return root

    def _planner_prior(self, node: Node, view: PlayerView, s: GameState,
                       cands: list[int]) -> None:
        """Order and prior values of the root's actions from the ``objective`` planner.

        The planner values each first action of the turn by its best follow-up in the same
        turn (a channel by the growth it enables), with expected draws and denial: a better
        start than one step.  Its value is own progress minus the opponents' expected hands;
        the opponents' public points and pieces are subtracted too and the difference goes
        through the same logistic as the leaves, for the searching seat's component.
        """
        seat = view.seat
        values = self._planner.planned_values(view, s, cands)
        if not values:
            return
        rival = max(
            heuristics.SCORE_WEIGHT * view.score(q)
            + heuristics.CHANNEL_VALUE * view.stored_channels[q]
            + heuristics.IMPROVEMENT_VALUE * sum(view.stored_improvements[q][1:])
            for q in range(view.players) if q != seat
        )
        t = self.temperature
        prior = node.prior if node.prior is not None else {}
        for a, v in values.items():
            vec = list(prior.get(a, [0.5] * view.players))
            vec[seat] = lead_chance(v - rival, t)
            prior[a] = vec
        if self.prior > 0:
            node.prior = prior
        rand = self.rng.random
        node.order = [
            a for _v, _r, a in sorted((-values.get(a, -1e9), rand(), a) for a in cands)
        ]


__all__ = ["MctsBot"]
