"""The local executor: worker processes of our own, with a watchdog.

Why not ``concurrent.futures.ProcessPoolExecutor``?  Its workers share one call queue and
one result queue; when a bot kills its process (``os._exit``, SIGKILL) the executor marks the
whole pool broken, fails every pending future, and cannot say which game the dead worker was
playing nor which seat was thinking; killing a worker that overruns its move time is not in
its API either.  Rebuilding it after each fault would replay every game in flight.

So each worker here is a ``multiprocessing`` process (``fork``: instant start, and the
``multiprocessing-logging`` handler is inherited) with:

- its own duplex pipe: the parent sends chunks of game indices, the worker sends back one
  message per game, synchronously (no feeder thread, so a worker dying cannot leave half a
  message in a queue other workers use); both ways JSON (``messages.py``), never a pickle,
  which the parent checks before it believes it;
- two shared arrays (:class:`~arena.tournament.worker.Monitor`): the game and seat running
  untrusted code and since when, and the actions chosen so far.

The parent keeps every worker at most two chunks ahead, waits on the pipes and the process
sentinels together (one epoll selector), and every ``POLL`` seconds checks each worker's
deadline.  A worker that dies, or that the watchdog kills because one decision (or hook) ran
``move_time + max(1 s, move_time / 2)`` past its start (SIGALRM inside the worker handles
ordinary overruns; this catches a bot that blocks the signal or hangs in C code, and hooks,
which no alarm covers), costs only its current game: that game is rebuilt
from its seed and the actions chosen and recorded with the fault, the other games the worker
held go back to the front of the queue, and a fresh worker takes the slot.  Other workers are
untouched, so nothing else is replayed.  Without ``--move-time`` there is no deadline (as
with cutechess-cli without a time control): a bot that never returns holds its worker.

A worker whose parent is killed outright stops within a second (``die_with_parent``: the
kernel's parent-death signal, and a thread polling the parent's PID), and so do the bot
processes of the untrusted bots it referees (``sandbox.py``).
"""

from __future__ import annotations

import contextlib
import gc
import logging
import multiprocessing
import os
import selectors
import signal
import threading
import time
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from typing import Any

import orjson

from arena.jail.bwrap import sweep_cgroups
from arena.jail.sandbox import Isolation, die_with_parent
from arena.play.limits import start_time
from arena.play.seat import participant_seats
from arena.runs.records import GameError
from arena.runs.store import forget_locks
from arena.tournament import messages
from arena.tournament.schedule import Schedule, TournamentConfig, make_schedule
from arena.tournament.worker import (
    ACTIVE,
    ENGINE,
    GAME,
    HISTORY_SIZE,
    HOOK,
    SINCE,
    STARTING,
    STATUS_SIZE,
    THINKING,
    WHO,
    Finished,
    GameFailure,
    GamePlayer,
    Monitor,
    doing,
    finished,
    read_monitor,
    rebuild,
    state_after,
)

log = logging.getLogger("arena.tournament")

#: Seconds between watchdog checks when no result arrives.
POLL = 0.1
#: Seconds between an orphaned worker's looks at its parent.
ORPHAN_POLL = 0.5
#: ``prctl`` option: a signal for this process when its parent thread dies (Linux).
PR_SET_PDEATHSIG = 1
#: Worker deaths in a row that no game explains before the run stops (a loop otherwise).
IDLE_DEATHS = 5


def watchdog_limit(move_time: float | None) -> float | None:
    """Seconds one decision may run before the parent kills its worker.

    SIGALRM in the worker stops ordinary overruns at ``move_time``; the parent steps in
    only later, for a bot that blocks the signal or is stuck in C code.
    """
    if move_time is None:
        return None
    return move_time + max(1.0, 0.5 * move_time)


