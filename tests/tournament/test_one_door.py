"""One door for untrusted code (issue 50): every command and script that takes a bot spec
reads it without importing a bot module that is not the arena's own, and plays such a bot in
a jail or refuses it in one sentence.

The hostile module is ``import_spy``: each process that imports it appends its PID to the
file named by ``ARENA_IMPORT_SPY``.  The jails start with an empty environment, so a mark
means a process of the arena's own (the command's, a worker's) imported it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.jail.bwrap import jail_problem
from arena.play.registry import ENTRY_POINT_GROUP, registered

pytestmark = [pytest.mark.timeout(300, method="thread"),
              pytest.mark.skipif(jail_problem() is not None, reason="no jail here")]

SPY = "tests.tournament.import_spy.Quiet"
MODULE = "tests.tournament.import_spy"
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def marks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The spy's mark file; after the test, proof that nothing of ours imported it."""
    where = tmp_path / "imports"
    monkeypatch.setenv("ARENA_IMPORT_SPY", str(where))
    assert MODULE not in sys.modules
    yield where
    assert MODULE not in sys.modules
    assert not where.exists(), f"imported by an arena process: {where.read_text()}"


def arena(*args: str) -> str:
    """``arena ARGS`` in this process; its output, after checking it succeeded."""
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == 0, (args, result.output, result.exception)
    return result.output


def test_every_command_plays_a_foreign_bot_jailed_and_never_imports_it(
        tmp_path: Path, marks: Path) -> None:
    fast = ("--rule", "max_rounds=6")
    arena("play", "--bot", f"{SPY}:name=S", "--bot", "random", "--seed", "3", "-q", *fast)
    arena("tournament", "--bot", f"{SPY}:name=S", "--bot", "random:name=R", "--games", "2",
          "--seed", "3", "--workers", "1", "--quiet", "--out", str(tmp_path / "t"), *fast)
    arena("ladder", "--bot", SPY, "--bot", "random", "--games", "2", "--seed", "3",
          "--workers", "1", "--quiet", "--out", str(tmp_path / "ladder"))
    arena("bots", "tune", SPY, "--space", "complete=true,false", "--against", "random",
          "--games", "2", "--trials", "1", "--confirm-games", "2", "--workers", "1",
          "--seed", "5", "--out", str(tmp_path / "tune"))
    study = tmp_path / "study"
    arena("balance", "study", "--bot", SPY, "--deals", "2", "--workers", "1",
          "--category", "panda", "--price-cards", "panda-03", "--quiet", "--no-report",
          "--seed", "0", "--out", str(study))
    arena("balance", "tune", str(study), "--rounds", "1", "--workers", "1",
          "--out", str(tmp_path / "tuned"))
    goals = tmp_path / "goals.json"
    goals.write_text(json.dumps({
        "bot": SPY, "match_games": 4, "space": {"emperor": [2, 2]},
        "goals": [{"figure": "first_seat_win_rate", "target": 0.5, "tolerance": 0.5},
                  {"figure": "skill", "winner": SPY, "loser": "random", "at_least": 0}]}))
    arena("balance", "design", str(goals), "--games", "16", "--workers", "1", "--quiet",
          "--out", str(tmp_path / "design"))


def test_arena_bots_lists_a_plugin_without_importing_it(
        tmp_path: Path, marks: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The fake distribution of the attack, on the path: ``arena bots`` lists its bot from
    the jail's check, with its parameters, and takes none of the arena's names."""
    info = tmp_path / "takenoko_arena-99.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: takenoko-arena\n"
                                   "Version: 99.0\n")
    target = SPY.replace(".Quiet", ":Quiet")
    (info / "entry_points.txt").write_text(
        f"[{ENTRY_POINT_GROUP}]\nspy = {target}\nrandom = {target}\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    registered.cache_clear()
    try:
        out = arena("bots")
        arena("play", "--bot", "spy", "--bot", "random", "--seed", "3", "-q",
              "--rule", "max_rounds=4")
    finally:
        registered.cache_clear()
    assert "spy        Plays random; all the mischief is in the import above." in out
    assert "complete=false" in out


def script(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], cwd=cwd, capture_output=True, text=True,
                          timeout=240, env={**os.environ, "PYTHONPATH": str(ROOT)})


def test_the_scripts_jail_a_foreign_bot_or_refuse_it(tmp_path: Path, marks: Path) -> None:
    """A script that plays through ``run_tournament`` jails it; one that plays in its own
    process refuses it in one sentence, before anything is imported."""
    done = script(str(ROOT / "scripts" / "strength.py"), SPY, "random", "--games", "2",
                  "--workers", "1", "--rule", "max_rounds=6", "--out", str(tmp_path / "s"),
                  cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    for args in (["bench_bots.py", "--bot", SPY], ["bench_jail.py", "--bot", SPY],
                 ["bench_mcts.py", "game", "--bot", SPY],
                 ["bench_tournament.py", "--bot", SPY],
                 ["budget_agreement.py", SPY],
                 ["clairvoyance.py", SPY, "random", "--reveal", "all"]):
        refused = script(str(ROOT / "scripts" / args[0]), *args[1:], cwd=tmp_path)
        last = refused.stderr.strip().splitlines()[-1]
        assert refused.returncode == 2, (args, refused.stderr)
        assert f"'{SPY}' is not one of the arena's own bots, and this script plays" in last
    # balance_check.py and balance_calibration.py take --bot with the same type as
    # strength.py's specs (``_args.bot_spec``): checked in a jail, played in jails.
    probe = (f"import sys; sys.path.insert(0, {str(ROOT / 'scripts')!r}); import _args; "
             f"print(type(_args.bot_spec({SPY!r})).__name__)")
    checked = script("-c", probe, cwd=tmp_path)
    assert checked.returncode == 0 and checked.stdout.strip() == "ForeignSpec", checked.stderr
