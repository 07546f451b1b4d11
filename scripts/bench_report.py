#!/usr/bin/env python
"""Benchmark ``arena report`` on a synthetic 100,000-game tournament.

The target (issue "Reports"): a report on 100,000 games in at most 30 s and 2 GB on the
project's 2-core machine.  The games are written once by ``reports.synthetic`` (realistic
records, move histories included, about 5 KB a line) and kept in ``--dir``; each timed run
is a fresh Python process, so that its peak memory (``ru_maxrss``) is the report's own and
not the generator's, and imports count in the time as they would for ``arena report``.

Usage::

    PYTHONPATH=. python scripts/bench_report.py                 # 100,000 games, 2 and 4 players
    PYTHONPATH=. python scripts/bench_report.py --games 20000 --players 4 --runs 5
"""

from __future__ import annotations

import argparse
import gc
import io
import itertools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _args import at_least, output_dir, script_parser

ROOT = Path(__file__).resolve().parent.parent
PARTICIPANTS = ("random", "greedy", "objective", "mcts", "mcts-2000")


def ensure_tournament(base: Path, players: int, games: int) -> Path:
    """The synthetic tournament for this size, generated on first use."""
    from reports import synthetic

    out = base / f"bench-{players}p-{games}"
    stamp = out / ".complete"
    if stamp.is_file():
        return out
    start = time.perf_counter()
    synthetic.write_tournament(out, participants=PARTICIPANTS, players=players, games=games,
                               seed=players)
    stamp.write_text("ok\n")
    size = (out / "games.jsonl").stat().st_size / 1e6
    print(f"generated {out} ({games} games, {size:.0f} MB) in "
          f"{time.perf_counter() - start:.1f} s", flush=True)
    return out


def compare_parsers(path: Path, lines: int = 10_000) -> None:
    """Time the ways of reading games.jsonl on its first lines, to justify the loader's."""
    with path.open("rb") as fh:
        raw = list(itertools.islice(fh, lines))
    lines = len(raw)  # fewer when --games is smaller
    blob = b"".join(raw)
    results = {}
    gc.collect()
    try:
        import orjson

        start = time.perf_counter()
        for line in raw:
            orjson.loads(line)
        results["orjson, line by line"] = time.perf_counter() - start
    except ImportError:
        pass
    start = time.perf_counter()
    for line in raw:
        json.loads(line)
    results["json, line by line"] = time.perf_counter() - start
    import pandas as pd

    start = time.perf_counter()
    pd.read_json(io.BytesIO(blob), lines=True)
    results["pandas.read_json(lines=True)"] = time.perf_counter() - start
    print(f"parsing {lines} lines ({len(blob) / 1e6:.0f} MB):")
    for name, seconds in results.items():
        print(f"  {name:<32} {seconds:6.2f} s  ({seconds / lines * 1e6:5.0f} us/game)")


def child(directory: str, out: str) -> None:
    """One timed run, in its own process: load, then the whole report."""
    import resource

    start = time.perf_counter()
    import reports

    imported = time.perf_counter()
    tables = reports.load(directory)
    loaded = time.perf_counter()
    reports.write_report([tables], out=out)
    done = time.perf_counter()
    usage = resource.getrusage(resource.RUSAGE_SELF)
    print(json.dumps({
        "import": imported - start, "load": loaded - imported,
        "write_report": done - loaded, "total": done - start,
        "cpu": usage.ru_utime + usage.ru_stime,
        "games": len(tables.games), "peak_mb": usage.ru_maxrss / 1024,  # KiB on Linux
    }))


def run_once(directory: Path, out: Path) -> dict[str, float]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    proc = subprocess.run(
        [sys.executable, __file__, "--child", str(directory), str(out)],
        capture_output=True, text=True, env=env, check=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = script_parser(
        __doc__,
        "python scripts/bench_report.py",
        "python scripts/bench_report.py --games 20000 --players 2 --runs 1",
    )
    parser.add_argument("--games", type=at_least(1), default=100_000)
    parser.add_argument("--players", type=int, nargs="+", choices=(2, 3, 4), default=[2, 4])
    parser.add_argument("--runs", type=at_least(1), default=3)
    parser.add_argument("--dir", type=output_dir, default=Path(tempfile.gettempdir()),
                        help="where the synthetic tournaments are kept (made if missing)")
    parser.add_argument("--child", nargs=2, metavar=("DIR", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return
    sys.path.insert(0, str(ROOT))
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average "
          f"{os.getloadavg()[0]:.1f} (other processes slow the wall time; CPU time is ours)",
          flush=True)
    for players in args.players:
        directory = ensure_tournament(args.dir, players, args.games)
        compare_parsers(directory / "games.jsonl")
        runs = []
        for i in range(args.runs):
            with tempfile.TemporaryDirectory() as tmp:
                result = run_once(directory, Path(tmp) / "report")
            runs.append(result)
            print(f"  run {i + 1}: load {result['load']:.1f} s, tables+charts+files "
                  f"{result['write_report']:.1f} s, total (imports included) "
                  f"{result['total']:.1f} s wall, {result['cpu']:.1f} s CPU, peak "
                  f"{result['peak_mb']:.0f} MB (load average {os.getloadavg()[0]:.1f})",
                  flush=True)
        totals = [r["total"] for r in runs]
        cpus = [r["cpu"] for r in runs]
        loads = [r["load"] for r in runs]
        peaks = [r["peak_mb"] for r in runs]
        verdict = "OK" if max(totals) <= 30 and max(peaks) <= 2048 else "OVER TARGET"
        print(f"{players} players, {runs[0]['games']} games, {len(runs)} runs: total median "
              f"{statistics.median(totals):.1f} s (min {min(totals):.1f}, max {max(totals):.1f}); "
              f"CPU median {statistics.median(cpus):.1f} s; load median "
              f"{statistics.median(loads):.1f} s; peak memory max {max(peaks):.0f} MB "
              f"-> {verdict} (target 30 s, 2048 MB)", flush=True)


if __name__ == "__main__":
    main()
