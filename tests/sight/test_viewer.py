"""The replay page: written from a record (a file, a games.jsonl, a tournament folder),
self-contained, and working in a headless browser (its script runs without an error, the
keys, buttons and slider step through the game, each step's board is that step's position)."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.match import play_game
from arena.replay import replay_record
from bots.greedy import GreedyBot
from bots.random_bot import RandomBot


@pytest.fixture(scope="module")
def record() -> dict[str, Any]:
    bots = [GreedyBot(random.Random(1)), RandomBot(random.Random(2), complete=True)]
    return dict(play_game(bots, 5, names=["greedy", "random"]).record)


def write(tmp_path: Path, record: dict[str, Any]) -> Path:
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    return path


def test_the_page_is_one_file_that_fetches_nothing(tmp_path: Path,
                                                   record: dict[str, Any]) -> None:
    out = tmp_path / "game.html"
    result = CliRunner().invoke(main, ["replay", str(write(tmp_path, record)), "--html",
                                       str(out)])
    assert result.exit_code == 0, result.output
    text = out.read_text()
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//)""", text)
    assert "@import" not in text and "url(" not in text
    urls = set(re.findall(r"https?://[^\s\"'<>\\]+", text))
    assert urls <= {"http://www.w3.org/2000/svg"}


def test_a_tournament_folder_and_a_game_id(tmp_path: Path, record: dict[str, Any]) -> None:
    run = tmp_path / "run"
    run.mkdir()
    other = dict(record, game="000-0001-1")
    (run / "games.jsonl").write_text(json.dumps(dict(record, game="000-0000-0")) + "\n"
                                     + json.dumps(other) + "\n")
    out = tmp_path / "g.html"
    result = CliRunner().invoke(main, ["replay", str(run), "--game", "000-0001-1", "--html",
                                       str(out)])
    assert result.exit_code == 0, result.output
    assert "Game 000-0001-1" in out.read_text()
    result = CliRunner().invoke(main, ["replay", str(run), "--html", str(out), "--force"])
    assert result.exit_code == 2 and "choose one with --game" in result.stderr


@pytest.mark.parametrize("case", ["not json", "no seed", "illegal move", "empty folder",
                                  "unknown game"])
def test_a_bad_record_is_one_sentence_exit_2(tmp_path: Path, record: dict[str, Any],
                                             case: str) -> None:
    path = tmp_path / "bad.json"
    args = []
    if case == "not json":
        path.write_text("{ not json")
    elif case == "no seed":
        path.write_text(json.dumps({k: v for k, v in record.items() if k != "seed"}))
    elif case == "illegal move":
        moves = list(record["moves"])
        first = next(i for i, m in enumerate(moves) if not m.startswith("*"))
        moves[first] = moves[first].split(" ")[0] + " panda 5,5"
        path.write_text(json.dumps(dict(record, moves=moves)))
    elif case == "empty folder":
        path = tmp_path / "folder"
        path.mkdir()
    else:
        path.write_text(json.dumps(record))
        args = ["--game", "nope"]
    out = tmp_path / "out.html"
    result = CliRunner().invoke(main, ["replay", str(path), *args, "--html", str(out)])
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert not out.exists()


def plots_at(record: dict[str, Any], step: int) -> set[str]:
    """The plots (cells) of the position before choice ``step``."""
    from arena.engine import grid
    from arena.engine.components import POND_TILE

    result = replay_record(record, until=step)
    return {grid.cell_text(c) for c, t in result.state.tiles.items() if t != POND_TILE}


def test_the_page_steps_through_the_game_in_a_browser(tmp_path: Path, record: dict[str, Any],
                                                      browser: Any) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    out = tmp_path / "game.html"
    CliRunner().invoke(main, ["replay", str(write(tmp_path, record)), "--html", str(out)])
    browser.get_log("browser")  # drop what came before
    browser.get(out.as_uri())
    body = browser.find_element(By.TAG_NAME, "body")
    assert body.get_attribute("data-ready") == "1"

    def step() -> int:
        return int(body.get_attribute("data-step"))

    def board_plots() -> set[str]:
        return {e.get_attribute("data-cell")
                for e in browser.find_elements(By.CSS_SELECTOR, "#board g.plot")}

    choices = sum(not m.startswith("*") for m in record["moves"])
    assert step() == 0 and board_plots() == set()
    for _ in range(3):
        body.send_keys(Keys.ARROW_RIGHT)
    assert step() == 3
    assert board_plots() == plots_at(record, 3)
    browser.find_element(By.ID, "last").click()
    assert step() == choices
    assert board_plots() == plots_at(record, choices)
    assert "game is over" in browser.find_element(By.ID, "next").text
    browser.find_element(By.ID, "prev").click()
    assert step() == choices - 1
    browser.execute_script("const s = document.getElementById('slider'); s.value = 40;"
                           "s.dispatchEvent(new Event('input'));")
    assert step() == 40 and board_plots() == plots_at(record, 40)
    events = browser.find_element(By.ID, "events").text
    assert events.strip()
    body.send_keys(Keys.HOME)
    assert step() == 0
    # a link to a step opens there
    browser.get(out.as_uri() + "#step=25")
    assert int(browser.find_element(By.TAG_NAME, "body").get_attribute("data-step")) == 25
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert errors == []