def _worker_main(conn: Connection, status: Any, history: Any, config: TournamentConfig,
                 log_faults: bool, parent: int, by_signal: bool,
                 isolation: Isolation | None) -> None:
    """A worker process: play the chunks of indices it is sent until it is sent ``None``."""
    # Ctrl-C reaches the whole process group; only the parent decides what to do with it.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    forget_locks()
    player = GamePlayer(config, log_faults=log_faults, isolation=isolation)
    die_with_parent(parent, by_signal=by_signal, before=player.close)
    monitor = Monitor(status, history)
    # A parent killed outright (SIGKILL, the OOM killer) closes no pipe of ours: a sibling
    # forked later holds a copy of its end.  Its sentinel tells, and an orphan stops.
    parent = multiprocessing.parent_process()
    while True:
        if parent is not None and conn not in wait([conn, parent.sentinel]):
            break
        try:
            chunk = orjson.loads(conn.recv_bytes())
        except (EOFError, OSError):
            break
        if chunk is None:
            break
        try:
            # One message per game, or per chunk of a native batch.
            player.play_chunk(chunk, monitor,
                              lambda done: conn.send_bytes(messages.encode_many(done)))
        except GameFailure as failure:  # reported to the parent, which stops
            conn.send_bytes(messages.encode_failure(failure.index, failure.text))
    player.close()
    conn.close()


class WorkerFailure(RuntimeError):
    """The runner itself failed in a worker (a bug, not a bot fault): the run stops."""


@dataclass
class _Slot:
    """One worker process and what the parent knows of it."""

    number: int
    status: Any
    history: Any
    process: Any = None
    conn: Connection | None = None
    assigned: deque[int] = field(default_factory=deque)
    #: (game index, message) when the watchdog killed the worker over that game.
    killed_for: tuple[int, str] | None = None
    generation: int = 0


