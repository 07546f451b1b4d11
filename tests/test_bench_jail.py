"""``scripts/bench_jail.py``: the benchmark of the jail's cost measures what it says."""

from __future__ import annotations

import re

from tests.test_script_args import run_script


def test_the_jail_benchmark_prints_start_up_and_both_rates() -> None:
    run = run_script("bench_jail", "--runs", "1", "--games", "1", "--bot", "random",
                     timeout=120)
    assert run.returncode == 0, run.stderr
    out = run.stdout
    assert re.search(r"fresh jail per game: +[\d.]+ ms", out), out
    assert re.search(r"kept jail, per game: +[\d.]+ ms", out), out
    row = next(line for line in out.splitlines() if line.strip().startswith("random"))
    rates = [float(x.replace(",", "")) for x in re.findall(r"^\s*random\s+([\d,]+).*?\)\s+([\d,]+)",
                                                           row)[0]]
    assert all(rate > 0 for rate in rates), row
