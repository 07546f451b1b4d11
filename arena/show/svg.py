"""The board drawn as SVG: one renderer for ``arena show``, ``arena play --frames`` and the
replay page.

A picture is built from a ``Board`` (a ``GameState``, the whole truth, or a ``PlayerView``,
what one seat may know), so the same code draws an omniscient replay and what a seat saw.
Pointy-top hexes sit at ``x = S·√3·(q + r/2)``, ``y = S·1.5·r``, the layout of the terminal
board (``board_text``) with rows of equal ``r``; a channel is drawn on the edge two plots
share, the segment of length ``S`` through the midpoint of their centres, at right angles to
the line between them.

Every element that stands for a part of the position carries it as data (``data-cell``,
``data-edge``, ``data-bamboo`` ...), so tests check the picture against the position by
parsing the SVG, and a reader of the file can too.  No dependency: the text is written here.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from html import escape

from arena.engine import (
    CATEGORIES,
    COLOURS,
    FACES,
    IMPROVEMENTS,
    STATE_TYPES,
    Board,
    grid,
)
from arena.engine.components import POND_TILE

#: Hex radius (centre to corner) in SVG units.
SIZE = 34.0
_ROOT3 = math.sqrt(3.0)

#: Plot fills by colour, irrigated (full) and dry (pale), and the bamboo's darker shade.
FILL = {"green": "#7cb342", "yellow": "#f2c12e", "pink": "#ef8fb4"}
DRY = {"green": "#cfe3b8", "yellow": "#f7e6ad", "pink": "#f7d3e1"}
BAMBOO = {"green": "#2e6b1f", "yellow": "#a67c00", "pink": "#b0306a"}
WATER = "#2f80d1"
POND = "#7fc4ee"
#: Improvement badges: letter and colour.
BADGE = {"watershed": ("W", "#1565c0"), "enclosure": ("E", "#6d4c2f"),
         "fertilizer": ("F", "#7b3fa0")}
#: Seat colours: none near a plot colour (green, yellow, pink) in hue, so a seat's marks
#: are never read as a plot's (seat 2 was the green of green plots).
SEAT_COLOURS = ("#d84315", "#1e88e5", "#455a64", "#8e24aa")

STYLE = (
    "text{font-family:'DejaVu Sans',Verdana,Arial,sans-serif}"
    ".coord{font-size:7.5px;fill:#444}"
    ".space{fill:none;stroke:#b9b2a0;stroke-width:1;stroke-dasharray:3 3}"
    ".hex{stroke:#6f6a5c;stroke-width:1.2}"
    ".channel{stroke:" + WATER + ";stroke-width:6;stroke-linecap:round}"
    ".badge-text{font-size:10px;font-weight:bold;fill:#fff}"
    ".fig-text{font-size:10px;font-weight:bold}"
    ".panel-title{font-size:14px;font-weight:bold}"
    ".panel{font-size:12px;fill:#222}"
    ".small{font-size:11px;fill:#444}"
)


def axial_centre(q: float, r: float, size: float = SIZE) -> tuple[float, float]:
    """The centre of the hex at axial ``(q, r)`` for hexes of radius ``size``: the one
    layout of the board and of the cards' patterns (``card_svg``)."""
    return size * _ROOT3 * (q + r / 2), size * 1.5 * r


def hex_corners(x: float, y: float, size: float) -> list[tuple[float, float]]:
    """The six corners of a pointy-top hex centred at ``(x, y)``, clockwise from the upper
    right."""
    return [(x + size * math.cos(math.radians(60 * i - 30)),
             y + size * math.sin(math.radians(60 * i - 30))) for i in range(6)]


def centre(cell: int) -> tuple[float, float]:
    """The centre of a cell's hex in SVG units (the pond at the origin)."""
    return axial_centre(*grid.coords_of(cell))


def corners(cell: int, size: float = SIZE) -> list[tuple[float, float]]:
    """The six corners of a cell's hex (pointy top), clockwise from the upper right."""
    return hex_corners(*centre(cell), size)


def edge_segment(edge: int) -> tuple[tuple[float, float], tuple[float, float]]:
    """The two ends of the hex edge that two adjacent cells share."""
    a, b = grid.EDGE_CELLS[edge]
    (xa, ya), (xb, yb) = centre(a), centre(b)
    mx, my = (xa + xb) / 2, (ya + yb) / 2
    dx, dy = xb - xa, yb - ya
    length = math.hypot(dx, dy)
    # perpendicular unit vector, times half an edge (an edge is as long as the radius)
    px, py = -dy / length * SIZE / 2, dx / length * SIZE / 2
    return (mx - px, my - py), (mx + px, my + py)


