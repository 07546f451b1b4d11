"""``elite``: the ``mcts`` search configured so that its strength grows with its budget.

Why a configuration of ``mcts`` rather than a search of its own: the default ``mcts`` leaves
every decision outside the action step to the ``objective`` planner and explores little
(``c`` 0.03), so more iterations mostly confirm the planner's prior choice; searching every
decision and exploring more is what turned extra iterations into wins in the screens of
``docs/experiments.md`` ("Why the search is flat in its budget").  Being ``MctsBot`` with other
defaults, ``elite`` plays on the reference engine too (the pure-Python search) and natively
through ``arena/native/core/src/bots/elite.rs`` (the same declarations, the same defaults).

``budget`` is a multiple of its default thinking: ``elite:budget=4`` searches four times the
iterations of ``elite`` at every decision.
"""

from __future__ import annotations

import dataclasses

from .base import Param
from .mcts import MctsBot

#: Where ``elite``'s defaults differ from ``mcts``'s (``elite.rs`` holds the same).
ELITE_DEFAULTS = {"c": 0.1, "delegate": "none"}


def _with_defaults(params: tuple[Param, ...], defaults: dict[str, object]) -> tuple[Param, ...]:
    """``params`` with these defaults (every name must be declared: a typo fails at import)."""
    names = {p.name for p in params}
    unknown = set(defaults) - names
    if unknown:
        raise ValueError(f"no such parameters of mcts: {sorted(unknown)}")
    return tuple(
        dataclasses.replace(p, default=defaults[p.name]) if p.name in defaults else p
        for p in params
    )


class EliteBot(MctsBot):
    """The ``mcts`` search with every decision searched and more exploration."""

    NATIVE = "elite"  # arena/native/core/src/bots/elite.rs

    PARAMS = _with_defaults(MctsBot.PARAMS, ELITE_DEFAULTS)


__all__ = ["EliteBot"]
