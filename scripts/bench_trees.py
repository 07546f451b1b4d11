"""One command timed in two checkouts in turn: is this tree slower than another one?

Usage::

    python scripts/bench_trees.py --other PATH [--repeat 7] [--warmup 1] [--instructions]
                                  -- COMMAND...

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
from ``PATH`` and ``VIRTUAL_ENV``: a ``PYTHONPATH`` must name neither tree, and with
``PYTHONDONTWRITEBYTECODE`` set (a warning is printed) no warm-up writes the bytecode caches,
so every run compiles the modules it imports again and is timed doing it.

Printed per tree: the median and the range (min-max) of the wall-clock seconds and of the
CPU seconds (user + system) of the command's process and the children it waited for
(``os.wait4``); then this tree's time over the other's, pair by pair: the median of the
pairs' ratios with their range, and their geometric mean with its 95% interval (Student's t
on the logarithms, the pairs taken as independent; the range only widens as pairs are
added, the interval narrows).  The CPU figure is the one to read on a machine shared with
other work (wall time there measures the neighbours too); the load average is printed
before and after.  A run that fails stops the benchmark with its output's end.

``--instructions``: each run under valgrind (``cachegrind`` without its cache model, children
traced, ``PYTHONHASHSEED=0``), and the figure is the instructions all its processes ran.
About 30 times slower, but the count hardly moves with the machine's load, where on a
loaded 2-core machine the CPU seconds of one command spread by a third: a difference of a
few percent is seen in two runs rather than hundreds.  It counts instructions, not time
(a cache miss costs nothing there), so it is read beside the CPU figure, not instead of it.
A child that forks without exec (a tournament's worker) starts from its parent's count at
the fork, so the parent's work before it is counted twice: compare such a command at two
sizes (``--games 2`` and ``--games 42``), whose difference cancels it.
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


VALGRIND = ("valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
            "--trace-children=yes")


class Tree:
    """A checkout with its own virtual environment, and the figures measured in it (per
    figure, one value a run: ``wall`` and ``cpu`` seconds, or ``instructions``)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.figures: dict[str, list[float]] = {}

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

    def add(self, figures: dict[str, float]) -> None:
        for name, value in figures.items():
            self.figures.setdefault(name, []).append(value)


class RunFailed(RuntimeError):
    """The command exited with a failure status in one of the trees."""


def instructions(logs: Path) -> float:
    """The instructions valgrind counted in every process of a run (its logs' ``I refs``)."""
    total = 0
    for log in logs.iterdir():
        for line in log.read_text(errors="replace").splitlines():
            if "I   refs:" in line:
                total += int(line.rsplit(":", 1)[1].replace(",", ""))
    return float(total)


def run_once(tree: Tree, command: list[str], count: bool = False) -> dict[str, float]:
    """Wall and CPU seconds of one run of COMMAND in ``tree``, or with ``count`` the
    instructions it ran under valgrind (its output kept in a file, shown when it fails)."""
    tmp = Path(tempfile.mkdtemp(prefix="bench-trees-"))
    logs = Path(tempfile.mkdtemp(prefix="bench-trees-valgrind-"))
    argv, env = tree.argv(command, tmp), tree.env()
    if count:
        argv = [*VALGRIND, f"--log-file={logs}/%p", *argv]
        env["PYTHONHASHSEED"] = "0"  # the same dictionaries' layouts in every run
    try:
        with tempfile.TemporaryFile() as out:
            start = time.perf_counter()
            proc = subprocess.Popen(argv, cwd=tree.root, env=env, stdin=subprocess.DEVNULL,
                                    stdout=out, stderr=subprocess.STDOUT)
            # wait4, not proc.wait: the child's own rusage, its reaped children included.
            _, status, usage = os.wait4(proc.pid, 0)
            wall = time.perf_counter() - start
            proc.returncode = os.waitstatus_to_exitcode(status)
            if proc.returncode != 0:
                out.seek(0)
                tail = out.read().decode(errors="replace")[-2000:]
                raise RunFailed(f"exit status {proc.returncode} in {tree.root}:\n{tail}")
        if count:
            return {"instructions": instructions(logs)}
        return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree(logs, ignore_errors=True)


