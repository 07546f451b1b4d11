"""Deliberately broken bots, one per kind of fault a tournament must survive.

Each plays like ``random`` until its decision number ``at`` (counted from 1 in each game),
then misbehaves.  Loaded by dotted path: ``--bot tests.tournament.broken_bots.Crasher``.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Sequence
from typing import Any

from arena.engine import Event, PlayerView, RuleOptions
from bots.base import Param
from bots.random_bot import RandomBot


class _Broken(RandomBot):
    """Random until decision ``at``, then ``misbehave``."""

    PARAMS = (*RandomBot.PARAMS, Param("at", int, 3, "the decision that goes wrong", minimum=1))
    at: int

    def start(self, seat: int, players: int, options: RuleOptions) -> None:
        super().start(seat, players, options)
        self.decisions = 0

    def choose(self, view: PlayerView, legal: Sequence[int]) -> Any:
        self.decisions += 1
        if self.decisions == self.at:
            return self.misbehave(view, legal)
        return super().choose(view, legal)

    def misbehave(self, view: PlayerView, legal: Sequence[int]) -> Any:
        raise NotImplementedError


class Crasher(_Broken):
    """Raises an exception."""

    def misbehave(self, view: PlayerView, legal: Sequence[int]) -> Any:
        raise RuntimeError("deliberate crash")


class Illegal(_Broken):
    """Returns -1, which is no action."""

    def misbehave(self, view: PlayerView, legal: Sequence[int]) -> Any:
        return -1


class NotInList(_Broken):
    """Returns an action that is not in the legal list."""

    def misbehave(self, view: PlayerView, legal: Sequence[int]) -> Any:
        action = max(legal) + 1
        while action in legal:
            action += 1
        return action


class Sleeper(_Broken):
    """Sleeps (pure Python, so SIGALRM interrupts it) far past any move time."""

    PARAMS = (*_Broken.PARAMS, Param("seconds", float, 30.0, "how long to sleep"))
    seconds: float

    def misbehave(self, view: PlayerView, legal: Sequence[int]) -> Any:
        time.sleep(self.seconds)
        return legal[0]


class Hanger(_Broken):
    """Blocks SIGALRM, then sleeps: only a watchdog outside the process can stop it."""

    PARAMS = (*_Broken.PARAMS, Param("seconds", float, 30.0, "how long to hang"))
    seconds: float

    def misbehave(self, view: PlayerView, legal: Sequence[int]) -> Any:
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
        try:
            time.sleep(self.seconds)
        finally:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGALRM})
        return legal[0]


class Exiter(_Broken):
    """Ends its process with ``os._exit(3)``."""

    def misbehave(self, view: PlayerView, legal: Sequence[int]) -> Any:
        os._exit(3)


class Killer(_Broken):
    """Sends itself SIGKILL."""

    def misbehave(self, view: PlayerView, legal: Sequence[int]) -> Any:
        os.kill(os.getpid(), signal.SIGKILL)
        time.sleep(10)
        return legal[0]


class BadInit(RandomBot):
    """Cannot even be created."""

    def __init__(self, rng: Any = None, **params: Any) -> None:
        raise RuntimeError("no bot today")


class Lurker(RandomBot):
    """Hangs in its ``observe`` hook (no SIGALRM covers hooks: only the watchdog does)."""

    PARAMS = (*RandomBot.PARAMS, Param("at", int, 5, "the event that hangs", minimum=1))
    at: int

    def start(self, seat: int, players: int, options: RuleOptions) -> None:
        super().start(seat, players, options)
        self.events = 0

    def observe(self, event: Event) -> None:
        self.events += 1
        if self.events == self.at:
            time.sleep(30)


class SlowStarter(RandomBot):
    """Takes ``seconds`` in its start hook (loading something), then plays: start-up is held
    to the start-up time, not the move time."""

    PARAMS = (*RandomBot.PARAMS, Param("seconds", float, 0.5, "how long to start"))
    seconds: float

    def start(self, seat: int, players: int, options: RuleOptions) -> None:
        super().start(seat, players, options)
        time.sleep(self.seconds)


class Teller(_Broken):
    """Tells, as its crash at decision ``at``, the chance events it observed: how a test reads
    what a bot in a bot process was told (only an action or an error comes back)."""

    def start(self, seat: int, players: int, options: RuleOptions) -> None:
        super().start(seat, players, options)
        self.told: list[str] = []

    def observe(self, event: Event) -> None:
        if type(event) is not Event or Event.from_dict(event.to_dict(), event.card_set) != event:
            self.told.append(f"not an Event: {event!r}")
        elif event.kind != "move":
            self.told.append(event.text)

    def misbehave(self, view: PlayerView, legal: Sequence[int]) -> Any:
        raise RuntimeError("|".join(self.told))
