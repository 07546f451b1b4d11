"""New objective cards in a card-set file (``add``): every bad definition is one sentence
naming the card and the field, exit 2, before anything runs; good ones are listed and drawn
by ``arena cards``; both engines deal them, plan for them, complete, record and replay
them, so every command that plays takes the file; a set beyond the native engine's arrays
is refused by it in one sentence (rather than played without some cards)."""

from __future__ import annotations

import copy
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.engine.card_files import parse
from arena.runs.segments import iter_lines

GOOD: dict[str, Any] = {
    "name": "three new cards",
    "add": {"plot": [{"id": "plot-16", "shape": "line", "points": 5, "cells": [
                {"at": "0,0", "colour": "green"}, {"at": "1,0", "colour": "green"},
                {"at": "2,0", "colour": "green"}, {"at": "3,0", "colour": "green"}]}],
            "gardener": [{"id": "gardener-16", "colour": "pink", "shoots": 1, "height": 3,
                          "improvement": "none", "points": 3}],
            "panda": [{"id": "panda-16", "eat": {"green": 3}, "points": 4}]},
}


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def write(tmp: Path, data: dict[str, Any]) -> Path:
    path = tmp / "set.json"
    path.write_text(json.dumps(data))
    return path


def edited(path: list[Any], value: Any) -> dict[str, Any]:
    """GOOD with the value at ``path`` replaced (or deleted when value is ``...``)."""
    data = copy.deepcopy(GOOD)
    node = data
    for key in path[:-1]:
        node = node[key]
    if value is ...:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return data


PLOT = ["add", "plot", 0]
GARDENER = ["add", "gardener", 0]
PANDA = ["add", "panda", 0]


