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
from arena.play.match import play_game
from arena.show.replay import replay_record
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


def _payload(text: str) -> dict[str, Any]:
    found = re.search(r"<script>const DATA = (.*?);</script>", text, re.S)
    assert found
    return json.loads(found.group(1).replace("<\\/", "</"))


def _gallery(text: str) -> dict[str, str]:
    """The gallery's figures: each card's SVG by the id its figure names."""
    return dict(re.findall(r'<figure class="card-fig" id="card-[^"]*" data-card="([^"]*)">'
                           r"(<svg.*?</svg>)", text, re.S))


def test_the_page_draws_every_card_of_the_game(record: dict[str, Any]) -> None:
    from arena.engine import CARDS
    from arena.engine.card_files import PRINTED
    from arena.show.viewer import page
    from tests.sight.test_card_svg import cards_of, check_drawing

    text = page(record)
    end = replay_record(record).state
    dealt = {CARDS[c].id for seat in range(end.players)
             for c in (*end.hands[seat], *end.completed[seat])}
    gallery = _gallery(text)
    assert set(gallery) == dealt
    for card, svg in gallery.items():
        category, entry = PRINTED[card]
        drawn = cards_of(svg)[card]
        assert drawn.get("data-status") == "printed"
        check_drawing(drawn, category, entry)
    # every chip of every step names a drawn card, for its pop-up
    chips = {c for panel in _payload(text)["panels"]
             for c in re.findall(r'data-card="([^"]*)"', panel)}
    assert chips == dealt


def test_a_card_the_record_adds_is_drawn_from_the_record(record: dict[str, Any]) -> None:
    """A record whose set adds cards carries their definitions (``card_set.changes.add``):
    the page takes them from there, not from the printed catalog."""
    from arena.show.viewer import _chips, gallery_html, record_cards
    from tests.sight.test_card_svg import cards_of, check_drawing

    entry = {"id": "plot-16", "shape": "line", "points": 5, "cells": [
        {"at": f"{q},0", "colour": "green"} for q in range(4)]}
    with_added = dict(record, card_set={"hash": "x", "changes": {
        "points": {"plot-16": 6, "plot-01": 4}, "add": {"plot": [entry]}}})
    table = record_cards(with_added)
    assert table["plot-16"] == ("plot", entry, 6) and table["plot-01"][2] == 4
    assert "plot-16" not in record_cards(record)
    end = replay_record(record).state
    html = gallery_html(["plot-16", "plot-01"], table, end, ["a", "b"])
    gallery = _gallery(html)
    assert set(gallery) == {"plot-16", "plot-01"}
    drawn = cards_of(gallery["plot-16"])["plot-16"]
    assert drawn.get("data-status") == "added" and drawn.get("data-points") == "6"
    check_drawing(drawn, "plot", entry)
    assert cards_of(gallery["plot-01"])["plot-01"].get("data-status") == "changed"
    chip = _chips(["plot-16"], "held", table)
    assert 'data-card="plot-16"' in chip and "line: green green green green, 6 pts" in chip


@pytest.mark.parametrize("width", [1300, 800])
def test_a_chip_pointed_at_shows_its_card(tmp_path: Path, record: dict[str, Any],
                                          browser: Any, width: int) -> None:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By

    out = tmp_path / "game.html"
    CliRunner().invoke(main, ["replay", str(write(tmp_path, record)), "--html", str(out)])
    browser.set_window_size(width, 900)
    browser.get(out.as_uri() + "#step=60")
    tip = browser.find_element(By.ID, "card-tip")
    assert not tip.is_displayed()
    chips = browser.find_elements(By.CSS_SELECTOR, "#panel .chip[data-card]")
    assert chips
    for chip in (chips[0], chips[-1]):
        browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", chip)
        # The page hides the tip on scroll, and a scroll's event comes a frame later: wait
        # for two frames, as a person's pointing comes after the page has scrolled.
        browser.execute_async_script(
            "const done = arguments[0]; "
            "requestAnimationFrame(() => requestAnimationFrame(() => done()))")
        ActionChains(browser).move_to_element(chip).perform()
        card = chip.get_attribute("data-card")
        assert tip.is_displayed() and tip.get_attribute("data-card") == card
        shown = tip.find_element(By.CSS_SELECTOR, "g.card").get_attribute("data-card")
        assert shown == card
        # inside the window, beside the chip and not over it
        box, at = tip.rect, chip.rect
        view = browser.execute_script("return [window.innerWidth, window.innerHeight]")
        assert box["x"] >= 0 and box["x"] + box["width"] <= view[0]
        top = browser.execute_script("return arguments[0].getBoundingClientRect().top", tip)
        assert top >= 0 and top + box["height"] <= view[1]
        assert box["y"] >= at["y"] + at["height"] or box["y"] + box["height"] <= at["y"]
    ActionChains(browser).move_to_element(
        browser.find_element(By.TAG_NAME, "h1")).perform()
    assert not tip.is_displayed()
    browser.set_window_size(1300, 1000)