def points_text(points: Iterable[tuple[float, float]]) -> str:
    """A polygon's ``points`` attribute."""
    return " ".join(f"{x:.1f},{y:.1f}" for x, y in points)


def _num(value: float) -> str:
    return f"{value:.1f}"


def frame_cells(boards: Iterable[Board]) -> set[int]:
    """Every cell a picture of these boards must hold: plots, pond and open spaces."""
    cells: set[int] = set()
    for board in boards:
        cells.update(board.tiles)
        cells.update(board.placement_spaces())
    return cells


def view_box(cells: Iterable[int], margin: float = 8.0) -> tuple[float, float, float, float]:
    """``(x, y, width, height)`` around the hexes of these cells."""
    xs, ys = [], []
    for cell in cells:
        for x, y in corners(cell):
            xs.append(x)
            ys.append(y)
    if not xs:
        xs, ys = [-SIZE, SIZE], [-SIZE, SIZE]
    x0, y0 = min(xs) - margin, min(ys) - margin
    return x0, y0, max(xs) - x0 + margin, max(ys) - y0 + margin


# ---------------------------------------------------------------------------- the garden


def badge(x: float, y: float, improvement: str, printed: bool, scale: float = 1.0) -> str:
    """An improvement's letter on its colour: a square when printed on the tile, a round
    token otherwise; ``scale`` times the board's size."""
    letter, colour = BADGE[improvement]
    half = 7 * scale
    shape = (f'<rect x="{_num(x - half)}" y="{_num(y - half)}" width="{_num(2 * half)}" '
             f'height="{_num(2 * half)}" rx="2" fill="{colour}"/>' if printed else
             f'<circle cx="{_num(x)}" cy="{_num(y)}" r="{_num(7.5 * scale)}" fill="{colour}" '
             'stroke="#fff" stroke-width="1"/>')
    size = "" if scale == 1.0 else f' font-size="{_num(10 * scale)}"'
    return (f'{shape}<text class="badge-text" x="{_num(x)}" y="{_num(y + 3.6 * scale)}" '
            f'text-anchor="middle"{size}>{letter}</text>')


def bamboo(x: float, y: float, height: int, colour: str, scale: float = 1.0) -> str:
    """``height`` sections stacked upwards from ``y`` (the base), ``scale`` times the
    board's size (a card's stalks are smaller)."""
    out = []
    for i in range(height):
        top = y - (i + 1) * 8.5 * scale
        out.append(f'<rect class="section" x="{_num(x - 5 * scale)}" y="{_num(top)}" '
                   f'width="{_num(10 * scale)}" height="{_num(7.5 * scale)}" rx="1.5" '
                   f'fill="{BAMBOO[colour]}" stroke="#fff" stroke-width="0.6"/>')
    return "".join(out)


def _droplet(x: float, y: float) -> str:
    return (f'<path d="M{_num(x)},{_num(y - 6)} C{_num(x + 5)},{_num(y + 1)} '
            f'{_num(x + 4)},{_num(y + 5)} {_num(x)},{_num(y + 5)} C{_num(x - 4)},{_num(y + 5)} '
            f'{_num(x - 5)},{_num(y + 1)} {_num(x)},{_num(y - 6)} Z" fill="{WATER}"/>')


def _figure(x: float, y: float, name: str, cell: int) -> str:
    """The gardener (a brown round with G) or the panda (white with black ears and P)."""
    where = grid.cell_text(cell)
    if name == "gardener":
        body = (f'<circle cx="{_num(x)}" cy="{_num(y)}" r="8" fill="#8d5a2b" stroke="#3e2410" '
                f'stroke-width="1.2"/><text class="fig-text" x="{_num(x)}" y="{_num(y + 3.5)}" '
                'text-anchor="middle" fill="#fff">G</text>')
    else:
        body = (f'<circle cx="{_num(x - 6)}" cy="{_num(y - 6)}" r="3.2" fill="#111"/>'
                f'<circle cx="{_num(x + 6)}" cy="{_num(y - 6)}" r="3.2" fill="#111"/>'
                f'<circle cx="{_num(x)}" cy="{_num(y)}" r="8" fill="#fff" stroke="#111" '
                f'stroke-width="1.4"/><text class="fig-text" x="{_num(x)}" y="{_num(y + 3.5)}" '
                'text-anchor="middle" fill="#111">P</text>')
    return (f'<g class="figure" data-figure="{name}" data-cell="{where}" '
            f'data-x="{_num(x)}" data-y="{_num(y)}">{body}</g>')


