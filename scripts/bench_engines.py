"""What playing through the engine protocol costs: the overhead per decision, and games per
second of two jailed engines on 2 workers.

The engine is the Rust example (``examples/engines/rust``, a random player that thinks for
microseconds), built into a temporary folder unless ``--engine`` names a program; so what is
measured is the arena's side: the view written as a withheld position, the lines each way,
the jail thawed and frozen, the reply read and checked.

- overhead per decision: in one process, ``--games`` games of the engine against ``random``;
  the median wall time of the engine seat's decisions less the median of ``random``'s (which
  decides in-process), in microseconds;
- games per second: ``arena tournament`` of the engine against itself (two participants),
  ``--workers`` workers, ``--games`` games, jails started once per participant and worker,
  beside ``random`` against ``random`` on the same deals.

Wall-clock figures on a shared machine vary with its load: run it more than once.

Example: ``python scripts/bench_engines.py --games 40 --workers 2``
"""

from __future__ import annotations

import contextlib
import io
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _args import at_least, script_parser

from arena.jail.bwrap import jail_problem
from arena.play.match import play_game
from arena.play.registry import BotSpec, make_bot

RUST = Path(__file__).resolve().parents[1] / "examples" / "engines" / "rust"


def build_rust(folder: Path) -> Path:
    """The Rust example engine, built into ``folder``."""
    subprocess.run(["cargo", "build", "--release", "--offline", "-q", "--manifest-path",
                    str(RUST / "Cargo.toml"), "--target-dir", str(folder)], check=True)
    for path in (folder, folder / "release"):
        path.chmod(0o755)  # the jail's user runs it
    return folder / "release" / "random_engine"


def timed(bot: Any, into: list[float]) -> None:
    """Record the wall time of each of ``bot``'s decisions in ``into``."""
    choose: Callable[..., Any] = bot.choose

    def wrapper(view: Any, legal: Any) -> Any:
        start = time.perf_counter()
        try:
            return choose(view, legal)
        finally:
            into.append(time.perf_counter() - start)

    bot.choose = wrapper


def overhead(engine: str, games: int) -> tuple[float, float, int]:
    """Median decision of the engine seat and of ``random`` (µs), and decisions timed."""
    specs = [BotSpec.parse(f"engine:{engine}:name=E"), BotSpec.parse("random")]
    engine_times: list[float] = []
    random_times: list[float] = []
    for seed in range(games):
        bots = [make_bot(spec, seed, seat) for seat, spec in enumerate(specs)]
        timed(bots[0], engine_times)
        timed(bots[1], random_times)
        play_game(bots, seed, names=[s.name for s in specs])
    engine_times = engine_times[len(engine_times) // 20:]  # the first game's start-up out
    return (statistics.median(engine_times) * 1e6, statistics.median(random_times) * 1e6,
            len(engine_times))


def games_per_second(bots: list[str], games: int, workers: int, folder: Path) -> float:
    """Games per second of an ``arena tournament`` of ``bots`` (its wall time)."""
    from click.testing import CliRunner

    from arena.cli import main

    start = time.perf_counter()
    result = CliRunner().invoke(main, [
        "tournament", *(a for b in bots for a in ("--bot", b)), "--players", "2",
        "--games", str(games), "--seed", "1", "--workers", str(workers),
        "--out", str(folder)])
    seconds = time.perf_counter() - start
    if result.exit_code != 0:
        raise SystemExit(f"error: the tournament failed: {result.output.strip()[-300:]}")
    return games / seconds


def main(argv: list[str] | None = None) -> int:
    ap = script_parser(__doc__, "python scripts/bench_engines.py --games 40 --workers 2",
                       "python scripts/bench_engines.py --engine ./my_engine")
    ap.add_argument("--engine", default=None, help="an engine program (default: the Rust "
                                                   "example, built now)")
    ap.add_argument("--games", type=at_least(2), default=40, help="games per measure")
    ap.add_argument("--workers", type=at_least(1), default=2, help="tournament workers")
    args = ap.parse_args(argv)
    problem = jail_problem()
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as temp:
        folder = Path(temp)
        folder.chmod(0o755)
        if args.engine is None:
            if shutil.which("cargo") is None:
                print("error: no cargo to build the Rust example engine; give --engine",
                      file=sys.stderr)
                return 2
            engine = str(build_rust(folder / "build"))
        else:
            engine = args.engine
        with contextlib.redirect_stdout(io.StringIO()):
            mine, theirs, count = overhead(engine, args.games)
        print(f"decision, median of {count} (engine) in {args.games} games: engine seat "
              f"{mine:.0f} us, random in-process {theirs:.0f} us: overhead {mine - theirs:.0f} us")
        pair = [f"engine:{engine}:name=A", f"engine:{engine}:name=B"]
        rate = games_per_second(pair, args.games, args.workers, folder / "engines")
        base = games_per_second(["random:name=A", "random:name=B"], args.games,
                                args.workers, folder / "random")
        print(f"games per second, {args.workers} workers, {args.games} games: two engines "
              f"{rate:.1f}, random against random {base:.1f} (the jails' start included)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
