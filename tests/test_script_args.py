"""The scripts' shared command-line plumbing (``scripts/_args.py``): a bad count or time is a
usage error naming the option (exit 2), never a traceback from deep inside a benchmark; and
every script's ``--help`` ends with examples, as the ``arena`` commands' do.  Input that is not
a count (bot specs, rule options, files to read or write) is in ``test_script_inputs.py``."""

from __future__ import annotations

import argparse
import subprocess
import sys

import pytest

from tests.scripts import SCRIPTS, load_script

args = load_script("_args")


def run_script(script: str, *argv: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """``python scripts/<script>.py ARGV...`` as a user runs it: a new process, output kept."""
    return subprocess.run([sys.executable, str(SCRIPTS / f"{script}.py"), *argv],
                          capture_output=True, text=True, timeout=timeout)


def test_types_accept_the_edge_and_refuse_past_it() -> None:
    assert args.at_least(1)("1") == 1
    assert args.at_least(0)("0") == 0
    assert args.positive_float("0.5") == 0.5
    assert args.fraction("0") == 0.0 and args.fraction("1") == 1.0
    for parse, text in ((args.at_least(1), "0"), (args.at_least(1), "x"),
                        (args.positive_float, "0"), (args.positive_float, "nan"),
                        (args.positive_float, "inf"), (args.positive_float, "1e999"),
                        (args.fraction, "1.5"), (args.fraction, "-0.1"), (args.fraction, "nan")):
        with pytest.raises(argparse.ArgumentTypeError):
            parse(text)


@pytest.mark.parametrize(("script", "argv", "message"), [
    ("bench_engine", ["--runs", "0"], "argument --runs: must be at least 1, not 0"),
    ("bench_mcts", ["speed", "--runs", "0"], "argument --runs: must be at least 1, not 0"),
    ("bench_mcts", ["match", "--opponent", "random", "--games", "-2"],
     "argument --games: must be at least 1, not -2"),
    ("bench_mcts", ["profile", "--top", "0"], "argument --top: must be at least 1, not 0"),
    ("bench_mcts", ["speed", "--bot", "greedy"], "'greedy' is not an mcts bot"),
    ("strength", ["greedy", "random", "--workers", "0"],
     "argument --workers: must be at least 1, not 0"),
    ("fit_value", ["--explore", "2"], "argument --explore: must be between 0 and 1, not 2"),
    ("paired", ["a", "b", "--deals-from", "-1"],
     "argument --deals-from: must be at least 0, not -1"),
    # inf made the benchmark measure forever (a hang, not an error).
    ("bench_engine", ["--seconds", "inf"], "argument --seconds: must be a finite number, not inf"),
])
def test_a_script_names_the_bad_option(script: str, argv: list[str], message: str) -> None:
    run = run_script(script, *argv, timeout=30)
    assert run.returncode == 2
    assert message in run.stderr and "Traceback" not in run.stderr


@pytest.mark.parametrize("script", sorted(
    p.stem for p in SCRIPTS.glob("*.py") if not p.name.startswith("_")
))
def test_every_script_shows_an_example_under_help(script: str) -> None:
    run = run_script(script, "--help")
    assert run.returncode == 0
    assert f"python scripts/{script}.py " in run.stdout.split("usage:", 1)[1]
