"""New objective cards as data: the ``add`` field of a card-set file, checked.

A designer's "what about the card I have in mind?" starts as an entry with the fields of the
printed catalog's (``arena/data/components.json``, ``objectives``), by category::

    {"add": {"plot": [{"id": "plot-16", "shape": "line", "points": 5, "cells": [
                {"at": "0,0", "colour": "green"}, {"at": "1,0", "colour": "green"},
                {"at": "2,0", "colour": "green"}, {"at": "3,0", "colour": "green"}]}],
             "gardener": [{"id": "gardener-16", "colour": "pink", "shoots": 1, "height": 3,
                           "improvement": "none", "points": 3}],
             "panda": [{"id": "panda-16", "eat": {"green": 3}, "points": 4}]}}

Every entry is checked here, before anything runs, and a bad one is one sentence naming the
card and the field (``add.plot[0] (plot-16).cells[2].at``): a pattern whose cells do not
touch, an unknown colour or improvement, an id that is printed or given twice, a height
outside 1–4, a panda card that asks for nothing, a condition no game could meet (more cells
of a colour than the game has plots of it, more bamboo than its sections).  What the checks
know of the game (plot tiles, improvement tokens, bamboo sections) is read from the same
components file the engine reads.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from arena.engine.components import (
    BAMBOO_SECTIONS,
    CATEGORIES,
    COLOURS,
    COUNT_MAX,
    IMPROVEMENT_TOKENS,
    IMPROVEMENTS,
    PLOT_COUNTS,
    _rotations,
)
from arena.engine.errors import ArenaError
from arena.engine.grid import DIRECTIONS

#: The fields of an entry, by category (``note``: free text, as some printed cards have).
FIELDS: dict[str, tuple[str, ...]] = {
    "plot": ("id", "shape", "cells", "points", "note"),
    "gardener": ("id", "colour", "shoots", "height", "improvement", "points", "note"),
    "panda": ("id", "eat", "points", "note"),
}
GARDENER_IMPROVEMENTS = (*IMPROVEMENTS, "any")
#: An id as notation writes it: ``plot-16``, ``panda_big``.
ID = re.compile(r"[a-z0-9][a-z0-9_-]*\Z")
#: The plot tiles of a game (R1.2), every colour.
PLOTS = sum(PLOT_COUNTS.values())


class CardDefinitionError(ArenaError):
    """An added card that cannot be played: one sentence naming the card and field."""


def _plots_of(colour: int, improvement: int | None = None) -> int:
    """Plots of a colour the game could show with an improvement (``None``: any; 0: none).

    A printed improvement is permanent (R1.2), so "no improvement" counts the plain tiles
    only; an improvement counts its printed tiles plus the tokens of it that plain tiles of
    the colour could take (R1.4, R11.1)."""
    plain = PLOT_COUNTS.get(colour * 4, 0)
    if improvement is None:
        return sum(n for code, n in PLOT_COUNTS.items() if code // 4 == colour)
    if improvement == 0:
        return plain
    return (PLOT_COUNTS.get(colour * 4 + improvement, 0)
            + min(IMPROVEMENT_TOKENS[improvement], plain))


def _whole(value: Any, at: str, low: int, high: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low or (
            high is not None and value > high):
        span = f"{low} to {high}" if high is not None else f">= {low}"
        raise CardDefinitionError(f"{at} must be a whole number {span}, not {value!r}")
    if value > COUNT_MAX:
        raise CardDefinitionError(f"{at} must be at most {COUNT_MAX}, not {value!r}")
    return value


def _colour(value: Any, at: str) -> int:
    if value not in COLOURS:
        raise CardDefinitionError(f"{at}: {value!r} is not a colour "
                                  f"({', '.join(COLOURS)})")
    return COLOURS.index(value)


def check(add: Any, printed: set[str], where: str) -> dict[str, list[dict[str, Any]]]:
    """The ``add`` field checked: entries by category, in the file's order (a copy)."""
    if not isinstance(add, dict):
        raise CardDefinitionError(f"{where}: add must be an object of categories "
                                  f"({', '.join(CATEGORIES)}) to lists of cards")
    seen: dict[str, str] = {}
    out: dict[str, list[dict[str, Any]]] = {}
    for category, entries in add.items():
        if category not in CATEGORIES:
            raise CardDefinitionError(f"{where}: add.{category}: not a category "
                                      f"({', '.join(CATEGORIES)})")
        if not isinstance(entries, list):
            raise CardDefinitionError(f"{where}: add.{category} must be a list of cards")
        checked = []
        for i, entry in enumerate(entries):
            at = f"{where}: add.{category}[{i}]"
            if not isinstance(entry, dict):
                raise CardDefinitionError(f"{at} must be an object with the fields "
                                          f"{', '.join(FIELDS[category])}")
            card = entry.get("id")
            if not isinstance(card, str) or not ID.match(card):
                raise CardDefinitionError(f"{at}.id must be a text of lower-case letters, "
                                          f"digits, - and _ (e.g. {category}-16), not "
                                          f"{card!r}")
            at = f"{at} ({card})"
            if card in printed:
                raise CardDefinitionError(f"{at}.id: {card} is a printed card (an added card "
                                          "needs an id of its own; `points` re-prices a "
                                          "printed one)")
            if card in seen:
                raise CardDefinitionError(f"{at}.id: {card} is added twice (also in "
                                          f"{seen[card]})")
            seen[card] = f"add.{category}"
            for key in entry:
                if key not in FIELDS[category]:
                    raise CardDefinitionError(f"{at}: unknown field {key!r} (valid: "
                                              f"{', '.join(FIELDS[category])})")
            for key in FIELDS[category]:
                if key not in ("note", "shape") and key not in entry:
                    raise CardDefinitionError(f"{at}: {key} is missing")
            _whole(entry["points"], f"{at}.points", 0)
            if "note" in entry and not isinstance(entry["note"], str):
                raise CardDefinitionError(f"{at}.note must be a text")
            if category == "plot":
                _check_plot(entry, at)
            elif category == "gardener":
                _check_gardener(entry, at)
            else:
                _check_panda(entry, at)
            checked.append(dict(entry))
        if checked:
            out[category] = checked
    return out


