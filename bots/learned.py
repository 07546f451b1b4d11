"""``learned``: one ply on a value learned from self-play (issue 51).

Idea: the hand-made evaluation of ``greedy``, ``objective`` and the ``mcts`` leaves caps every
search built on it; here the value of a position is a small multilayer perceptron trained on
the outcomes of games played in the core (``scripts/train_value.py``), reading features of
what the deciding seat may see (``arena/native/core/src/bots/features.rs``: scores and the
Emperor race, the own cards with the heuristics' cost estimates, stocks, the opponent's public
facts, the board by colour, the decks).  For each decision the bot samples full states
consistent with its view, tries every legal action on each (looking through ``place`` after
``plot`` and the weather's effects, as ``greedy`` does), and keeps the action whose result the
net gives the best chance of winning.  A satisfied objective is completed first.

The weights are data, ``arena/data/value.json`` (its SHA-256 in ``arena/data/value.sha256``),
compiled into the native core: ``learned`` is native-only.  On the reference engine
(``ARENA_ENGINE=reference``) its ``choose`` refuses with a sentence saying so; a reference
port of the features and the net is future work (issue 51).

Parameters: ``samples`` (determinizations averaged per decision, default 2: it keeps
the bot within 1.5x ``objective``'s CPU a game, where 3 cost 1.8x and measured no stronger
against ``objective``; one sample measured worse; docs/experiments.md).

How it was trained and what it measured against ``objective``: ``docs/experiments.md``
("A value learned from self-play").
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from arena.engine import PlayerView

from .base import Bot, Param
from .native import is_native_view, native_bot


class LearnedBot(Bot):
    """One ply on the learned value (the decision is the native core's)."""

    NATIVE = "learned"  # arena/native/core/src/bots/learned.rs

    PARAMS = (
        Param("samples", int, 2, "determinizations averaged per decision", minimum=1,
              maximum=1000),
    )

    samples: int

    def __init__(self, rng: random.Random | None = None, **params: Any) -> None:
        super().__init__(rng, **params)
        #: The Rust bot that decides (None on the reference engine, where ``choose`` refuses).
        self._native = native_bot("learned", self.params)

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_native"] = None  # rebuilt on unpickling
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._native = native_bot("learned", self.params)

    def choose(self, view: PlayerView, legal: Sequence[int]) -> int:
        if len(legal) == 1:
            return legal[0]
        if self._native is None or not is_native_view(view):
            raise RuntimeError(
                "the learned bot plays on the native engine only (its value is computed in "
                "the core); unset ARENA_ENGINE=reference")
        return self._native.choose(view, legal, self.rng)  # type: ignore[no-any-return]


__all__ = ["LearnedBot"]
