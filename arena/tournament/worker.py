"""Playing scheduled games where the work is done (a pool process or a Dask worker).

A worker gets the configuration once and then only game indices.  For each game it makes
the bots from their picklable specs with :func:`arena.play.registry.make_bot` (seeded from the
game seed, the seat and the participant's name, as ``arena play`` seeds them), calls
:func:`arena.play.match.play_game`, and returns the record
already encoded as one JSON line, with a small summary for the standings, so that the parent
only writes lines and adds numbers.  Untrusted bots are not built here: they play in bot
processes of their own (``sandbox.py``), the worker refereeing.

A :class:`Monitor` lets a parent watch a worker it cannot trust to stay alive: before each
decision and each hook the worker writes, in shared memory, which game and seat is running
untrusted code and since when, and it appends every action chosen to a shared buffer.  If
the process dies (``os._exit``, SIGKILL, a segfault in a C extension) or the parent kills it
for overrunning the move time, the parent rebuilds the game as it stood from the seed and
those actions (the engine is deterministic) and records the fault against the right seat.
"""

from __future__ import annotations

import logging
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from time import monotonic
from typing import Any, NamedTuple

import orjson

from arena.engine import Event, GameState, RuleOptions, new_game
from arena.jail.sandbox import BotHost, Isolation, RemoteBot
from arena.play.bot import Bot
from arena.play.faults import game_error, printable, start_fault
from arena.play.intervention import apply as apply_intervention
from arena.play.match import play_game
from arena.play.registry import end_engines, make_bot
from arena.play.seat import participant_seats
from arena.play.seeds import bot_seed
from arena.runs.records import GameError, GameRecord, make_record
from arena.tournament.native_games import NativeGames
from arena.tournament.schedule import Schedule, ScheduledGame, TournamentConfig, make_schedule

log = logging.getLogger("arena.tournament")
#: What isolated bots print: to ``arena.log`` only, never to the console (``logs.py``), so
#: that a bot cannot print a fake standings table into the command's output.
output_log = logging.getLogger("arena.bot_output")


def shown_output(data: bytes) -> str:
    """A bot's output as log text, its lines kept and every control character escaped
    (``arena.play.faults.printable``), so that reading ``arena.log`` in a terminal runs none."""
    return printable(data.decode(errors="replace").rstrip(), lines=True)

# Layout of a worker's status array (doubles, shared with the parent):
# GAME: schedule index of the current game (-1 between games); ACTIVE: 1 during a game;
# WHO: which untrusted code runs: seat + 1 while that seat chooses a move, -(seat + 1) while
# it runs a hook (observe, finish), -(seat + 1.5) while it starts (created, its start hook:
# held to the start-up budget, not the move time), 0 outside bot code; SINCE: when WHO was
# last set to a seat; SECONDS + s: thinking time of seat s so far in the game.
GAME, ACTIVE, WHO, SINCE = 0, 1, 2, 3
SECONDS = 4
STATUS_SIZE = SECONDS + 4
# What a monitor reading says the worker was doing.
ENGINE, THINKING, HOOK, STARTING = 0.0, 1.0, 2.0, 3.0
#: Actions kept per game for rebuilding a game whose worker died (far beyond any game).
HISTORY_SIZE = 1 << 16


class Summary(NamedTuple):
    """What the standings need from a record, without parsing the JSON line again."""

    winners: tuple[int, ...]
    tiebreak: str
    scores: tuple[int, ...]
    error_seat: int | None
    error_kind: str | None


class Finished(NamedTuple):
    """A game played: its schedule index, its record as one JSON line, and its summary.

    ``printed`` is what its isolated bots printed (bounded by their hosts), as log text: a
    worker whose log reaches ``arena.log`` logs it itself, and a Dask task, whose log goes
    nowhere kept, hands it to the parent with the game.
    """

    index: int
    line: str
    summary: Summary
    printed: str = ""


def summarize(record: GameRecord | dict[str, Any]) -> Summary:
    """The summary of a record (also used on the records read back by ``--resume``)."""
    error = record.get("error")
    return Summary(
        tuple(record["winners"]),
        str(record["tiebreak"]),
        tuple(record["scores"]),
        error["seat"] if error else None,
        error["kind"] if error else None,
    )


