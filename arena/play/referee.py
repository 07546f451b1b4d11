"""The native referee: the game loop of ``arena.play.match`` in Rust, and its Python side.

Under the native engine ``arena.play.match.play_game`` hands its game to the core
(``arena/native/core/src/referee.rs``): the views, the legal lists, the faults, the move
time and the record are the core's.  A native seat (``arena.play.seat.NativeBot``: a built-in
bot with a Rust twin, so made from its spec) plays natively, from its parameters and the
state of its generator, and its generator is left where the Python bot would have left it;
any other seat is called back from the native loop through a :class:`Table`, with a native
``PlayerView`` and the faults of ``arena.play.faults`` (exceptions, illegal actions, the
``SIGALRM`` hard limit in the main thread).  A game of native seats only, with no hook,
runs with Python out of the loop, in one call.  Which games come here is
``arena.play.seat.referee_for``'s table.

The record comes back as the JSON line the runner writes, written by the core's one record
writer (which ``arena.runs.records.make_record`` hands the Python loop's games to);
``GameOutcome.record`` and ``.state`` are made from the core's when first read.

A Rust panic never reaches Python as such: the game is recorded as failed (a ``crash`` of
the seat whose turn it was, the message naming the game and seat), as the tournament wants
it; ``_native.play_game`` raises it as an ``ArenaError`` whose ``played`` is that record.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Sequence
from typing import Any

from arena.engine import ArenaError, CardSet, Event, GameResult, GameState, RuleOptions
from arena.engine import native as native_engine
from arena.engine.history import DEALT, MOVE, PRIVATE_TAGS
from arena.play.bot import Bot
from arena.play.faults import FAULTS, Alarm, decision_fault, not_legal, returned_text, start_fault
from arena.play.outcome import GameOutcome
from arena.play.seat import Game, core
from arena.runs.records import GameError, GameRecord, record_head, record_parts, with_meta

log = logging.getLogger("arena")

class Table:
    """The Python side of a native game: the Python seats, called back with the same fault
    handling as ``arena.play.match``, their hooks, and ``on_event``."""

    def __init__(self, bots: Sequence[Any], python: Sequence[bool], options: RuleOptions,
                 move_time: float | None, alarm: Alarm,
                 on_event: Callable[[Event, GameState], None] | None, cards: CardSet) -> None:
        self.bots = bots
        #: The game's card set: its events and the text of a bot's answer name its cards.
        self.cards = cards
        self.players = len(bots)
        self.options = options
        self.python = [seat for seat, p in enumerate(python) if p]
        self.move_time = move_time
        self.alarm = alarm
        self.on_event = on_event
        # Only bots that override the hook are told events: making them costs time.
        self.observers = [
            (seat, bots[seat]) for seat in self.python
            if getattr(bots[seat].observe, "__func__", None) is not Bot.observe
        ]
        #: Whether the referee sends the history's entries (``publish``).
        self.publishes = bool(self.observers) or on_event is not None
        self.actor = 0
        #: The state ``on_event`` is shown, holding the core's state that follows the game.
        self.mirror: GameState | None = None

    def start(self, seat: int) -> tuple[str, str] | None:
        try:
            self.bots[seat].start(seat, self.players, self.options)
        except Exception as exc:
            return start_fault(exc)
        return None

    def choose(self, seat: int, core: Any, legal: list[int]) -> int | tuple[str, str]:
        """A legal action for the view ``core`` (the core's), or ``(kind, message)`` for a
        fault, or ``("", text)`` for something that is not a legal action (the referee
        checks the move time first)."""
        view = native_engine.PlayerView.of_core(core, self.options, self.cards)
        try:
            with self.alarm:
                action = self.bots[seat].choose(view, list(legal))
        except FAULTS as exc:  # untrusted code: any exception is the bot's fault
            return decision_fault(exc, self.move_time)
        if not_legal(action, legal):
            return "", returned_text(action, self.cards)
        return action

    def publish(self, entries: list[tuple[Any, ...]], core: Any) -> None:
        """New entries of the history: to the observers (their failures only cost them
        what they observe), then to ``on_event`` whole, with the state past them (``core``,
        the core's, when ``on_event`` is given)."""
        observers, on_event = self.observers, self.on_event
        state = None
        if core is not None:
            state = self.mirror = native_engine.mirror(self.mirror, core, self.options,
                                                       self.cards)
        for entry in entries:
            tag = entry[0]
            if tag in (MOVE, DEALT):
                self.actor = entry[2]
            actor = self.actor
            cards = self.cards
            shared = Event.of(entry, actor, cards=cards) \
                if observers and tag not in PRIVATE_TAGS else None
            for seat, bot in observers:
                event = shared if shared is not None else Event.of(entry, actor, seat, cards=cards)
                with contextlib.suppress(Exception):
                    bot.observe(event)
            if on_event is not None:
                on_event(Event.of(entry, actor, cards=cards), state)  # type: ignore[arg-type]

    def finish(self, data: dict[str, Any]) -> None:
        """Tells the Python seats the result (``data``: as ``GameResult.to_dict`` writes it)."""
        result = GameResult.from_dict(data, [])
        for seat in self.python:
            with contextlib.suppress(Exception):  # the game is already decided
                self.bots[seat].finish(result)


def _error(error: tuple[int, str, str] | None) -> GameError | None:
    if error is None:
        return None
    seat, kind, message = error
    return {"seat": seat, "kind": kind, "message": message}


def play_native(
    bots: Sequence[Any],
    seats: Sequence[tuple[str, dict[str, Any], Any] | None],
    game: Game,
    options: RuleOptions,
    move_time: float | None,
    on_event: Callable[[Event, GameState], None] | None,
    meta: dict[str, Any],
    on_decision: Callable[[int], None] | None,
    *,
    callback: bool,
) -> GameOutcome:
    """``play_game`` on the native referee, for a game ``arena.play.seat.referee_for`` gave it:
    ``seats`` are the bots' native seats (``arena.play.seat.native_seat``; None: called back
    through a :class:`Table`, made when ``callback``: a Python seat or ``on_event``).  The
    intervention's placements are made by the core after the deal (a refusal is the
    engine's ``PlacementError``)."""
    native = core()
    players, cards = game.players, game.cards
    python = [s is None for s in seats]
    head = record_head(meta)
    alarm = Alarm(move_time)
    table = Table(bots, python, options, move_time, alarm, on_event, cards) if callback else None
    limit = (move_time, f"{move_time:g}") if move_time else None
    alarm.install()
    try:
        played = native.play_game(
            players, game.seed, options, cards, list(game.dice), limit, list(seats), table,
            on_decision, on_event is not None, head or '{"game":"play"', list(game.names),
            record_parts(options, cards), str(meta.get("game", "play")), game.placements)
    except ArenaError as exc:
        played = getattr(exc, "played", None)
        if played is None:
            raise
        log.error("%s", exc)
    finally:
        alarm.restore()
    line, error, seconds, _failure, final, rngs = played
    for seat, spec in enumerate(seats):
        if spec is not None:
            bot = bots[seat]
            bot.rng.setstate(rngs[seat])
            Bot.start(bot, seat, players, options)  # what its start would have set

    def make_record() -> GameRecord:
        return with_meta(line, meta, head)

    def make_state() -> GameState:
        return native_engine.GameState.of_core(final.copy(True), options, cards)

    return GameOutcome(error=_error(error), seconds=list(seconds),
                       make_state=make_state, make_record=make_record,
                       line=line if head is not None else None)