def measure(this: Tree, other: Tree, command: list[str], repeat: int, warmup: int,
            count: bool = False) -> None:
    """Warm-up runs, then ``repeat`` measured pairs, the leading tree alternating."""
    for _ in range(warmup):
        for tree in (this, other):
            run_once(tree, command, count)
    for pair in range(repeat):
        for tree in ((this, other) if pair % 2 == 0 else (other, this)):
            tree.add(run_once(tree, command, count))


def spread(values: list[float], digits: int = 3) -> str:
    """``median (min-max)``."""
    return (f"{statistics.median(values):.{digits}f} "
            f"({min(values):.{digits}f}-{max(values):.{digits}f})")


def ratios(mine: list[float], theirs: list[float]) -> list[float]:
    """This tree's figure over the other's, pair by pair."""
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


UNITS = {"wall": ("wall s", 1.0, 3), "cpu": ("cpu s", 1.0, 3),
         "instructions": ("instructions (millions)", 1e-6, 1)}


def report(this: Tree, other: Tree) -> list[str]:
    """The lines printed: each tree's figures, then the ratios pair by pair, then each
    run's main figure (CPU seconds, or instructions)."""
    names = list(this.figures)
    scaled = {(side, name): [v * UNITS[name][1] for v in tree.figures[name]]
              for side, tree in enumerate((this, other)) for name in names}
    width = max(len(str(this.root)), len(str(other.root)))
    lines = [f"{'tree':<{width}}  "
             + "  ".join(f"{UNITS[n][0] + ': median (min-max)':<34}" for n in names)]
    for side, tree in enumerate((this, other)):
        lines.append(f"{tree.root!s:<{width}}  " + "  ".join(
            f"{spread(scaled[side, n], UNITS[n][2]):<34}" for n in names))
    for name in sorted(names):
        mine, theirs = this.figures[name], other.figures[name]
        mean, low, high = mean_interval(ratios(mine, theirs))
        lines.append(f"this/other {name}: {spread(ratios(mine, theirs), 4)} "
                     f"(median of {len(mine)} pairs' ratios; geometric mean {mean:.4f} "
                     f"[{low:.4f}, {high:.4f}] 95%; ratio of the medians "
                     f"{statistics.median(mine) / statistics.median(theirs):.4f})")
    main = names[-1]
    for side, tree in enumerate((this, other)):
        lines.append(f"{UNITS[main][0]} of each run in {tree.root}: "
                     + " ".join(f"{v:.{UNITS[main][2]}f}" for v in scaled[side, main]))
    return [line.rstrip() for line in lines]


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
        "python scripts/bench_trees.py --other ../old --repeat 2 --warmup 0 --instructions -- "
        "python -m arena --help",
    )
    ap.add_argument("--other", required=True, metavar="PATH",
                    help="the checkout compared with this one (with its own .venv)")
    ap.add_argument("--this", default=str(ROOT), metavar="PATH",
                    help="the checkout measured (default: the one this script is in)")
    ap.add_argument("--repeat", type=at_least(1), default=7, help="timed pairs of runs")
    ap.add_argument("--warmup", type=at_least(0), default=1,
                    help="untimed runs per tree first")
    ap.add_argument("--instructions", action="store_true",
                    help="count the instructions run under valgrind instead of timing")
    ap.add_argument("command", nargs="+", metavar="COMMAND",
                    help="the command (after --), run in each tree's folder")
    args = ap.parse_args(argv)
    try:
        this, other = checkout(args.this), checkout(args.other)
    except ValueError as exc:
        return usage_error(ap, str(exc))
    if args.instructions and not shutil.which(VALGRIND[0]):
        return usage_error(ap, "--instructions needs valgrind on PATH")
    load = os.getloadavg()
    print(f"command: {shlex.join(args.command)}")
    print(f"this: {this.root}  other: {other.root}  {args.repeat} pairs, {args.warmup} "
          f"warm-up runs each, nice {os.nice(0)}")
    print(f"load average before: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    if os.environ.get("PYTHONDONTWRITEBYTECODE"):
        print("warning: PYTHONDONTWRITEBYTECODE is set: every run compiles its modules again")
    try:
        measure(this, other, args.command, args.repeat, args.warmup, args.instructions)
    except RunFailed as exc:
        print(f"bench_trees: the command failed: {exc}", file=sys.stderr)
        return 1
    load = os.getloadavg()
    print(f"load average after: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    print("\n".join(report(this, other)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