class LocalExecutor:
    """Plays games on ``workers`` local processes; see the module docstring."""

    def __init__(self, config: TournamentConfig, workers: int, chunk: int | None = None, *,
                 log_faults: bool = True, keep: bool = False,
                 isolation: Isolation | None = None) -> None:
        """The keywords are for running inside a Dask worker.

        ``log_faults=False``: its log reaches nobody, so the faults travel in the records and
        the Dask parent logs them.  ``keep``: the workers outlive a ``play`` that finishes
        its games, for the next task's (a fork of a Dask worker and a fresh ``GamePlayer``
        cost 15-25 ms, two games of random bots); ``close`` stops them.
        """
        self.config = config
        self.schedule: Schedule = make_schedule(config)
        self.workers = max(1, workers)
        self.chunk = chunk
        self.limit = watchdog_limit(config.move_time)
        #: Start-up (creation, start hook) has its own budget: not a decision.
        self.start_limit = watchdog_limit(start_time(config.move_time))
        self.context = multiprocessing.get_context("fork")
        self.log_faults = log_faults
        self.keep = keep
        self.isolation = isolation
        isolates = isolation.isolates if isolation is not None else (lambda spec: False)
        native = all(participant_seats(config.participants, isolates))
        #: The largest chunk of guided self-scheduling (``chunk_size``).
        self.largest = 64 if native else 16
        self.slots: list[_Slot] = []
        self.idle_deaths = 0
        self.selector = selectors.DefaultSelector()

    def chunk_size(self, pending: int) -> int:
        """Games in the next message: ``--chunk``, or guided self-scheduling.

        A message costs tens of microseconds, so chunks only need to be large while much
        remains; they shrink with what is left (a quarter of each worker's share, at most
        16, or 64 when every participant plays natively: such games take a fraction of a
        millisecond, and the parent's work per message counts) so that the workers finish
        together instead of one idling while another plays a last big chunk.
        """
        if self.chunk:
            return self.chunk
        return max(1, min(self.largest, pending // (self.workers * 4)))

    def _spawn(self, slot: _Slot) -> None:
        parent, child = self.context.Pipe(duplex=True)
        slot.status[GAME] = -1.0
        for i in range(1, STATUS_SIZE):
            slot.status[i] = 0.0
        slot.history[0] = 0
        slot.generation += 1
        process = self.context.Process(
            target=_worker_main,
            args=(child, slot.status, slot.history, self.config, self.log_faults, os.getpid(),
                  threading.current_thread() is threading.main_thread(), self.isolation),
            name=f"arena-worker-{slot.number}.{slot.generation}", daemon=True,
        )
        # Objects inherited from the parent stay out of the worker's garbage collections,
        # which would otherwise touch (and so copy) every page of them.
        gc.freeze()
        try:
            process.start()
        finally:
            gc.unfreeze()
        child.close()
        slot.process, slot.conn, slot.killed_for = process, parent, None
        # One selector for the whole run (``connection.wait`` builds one per call).
        self.selector.register(parent, selectors.EVENT_READ, (slot.number, "conn"))
        self.selector.register(process.sentinel, selectors.EVENT_READ, (slot.number, "died"))
        slot.assigned.clear()

    def play(self, indices: Sequence[int]) -> Iterator[Finished | None]:
        """Play the games; yields each as it finishes, and ``None`` about every ``POLL`` s.

        The ``None`` ticks let the caller refresh its progress and decide to stop; closing
        the generator (``.close()``, or leaving a ``for`` loop over it) stops the workers at
        once, dropping the games in flight.
        """
        pending: deque[int] = deque(indices)
        if not pending:
            return
        if not self.slots:
            self._start(min(self.workers, len(pending)))
        done = False
        try:
            while pending or any(slot.assigned for slot in self.slots):
                for slot in self.slots:
                    # Two chunks ahead: the next is there when the current one ends.
                    while pending and len(slot.assigned) < 2 * self.chunk_size(len(pending)):
                        size = self.chunk_size(len(pending))
                        part = [pending.popleft() for _ in range(min(size, len(pending)))]
                        slot.assigned.extend(part)
                        assert slot.conn is not None
                        try:
                            slot.conn.send_bytes(orjson.dumps(part))
                        except OSError:
                            break  # dead: found below
                ready = {key.data for key, _ in self.selector.select(timeout=POLL)}
                for slot in self.slots:
                    if (slot.number, "conn") in ready:
                        # One message per wake-up: the selector is level-triggered, so
                        # more waiting data wakes it again (``conn.poll`` builds a selector
                        # per call, which would cost more than the message).
                        message = self._receive(slot)
                        if message is not None:
                            yield from message
                    if (slot.number, "died") in ready:
                        yield from self._drain(slot)
                        lost = self._bury(slot)
                        if lost is not None:
                            yield lost
                        pending.extendleft(reversed(slot.assigned))
                        self._spawn(slot)
                self._watch()
                yield None
            done = True
        finally:
            if not (done and self.keep):
                self._shutdown()

    def _start(self, count: int) -> None:
        self.selector = selectors.DefaultSelector()
        self.slots = [
            _Slot(i, self.context.RawArray("d", STATUS_SIZE),
                  self.context.RawArray("q", HISTORY_SIZE + 1))
            for i in range(count)
        ]
        for slot in self.slots:
            self._spawn(slot)

    def close(self) -> None:
        """Stop the workers a ``keep`` executor left running (nothing otherwise)."""
        if self.slots:
            self._shutdown()

    def _receive(self, slot: _Slot) -> list[Finished] | None:
        """The games of a worker's next message (None when its pipe is closed or cut
        mid-message)."""
        assert slot.conn is not None
        try:
            data = slot.conn.recv_bytes(messages.MESSAGE_LIMIT)
        except (EOFError, OSError):
            return None
        try:
            games = messages.decode_many(data, self.schedule)
        except messages.WorkerFailed as failed:
            raise WorkerFailure(f"the runner failed while playing game index {failed.index}:"
                                f"\n{failed.text}") from None
        except messages.MessageError as exc:
            raise WorkerFailure(f"worker {slot.number}: {exc}") from None
        for game in games:
            if game.index not in slot.assigned:
                raise WorkerFailure(f"worker {slot.number} sent game index {game.index}, "
                                    "which it was not given")
        self.idle_deaths = 0
        for game in games:
            with contextlib.suppress(ValueError):
                slot.assigned.remove(game.index)
        return games

    def _drain(self, slot: _Slot) -> Iterator[Finished]:
        """Every message a dead worker sent before it died (each is whole)."""
        assert slot.conn is not None
        while True:
            try:
                if not slot.conn.poll():
                    return
            except (EOFError, OSError):
                return
            message = self._receive(slot)
            if message is None:
                return
            yield from message

    def _bury(self, slot: _Slot) -> Finished | None:
        """Record the game a dead worker was playing; None if it died between games."""
        process = slot.process
        process.join(1.0)
        code = process.exitcode
        with contextlib.suppress(KeyError, ValueError):
            self.selector.unregister(process.sentinel)
        if slot.conn is not None:
            with contextlib.suppress(KeyError, ValueError):
                self.selector.unregister(slot.conn)
        shot = read_monitor(slot.status, slot.history, self.config.players)
        if slot.conn is not None:
            slot.conn.close()
        if self.isolation is not None:
            sweep_cgroups()  # the dead worker's jails' (they die with it)
        if shot is None or shot.index not in slot.assigned:
            self.idle_deaths += 1
            if self.idle_deaths >= IDLE_DEATHS:
                # Nothing to pin on a game: replaying would only fork and bury again.
                raise WorkerFailure(
                    f"{self.idle_deaths} worker processes in a row died before finishing a "
                    f"game, outside any bot's decision (the last: exit code {code}); is the "
                    "machine out of memory?")
            log.warning("worker %d died between games (exit code %s); its games are replayed",
                        slot.number, code)
            return None
        self.idle_deaths = 0
        slot.assigned.remove(shot.index)
        game = self.schedule.games[shot.index]
        state = state_after(self.schedule, game, shot.actions)
        seconds = list(shot.seconds)
        if shot.phase == ENGINE:
            # Outside bot code (a bot's own thread?): blame the seat whose turn it was.
            shot.seat = state.current
        else:
            seconds[shot.seat] += max(0.0, time.monotonic() - shot.since)
        if slot.killed_for is not None and slot.killed_for[0] == shot.index:
            error: GameError = {"seat": shot.seat, "kind": "timeout",
                                "message": slot.killed_for[1]}
        elif slot.killed_for is not None:
            # The decision ended just as it was killed: the next game is not to blame.
            slot.assigned.appendleft(shot.index)
            return None
        else:
            where = {THINKING: "while choosing a move", HOOK: "in a bot hook",
                     STARTING: "while starting"}.get(
                shot.phase, "between decisions")
            error = {"seat": shot.seat, "kind": "crash",
                     "message": f"the bot's process died (exit code {code}) {where}"}
        names = self.schedule.names(game)
        if self.log_faults:
            log.warning("game %s: %s (seat %d) %s: %s", game.id, names[shot.seat], shot.seat,
                        error["kind"], error["message"])
        record = rebuild(self.schedule, game, state, seconds, error)
        return finished(shot.index, record)

    def _watch(self) -> None:
        """Kill a worker whose current decision or hook has overrun the watchdog limit."""
        if self.limit is None:
            return
        now = time.monotonic()
        for slot in self.slots:
            status = slot.status
            if slot.killed_for is not None or status[ACTIVE] < 0.5:
                continue
            phase, _ = doing(status[WHO])
            since = status[SINCE]
            limit_s = self.start_limit if phase == STARTING else self.limit
            if phase in (THINKING, HOOK, STARTING) and limit_s is not None \
                    and now - since > limit_s:
                # No clock reading in the message: the record's ``seconds`` has the time,
                # and the record stays the same from one run to the next.
                limit = f"{self.config.move_time:g} s move time"
                if phase == STARTING:
                    text = (f"no reply within {start_time(self.config.move_time):g} s to start "
                            f"(its process was killed after {limit_s:g} s)")
                elif phase == THINKING:
                    text = (f"no decision within the {limit} (the bot ignored the alarm; its "
                            f"process was killed after {self.limit:g} s)")
                else:
                    text = (f"a bot hook ran past the {limit} (its process was killed after "
                            f"{self.limit:g} s)")
                slot.killed_for = (int(status[GAME]), text)
                log.debug("worker %d over its deadline: killing it", slot.number)
                with contextlib.suppress(ProcessLookupError):
                    os.kill(slot.process.pid, signal.SIGKILL)

    def _shutdown(self) -> None:
        """Stop every worker: ask politely, then kill those still busy."""
        for slot in self.slots:
            if slot.conn is not None:
                with contextlib.suppress(OSError):
                    slot.conn.send_bytes(b"null")
        deadline = time.monotonic() + 0.5
        for slot in self.slots:
            process = slot.process
            if process is None:
                continue
            busy = bool(slot.assigned)
            if busy:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(process.pid, signal.SIGKILL)
            process.join(max(0.05, deadline - time.monotonic()))
            if process.is_alive():
                with contextlib.suppress(ProcessLookupError):
                    os.kill(process.pid, signal.SIGKILL)
                process.join(1.0)
            if slot.conn is not None:
                slot.conn.close()
        self.selector.close()
        self.slots = []
        if self.isolation is not None:
            sweep_cgroups(wait=2.0)  # those of workers killed above
