"""The cards drawn (``arena.show.card_svg``, ``arena cards --svg``) are checked against the
catalog by parsing the SVG: every printed card with its pattern's hexes in their colours, its
shoots and their bamboo, its sections to eat; a re-priced, removed or added card marked so;
the command writes the sheet and refuses to replace a file without ``--force``."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.engine import CARDS
from arena.engine.card_files import PRINTED, entries
from arena.show.card_svg import card_svg, sheet_svg

NS = "{http://www.w3.org/2000/svg}"


def cards_of(svg: str) -> dict[str, ET.Element]:
    """Each drawn card's group by id (the text must be well-formed XML)."""
    root = ET.fromstring(svg)
    return {g.get("data-card"): g for g in root.iter(NS + "g")  # type: ignore[misc]
            if g.get("class") == "card"}


def check_drawing(card: ET.Element, category: str, entry: dict[str, Any]) -> None:
    """The picture says what the entry asks: the right hexes, colours, stalks, sections."""
    if category == "plot":
        cells = [(p.get("data-at"), p.get("data-colour"))
                 for p in card.iter(NS + "polygon") if p.get("class") == "cell"]
        assert sorted(cells) == sorted((c["at"], c["colour"]) for c in entry["cells"])
    elif category == "gardener":
        shoots = [g for g in card.iter(NS + "g") if g.get("class") == "shoot"]
        assert len(shoots) == entry["shoots"]
        for shoot in shoots:
            hexes = [p for p in shoot.iter(NS + "polygon") if p.get("class") == "cell"]
            assert [h.get("data-colour") for h in hexes] == [entry["colour"]]
            sections = [r for r in shoot.iter(NS + "rect") if r.get("class") == "section"]
            assert len(sections) == entry["height"]
            assert shoot.get("data-improvement") == entry["improvement"]
    else:
        eaten: dict[str, int] = {}
        for rect in card.iter(NS + "rect"):
            if rect.get("class") == "eat":
                colour = rect.get("data-colour")
                eaten[colour] = eaten.get(colour, 0) + 1  # type: ignore[index]
        assert eaten == {k: n for k, n in entry["eat"].items() if n}


def test_every_printed_card_is_drawn_as_its_catalog_entry() -> None:
    listed = entries()
    assert len(listed) == len(CARDS) == len(PRINTED)
    drawn = cards_of(sheet_svg(listed))
    assert set(drawn) == set(PRINTED)
    for category, entry, points in listed:
        card = drawn[entry["id"]]
        assert card.get("data-category") == category
        assert card.get("data-points") == str(points) == card.get("data-printed")
        assert card.get("data-status") == "printed"
        check_drawing(card, category, entry)
        # one card alone draws the same
        alone = cards_of(card_svg(category, entry, points))
        check_drawing(alone[entry["id"]], category, entry)


def test_re_priced_removed_and_added_cards_are_marked() -> None:
    added = {
        "plot": [{"id": "plot-16", "shape": "zigzag", "points": 6, "cells": [
            {"at": "0,0", "colour": "green"}, {"at": "1,0", "colour": "pink",
                                                "improvement": "watershed"},
            {"at": "1,1", "colour": "yellow"}, {"at": "2,1", "colour": "green"},
            {"at": "3,0", "colour": "pink"}]}],
        "gardener": [{"id": "gardener-16", "colour": "pink", "shoots": 5, "height": 2,
                      "improvement": "none", "points": 3}],
        "panda": [{"id": "panda-16", "eat": {"green": 3, "pink": 1}, "points": 4}],
    }
    listed = entries({"points": {"plot-15": 7, "panda-16": 5}, "remove": ["gardener-13"],
                      "add": added})
    drawn = cards_of(sheet_svg(listed))
    assert len(drawn) == len(CARDS) + 3
    assert drawn["plot-15"].get("data-status") == "changed"
    assert (drawn["plot-15"].get("data-points"), drawn["plot-15"].get("data-printed")) == (
        "7", str(PRINTED["plot-15"][1]["points"]))
    assert drawn["gardener-13"].get("data-status") == "removed"
    assert drawn["plot-01"].get("data-status") == "printed"
    for category, cards in added.items():
        for entry in cards:
            card = drawn[entry["id"]]
            assert card.get("data-status") == "added" and card.get("data-printed") == ""
            assert "added" in "".join(card.itertext())
            check_drawing(card, category, entry)
    # an added card's points may be changed by the same set, like a printed one's
    assert drawn["panda-16"].get("data-points") == "5"
    assert drawn["gardener-16"].get("data-points") == "3"


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_the_command_draws_a_set_and_never_replaces_a_file_unasked(tmp_path: Path) -> None:
    card_file = tmp_path / "set.json"
    card_file.write_text(json.dumps({"name": "trial", "points": {"panda-01": 5},
                                     "remove": ["plot-02"]}))
    out = tmp_path / "sheet.svg"
    code, stdout, err = run("cards", "--cards", str(card_file), "--svg", str(out))
    assert code == 0, err
    assert str(out) in stdout
    drawn = cards_of(out.read_text())
    assert drawn["panda-01"].get("data-status") == "changed"
    assert drawn["plot-02"].get("data-status") == "removed"
    assert "trial" in out.read_text()
    out.write_text("keep me")
    code, stdout, err = run("cards", "--svg", str(out))
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and "--svg" in lines[0] and "--force" in lines[0]
    assert out.read_text() == "keep me"
    code, _stdout, err = run("cards", "--svg", str(out), "--force")
    assert code == 0, err
    assert all(card.get("data-status") == "printed"
               for card in cards_of(out.read_text()).values())
    code, stdout, _err = run("cards", "--svg", "-")
    assert code == 0 and len(cards_of(stdout)) == len(CARDS)


@pytest.mark.parametrize("width", [1300, 800])
def test_the_sheet_fits_a_window(browser: Any, tmp_path: Path, width: int) -> None:
    """In a browser window the sheet is no wider than the window and every card is
    inside it (a card drawn off its sheet, or a sheet wider than the page, fails)."""
    page = tmp_path / "sheet.html"
    page.write_text(f"<!DOCTYPE html><html><body style='margin:0'>{sheet_svg(entries())}"
                    "</body></html>")
    browser.set_window_size(width, 900)
    browser.get(page.as_uri())
    sheet = browser.execute_script(
        "const s = document.querySelector('svg.card-sheet').getBoundingClientRect();"
        "return [s.left, s.right, document.documentElement.clientWidth];")
    assert sheet[0] >= 0 and sheet[1] <= sheet[2] + 0.5
    boxes = browser.execute_script(
        "const s = document.querySelector('svg.card-sheet').getBoundingClientRect();"
        "return [...document.querySelectorAll('g.card')].map(g => {"
        "const b = g.getBoundingClientRect();"
        "return [b.left - s.left, b.right - s.right, b.width];});")
    assert len(boxes) == len(CARDS)
    assert all(left >= 0 and right <= 0.5 and w > 50 for left, right, w in boxes)
