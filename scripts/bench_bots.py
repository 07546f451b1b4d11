"""Games per CPU-second of the built-in bots in self-play, and their peak memory.

Every seat of a game is played by the same bot spec, through ``arena.play.match.play_game`` (the
loop every command uses), seeded as ``arena play`` seeds bots.  Each (bot, players) setting
runs in its own fresh worker process, one at a time, so the figures are per core and
``ru_maxrss`` is that worker's peak memory.  A run plays ``--games`` games (other seeds in
each run) and counts games per CPU-second of the worker (``time.process_time``); the table
shows the median over ``--runs`` runs with its spread (min-max).  CPU time, not wall time:
a loaded machine slows the wall clock more than the process time, but it slows both, so
compare two figures from one run of this script rather than from two days.

Each setting is measured on both engines in one run (``--engine``, default both): the
native one, where ``random``, ``greedy``, ``objective`` and ``mcts`` are played by the native
referee with their Rust ports (the whole game in one call, no Python in the loop), and the
reference (``ARENA_ENGINE=reference``, everything in Python); the ratio is native over
reference.  ``mcts`` plays a game in tens of seconds on the reference, so it plays
``--mcts-games`` games per run (default 1).  The native issue's targets: random >= 3,000
games/CPU-s with 2 players, greedy >= 80 with 2 players and >= 40 with 4, objective >= 25
and >= 10 (issue 20's, for the Python bots: greedy >= 25 and >= 12, objective >= 5 and >= 2,
peak memory <= 200 MB per worker).

Each ``mcts`` spec gets a second table: its search speed, iterations per CPU-second of one
decision at ``--positions`` mid-game positions (``scripts/bench_mcts.py``'s: a seeded
2-player game at the action step of round 10), one rate per run over all the positions,
and the CPU seconds per game from the first table.  Issue 29's targets for the default
``mcts``: >= 200,000 iterations/s at mid-game positions, <= 0.5 s per 2-player game.
"""

from __future__ import annotations

import multiprocessing
import os
import resource
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from typing import NamedTuple

from _args import at_least, own_bot_spec, script_parser

from arena.play.match import play_game
from arena.play.registry import BotSpec, make_bot

DEFAULT_BOTS = ("random", "greedy", "objective", "mcts")
ENGINES = ("native", "reference")


class Setting(NamedTuple):
    """One line of the table: a bot spec in self-play with some players."""

    spec: str
    players: int
    games: int
    runs: int
    seed: int
    engine: str = "native"


class Measure(NamedTuple):
    """What a worker measured for a setting."""

    rates: tuple[float, ...]
    decisions: int
    peak_mb: float


def play(spec: BotSpec, players: int, seed: int) -> tuple[float, int]:
    """One self-play game: the CPU seconds of ``play_game`` (the bots made and the game
    played, no hook: a game of native bots runs with no Python in its loop), and the moves
    of its record (read outside the timing)."""
    start = time.process_time()
    bots = [make_bot(spec, seed, seat) for seat in range(players)]  # as `arena play`
    outcome = play_game(bots, seed)
    spent = time.process_time() - start
    if outcome.error is not None:
        raise RuntimeError(f"{spec.text} failed in game {seed}: {outcome.error}")
    return spent, len(outcome.record["moves"])


def measure(setting: Setting) -> Measure:
    """Run in a fresh worker: ``runs`` runs of ``games`` games, games per CPU-second each."""
    spec = BotSpec.parse(setting.spec)
    rates = []
    decisions = 0
    for run in range(setting.runs):
        spent = 0.0
        for k in range(setting.games):
            seconds, moves = play(spec, setting.players, setting.seed + run * setting.games + k)
            spent += seconds
            decisions += moves
        rates.append(setting.games / spent if spent > 0 else float("inf"))
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # kilobytes on Linux
    return Measure(tuple(rates), decisions, peak_kb / 1024)