def garden(board: Board) -> list[str]:
    """The SVG elements of the garden: open spaces, pond, plots, channels, figures."""
    out: list[str] = []
    for cell in board.placement_spaces():
        out.append(f'<polygon class="space" data-cell="{grid.cell_text(cell)}" '
                   f'points="{points_text(corners(cell, SIZE - 2))}"/>')
    for cell in board.tiles:
        out.append(_plot(board, cell))
    for edge in sorted(board.channels):
        (x1, y1), (x2, y2) = edge_segment(edge)
        out.append(f'<line class="channel" data-edge="{grid.edge_text(edge)}" '
                   f'x1="{_num(x1)}" y1="{_num(y1)}" x2="{_num(x2)}" y2="{_num(y2)}"/>')
    # Fixed places in the hex, so the two never hide each other nor the bamboo.
    for name, cell, dx in (("gardener", board.gardener, 15), ("panda", board.panda, -15)):
        x, y = centre(cell)
        out.append(_figure(x + dx, y + 8, name, cell))
    return out


def _plot(board: Board, cell: int) -> str:
    code = board.tiles[cell]
    x, y = centre(cell)
    where = grid.cell_text(cell)
    points = points_text(corners(cell))
    if code == POND_TILE:
        waves = "".join(
            f'<path d="M{_num(x - 13)},{_num(y + dy)} q6.5,-5 13,0 t13,0" fill="none" '
            'stroke="#fff" stroke-width="2"/>' for dy in (-6, 2))
        return (f'<g class="pond" data-cell="{where}"><polygon class="hex" fill="{POND}" '
                f'points="{points}"/>{waves}</g>')
    colour = COLOURS[code >> 2]
    irrigated = cell in board.irrigated
    height = board.bamboo.get(cell, 0)
    improvement = board.improvement.get(cell, 0)
    printed = code & 3
    name = IMPROVEMENTS[improvement] if improvement else ""
    parts = [f'<polygon class="hex" fill="{(FILL if irrigated else DRY)[colour]}" '
             f'points="{points}"/>']
    if printed:
        # the printed improvement, drawn on the tile itself: a frame inside the hex
        parts.append(f'<polygon fill="none" stroke="{BADGE[IMPROVEMENTS[printed]][1]}" '
                     f'stroke-width="2" points="{points_text(corners(cell, SIZE - 5))}"/>')
    if irrigated:
        parts.append(_droplet(x + 15, y - 11))
    if improvement:
        parts.append(badge(x - 15, y - 9, name, improvement == printed))
    parts.append(bamboo(x, y + 10, height, colour))
    parts.append(f'<text class="coord" x="{_num(x)}" y="{_num(y + SIZE - 10)}" '
                 f'text-anchor="middle">{where}</text>')
    return (f'<g class="plot" data-cell="{where}" data-colour="{colour}" '
            f'data-bamboo="{height}" data-improvement="{name}" '
            f'data-irrigated="{str(irrigated).lower()}">{"".join(parts)}</g>')


def garden_svg(board: Board, *, box: tuple[float, float, float, float] | None = None) -> str:
    """The garden alone, as an SVG document (the replay page's board); ``box`` is the
    extent to show (a replay gives every step the same one)."""
    x, y, w, h = box or view_box(frame_cells([board]))
    return (f'<svg xmlns="http://www.w3.org/2000/svg" class="garden" '
            f'viewBox="{_num(x)} {_num(y)} {_num(w)} {_num(h)}"><style>{STYLE}</style>'
            + "".join(garden(board)) + "</svg>")


# ---------------------------------------------------------------------------- the table


@dataclass(frozen=True)
class SeatInfo:
    """What the picture says of one seat: points, stock, objectives (hidden ones by
    category)."""

    seat: int
    name: str
    score: int
    emperor: bool
    eaten: tuple[int, int, int]
    channels: int
    improvements: tuple[int, int, int]
    hand: tuple[str, ...]
    completed: tuple[str, ...]


def seat_infos(board: Board, names: Sequence[str] | None = None) -> list[SeatInfo]:
    """Per seat, what the board shows of it; a hand the board does not know (a view of
    another seat) is its cards' categories, ``plot ?``."""
    scores = board.scores()
    out = []
    for seat in range(board.players):
        if isinstance(board, STATE_TYPES):
            hand = tuple(board.card_set.cards[c].id for c in board.hands[seat])
        elif getattr(board, "seat", None) == seat:
            hand = tuple(board.card_set.cards[c].id for c in board.hand)  # type: ignore[attr-defined]
        else:
            hand = tuple(f"{CATEGORIES[k]} ?"
                         for k in board.hand_categories[seat])  # type: ignore[attr-defined]
        stored = board.stored_improvements[seat]
        out.append(SeatInfo(
            seat, names[seat] if names else f"seat {seat}", scores[seat], board.emperor == seat,
            tuple(board.eaten[seat]), board.stored_channels[seat],  # type: ignore[arg-type]
            (stored[1], stored[2], stored[3]), hand,
            tuple(board.card_set.cards[c].id for c in board.completed[seat])))
    return out