def _check_plot(entry: Mapping[str, Any], at: str) -> None:
    if "shape" in entry and not isinstance(entry["shape"], str):
        raise CardDefinitionError(f"{at}.shape must be a text (a name for people)")
    cells = entry["cells"]
    if not isinstance(cells, list) or len(cells) < 2:
        raise CardDefinitionError(f"{at}.cells must be a list of at least 2 cells "
                                  '({"at": "q,r", "colour": ...})')
    places: dict[tuple[int, int], int] = {}
    per_colour = [0, 0, 0]
    for j, cell in enumerate(cells):
        here = f"{at}.cells[{j}]"
        if not isinstance(cell, dict):
            raise CardDefinitionError(f'{here} must be an object {{"at": "q,r", "colour": ...}}')
        for key in cell:
            if key not in ("at", "colour"):
                raise CardDefinitionError(f"{here}: unknown field {key!r} (valid: at, colour)")
        for key in ("at", "colour"):
            if key not in cell:
                raise CardDefinitionError(f"{here}: {key} is missing")
        text = cell.get("at")
        match = re.fullmatch(r"\s*(-?\d+)\s*,\s*(-?\d+)\s*", text) if isinstance(
            text, str) else None
        if match is None:
            raise CardDefinitionError(f"{here}.at must be axial coordinates \"q,r\" (e.g. "
                                      f"\"1,0\"), not {text!r}")
        q, r = int(match[1]), int(match[2])
        if (q, r) in places:
            raise CardDefinitionError(f"{here}.at: {q},{r} is also cells[{places[(q, r)]}]")
        places[(q, r)] = j
        per_colour[_colour(cell.get("colour"), f"{here}.colour")] += 1
    # Connected: every cell reached from the first through neighbours.
    start = next(iter(places))
    reached = {start}
    todo = [start]
    while todo:
        q, r = todo.pop()
        for dq, dr in DIRECTIONS:
            nxt = (q + dq, r + dr)
            if nxt in places and nxt not in reached:
                reached.add(nxt)
                todo.append(nxt)
    if len(reached) != len(places):
        apart = sorted(places[p] for p in places if p not in reached)
        raise CardDefinitionError(f"{at}.cells: the pattern is not connected (cells "
                                  f"{', '.join(map(str, apart))} touch no path from cells[0])")
    for colour, need in enumerate(per_colour):
        have = _plots_of(colour)
        if need > have:
            raise CardDefinitionError(f"{at}.cells: {need} {COLOURS[colour]} cells, and the "
                                      f"game has {have} {COLOURS[colour]} plots: no board "
                                      "could hold it")
    need = plots_to_hold(list(places))
    if need > PLOTS:
        raise CardDefinitionError(f"{at}.cells: a board holding this pattern needs at least "
                                  f"{need} plots (each plot goes next to the pond or two tiles, "
                                  f"R5.2), and the game has {PLOTS}: no board could hold it")


