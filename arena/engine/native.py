"""The native engine (``arena._native``, Rust) behind the reference's names and signatures.

``arena.engine`` exports these by default: ``GameState``, ``PlayerView``, ``new_game``,
``from_position``, ``to_position`` and ``positions_equal`` behave as the pure-Python
reference's (``state.py``, ``view.py``, ``position.py``), which stays as the readable
specification and is selected with ``ARENA_ENGINE=reference`` (``selected()``).  The
values they hand out are the reference's types: ``RuleOptions``, ``CardSet``,
``GameResult``, the exceptions of ``errors``, dicts, tuples and frozensets of ints.

The extension answers in plain values (``arena._native.State`` and ``View``: ints, lists,
dicts); the classes here hold one and make the reference's objects of its answers: the
game's options and card set, the card points a caller gave, the history's tuples, the
legal list handed out until the state changes.  Any field of the reference's object model
beyond the API (``tiles``, ``bamboo``, ...) is read off the reference's object made from
the native one once (:func:`reference_of`), so the extension never imitates that model.
"""

from __future__ import annotations

import operator
import os
import random
import sys
from collections.abc import Sequence
from typing import Any

from arena.engine.components import DEFAULT_CARD_SET, CardSet
from arena.engine.errors import ArenaError, OptionError, PositionError
from arena.engine.options import DEFAULTS, RuleOptions
from arena.engine.rng import check_new_game
from arena.engine.state import STEP_NAMES, GameResult

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
    core = _module().from_position(data)
    return GameState.of_core(core, *_objects(core))


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
    options = options or DEFAULTS
    core = _module().new_game(players, seed, options, list(dice), history, cards)
    return GameState.of_core(core, options, cards)


def engine(name: str) -> Any:
    """The functions and classes of one engine by name (``native`` or ``reference``),
    whichever ``arena.engine`` is backed by: what a benchmark or a differential test that
    runs both in one process needs.  The result has ``new_game``, ``GameState``,
    ``PlayerView``, ``from_position``, ``to_position`` and ``positions_equal``."""
    from types import SimpleNamespace

    if name == "native":
        _module()
        return SimpleNamespace(
            name=name, new_game=new_game, GameState=GameState, PlayerView=PlayerView,
            from_position=from_position, to_position=to_position,
            positions_equal=positions_equal,
        )
    if name == "reference":
        from arena.engine import position, state, view

        return SimpleNamespace(
            name=name, new_game=state.new_game, GameState=state.GameState,
            PlayerView=view.PlayerView, from_position=position.from_position,
            to_position=position.to_position, positions_equal=position.positions_equal,
        )
    raise ArenaError(f"{name!r} is not an engine (valid values: {', '.join(ENGINES)})")


def _ints(values: Any) -> list[int]:
    """A caller's ints as plain ints (a numpy int, a bool), which the core reads and checks."""
    return [int(operator.index(v)) for v in values]


def _objects(core: Any) -> tuple[RuleOptions, CardSet]:
    """The reference's options and card set of a core's game (a position, an unpickled view)."""
    options, changes = core.objects()
    return RuleOptions.from_dict(options), CardSet.from_changes(**changes)


