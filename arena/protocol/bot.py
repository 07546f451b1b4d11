"""The seat an engine plays: a ``Bot`` whose decisions come from an engine process.

The class is the arena's own code, so it runs where any trusted bot does (in the worker,
under the native referee or the Python loop, in ``arena play``); the engine it talks to is
never in this process but in a jail (``process.py``).  So every command that takes a bot
spec plays engines the same way, and the game loop's fault handling applies unchanged: a
crash, a hang past the clock, a malformed line or a line past the limit is a ``BotFault``
of this seat's game only.

Engine processes are kept in a pool per process and spec (``acquire``/``release``): one is
started once and plays game after game (``newgame``), unless the spec says ``fresh=true``.
A process is put back only when it is between messages; one that faulted, or that was
interrupted waiting for a reply (the tournament's hard move time), is ended.
"""

from __future__ import annotations

import atexit
import contextlib
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from arena.engine import (
    Action,
    Event,
    GameResult,
    NotationError,
    RuleOptions,
    action_text,
    parse_action,
)
from arena.engine.actions import END
from arena.play.bot import Bot
from arena.play.faults import BotFault
from arena.protocol import DEFAULT_MOVE_LIMIT
from arena.protocol.handshake import handshake
from arena.protocol.messages import event_message, result_message
from arena.protocol.process import EngineProcess
from arena.protocol.view import withhold

if TYPE_CHECKING:
    from arena.protocol.spec import EngineSpec

#: Idle engine processes, per spec text.
_POOL: dict[str, list[EngineProcess]] = {}


def acquire(spec: EngineSpec, seat: int, deal: int | None = None) -> EngineProcess:
    """An engine process for one game of ``deal``: an idle one of this spec that has not
    played that deal, else a new one (its handshake made, its options set).

    Never a process that played the deal before: in seat-rotated play the hand it was dealt
    then is an opponent's hidden hand now, and the deck's order is the same (the bots' jails
    are kept per seat rotation for the same reason)."""
    idle = _POOL.get(spec.text, [])
    for process in reversed(idle):
        if process.closed:
            idle.remove(process)
        elif deal is None or deal not in process.deals:
            idle.remove(process)
            if deal is not None:
                process.deals.add(deal)
            return process
    process = EngineProcess(spec.command, f"engine {spec.hello.name!r}", memory=spec.memory,
                            slot=seat)
    try:
        handshake(process)
        process.send([{"type": "options", "values": spec.options}])
    except BotFault:
        process.close(quit=False)
        raise
    if deal is not None:
        process.deals.add(deal)
    return process


def release(spec: EngineSpec, process: EngineProcess) -> None:
    """Put a process back for the next game, or end it (a fresh spec, a busy process)."""
    if process.closed:
        return
    if spec.fresh or process.busy:
        process.close(quit=not process.busy)
        return
    process.pause()
    _POOL.setdefault(spec.text, []).append(process)


@atexit.register
def close_all() -> None:
    """End every idle engine (the jails die with this process anyway)."""
    for processes in _POOL.values():
        for process in processes:
            process.close()
    _POOL.clear()


