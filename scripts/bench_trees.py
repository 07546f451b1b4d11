"""One command timed in two checkouts in turn: is this tree slower than another one?

Usage::

    python scripts/bench_trees.py --other PATH [--repeat 7] [--warmup 1] -- COMMAND...

Why: a redesign is asked to keep the speed it started from ("within 3%"), and the two trees
cannot be measured on one import path; their figures taken an hour apart on a shared machine
differ by more than that.  So the same COMMAND runs in this checkout (the one this script is
in, or ``--this``) and in ``--other``, one after the other, ``--repeat`` pairs, each run in
the tree's own folder with the tree's own ``.venv`` first on ``PATH`` (``python`` and
``arena`` are the tree's; a leading ``python`` is its ``.venv/bin/python``).  The tree that
goes first alternates from pair to pair, so that a steady drift of the machine's load weighs
on both alike; ``--warmup`` runs per tree before the timed ones are not counted (bytecode
compiled, files cached).  ``{tmp}`` in COMMAND is a new empty folder for each run (a
tournament's ``--out``), removed after it.  The environment is passed on as it is, apart
from ``PATH`` and ``VIRTUAL_ENV``: a ``PYTHONPATH`` must name neither tree.

Printed per tree: the median and the range (min-max) of the wall-clock seconds and of the
CPU seconds (user + system) of the command's process and the children it waited for
(``os.wait4``); then this tree's time over the other's, pair by pair: the median of the
pairs' ratios with their range, and their geometric mean with its 95% interval (Student's t
on the logarithms, the pairs taken as independent; the range only widens as pairs are
added, the interval narrows).  The CPU figure is the one to read on a machine shared with
other work (wall time there measures the neighbours too); the load average is printed
before and after.  A run that fails stops the benchmark with its output's end.
"""

from __future__ import annotations

import math
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _args import at_least, script_parser, usage_error
from scipy import stats as sps

ROOT = Path(__file__).resolve().parents[1]
PLACEHOLDER = "{tmp}"


class Tree:
    """A checkout with its own virtual environment, and the times measured in it."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.wall: list[float] = []
        self.cpu: list[float] = []

    @property
    def bin(self) -> Path:
        return self.root / ".venv" / "bin"

    def argv(self, command: list[str], tmp: Path) -> list[str]:
        """COMMAND for this tree: its python for a leading ``python``, ``{tmp}`` filled in."""
        argv = [word.replace(PLACEHOLDER, str(tmp)) for word in command]
        if argv[0] in ("python", "python3"):
            argv[0] = str(self.bin / "python")
        return argv

    def env(self) -> dict[str, str]:
        """The environment, with this tree's ``.venv`` activated."""
        env = dict(os.environ)
        env["VIRTUAL_ENV"] = str(self.root / ".venv")
        env["PATH"] = os.pathsep.join([str(self.bin), env.get("PATH", "")])
        return env


class RunFailed(RuntimeError):
    """The command exited with a failure status in one of the trees."""


