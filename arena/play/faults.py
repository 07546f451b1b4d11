"""The one fault taxonomy of the game loops: the exceptions, the alarm, the one-line texts.

A seat's fault is one of the record's ``ERROR_KINDS`` (``arena.runs.records``): ``crash``
(its code raised, or its process died), ``timeout`` (no decision within the move time),
``illegal`` (it returned something that is not a legal action), ``abandoned`` (a person
quit: no fault of a bot).  Every Python path turns what happened into a kind and a message
here (:func:`decision_fault`, :func:`start_fault`, :func:`over_time`, :func:`not_legal`),
so that a fault reads the same whichever referee found it: the Python loop
(``arena.play.match``), the Python seats of the native referee
(``arena.play.referee.Table``), a worker making a bot, and the jail
(``arena.jail.sandbox.RemoteBot`` raises ``BotFault`` with the kind it found).  The core
writes the same kinds and sentences for its own seats (``arena/native/core/src/referee.rs``).
``arena.play.match`` re-exports the exceptions under the names other modules import.
"""

from __future__ import annotations

import signal
import sys
import threading
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from arena.engine import ArenaError, CardSet, action_text, parse_action
from arena.runs.records import GameAbandoned, GameError


class MoveTimeout(BaseException):
    """Raised inside a bot that thinks past its hard limit (BaseException: hard to swallow)."""


class BotFault(Exception):
    """A fault the referee found in a bot running elsewhere (a bot process): recorded as
    ``kind`` with ``message`` as it stands."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


class Alarm:
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

    def __enter__(self) -> Alarm:
        if self.active:
            signal.setitimer(signal.ITIMER_REAL, self.seconds)  # type: ignore[arg-type]
        return self

    def __exit__(self, *exc: object) -> None:
        if self.active:
            signal.setitimer(signal.ITIMER_REAL, 0)




def printable(text: str, *, lines: bool = False) -> str:
    """Text a bot controls (a fault's message, a returned object's ``repr``, what it printed,
    what its jail's check said) as it may reach a terminal, a log or a record: every control
    character (C0, C1, ESC, and the other unprintable ones such as bidirectional overrides)
    shown escaped as ``\\xNN``/``\\uNNNN``, printable unicode kept, so that it can neither clear
    a screen nor draw a fake standings table.  ``lines``: newlines and tabs kept (a bot's
    printed output, read as lines under a heading that names the bot)."""
    kept = "\n\t" if lines else ""
    return "".join(c if c.isprintable() or c in kept else _escaped(c) for c in text)


def _escaped(c: str) -> str:
    code = ord(c)
    return f"\\x{code:02x}" if code < 0x100 else (
        f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}")


def describe_exception(exc: BaseException) -> str:
    """One line naming the exception and where in the bot it was raised.

    The exception is the bot's object: its ``__str__`` may raise or return anything, so every
    part is asked for under a guard and only plain text comes out.
    """
    try:
        frames = traceback.extract_tb(exc.__traceback__)
        where = f" (at {shown_path(frames[-1].filename)}:{frames[-1].lineno})" if frames else ""
    except Exception:
        where = ""
    name = _text(lambda: type(exc).__name__, "an exception")
    text = f"{name}: {_text(lambda: str(exc), '(unprintable)')}".rstrip(": ")
    return printable(text + where)[:500]


def shown_path(filename: str) -> str:
    """A source file as a record may show it: relative to the directory the run was started
    in, or to the import root it was found under, else its name alone.

    A record is shared and compared byte for byte: an absolute path would tell a reader the
    user's home and folders, and make the same game's record differ between two checkouts.
    """
    try:
        path = Path(filename).resolve()
        roots = [Path.cwd().resolve()] + [Path(p).resolve() for p in sys.path if p]
    except (OSError, ValueError):
        return Path(filename).name
    for root in roots:
        # A filesystem root is no root here: a jailed bot runs in "/", and its file's path
        # relative to "/" is the absolute one without its slash.
        if root != Path(root.anchor) and path.is_relative_to(root) and path != root:
            return path.relative_to(root).as_posix()
    return path.name


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




def returned_text(action: object, cards: CardSet) -> str:
    """An action of a game of the set ``cards`` as text for an error message, whatever the
    bot returned.

    A plain int is named in notation only when it is an action (its text reads back as
    itself: ``10**30`` masked would read "end"); anything else by a bounded ``repr``, or by
    its type when its ``repr`` fails.
    """
    if type(action) is int:
        if 0 <= action < 1 << 40:
            try:
                text = action_text(action, cards)
                if parse_action(text, cards) == action:
                    return repr(text)
            except (ValueError, IndexError, ArenaError):
                pass
        return str(action) if abs(action) < 10**80 else f"an integer of {action.bit_length()} bits"
    kind = _text(lambda: type(action).__name__, "object")
    return printable(_text(lambda: repr(action), f"an unprintable {printable(kind)}", 80))


#: What a bot's decision may raise that is its fault (``MoveTimeout`` is a BaseException, so
#: that a bot's ``except Exception`` does not swallow the alarm).
FAULTS: tuple[type[BaseException], ...] = (MoveTimeout, Exception)


def no_decision(move_time: float | None) -> str:
    """The sentence of a decision the alarm cut short (the core's and the jail's too)."""
    return f"no decision within the {move_time:g} s move time"


def decision_fault(exc: BaseException, move_time: float | None) -> tuple[str, str]:
    """``(kind, message)`` of a decision that raised ``exc``: the alarm's ``timeout``, a
    fault found elsewhere (``BotFault``: a jail's) as it was found, a person who quit
    (``abandoned``, no fault), and anything else the bot's ``crash``."""
    if isinstance(exc, MoveTimeout):
        return "timeout", no_decision(move_time)
    if isinstance(exc, BotFault):
        return exc.kind, exc.message
    if isinstance(exc, GameAbandoned):
        return "abandoned", str(exc)
    return "crash", describe_exception(exc)


def start_fault(exc: BaseException, made: bool = True) -> tuple[str, str]:
    """``(kind, message)`` of a bot whose making (``made`` False) or ``start`` raised: a
    ``BotFault`` as found, anything else a ``crash``."""
    if isinstance(exc, BotFault):
        return exc.kind, exc.message
    text = describe_exception(exc)
    return "crash", text if made else f"the bot could not be created: {text}"


def over_time(elapsed: float, move_time: float | None) -> tuple[str, str] | None:
    """The ``timeout`` of a decision that returned after the move time (None: in time)."""
    if move_time and elapsed > move_time:
        return "timeout", f"took {elapsed:.3f} s, over the {move_time:g} s move time"
    return None


def not_legal(action: object, legal: Sequence[int]) -> bool:
    """Whether a returned ``action`` is not one of ``legal``: its exact type first (an int
    subclass may say it equals anything, and membership would ask it)."""
    return type(action) is not int or action not in legal


def illegal(action: object, round_: int, step: str, cards: CardSet) -> tuple[str, str]:
    """The ``illegal`` fault of a returned ``action`` in a game of the set ``cards`` (the
    core words it the same)."""
    return "illegal", (f"returned {returned_text(action, cards)}, which is not a legal action at "
                       f"round {round_}, step {step}")


def game_error(seat: int, fault: tuple[str, str]) -> GameError:
    """The record's ``error`` of ``seat``'s fault."""
    return {"seat": seat, "kind": fault[0], "message": fault[1]}