class EngineBot(Bot):
    """One seat played by an engine (see the module docstring)."""

    def __init__(self, spec: EngineSpec, seed: int, deal: int | None = None) -> None:
        super().__init__()
        self.spec = spec
        self.seed = seed
        #: The game's seed (the same for every seat rotation of a deal), or None (unknown).
        self.deal = deal
        self.process: EngineProcess | None = None
        self.pending: list[dict[str, Any]] = []
        self.started = False
        self.used = 0.0
        self.moves = 0

    def start(self, seat: int, players: int, options: RuleOptions) -> None:
        super().start(seat, players, options)
        self.close()
        self.process = acquire(self.spec, seat, self.deal)
        self.process.pause()
        self.started = False
        self.used, self.moves = 0.0, 0
        self.pending = []

    def observe(self, event: Event) -> None:
        self.pending.append(event_message(event))
        # Its turn is over (it ended it, or a roll starts a turn) or another seat moves: the
        # jail is frozen until its next decision.  Between two decisions of its own turn it
        # is left running, which saves a freeze and a thaw per free move.
        if self.process is not None and (event.kind == "roll" or event.seat != self.seat
                                         or event.action == END):
            self.process.pause()

    def _newgame(self, view: Any) -> dict[str, Any]:
        clock = self.spec.clock
        return {"type": "newgame", "seat": self.seat, "players": self.players,
                "rules": self.options.to_dict(), "cards": view.card_set.changes(),
                "seed": self.seed,
                "clock": {"base": clock.base, "increment": clock.increment,
                          "move": clock.move}}

    def _limit(self) -> tuple[float, float | None]:
        """Seconds for this decision, and what is left of the game's clock (None: no
        game clock)."""
        clock = self.spec.clock
        left = None
        limits = []
        if clock.base is not None:
            left = clock.base + clock.increment * self.moves - self.used
            limits.append(left)
        if clock.move is not None:
            limits.append(clock.move)
        return (min(limits) if limits else DEFAULT_MOVE_LIMIT), left

    def _clock_text(self, left: float | None) -> str:
        """Which limit ran out, as the spec set it."""
        clock = self.spec.clock
        if clock.move is not None and (left is None or clock.move <= left):
            return f"st={clock.move:g}"
        if clock.base is not None:
            return f"its clock, tc={clock.base:g}+{clock.increment:g}"
        return f"{DEFAULT_MOVE_LIMIT:g} s a move without tc or st"

    def choose(self, view: Any, legal: Sequence[Action]) -> Action:
        process = self.process
        if process is None:
            raise BotFault("crash", "the engine was not started")
        messages = []
        if not self.started:
            messages.append(self._newgame(view))
            self.started = True
        messages.extend(self.pending)
        self.pending = []
        limit, left = self._limit()
        texts = [action_text(a, view.card_set) for a in legal]
        messages.append({"type": "decide", "view": withhold(view), "legal": texts,
                         "clock": {"move": limit, "left": left}})
        begin = time.monotonic()
        process.send(messages)
        process.busy = True
        try:
            reply = self._reply(process, begin + limit)
        except BotFault as fault:
            process.close(quit=False)
            if fault.kind == "timeout":
                fault = process.fault("timeout", f"did not answer within {limit:.3g} s while "
                                                 f"choosing a move ({self._clock_text(left)})")
            raise fault from None  # the runner logs it with the game's id
        process.busy = False
        self.used += time.monotonic() - begin
        self.moves += 1
        text = reply.get("action")
        if not isinstance(text, str):
            raise process.fault("illegal", "replied with an action message without an "
                                           "action text")
        try:
            return parse_action(text[:200], view.card_set)
        except NotationError as exc:
            raise process.fault("illegal", f"replied {text[:60]!r}, which is not an "
                                           f"action ({exc})") from None

    def _reply(self, process: EngineProcess, deadline: float) -> dict[str, Any]:
        while True:
            message = process.read(deadline, "while choosing a move")
            kind = message["type"]
            if kind == "action":
                return message
            if kind != "info":
                process.send([{"type": "error",
                               "message": f"unknown message type {kind[:40]!r}"}])

    def finish(self, result: GameResult) -> None:
        self._end(result)

    def _end(self, result: GameResult | None) -> None:
        process, self.process = self.process, None
        if process is None:
            return
        if not process.busy and not process.closed:
            with contextlib.suppress(BotFault):
                process.send([*self.pending, result_message(result)])
        self.pending = []
        release(self.spec, process)

    def close(self) -> None:
        """The game is over however it ended: the process goes back to the pool."""
        self._end(None)

    def __del__(self) -> None:
        with contextlib.suppress(Exception):
            self.close()

