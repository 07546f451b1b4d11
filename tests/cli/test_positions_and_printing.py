"""`arena rules`, `arena position`, `replay --position`, and what `arena play` prints.

Found by walking through the README as a new user: the rule options were listed nowhere, no
command wrote the position file that `legal` and `apply` read, and `play --show` printed a
board before the events it already showed.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.commands.common import plural
from arena.engine import (
    DEFAULTS,
    OPTION_NAMES,
    RuleOptions,
    from_position,
    new_game,
    to_position,
)
from arena.engine.options import OPTIONS, option_text
from arena.show.board_text import render_state
from arena.show.replay import replay_record


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_new_commands_have_help_with_an_example() -> None:
    for command in ("rules", "position"):
        code, out, _ = run(command, "--help")
        assert code == 0 and "Example" in out, command


def test_rules_lists_every_option_with_its_default_and_meaning() -> None:
    code, out, _ = run("rules")
    assert code == 0
    flat = " ".join(out.split())
    for spec in OPTIONS:
        default = option_text(spec.name, getattr(DEFAULTS, spec.name))
        assert f"{spec.name} default {default}; values: {spec.values_text()}" in flat
        assert " ".join(spec.help.split()) in flat
        assert all(rule in flat for rule in spec.rules)
    # What `arena rules` says is the default is what --rule reads back as the default.
    for name in OPTION_NAMES:
        pair = f"{name}={option_text(name, getattr(DEFAULTS, name))}"
        assert RuleOptions.from_pairs([pair]) == DEFAULTS


@pytest.mark.parametrize("players", [2, 3, 4])
def test_position_new_is_the_games_starting_position(players: int) -> None:
    code, out, _ = run("position", "--new", "--players", str(players), "--seed", "7",
                       "--rule", "cloud_keep=false")
    assert code == 0
    state = from_position(json.loads(out))
    fresh = new_game(players, 7, RuleOptions(cloud_keep=False))
    assert state.players == players and state.options == fresh.options
    assert sorted(state.legal_actions()) == sorted(fresh.legal_actions())
    assert state.hands == fresh.hands and state.plot_deck == fresh.plot_deck


def test_position_feeds_legal_and_apply(tmp_path: Path) -> None:
    """The README's chain: position, legal, apply, legal again."""
    code, out, _ = run("position", "--new", "--players", "2", "--seed", "7")
    start = tmp_path / "start.json"
    start.write_text(out)
    code, out, _ = run("legal", str(start))
    assert code == 0 and "objective panda" in out.splitlines()
    code, out, _ = run("apply", str(start), "objective panda", "irrigation keep")
    assert code == 0
    assert from_position(json.loads(out)).current == 1


def test_position_refuses_bad_input_in_one_sentence() -> None:
    for args, needle in ((["--players", "2"], "--new"),
                         (["--new", "--players", "5"], "--players"),
                         (["--new", "--players", "2", "--rule", "fog=1"], "fog")):
        code, _, err = run("position", *args)
        assert code == 2 and needle in err and "Traceback" not in err, (args, err)


@pytest.fixture
def record(tmp_path: Path) -> Path:
    path = tmp_path / "game.json"
    code, _, err = run("play", "--bot", "random:complete=true", "--bot", "random", "--seed",
                       "5", "-q", "--rule", "max_rounds=12", "--record", str(path))
    assert code == 0, err
    return path


def test_replay_position_is_the_state_after_k_choices(record: Path) -> None:
    data = json.loads(record.read_text())
    for k in (0, 9, 30):
        code, out, _ = run("replay", str(record), "--step", str(k), "--position")
        assert code == 0
        expected = replay_record(data, until=k).state
        assert json.loads(out) == json.loads(json.dumps(to_position(expected)))
    code, out, _ = run("replay", str(record), "--position")
    assert code == 0 and json.loads(out)["ended"] is True


def test_replay_past_the_end_says_so(record: Path) -> None:
    total = replay_record(json.loads(record.read_text())).moves
    for extra in ([], ["--position"]):
        code, _, err = run("replay", str(record), "--step", str(total + 5), *extra)
        assert code == 0
        assert f"only {total} choices" in err and f"not step {total + 5}" in err
    code, _, err = run("replay", str(record), "--step", str(total))
    assert code == 0 and "only" not in err


def test_play_prints_a_long_bot_spec_whole(tmp_path: Path) -> None:
    spec = "objective:name=an-objective-bot-with-a-long-name"
    code, out, _ = run("play", "--bot", spec, "--bot", "random", "--seed", "3", "-q",
                       "--rule", "max_rounds=5")
    assert code == 0
    assert re.search(r"seat 0  an-objective-bot-with-a-long-name +\d+ pts", out)


def _boards(out: str) -> list[tuple[int, list[str]]]:
    """Each drawn board's status line index, and the lines printed after its seat lines."""
    lines = out.splitlines()
    return [(i, lines[i + 3:i + 4]) for i, line in enumerate(lines)
            if re.match(r"round \d+, ", line)]


def test_play_show_draws_each_board_after_the_events_it_shows() -> None:
    code, out, _ = run("play", "--bot", "random:complete=true", "--bot", "random", "--seed",
                       "7", "--show", "--no-color")
    assert code == 0
    boards = _boards(out)
    assert len(boards) > 10
    for _, after in boards:
        # What follows a board is a decision or the result, never a roll or a draw it shows.
        assert not after or not re.match(r"\s+(roll|drew) ", after[0]), after
    lines = out.splitlines()
    last = boards[-1][0]
    assert re.match(r"round \d+, game over;", lines[last])
    assert all("to play" in lines[i] for i, _ in boards[:-1])


def test_counts_read_as_english() -> None:
    assert plural(1, "round") == "1 round" and plural(2, "round") == "2 rounds"
    assert plural(0, "choice") == "0 choices"
    state = new_game(2, 1)
    state.stored_channels[0] = 1
    text = render_state(state, ["a", "b"], color=False)
    assert "1 channel;" in text and "0 channels" in text and "1 channels" not in text


def test_a_position_and_a_record_given_to_the_other_command_say_what_they_are(
        record: Path, tmp_path: Path) -> None:
    """Issue 52: `replay start.json` said "the record has no 'seats' field", and `show
    game.json` "format: None is not a known position format"."""
    start = tmp_path / "start.json"
    code, out, _err = run("position", "--new", "--players", "2", "--seed", "7")
    assert code == 0
    start.write_text(out)
    code, _out, err = run("replay", str(start))
    assert code == 2 and "is a position, not a game record" in err
    assert "arena show" in err and "arena legal" in err
    for command in ("show", "legal"):
        code, _out, err = run(command, str(record))
        assert code == 2 and "is a game record, not a position" in err and "arena replay" in err
        assert "format" not in err
