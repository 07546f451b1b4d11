"""The runner end to end: files, standings, reproducibility, resume, Ctrl-C, bad input."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena.play.registry import BotSpec
from arena.runs.records import ERROR_KINDS, TIEBREAKS
from arena.tournament.schedule import TournamentConfig, make_schedule
from tests.unsigned import resign

from .conftest import BROKEN, FAST, read_records, run_cli, timeless

ROOT = Path(__file__).resolve().parents[2]
THREE = ["--bot", "random", "--bot", "random:complete=true", "--bot", "random:name=R2"]

#: A hung run fails its test instead of holding CI (thread method: SIGALRM is the games').
pytestmark = pytest.mark.timeout(180, method="thread")



def test_a_run_writes_the_files_and_prints_the_standings(tmp_path: Path) -> None:
    out = tmp_path / "run"
    result = run_cli([*THREE, "--games", "3", "--seed", "11", "--workers", "2",
                      "--out", str(out), *FAST])
    assert result.exit_code == 0, result.output
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["file_format"] == "takenoko-arena-manifest/3" and "sig" in manifest
    assert manifest["seal"]["games"] == 12
    assert [p["name"] for p in manifest["participants"]] == ["random", "random:complete=true",
                                                               "R2"]
    assert manifest["participants"][1]["params"] == {"complete": True}
    assert manifest["participants"][0]["class"] == "bots.random_bot.RandomBot"
    assert (manifest["players"], manifest["games"], manifest["scheduled"]) == (2, 3, 12)
    assert manifest["format"] == "round-robin" and manifest["seed"] == 11
    assert manifest["options"]["max_rounds"] == 8 and "cloud_keep" in manifest["options"]
    assert manifest["move_time"] is None and manifest["sprt"] is None
    assert manifest["started"] and manifest["finished"]
    records = read_records(out)
    schedule = make_schedule(TournamentConfig(
        tuple(BotSpec.parse(s) for s in THREE[1::2]), games=3, seed=11))
    assert sorted(r["game"] for r in records) == sorted(g.id for g in schedule.games)
    for r in records:
        assert r["error"] is None and r["tiebreak"] in TIEBREAKS and r["players"] == 2
        assert r["options"] == {"max_rounds": 8} and len(r["seconds"]) == 2
        assert r["game"] == f"{r['pairing']:03d}-{r['deal']:04d}-{r['rotation']}"
    # Standings on stdout, progress lines (not a terminal) on stderr.
    assert "Standings after 12 of 12 games (complete)" in result.stdout
    for word in ("participant", "games", "wins", "shared", "win rate", "95% CI", "mean score",
                 "errors", "random:complete=true", "R2"):
        assert word in result.stdout
    assert "[12/12] 100.0%" in result.stderr and "games/s" in result.stderr
    assert "leader:" in result.stderr
    assert "Traceback" not in result.output
    log = (out / "arena.log").read_text()
    assert "playing 12 games" in log


def test_same_records_with_one_and_two_workers(tmp_path: Path) -> None:
    args = [*THREE, "--games", "4", "--seed", "3", "--players", "3", "--quiet", *FAST]
    assert run_cli([*args, "--workers", "1", "--out", str(tmp_path / "a")]).exit_code == 0
    assert run_cli([*args, "--workers", "2", "--chunk", "1",
                    "--out", str(tmp_path / "b")]).exit_code == 0
    a, b = timeless(tmp_path / "a"), timeless(tmp_path / "b")
    assert len(a) == 6 and a == b


def test_resume_keeps_a_last_record_that_lacks_only_its_newline(tmp_path: Path) -> None:
    args = [*THREE, "--games", "4", "--seed", "8", "--workers", "2", "--quiet", *FAST]
    full = tmp_path / "full"
    assert run_cli([*args, "--out", str(full)]).exit_code == 0
    # Killed between a record and its newline: 6 whole records, the sixth unterminated.
    part = tmp_path / "part"
    part.mkdir()
    lines = (full / "games.jsonl").read_text().splitlines(keepends=True)
    (part / "games.jsonl").write_text("".join(lines[:5]) + lines[5].rstrip("\n"))
    manifest = json.loads((full / "manifest.json").read_text())
    manifest["finished"] = None
    del manifest["seal"]  # killed before it sealed its games
    resign(part, manifest, full)

    result = run_cli(["--resume", str(part)])
    assert result.exit_code == 0, result.output
    assert "6 games played" in result.stdout
    text = (part / "games.jsonl").read_text().splitlines(keepends=True)
    assert text[:6] == lines[:6] and len(text) == 12
    assert timeless(part) == timeless(full)


def test_resume_replays_a_cut_short_last_line_and_only_the_missing_games(tmp_path: Path) -> None:
    args = [*THREE, "--games", "4", "--seed", "8", "--workers", "2", "--quiet", *FAST]
    full = tmp_path / "full"
    assert run_cli([*args, "--out", str(full)]).exit_code == 0
    reference = timeless(full)
    # A run killed mid-write: 5 whole lines and half of the sixth; never finished.
    cut = tmp_path / "cut"
    cut.mkdir()
    lines = (full / "games.jsonl").read_text().splitlines(keepends=True)
    (cut / "games.jsonl").write_text("".join(lines[:5]) + lines[5][: len(lines[5]) // 2])
    manifest = json.loads((full / "manifest.json").read_text())
    manifest["finished"] = None
    del manifest["seal"]  # killed before it sealed its games
    resign(cut, manifest, full)
    kept = {json.loads(line)["game"]: line for line in lines[:5]}

    result = run_cli(["--resume", str(cut)])
    assert result.exit_code == 0, result.output
    assert "Standings after 12 of 12 games (complete)" in result.stdout
    assert "7 games played" in result.stdout
    assert timeless(cut) == reference
    # The finished games were kept as they were, and nothing was played twice.
    text = (cut / "games.jsonl").read_text().splitlines(keepends=True)
    assert text[:5] == lines[:5] and len(text) == 12
    assert all(line in text for line in kept.values())
    assert json.loads((cut / "manifest.json").read_text())["finished"] is not None

    # Resuming a finished run only prints the standings.
    again = run_cli(["--resume", str(cut)])
    assert again.exit_code == 0 and "Nothing left to play" in again.stdout
    assert "Standings after 12 of 12 games" in again.stdout
    # The flag form with --out and the full command works too.
    flag = run_cli([*args, "--out", str(cut), "--resume"])
    assert flag.exit_code == 0 and "Nothing left to play" in flag.stdout


def test_resume_refuses_a_different_command_naming_the_field(tmp_path: Path) -> None:
    out = tmp_path / "run"
    args = [*THREE, "--games", "2", "--seed", "8", "--quiet", *FAST]
    assert run_cli([*args, "--out", str(out)]).exit_code == 0
    for change, field in ((["--games", "4"], "games"), (["--seed", "9"], "seed"),
                          (["--rule", "cloud_keep=false"], "options"),
                          (["--players", "3"], "players")):
        result = run_cli([*args, *change, "--out", str(out), "--resume"])
        assert result.exit_code == 2, result.output
        assert f"different {field}" in result.stderr and "Traceback" not in result.output
    result = run_cli(["--resume", str(out), "--bot", "random", "--bot", "random:name=X"])
    assert result.exit_code == 2 and "different participants" in result.stderr
    # Without --resume an existing tournament is not overwritten.
    result = run_cli([*args, "--out", str(out)])
    assert result.exit_code == 2 and "--resume" in result.stderr
    result = run_cli(["--resume", str(tmp_path / "nothing")])
    assert result.exit_code == 2 and "no tournament to resume" in result.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--bot", "random"], "at least two"),
        (["--bot", "random", "--bot", "nosuchbot"], "unknown bot 'nosuchbot'"),
        (["--bot", "random", "--bot", "random:depth=3"], "no parameter 'depth'"),
        (["--bot", "random", "--bot", "random:complete=maybe"], "complete"),
        (["--bot", "random", "--bot", "random:name=x", "--rule", "speed=2"],
         "unknown rule option 'speed'"),
        (["--bot", "random", "--bot", "random:name=x", "--bot", "random:name=y",
          "--sprt", "elo0=0,elo1=20"], "--sprt needs exactly two"),
        (["--bot", "random", "--bot", "random:name=x", "--sprt", "elo1=20"], "elo0"),
        (["--bot", "random", "--bot", "random:name=x", "--players", "5"], "--players"),
        (["--bot", "random", "--bot", "random"], "two participants are named 'random'"),
        (["--resume"], "--resume needs a directory"),
    ],
)
def test_bad_input_is_one_sentence_and_exit_status_2(args: list[str], message: str,
                                                     tmp_path: Path) -> None:
    result = run_cli([*args, "--out", str(tmp_path / "x"), "--quiet"]
                     if args != ["--resume"] else args)
    assert result.exit_code == 2, result.output
    assert message in result.stderr
    assert "Traceback" not in result.output
    assert result.stderr.strip().startswith("Error:")
    assert len(result.stderr.strip().splitlines()) == 1


def test_help_has_an_example() -> None:
    result = run_cli(["--help"])
    assert result.exit_code == 0
    assert "Examples:" in result.stdout and "arena tournament --resume" in result.stdout
    for option in ("--bot", "--players", "--games", "--format", "--workers", "--seed", "--out",
                   "--rule", "--move-time", "--resume", "--executor", "--scheduler", "--sprt"):
        assert option in result.stdout


def test_worker_logging_reaches_the_log_file(tmp_path: Path) -> None:
    out = tmp_path / "run"
    result = run_cli(["--bot", BROKEN + "Crasher", "--bot", "random", "--games", "2",
                      "--workers", "2", "--out", str(out), "--quiet", *FAST])
    assert result.exit_code == 0
    log = (out / "arena.log").read_text()
    # The fault was logged inside a worker process and reached the parent's file.
    assert "arena-worker-" in log and "deliberate crash" in log
    assert "WARNING" in result.stderr  # and the console


def test_ctrl_c_keeps_the_finished_games_and_says_how_to_resume(tmp_path: Path) -> None:
    out = tmp_path / "run"
    args = ["--bot", "random", "--bot", "random:complete=true", "--games", "600", "--seed", "2",
            "--workers", "2", "--chunk", "2", *FAST]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "arena.commands.tournament", *args, "--out", str(out)],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True,
    )
    games = out / "games.jsonl"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if games.exists() and games.read_text().count("\n") >= 20:
            break
        time.sleep(0.02)
    # As Ctrl-C does: to the whole process group, the workers included.
    os.killpg(proc.pid, signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    assert f"arena tournament --resume {out}" in stderr and "Traceback" not in stderr
    assert stderr.lower().count("interrupted") == 1, stderr  # said once, not also logged
    assert "Standings after" in stdout and "(so far)" in stdout
    kept = read_records(out)  # every line whole
    assert 20 <= len(kept) < 600
    assert json.loads((out / "manifest.json").read_text())["finished"] is None
    # The rest, resumed, gives the same games as a run that was never interrupted.
    assert run_cli(["--resume", str(out), "--quiet"]).exit_code == 0
    full = tmp_path / "full"
    assert run_cli([*args, "--out", str(full), "--quiet"]).exit_code == 0
    assert timeless(out) == timeless(full)


def test_library_use_without_the_command(tmp_path: Path) -> None:
    from arena.engine import RuleOptions
    from arena.tournament.runner import RunSettings, run_tournament

    config = TournamentConfig((BotSpec.parse("random"), BotSpec.parse("random:name=B")),
                              games=2, seed=1, options=RuleOptions(max_rounds=8))
    result = run_tournament(config, tmp_path / "lib",
                            settings=RunSettings(workers=1, progress="none"))
    assert result.finished and result.done == 2 and not result.interrupted
    assert "random" in result.standings.table()
    shutil.rmtree(tmp_path / "lib")


def test_error_kinds_are_the_records_kinds() -> None:
    # ``abandoned``: a person who quit `arena play --bot human` (never in a tournament)
    assert set(ERROR_KINDS) == {"crash", "illegal", "timeout", "abandoned"}


def test_progress_draws_a_bar_on_a_terminal_and_lines_elsewhere() -> None:
    import io

    from arena.tournament.progress import Progress

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    screen = Terminal()
    bar = Progress(10, 2, screen)
    assert bar.mode == "bar"
    for done in range(3, 11):
        bar.update(done, "A 60.0%")
    bar.close()
    assert "10/10" in screen.getvalue()

    log = io.StringIO()
    lines = Progress(100, 0, log, every=3600)
    for done in range(1, 101):
        lines.update(done, "A 55.0%")
    out = log.getvalue().splitlines()
    assert len(out) == 10  # every 10%
    assert out[-1].startswith("[100/100] 100.0%") and "games/s" in out[-1]
    assert "ETA" in out[0] and out[0].endswith("leader: A 55.0%")


def test_a_games_line_is_the_compact_json_of_the_record() -> None:
    """The worker encodes with orjson for speed; programs reading ``games.jsonl`` with the
    standard library must see exactly what ``json.dumps`` would have written."""
    import random

    from arena.play.match import play_game
    from arena.tournament.worker import encode
    from bots.random_bot import RandomBot

    record = play_game([RandomBot(random.Random(1)), RandomBot(random.Random(2))], 5,
                       names=["a", "b"], meta={"game": "000-0000-0"}).record
    line = encode(record)
    assert json.loads(line) == record
    # Byte for byte too, but for the spelling of floats below 1e-4 (orjson writes 8e-06 as
    # 8e-6, the same number): thinking times of native bots are that small.
    record = {**record, "seconds": [0.25, 0.001]}
    assert encode(record) == json.dumps(record, separators=(",", ":"))