def encode(record: GameRecord | dict[str, Any]) -> str:
    """One ``games.jsonl`` line (no newline), compact: the same text as ``json.dumps`` with
    compact separators, in a third of the time (a tenth of the runner's cost per game)."""
    return orjson.dumps(record).decode()


def finished(index: int, record: GameRecord | dict[str, Any], printed: str = "") -> Finished:
    return Finished(index, encode(record), summarize(record), printed)


class GameFailure(Exception):
    """The runner failed (not a bot) while playing game ``index``: ``text`` says how."""

    def __init__(self, index: int, exc: BaseException) -> None:
        super().__init__(f"game index {index}: {exc}")
        self.index = index
        self.text = "".join(traceback.format_exception(exc))


class Monitor:
    """The worker's side of the watchdog: shared arrays the parent reads.

    ``status`` is a ``multiprocessing.RawArray('d', STATUS_SIZE)`` and ``history`` a
    ``RawArray('q', HISTORY_SIZE + 1)`` (slot 0: the number of actions).  No locks: only
    this worker writes, and the parent reads them to act only when the worker is dead or
    has overrun its deadline by a wide margin, where a torn read cannot matter.  The worker
    writes through memoryviews (faster than ctypes indexing): six stores and two clock
    readings per decision (see ``_watch_choose``).
    """

    def __init__(self, status: Any, history: Any) -> None:
        self.status = memoryview(status).cast("B").cast("d")
        self.history = memoryview(history).cast("B").cast("q")

    def begin(self, index: int) -> None:
        status = self.status
        for i in range(SECONDS, STATUS_SIZE):
            status[i] = 0.0
        self.history[0] = 0
        status[WHO] = -1.5
        status[SINCE] = monotonic()
        status[GAME] = float(index)
        status[ACTIVE] = 1.0

    def creating(self, seat: int) -> None:
        self.status[WHO] = -(seat + 1.5)
        self.status[SINCE] = monotonic()

    def end(self) -> None:
        self.status[ACTIVE] = 0.0
        self.status[WHO] = 0.0
        self.status[GAME] = -1.0


def _watch_choose(
    choose: Callable[[Any, Sequence[int]], int], seat: int, monitor: Monitor
) -> Callable[[Any, Sequence[int]], int]:
    """``choose`` with the monitor's bookkeeping: the hot path (once per decision).

    A closure over local names, not a method: attribute lookups would cost more than the
    six stores and two clock readings (about 0.4 µs per decision in all).  The number of
    actions lives in ``history[0]``, shared by the seats of the game.
    """
    status = monitor.status
    history = monitor.history
    thinking = seat + 1.0
    slot = SECONDS + seat
    seconds = 0.0
    limit = HISTORY_SIZE
    who, since = WHO, SINCE

    def watched(view: Any, legal: Sequence[int]) -> int:
        nonlocal seconds
        start = monotonic()
        status[who] = thinking
        status[since] = start
        action = choose(view, legal)
        status[who] = 0.0
        seconds += monotonic() - start
        status[slot] = seconds
        if type(action) is int:
            n = history[0]
            if n < limit:
                try:
                    history[n + 1] = action
                except (OverflowError, ValueError):
                    return action
                history[0] = n + 1
        return action

    return watched


class _Watched:
    """A bot wrapped so that the monitor knows when it thinks and what it chose.

    Methods the bot does not override (``observe`` of most bots) are not wrapped: an extra
    call per event would cost more than the rest of the bookkeeping.
    """

    def __init__(self, bot: Bot, seat: int, monitor: Monitor) -> None:
        self.bot = bot
        self.status = monitor.status
        self.hooked = -(seat + 1.0)
        self.starting = -(seat + 1.5)
        self.choose = _watch_choose(bot.choose, seat, monitor)
        if getattr(bot.observe, "__func__", None) is Bot.observe:
            self.observe = bot.observe
        else:
            self.observe = self._observe

    def start(self, seat: int, players: int, options: RuleOptions) -> None:
        status = self.status
        status[WHO] = self.starting
        status[SINCE] = monotonic()
        self.bot.start(seat, players, options)
        status[WHO] = 0.0

    def _observe(self, event: Event) -> None:
        status = self.status
        status[WHO] = self.hooked
        status[SINCE] = monotonic()
        self.bot.observe(event)
        status[WHO] = 0.0

    def finish(self, result: Any) -> None:
        status = self.status
        status[WHO] = self.hooked
        status[SINCE] = monotonic()
        self.bot.finish(result)
        status[WHO] = 0.0