class _Answered:
    """A public name of the reference's object model that the native classes do not make
    (a field such as ``tiles``, a property, a method): read off the reference's object made
    from this one (:func:`reference_of`, once until the state changes).  A descriptor per
    name rather than a ``__getattr__``: a class with an attribute hook loses CPython's fast
    path for every method call on it, ``apply`` and ``legal_actions`` included."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        if obj is None:
            return self
        return getattr(obj._made_reference(), self.name)


def _answer_the_reference(cls: type, reference: type) -> None:
    """Gives ``cls`` every public name of ``reference`` it does not make itself."""
    for name in dir(reference):
        if not name.startswith("_") and not hasattr(cls, name):
            setattr(cls, name, _Answered(name))


class _Board:
    """What a native state and view share: the core's object, the game's options and card
    set, the card points its scores sum, and the reference's object made from it when a
    caller reads a field the API does not name (made once until the state changes)."""

    __slots__ = ("_core", "_points_set", "_reference", "card_points", "card_set", "options")

    def _hold(self, core: Any, options: RuleOptions, card_set: CardSet,
              points: Any = None) -> None:
        self._core = core
        self.options, self.card_set = options, card_set
        self._points_set = points is not None
        self.card_points = card_set.points if points is None else points
        self._reference: Any = None

    @property
    def players(self) -> int:
        return self._core.players  # type: ignore[no-any-return]

    @property
    def round(self) -> int:
        return self._core.round  # type: ignore[no-any-return]

    @property
    def current(self) -> int:
        return self._core.current  # type: ignore[no-any-return]

    @property
    def step(self) -> int:
        return self._core.step  # type: ignore[no-any-return]

    @property
    def ended(self) -> bool:
        return self._core.ended  # type: ignore[no-any-return]

    def scores(self) -> list[int]:
        """Points per seat now (R13.3); summed in Python from points a caller gave."""
        if self._points_set:
            return self._made_reference().scores()  # type: ignore[no-any-return]
        return self._core.scores()  # type: ignore[no-any-return]

    def objective_found(self, seat: int, card: int) -> bool:
        """Whether a card's condition holds now for a seat (R10.3-R10.6)."""
        return self._core.objective_found(seat, card)  # type: ignore[no-any-return]

    def with_card_points(self, points: Any) -> Any:
        """A copy whose scores sum ``points`` (an archetype plans with weighted points)."""
        copy = self.__copy__()
        copy.card_points, copy._points_set, copy._reference = points, True, None
        return copy

    def __copy__(self) -> Any:
        raise NotImplementedError

    def _made_reference(self) -> Any:
        if self._reference is None:
            self._reference = reference_of(self)
        return self._reference


