"""``scripts/bench_trees.py``: the command runs in each tree's folder with that tree's
``.venv`` activated, as often as asked, with a fresh ``{tmp}``; a failure or a folder with no
``.venv`` is reported.  The figures themselves are not tested (a timed test fails on a loaded
machine, not on slow code)."""

from __future__ import annotations

import math
import shutil
import sys
from pathlib import Path

import pytest

from tests.scripts import load_script

bench = load_script("bench_trees")


def fake_checkout(folder: Path) -> Path:
    """A folder whose ``.venv/bin/python`` is this interpreter (the commands use the standard
    library only)."""
    (folder / ".venv" / "bin").mkdir(parents=True)
    (folder / ".venv" / "bin" / "python").symlink_to(sys.executable)
    return folder


# Appends a line to ./ran: the folder it ran in, the venv it was given, whether {tmp} was an
# empty folder, and {tmp}.
RECORD = ("import os, sys; open('ran', 'a').write(f\"{os.getcwd()} {os.environ['VIRTUAL_ENV']} "
          "{os.listdir(sys.argv[1]) == []} {sys.argv[1]}\\n\")")


def test_each_tree_runs_the_command_in_its_folder_and_venv(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a, b = fake_checkout(tmp_path / "a"), fake_checkout(tmp_path / "b")
    assert bench.main(["--this", str(a), "--other", str(b), "--repeat", "3", "--warmup", "1",
                       "--", "python", "-c", RECORD, "{tmp}"]) == 0
    for root in (a, b):
        runs = [line.split() for line in (root / "ran").read_text().splitlines()]
        assert [r[:3] for r in runs] == [[str(root.resolve()), str(root / ".venv"), "True"]] * 4
        assert len({r[3] for r in runs}) == 4  # a new {tmp} each run, removed after it
        assert not any(Path(r[3]).exists() for r in runs)
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith(str(tmp_path.resolve()))]
    assert len(rows) == 2  # one per tree
    ratio = next(line for line in out.splitlines() if line.startswith("this/other cpu"))
    assert "median of 3 pairs' ratios" in ratio
    runs = [line for line in out.splitlines() if line.startswith("cpu s of each run")]
    assert [len(line.split(": ")[1].split()) for line in runs] == [3, 3]


def test_the_leading_tree_alternates(tmp_path: Path) -> None:
    a, b = fake_checkout(tmp_path / "a"), fake_checkout(tmp_path / "b")
    log = tmp_path / "order"
    command = ["python", "-c",
               f"import os; open({str(log)!r}, 'a').write(os.path.basename(os.getcwd()))"]
    assert bench.main(["--this", str(a), "--other", str(b), "--repeat", "4",
                       "--warmup", "0", "--", *command]) == 0
    assert log.read_text() == "abbaabba"


def test_a_failing_command_stops_with_its_output(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a, b = fake_checkout(tmp_path / "a"), fake_checkout(tmp_path / "b")
    code = bench.main(["--this", str(a), "--other", str(b), "--", "python", "-c",
                       "import sys; print('broken here'); sys.exit(3)"])
    err = capsys.readouterr().err
    assert code == 1 and "exit status 3" in err and "broken here" in err


def test_a_folder_without_a_venv_is_a_usage_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = fake_checkout(tmp_path / "a")
    assert bench.main(["--this", str(a), "--other", str(tmp_path), "--", "true"]) == 2
    assert "has no .venv/bin/python" in capsys.readouterr().err


def test_the_interval_of_the_ratios() -> None:
    assert bench.mean_interval([1.1, 1.1, 1.1]) == pytest.approx((1.1, 1.1, 1.1))
    mean, low, high = bench.mean_interval([0.9, 1.0, 1.1, 1.0])
    assert low < mean < high and mean == pytest.approx((0.9 * 1.1) ** 0.25)
    assert all(math.isnan(v) for v in bench.mean_interval([1.2])[1:])


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed")
def test_instructions_are_counted_in_every_process(tmp_path: Path) -> None:
    a, b = fake_checkout(tmp_path / "a"), fake_checkout(tmp_path / "b")
    # The same command, run.py, starts a second interpreter in a (a traced child), not in b.
    (a / "run.py").write_text("import subprocess, sys\n"
                              "subprocess.run([sys.executable, '-S', '-c', 'pass'])\n")
    (b / "run.py").write_text("import subprocess, sys\n")
    this, other = bench.Tree(a), bench.Tree(b)
    bench.measure(this, other, ["python", "-S", "run.py"], 1, 0, count=True)
    assert set(this.figures) == set(other.figures) == {"instructions"}
    assert other.figures["instructions"][0] > 1e6
    # the child's start-up: tens of millions of instructions
    assert this.figures["instructions"][0] > other.figures["instructions"][0] + 1e7
    assert any(line.startswith("this/other instructions: ")
               for line in bench.report(this, other))
