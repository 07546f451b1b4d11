"""The command line end to end: what a user types, what they read, what status they get.

Commands run in-process through click's CliRunner (fast), and once as a real subprocess to
prove the console script and ``python -m arena`` are wired.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.engine import new_game, to_position


def run(*args: str, input: str | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args), input=input)
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def start_position(tmp_path: Path) -> Path:
    path = tmp_path / "start.json"
    path.write_text(json.dumps(to_position(new_game(2, seed=3))))
    return path


def test_every_command_has_help_with_an_example() -> None:
    for command in ("play", "legal", "apply", "replay", "bots", "report"):
        code, out, _ = run(command, "--help")
        assert code == 0, command
        assert "Example" in out, command


def test_legal_lists_sorted_actions(start_position: Path) -> None:
    code, out, _ = run("legal", str(start_position))
    assert code == 0
    lines = out.splitlines()
    assert lines == sorted(lines)
    assert "plot" in lines and "end" in lines and "objective panda" in lines


def test_legal_reads_stdin(start_position: Path) -> None:
    code, out, _ = run("legal", "-", input=start_position.read_text())
    assert code == 0 and "plot" in out.splitlines()


def test_apply_prints_the_next_position(start_position: Path) -> None:
    code, out, _ = run("apply", str(start_position), "objective panda", "irrigation keep")
    assert code == 0, out
    position = json.loads(out)
    assert position["hands"][0]["channels"] == 1
    assert len(position["hands"][0]["objectives"]) == 4
    assert position["current"] == 1  # the turn ended by itself: nothing left but `end`


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["gardener 1,0"], "not legal"),
        (["fly 1,0"], "is not an action"),
        (["gardener 99,0"], "off the grid"),
    ],
)
def test_apply_refuses_bad_actions_in_one_sentence(
    start_position: Path, args: list[str], needle: str
) -> None:
    code, out, err = run("apply", str(start_position), *args)
    assert code == 2
    assert needle in err
    assert "Traceback" not in err + out
    assert len(err.strip().splitlines()) == 1


def test_bad_position_names_the_field(tmp_path: Path, start_position: Path) -> None:
    data = json.loads(start_position.read_text())
    data["tiles"] = [{"at": "1,0", "tile": "green", "bamboo": 5}]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    code, _, err = run("legal", str(bad))
    assert code == 2
    assert "tiles[0].bamboo" in err


def test_not_json_position(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{nope")
    code, _, err = run("legal", str(bad))
    assert code == 2 and "not JSON" in err


def test_play_record_and_replay(tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    code, out, _ = run("play", "--bot", "random:complete=true", "--bot", "random", "--seed",
                       "11", "--record", str(record), "--rule", "max_rounds=20")
    assert code == 0, out
    assert "Game over" in out
    data = json.loads(record.read_text())
    assert data["seed"] == 11 and data["options"] == {"max_rounds": 20}
    code, out, _ = run("replay", str(record))
    assert code == 0, out
    assert "every move legal" in out
    code, out, _ = run("replay", str(record), "--step", "5", "--no-color")
    assert code == 0 and "after 5 choices" in out and "≈" in out


def test_replay_catches_a_tampered_record(tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    run("play", "--bot", "random", "--bot", "random", "--seed", "4", "--record", str(record),
        "-q", "--rule", "max_rounds=10")
    data = json.loads(record.read_text())
    data["scores"][0] += 1
    record.write_text(json.dumps(data))
    code, _, err = run("replay", str(record))
    assert code == 1
    assert "scores: recorded" in err
    rolls = [i for i, m in enumerate(data["moves"]) if m.startswith("* roll")]
    data["scores"][0] -= 1
    data["moves"][rolls[0]] = "* roll sun" if data["moves"][rolls[0]] != "* roll sun" else \
        "* roll rain"
    record.write_text(json.dumps(data))
    code, _, err = run("replay", str(record))
    assert code == 1 and f"history entry {rolls[0]}" in err


def test_play_show_draws_the_board() -> None:
    code, out, _ = run("play", "--bot", "random", "--bot", "random", "--seed", "2", "--show",
                       "--no-color", "--rule", "max_rounds=3")
    assert code == 0
    assert out.count("≈") >= 3  # the pond, once per turn at least
    assert "\x1b[" not in out


def test_play_refuses_bad_input() -> None:
    for args, needle in (
        (["--bot", "random"], "2 to 4"),
        (["--bot", "random", "--bot", "nosuch"], "unknown bot 'nosuch'"),
        (["--bot", "random:speed=3", "--bot", "random"], "parameters: complete"),
        (["--bot", "random", "--bot", "random", "--rule", "cloud_keep=maybe"], "cloud_keep"),
        (["--bot", "random", "--bot", "random", "--rule", "colour=blue"], "unknown rule option"),
    ):
        code, out, err = run("play", *args)
        assert code == 2, (args, out, err)
        assert needle in err, (args, err)
        assert "Traceback" not in err


def test_bots_lists_parameters() -> None:
    code, out, _ = run("bots")
    assert code == 0
    assert "random" in out and "complete=false" in out


def test_console_script_and_module_entry(start_position: Path) -> None:
    exe = Path(sys.executable).with_name("arena")
    for cmd in ([str(exe)], [sys.executable, "-m", "arena"]):
        if cmd[0] == str(exe) and not exe.exists():
            continue
        proc = subprocess.run([*cmd, "legal", str(start_position)], capture_output=True,
                              text=True, timeout=60)
        assert proc.returncode == 0, proc.stderr
        assert "plot" in proc.stdout.splitlines()
    proc = subprocess.run([sys.executable, "-m", "arena", "apply", str(start_position), "fly"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr


def test_tournament_report_and_replay_chain(tmp_path: Path) -> None:
    out = tmp_path / "run"
    code, text, err = run("tournament", "--bot", "random:complete=true", "--bot", "random",
                          "--games", "4", "--workers", "1", "--seed", "5", "--out", str(out),
                          "--rule", "max_rounds=15", "--quiet")
    assert code == 0, text + err
    assert "win rate" in text
    lines = (out / "games.jsonl").read_text().splitlines()
    assert len(lines) == 4
    code, text, err = run("report", str(out))
    assert code == 0, err
    assert (out / "report" / "report.html").exists()
    assert "report written to" in text
    game = json.loads(lines[0])["game"]
    code, text, _ = run("replay", str(out / "games.jsonl"), "--game", game)
    assert code == 0 and "every move legal" in text
    code, _, err = run("replay", str(out / "games.jsonl"))
    assert code == 2 and "--game" in err


def test_report_refuses_a_missing_directory(tmp_path: Path) -> None:
    code, _, err = run("report", str(tmp_path / "nowhere"))
    assert code == 2 and "Traceback" not in err


def readme_bot() -> str:
    """The example bot of the README's "Writing a bot", verbatim."""
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    section = readme[readme.index("## Writing a bot"):]
    start = section.index("```python\n") + len("```python\n")
    return section[start:section.index("\n```", start)]