class GameState(_Board):
    """A Takenoko game at a decision point: the native ``arena.engine.GameState``."""

    __module__ = "arena.engine"
    __slots__ = ("_history", "_legal", "_synced", "_tiles_order")

    @classmethod
    def of_core(cls, core: Any, options: RuleOptions, card_set: CardSet,
                points: Any = None) -> GameState:
        """The state holding ``core`` (an ``arena._native.State``), its history read whole."""
        s = cls.__new__(cls)
        s._hold(core, options, card_set, points)
        s._history = core.entries(0)
        s._synced = 0 if s._history is None else len(s._history)
        s._legal = None
        s._tiles_order = None
        return s

    def _derived(self, core: Any, history: bool) -> GameState:
        """A state of ``core``, made from this one (its history copied when ``history``);
        the slots set here one by one, not through ``_hold``: every ``copy`` of a search
        comes here."""
        s = GameState.__new__(GameState)
        s._core, s.options, s.card_set = core, self.options, self.card_set
        s.card_points, s._points_set = self.card_points, self._points_set
        s._reference = s._legal = None
        if history and self._history is not None:
            s._history, s._synced = list(self._history), self._synced
        else:
            s._history, s._synced = None, 0
        s._tiles_order = self._tiles_order
        return s

    def _sync(self) -> None:
        """Reads the history's new entries (the game keeps a history)."""
        new = self._core.entries(self._synced)
        self._history.extend(new)  # type: ignore[union-attr]
        self._synced += len(new)

    def _changed(self) -> None:
        """Forgets what was made of the state and reads the history's new entries."""
        self._legal = self._reference = None
        if self._history is not None:
            self._sync()

    @property
    def history(self) -> list[tuple[Any, ...]] | None:
        """The move log as the reference keeps it (None when the game keeps none)."""
        return self._history

    @property
    def hands(self) -> list[tuple[int, ...]]:
        return [tuple(h) for h in self._core.hidden()[0]]

    @property
    def objective_decks(self) -> tuple[tuple[int, ...], ...]:
        return tuple(tuple(d) for d in self._core.hidden()[1])

    @property
    def plot_deck(self) -> tuple[int, ...]:
        return tuple(self._core.hidden()[2])

    @property
    def drawn(self) -> tuple[int, ...]:
        return tuple(self._core.hidden()[3])

    @property
    def dice(self) -> tuple[int, ...]:
        return tuple(self._core.hidden()[4])

    @property
    def seed(self) -> int:
        return self._core.seed  # type: ignore[no-any-return]

    @property
    def rng(self) -> int:
        return self._core.rng  # type: ignore[no-any-return]

    def legal_actions(self) -> list[int]:
        """The actions the current seat may choose now (empty once the game is over); the
        same list until the state changes."""
        if self._legal is None:
            self._legal = self._core.legal_actions()
        return self._legal

    def apply(self, action: int) -> None:
        """Apply a legal action of the current seat, then resolve chance and forced steps."""
        self._legal = self._reference = None
        try:
            self._core.apply(action, False)
        finally:
            if self._history is not None:
                self._sync()

    def play(self, action: int) -> None:
        """Apply an action after checking it is legal; IllegalActionError if not."""
        self._legal = self._reference = None
        try:
            self._core.apply(action, True)
        finally:
            if self._history is not None:
                self._sync()

    def is_terminal(self) -> bool:
        return self._core.ended  # type: ignore[no-any-return]

    def copy(self, *, history: bool = False) -> GameState:
        """A cheap, independent copy; the history is dropped unless asked for."""
        s = self._derived(self._core.copy(history), history)
        s._legal = self._legal
        return s

    def __copy__(self) -> GameState:
        return self.copy()

    def with_hand(self, seat: int, hand: Sequence[int]) -> GameState:
        """A copy in which ``seat`` holds ``hand`` (search asks "what if" of its own copies)."""
        return self._derived(self._core.with_hand(seat, list(hand)), False)

    def with_hidden(self, *, hands: Any = None, objective_decks: Any = None,
                    plot_deck: Any = None, drawn: Any = None, rng: int | None = None,
                    seed: int | None = None) -> GameState:
        """A copy (history kept) with the hidden parts given replaced, each checked by the
        core (an int of any size refused in a sentence that quotes it)."""
        given = {
            "hands": None if hands is None else [_ints(h) for h in hands],
            "objective_decks": None if objective_decks is None else [
                _ints(d) for d in objective_decks],
            "plot_deck": None if plot_deck is None else _ints(plot_deck),
            "drawn": None if drawn is None else _ints(drawn),
            "rng": None if rng is None else int(operator.index(rng)),
            "seed": None if seed is None else int(operator.index(seed)),
        }
        return self._derived(self._core.with_hidden(given), True)

    def with_step(self, step: int, weather: int) -> GameState:
        """A copy at another step of the turn with another weather."""
        return self._derived(self._core.with_step(step, weather), False)

    def with_hidden_from(self, sample: GameState, seat: int) -> GameState:
        """A copy holding ``sample``'s hidden parts but ``seat``'s own hand."""
        return self._derived(self._core.with_hidden_from(sample._core, seat), False)

    def share_layout(self, other: GameState) -> None:
        """Takes the layout of ``other``, a state with the same layout, in ``other``'s
        order (a search canonicalises its layouts for the caches that find a layout by
        identity); the reference's objects of the layout are the other's from now on."""
        if self is other:
            return
        self._core.share_layout(other._core)
        order = other._tiles_order or other._core.orders()[1]
        self._tiles_order = None if order == self._core.orders()[1] else order
        self._changed()
        self._made_reference().share_layout(other._made_reference())

    def place_card(self, card: int, *, seat: int | None = None,
                   depth: int | None = None) -> None:
        """Puts objective ``card`` in a chosen place of the deal before the first decision
        (an experiment's intervention): the reference's ``place_card``, its refusals a
        ``PlacementError`` with the same sentence."""
        self._core.place_card(card, seat, depth)
        self._changed()
        if self._history is not None:  # the deal's entries were rewritten
            self._history[: self._synced] = self._core.entries(0)[: self._synced]

    def result(self, excluded: Sequence[int] | None = None) -> GameResult:
        """Scores and winners (R13.3-R13.5); ``excluded`` seats cannot win."""
        given = list(excluded or ())
        seats = []
        for seat in given:
            try:
                seat = operator.index(seat)
            except TypeError:
                continue
            if 0 <= seat < 4:
                seats.append(seat)
        return GameResult.from_dict(self._core.result(seats), given)

    def as_reference(self) -> Any:
        """The reference engine's state with this one's values (a copy, history kept): what
        a Python bot searches on, or a test compares."""
        return self._made_reference().copy(history=True)

    def __repr__(self) -> str:
        return (f"<GameState players={self.players} round={self.round} seat={self.current} "
                f"step={STEP_NAMES[self.step]} scores={self._core.scores()}"
                f"{' ended' if self.ended else ''}>")

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        """Pickled as its position and history (the position is the whole truth)."""
        return _state_from_pickle, (self._core.position(), self._history)


