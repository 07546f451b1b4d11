"""Objective cards drawn as SVG: one picture per card, and a sheet of a whole card set.

A card is drawn from its catalog entry (``components.json``'s fields, or a card set's added
entry with the same fields), its category and its points in the set, never from an engine
index, so a card a designer adds draws exactly as a printed one does.  What it asks is drawn
as on the printed cards, in the board's marks (``arena.show.svg``): a plot card's pattern as hexes
in the board's layout and colours, a gardener card's shoots as plots with their bamboo
stalks and the improvement they need, a panda card's bamboo sections to eat; its words
(``cards.asks``) run under the picture.

Every card carries what it stands for as data (``data-card``, ``data-category``,
``data-points``, ``data-printed``, ``data-status``; a pattern cell's ``data-at`` and
``data-colour``), so a test or a reader checks the picture against the catalog by parsing it.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterable, Mapping, Sequence
from html import escape
from typing import Any

from arena.engine import CATEGORIES
from arena.engine.card_files import PRINTED, asks
from arena.show.svg import (
    BADGE,
    BAMBOO,
    FILL,
    STYLE,
    axial_centre,
    badge,
    bamboo,
    hex_corners,
    points_text,
)

#: A card's size in SVG units (the sheet's pixels at scale 1).
WIDTH, HEIGHT = 150.0, 200.0
#: The area the picture of the condition fills, below the header and above the words.
BODY = (8.0, 52.0, 134.0, 100.0)
#: Each category's colour: the header band and the frame (the replay page's chips too).
CATEGORY_COLOURS = {"plot": "#b7791f", "gardener": "#2e6b1f", "panda": "#4a4a4a"}
#: The mark of a price that is not the printed one, and of a card not in the catalog.
CHANGED = "#c62828"
ADDED = "#1565c0"
#: Cards per row on the sheet.
COLUMNS = 6
GAP = 12.0

CARD_STYLE = (
    ".card-id{font-size:12.5px;font-weight:bold;fill:#fff}"
    ".card-points{font-size:15px;font-weight:bold;text-anchor:middle}"
    ".card-words{font-size:10px;fill:#333}"
    ".card-tag{font-size:9.5px;font-weight:bold;fill:#fff}"
    ".card-note{font-size:10px}"
    ".cell{stroke:#6f6a5c;stroke-width:1.2}"
    ".sheet-title{font-size:18px;font-weight:bold}"
    ".sheet-head{font-size:15px;font-weight:bold;fill:#2f4a2a}"
    ".sheet-note{font-size:12px;fill:#444}"
)

Entry = Mapping[str, Any]


def _n(value: float) -> str:
    return f"{value:.1f}"


def status(entry: Entry, points: int | None) -> str:
    """``printed``, ``changed`` (its points are not the printed card's), ``added`` (its id
    is not in the printed catalog) or ``removed`` (out of its deck: ``points`` is None)."""
    if points is None:
        return "removed"
    printed = PRINTED.get(entry["id"])
    if printed is None:
        return "added"
    return "printed" if printed[1]["points"] == points else "changed"


def _axial(text: str) -> tuple[int, int]:
    q, r = text.split(",")
    return int(q), int(r)


def _fit(cells: Sequence[tuple[int, int]], box: tuple[float, float, float, float],
         largest: float) -> tuple[float, list[tuple[float, float]]]:
    """The hex radius and the centres that fit hexes at these axial cells in ``box``,
    centred, no larger than ``largest``."""
    xs: list[float] = []
    ys: list[float] = []
    for q, r in cells:
        for x, y in hex_corners(*axial_centre(q, r, 1.0), 1.0):
            xs.append(x)
            ys.append(y)
    bx, by, bw, bh = box
    size = min(largest, bw / (max(xs) - min(xs)), bh / (max(ys) - min(ys)))
    dx = bx + bw / 2 - size * (max(xs) + min(xs)) / 2
    dy = by + bh / 2 - size * (max(ys) + min(ys)) / 2
    return size, [(dx + x, dy + y) for x, y in (axial_centre(q, r, size) for q, r in cells)]


def _improvement_mark(x: float, y: float, improvement: str, scale: float) -> str:
    """A condition's improvement on a drawn plot: its badge, a struck circle for ``none``,
    nothing for ``any``."""
    if improvement in BADGE:
        return badge(x, y, improvement, False, scale)
    if improvement == "none":
        r = 7.5 * scale
        return (f'<g class="no-improvement"><circle cx="{_n(x)}" cy="{_n(y)}" r="{_n(r)}" '
                'fill="#fff" stroke="#777" stroke-width="1.4"/>'
                f'<line x1="{_n(x - r * 0.7)}" y1="{_n(y + r * 0.7)}" x2="{_n(x + r * 0.7)}" '
                f'y2="{_n(y - r * 0.7)}" stroke="#777" stroke-width="1.4"/></g>')
    return ""


def _cell(x: float, y: float, size: float, colour: str, attrs: str) -> str:
    return (f'<polygon class="cell" {attrs} data-colour="{escape(colour)}" '
            f'fill="{FILL[colour]}" points="{points_text(hex_corners(x, y, size - 1))}"/>')


def plot_body(entry: Entry) -> list[str]:
    """The pattern: each cell a hex in its colour, where the entry puts it, with the
    improvement a cell asks for (an added card's optional ``improvement``)."""
    cells = entry["cells"]
    size, centres = _fit([_axial(c["at"]) for c in cells], BODY, 26.0)
    out = []
    for cell, (x, y) in zip(cells, centres):
        improvement = cell.get("improvement", "any")
        out.append(_cell(x, y, size, cell["colour"],
                         f'data-at="{escape(cell["at"])}" data-improvement="{improvement}"'))
        out.append(_improvement_mark(x, y, improvement, min(1.0, size / 24)))
    return out


def gardener_body(entry: Entry) -> list[str]:
    """The shoots: as many plots of the colour as the card asks, each with a bamboo of the
    height asked, in rows of four, and the improvement each must (or must not) have."""
    shoots, height, colour = entry["shoots"], entry["height"], entry["colour"]
    improvement = entry.get("improvement", "any")
    cells = [(i % 4 - (i // 4) // 2, i // 4) for i in range(shoots)]
    size, centres = _fit(cells, BODY, 42.0)
    scale = size / 34
    out = []
    for x, y in centres:
        out.append(f'<g class="shoot" data-height="{height}" data-improvement="{improvement}">'
                   + _cell(x, y, size, colour, "")
                   + bamboo(x + 6 * scale, y + 18 * scale, height, colour, scale)
                   + _improvement_mark(x - 14 * scale, y - 6 * scale, improvement, scale)
                   + "</g>")
    return out


def panda_body(entry: Entry) -> list[str]:
    """The sections to eat: a column per colour, one section per bamboo to eat."""
    wanted = [(colour, n) for colour in FILL if (n := entry["eat"].get(colour, 0))]
    bx, by, bw, bh = BODY
    # the panda's head above the sections it must eat
    hx, hy = bx + bw / 2, by + 12
    out = [f'<g class="panda-head"><circle cx="{_n(hx - 8)}" cy="{_n(hy - 7)}" r="4.5" '
           f'fill="#111"/><circle cx="{_n(hx + 8)}" cy="{_n(hy - 7)}" r="4.5" fill="#111"/>'
           f'<circle cx="{_n(hx)}" cy="{_n(hy)}" r="11" fill="#fff" stroke="#111" '
           f'stroke-width="1.4"/><ellipse cx="{_n(hx - 4.5)}" cy="{_n(hy - 1)}" rx="2.6" '
           f'ry="3.4" fill="#111"/><ellipse cx="{_n(hx + 4.5)}" cy="{_n(hy - 1)}" rx="2.6" '
           f'ry="3.4" fill="#111"/><circle cx="{_n(hx)}" cy="{_n(hy + 5)}" r="1.8" '
           'fill="#111"/></g>']
    by, bh = by + 28, bh - 28
    tallest = max(n for _, n in wanted)
    section = min(18.0, bh / tallest)
    step = bw / len(wanted)
    column = min(36.0, step - 10)
    base = by + bh / 2 + tallest * section / 2
    for i, (colour, count) in enumerate(wanted):
        cx = bx + step * (i + 0.5)
        for k in range(count):
            top = base - (k + 1) * section
            out.append(f'<rect class="eat" data-colour="{colour}" x="{_n(cx - column / 2)}" '
                       f'y="{_n(top + 1.5)}" width="{_n(column)}" height="{_n(section - 3)}" '
                       f'rx="3" fill="{BAMBOO[colour]}" stroke="#fff" stroke-width="0.6"/>')
    return out


BODIES = {"plot": plot_body, "gardener": gardener_body, "panda": panda_body}


def card_elements(category: str, entry: Entry, points: int | None, x: float = 0.0,
                  y: float = 0.0) -> str:
    """One card as an SVG group at ``(x, y)``: its id and points in the header, the
    picture of what it asks, its words, and its marks (``added``, the printed points of a
    re-priced card, ``removed``)."""
    card = entry["id"]
    kind = status(entry, points)
    printed = PRINTED.get(card)
    printed_points = printed[1]["points"] if printed else None
    band = CATEGORY_COLOURS[category]
    out = [f'<rect x="1" y="1" width="{_n(WIDTH - 2)}" height="{_n(HEIGHT - 2)}" rx="8" '
           f'fill="#fffdf6" stroke="{band}" stroke-width="2"/>',
           f'<path d="M1,27 V9 a8,8 0 0 1 8,-8 H{_n(WIDTH - 9)} a8,8 0 0 1 8,8 V27 Z" '
           f'fill="{band}"/>',
           f'<text class="card-id" x="10" y="19">{escape(card)}</text>']
    # the points: a round, red when the set re-priced the card
    colour = CHANGED if kind == "changed" else "#222"
    shown = "–" if points is None else str(points)
    out.append(f'<circle cx="{_n(WIDTH - 20)}" cy="24" r="15" fill="#fff" stroke="{band}" '
               f'stroke-width="2"/><text class="card-points" x="{_n(WIDTH - 20)}" y="29.5" '
               f'fill="{colour}">{shown}</text>')
    if kind == "changed":
        out.append(f'<text class="card-note" x="{_n(WIDTH - 38)}" y="48" text-anchor="end" '
                   f'fill="{CHANGED}">printed {printed_points}</text>')
    if kind == "added":
        out.append(f'<rect x="8" y="34" width="44" height="15" rx="7.5" fill="{ADDED}"/>'
                   '<text class="card-tag" x="30" y="45" text-anchor="middle">added</text>')
    out.extend(BODIES[category](entry))
    lines = textwrap.wrap(asks(category, entry), 26)[:3]
    for i, line in enumerate(lines):
        out.append(f'<text class="card-words" x="{_n(WIDTH / 2)}" '
                   f'y="{_n(HEIGHT - 38 + 12 * i + (3 - len(lines)) * 6)}" '
                   f'text-anchor="middle">{escape(line)}</text>')
    if kind == "removed":
        out.append(f'<rect x="1" y="1" width="{_n(WIDTH - 2)}" height="{_n(HEIGHT - 2)}" '
                   'rx="8" fill="#fff" opacity="0.6"/>'
                   f'<text class="sheet-head" x="{_n(WIDTH / 2)}" y="{_n(HEIGHT / 2)}" '
                   f'text-anchor="middle" fill="#555" transform="rotate(-30 {_n(WIDTH / 2)} '
                   f'{_n(HEIGHT / 2)})">removed</text>')
    attrs = (f'data-card="{escape(card)}" data-category="{category}" '
             f'data-points="{"" if points is None else points}" '
             f'data-printed="{"" if printed_points is None else printed_points}" '
             f'data-status="{kind}"')
    move = f' transform="translate({_n(x)},{_n(y)})"' if x or y else ""
    return f'<g class="card" {attrs}{move}>{"".join(out)}</g>'


def card_svg(category: str, entry: Entry, points: int | None, *, style: bool = True) -> str:
    """One card as an SVG document (``style=False``: for a page that holds the style once,
    :data:`PAGE_STYLE`)."""
    head = f"<style>{STYLE}{CARD_STYLE}</style>" if style else ""
    return (f'<svg xmlns="http://www.w3.org/2000/svg" class="card-svg" '
            f'viewBox="0 0 {WIDTH:.0f} {HEIGHT:.0f}" width="{WIDTH:.0f}" '
            f'height="{HEIGHT:.0f}" role="img" aria-label="{escape(entry["id"])}">'
            f"{head}{card_elements(category, entry, points)}</svg>")


#: The style of the cards, for a page that draws many (``card_svg(..., style=False)``).
PAGE_STYLE = STYLE + CARD_STYLE


def sheet_svg(cards: Iterable[tuple[str, Entry, int | None]], title: str = "Objective cards",
              note: str = "") -> str:
    """Every card of a set, grouped by category, :data:`COLUMNS` to a row, with a line that
    counts the re-priced, added and removed ones.  ``cards`` is ``cards.entries(...)``."""
    listed = list(cards)
    kinds = [status(entry, points) for _, entry, points in listed]
    counts = ", ".join(f"{kinds.count(k)} {k}" for k in ("changed", "added", "removed"))
    width = COLUMNS * (WIDTH + GAP) + GAP
    out = [f'<text class="sheet-title" x="{GAP}" y="28">{escape(title)}</text>',
           f'<text class="sheet-note" x="{GAP}" y="48">{len(listed)} cards: {counts}. '
           f'Red points: re-priced (the printed points under them); '
           f'"added": not a printed card.{escape(" " + note if note else "")}</text>']
    y = 64.0
    for category in CATEGORIES:
        group = [(entry, points) for cat, entry, points in listed if cat == category]
        if not group:
            continue
        out.append(f'<text class="sheet-head" x="{GAP}" y="{_n(y + 18)}">{category} cards '
                   f'({len(group)})</text>')
        y += 28
        for i, (entry, points) in enumerate(group):
            row, col = divmod(i, COLUMNS)
            out.append(card_elements(category, entry, points, GAP + col * (WIDTH + GAP),
                                     y + row * (HEIGHT + GAP)))
        y += -(-len(group) // COLUMNS) * (HEIGHT + GAP) + 6
    height = y + GAP
    return (f'<svg xmlns="http://www.w3.org/2000/svg" class="card-sheet" width="100%" '
            f'style="max-width:{width:.0f}px;height:auto" data-width="{width:.0f}" '
            f'data-height="{height:.0f}" viewBox="0 0 {width:.0f} {height:.0f}">'
            f'<style>{PAGE_STYLE}</style><rect width="{width:.0f}" height="{height:.0f}" '
            f'fill="#f4f1e8"/>{"".join(out)}</svg>\n')
