"""The Dask executor: the same schedule on a Dask cluster, a chunk of games per task.

Each task plays a chunk of game indices with the same :class:`GamePlayer` as the local
workers and returns their encoded records, so records are identical to the local
executor's.  The configuration travels once per task (it is a few hundred bytes); each Dask
worker keeps one ``GamePlayer`` per configuration, so bot classes are resolved once.

What differs from the local executor, and why:

- Dask runs tasks in worker *threads*, where ``SIGALRM`` cannot be used: ``play_game`` then
  checks ``--move-time`` when the bot returns (the record says ``took X s, over the move
  time``) and a bot that never returns blocks its task.  Run untrusted bots that may hang
  with the local executor, which enforces the limit and kills what overruns it.
- A bot that kills its process kills the Dask worker.  The cluster retries the task on
  other workers and eventually gives up (``KilledWorker``); the chunk is then played again by
  the local executor, which pins the fault on the game and seat and records it exactly as a
  local run would.
- Worker processes are not forked from the parent, so their logging does not reach
  ``arena.log`` directly: the faults a task met come back with its results and the parent
  logs them.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import threading
import time
from collections.abc import Iterator, Sequence
from typing import Any

from .schedule import TournamentConfig
from .worker import Finished, GamePlayer

log = logging.getLogger("arena.tournament")

_players: dict[str, GamePlayer] = {}
_players_lock = threading.Lock()


def config_key(config: TournamentConfig) -> str:
    """A digest of what decides the games: the cache key of a worker's ``GamePlayer``."""
    text = json.dumps(config.manifest_fields(), sort_keys=True, default=str)
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


def play_chunk(key: str, config: TournamentConfig, indices: Sequence[int]) -> list[Finished]:
    """A Dask task: play these games of the schedule (module-level so it pickles by name)."""
    with _players_lock:
        player = _players.get(key)
        if player is None:
            # Faults are logged by the parent (this process's log goes nowhere we keep).
            player = _players[key] = GamePlayer(config, log_faults=False)
    return [player.play(index) for index in indices]


class DaskExecutor:
    """Plays games as Dask tasks on ``scheduler`` (an address) or a new ``LocalCluster``."""

    def __init__(self, config: TournamentConfig, workers: int, scheduler: str | None = None,
                 chunk: int | None = None) -> None:
        self.config = config
        self.workers = max(1, workers)
        self.scheduler = scheduler
        self.chunk = chunk
        self.fallbacks = 0

    def chunks(self, indices: Sequence[int], workers: int) -> list[list[int]]:
        """The tasks: ``--chunk`` games each, or guided sizes.

        A Dask task costs a few milliseconds, as much as a short game, so tasks hold many
        games (up to 64) while much remains, then fewer (a sixth of each worker's share of
        what is left, at least 2) so the workers finish together.
        """
        out: list[list[int]] = []
        i = 0
        while i < len(indices):
            left = len(indices) - i
            size = self.chunk or max(2, min(64, left // (workers * 6)))
            out.append(list(indices[i:i + size]))
            i += size
        return out

    def _client(self) -> tuple[Any, Any]:
        import dask
        from distributed import Client, LocalCluster

        # distributed sets its loggers to INFO when imported: keep arena.log about games.
        for name in ("distributed", "tornado", "bokeh"):
            logging.getLogger(name).setLevel(logging.WARNING)

        if self.scheduler:
            return Client(self.scheduler, set_as_default=False), None
        # A worker a bot killed is not worth three more: give up on the task at once and
        # replay it locally (see the module docstring).
        with dask.config.set({"distributed.scheduler.allowed-failures": 0}):
            cluster = LocalCluster(n_workers=self.workers, threads_per_worker=1,
                                   processes=True, dashboard_address=None)
            client = Client(cluster, set_as_default=False)
        return client, cluster

    def play(self, indices: Sequence[int]) -> Iterator[Finished | None]:
        """Yield finished games as their tasks complete (``None`` ticks between)."""
        from distributed import KilledWorker, as_completed

        from .local import WorkerFailure

        if not indices:
            return
        client, cluster = self._client()
        futures: list[Any] = []
        try:
            workers = len(client.scheduler_info().get("workers", {})) or self.workers
            chunks = self.chunks(indices, workers)
            key = config_key(self.config)
            futures = client.map(play_chunk, [key] * len(chunks), [self.config] * len(chunks),
                                 chunks, pure=False, retries=0)
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
                        results = future.result()
                    except KilledWorker as exc:
                        yield from self._fallback(by_key[future.key], exc)
                        continue
                    except Exception as exc:
                        raise WorkerFailure(f"a Dask task failed: {type(exc).__name__}: "
                                            f"{exc}") from exc
                    for item in results:
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
        from .local import LocalExecutor

        self.fallbacks += 1
        log.warning("a Dask worker died running %d game(s) (%s); replaying them locally to "
                    "pin the fault on a game and seat", len(chunk), type(exc).__name__)
        local = LocalExecutor(self.config, workers=1, chunk=1)
        yield from local.play(chunk)

