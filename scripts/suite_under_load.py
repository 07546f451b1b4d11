"""Run the test suite beside CPU-bound processes, several times in a row.

A suite that passes only on an idle machine fails users who run it beside other work and CI
machines that are shared.  This runs ``python -m pytest ARGS`` ``--runs`` times, each beside
``--hogs`` processes that spin on the CPU for the whole run, and prints one line per run (its
outcome, wall time and the load average) and the pytest summary of any failure::

    python scripts/suite_under_load.py --hogs 2 --runs 3 -- -n 2
    python scripts/suite_under_load.py --hogs 2 --runs 1 -- tests/tournament -x

Exit status: 0 when every run passed, 1 otherwise.
"""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
import time
from pathlib import Path

from _args import at_least, script_parser

ROOT = Path(__file__).resolve().parent.parent


def _spin() -> None:
    """A CPU-bound process: what another user's job looks like to the scheduler."""
    x = 0
    while True:
        x = (x * 1103515245 + 12345) & 0x7FFFFFFF


def main(argv: list[str] | None = None) -> int:
    parser = script_parser(__doc__,
                           "python scripts/suite_under_load.py --hogs 2 --runs 3 -- -n 2",
                           "python scripts/suite_under_load.py --runs 1 -- tests/tournament -x")
    parser.add_argument("--hogs", type=at_least(0), default=2,
                        help="CPU-bound processes beside it (default: 2)")
    parser.add_argument("--runs", type=at_least(1), default=3,
                        help="suite runs in a row (default: 3)")
    parser.add_argument("pytest_args", nargs="*", help="arguments for pytest (after --)")
    args = parser.parse_args(argv)
    failed = 0
    for run in range(1, args.runs + 1):
        hogs = [multiprocessing.Process(target=_spin, daemon=True) for _ in range(args.hogs)]
        for hog in hogs:
            hog.start()
        started = time.monotonic()
        try:
            done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                                   *args.pytest_args], cwd=ROOT, capture_output=True, text=True)
        finally:
            load = os.getloadavg()[0]
            for hog in hogs:
                hog.terminate()
            for hog in hogs:
                hog.join()
        wall = time.monotonic() - started
        summary = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else "(no output)"
        verdict = "passed" if done.returncode == 0 else f"FAILED (exit {done.returncode})"
        print(f"run {run}/{args.runs}: {verdict} in {wall:.0f} s beside {args.hogs} hogs "
              f"(load {load:.1f}): {summary}", flush=True)
        if done.returncode != 0:
            failed += 1
            for line in done.stdout.splitlines():
                if line.startswith(("FAILED", "ERROR")):
                    print("   ", line)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
