"""The Dask executor: the same schedule on a Dask cluster, a chunk of games per task.

Each task plays a chunk of game indices with the same :class:`GamePlayer` as the local
workers and returns their encoded records, so records are identical to the local
executor's.  The configuration travels once per task (it is a few hundred bytes).

A Dask worker runs its tasks in *threads*, where ``SIGALRM`` cannot be used and nothing can
stop a bot that never returns; a bot that ends its process would end the Dask worker.  So a
task does not play in the worker's thread: it hands its chunk to a one-process
:class:`~arena.tournament.local.LocalExecutor`, which enforces ``--move-time`` with the alarm
and its watchdog and records a dying or hung bot against its game and seat exactly as a local
run does.  The child process is kept for the next task of the same tournament: a new one
(a fork of the Dask worker and a fresh ``GamePlayer``) costs 15-25 ms, as much as two games
of random bots, and kept ones bring the bench's ``dask-2`` back to where it was.  A fork, not
a ``forkserver``: the Dask worker has threads, whose locks a fork copies as they are, but the
child only plays games and writes to its pipe (the locks of logging and of the import system
are reset at a fork); a ``forkserver`` child re-runs the Dask worker's main module, which
imports the whole command line, for every process (0.2-0.4 s measured).

That needs Dask workers that may start processes: ``LocalCluster`` workers are started so
(``distributed.worker.daemon: False``); workers of another cluster are daemonic unless
started with ``DASK_DISTRIBUTED__WORKER__DAEMON=False``.  On daemonic workers a task plays in
the worker's thread, as before, and the run says so in ``arena.log``: ``--move-time`` is
then checked only when the bot returns, a bot that hangs blocks its task, and a bot that
kills its process kills the Dask worker; the cluster gives up on the task
(``KilledWorker``), and the chunk is played again by the local executor, which pins the
fault on the game and seat.

Worker processes are not forked from the parent, so their logging does not reach
``arena.log``: the faults a task met come back in its records and the parent logs them.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Iterator, Sequence
from typing import Any

from arena.jail.sandbox import Isolation
from arena.play.seat import participant_seats
from arena.tournament import messages
from arena.tournament.local import LocalExecutor, WorkerFailure
from arena.tournament.schedule import TournamentConfig, make_schedule
from arena.tournament.worker import Finished, GamePlayer, output_log

log = logging.getLogger("arena.tournament")

#: The logging level of distributed's loggers in a process that imports it after this is set.
WORKER_LOGGING = "DASK_LOGGING__DISTRIBUTED"

_players: dict[str, GamePlayer] = {}
_idle: dict[str, list[LocalExecutor]] = {}
_lock = threading.Lock()


def config_key(config: TournamentConfig) -> str:
    """A digest of what decides the games: the cache key of a worker's ``GamePlayer``."""
    text = json.dumps(config.manifest_fields(), sort_keys=True, default=str)
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


def _take_executor(key: str, config: TournamentConfig,
                   isolation: Isolation | None) -> LocalExecutor:
    """An idle one-process executor for this configuration, its process kept between tasks.

    Executors of another configuration (an earlier tournament on a long-lived cluster) are
    closed, so a Dask worker keeps processes for one tournament only.
    """
    with _lock:
        old = [executor for k in [k for k in _idle if k != key] for executor in _idle.pop(k)]
        mine = _idle.get(key)
        executor = mine.pop() if mine else None
    for stale_executor in old:
        stale_executor.close()
    return executor or LocalExecutor(config, workers=1, log_faults=False, keep=True,
                                     isolation=isolation)


def isolated() -> bool:
    """Whether this process may start the processes that isolate a task's games."""
    return not multiprocessing.current_process().daemon


def _player(key: str, config: TournamentConfig, isolation: Isolation | None) -> GamePlayer:
    """This worker's ``GamePlayer`` of the configuration (made once)."""
    with _lock:
        player = _players.get(key)
        if player is None:
            # Faults are logged by the parent (this process's log goes nowhere we keep).
            player = _players[key] = GamePlayer(config, log_faults=False,
                                                isolation=isolation)
    return player


def _native_player(key: str, config: TournamentConfig, indices: Sequence[int],
                   isolation: Isolation | None) -> GamePlayer | None:
    """The ``GamePlayer`` when every game of the task is between native bots, else None."""
    isolates = isolation.isolates if isolation is not None else (lambda spec: False)
    if not all(participant_seats(config.participants, isolates)):
        return None  # not a GamePlayer made for nothing: a Python seat plays in any case
    player = _player(key, config, isolation)
    games = player.schedule.games
    return player if all(player.native.plays(games[i]) for i in indices) else None


