"""The native engine (``arena._native``, Rust) behind the reference's names and signatures.

``arena.engine`` exports these by default: ``GameState``, ``PlayerView``, ``new_game``,
``from_position``, ``to_position`` and ``positions_equal`` behave as the pure-Python
reference's (``state.py``, ``view.py``, ``position.py``), which stays as the readable
specification and is selected with ``ARENA_ENGINE=reference`` (``selected()``).  The
values they hand out are the reference's types: ``RuleOptions``, ``CardSet``,
``GameResult``, the exceptions of ``errors``, dicts, tuples and frozensets of ints.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import Any

from arena.engine.components import DEFAULT_CARD_SET, CardSet
from arena.engine.errors import ArenaError, OptionError, PositionError
from arena.engine.options import DEFAULTS, RuleOptions
from arena.engine.rng import check_new_game

#: The environment variable that selects the engine, and its values.
ENGINE_VARIABLE = "ARENA_ENGINE"
ENGINES = ("native", "reference")


def selected() -> str:
    """The engine ``arena.engine`` is backed by: ``ARENA_ENGINE`` (default ``native``).

    Any other value stops the program with one sentence and exit status 2, as bad input
    does: it is read when ``arena.engine`` is imported, before any command could report it.
    """
    name = os.environ.get(ENGINE_VARIABLE, "native").strip().lower() or "native"
    if name not in ENGINES:
        print(f"{ENGINE_VARIABLE}={name!r} is not an engine (valid values: "
              f"{', '.join(ENGINES)})", file=sys.stderr)
        raise SystemExit(2)
    return name


try:
    from arena import _native
except ImportError as exc:  # pragma: no cover - a tree whose extension was not built
    _native = None
    _IMPORT_ERROR: ImportError | None = exc
else:
    _IMPORT_ERROR = None


def available() -> bool:
    """Whether the extension module is built (``pip install -e .`` builds it)."""
    return _native is not None


def _module() -> Any:
    if _native is None:
        raise ImportError(
            f"the native engine is not built ({_IMPORT_ERROR}): run python -m pip install -e ."
            f" (or set {ENGINE_VARIABLE}=reference)"
        )
    return _native


if _native is not None:
    GameState = _native.GameState
    PlayerView = _native.PlayerView
    to_position = _native.to_position
    positions_equal = _native.positions_equal


def native_problem(cards: CardSet) -> str | None:
    """Why the native engine cannot play a set (more cards than its arrays hold: 64 in all,
    32 a deck), in the core's own sentence, or None; the reference has no such bound."""
    if not cards.added_entries:
        return None
    try:
        _module().check_card_set(cards)
    except OptionError as exc:
        return str(exc)
    return None


def from_position(data: Any) -> Any:
    """A state from a position, as the reference's ``from_position``: a ``card_set.add`` is
    checked by the same card definitions (the same sentences) before the core reads it."""
    if isinstance(data, dict) and isinstance(data.get("card_set"), dict) and (
            "add" in data["card_set"]):
        from arena.engine.position import checked_add

        checked_add(data["card_set"]["add"])
    return _module().from_position(data)


def new_game(
    players: int = 2,
    seed: int = 0,
    options: RuleOptions | None = None,
    *,
    dice: Sequence[int] = (),
    history: bool = True,
    cards: CardSet | None = None,
) -> Any:
    """A new game (R2), as the reference's ``new_game``: decks shuffled from ``seed``, one
    objective of each kind dealt; ``dice`` scripts the first faces, ``history=False`` skips
    the move log, ``cards`` is the objective card set."""
    check_new_game(players, seed, dice)
    # A set beyond the core's arrays is the core's OptionError.  The state keeps the set
    # (``state.card_set``), which whatever reads its cards in Python asks.
    cards = cards or DEFAULT_CARD_SET
    return _module().new_game(
        players, seed, options or DEFAULTS, list(dice), history, cards
    )


def engine(name: str) -> Any:
    """The functions and classes of one engine by name (``native`` or ``reference``),
    whichever ``arena.engine`` is backed by: what a benchmark or a differential test that
    runs both in one process needs.  The result has ``new_game``, ``GameState``,
    ``PlayerView``, ``from_position``, ``to_position`` and ``positions_equal``."""
    from types import SimpleNamespace

    if name == "native":
        module = _module()
        return SimpleNamespace(
            name=name, new_game=new_game, GameState=module.GameState,
            PlayerView=module.PlayerView, from_position=from_position,
            to_position=module.to_position, positions_equal=module.positions_equal,
        )
    if name == "reference":
        from arena.engine import position, state, view

        return SimpleNamespace(
            name=name, new_game=state.new_game, GameState=state.GameState,
            PlayerView=view.PlayerView, from_position=position.from_position,
            to_position=position.to_position, positions_equal=position.positions_equal,
        )
    raise ArenaError(f"{name!r} is not an engine (valid values: {', '.join(ENGINES)})")


def reference_of(obj: Any, improvements: Sequence[int], tiles: Sequence[int] | None) -> Any:
    """The reference's state or view holding the values of a native one: what a native
    state or view reads every field beyond the API off (one conversion, made once until the
    state changes, instead of a getter a field in the extension).

    A state goes through its position (the whole truth); a view through a state consistent
    with it (its ``determinize`` on a fixed generator: the hidden parts it draws are not the
    view's, and the view made of that state is the same view).  The position is read as it
    stands (``read_position``), not advanced: a sampled hand could end a turn that the real
    one keeps open, and a native state is at a decision already.  The two dicts whose order a
    caller may see are put back in the native order: ``improvement`` in the order the
    improvements were made, ``tiles`` in the order ``share_layout`` took (else placement).
    """
    import random

    from arena.engine import position
    from arena.engine import view as reference_view

    is_view = isinstance(obj, _module().PlayerView)
    # The native class's own determinize: a subclass that overrides it (a view revealing
    # more, scripts/clairvoyance.py) may read fields, which would come back here.
    native_view = _module().PlayerView
    data = to_position(native_view.determinize(obj, random.Random(0)) if is_view else obj)
    try:
        state = position.read_position(data, played=True)
    except PositionError:
        if is_view:
            raise
        # A named edit (``with_hand``, ``with_hidden``) may leave the cards not adding up:
        # the public part is read with the decks refilled, the hidden parts are the edit's.
        state = position.read_position({k: v for k, v in data.items() if k != "decks"},
                                       played=True)
        state.hands = [tuple(h) for h in obj.hands]
        state.objective_decks = obj.objective_decks
        state.plot_deck, state.drawn = obj.plot_deck, obj.drawn
    state.improvement = {c: state.improvement[c] for c in improvements}
    if tiles is not None:
        state.tiles = {c: state.tiles[c] for c in tiles}
    if not is_view:
        state.history = obj.history
    reference = reference_view.PlayerView.of(state, obj.seat) if is_view else state
    if obj.card_points is not obj.card_set.points:
        reference.card_points = obj.card_points
    reference.options, reference.card_set = obj.options, obj.card_set
    return reference
