"""New objective cards in a card-set file (``add``): every bad definition is one sentence
naming the card and the field, exit 2, before anything runs; good ones are listed and drawn
by ``arena cards``; the native engine does not play them yet, so on it every command that
plays refuses the set in one sentence (rather than playing without them), and on the
reference engine they are dealt, planned for, completed, recorded and replayed."""

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

from arena.cards import CardFileError, parse
from arena.cli import main
from arena.segments import iter_lines

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
    (edited([*GARDENER, "shoots"], 9), "add.gardener[0] (gardener-16).shoots: 9 pink shoots "
     "without an improvement need as many pink plots, and the game has 7"),
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


def test_on_the_native_engine_every_command_that_plays_refuses_added_cards(
        tmp_path: Path) -> None:
    path = str(write(tmp_path, GOOD))
    sentence = "adds cards (plot-16, gardener-16, panda-16)"
    for args in (["play", "--bot", "random", "--bot", "random", "--cards", path, "-q"],
                 ["tournament", "--bot", "random", "--bot", "random", "--cards", path,
                  "--games", "2", "--out", str(tmp_path / "t"), "--quiet"],
                 ["balance", "study", "--bot", "random", "--deals", "2", "--cards", path,
                  "--out", str(tmp_path / "s"), "--quiet"]):
        code, _out, err = run(*args)
        assert code == 2 and sentence in err and "ARENA_ENGINE=reference" in err, args
        assert len(err.strip().splitlines()) == 1
    assert not (tmp_path / "t").exists() and not (tmp_path / "s").exists()
    goals = tmp_path / "goals.json"
    goals.write_text(json.dumps({"cards": "set.json", "space": {"emperor": [1, 3]},
                                 "goals": [{"figure": "rounds", "at_least": 1}]}))
    code, _out, err = run("balance", "design", str(goals), "--out", str(tmp_path / "d"))
    assert code == 2 and sentence in err
    script = subprocess.run([sys.executable, "scripts/strength.py", "--cards", path,
                             "--games", "2"], capture_output=True, text=True,
                            cwd=Path(__file__).parents[2])
    assert script.returncode == 2 and sentence in script.stderr, script.stderr
    with pytest.raises(CardFileError, match="native engine cannot play added cards yet"):
        parse(GOOD, "a record's card_set.changes")
    assert parse(GOOD, playable=False).added_ids() == ["plot-16", "gardener-16", "panda-16"]


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
    code, _out, err = run("replay", str(tmp_path / "t"), "--game", game)
    assert code == 2 and "ARENA_ENGINE=reference" in err  # the native engine says why