class PlayerView(_Board):
    """What one seat may know (R2.6): the native ``arena.engine.PlayerView``, a snapshot.

    ``PlayerView(view)`` is a copy of ``view``: what a subclass that wraps one is made from
    (``class Mine(PlayerView)``, ``Mine(view, ...)``; the arguments after it are the
    subclass's own)."""

    __module__ = "arena.engine"
    __slots__ = ()

    def __new__(cls, view: PlayerView, *args: Any, **kwargs: Any) -> PlayerView:
        v = object.__new__(cls)
        for name in _Board.__slots__:
            setattr(v, name, getattr(view, name))
        return v

    @classmethod
    def of_core(cls, core: Any, options: RuleOptions, card_set: CardSet,
                points: Any = None) -> PlayerView:
        """The view holding ``core`` (an ``arena._native.View``): ``_hold`` written out, since
        the native referee makes one for every decision of a Python seat."""
        v = object.__new__(cls)
        v._core, v.options, v.card_set, v._reference = core, options, card_set, None
        v._points_set = points is not None
        v.card_points = card_set.points if points is None else points
        return v

    @classmethod
    def of(cls, state: GameState, seat: int) -> PlayerView:
        """The view of ``seat`` on ``state``."""
        points = state.card_points if state._points_set else None
        return cls.of_core(state._core.view(seat), state.options, state.card_set, points)

    @property
    def seat(self) -> int:
        return self._core.seat  # type: ignore[no-any-return]

    def __copy__(self) -> PlayerView:
        return PlayerView(self)

    def determinize(self, rng: random.Random, legal: list[int] | None = None) -> GameState:
        """A full state consistent with this view, the hidden parts drawn from ``rng`` (the
        same draws as the reference: a ``random.Random`` ends where the reference leaves
        it); ``legal``, the seat's legal list, is the state's when it is the seat's turn."""
        points = self.card_points if self._points_set else None
        s = GameState.of_core(self._core.determinize(rng), self.options, self.card_set, points)
        if legal is not None and self._core.current == self._core.seat:
            s._legal = list(legal)
        return s

    def to_dict(self) -> dict[str, Any]:
        """Everything in the view, JSON-ready (equal views give equal dicts)."""
        return self._core.to_dict()  # type: ignore[no-any-return]

    def to_json(self) -> str:
        """The canonical text of the view (sorted keys)."""
        return self._core.canonical()  # type: ignore[no-any-return]

    def as_reference(self) -> Any:
        """The reference engine's view with this one's values."""
        return self._made_reference()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PlayerView) and self._core == other._core

    def __hash__(self) -> int:
        return hash(self.to_json())

    def __repr__(self) -> str:
        return (f"<PlayerView seat={self.seat} round={self.round} current={self.current} "
                f"step={STEP_NAMES[self.step]}>")

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        """Pickled as its data (a bot in its own process receives its views so)."""
        return _view_from_pickle, (self._core.text(), self._core.orders()[0])


