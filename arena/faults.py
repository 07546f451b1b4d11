"""How the game loops tell a bot's faults: the exceptions, the alarm, the one-line texts.

Both loops use them, the Python one (``arena.match``) and the Python side of the native
referee (``arena.referee``), so that a fault reads the same whichever referee found it; the
bot sandbox raises ``BotFault`` for a bot in its own process.  ``arena.match`` re-exports
them under the names other modules import.
"""

from __future__ import annotations

import signal
import threading
import traceback
from collections.abc import Callable
from typing import Any

from .engine import ArenaError, CardSet, action_text, parse_action


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
        where = f" (at {frames[-1].filename}:{frames[-1].lineno})" if frames else ""
    except Exception:
        where = ""
    name = _text(lambda: type(exc).__name__, "an exception")
    text = f"{name}: {_text(lambda: str(exc), '(unprintable)')}".rstrip(": ")
    return printable(text + where)[:500]


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
