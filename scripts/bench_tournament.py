"""Throughput of the tournament runner against the same games played in one bare loop.

Usage::

    python scripts/bench_tournament.py [--games 200] [--repeat 5] [--rule max_rounds=60]
                                       [--no-dask]

Plays the same schedule (``--bot`` against itself, ``random`` by default; default rules
unless ``--rule``) in several ways, interleaved ``--repeat`` times so that drift of a
shared machine hits them alike:

- ``bare``: one loop in this process calling ``play_game`` on each scheduled game, bot
  classes resolved once: the games themselves, no runner;
- ``native-2`` (native engine, bots that play natively): the bare native speed, two
  processes (one per core) each playing half the schedule in native batches, records made
  and dropped (no pipes, no files): what ``local-2`` and ``dask-2`` are held against
  (goal: >= 80%);
- ``local-1`` / ``local-2``: ``run_tournament`` with 1 and 2 worker processes, everything
  included (forking workers, JSON lines written and flushed, logging, standings);
- ``dask-2``: the Dask executor on a ``LocalCluster`` of 2 single-threaded worker processes
  (as the executor makes them: each task's games in a process of their own), started once
  after the other ways were measured (its scheduler's threads would slow them down) and
  warmed up; its start-up, a few seconds, is printed separately.

Prints, per way, the median games/s and the spread (min-max), then the ratio of 2 workers
to 1 and the overhead of the 1-worker runner over the bare loop (goals: >= 1.85x, <= 5%),
both as a ratio of the medians and as the median of the ratios within each repeat (the
ways of a repeat run back to back, so slow drift of a shared machine cancels there).
The fixed costs of a run (forking the workers, resolving the bots) weigh on short runs:
``--games 1000`` measures what a long tournament sees.

Wall-clock figures need an otherwise idle machine.  On a shared one they are noise, so the
CPU time of each way is measured too (this process and its reaped children: the parent and
the local workers; not the Dask workers, which are not our children): ``CPU ms/game`` and the
overhead in CPU time do not depend on what else runs.  The load average is printed first.
"""

from __future__ import annotations

import os
import resource
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from _args import (  # noqa: E402
    add_cards_option,
    add_rule_option,
    at_least,
    own_bot_spec,
    rules_and_cards,
    script_parser,
)

from arena.engine import ArenaError  # noqa: E402
from arena.play.match import play_game  # noqa: E402
from arena.play.registry import BotSpec, make_bot  # noqa: E402
from arena.tournament.runner import RunSettings, run_tournament  # noqa: E402
from arena.tournament.schedule import TournamentConfig, make_schedule  # noqa: E402


def bare_loop(config: TournamentConfig) -> float:
    """Seconds to play every scheduled game in a plain loop (no processes, no files)."""
    schedule = make_schedule(config)
    for spec in config.participants:
        spec.bot_class()  # imported before the clock starts, as a worker does
    start = time.perf_counter()
    for game in schedule.games:
        bots = [make_bot(config.participants[who], game.seed, seat)
                for seat, who in enumerate(game.seats)]
        play_game(bots, game.seed, config.options, names=schedule.names(game),
                  move_time=config.move_time, meta=game.meta(), cards=config.cards)
    return time.perf_counter() - start


def _native_half(config: TournamentConfig, part: int) -> None:
    """Half the schedule in native batches, the records dropped (a forked child)."""
    from arena.tournament.worker import GamePlayer

    player = GamePlayer(config, log_faults=False)
    indices = [g.index for g in player.schedule.games][part::2]
    player.native.play(indices, lambda done: None)


def bare_native(config: TournamentConfig) -> float:
    """Seconds for two processes to play the schedule in native batches, nothing kept."""
    import multiprocessing

    context = multiprocessing.get_context("fork")
    start = time.perf_counter()
    procs = [context.Process(target=_native_half, args=(config, k)) for k in (0, 1)]
    for p in procs:
        p.start()
    for p in procs:
        p.join()
        assert p.exitcode == 0
    return time.perf_counter() - start


def runner(config: TournamentConfig, workers: int, executor: str = "local",
           scheduler: str | None = None) -> float:
    """Seconds for ``run_tournament`` to play the schedule into a fresh directory."""
    directory = Path(tempfile.mkdtemp(prefix="bench-"))
    try:
        settings = RunSettings(workers=workers, executor=executor, scheduler=scheduler,
                               progress="none")
        start = time.perf_counter()
        result = run_tournament(config, directory / "run", settings=settings)
        elapsed = time.perf_counter() - start
        assert result.finished and result.done == make_schedule(config).total
        return elapsed
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def cpu_seconds() -> tuple[float, float]:
    """User + system time of this process, and of its children that have been reaped."""
    out = []
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        usage = resource.getrusage(who)
        out.append(usage.ru_utime + usage.ru_stime)
    return out[0], out[1]