def search_rates(setting: Setting, positions: int) -> tuple[float, ...]:
    """Run in a fresh worker: per run, the iterations per CPU-second of one decision at
    each of ``positions`` mid-game positions, summed over them (``mcts`` specs)."""
    import random

    from bench_mcts import midgame_position

    from arena.engine import PlayerView

    spec = BotSpec.parse(setting.spec)
    states = [midgame_position(100 + k) for k in range(positions)]
    rates = []
    for run in range(setting.runs):
        iterations, spent = 0, 0.0
        for state in states:
            bot = spec.create(random.Random(run))
            bot.start(state.current, state.players, state.options)
            view, legal = PlayerView.of(state, state.current), list(state.legal_actions())
            start = time.process_time()
            bot.choose(view, legal)
            spent += time.process_time() - start
            iterations += bot.last_iterations  # type: ignore[attr-defined]
        rates.append(iterations / spent if spent > 0 else float("inf"))
    return tuple(rates)


def in_worker(setting: Setting, task: object, *args: object) -> object:
    """``task(setting, *args)`` in a new process (spawned: nothing inherited) on the
    setting's engine (``ARENA_ENGINE`` is read when the worker imports the arena)."""
    context = multiprocessing.get_context("spawn")
    before = os.environ.get("ARENA_ENGINE")
    os.environ["ARENA_ENGINE"] = setting.engine
    try:
        with ProcessPoolExecutor(max_workers=1, mp_context=context) as pool:
            return pool.submit(task, setting, *args).result()  # type: ignore[arg-type]
    finally:
        if before is None:
            del os.environ["ARENA_ENGINE"]
        else:
            os.environ["ARENA_ENGINE"] = before


def run_in_worker(setting: Setting) -> Measure:
    """``measure`` in a new process (its peak memory is its own), on the setting's engine."""
    measured = in_worker(setting, measure)
    assert isinstance(measured, Measure)
    return measured


def rate_text(m: Measure) -> str:
    """The median rate and its spread over the runs."""
    return (f"{statistics.median(m.rates):>8.2f} "
            f"({min(m.rates):.2f}-{max(m.rates):.2f})").ljust(26)


def row(setting: Setting, measured: dict[str, Measure]) -> str:
    """One line: the rate on each engine measured, their ratio, moves a game and memory."""
    games = setting.games * setting.runs
    first = next(iter(measured.values()))
    parts = [f"{setting.spec:<22} {setting.players:>2}p"]
    parts += [rate_text(measured[e]) if e in measured else " " * 26 for e in ENGINES]
    if len(measured) == len(ENGINES):
        native, reference = (statistics.median(measured[e].rates) for e in ENGINES)
        parts.append(f"{native / reference:>6.1f}x")
    else:
        parts.append(" " * 7)
    parts.append(f"{first.decisions / games:>7.0f} {first.peak_mb:>8.0f}")
    return " ".join(parts)


