"""``greedy``: one-ply lookahead with the shared evaluation.

Idea: for each decision, sample a full state consistent with the view
(``view.determinize``), try every legal action on a copy, and keep the action whose result
``bots.heuristics.evaluate`` likes best for this seat (points now, then the hand's cards
discounted by the actions they still need).  A "ply" is a decision that changes the board:
when an action only opens another decision of the same seat (``plot`` opens ``place``; a
weather choice opens ``rain``, ``storm`` or ``clouds``), the bot looks through it and takes
the best follow-up, so that drawing plots is valued by the best placement of what was drawn
and choosing rain by the best plot to rain on.  Values are averaged over ``samples``
determinizations; ties are broken with the bot's seeded generator.  A satisfied objective
is always completed first (the evaluation prefers it anyway: a scored point weighs more
than a point in hand).

Parameters: ``samples`` (determinizations averaged per decision, default 1; more samples
reduce the luck of chance actions such as ``plot`` and ``objective`` at a proportional cost
in time); ``decay`` (the evaluation's discount per action a card still needs, default the
shared evaluation's ``DECAY``, 0.5).

On the native engine a ``greedy`` made from its spec is a native seat (``arena.play.seat``): its
Rust twin (``arena/native/core/src/bots/greedy.rs``) makes the same decisions with the same
draws; this class is the readable reference.

Strengths: fast (about 1 ms of CPU per decision, 0.16 s a 2-player game on a loaded machine:
``scripts/bench_bots.py``), never misses a free completion, grows, eats and lays plots
towards the cards it holds, and uses the weather when it helps right away.
Limits: no plan beyond the next action: it cannot value an action that only pays off two
actions later (a channel that irrigates nothing yet, the sun's extra action), ends its turn
when no single action improves its position, ignores what opponents may be building, and
with one sample it judges an ``objective`` draw by a single random card.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from arena.engine import STEP_ACTIONS, GameState, PlayerView
from arena.engine.actions import COMPLETE, FREE_KINDS, is_swap, kind_of

from .base import Bot, declared
from .heuristics import DEFAULT_WEIGHTS, Weights, evaluate


class GreedyBot(Bot):
    """One-ply lookahead: the legal action whose result evaluates best (bots.heuristics)."""

    NATIVE = "greedy"  # arena/native/core/src/bots/greedy.rs

    #: Declared in arena/data/bot_params.json, which the native core compiles in too.
    PARAMS = declared("greedy")
    samples: int
    decay: float

    def __init__(self, rng: random.Random | None = None, **params: Any) -> None:
        super().__init__(rng, **params)
        self.weights = Weights(decay=self.decay)

    def choose(self, view: PlayerView, legal: Sequence[int]) -> int:
        if len(legal) == 1:
            return legal[0]
        for action in legal:
            if kind_of(action) == COMPLETE:
                return action
        totals = [0.0] * len(legal)
        for _ in range(self.samples):
            state = view.determinize(self.rng)
            for i, action in enumerate(legal):
                totals[i] += self.value_after(state, action, view.seat, self.weights)
        best = max(totals)
        ties = [a for a, v in zip(legal, totals) if v >= best - 1e-9]
        return ties[self.rng.randrange(len(ties))] if len(ties) > 1 else ties[0]

    @staticmethod
    def value_after(
        state: GameState,
        action: int,
        seat: int,
        weights: Weights = DEFAULT_WEIGHTS,
        depth: int = 2,
    ) -> float:
        """The evaluation after ``action``, looking through follow-up steps of the same seat.

        ``place`` after ``plot`` and the weather effects after a weather choice are part of
        the same move, so their best outcome is the action's value (``depth`` bounds this).
        """
        child = state.copy()
        child.apply(action)
        if depth > 0 and not child.ended and child.current == seat and child.step != STEP_ACTIONS:
            # A "swap" placement only reorders the plot deck's bottom, which the evaluation
            # does not read: its value is that of the same placement without the swap.  The
            # free moves open at that step (R3.1) are left to the action step that follows.
            return max(
                GreedyBot.value_after(child, follow, seat, weights, depth - 1)
                for follow in child.legal_actions()
                if not is_swap(follow) and kind_of(follow) not in FREE_KINDS
            )
        return evaluate(child, seat, weights)