@pytest.mark.parametrize(("data", "words"), [
    (edited([*PLOT, "cells", 3, "at"], "5,5"),
     "add.plot[0] (plot-16).cells: the pattern is not connected (cells 3 touch no path"),
    (edited([*PLOT, "cells", 1, "colour"], "blue"),
     "add.plot[0] (plot-16).cells[1].colour: 'blue' is not a colour"),
    (edited([*PLOT, "cells", 1, "at"], "0,0"), "add.plot[0] (plot-16).cells[1].at: 0,0 is also "
                                                "cells[0]"),
    (edited([*PLOT, "cells", 2, "at"], "two,0"), "add.plot[0] (plot-16).cells[2].at must be"),
    (edited([*PLOT, "cells"], [{"at": f"{i},0", "colour": "pink"} for i in range(8)]),
     "add.plot[0] (plot-16).cells: 8 pink cells, and the game has 7 pink plots"),
    # 18 in a line: 11 green and 7 pink are tiles enough, but each plot goes next to the
    # pond or two tiles (R5.2), and so many in a row need at least 28 plots.
    (edited([*PLOT, "cells"], [{"at": f"{i},0", "colour": "green" if i < 11 else "pink"}
                               for i in range(18)]),
     "add.plot[0] (plot-16).cells: a board holding this pattern needs at least 28 plots (each "
     "plot goes next to the pond or two tiles, R5.2), and the game has 27"),
    (edited([*PLOT, "cells"], [{"at": "0,0", "colour": "green"}]),
     "add.plot[0] (plot-16).cells must be a list of at least 2 cells"),
    (edited([*PLOT, "id"], "plot-01"), "add.plot[0] (plot-01).id: plot-01 is a printed card"),
    (edited([*PANDA, "id"], "plot-16"), "add.panda[0] (plot-16).id: plot-16 is added twice"),
    (edited([*PLOT, "id"], "Plot 16"), "add.plot[0].id must be a text of lower-case letters"),
    (edited([*PLOT, "colour"], "green"), "add.plot[0] (plot-16): unknown field 'colour'"),
    (edited([*GARDENER, "height"], 5),
     "add.gardener[0] (gardener-16).height must be a whole number 1 to 4, not 5"),
    (edited([*GARDENER, "improvement"], "sprinkler"),
     "add.gardener[0] (gardener-16).improvement: 'sprinkler' is not an improvement"),
    (edited([*GARDENER, "colour"], "purple"),
     "add.gardener[0] (gardener-16).colour: 'purple' is not a colour"),
    (edited([*GARDENER, "shoots"], 0), "add.gardener[0] (gardener-16).shoots must be a whole"),
    # A printed improvement is permanent: 4 of the 7 pink tiles can show none.
    (edited([*GARDENER, "shoots"], 5), "add.gardener[0] (gardener-16).shoots: 5 pink shoots "
     "without an improvement need as many pink plots, and the game has 4"),
    # 1 printed pink watershed, and the 3 tokens on plain pink tiles.
    ({**GOOD, "add": {"gardener": [{**GOOD["add"]["gardener"][0], "improvement": "watershed",
                                    "shoots": 5, "height": 1}]}},
     "add.gardener[0] (gardener-16).shoots: 5 pink shoots with watershed need as many pink "
     "plots, and the game has 4"),
    (edited([*GARDENER, "height"], 0),
     "add.gardener[0] (gardener-16).height must be a whole number 1 to 4, not 0"),
    (edited([*GARDENER, "improvement"], ...),
     "add.gardener[0] (gardener-16): improvement is missing"),
    (edited([*GARDENER, "id"], "panda-03"),
     "add.gardener[0] (panda-03).id: panda-03 is a printed card"),
    (edited([*PLOT, "points"], -2), "add.plot[0] (plot-16).points must be a whole number >= 0, "
                                    "not -2"),
    (edited([*PLOT, "cells", 0, "improvement"], "watershed"),
     "add.plot[0] (plot-16).cells[0]: unknown field 'improvement'"),
    (edited([*PLOT, "cells", 0, "at"], [0, 0]),
     "add.plot[0] (plot-16).cells[0].at must be axial coordinates \"q,r\""),
    (edited([*PLOT, "cells", 0, "colour"], ...),
     "add.plot[0] (plot-16).cells[0]: colour is missing"),
    (edited([*PLOT, "cells"], ...), "add.plot[0] (plot-16): cells is missing"),
    (edited([*PANDA, "eat"], ...), "add.panda[0] (panda-16): eat is missing"),
    (edited([*PANDA, "eat"], {"green": 37}),
     "add.panda[0] (panda-16).eat.green: 37 sections, and the game has 36"),
    (edited([*PANDA, "eat"], {"green": 2, "pink": -1}),
     "add.panda[0] (panda-16).eat.pink must be a whole number >= 0, not -1"),
    (edited([*PANDA, "eat"], [3, 0, 0]), "add.panda[0] (panda-16).eat must be an object of "
                                         "colours to counts"),
    (edited([*PANDA], "panda-16"), "add.panda[0] must be an object with the fields"),
    (edited(["add", "panda"], {"id": "panda-16"}), "add.panda must be a list of cards"),
    (edited(["add"], ["plot-16"]), "add must be an object of categories"),
    ({**GOOD, "points": {"panda-16": -1}}, "points.panda-16 must be a whole number >= 0, not -1"),
    ({**GOOD, "remove": ["panda-16", "panda-16"]},
     "remove[1]: panda-16 is removed twice"),
    ({**GOOD, "add": {"gardener": [{"id": "g-big", "colour": "green", "shoots": 10,
                                    "height": 4, "improvement": "any", "points": 9}]}},
     "add.gardener[0] (g-big): 10 shoots of height 4 need 40 green sections, and the game "
     "has 36"),
    (edited([*GARDENER, "points"], ...), "add.gardener[0] (gardener-16): points is missing"),
    (edited([*PANDA, "eat"], {}), "add.panda[0] (panda-16).eat: the card asks for nothing"),
    (edited([*PANDA, "eat"], {"green": 0, "pink": 0}), "the card asks for nothing"),
    (edited([*PANDA, "eat"], {"black": 1}), "add.panda[0] (panda-16).eat: 'black' is not a "
                                             "colour"),
    (edited([*PANDA, "points"], -1), "add.panda[0] (panda-16).points must be a whole number"),
    (edited(["add", "tiles"], []), "add.tiles: not a category"),
    ({**GOOD, "points": {"panda-16": "five"}}, "points.panda-16 must be a whole number"),
])
def test_a_bad_added_card_is_one_sentence_naming_card_and_field(
        tmp_path: Path, data: dict[str, Any], words: str) -> None:
    code, out, err = run("cards", "--cards", str(write(tmp_path, data)))
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    assert words in lines[0], lines[0]


def test_added_cards_are_listed_and_drawn(tmp_path: Path) -> None:
    path = write(tmp_path, {**GOOD, "points": {"panda-16": 5}, "remove": ["gardener-16"]})
    code, out, err = run("cards", "--cards", str(path))
    assert code == 0, err
    rows = {line.split()[0]: line for line in out.splitlines() if line.strip()}
    assert "line: green green green green" in rows["plot-16"] and "5 (added)" in rows["plot-16"]
    assert "removed (added)" in rows["gardener-16"]
    assert "eat 3 green" in rows["panda-16"] and "5 (added at 4)" in rows["panda-16"]
    assert "47 cards in play, 1 removed; 3 added: plot-16, gardener-16, panda-16." in out
    svg = tmp_path / "sheet.svg"
    code, _out, err = run("cards", "--cards", str(path), "--svg", str(svg))
    assert code == 0, err
    text = svg.read_text()
    for card in ("plot-16", "gardener-16", "panda-16"):
        assert f'data-card="{card}"' in text
    assert 'data-card="panda-16" data-category="panda" data-points="5"' in text
    # The template keeps them, so the file to edit is the whole set.
    template = tmp_path / "t.json"
    code, _out, err = run("cards", "--cards", str(path), "--template", str(template))
    assert code == 0, err
    data = json.loads(template.read_text())
    assert data["add"] == GOOD["add"] and data["points"]["panda-16"] == 5
    assert "gardener-16" in data["remove"]