def test_the_bot_api_docstring_shows_the_readmes_bot() -> None:
    """``arena/play/bot.py`` repeats the example for readers of the protocol alone: the same
    code."""
    import textwrap

    import arena.play.bot

    shown = textwrap.indent(readme_bot().replace('"""', "'''"), "    ")
    assert shown in (arena.play.bot.__doc__ or "")


def test_the_readmes_bot_runs_from_the_current_directory(tmp_path: Path) -> None:
    """The console script finds ``mybots.Eager`` next to the user, as ``python -m`` would,
    and its declared parameter does what it says (never completing: no card completed)."""
    (tmp_path / "mybots.py").write_text(readme_bot() + "\n")
    exe = Path(sys.executable).with_name("arena")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-c",
                                           "from arena.cli import main; main()"]
    completed = {}
    for patience in (0, 1000):
        record = tmp_path / f"game{patience}.json"
        proc = subprocess.run([*cmd, "play", "--bot", f"mybots.Eager:patience={patience}",
                               "--bot", "greedy", "-q", "--seed", "1", "--rule",
                               "max_rounds=12", "--record", str(record)],
                              cwd=tmp_path, capture_output=True, text=True, timeout=60)
        assert proc.returncode == 0, proc.stderr
        assert "mybots.Eager" in proc.stdout
        completed[patience] = len(json.loads(record.read_text())["completed"][0])
    assert completed[0] > 0 and completed[1000] == 0
