"""The example engines of examples/engines: built in a temporary folder, checked with
engine-check, and played against the built-in bots (skipped, saying why, where a compiler
is missing)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.jail.bwrap import jail_problem

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "engines"

pytestmark = pytest.mark.skipif(jail_problem() is not None,
                                reason=f"no jail here: {jail_problem()}")


def built_c(folder: Path) -> Path:
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.skip("no C compiler (cc or gcc) to build examples/engines/c")
    out = folder / "random_engine"
    subprocess.run([compiler, "-O2", "-o", str(out), str(EXAMPLES / "c" / "random_engine.c")],
                   check=True, timeout=120)
    return out


def built_rust(folder: Path) -> Path:
    cargo = shutil.which("cargo")
    if cargo is None:
        pytest.skip("no cargo to build examples/engines/rust")
    subprocess.run([cargo, "build", "--release", "--offline", "-q", "--manifest-path",
                    str(EXAMPLES / "rust" / "Cargo.toml"), "--target-dir", str(folder)],
                   check=True, timeout=300)
    out = folder / "release" / "random_engine"
    # The jail's user runs it: the folders pytest makes are private.
    for path in (folder, folder / "release"):
        path.chmod(0o755)
    return out


def python_engine(folder: Path) -> Path:
    return EXAMPLES / "python" / "random_engine.py"


def test_a_script_named_as_an_interpreters_argument_is_shown_to_the_engine() -> None:
    """``engine:"python3 random_engine.py"``: the script's folder is in the jail, and the
    engine runs there."""
    script = EXAMPLES / "python" / "random_engine.py"
    python = shutil.which("python3")
    if python is None:
        pytest.skip("no python3 on PATH")
    checked = CliRunner().invoke(main, ["engine-check", f'"{python} {script}"'])
    assert checked.exit_code == 0 and "no violation" in checked.output, checked.output


@pytest.mark.parametrize("build", [python_engine, built_c, built_rust],
                         ids=["python", "c", "rust"])
def test_an_example_engine_passes_the_check_and_plays_complete_games(
        tmp_path: Path, build: object) -> None:
    tmp_path.chmod(0o755)
    engine = build(tmp_path)  # type: ignore[operator]
    checked = CliRunner().invoke(main, ["engine-check", str(engine)])
    assert checked.exit_code == 0 and "no violation" in checked.output, checked.output
    out = tmp_path / "run"
    result = CliRunner().invoke(main, [
        "tournament", "--bot", f"engine:{engine}:tc=20+1", "--bot", "random",
        "--players", "2", "--games", "4", "--seed", "5", "--workers", "1", "--out", str(out)])
    assert result.exit_code == 0, result.output
    lines = (out / "games.jsonl").read_text().splitlines()
    assert len(lines) == 4
    assert all('"error": null' in line or '"error":null' in line for line in lines)


def test_bots_tune_searches_an_engines_declared_options_and_the_ladder_ranks_it(
        tmp_path: Path) -> None:
    """The engine's options are its parameters: ``bots tune --space complete=true,false``
    plays both values; ``arena ladder`` takes the engine as a rung."""
    engine = f"engine:{EXAMPLES / 'python' / 'random_engine.py'}"
    tuned = CliRunner().invoke(main, [
        "bots", "tune", engine, "--space", "complete=true,false", "--against", "random",
        "--games", "2", "--trials", "2", "--confirm-games", "2", "--seed", "1",
        "--workers", "1", "--out", str(tmp_path / "tune")])
    assert tuned.exit_code == 0, tuned.output
    best = json.loads((tmp_path / "tune" / "best.json").read_text())
    assert best["spec"].startswith(engine + ":complete=")
    refused = CliRunner().invoke(main, [
        "bots", "tune", engine, "--space", "depth=1..3", "--against", "random",
        "--out", str(tmp_path / "tune2")])
    assert refused.exit_code == 2 and "(its parameters: complete)" in refused.output
    ladder = CliRunner().invoke(main, [
        "ladder", "--bot", engine, "--bot", "random", "--games", "2", "--seed", "1",
        "--workers", "1", "--out", str(tmp_path / "ladder")])
    assert ladder.exit_code == 0, ladder.output
    assert "random_engine.py" in (tmp_path / "ladder" / "ladder.csv").read_text()