def test_on_the_native_engine_every_command_that_plays_takes_added_cards(
        tmp_path: Path) -> None:
    path = str(write(tmp_path, GOOD))
    code, out, err = run("play", "--bot", "greedy", "--bot", "objective", "--cards", path,
                         "--seed", "3", "-q")
    assert code == 0, err
    code, out, err = run("position", "--new", "--players", "2", "--cards", path, "--seed", "1")
    assert code == 0, err
    assert json.loads(out)["card_set"]["add"] == GOOD["add"]
    code, out, err = run("tournament", "--bot", "greedy", "--bot", "objective", "--cards",
                         path, "--games", "12", "--seed", "2", "--out", str(tmp_path / "t"),
                         "--quiet")
    assert code == 0, err
    records = [json.loads(line) for _source, line in iter_lines(tmp_path / "t")]
    assert all(r["card_set"]["changes"]["add"] == GOOD["add"] for r in records)
    code, out, err = run("balance", "study", "--bot", "greedy", "--deals", "3", "--cards",
                         path, "--category", "panda", "--price-cards", "panda-16", "--workers",
                         "2", "--out", str(tmp_path / "s"), "--quiet")
    assert code == 0, err
    placed = [p for _source, line in iter_lines(tmp_path / "s")
              for p in json.loads(line).get("intervention", ())]
    assert any(p["card"] == "panda-16" for p in placed)  # the added card placed
    priced = [json.loads(line)["card_set"]["changes"].get("points", {}).get("panda-16")
              for _source, line in iter_lines(tmp_path / "s")]
    assert {1, 7} <= set(priced), "the price arms play it at 4 - 3 and 4 + 3"
    for args in (["strength.py", "greedy", "random", "--workers", "1"],
                 ["fit_value.py", "--workers", "1", "--out", str(tmp_path / "fit.json")]):
        script = subprocess.run([sys.executable, f"scripts/{args[0]}", *args[1:], "--cards",
                                 path, "--games", "4"], capture_output=True, text=True,
                                cwd=Path(__file__).parents[2], timeout=600)
        assert script.returncode == 0, script.stderr
    assert parse(GOOD, "a record's card_set.changes").added_ids() == [
        "plot-16", "gardener-16", "panda-16"]


def test_a_set_beyond_the_native_arrays_is_one_sentence(tmp_path: Path) -> None:
    many = {"add": {"panda": [{"id": f"panda-x{i}", "eat": {"green": 1 + i % 3}, "points": 2}
                              for i in range(20)]}}
    path = str(write(tmp_path, many))
    sentence = (f"card file {path}: the card set adds 20 cards: the native engine plays at "
                "most 64 in all (19 added); play more on the reference engine "
                "(ARENA_ENGINE=reference)")
    for args in (["play", "--bot", "random", "--bot", "random", "--cards", path, "-q"],
                 ["tournament", "--bot", "random", "--bot", "random", "--cards", path,
                  "--games", "2", "--out", str(tmp_path / "t"), "--quiet"]):
        code, _out, err = run(*args)
        assert code == 2 and sentence in err, (args, err)
        assert len(err.strip().splitlines()) == 1
    assert not (tmp_path / "t").exists()
    code, out, err = run("cards", "--cards", path)  # listing it is no game
    assert code == 0 and "20 added" in out, err