def _answer_both() -> None:
    from arena.engine import state, view

    _answer_the_reference(GameState, state.GameState)
    _answer_the_reference(PlayerView, view.PlayerView)


_answer_both()


def _state_from_pickle(data: Any, history: list[Any] | None) -> GameState:
    s = from_position(data)
    if history is None:
        s._core, s._history, s._synced = s._core.copy(False), None, 0
    else:
        # The position's own reading may have rolled nothing (it was written at a decision);
        # the history is the pickled one, the core's entries from here on appended to it.
        s._history = list(history)
    return s


def _view_from_pickle(text: str, order: list[int]) -> PlayerView:
    core = _module().View.from_text(text, order)
    return PlayerView.of_core(core, *_objects(core))


def core_view(view: Any) -> tuple[Any, Any]:
    """``view`` as the core's view (``arena._native.View``) and the card points a native
    bot plans with (None: the card set's): a native view's own; the reference's converted
    through the text both engines write of a view and the order its improvements were
    placed in (what the core's pickling carries too)."""
    if isinstance(view, PlayerView):
        return view._core, view.card_points if view._points_set else None
    return _module().View.from_text(view.to_json(), list(view.improvement)), None


def mirror(previous: GameState | None, core: Any, options: RuleOptions,
           card_set: CardSet) -> GameState:
    """The ``GameState`` holding ``core``, a core state the native referee keeps up with
    its game (what ``on_event`` is shown): ``previous`` brought up to it when it holds it."""
    if previous is None or previous._core is not core:
        return GameState.of_core(core, options, card_set)
    previous._changed()
    return previous


def to_position(state: GameState) -> dict[str, Any]:
    """The position of a state (the whole truth)."""
    return state._core.position()  # type: ignore[no-any-return]


def positions_equal(a: GameState, b: GameState) -> bool:
    """Whether two states are the same position."""
    return a._core.same_position(b._core)  # type: ignore[no-any-return]


def reference_of(obj: _Board) -> Any:
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
    from arena.engine import position
    from arena.engine import view as reference_view

    is_view = isinstance(obj, PlayerView)
    # The native class's own determinize: a subclass that overrides it (a view revealing
    # more, scripts/clairvoyance.py) may read fields, which would come back here.
    data = to_position(PlayerView.determinize(obj, random.Random(0)) if is_view  # type: ignore[arg-type]
                       else obj)  # type: ignore[arg-type]
    try:
        state = position.read_position(data, played=True)
    except PositionError:
        if is_view:
            raise
        # A named edit (``with_hand``, ``with_hidden``) may leave the cards not adding up:
        # the public part is read with the decks refilled, the hidden parts are the edit's.
        state = position.read_position({k: v for k, v in data.items() if k != "decks"},
                                       played=True)
        state.hands = obj.hands  # type: ignore[attr-defined]
        state.objective_decks = obj.objective_decks  # type: ignore[attr-defined]
        state.plot_deck, state.drawn = obj.plot_deck, obj.drawn  # type: ignore[attr-defined]
    improvements = obj._core.orders()[0]
    state.improvement = {c: state.improvement[c] for c in improvements}
    tiles = None if is_view else obj._tiles_order  # type: ignore[attr-defined]
    if tiles is not None:
        state.tiles = {c: state.tiles[c] for c in tiles}
    if not is_view:
        state.history = obj.history  # type: ignore[attr-defined]
    reference = reference_view.PlayerView.of(state, obj.seat) if is_view else state  # type: ignore[attr-defined]
    if obj._points_set:
        reference.card_points = obj.card_points
    reference.options, reference.card_set = obj.options, obj.card_set
    return reference
