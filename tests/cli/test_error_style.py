"""One style of error and help on every command (issue 42): click's own usage errors read as
the arena's (one sentence naming the option, exit 2), ``--debug`` before the command gives the
traceback of any error, a file a command writes is never silently replaced, and a mistyped
folder is answered before the heavy imports."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from arena.cli import main

PLAY = ["play", "--bot", "random", "--bot", "random", "-q", "--rule", "max_rounds=2",
        "--seed", "1"]


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize(("args", "option"), [
    (["tournament", "--bot", "random", "--bot", "random", "--workers", "0"], "--workers"),
    (["play", "--bot", "random", "--bot", "random", "--seed", "abc"], "--seed"),
    (["balance", "study", "--bot", "greedy", "--category", "pandas"], "--category"),
    (["balance", "study", "--bot", "greedy", "--deals", "0"], "--deals"),
    (["play", "--bot", "random", "--bot", "random", "--no-such-option"], "--no-such-option"),
    (["play"], "--bot"),
])
def test_clicks_usage_errors_are_one_sentence_naming_the_option(args: list[str],
                                                                option: str) -> None:
    code, out, err = run(*args)
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("Error: ") and option in lines[0]
    assert "Usage:" not in err and "Traceback" not in err


def test_a_mistyped_command_is_one_sentence_too() -> None:
    code, _out, err = run("plya")
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1
    assert lines[0].startswith("Error: no such command 'plya' (did you mean")
    assert "'play'" in lines[0]


def test_debug_before_any_command_gives_the_traceback(tmp_path: Path) -> None:
    garbage = tmp_path / "garbage.json"
    garbage.write_text("{}")
    code, _out, err = run("legal", str(garbage))
    assert code == 2 and "Traceback" not in err and len(err.strip().splitlines()) == 1
    code, _out, err = run("--debug", "legal", str(garbage))
    assert code == 2 and "Traceback (most recent call last)" in err
    assert err.strip().splitlines()[-1].startswith("Error: ")
    # a usage error too
    code, _out, err = run("--debug", "play", "--bot", "random", "--bot", "random", "--seed", "x")
    assert code == 2 and "Traceback (most recent call last)" in err


def test_a_record_that_exists_is_refused_unless_forced(tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    record.write_text("keep me\n")
    code, _out, err = run(*PLAY, "--record", str(record))
    assert code == 2 and "exists" in err and "--force" in err
    assert record.read_text() == "keep me\n"
    code, _out, err = run(*PLAY, "--record", str(record), "--force")
    assert code == 0, err
    assert json.loads(record.read_text())["seed"] == 1


def test_every_written_file_is_refused_when_it_exists(tmp_path: Path) -> None:
    start = tmp_path / "start.json"
    code, out, _err = run("position", "--new", "--players", "2", "--seed", "1")
    start.write_text(out)
    record = tmp_path / "game.json"
    assert run(*PLAY, "--record", str(record))[0] == 0
    for args, target in (
        (["show", str(start), "--svg"], tmp_path / "b.svg"),
        (["replay", str(record), "--html"], tmp_path / "g.html"),
        (["cards", "--template"], tmp_path / "set.json"),
        (["cards", "--svg"], tmp_path / "cards.svg"),
    ):
        target.write_text("old")
        code, _out, err = run(*args, str(target))
        assert code == 2 and "--force" in err and target.read_text() == "old", args
        code, _out, err = run(*args, str(target), "--force")
        assert code == 0 and target.read_text() != "old", (args, err)
    frames = tmp_path / "frames"
    assert run(*PLAY, "--frames", str(frames))[0] == 0
    code, _out, err = run(*PLAY, "--frames", str(frames))
    assert code == 2 and "--force" in err
    assert run(*PLAY, "--frames", str(frames), "--force")[0] == 0


def test_a_missing_report_folder_is_said_before_the_heavy_imports(tmp_path: Path) -> None:
    # In a fresh interpreter: the answer must not wait for pandas and the report package.
    probe = (
        "import sys\n"
        "from arena.cli import main\n"
        "try:\n"
        f"    main(['report', {str(tmp_path / 'nope')!r}])\n"
        "except SystemExit as exc:\n"
        "    print(exc.code, 'reports' in sys.modules, 'pandas' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          timeout=120)
    assert done.stdout.split() == ["2", "False", "False"], done.stdout + done.stderr
    assert "does not exist" in done.stderr and str(tmp_path / "nope") in done.stderr


def _commands(group: click.Group = main, path: tuple[str, ...] = ()) -> list[
        tuple[tuple[str, ...], click.Command]]:
    out = []
    for name in group.list_commands(click.Context(group)):
        command = group.get_command(click.Context(group), name)
        assert command is not None
        out.append(((*path, name), command))
        if isinstance(command, click.Group):
            out += _commands(command, (*path, name))
    return out


def test_options_mean_the_same_on_every_command() -> None:
    seeds = resumes = writers = 0
    for path, command in _commands():
        options = {opt: param for param in command.params for opt in param.opts}
        if "--seed" in options:
            seeds += 1
            param = options["--seed"]
            assert param.default is None and "default: random" in (param.help or ""), path
        if "--resume" in options:
            resumes += 1
            param = options["--resume"]
            # --resume DIR, or --resume with --out DIR, as in a tournament
            assert param.metavar == "[DIR]" and not param.is_flag, path  # type: ignore[attr-defined]
        for name in ("--record", "--svg", "--png", "--html", "--template", "--frames"):
            if name in options:
                writers += 1
                assert "--force" in options, f"arena {' '.join(path)} {name} without --force"
        if "--games" in options:
            help_text = options["--games"].help or ""
            assert "rounded" in help_text, path
        # --debug is the group's (arena --debug COMMAND); tournament's own is hidden
        assert "--debug" not in options or options["--debug"].hidden, path
    assert seeds >= 3 and resumes >= 2 and writers >= 5


def test_a_study_resumes_from_out_as_a_tournament_does(tmp_path: Path) -> None:
    code, _out, err = run("balance", "study", "--resume")
    assert code == 2 and "--resume needs a directory" in err
    code, _out, err = run("tournament", "--resume")
    assert code == 2 and "--resume needs a directory" in err
    code, _out, err = run("balance", "study", "--resume", str(tmp_path / "a"), "--out",
                          str(tmp_path / "b"))
    assert code == 2 and "name different directories" in err


def test_a_damaged_line_is_worded_alike_by_every_reader(tmp_path: Path) -> None:
    run_dir = tmp_path / "t"
    code, _out, err = run("tournament", "--bot", "random", "--bot", "greedy", "--games", "4",
                          "--workers", "1", "--seed", "1", "--quiet", "--rule", "max_rounds=3",
                          "--out", str(run_dir))
    assert code == 0, err
    games = run_dir / "games.jsonl"
    lines = games.read_text().splitlines()
    lines[1] = '{"game": "broken'
    games.write_text("\n".join(lines) + "\n")
    said = []
    for args in (["report", str(run_dir)], ["tournament", "--resume", str(run_dir)],
                 ["replay", str(run_dir), "--game", "000-0000-0"]):
        code, _out, err = run(*args)
        last = err.strip().splitlines()[-1]
        assert code == 2 and "Traceback" not in err, args
        said.append(last)
    for last in said:
        assert last.startswith(f"Error: Line 2 of {games} is not JSON"), said
        assert "; fix or delete that line" in last


def test_a_position_missing_a_field_names_its_file(tmp_path: Path) -> None:
    code, out, _err = run("position", "--new", "--players", "2", "--seed", "1")
    data = json.loads(out)
    del data["hands"]
    path = tmp_path / "nohands.json"
    path.write_text(json.dumps(data))
    for command in ("legal", "show"):
        code, _out, err = run(command, str(path))
        assert code == 2 and err.strip() == f"Error: position {path}: hands: is missing"
