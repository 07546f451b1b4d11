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
compiled into the native core: ``learned`` has no Python twin, and this class only declares
it (``NATIVE``, and no ``choose``: ``arena.play.seat.native_only``).  Made from its spec, its
seat is native on either engine: on the reference engine (``ARENA_ENGINE=reference``) the
Python loop hands the Rust bot each view converted to the core's
(``arena.engine.native.core_view``).  A reference port of the features and the net is future
work (issue 51).

Parameters: ``samples`` (determinizations averaged per decision, default 2: it keeps
the bot within 1.5x ``objective``'s CPU a game, where 3 cost 1.8x and measured no stronger
against ``objective``; one sample measured worse; docs/experiments.md).

How it was trained and what it measured against ``objective``: ``docs/experiments.md``
("A value learned from self-play").
"""

from __future__ import annotations

from .base import Bot, declared


class LearnedBot(Bot):
    """One ply on the learned value (the decision is the native core's)."""

    NATIVE = "learned"  # arena/native/core/src/bots/learned.rs

    #: Declared in arena/data/bot_params.json, which the native core compiles in too.
    PARAMS = declared("learned")

    samples: int


__all__ = ["LearnedBot"]