def turn_text(board: Board) -> str:
    """``Round 4 · seat 1 to play · step actions · weather rain`` (or the game's end)."""
    if board.ended:
        return f"Round {board.round} · game over"
    weather = FACES[board.weather] if board.weather >= 0 else "none yet"
    return (f"Round {board.round} · seat {board.current} to play · step "
            f"{board.step_name} · weather {weather}")  # type: ignore[attr-defined]


def drawn_text(board: Board) -> str:
    """The plots the player to move is choosing from, when it is (and may be seen)."""
    from arena.engine.components import tile_name

    drawn = board.drawn if board.step_name == "place" else ()  # type: ignore[attr-defined]
    return ", ".join(tile_name(t) for t in drawn)


def reserve_text(board: Board) -> str:
    imps = board.reserve_improvements
    deck = (len(board.plot_deck) if isinstance(board, STATE_TYPES)
            else board.plot_deck_size)  # type: ignore[attr-defined]
    return (f"reserve: {board.reserve_channels} channels, {imps[1]} W, {imps[2]} E, "
            f"{imps[3]} F; {deck} plots in the deck")


def _text(x: float, y: float, text: str, cls: str = "panel", extra: str = "") -> str:
    return f'<text class="{cls}" x="{_num(x)}" y="{_num(y)}"{extra}>{escape(text)}</text>'


def _wrap(items: Sequence[str], width: int) -> list[str]:
    """Items joined by spaces into lines of at most ``width`` characters."""
    lines: list[str] = []
    line = ""
    for item in items:
        if line and len(line) + 1 + len(item) > width:
            lines.append(line)
            line = item
        else:
            line = f"{line} {item}" if line else item
    lines.append(line)
    return lines


def panel(board: Board, names: Sequence[str] | None, x: float, y: float,
          hands: bool = True) -> tuple[list[str], float]:
    """The side table: whose turn, each seat's score, stock and objectives; returns the
    elements and the height used."""
    # the turn in two lines (round and mover; step and weather): one is too wide
    first, _, rest = turn_text(board).partition(" · step ")
    out = [_text(x, y + 14, first, "panel-title")]
    y += 34
    if rest:
        out.append(_text(x, y - 2, f"step {rest}"))
        y += 18
    drawn = drawn_text(board)
    if drawn:
        out.append(_text(x, y, f"choosing a plot from: {drawn}"))
        y += 18
    out.append(_text(x, y, reserve_text(board), "small"))
    y += 24
    for info in seat_infos(board, names):
        colour = SEAT_COLOURS[info.seat]
        mover = not board.ended and board.current == info.seat
        out.append(f'<rect x="{_num(x)}" y="{_num(y - 12)}" width="6" height="16" '
                   f'fill="{colour}"/>')
        crown = "  ♛ Emperor" if info.emperor else ""
        marker = "  ◀ to play" if mover else ""
        out.append(_text(x + 12, y, f"{info.seat} {info.name}: {info.score} pts{crown}{marker}",
                         "panel-title", f' data-seat="{info.seat}" data-score="{info.score}"'))
        y += 18
        imps = info.improvements
        stock = (f"eaten {info.eaten[0]} green, {info.eaten[1]} yellow, {info.eaten[2]} pink;"
                 f" stored {info.channels} channels, {imps[0]} W, {imps[1]} E, {imps[2]} F")
        out.append(_text(x + 12, y, stock, "small"))
        y += 16
        rows = [("hand", info.hand if hands else ("?",) * len(info.hand)),
                ("done", info.completed)]
        for label, cards in rows:
            for i, line in enumerate(_wrap(list(cards) or ["-"], 44)):
                out.append(_text(x + 12, y, f"{label if i == 0 else '':<5} {line}", "small",
                                 ' xml:space="preserve"'))
                y += 15
        y += 10
    return out, y