def run_once(tree: Tree, command: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds of one run of COMMAND in ``tree`` (its output kept in a file,
    shown when it fails)."""
    tmp = Path(tempfile.mkdtemp(prefix="bench-trees-"))
    try:
        with tempfile.TemporaryFile() as out:
            start = time.perf_counter()
            proc = subprocess.Popen(tree.argv(command, tmp), cwd=tree.root, env=tree.env(),
                                    stdin=subprocess.DEVNULL, stdout=out,
                                    stderr=subprocess.STDOUT)
            # wait4, not proc.wait: the child's own rusage, its reaped children included.
            _, status, usage = os.wait4(proc.pid, 0)
            wall = time.perf_counter() - start
            proc.returncode = os.waitstatus_to_exitcode(status)
            if proc.returncode != 0:
                out.seek(0)
                tail = out.read().decode(errors="replace")[-2000:]
                raise RunFailed(f"exit status {proc.returncode} in {tree.root}:\n{tail}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return wall, usage.ru_utime + usage.ru_stime


def measure(this: Tree, other: Tree, command: list[str], repeat: int, warmup: int) -> None:
    """Warm-up runs, then ``repeat`` timed pairs, the leading tree alternating."""
    for _ in range(warmup):
        for tree in (this, other):
            run_once(tree, command)
    for pair in range(repeat):
        for tree in ((this, other) if pair % 2 == 0 else (other, this)):
            wall, cpu = run_once(tree, command)
            tree.wall.append(wall)
            tree.cpu.append(cpu)


def spread(values: list[float], digits: int = 3) -> str:
    """``median (min-max)``."""
    return (f"{statistics.median(values):.{digits}f} "
            f"({min(values):.{digits}f}-{max(values):.{digits}f})")


def ratios(mine: list[float], theirs: list[float]) -> list[float]:
    """This tree's time over the other's, pair by pair."""
    return [a / b for a, b in zip(mine, theirs, strict=True)]


def mean_interval(values: list[float]) -> tuple[float, float, float]:
    """The geometric mean of the ratios and its 95% interval (Student's t on their logs;
    nan with fewer than 2): unlike the range, it narrows as pairs are added."""
    logs = [math.log(v) for v in values]
    mean = statistics.fmean(logs)
    if len(logs) < 2:
        return math.exp(mean), math.nan, math.nan
    half = float(sps.t.ppf(0.975, len(logs) - 1)) * statistics.stdev(logs) / math.sqrt(len(logs))
    return math.exp(mean), math.exp(mean - half), math.exp(mean + half)


def report(this: Tree, other: Tree) -> list[str]:
    """The lines printed: each tree's times, then the ratios pair by pair."""
    width = max(len(str(this.root)), len(str(other.root)))
    lines = [f"{'tree':<{width}}  {'wall s: median (min-max)':<26}  cpu s: median (min-max)"]
    for tree in (this, other):
        lines.append(f"{tree.root!s:<{width}}  {spread(tree.wall):<26}  {spread(tree.cpu)}")
    for what, mine, theirs in (("cpu", this.cpu, other.cpu), ("wall", this.wall, other.wall)):
        mean, low, high = mean_interval(ratios(mine, theirs))
        lines.append(f"this/other {what:<4}: {spread(ratios(mine, theirs))} "
                     f"(median of {len(mine)} pairs' ratios; geometric mean {mean:.3f} "
                     f"[{low:.3f}, {high:.3f}] 95%; ratio of the medians "
                     f"{statistics.median(mine) / statistics.median(theirs):.3f})")
    for tree in (this, other):
        lines.append(f"cpu s of each run in {tree.root}: "
                     + " ".join(f"{s:.3f}" for s in tree.cpu))
    return lines


def checkout(text: str) -> Tree:
    """A tree given on the command line: a folder with ``.venv/bin/python``."""
    root = Path(text).resolve()
    if not (root / ".venv" / "bin" / "python").exists():
        raise ValueError(f"{text} has no .venv/bin/python")
    return Tree(root)


def main(argv: list[str] | None = None) -> int:
    ap = script_parser(
        __doc__,
        "python scripts/bench_trees.py --other ../old -- python -c pass",
        "python scripts/bench_trees.py --other ../old --repeat 9 -- python -m arena tournament "
        "--bot greedy --bot objective --games 200 --seed 7 --workers 1 --out {tmp}/r --quiet",
    )
    ap.add_argument("--other", required=True, metavar="PATH",
                    help="the checkout compared with this one (with its own .venv)")
    ap.add_argument("--this", default=str(ROOT), metavar="PATH",
                    help="the checkout measured (default: the one this script is in)")
    ap.add_argument("--repeat", type=at_least(1), default=7, help="timed pairs of runs")
    ap.add_argument("--warmup", type=at_least(0), default=1,
                    help="untimed runs per tree first")
    ap.add_argument("command", nargs="+", metavar="COMMAND",
                    help="the command (after --), run in each tree's folder")
    args = ap.parse_args(argv)
    try:
        this, other = checkout(args.this), checkout(args.other)
    except ValueError as exc:
        return usage_error(ap, str(exc))
    load = os.getloadavg()
    print(f"command: {shlex.join(args.command)}")
    print(f"this: {this.root}  other: {other.root}  {args.repeat} pairs, {args.warmup} "
          f"warm-up runs each, nice {os.nice(0)}")
    print(f"load average before: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    try:
        measure(this, other, args.command, args.repeat, args.warmup)
    except RunFailed as exc:
        print(f"bench_trees: the command failed: {exc}", file=sys.stderr)
        return 1
    load = os.getloadavg()
    print(f"load average after: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    print("\n".join(report(this, other)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
