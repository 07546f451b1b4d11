#!/usr/bin/env python
"""Benchmark ``arena report`` on synthetic tournaments of 10,000, 100,000 and 1,000,000 games.

The targets (issue "A million games"): the report on 200,000 games no slower than playing
them on 2 workers and under 2 GB; on 1,000,000 games under 5 minutes and 4 GB.  The games
are written once by ``reports.synthetic`` (realistic records, move histories included,
about 5 KB a line), sealed into the run store's compressed segments as a run writes them
(``arena/runs/segments.py``; ``--journal`` keeps one plain ``games.jsonl``), and kept in
``--dir``; each timed run is a fresh Python process, so that its peak memory
(``ru_maxrss``) is the report's own and not the generator's, and imports count in the time
as they would for ``arena report``.  Per size the CPU time per game is printed too: the
report's cost is linear when it stays flat from one size to the next.

Usage::

    PYTHONPATH=. python scripts/bench_report.py                        # 10k, 100k, 1M; 2 players
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


def ensure_tournament(base: Path, players: int, games: int, seal: bool = True) -> Path:
    """The synthetic tournament for this size, generated on first use (and sealed into
    segments unless ``seal`` is False)."""
    from reports import synthetic

    out = base / f"bench-{players}p-{games}{'' if seal else '-journal'}"
    stamp = out / ".complete"
    if stamp.is_file():
        return out
    start = time.perf_counter()
    synthetic.write_tournament(out, participants=PARTICIPANTS, players=players, games=games,
                               seed=players)
    size = (out / "games.jsonl").stat().st_size / 1e6
    if seal:
        from arena.runs.segments import seal_journal

        seal_journal(out)
    stored = sum(p.stat().st_size for p in out.rglob("*") if p.is_file()) / 1e6
    stamp.write_text("ok\n")
    print(f"generated {out} ({games} games, {size:.0f} MB of JSON, {stored:.0f} MB stored) "
          f"in {time.perf_counter() - start:.1f} s", flush=True)
    return out


def measure(directory: Path) -> dict[str, float]:
    """One timed report of ``directory``, in a fresh process."""
    with tempfile.TemporaryDirectory() as tmp:
        return run_once(directory, Path(tmp) / "report")


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
    parser.add_argument("--games", type=at_least(1), nargs="+",
                        default=[10_000, 100_000, 1_000_000],
                        help="tournament sizes, each measured (default: 10k, 100k, 1M)")
    parser.add_argument("--players", type=int, nargs="+", choices=(2, 3, 4), default=[2])
    parser.add_argument("--runs", type=at_least(1), default=3)
    parser.add_argument("--journal", action="store_true",
                        help="keep the games in one games.jsonl, as earlier versions wrote")
    parser.add_argument("--no-parsers", action="store_true",
                        help="skip the comparison of JSON parsers")
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
        for games in args.games:
            directory = ensure_tournament(args.dir, players, games, seal=not args.journal)
            if not args.no_parsers and args.journal:
                compare_parsers(directory / "games.jsonl")
            runs = []
            for i in range(args.runs):
                result = measure(directory)
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
            n = runs[0]["games"]
            limit, memory = (300, 4096) if n >= 500_000 else (None, 2048)
            verdict = "OK" if (limit is None or max(totals) <= limit) \
                and max(peaks) <= memory else "OVER TARGET"
            print(f"{players} players, {n} games, {len(runs)} runs: total median "
                  f"{statistics.median(totals):.1f} s (min {min(totals):.1f}, max "
                  f"{max(totals):.1f}); CPU median {statistics.median(cpus):.1f} s "
                  f"({statistics.median(cpus) / n * 1e6:.0f} us a game); load median "
                  f"{statistics.median(loads):.1f} s; peak memory max {max(peaks):.0f} MB "
                  f"-> {verdict} (target {f'{limit} s, ' if limit else ''}{memory} MB)",
                  flush=True)

if __name__ == "__main__":
    main()
