"""``elite``: a shallow search on the learned value, as backgammon programs search on theirs
(issue 51).

Idea: in this game a single decision is worth a few points of win chance, a rollout to the end
of the game spreads its outcome over ±0.5, and a hand-made leaf caps any search at its own bias
(``docs/experiments.md``, "Why the search is flat in its budget"): the ``mcts`` search that
``elite`` used to be was as flat in its budget as ``mcts``.  The learned value of ``learned``
(``arena/data/value.json``) already averages the luck of many games; what one ply on it cannot
see is what follows.  So for each decision ``elite`` samples states consistent with its view,
ranks every legal action by ``learned``'s one-ply value averaged over them (the policy as the
prior), keeps the best ``candidates``, plays each on *every* sample (common random numbers: the
same hidden cards, dice and decks for each candidate) with one ply on the same value to the
horizon (``turns`` turns ended; 1 = the end of its own turn), values the position reached with
the learned value, and keeps the candidate with the best mean.  A satisfied objective is
completed first.

``budget`` is a multiple of its default thinking: the samples per decision are ``samples ×
budget`` (at least one), so ``elite:budget=4`` plays every candidate on four times the samples.

The search runs in the native core (``arena/native/core/src/bots/elite.rs``): ``elite`` is
native-only, like ``learned``, its seat always native (``arena.play.seat``). This class only
declares it (its parameters are in ``arena/data/bot_params.json``, which the core compiles in
too): on the reference engine (``ARENA_ENGINE=reference``) the Python loop hands the Rust bot
each view converted to the core's (``arena.engine.native.core_view``), as it does for
``learned``. What it measured: ``docs/experiments.md`` ("``elite`` on the learned value").
"""

from __future__ import annotations

from .base import Bot, declared


class EliteBot(Bot):
    """A shallow search on the learned value (the decision is the native core's)."""

    NATIVE = "elite"  # arena/native/core/src/bots/elite.rs

    #: Declared in arena/data/bot_params.json, which the native core compiles in too.
    PARAMS = declared("elite")

    samples: int
    candidates: int
    turns: int
    budget: float


__all__ = ["EliteBot"]
