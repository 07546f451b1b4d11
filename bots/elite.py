"""``elite``: the ``mcts`` search configured so that its strength grows with its budget.

Why a configuration of ``mcts`` rather than a search of its own: the default ``mcts`` leaves
every decision outside the action step to the ``objective`` planner and explores little
(``c`` 0.03), so more iterations mostly confirm the planner's prior choice; searching every
decision and exploring more is what turned extra iterations into wins in the screens of
``docs/experiments.md`` ("Why the search is flat in its budget").  Being ``MctsBot`` with other
defaults, ``elite`` plays on the reference engine too (the pure-Python search) and natively
through ``arena/native/core/src/bots/elite.rs`` (the same declarations, the same defaults:
``arena/data/bot_params.json``, which both read).

``budget`` is a multiple of its default thinking: ``elite:budget=4`` searches four times the
iterations of ``elite`` at every decision.
"""

from __future__ import annotations

from .base import declared
from .mcts import MctsBot


class EliteBot(MctsBot):
    """The ``mcts`` search with every decision searched and more exploration."""

    NATIVE = "elite"  # arena/native/core/src/bots/elite.rs

    #: ``mcts``'s parameters with ``elite``'s defaults: ``arena/data/bot_params.json``
    #: declares it ``like`` mcts (a default naming no parameter of mcts fails at import).
    PARAMS = declared("elite")


#: Where ``elite``'s defaults differ from ``mcts``'s.
ELITE_DEFAULTS = {p.name: p.default for p, m in zip(EliteBot.PARAMS, MctsBot.PARAMS) if p != m}

__all__ = ["ELITE_DEFAULTS", "EliteBot"]
