"""Bots that attack the arena rather than play, one per attack an untrusted bot may try.

Each plays like ``random`` until its decision number ``at`` (counted from 1 in each game),
then attacks.  Loaded by dotted path: ``--bot tests.tournament.attack_bots.TileEditor``.
An attack that fails must cost the attacker its own game (an error blamed on its seat) or
gain it nothing (no hidden information, no changed record); it must never touch another
seat's blame, another game, the rules or the tournament.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import Any

from arena.engine import PlayerView
from bots.base import Param
from bots.random_bot import RandomBot

from .broken_bots import _Broken


class TileEditor(_Broken):
    """Deletes a plot from its view's board and lays a new one (a careless simulation)."""

    def misbehave(self, view: PlayerView, legal: Sequence[int]) -> Any:
        cell = next(c for c in view.tiles if c != 0) if len(view.tiles) > 1 else 5
        view.tiles[cell + 1000] = view.tiles.get(cell, 0)  # type: ignore[index]
        del view.tiles[cell]  # type: ignore[attr-defined]
        return legal[0]


class ImprovementEditor(_Broken):
    """Puts an improvement on every plot of its view."""

    def misbehave(self, view: PlayerView, legal: Sequence[int]) -> Any:
        for cell in list(view.tiles):
            view.improvement[cell] = 1  # type: ignore[index]
        return legal[0]


class StockEditor(_Broken):
    """Edits the containers the view holds as copies (bamboo, stores, eaten, completed):
    only its own view changes, so the game goes on as if nothing happened."""

    def misbehave(self, view: PlayerView, legal: Sequence[int]) -> Any:
        for cell in view.bamboo:
            view.bamboo[cell] = 4
        view.stored_channels[:] = [9] * len(view.stored_channels)
        view.eaten[view.seat] = (9, 9, 9)
        view.completed.clear()
        view.shoots.append(123)
        return RandomBot.choose(self, view, legal)


class _Liar(int):
    """An int that equals everything: membership in any list says yes."""

    def __eq__(self, other: object) -> bool:
        return True

    def __hash__(self) -> int:
        return 0

    def __repr__(self) -> str:
        raise RuntimeError("no repr for you")


class EqualsAll(_Broken):
    """Returns an int subclass equal to every action."""

    def misbehave(self, view: PlayerView, legal: Sequence[int]) -> Any:
        return _Liar(123456)


class _Mute(Exception):
    def __str__(self) -> str:
        raise RuntimeError("no str for you")


class MuteError(_Broken):
    """Raises an exception whose ``__str__`` raises."""

    def misbehave(self, view: PlayerView, legal: Sequence[int]) -> Any:
        raise _Mute()


class _Faceless:
    def __repr__(self) -> str:
        raise RuntimeError("no repr for you")


class Faceless(_Broken):
    """Returns an object whose ``__repr__`` raises."""

    def misbehave(self, view: PlayerView, legal: Sequence[int]) -> Any:
        return _Faceless()


class Huge(_Broken):
    """Returns 10**30, whose low bits read as an action."""

    PARAMS = (*_Broken.PARAMS, Param("digits", int, 30, "the power of ten returned"))
    digits: int

    def misbehave(self, view: PlayerView, legal: Sequence[int]) -> Any:
        return 10**self.digits


class Spy(_Broken):
    """Looks through its process for the game, the schedule, the worker's pipe and the
    watchdog's shared memory (``gc``), then fails saying what it found.

    In the worker's process it finds them all (that is why untrusted bots are isolated); in
    a bot process it must find none.
    """

    def misbehave(self, view: PlayerView, legal: Sequence[int]) -> Any:
        import gc
        from multiprocessing.connection import Connection

        from arena.engine import GameState

        objects = gc.get_objects()
        # A native state holds no Python objects, so the collector does not track it: it is
        # found among what the tracked objects refer to (a frame, a player's attributes).
        found = {id(o) for o in objects if type(o) is GameState}
        found.update(id(o) for o in gc.get_referents(*objects) if type(o) is GameState)
        states = len(found)
        schedules = sum(type(o).__name__ in ("Schedule", "GamePlayer") for o in objects)
        pipes = sum(isinstance(o, Connection) for o in objects)
        monitors = sum(type(o).__name__ in ("Monitor", "_Watched") for o in objects)
        referrers = sum(type(o) is GameState for o in gc.get_referrers(view.tiles))
        raise RuntimeError(f"found states={states} schedules={schedules} pipes={pipes} "
                           f"monitors={monitors} referrers={referrers}")


class RuleBender(_Broken):
    """Changes the frozen rule options it was given (``object.__setattr__``), then plays on:
    in the worker's process that would shorten later games of other participants."""

    def start(self, seat: int, players: int, options: Any) -> None:
        super().start(seat, players, options)
        object.__setattr__(options, "max_rounds", 3)

    def misbehave(self, view: PlayerView, legal: Sequence[int]) -> Any:
        object.__setattr__(view.options, "max_rounds", 3)
        return RandomBot.choose(self, view, legal)


