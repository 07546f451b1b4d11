"""``random``: uniform over the legal actions.

Idea: the baseline every other bot must beat, and the playout policy of the simplest search.
Parameter ``complete``: complete any objective that is satisfied before anything else (a
random player otherwise completes only by luck, which makes games run to the round cap).
Strengths: instant, unbiased. Limits: plays no plan at all.
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.engine import PlayerView
from arena.engine.actions import COMPLETE, kind_of

from .base import Bot, declared


class RandomBot(Bot):
    """Uniformly random legal actions (optionally completing objectives at once)."""

    #: Declared in arena/data/bot_params.json, which the native core compiles in too.
    PARAMS = declared("random")
    complete: bool
    NATIVE = "random"  # arena/native/core/src/bots/random_bot.rs

    def choose(self, view: PlayerView, legal: Sequence[int]) -> int:
        if self.complete:
            for action in legal:
                if kind_of(action) == COMPLETE:
                    return action
        return legal[self.rng.randrange(len(legal))]