def plots_to_hold(places: list[tuple[int, int]]) -> int:
    """At least how many plots a board needs to hold a pattern (the placement rule's bound).

    Every plot goes next to the pond or next to two tiles in play (R5.2), so a board of ``n``
    plots and the pond has at least ``2n - 6`` neighbouring pairs (two per plot, one for the
    at most six that touch the pond), hence at most ``6(n + 1) - 2(2n - 6) = 2n + 18`` cell
    sides on its boundary.  The board is connected, so each line of cells (in each of the
    three directions) that meets it adds at least two boundary sides, and the lines meeting
    it are at least those meeting the pattern: ``2 * lines <= 2n + 18``.  A long thin pattern
    thus needs many more plots than its cells (a straight line of 18 needs at least 28); a
    compact one, no more than its cells.  A lower bound: a pattern within it may still need
    more (supports cost tiles), so it refuses only what no board could hold.
    """
    lines = 0
    for axis in (lambda q, r: q, lambda q, r: r, lambda q, r: -q - r):
        values = [axis(q, r) for q, r in places]
        lines += max(values) - min(values) + 1
    return max(len(places), lines - 9)


def cells(entry: Mapping[str, Any]) -> list[tuple[int, int, int]]:
    """A checked plot entry's cells as ``(q, r, colour index)``, in the file's order."""
    out = []
    for cell in entry["cells"]:
        q, r = (int(x) for x in cell["at"].split(","))
        out.append((q, r, COLOURS.index(cell["colour"])))
    return out


def rotations(entry: Mapping[str, Any]) -> tuple[tuple[tuple[int, int, int], ...], ...]:
    """The placements a checked plot entry counts, by the very function that counts the
    printed cards' (``components._rotations``: the distinct rotations, never a mirror image,
    each anchored at its first cell), so an added pattern is met exactly where a printed one
    of the same cells would be."""
    return _rotations(cells(entry))


def _check_gardener(entry: Mapping[str, Any], at: str) -> None:
    colour = _colour(entry["colour"], f"{at}.colour")
    shoots = _whole(entry["shoots"], f"{at}.shoots", 1)
    height = _whole(entry["height"], f"{at}.height", 1, 4)
    improvement = entry["improvement"]
    if improvement not in GARDENER_IMPROVEMENTS:
        raise CardDefinitionError(f"{at}.improvement: {improvement!r} is not an improvement "
                                  f"({', '.join(GARDENER_IMPROVEMENTS)})")
    code = None if improvement == "any" else IMPROVEMENTS.index(improvement)
    plots = _plots_of(colour, code)
    if shoots > plots:
        kind = ("" if code is None else "without an improvement " if code == 0
                else f"with {improvement} ")
        raise CardDefinitionError(f"{at}.shoots: {shoots} {COLOURS[colour]} shoots {kind}"
                                  f"need as many {COLOURS[colour]} plots, and the game has "
                                  f"{plots}")
    sections = BAMBOO_SECTIONS[colour]
    if shoots * height > sections:
        raise CardDefinitionError(f"{at}: {shoots} shoots of height {height} need "
                                  f"{shoots * height} {COLOURS[colour]} sections, and the game "
                                  f"has {sections}")


def _check_panda(entry: Mapping[str, Any], at: str) -> None:
    eat = entry["eat"]
    if not isinstance(eat, dict):
        raise CardDefinitionError(f'{at}.eat must be an object of colours to counts, e.g. '
                                  f'{{"green": 3}}')
    total = 0
    for colour, count in eat.items():
        c = _colour(colour, f"{at}.eat")
        n = _whole(count, f"{at}.eat.{colour}", 0)
        if n > BAMBOO_SECTIONS[c]:
            raise CardDefinitionError(f"{at}.eat.{colour}: {n} sections, and the game has "
                                      f"{BAMBOO_SECTIONS[c]}")
        total += n
    if total == 0:
        raise CardDefinitionError(f"{at}.eat: the card asks for nothing (give at least one "
                                  "section to eat)")


__all__ = ["FIELDS", "CardDefinitionError", "cells", "check", "plots_to_hold", "rotations"]