def main(argv: list[str] | None = None) -> int:
    ap = script_parser(
        __doc__,
        "python scripts/bench_bots.py",
        "python scripts/bench_bots.py --bot greedy --bot objective --players 2 --games 10",
        "python scripts/bench_bots.py --bot mcts --players 2 --mcts-games 2 --runs 3",
        "python scripts/bench_bots.py --bot mcts --players 2 --engine native --runs 5",
    )
    ap.add_argument("--bot", dest="bots", type=own_bot_spec, action="append", default=None,
                    metavar="SPEC",
                    help="a bot spec to measure (repeatable; default: " + ", ".join(DEFAULT_BOTS)
                    + ")")
    ap.add_argument("--players", type=int, choices=(2, 3, 4), action="append", default=None,
                    help="players per game (repeatable; default: 2 and 4)")
    ap.add_argument("--games", type=at_least(1), default=5,
                    help="games per run of each bot but mcts (default 5)")
    ap.add_argument("--mcts-games", type=at_least(1), default=1,
                    help="games per run of an mcts spec (default 1: tens of seconds each)")
    ap.add_argument("--positions", type=at_least(1), default=3,
                    help="mid-game positions of an mcts spec's search speed (default 3)")
    ap.add_argument("--runs", type=at_least(1), default=3,
                    help="runs per setting; the table shows their median (default 3)")
    ap.add_argument("--seed", type=int, default=1, help="seed of the first game (default 1)")
    ap.add_argument("--engine", dest="engines", choices=ENGINES, action="append", default=None,
                    help="the engine to measure on (repeatable; default: both, for the ratio)")
    args = ap.parse_args(argv)
    engines = [e for e in ENGINES if e in (args.engines or ENGINES)]

    specs: list[BotSpec] = args.bots or [BotSpec.parse(b) for b in DEFAULT_BOTS]
    players: list[int] = sorted(set(args.players or (2, 4)))
    settings = [
        Setting(spec.text, n, args.mcts_games if spec.target == "mcts" else args.games,
                args.runs, args.seed)
        for spec in specs for n in players
    ]
    print(f"self-play through play_game; games per CPU-second, medians of {args.runs} run(s) "
          "(min-max), one worker process per engine and line, CPU time (time.process_time)")
    print(f"{'bot':<22} {'':>3} {'native':<26} {'reference':<26} {'ratio':>7} "
          f"{'moves/g':>7} {'peak MB':>8}")
    per_game: dict[tuple[str, str], float] = {}  # CPU seconds per 2-player game
    for k, setting in enumerate(settings, 1):
        measured = {}
        for engine in engines:
            print(f"[{k}/{len(settings)}] {setting.spec}, {setting.players} players, {engine}: "
                  f"{setting.runs} x {setting.games} game(s)...", file=sys.stderr, flush=True)
            measured[engine] = run_in_worker(setting._replace(engine=engine))
            if setting.players == 2:
                per_game[setting.spec, engine] = 1 / statistics.median(measured[engine].rates)
        print(row(setting, measured), flush=True)
    searches = [s for s in specs if s.target == "mcts"]
    if searches:
        print(f"\nmcts search: iterations per CPU-second of one decision at {args.positions} "
              f"mid-game 2-player position(s), medians of {args.runs} run(s) (min-max); "
              "CPU seconds per 2-player game from the table above")
        print(f"{'bot':<22} {'native':<26} {'reference':<26} {'ratio':>7} "
              f"{'s/game native':>14} {'s/game reference':>17}")
    for spec in searches:
        rates: dict[str, tuple[float, ...]] = {}
        for engine in engines:
            print(f"{spec.text}, search speed, {engine}: {args.runs} x {args.positions} "
                  "decision(s)...", file=sys.stderr, flush=True)
            setting = Setting(spec.text, 2, 1, args.runs, args.seed, engine)
            found = in_worker(setting, search_rates, args.positions)
            assert isinstance(found, tuple)
            rates[engine] = found
        print(search_row(spec.text, rates, per_game), flush=True)
    return 0


def search_row(spec: str, rates: dict[str, tuple[float, ...]],
               per_game: dict[tuple[str, str], float]) -> str:
    """One line of the search table: iterations/s per engine, their ratio, s per game."""
    parts = [f"{spec:<22}"]
    for e in ENGINES:
        r = rates.get(e)
        parts.append((f"{statistics.median(r):>10,.0f} ({min(r):,.0f}-{max(r):,.0f})"
                      if r else "").ljust(26))
    if len(rates) == len(ENGINES):
        native, reference = (statistics.median(rates[e]) for e in ENGINES)
        parts.append(f"{native / reference:>6.1f}x")
    else:
        parts.append(" " * 7)
    for e, width in zip(ENGINES, (14, 17)):
        seconds = per_game.get((spec, e))
        parts.append(f"{seconds:>{width}.3f}" if seconds is not None else " " * width)
    return " ".join(parts)


if __name__ == "__main__":
    sys.exit(main())