class GamePlayer:
    """Plays games of one schedule by index; one per worker process or Dask worker.

    Participants that ``isolation`` isolates play through a :class:`~.sandbox.RemoteBot`,
    one bot process per game; their classes are never imported here.  Their jails are kept
    per participant, seat rotation and copy at the table (``_host``): the seat rotations of
    one deal never meet in a jail (a bot there would remember its opponent's hidden cards,
    its own in the rotation before), nor do two copies of a participant at one table.
    """

    def __init__(self, config: TournamentConfig, *, log_faults: bool = True,
                 isolation: Isolation | None = None) -> None:
        self.config = config
        self.log_faults = log_faults
        self.schedule: Schedule = make_schedule(config)
        self.isolation = isolation or Isolation(mode="none")
        self.isolated = [self.isolation.isolates(spec) for spec in config.participants]
        #: The kept jails: (participant, rotation, copy) -> its host.
        self.hosts: dict[tuple[int, int, int], BotHost] = {}
        for spec, isolated in zip(config.participants, self.isolated):
            if not isolated:
                spec.bot_class()  # imported once, before the first game
        #: Each participant's seat, decided once (``arena.play.seat``): native or not.
        self.seats = participant_seats(config.participants, self.isolation.isolates)
        self.native = NativeGames(self.schedule, self.seats, log_faults=log_faults)

    def close(self) -> None:
        """Stop the bot hosts (and so any bot process left), and the engines' processes."""
        for host in self.hosts.values():
            host.close()
        end_engines()

    def _host(self, participant: int, game: ScheduledGame, seat: int) -> BotHost:
        """The jail ``participant`` plays ``seat`` of ``game`` in: one per seat rotation and
        copy (its first seat at the table, its second...), made when first needed."""
        copy = game.seats[:seat].count(participant)
        key = (participant, game.rotation, copy)
        host = self.hosts.get(key)
        if host is None:
            host = BotHost(self.config.participants[participant], self.isolation,
                           slot=len(self.hosts))
            self.hosts[key] = host
        return host

    def _create(self, participant: int, game: ScheduledGame, seat: int) -> Any:
        """The bot of ``participant`` at ``seat``: made here, or in its bot process from the
        same seed (which tells nothing of the game seed)."""
        spec = self.config.participants[participant]
        if self.isolated[participant]:
            return RemoteBot(self._host(participant, game, seat),
                             bot_seed(game.seed, seat, spec.name), self.config.move_time,
                             deal=game.seed)
        return make_bot(spec, game.seed, seat)

    def play_chunk(self, indices: Sequence[int], monitor: Monitor | None,
                   send: Callable[[list[Finished]], None]) -> None:
        """Play these games, ``send`` getting the finished ones in lists: the games of
        native bots only in native batches (``native_games.py``), the others one by one
        (``play``).  A failure of the runner itself is a ``GameFailure``."""
        run: list[int] = []

        def batch() -> None:
            if not run:
                return
            try:
                self.native.play(run, lambda done: send([
                    Finished(index, line, Summary(*summary)) for index, line, summary in done
                ]))
            except Exception as exc:
                raise GameFailure(run[0], exc) from exc
            run.clear()

        for index in indices:
            if self.native.plays(self.schedule.games[index]):
                run.append(index)
                continue
            batch()
            try:
                send([self.play(index, monitor)])
            except Exception as exc:
                raise GameFailure(index, exc) from exc
        batch()

    def play(self, index: int, monitor: Monitor | None = None) -> Finished:
        """Play game ``index`` of the schedule; bot faults end up in the record, not here."""
        game = self.schedule.games[index]
        config = self.config
        names = self.schedule.names(game)
        if monitor is not None:
            monitor.begin(index)
        log.debug("game %s started: %s", game.id, " vs ".join(names))
        bots: list[Any] = []
        remote: list[tuple[int, RemoteBot]] = []
        printed: list[str] = []
        error: GameError | None = None
        try:
            for seat, participant in enumerate(game.seats):
                try:
                    if monitor is not None:
                        monitor.creating(seat)
                    bot = self._create(participant, game, seat)
                except Exception as exc:  # untrusted code
                    error = game_error(seat, start_fault(exc, made=False))
                    break
                if isinstance(bot, RemoteBot):
                    remote.append((seat, bot))
                bots.append(_Watched(bot, seat, monitor) if monitor is not None else bot)
            if error is not None:
                state = fresh_state(self.schedule, game)
                record = make_record(state, names, [0.0] * config.players, error, game.meta(),
                                     game.intervention)
            else:
                outcome = play_game(bots, game.seed, config.options, names=names,
                                    move_time=config.move_time, meta=game.meta(),
                                    cards=config.cards if game.cards is None else game.cards,
                                    intervention=game.intervention)
                record = outcome.record
                error = outcome.error
        finally:
            for seat, bot in remote:
                output = bot.close()
                if output:
                    text = (f"game {game.id}: {names[seat]} (seat {seat}) printed:\n"
                            + shown_output(output))
                    output_log.info("%s", text)
                    printed.append(text)
        if monitor is not None:
            monitor.end()
        if error is not None and self.log_faults:
            log.warning("game %s: %s (seat %d) %s: %s", game.id, names[error["seat"]],
                        error["seat"], error["kind"], error["message"])
        else:
            log.debug("game %s finished: winners %s", game.id, record["winners"])
        return finished(index, record, "\n".join(printed))