def play_chunk(key: str, config: TournamentConfig, indices: Sequence[int],
               isolation: Isolation | None = None) -> bytes:
    """A Dask task: play these games of the schedule (module-level so it pickles by name).

    Returns JSON bytes (``messages.encode_task``): the worker's address and whether it
    isolated the games, for the parent's log, with the games.  JSON, so that the parent
    unpickles nothing but bytes from a task, and checks what it reads.
    """
    from distributed import get_worker

    worker = get_worker().address
    native = _native_player(key, config, indices, isolation)
    if native is not None:
        # Native bots only: no bot code to isolate, the GIL released while each game plays,
        # and no hop through a child process (a Rust bug that ended the process would cost
        # the task, replayed locally as any KilledWorker's).  "isolating": nothing to warn of.
        games: list[Finished] = []
        native.play_chunk(indices, None, games.extend)
        return messages.encode_task(worker, True, games)
    if isolated():
        executor = _take_executor(key, config, isolation)
        try:
            executor.chunk = len(indices)
            return messages.encode_task(
                worker, True, [item for item in executor.play(indices) if item is not None])
        finally:
            with _lock:
                _idle.setdefault(key, []).append(executor)
    player = _player(key, config, isolation)
    games = []
    player.play_chunk(indices, None, games.extend)
    return messages.encode_task(worker, False, games)


def quiet_dask() -> None:
    """distributed sets its loggers to INFO when imported: keep arena.log about games."""
    for name in ("distributed", "tornado", "bokeh"):
        logging.getLogger(name).setLevel(logging.WARNING)


def local_cluster(workers: int, *, daemonic: bool = False) -> Any:
    """A ``LocalCluster`` of single-threaded worker processes, as the executor starts one.

    Its workers may start processes, so they isolate their games (``daemonic=True`` makes
    Dask's default kind, which cannot: for tests); and should a worker die anyway, it is not
    worth three more: the scheduler gives up on the task at once and it is replayed locally.
    """
    import dask
    from distributed import LocalCluster

    # Ctrl-C reaches every process of the terminal's group, the cluster's workers too: each
    # printed a KeyboardInterrupt traceback and died while the run was stopping.  Started
    # with SIGINT ignored (kept across their exec), they leave it to the run, which stops
    # them as it stops local workers.  (A Ctrl-C during the cluster's start-up is lost.)
    # Their logs would reach the terminal too ("task cancelled" warnings when a run stops):
    # only their errors do, read from the environment when they import distributed.
    main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN) if main else None
    level = os.environ.get(WORKER_LOGGING)
    os.environ[WORKER_LOGGING] = "error"
    try:
        with dask.config.set({"distributed.scheduler.allowed-failures": 0,
                              "distributed.worker.daemon": daemonic}):
            # No fixed port: the scheduler's HTTP server would otherwise take 8787 and warn
            # in every other run started beside it.
            return LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                dashboard_address=":0")
    finally:
        if main:
            signal.signal(signal.SIGINT, previous)
        if level is None:
            os.environ.pop(WORKER_LOGGING, None)
        else:
            os.environ[WORKER_LOGGING] = level