def main() -> None:
    parser = script_parser(
        __doc__,
        "python scripts/bench_tournament.py",
        "python scripts/bench_tournament.py --games 100 --repeat 3 --no-dask",
    )
    parser.add_argument("--games", type=at_least(1), default=200, help="games in the schedule")
    parser.add_argument("--repeat", type=at_least(1), default=5)
    add_rule_option(parser)
    add_cards_option(parser)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-dask", action="store_true", help="skip the Dask measurement")
    # Its "bare" loop plays in this process: one of the arena's own bots only.
    parser.add_argument("--bot", default="random", type=lambda t: own_bot_spec(t).text,
                        help="the bot spec playing itself (default random)")
    args = parser.parse_args()

    try:
        options, cards = rules_and_cards(args)
        config = TournamentConfig(
            (BotSpec.parse(f"{args.bot},name=R1" if ":" in args.bot else f"{args.bot}:name=R1"),
             BotSpec.parse(f"{args.bot},name=R2" if ":" in args.bot else f"{args.bot}:name=R2")),
            games=args.games, seed=args.seed, options=options, cards=cards,
        )
    except (ArenaError, ValueError) as exc:
        parser.error(str(exc))
    total = make_schedule(config).total
    from arena.tournament.worker import GamePlayer

    # native-2 where the worker would batch every game (the one table's answer).
    player = GamePlayer(config, log_faults=False)
    native = all(player.native.plays(g) for g in player.schedule.games)
    ways: dict[str, Callable[[], float]] = {
        "bare": lambda: bare_loop(config),
        **({"native-2": lambda: bare_native(config)} if native else {}),
        "local-1": lambda: runner(config, 1),
        "local-2": lambda: runner(config, 2),
    }
    print(f"{total} games, rules {config.options.to_dict(only_changed=True) or 'default'}, "
          f"{args.repeat} repeats")
    load = os.getloadavg()
    print(f"load average before: {', '.join(f'{x:.2f}' for x in load)} on {os.cpu_count()} CPUs")
    if load[0] > 0.5:
        print("warning: the machine is busy; Linux shares CPU time between sessions "
              "(autogroup), not processes, so wall-clock figures (and the 2-worker speed-up "
              "above all) will be low: trust the CPU columns")
    runner(config, 2)  # warm-up: imports, page cache
    rates: dict[str, list[float]] = {}
    cpu: dict[str, list[float]] = {}
    parent: dict[str, list[float]] = {}

    def measure(batch: dict[str, Callable[[], float]]) -> None:
        """Each way of the batch once per repeat, interleaved."""
        for name in batch:
            rates[name], cpu[name], parent[name] = [], [], []
        for _ in range(args.repeat):
            for name, way in batch.items():
                self0, children0 = cpu_seconds()
                rates[name].append(total / way())
                self1, children1 = cpu_seconds()
                cpu[name].append(1000 * (self1 - self0 + children1 - children0) / total)
                parent[name].append(1000 * (self1 - self0) / total)

    measure(ways)
    if not args.no_dask:
        # After the others: the cluster's scheduler runs threads in this process, which
        # would also slow down the ways measured beside it.
        from distributed import Client

        from arena.tournament.dask_runner import local_cluster

        start = time.perf_counter()
        cluster = local_cluster(2)
        client = Client(cluster)
        client.wait_for_workers(2)
        print(f"Dask LocalCluster (2 workers) start-up: {time.perf_counter() - start:.1f} s "
              "(not included below)")
        address = cluster.scheduler_address
        runner(config, 2, "dask", address)  # warm-up: imports in the Dask workers
        measure({"dask-2": lambda: runner(config, 2, "dask", address)})
        client.close()
        cluster.close()

    print(f"{'way':<8}  {'median games/s':>14}  {'spread (min-max)':>17}  {'CPU ms/game':>11}"
          f"  {'of which parent':>15}")
    for name, values in rates.items():
        if name == "dask-2":
            cpu_text = f"{'(n/a)':>11}  {statistics.median(parent[name]):>15.2f}"
        else:
            cpu_text = (f"{statistics.median(cpu[name]):>11.2f}  "
                        f"{statistics.median(parent[name]):>15.2f}")
        print(f"{name:<8}  {statistics.median(values):>14.1f}  "
              f"{min(values):>8.1f}-{max(values):<8.1f}  {cpu_text}")
    med = {name: statistics.median(values) for name, values in rates.items()}
    # Ratios within each repeat too: the ways of one repeat ran back to back, so a drift of
    # the machine's speed between repeats cancels in them.
    speedup = [two / one for two, one in zip(rates["local-2"], rates["local-1"])]
    overhead = [100 * (bare / one - 1) for bare, one in zip(rates["bare"], rates["local-1"])]
    print(f"2 workers / 1 worker: {med['local-2'] / med['local-1']:.2f}x of the medians, "
          f"{statistics.median(speedup):.2f}x median of the repeats' ratios "
          f"({min(speedup):.2f}-{max(speedup):.2f}) (goal >= 1.85x)")
    print(f"runner overhead, 1 worker vs bare loop: "
          f"{100 * (med['bare'] / med['local-1'] - 1):+.1f}% of the medians, "
          f"{statistics.median(overhead):+.1f}% median of the repeats' ratios "
          f"({min(overhead):+.1f} to {max(overhead):+.1f}) (goal <= 5%)")
    cpu_med = {name: statistics.median(values) for name, values in cpu.items()}
    extra = {n: 100 * (cpu_med[n] / cpu_med["bare"] - 1) for n in ("local-1", "local-2")}
    print(f"runner overhead in CPU time: 1 worker {extra['local-1']:+.1f}%, "
          f"2 workers {extra['local-2']:+.1f}%")
    if "native-2" in med:
        ratios = {n: [w / b for w, b in zip(rates[n], rates["native-2"])] for n in ("local-2",)}
        print(f"local-2 / native-2 (bare native, 2 processes): "
              f"{med['local-2'] / med['native-2']:.2f} of the medians, "
              f"{statistics.median(ratios['local-2']):.2f} median of the repeats' ratios "
              "(goal >= 0.80)")
        if "dask-2" in med:
            print(f"dask-2 / native-2: {med['dask-2'] / med['native-2']:.2f} of the medians "
                  "(goal >= 0.80)")
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"largest peak memory of a child process (a local worker): {peak:.0f} MB")
    print(f"load average after: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if "dask-2" in med:
        print(f"Dask 2 workers / local 2 workers: {med['dask-2'] / med['local-2']:.2f}x")


if __name__ == "__main__":
    main()
