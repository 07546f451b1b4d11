"""The human seat, driven through a pseudo-terminal as a person would drive it: the board and
the numbered legal actions at each decision, the commands, a game played to its end, and
`quit` recorded as an abandoned game that replays.  What the seat may not see (the other
seat's objectives in hand) never reaches the screen."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main

pexpect = pytest.importorskip("pexpect")

#: The prompt names the seat and what is left of the turn (`seat 0, 2 actions left> `).
PROMPT = r"seat 0(, [^>\n]*)?> "


def spawn(tmp_path: Path, *args: str):  # type: ignore[no-untyped-def]
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "120"}
    child = pexpect.spawn(sys.executable, ["-m", "arena", "play", *args], cwd=str(tmp_path),
                          env=env, encoding="utf-8", timeout=60, dimensions=(60, 120))
    return child


def test_a_person_plays_a_game_to_its_end(tmp_path: Path) -> None:
    record_path = tmp_path / "mine.json"
    child = spawn(tmp_path, "--bot", "human", "--bot", "random", "--seed", "3", "--rule",
                  "max_rounds=4", "--record", str(record_path))
    transcript: list[str] = []
    child.expect(PROMPT)
    transcript.append(child.before)
    assert "Your legal actions" in child.before and "  1 " in child.before
    for command, answer in (("help", "quit    leave the game"), ("hand", "pts"),
                            ("board", "Your legal actions"), ("nonsense", "Type `help`"),
                            ("99999", "is not a number from 1"),
                            ("panda 3,3", "is not legal now"),
                            ("panda 9,9", "off the grid")):
        child.sendline(command)
        child.expect(PROMPT)
        transcript.append(child.before)
        assert answer in child.before, command
    decisions = 0
    # Answer by notation once (the first listed action), then by number.
    listed = transcript[0][transcript[0].index("Your legal actions"):]
    first = re.search(r"^ +1 (\S.*?)(?: {2,}|$)", listed, re.M)
    assert first is not None
    child.sendline(first[1].strip())
    while True:
        index = child.expect([PROMPT, pexpect.EOF])
        transcript.append(child.before)
        if index == 1:
            break
        decisions += 1
        child.sendline("1")
    child.close()
    assert child.exitstatus == 0
    screen = "".join(transcript)
    assert "Game over" in screen and "record written" in screen
    record = json.loads(record_path.read_text())
    assert record["error"] is None and record["capped"]
    assert decisions + 1 == sum(m.startswith("0 ") for m in record["moves"])
    # the other seat's hand: only the cards it completed (public) may appear
    secret = set(record["drawn"][1]) - set(record["completed"][1])
    assert secret and not any(card in screen for card in secret)
    assert "plot ?" in screen or "plot?" in screen
    result = CliRunner().invoke(main, ["replay", str(record_path)])
    assert result.exit_code == 0, result.output


def test_quit_records_an_abandoned_game_that_replays(tmp_path: Path) -> None:
    record_path = tmp_path / "left.json"
    child = spawn(tmp_path, "--bot", "random", "--bot", "human", "--seed", "5", "--record",
                  str(record_path))
    child.expect(r"seat 1(, [^>\n]*)?> ")
    child.sendline("1")
    child.expect(r"seat 1(, [^>\n]*)?> ")
    child.sendline("quit")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert "abandoned" in child.before
    record = json.loads(record_path.read_text())
    assert record["error"]["kind"] == "abandoned" and record["error"]["seat"] == 1
    assert record["winners"] == [0]
    result = CliRunner().invoke(main, ["replay", str(record_path)])
    assert result.exit_code == 0, result.output
    html = tmp_path / "left.html"
    result = CliRunner().invoke(main, ["replay", str(record_path), "--html", str(html)])
    assert result.exit_code == 0 and "quit" in html.read_text()


def test_end_of_input_is_quitting(tmp_path: Path) -> None:
    record_path = tmp_path / "eof.json"
    child = spawn(tmp_path, "--bot", "human", "--bot", "random", "--seed", "5", "--record",
                  str(record_path))
    child.expect(PROMPT)
    child.sendeof()
    child.expect(pexpect.EOF)
    child.close()
    assert json.loads(record_path.read_text())["error"]["kind"] == "abandoned"


def test_a_tournament_refuses_the_human_seat(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["tournament", "--bot", "human", "--bot", "random",
                                       "--games", "2", "--out", str(tmp_path / "t")])
    assert result.exit_code == 2
    assert "a tournament plays in worker processes without one" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "t" / "games.jsonl").exists()


def test_two_human_seats_are_refused() -> None:
    result = CliRunner().invoke(main, ["play", "--bot", "human", "--bot", "human"])
    assert result.exit_code == 2 and "one --bot human per game" in result.stderr


def test_ctrl_c_interrupts_the_game_with_no_winner(tmp_path: Path) -> None:
    """Issue 52: Ctrl-C at the human seat used to exit 0 and name the other seat the winner
    of a 0-0 game; it is an interrupted game: no winner, nothing recorded, exit 130."""
    record_path = tmp_path / "cut.json"
    child = spawn(tmp_path, "--bot", "human", "--bot", "greedy", "--seed", "5", "--record",
                  str(record_path))
    child.expect(PROMPT)
    child.sendintr()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130
    assert "interrupted" in child.before and "winner" in child.before
    assert "  winner" not in child.before and "Game over" not in child.before
    assert not record_path.exists()