class DaskExecutor:
    """Plays games as Dask tasks on ``scheduler`` (an address) or a new ``LocalCluster``."""

    def __init__(self, config: TournamentConfig, workers: int, scheduler: str | None = None,
                 chunk: int | None = None, *, isolation: Isolation | None = None) -> None:
        self.config = config
        self.isolation = isolation
        self.workers = max(1, workers)
        self.scheduler = scheduler
        self.chunk = chunk
        self.daemonic: set[str] = set()

    def chunks(self, indices: Sequence[int], workers: int) -> list[list[int]]:
        """The tasks: ``--chunk`` games each, or guided sizes.

        A Dask task costs a few milliseconds, as much as a short game, so tasks hold many
        games (up to 64, or 512 when every participant plays natively: a fraction of a
        millisecond a game) while much remains, then fewer (a sixth of each worker's share
        of what is left, at least 2) so the workers finish together.
        """
        isolates = self.isolation.isolates if self.isolation is not None else (
            lambda spec: False)
        native = all(participant_seats(self.config.participants, isolates))
        largest = 512 if native else 64
        out: list[list[int]] = []
        i = 0
        while i < len(indices):
            left = len(indices) - i
            size = self.chunk or max(2, min(largest, left // (workers * 6)))
            out.append(list(indices[i:i + size]))
            i += size
        return out

    def _client(self) -> tuple[Any, Any]:
        from distributed import Client

        quiet_dask()
        if self.scheduler:
            return Client(self.scheduler, set_as_default=False), None
        cluster = local_cluster(self.workers)
        return Client(cluster, set_as_default=False), cluster

    def _note_isolation(self, worker: str, isolating: bool) -> None:
        """Say in the log, once per worker, when a worker cannot isolate its games."""
        if isolating or worker in self.daemonic:
            return
        self.daemonic.add(worker)
        log.warning(
            "Dask worker %s is daemonic and plays games in its own thread: --move-time is "
            "checked only when a bot returns, a bot that hangs blocks its task, and one that "
            "ends its process costs the worker (start workers with "
            "DASK_DISTRIBUTED__WORKER__DAEMON=False to isolate games)", worker)

    def play(self, indices: Sequence[int]) -> Iterator[Finished | None]:
        """Yield finished games as their tasks complete (``None`` ticks between)."""
        from distributed import KilledWorker, as_completed

        if not indices:
            return
        client, cluster = self._client()
        schedule = make_schedule(self.config)
        futures: list[Any] = []
        try:
            workers = len(client.scheduler_info().get("workers", {})) or self.workers
            chunks = self.chunks(indices, workers)
            # The key covers the isolation too: a kept child process plays with its own.
            key = config_key(self.config) + repr(self.isolation)
            futures = client.map(play_chunk, [key] * len(chunks), [self.config] * len(chunks),
                                 chunks, [self.isolation] * len(chunks), pure=False,
                                 retries=0)
            by_key = {f.key: chunk for f, chunk in zip(futures, chunks)}
            done = as_completed(futures, loop=client.loop, with_results=False)
            while not done.is_empty():
                batch = done.next_batch(block=False) if done.has_ready() else []
                if not batch:
                    time.sleep(0.05)
                    yield None
                    continue
                for future in batch:
                    try:
                        data = future.result()
                    except KilledWorker as exc:
                        yield from self._fallback(by_key[future.key], exc)
                        continue
                    except Exception as exc:
                        raise WorkerFailure(f"a Dask task failed: {type(exc).__name__}: "
                                            f"{exc}") from exc
                    try:
                        worker, isolating, results = messages.decode_task(data, schedule)
                    except messages.MessageError as exc:
                        raise WorkerFailure(str(exc)) from None
                    if any(item.index not in by_key[future.key] for item in results):
                        raise WorkerFailure("a Dask task returned a game it was not given")
                    self._note_isolation(worker, isolating)
                    for item in results:
                        if item.printed:  # isolated bots' output: the task's log is not kept
                            output_log.info("(on Dask) %s", item.printed)
                        if item.summary.error_seat is not None:
                            record = json.loads(item.line)
                            error = record["error"]
                            log.warning("game %s (on Dask): %s (seat %d) %s: %s",
                                        record["game"], record["seats"][error["seat"]],
                                        error["seat"], error["kind"], error["message"])
                        yield item
                yield None
        finally:
            pending = [f for f in futures if not f.done()]
            if pending:
                with contextlib.suppress(Exception):
                    client.cancel(pending)
            with contextlib.suppress(Exception):
                client.close()
            if cluster is not None:
                with contextlib.suppress(Exception):
                    cluster.close()

    def _fallback(self, chunk: list[int], exc: BaseException) -> Iterator[Finished | None]:
        """Replay a chunk whose task failed with the local, fault-isolating executor."""
        log.warning("a Dask worker died running %d game(s) (%s); replaying them locally to "
                    "pin the fault on a game and seat (workers started with "
                    "DASK_DISTRIBUTED__WORKER__DAEMON=False isolate their games and survive "
                    "such a bot)", len(chunk), type(exc).__name__)
        local = LocalExecutor(self.config, workers=1, chunk=1, isolation=self.isolation)
        yield from local.play(chunk)


def scheduler_problem(address: str, timeout: float = 10.0) -> str | None:
    """Why the scheduler at ``address`` cannot be used, or None: asked before the run's
    folder is written, so that a typo in an address leaves nothing behind.

    It asks the scheduler who it is over Dask's own protocol rather than building a
    ``Client``: a client half built around a bad address closes itself when collected,
    20 seconds later, with a traceback on stderr; and a server that is not a Dask
    scheduler answers bytes the client reads as a frame length (a MemoryError).
    """
    import asyncio

    from distributed.comm import get_address_host_port, parse_address
    from distributed.comm.registry import get_backend
    from distributed.core import rpc

    try:  # a malformed address is refused before anything connects to it
        get_backend(parse_address(address)[0])
        get_address_host_port(address)
    except (ValueError, TypeError) as exc:
        return f"--scheduler {address} is not a Dask scheduler address ({exc})"

    async def identity() -> Any:
        async with rpc(address, timeout=timeout) as scheduler:
            return await asyncio.wait_for(scheduler.identity(), timeout)

    for name in ("distributed", "tornado", "bokeh"):
        logging.getLogger(name).setLevel(logging.ERROR)
    try:
        info = asyncio.run(identity())
    except (TimeoutError, OSError) as exc:
        why = str(exc) or f"no answer in {timeout:g} s"
        return f"cannot reach the Dask scheduler at {address} ({why})"
    except Exception as exc:  # whatever a server of another kind makes the protocol raise
        return (f"the server at {address} does not answer as a Dask scheduler does (reading "
                f"its answer raised {type(exc).__name__})")
    kind = info.get("type") if isinstance(info, dict) else None
    if kind != "Scheduler":
        return f"the server at {address} is a Dask {kind or 'server'}, not a scheduler"
    return None
