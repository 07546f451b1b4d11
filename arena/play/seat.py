"""Where a bot plays, decided once; and the one table that picks a game's referee.

A seat is decided when a bot is made from its spec (``BotSpec.create``, so ``make_bot``, the
workers, the jail and the scripts alike), never again while it plays:

- a **native seat** (:class:`NativeBot`): the spec's class declares a Rust twin
  (``NATIVE``, its own declaration: a subclass that may decide otherwise does not inherit
  it), the native engine is selected, and the core takes its parameters.  Its decisions are
  the twin's, drawn from the bot's own ``random.Random``; the native referee plays it with no
  Python in the loop.  A class with no Python twin (:func:`native_only`: ``NATIVE`` and no
  ``choose``, such as ``learned``) is a native seat on the reference engine too, its Rust bot
  handed the Python loop's views converted (``arena.engine.native.core_view``).
- a **Python seat**: any other bot, its class itself (the built-in classes are the readable
  reference: they hold no dispatching).  The native referee calls it back.
- a **jailed seat**: an isolated participant, ``arena.jail.sandbox.RemoteBot`` (its bot
  is made in its jail, by the same ``BotSpec.create``); a Python seat to the referee.

Then :func:`referee_for` picks the referee of a game from :data:`LOOP_REASONS`, the one table
of the reasons a game leaves the native referee, each a named row:

- ``batch``: every seat native and nothing to call back: the core plays the whole game (a
  tournament's all-native games, many per call: ``arena.tournament.native_games``, whose
  worker asks :func:`batch_plays` of each game, its participants' seats decided once by
  :func:`participant_seats`);
- ``callback``: the native referee, calling the Python seats and hooks back
  (``arena.play.referee.play_native``);
- ``loop``: the Python loop (``arena.play.match.python_loop``), for a game a row of the table names.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from arena.engine import ENGINE, CardSet, RuleOptions
from arena.engine import native as _engine
from arena.play.bot import Bot

#: The referees a game may get (``referee_for``).
BATCH, CALLBACK, LOOP = "batch", "callback", "loop"
#: Seeds the core takes (a wider int is played by the Python loop, which takes any).
SEED_RANGE = range(-(2**127), 2**127)
#: The default rules (frozen), which a seat holds until its ``start``.
_DEFAULT_OPTIONS = RuleOptions()


def core() -> Any:
    """The extension module ``arena._native``."""
    return _engine._module()


def native_only(cls: type) -> bool:
    """Whether ``cls`` has no Python twin: it declares a Rust twin (``NATIVE``, its own) and
    no ``choose`` of its own (the protocol's, ``Bot.choose``).  Such a bot is a native seat
    on either engine: on the reference engine the Python loop hands its twin each view
    converted to the core's (``arena.engine.native.core_view``)."""
    return bool(cls.__dict__.get("NATIVE")) and getattr(cls, "choose", None) is Bot.choose


def twin_name(cls: type) -> str | None:
    """The Rust twin that makes exactly ``cls``'s decisions, by its registry name: declared
    by the class itself (``Bot.NATIVE``), known to the core, on the native engine (on the
    reference engine only for a bot with no Python twin, ``native_only``); else None."""
    name = cls.__dict__.get("NATIVE")
    if not name or (ENGINE != "native" and not native_only(cls)):
        return None
    if name not in core().bot_names():
        return None
    return name  # type: ignore[no-any-return]


#: ``takes``'s answers: one configuration makes thousands of bots (one per seat and game).
_TAKES: dict[tuple[str, tuple[tuple[str, Any], ...]], bool] = {}
#: The twins with no handle for Python (``NativeBot.stand_in``): found once each.
_NO_HANDLE: set[str] = set()


def takes(name: str, params: dict[str, Any]) -> bool:
    """Whether the core's bot ``name`` takes these (full, checked) parameters: not one beyond
    the port's 64 bits, say, which the Python class takes."""
    key = (name, tuple(params.items()))
    hit = _TAKES.get(key)
    if hit is None:
        try:
            hit = core().check_bot_params(name, params) is None
        except ValueError:  # a value the core does not take: an int beyond 64 bits, say
            hit = False
        if len(_TAKES) > 256:
            _TAKES.clear()
        _TAKES[key] = hit
    return hit


class NativeBot(Bot):
    """A native seat: a built-in bot the core plays by its Rust twin, with the reference
    class's parameters and its own generator.

    Called from Python (a Python loop, a jail, a script), it decides through the twin's
    handle (``arena._native.Bot``), which draws from ``self.rng`` as the Python bot would
    (through its methods, or, for the search, its state read once and written back), so it
    leaves the generator where the Python bot would; the decision digests hold for both.  A
    twin with no such handle (``random``: ten lines) is stood in for by its reference class,
    on the same generator.  Both are made when first needed: the native referee needs
    neither.
    """

    def __init__(self, name: str, reference: type[Bot], rng: random.Random | None,
                 params: dict[str, Any]) -> None:
        # Not Bot.__init__: the parameters are the reference class's, checked by it.
        self.rng = rng if rng is not None else random.Random(0)
        self.params = params
        for key, value in params.items():
            setattr(self, key, value)
        self.seat = 0
        self.players = 2
        self.options = _DEFAULT_OPTIONS  # frozen: one object serves every seat
        #: The Rust twin's registry name, and the class it stands for.
        self.native = name
        self.reference = reference
        #: Iterations the last decision searched (``mcts``; 0 for the others).
        self.last_iterations = 0
        self._handles: tuple[Any, Bot | None] | None = None

    def _made(self) -> tuple[Any, Bot | None]:
        """``(handle, None)``, or ``(None, the reference standing in)``, made once."""
        if self._handles is None:
            if self.native in _NO_HANDLE:
                self._handles = None, self.reference(self.rng, **self.params)
            else:
                try:
                    self._handles = core().Bot(self.native, self.params), None
                except ValueError:  # no handle for this twin (its parameters are checked)
                    _NO_HANDLE.add(self.native)
                    return self._made()
        return self._handles

    @property
    def twin(self) -> Any:
        """The twin's handle (``arena._native.Bot``); None where the reference stands in."""
        return self._made()[0]

    @property
    def stand_in(self) -> Bot | None:
        """The reference class standing in for a twin with no handle (else None)."""
        return self._made()[1]

    def start(self, seat: int, players: int, options: RuleOptions) -> None:
        super().start(seat, players, options)
        if self.twin is not None:
            self.twin.start(seat, players)
        else:
            self.stand_in.start(seat, players, options)  # type: ignore[union-attr]

    def choose(self, view: Any, legal: Sequence[int]) -> int:
        if self.twin is None:
            return self.stand_in.choose(view, legal)  # type: ignore[union-attr]
        core_of_view, points = _engine.core_view(view)
        action = self.twin.choose(core_of_view, legal, self.rng, points)
        self.last_iterations = self.twin.last_iterations
        return action  # type: ignore[no-any-return]

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_handles"] = None  # made again when needed after unpickling
        return state

    def __repr__(self) -> str:
        return f"NativeBot({self.native!r}, {self.params!r})"


class ObservingNativeBot(NativeBot):
    """A native seat whose twin remembers the moves it is told (``objective``, and the
    ``mcts`` planner's: where opponents' pandas went), as the Python bot's ``observe``."""

    def observe(self, event: Any) -> None:
        action = event.action  # None but for a move
        if action is not None:
            self.twin.observe_move(event.seat, action)


def make(cls: type[Bot], rng: random.Random | None, params: dict[str, Any]) -> Bot:
    """The bot of class ``cls`` with ``params``: its seat decided here, once.  A native seat
    where ``cls`` has a Rust twin (``twin_name``) that takes these parameters, else the
    class itself."""
    name = twin_name(cls)
    if name is None:
        return cls(rng, **params)
    full = cls.check_params(params)
    if not takes(name, full):
        return cls(rng, **params)
    # The twin remembers the moves it is told where the reference class does (its own
    # ``observe``: where opponents' pandas went); the others are told nothing.
    kind = ObservingNativeBot if cls.observe is not Bot.observe else NativeBot
    return kind(name, cls, rng, full)


def native_seat(bot: Any) -> tuple[str, dict[str, Any], Any] | None:
    """``(native name, params, generator state)`` of a native seat the core may play itself
    (no method of it replaced on the instance, its generator a plain ``random.Random``);
    None: the referee calls it back."""
    if not isinstance(bot, NativeBot):
        return None
    own = vars(bot)
    if "choose" in own or "observe" in own or "start" in own or "finish" in own:
        return None
    if type(bot.rng) is not random.Random:
        return None
    return bot.native, bot.params, bot.rng.getstate()


def native_participant(spec: Any) -> tuple[str, dict[str, Any]] | None:
    """``(native name, full params)`` when a participant's seats are native, else None.

    It imports the participant's class: ask only for participants that run in this process
    (an isolated one is a jailed seat, its module never imported by the arena)."""
    try:
        cls = spec.bot_class()
    except Exception:  # a spec that cannot be loaded here is never native
        return None
    name = twin_name(cls)
    if name is None:
        return None
    params = spec.full_params()
    return (name, params) if takes(name, params) else None


def participant_seats(specs: Sequence[Any], isolates: Callable[[Any], bool] = lambda spec: False
                      ) -> list[tuple[str, dict[str, Any]] | None]:
    """Each participant's seat, decided once for a run: ``(native name, full params)`` for
    a native one (``native_participant``), None for a Python or a jailed one.  ``isolates``
    is asked first: an isolated participant's module is never imported here."""
    return [None if isolates(spec) else native_participant(spec) for spec in specs]


#: The whole numbers a placement's card, seat and depth may be for the core (a record's
#: larger number is refused by the Python loop, with the same sentence).
_PLACE_RANGE = range(-(2**63), 2**63)


def placement_args(intervention: Sequence[Any], cards: CardSet
                   ) -> list[tuple[int, int | None, int | None]] | None:
    """An intervention as the core takes it, ``(card index, seat, depth)`` per placement
    (the index in ``cards``, added cards too); None when a number is beyond what the core
    reads."""
    out = []
    for p in intervention:
        card = cards.index_of(p.card)
        if card is None:  # not a card of the set: the Python loop refuses it in a sentence
            return None
        if any(v is not None and v not in _PLACE_RANGE for v in (p.seat, p.depth)):
            return None
        out.append((card, p.seat, p.depth))
    return out


@dataclass(slots=True)
class Game:
    """What decides a game's referee (``referee_for``): asked of every game a tournament's
    worker plays, so it is light (slots, the placements made when first asked)."""

    seed: Any
    players: int
    names: Sequence[Any]
    dice: Sequence[Any]
    intervention: Sequence[Any]
    cards: CardSet
    _placements: list[tuple[int, int | None, int | None]] | bool | None = False

    @property
    def placements(self) -> list[tuple[int, int | None, int | None]] | None:
        """The intervention as the core takes it (None: it cannot); made once."""
        if self._placements is False:
            self._placements = placement_args(self.intervention, self.cards)
        return self._placements  # type: ignore[return-value]


def _utf8(names: Sequence[Any]) -> bool:
    try:
        "".join(names).encode()
    except UnicodeEncodeError:
        return False
    return True


#: Why a game is played by the Python loop rather than the native referee: one row per
#: reason, in the order asked.  The core takes 2 to 4 players, seeds of 128 bits, dice faces
#: 0 to 5, seat names as UTF-8 text, and placements of its numbers; the Python loop takes
#: anything the reference takes, and refuses the rest in a sentence.
LOOP_REASONS: tuple[tuple[str, Callable[[Game], bool]], ...] = (
    ("the reference engine", lambda g: ENGINE != "native"),
    ("a seed beyond 128 bits", lambda g: type(g.seed) is not int or g.seed not in SEED_RANGE),
    ("players outside 2 to 4", lambda g: not 2 <= g.players <= 4),
    ("a die face that is not 0 to 5",
     lambda g: bool(g.dice) and any(type(f) is not int or not 0 <= f <= 5 for f in g.dice)),
    ("a seat name that is not text", lambda g: any(type(n) is not str for n in g.names)),
    ("a seat name that is not UTF-8", lambda g: not _utf8(g.names)),
    ("an intervention the core cannot make", lambda g: g.placements is None),
)


def loop_reason(game: Game) -> str | None:
    """The first row of ``LOOP_REASONS`` that sends ``game`` to the Python loop (None: the
    native referee takes it)."""
    for reason, applies in LOOP_REASONS:
        if applies(game):
            return reason
    return None


def referee_for(game: Game, seats: Sequence[Any], hooked: bool) -> tuple[str, str]:
    """``(referee, why)``: ``loop`` with the reason of ``LOOP_REASONS``; else ``batch`` when
    every seat is native (``native_seat``) and nothing is called back (``hooked``: an
    ``on_event``; ``on_decision`` the core tells itself), else ``callback``."""
    reason = loop_reason(game)
    if reason is not None:
        return LOOP, reason
    if not hooked and all(s is not None for s in seats):
        return BATCH, "every seat native"
    return CALLBACK, "a Python seat or a hook"


def batch_plays(game: Game, seats: Sequence[Any]) -> bool:
    """Whether the core plays ``game`` whole, with no Python in it (``referee_for``'s
    ``batch``): what a tournament's worker asks of each game before it batches it
    (``arena.tournament.native_games``)."""
    return referee_for(game, seats, False)[0] == BATCH
