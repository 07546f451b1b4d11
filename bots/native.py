"""The Rust bots behind the built-in ones: what ``greedy``, ``objective`` and ``mcts`` decide
through on the native engine.

With the native engine selected (the default), ``GreedyBot``, ``ObjectiveBot`` and ``MctsBot``
hand each decision to their port in the native core (``arena._native.Bot``, the same
parameters): the same action, drawn from the same generator (``self.rng``, through its own
``getrandbits`` and ``randrange`` as ``random.Random`` computes them, so it ends where the
Python bot would leave it, and a generator shared with other code stays in step; ``mcts``,
which draws thousands of numbers a decision, reads a ``random.Random``'s state once and
writes it back).  The
decision digests (``tests/bots/test_decision_digests.py``) hold for both.  With
``ARENA_ENGINE=reference`` they are the pure-Python bots, unchanged: the readable
specification.

Under the native referee (``arena.match.play_game``, a tournament's native batches) the
classes' ``NATIVE`` names make the core play them itself, with no Python in the loop; this
module serves the calls made from Python (a Python game loop, ``mcts``'s prior, a test).

The Python code still decides when the native one cannot stand for it: a view or state of
the reference engine (built explicitly), or a subclass that overrides a method the
decision goes through (its override is honoured).
"""

from __future__ import annotations

from typing import Any

from arena.engine import ENGINE, GameState, PlayerView


def native_bot(name: str, params: dict[str, Any]) -> Any | None:
    """The Rust bot ``name`` with these (checked) parameters; None on the reference engine,
    or where the port refuses what Python took (a whole number beyond 64 bits)."""
    if ENGINE != "native":
        return None
    from arena.engine.native import _module

    try:
        return _module().Bot(name, params)
    except (ValueError, OverflowError):  # OverflowError: an int PyO3 cannot hold in 64 bits
        return None


def overrides(cls: type, base: type, names: tuple[str, ...]) -> bool:
    """Whether ``cls`` (a subclass of ``base``) overrides any of these methods."""
    return any(getattr(cls, n) is not getattr(base, n) for n in names)


def is_native_view(view: object) -> bool:
    """Whether a view is the native engine's (the Rust bots read its Rust view)."""
    return ENGINE == "native" and isinstance(view, PlayerView)


def is_native_state(state: object) -> bool:
    """Whether a state is the native engine's."""
    return ENGINE == "native" and isinstance(state, GameState)