def reference(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``arena ARGS`` on the reference engine, in a process of its own."""
    env = {**os.environ, "ARENA_ENGINE": "reference"}
    return subprocess.run([sys.executable, "-m", "arena", *args], capture_output=True,
                          text=True, cwd=cwd, env=env, timeout=600)


def test_the_reference_engine_plays_records_and_replays_added_cards(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD)
    result = reference("tournament", "--bot", "greedy", "--bot", "objective", "--cards",
                       str(path), "--games", "20", "--seed", "2", "--workers", "2",
                       "--quiet", "--out", str(tmp_path / "t"), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    records = [json.loads(line) for _source, line in iter_lines(tmp_path / "t")]
    assert len(records) == 20
    # The record carries the definitions: the run's folder alone replays it.
    assert all(r["card_set"]["changes"]["add"] == GOOD["add"] for r in records)
    done = {m[1] for r in records for text in r["moves"]
            if (m := re.search(r"\bcomplete (\S+)", text))}
    assert {"plot-16", "gardener-16", "panda-16"} & done, "no added card was completed"
    game = records[0]["game"]
    shown = reference("replay", str(tmp_path / "t"), "--game", game, cwd=tmp_path)
    assert shown.returncode == 0 and "Game over" in shown.stdout, shown.stderr
    code, out, err = run("replay", str(tmp_path / "t"), "--game", game)
    assert code == 0 and out == shown.stdout, err  # the native engine replays it alike


def test_every_printed_card_would_pass_as_an_added_one() -> None:
    """The checks know the game as the printed catalog does: each printed entry, under an
    id of its own, is a good definition, and a plot pattern's placements are counted as the
    printed card's are (its rotations, never mirrored)."""
    from arena.engine.card_defs import check, rotations
    from arena.engine.components import CARD_INDEX, CARDS, DATA

    for category, printed in DATA["objectives"].items():
        for entry in printed:
            new = {**entry, "id": entry["id"] + "-copy"}
            (checked,) = check({category: [new]}, set(CARD_INDEX), "test")[category]
            if category == "plot":
                assert rotations(checked) == CARDS[CARD_INDEX[entry["id"]]].rotations
    line, = GOOD["add"]["plot"]
    assert len(rotations(line)) == 3  # a straight line: three directions
    triangle = {"cells": [{"at": "0,0", "colour": "green"}, {"at": "1,0", "colour": "green"},
                          {"at": "0,1", "colour": "green"}]}
    assert len(rotations(triangle)) == 2  # a triangle points two ways
    mixed = {"cells": [{"at": "0,0", "colour": "green"}, {"at": "1,0", "colour": "pink"}]}
    assert len(rotations(mixed)) == 6  # a pair of two colours, six ways round


def test_a_board_grown_by_the_placement_rule_meets_the_holding_bound() -> None:
    """plots_to_hold is a lower bound, and not an empty one: boards grown plot by plot as
    R5.2 allows (at random, and stretched in one direction, the thinnest they can be) hold
    the pattern of their outermost cells, so the bound for it is at most their plots, and
    on some it comes within 5 plots of them."""
    import random

    from arena.engine.card_defs import PLOTS, plots_to_hold
    from arena.engine.grid import DIRECTIONS

    def around(cell: tuple[int, int]) -> list[tuple[int, int]]:
        return [(cell[0] + dq, cell[1] + dr) for dq, dr in DIRECTIONS]

    closest = -PLOTS
    for seed in range(300):
        rng = random.Random(seed)
        stretch = rng.choice([None, *DIRECTIONS])
        board: set[tuple[int, int]] = set()
        while len(board) < PLOTS:
            free = sorted({c for t in board | {(0, 0)} for c in around(t)} - board - {(0, 0)})
            legal = [c for c in free if (0, 0) in around(c)
                     or sum(n in board for n in around(c)) >= 2]
            if stretch is None:
                board.add(rng.choice(legal))
            else:
                board.add(max(legal, key=lambda c: c[0] * stretch[0] + c[1] * stretch[1]
                              + rng.random() / 2))
            # The outermost cells along each of the three axes: a pattern this board holds.
            outer = {pick(board, key=axis) for pick in (min, max)
                     for axis in (lambda c: c[0], lambda c: c[1], lambda c: -c[0] - c[1])}
            need = plots_to_hold(sorted(outer))
            assert need <= len(board), (seed, sorted(board))
            if need > len(outer):  # the bound from the lines, not the cells
                closest = max(closest, need - len(board))
    assert closest >= -5, closest


def test_a_file_may_replace_a_whole_deck(tmp_path: Path) -> None:
    """Added cards count in their deck's deal (R2.3): every printed panda card removed and
    two added is a set to list and draw; one added kept is one sentence."""
    printed = [f"panda-{i:02d}" for i in range(1, 16)]
    new = [{"id": "panda-a", "eat": {"green": 2}, "points": 3},
           {"id": "panda-b", "eat": {"pink": 2}, "points": 5}]
    path = write(tmp_path, {"remove": printed, "add": {"panda": new}})
    code, out, err = run("cards", "--cards", str(path))
    assert code == 0, err
    assert "32 cards in play, 15 removed; 2 added: panda-a, panda-b." in out
    code, _out, err = run("cards", "--cards", str(path), "--svg", str(tmp_path / "s.svg"))
    assert code == 0, err
    path = write(tmp_path, {"remove": [*printed, "panda-b"], "add": {"panda": new}})
    code, _out, err = run("cards", "--cards", str(path))
    assert code == 2 and err.count("\n") == 1
    assert "remove: the panda deck keeps 1 card, and a 2-player game deals one to each" in err