@dataclass
class MonitorReading:
    """What the parent read from a dead worker's monitor."""

    index: int
    phase: float
    seat: int
    since: float
    seconds: list[float]
    actions: list[int]


def doing(who: float) -> tuple[float, int]:
    """``(phase, seat)`` from a status ``WHO`` value (seat -1: no bot code was running)."""
    if who > 0:
        return THINKING, int(who) - 1
    if who < 0:
        return (STARTING if -who - int(-who) > 0.25 else HOOK), int(-who) - 1
    return ENGINE, -1


def read_monitor(status: Any, history: Any, players: int) -> MonitorReading | None:
    """The game a worker was playing (None when it was between games)."""
    if status[ACTIVE] < 0.5 or status[GAME] < 0:
        return None
    n = max(0, min(int(history[0]), HISTORY_SIZE))
    phase, seat = doing(status[WHO])
    return MonitorReading(
        index=int(status[GAME]),
        phase=phase,
        seat=seat,
        since=float(status[SINCE]),
        seconds=[float(status[SECONDS + s]) for s in range(players)],
        actions=[int(history[i + 1]) for i in range(n)],
    )


def fresh_state(schedule: Schedule, game: ScheduledGame) -> GameState:
    """A scheduled game before its first decision: dealt from its seed with its card set,
    an experiment's cards placed."""
    config = schedule.config
    state: GameState = new_game(config.players, game.seed, config.options,
                                cards=config.cards if game.cards is None else game.cards)
    apply_intervention(state, game.intervention)
    return state


def state_after(schedule: Schedule, game: ScheduledGame, actions: Sequence[int]) -> GameState:
    """The state of a game after these actions, replayed from its seed.

    The engine is deterministic, so this is the state the dead worker had; an action that
    does not apply (a torn read at the moment of death) ends the replay there.
    """
    state = fresh_state(schedule, game)
    for action in actions:
        if state.ended or action not in state.legal_actions():
            break
        state.apply(action)
    return state


def rebuild(schedule: Schedule, game: ScheduledGame, state: GameState,
            seconds: Sequence[float], error: GameError) -> GameRecord:
    """The record of a game cut short outside its process (see :func:`state_after`)."""
    return make_record(state, schedule.names(game), list(seconds), error, game.meta(),
                       game.intervention)