class Printer(RandomBot):
    """Prints 300 kB to stdout and stderr at every decision, and plays random."""

    def choose(self, view: PlayerView, legal: Sequence[int]) -> Any:
        import sys

        print("x" * 150_000)
        print("y" * 150_000, file=sys.stderr)
        return super().choose(view, legal)


class Hog(_Broken):
    """Allocates 3 GB."""

    def misbehave(self, view: PlayerView, legal: Sequence[int]) -> Any:
        block = bytearray(3 * 1024**3)
        return legal[len(block) % len(legal)]


class Forker(_Broken):
    """Forks a child that sleeps (its PID written to ``pids``), then plays on."""

    PARAMS = (*_Broken.PARAMS, Param("pids", str, "", "a folder for the children's PIDs"))
    pids: str

    def misbehave(self, view: PlayerView, legal: Sequence[int]) -> Any:
        import os
        import time

        child = os.fork()
        if child == 0:
            time.sleep(60)
            os._exit(0)
        if self.pids:  # in-process only: a jail shows no folder of the tests
            with open(os.path.join(self.pids, str(child)), "w"):
                pass
        return RandomBot.choose(self, view, legal)


class HostKiller(_Broken):
    """Kills the process that started its own (a bot process's host)."""

    def misbehave(self, view: PlayerView, legal: Sequence[int]) -> Any:
        import os
        import signal
        import time

        os.kill(os.getppid(), signal.SIGKILL)
        time.sleep(5)
        return legal[0]


class Forger(_Broken):
    """Looks for the watchdog's shared status (to write the opponent's seat into it) and the
    worker's result pipe (to send a 999-point win), then ends its process.

    In a bot process there is neither, so the death is its own.
    """

    def misbehave(self, view: PlayerView, legal: Sequence[int]) -> Any:
        import gc
        import os
        from multiprocessing.connection import Connection

        for thing in gc.get_objects():
            if type(thing).__name__ == "Monitor":
                thing.status[2] = float(1 - view.seat + 1)  # WHO: the other seat thinks
            elif isinstance(thing, Connection):
                with contextlib.suppress(Exception):
                    thing.send(("failed", 0, "forged"))
        os._exit(0)


class Slow(RandomBot):
    """Random, 20 ms per decision: time for an opponent to ponder on."""

    def choose(self, view: PlayerView, legal: Sequence[int]) -> Any:
        import time

        time.sleep(0.02)
        return super().choose(view, legal)


class Pauser(RandomBot):
    """Random, thinking 0.3 s at each of its first three decisions of a game: waits long
    enough for an opponent to ponder on, and for a check that ignores the edges of a wait (a
    loaded machine may take tens of milliseconds to stop or wake the opponent's jail)."""

    def start(self, seat: int, players: int, options: Any) -> None:
        super().start(seat, players, options)
        self.pauses = 3

    def choose(self, view: PlayerView, legal: Sequence[int]) -> Any:
        import time

        if self.pauses:
            self.pauses -= 1
            time.sleep(0.3)
        return super().choose(view, legal)


#: A ponderer checks only the waits of at least ``PONDER_WAIT`` seconds, and within them only
#: the ticks ``PONDER_EDGE`` seconds from either end: what runs there ran on the other seat's
#: time, and a stop or a wake-up that late is no latency.
PONDER_WAIT, PONDER_EDGE = 0.25, 0.1


def pondered(ticks: Sequence[float], replied: float, now: float) -> int:
    """How many ``ticks`` fell inside a wait from ``replied`` to ``now``, edges left out."""
    if not replied or now - replied < PONDER_WAIT:
        return 0
    return sum(replied + PONDER_EDGE < t < now - PONDER_EDGE for t in ticks)


class Ponderer(RandomBot):
    """Keeps a thread busy in the background, and fails if that thread ran while another
    seat was thinking (work on the opponent's time, as an engine pondering)."""

    def start(self, seat: int, players: int, options: Any) -> None:
        import threading
        import time

        super().start(seat, players, options)
        self.ticks: list[float] = []
        self.replied = 0.0

        def work() -> None:
            while True:
                self.ticks.append(time.monotonic())
                time.sleep(0.002)

        threading.Thread(target=work, daemon=True).start()

    def choose(self, view: PlayerView, legal: Sequence[int]) -> Any:
        import time

        ran = pondered(self.ticks, self.replied, time.monotonic())
        if ran:
            raise RuntimeError(f"pondered: {ran} ticks on the other seat's time")
        self.ticks.clear()
        action = super().choose(view, legal)
        self.replied = time.monotonic()
        return action
