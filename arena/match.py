"""One game between bots: the loop every command and the tournament runner share.

The loop treats bots as untrusted: it hands each one a view and a copy of the legal list,
times it, and turns an exception, an action that is not in the list, or a decision that runs
past ``move_time`` into a recorded fault that ends the game (the faulty seat cannot win, the
others are scored as the game stood).  A hard time limit is enforced with ``SIGALRM`` when
the loop runs in a process's main thread; elsewhere (a Dask worker thread) the limit is
checked when the bot returns and the runner's watchdog handles a bot that never does.
"""

from __future__ import annotations

import contextlib
import signal
import threading
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .bot import Bot
from .engine import (
    ArenaError,
    CardSet,
    GameState,
    PlayerView,
    RuleOptions,
    action_text,
    new_game,
    parse_action,
)
from .engine.history import DEALT, MOVE, PRIVATE_TAGS, Event
from .intervention import Intervention
from .intervention import apply as apply_intervention
from .limits import move_time_problem
from .records import GameAbandoned, GameError, GameRecord, make_record


class MoveTimeout(BaseException):
    """Raised inside a bot that thinks past its hard limit (BaseException: hard to swallow)."""


class BotFault(Exception):
    """A fault the referee found in a bot running elsewhere (a bot process): recorded as
    ``kind`` with ``message`` as it stands."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


@dataclass
class GameOutcome:
    """A finished (or stopped) game: the final state, its record, and the fault if any."""

    state: GameState
    record: GameRecord
    error: GameError | None = None
    seconds: list[float] = field(default_factory=list)


class _Alarm:
    """A hard per-decision deadline through SIGALRM, where the platform allows it.

    The handler is installed once per game (``install``/``restore``); each decision only
    arms and disarms the timer, a single system call each.
    """

    def __init__(self, seconds: float | None) -> None:
        self.seconds = seconds
        self.active = bool(
            seconds
            and hasattr(signal, "setitimer")
            and threading.current_thread() is threading.main_thread()
        )
        self.previous: Any = None

    def install(self) -> None:
        if self.active:
            self.previous = signal.signal(signal.SIGALRM, self._fire)

    def restore(self) -> None:
        if self.active:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self.previous)

    @staticmethod
    def _fire(signum: int, frame: Any) -> None:
        raise MoveTimeout()

    def __enter__(self) -> _Alarm:
        if self.active:
            signal.setitimer(signal.ITIMER_REAL, self.seconds)  # type: ignore[arg-type]
        return self

    def __exit__(self, *exc: object) -> None:
        if self.active:
            signal.setitimer(signal.ITIMER_REAL, 0)


def _decisions(
    state: GameState,
    bots: Sequence[Bot],
    alarm: _Alarm,
    move_time: float | None,
    seconds: list[float],
    publish: Callable[[], None],
    on_decision: Callable[[int], None] | None,
) -> GameError | None:
    """Ask the bots for decisions until the game ends; the first fault stops it."""
    while not state.ended:
        seat = state.current
        legal = state.legal_actions()
        view = PlayerView.of(state, seat)
        if on_decision is not None:
            on_decision(seat)
        start = time.perf_counter()
        try:
            with alarm:
                action = bots[seat].choose(view, list(legal))
        except MoveTimeout:
            seconds[seat] += time.perf_counter() - start
            return {"seat": seat, "kind": "timeout",
                    "message": f"no decision within the {move_time:g} s move time"}
        except BotFault as fault:
            seconds[seat] += time.perf_counter() - start
            return {"seat": seat, "kind": fault.kind, "message": fault.message}
        except GameAbandoned as left:  # a person quit (the human seat): no fault
            seconds[seat] += time.perf_counter() - start
            return {"seat": seat, "kind": "abandoned", "message": str(left)}
        except Exception as exc:  # untrusted code: any exception is the bot's fault
            seconds[seat] += time.perf_counter() - start
            return {"seat": seat, "kind": "crash", "message": describe_exception(exc)}
        elapsed = time.perf_counter() - start
        seconds[seat] += elapsed
        if move_time and elapsed > move_time:
            return {"seat": seat, "kind": "timeout",
                    "message": f"took {elapsed:.3f} s, over the {move_time:g} s move time"}
        # Exact type first: an int subclass may say it equals anything, and membership
        # would ask it.
        if type(action) is not int or action not in legal:
            return {"seat": seat, "kind": "illegal",
                    "message": f"returned {returned_text(action)}, which is not a legal action at "
                    f"round {state.round}, step {state.step_name}"}
        state.apply(action)
        publish()
    return None


def describe_exception(exc: BaseException) -> str:
    """One line naming the exception and where in the bot it was raised.

    The exception is the bot's object: its ``__str__`` may raise or return anything, so every
    part is asked for under a guard and only plain text comes out.
    """
    try:
        frames = traceback.extract_tb(exc.__traceback__)
        where = f" (at {frames[-1].filename}:{frames[-1].lineno})" if frames else ""
    except Exception:
        where = ""
    name = _text(lambda: type(exc).__name__, "an exception")
    text = f"{name}: {_text(lambda: str(exc), '(unprintable)')}".rstrip(": ")
    return (text + where)[:500]


def _text(make: Callable[[], object], fallback: str, limit: int = 500) -> str:
    """``make()`` when it gives text (a bot's ``__str__``/``__repr__``), as a plain ``str``
    cut to ``limit`` characters; else ``fallback``."""
    try:
        text = make()
        if isinstance(text, str):
            return str.__str__(text)[:limit]
    except Exception:
        pass
    return fallback


def play_game(
    bots: Sequence[Bot],
    seed: int,
    options: RuleOptions | None = None,
    *,
    names: Sequence[str] | None = None,
    move_time: float | None = None,
    on_event: Callable[[Event, GameState], None] | None = None,
    dice: Sequence[int] = (),
    meta: dict[str, Any] | None = None,
    on_decision: Callable[[int], None] | None = None,
    cards: CardSet | None = None,
    intervention: Intervention = (),
) -> GameOutcome:
    """Play one game, bot ``i`` in seat ``i``; returns the final state and the game record.

    ``on_event`` receives every event as it happens, whole (hidden parts shown: it is for
    the one who runs the game, not for a seat), with the state already past it;
    ``on_decision`` is told which seat is about to think (the tournament's watchdog uses it
    to know whom to blame if the process dies).  ``meta`` is merged into the record (game id,
    pairing, deal, rotation).  ``cards`` is the objective card set (default: the printed one).
    ``intervention`` places cards in the deal before the bots are told of it (an
    experiment's arm, ``arena.intervention``); the record keeps it.
    """
    problem = move_time_problem(move_time)
    if problem:
        raise ValueError(f"move_time {problem}")
    options = options or RuleOptions()
    players = len(bots)
    names = list(names) if names is not None else [type(b).__name__ for b in bots]
    state = new_game(players, seed, options, dice=tuple(dice), cards=cards)
    apply_intervention(state, intervention)
    seconds = [0.0] * players
    error: GameError | None = None
    history = state.history
    assert history is not None
    seen = 0
    actor = 0

    # Only bots that override the hook are told events: making them costs time.
    observers = [
        (seat, b) for seat, b in enumerate(bots)
        if getattr(b.observe, "__func__", None) is not Bot.observe
    ]

    def publish() -> None:
        nonlocal seen, actor
        while seen < len(history):
            entry = history[seen]
            seen += 1
            tag = entry[0]
            if tag in (MOVE, DEALT):
                actor = entry[2]
            # Most events are the same for every seat: one (immutable) Event serves them all.
            shared = Event.of(entry, actor) if observers and tag not in PRIVATE_TAGS else None
            for seat, bot in observers:
                event = shared if shared is not None else Event.of(entry, actor, seat)
                # A failing hook is not worth the game: the bot only loses what it observes.
                with contextlib.suppress(Exception):
                    bot.observe(event)
            if on_event is not None:
                on_event(Event.of(entry, actor), state)

    for seat, bot in enumerate(bots):
        try:
            bot.start(seat, players, options)
        except BotFault as fault:
            error = {"seat": seat, "kind": fault.kind, "message": fault.message}
            break
        except Exception as exc:
            error = {"seat": seat, "kind": "crash", "message": describe_exception(exc)}
            break
    if error is None:
        publish()
    if error is None:
        alarm = _Alarm(move_time)
        alarm.install()
        try:
            error = _decisions(state, bots, alarm, move_time, seconds, publish, on_decision)
        finally:
            alarm.restore()
    if error is None:
        result = state.result()
        for bot in bots:
            with contextlib.suppress(Exception):  # the game is already decided
                bot.finish(result)
    record = make_record(state, names, seconds, error, meta or {}, intervention)
    return GameOutcome(state, record, error, seconds)


def returned_text(action: object) -> str:
    """An action as text for an error message, whatever the bot returned.

    A plain int is named in notation only when it is an action (its text reads back as
    itself: ``10**30`` masked would read "end"); anything else by a bounded ``repr``, or by
    its type when its ``repr`` fails.
    """
    if type(action) is int:
        if 0 <= action < 1 << 40:
            try:
                text = action_text(action)
                if parse_action(text) == action:
                    return repr(text)
            except (ValueError, IndexError, ArenaError):
                pass
        return str(action) if abs(action) < 10**80 else f"an integer of {action.bit_length()} bits"
    kind = _text(lambda: type(action).__name__, "object")
    return _text(lambda: repr(action), f"an unprintable {kind}", 80)