def legend(x: float, y: float) -> tuple[list[str], float]:
    """What the marks mean, in two rows."""
    out = []
    cx = x
    for colour in COLOURS:
        out.append(f'<rect x="{_num(cx)}" y="{_num(y - 10)}" width="14" height="12" '
                   f'fill="{FILL[colour]}" stroke="#6f6a5c"/>')
        out.append(f'<rect x="{_num(cx + 16)}" y="{_num(y - 10)}" width="14" height="12" '
                   f'fill="{DRY[colour]}" stroke="#6f6a5c"/>')
        out.append(_text(cx + 34, y, colour, "small"))
        cx += 34 + 7 * len(colour) + 14
    out.append(_text(cx, y, "(full: irrigated, pale: dry)", "small"))
    y += 22
    cx = x
    out.append(_droplet(cx + 5, y - 4))
    out.append(_text(cx + 14, y, "irrigated", "small"))
    cx += 76
    out.append(f'<line class="channel" x1="{_num(cx)}" y1="{_num(y - 4)}" '
               f'x2="{_num(cx + 22)}" y2="{_num(y - 4)}"/>')
    out.append(_text(cx + 28, y, "channel", "small"))
    cx += 84
    out.append(bamboo(cx + 5, y + 4, 2, "green"))
    out.append(_text(cx + 14, y, "bamboo", "small"))
    cx += 70
    for name in ("watershed", "enclosure", "fertilizer"):
        out.append(badge(cx + 7, y - 4, name, False))
        out.append(_text(cx + 18, y, name, "small"))
        cx += 26 + 7 * len(name)
    y += 22
    cx = x
    out.append(badge(cx + 7, y - 4, "watershed", True))
    out.append(_text(cx + 18, y, "printed on the tile (framed)", "small"))
    cx += 200
    out.append(_figure(cx + 8, y - 4, "gardener", grid.POND).replace('class="figure"',
                                                                       'class="key"'))
    out.append(_text(cx + 20, y, "gardener", "small"))
    cx += 82
    out.append(_figure(cx + 8, y - 4, "panda", grid.POND).replace('class="figure"',
                                                                    'class="key"'))
    out.append(_text(cx + 20, y, "panda", "small"))
    cx += 66
    out.append(f'<polygon class="space key" points="{_num(cx)},{_num(y - 12)} {_num(cx + 14)},'
               f'{_num(y - 12)} {_num(cx + 14)},{_num(y + 2)} {_num(cx)},{_num(y + 2)}"/>')
    out.append(_text(cx + 20, y, "open space", "small"))
    return out, y + 10


def legend_svg() -> str:
    """The legend alone, as an SVG document (under the replay page's board)."""
    keys, bottom = legend(6, 18)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" class="legend" viewBox="0 0 760 '
            f'{bottom + 4:.0f}"><style>{STYLE}</style>' + "".join(keys) + "</svg>")


def board_svg(board: Board, names: Sequence[str] | None = None, *,
              title: str | None = None, hands: bool = True, scale: float = 1.4) -> str:
    """The whole picture of a position: the garden, the side table and a legend.

    ``hands=False`` hides the objectives in hand (their number stays); a ``PlayerView``
    shows its own seat's and the others' categories only, whatever ``hands`` says.
    ``scale``: the picture's size in pixels per unit (the drawing itself is vector).
    """
    cells = frame_cells([board])
    gx, gy, gw, gh = view_box(cells)
    panel_x = gx + gw + 20
    panel_w = 440
    top = gy + (26 if title else 0)
    table, panel_bottom = panel(board, names, panel_x, top, hands)
    width = gw + 20 + panel_w
    shift = 26 if title else 0
    keys, legend_bottom = legend(gx + 6, max(gy + gh + shift, panel_bottom) + 18)
    width = max(width, 760)
    height = legend_bottom - gy + 6
    head = (_text(gx + 6, gy + 16, title, "panel-title") if title else "")
    return (
        # As wide as its container (a page, a browser window), never wider than its natural
        # size; that size is kept as data for a renderer that needs pixels (``browser``).
        f'<svg xmlns="http://www.w3.org/2000/svg" class="board" width="100%" '
        f'style="max-width:{width * scale:.0f}px;height:auto" '
        f'data-width="{width * scale:.0f}" data-height="{height * scale:.0f}" '
        f'viewBox="{_num(gx)} {_num(gy)} {_num(width)} {_num(height)}">'
        f'<style>{STYLE}</style><rect x="{_num(gx)}" y="{_num(gy)}" width="{_num(width)}" '
        f'height="{_num(height)}" fill="#fbf8ef"/>{head}'
        f'<g transform="translate(0,{shift})">{"".join(garden(board))}</g>'
        + "".join(table) + "".join(keys) + "</svg>\n"
    )
