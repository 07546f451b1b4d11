"""The human seat played in a real terminal (tmux), as a person sees it: the board with its
coordinates, the drawn plots by number and colour, what each action does, the actions left
in the prompt, the end of the turn announced, and a game played to its end and recorded.

tmux runs on a socket of the test's own (``-L``), so it never touches a user's sessions.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

if shutil.which("tmux") is None:
    pytest.skip("tmux is not installed (apt-get install tmux)", allow_module_level=True)

PROMPT = re.compile(r"seat 0, ([^>\n]*)> *$")


class Pane:
    """One tmux session on a private socket, read with capture-pane."""

    def __init__(self, command: str, cwd: Path) -> None:
        self.socket = f"arena-test-{uuid.uuid4().hex[:8]}"
        self.tmux("new-session", "-d", "-s", "t", "-x", "130", "-y", "60", "-c", str(cwd),
                  f"env NO_COLOR=1 COLUMNS=130 {command}; echo EXIT=$?; sleep 60")

    def tmux(self, *args: str) -> str:
        return subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True,
                              text=True, check=True, timeout=30).stdout

    def screen(self) -> str:
        """The visible pane and its scrollback."""
        return self.tmux("capture-pane", "-p", "-J", "-t", "t", "-S", "-3000")

    def send(self, line: str) -> None:
        self.tmux("send-keys", "-t", "t", "-l", line)
        self.tmux("send-keys", "-t", "t", "Enter")

    def wait(self, pattern: re.Pattern[str] | str, since: int = 0,
             timeout: float = 60) -> tuple[re.Match[str], str]:
        """Wait for ``pattern`` in the screen's text after character ``since``."""
        regex = re.compile(pattern, re.M) if isinstance(pattern, str) else pattern
        deadline = time.monotonic() + timeout
        while True:
            text = self.screen().rstrip()
            found = regex.search(text, since)
            if found:
                return found, text
            if time.monotonic() > deadline:
                raise AssertionError(f"{regex.pattern!r} never appeared:\n{text[since:]}")
            time.sleep(0.2)

    def close(self) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True,
                       timeout=30)


@pytest.fixture
def pane_factory():  # type: ignore[no-untyped-def]
    panes: list[Pane] = []

    def make(command: str, cwd: Path) -> Pane:
        panes.append(Pane(command, cwd))
        return panes[-1]

    yield make
    for pane in panes:
        pane.close()


def _prompt_end(pane: Pane, since: int) -> tuple[str, str, int]:
    """Wait for the next prompt (or the end of the game): what it says, the screen, and
    where the prompt ends."""
    found, text = pane.wait(re.compile(r"(seat 0, ([^>\n]*)> *$)|(EXIT=\d+)", re.M), since)
    return (found[2] if found[2] is not None else found[3]), text, found.end()


def test_a_person_plays_a_game_in_tmux(tmp_path: Path, pane_factory) -> None:  # type: ignore[no-untyped-def]
    record = tmp_path / "mine.json"
    command = shlex.join([sys.executable, "-m", "arena", "play", "--bot", "human", "--bot",
                          "greedy", "--seed", "3", "--rule", "max_rounds=3", "--record",
                          str(record)])
    pane = pane_factory(command, tmp_path)
    said, text, at = _prompt_end(pane, 0)
    # the board: the pond and the open spaces around it with their coordinates
    assert said == "2 actions left"
    assert re.search(r"^\s*·\s+·\s*$", text, re.M)
    for coords in ("0,-1", "1,-1", "-1,0", "0,0", "1,0", "-1,1", "0,1"):
        assert coords in text
    # each action says what it does
    assert re.search(r"\d+ plot\s+draw up to 3 plots, then place one of them", text)
    assert re.search(r"\d+ end\s+end your turn", text)

    pane.send("help")
    said, text, at = _prompt_end(pane, at)
    assert "swap" in text[:at] and "watershed: irrigates its plot" in text[:at]
    assert "actions your turn has left" in text[:at]

    pane.send("plot")
    said, text, at_place = _prompt_end(pane, at)
    assert said == "place a drawn plot"
    drawn = re.search(r"^Drawn plots: 0 = (\w+(/\w+)?), 1 = (\w+(/\w+)?)", text[at:], re.M)
    assert drawn, text[at:]
    assert "place K Q,R puts drawn plot K at Q,R" in text[at:]
    pane.send("place 0 1,0")
    said, text, at = _prompt_end(pane, at_place)
    assert said == "1 action left", said
    pane.send("end")
    said, text, at2 = _prompt_end(pane, at)
    after = text[at:]
    assert "r1  you: end" in after and "-- your turn is over --" in after
    assert after.index("-- your turn is over --") < after.index("seat 1:")
    # the plot placed is drawn on the next board (irrigated, next to the pond), its
    # coordinate under it
    tile = re.search(r"≈.≈ +([GYP])\d", after)
    assert tile, after
    below = after[after.index("\n", tile.end()) + 1:].split("\n", 1)[0]
    assert below[tile.start(1) - after.rfind("\n", 0, tile.start(1)) - 1:].lstrip() \
        .startswith("1,0")

    # then play on by number to the end of the game
    at = at2
    for _ in range(200):
        if said.startswith("EXIT="):
            break
        pane.send("1")
        said, text, at = _prompt_end(pane, at)
    assert said == "EXIT=0", text[-2000:]
    assert "Game over" in text and "record written" in text
    data = json.loads(record.read_text())
    assert data["error"] is None and data["moves"][:1] != []
    assert "0 plot" in data["moves"] and "0 place 0 1,0" in data["moves"]
