"""The board drawn in a terminal: a hex map with colours, bamboo, improvements, channels.

Tiles are laid out in doubled-width coordinates (``x = 2q + r``, ``y = r``) so that hexes of
one row sit side by side and the next row is offset by half a tile, like the real board.
Every tile is a five-character label; the characters between labels show the channels
(``|`` between tiles of a row, ``/`` and ``\\`` between rows).  Colours are ANSI escapes and
can be turned off; the letters alone carry all the information, so a log file or a
colour-blind reader loses nothing.
"""

from __future__ import annotations

from arena.engine import Board, GameState, PlayerView, grid
from arena.engine.components import CATEGORIES, COLOURS, FACES, IMPROVEMENTS, POND_TILE

CELL_WIDTH = 4  # text columns per unit of x
_ANSI = {"green": "32", "yellow": "33", "pink": "35", "blue": "34;1", "dim": "2", "bold": "1"}
_IMPROVEMENT_LETTER = {0: " ", 1: "w", 2: "e", 3: "f"}


def _paint(text: str, style: str, color: bool) -> str:
    if not color or not style:
        return text
    codes = ";".join(_ANSI[s] for s in style.split("+"))
    return f"\x1b[{codes}m{text}\x1b[0m"


def _label(board: Board, cell: int) -> tuple[str, str]:
    """Five characters for a tile and the style to paint them with."""
    figures = ("G" if board.gardener == cell else "") + ("P" if board.panda == cell else "")
    mark = {"": " ", "G": "G", "P": "P", "GP": "*"}[figures]
    code = board.tiles.get(cell)
    if code is None:
        return "  ·  ", "dim"
    if code == POND_TILE:
        return f" ≈{mark}≈ ", "blue"
    colour = COLOURS[code >> 2]
    irrigated = cell in board.irrigated
    letter = colour[0].upper() if irrigated else colour[0]
    imp = _IMPROVEMENT_LETTER[board.improvement.get(cell, 0)]
    text = f"{letter}{board.bamboo.get(cell, 0)}{imp}{mark}"
    return text.ljust(5), colour + ("+bold" if irrigated else "")


def render_board(board: Board, *, color: bool = True, coords: bool = False) -> str:
    """The hex map of a state or a view, with the open spaces around it.

    ``coords``: under each plot and open space its ``q,r`` (docs/notation.md), dimmed, so a
    person choosing ``place 0 2,-1`` among 36 places can find it (the human seat).  The rows
    are then three lines apart instead of two."""
    pitch = 3 if coords else 2
    cells = set(board.tiles) | set(board.placement_spaces())
    axial = {c: grid.coords_of(c) for c in cells}
    xs = {c: 2 * q + r for c, (q, r) in axial.items()}
    ys = {c: r for c, (q, r) in axial.items()}
    x0, x1 = min(xs.values()) - 1, max(xs.values()) + 1
    y0, y1 = min(ys.values()), max(ys.values())
    width = (x1 - x0 + 1) * CELL_WIDTH + 4
    lines: list[list[str]] = [[" "] * width for _ in range(pitch * (y1 - y0) + 1 + coords)]

    def put(row: int, col: int, text: str, style: str) -> None:
        lines[row][col] = _paint(text, style, color)
        for k in range(1, len(text)):
            lines[row][col + k] = ""

    for cell in cells:
        text, style = _label(board, cell)
        put(pitch * (ys[cell] - y0), (xs[cell] - x0) * CELL_WIDTH, text, style)
        if coords:
            put(pitch * (ys[cell] - y0) + 1, (xs[cell] - x0) * CELL_WIDTH,
                grid.cell_text(cell).center(5), "dim")
    for edge in board.channels:
        a, b = grid.EDGE_CELLS[edge]
        (qa, ra), (qb, rb) = grid.coords_of(a), grid.coords_of(b)
        if ra > rb:
            (qa, ra), (qb, rb) = (qb, rb), (qa, ra)
        xa, xb = 2 * qa + ra, 2 * qb + rb
        if ra == rb:  # same row: the edge stands between the two labels
            row, col, mark = pitch * (ra - y0), (min(xa, xb) - x0) * CELL_WIDTH + 6, "|"
        else:
            row = pitch * (ra - y0) + pitch - 1
            col = (min(xa, xb) - x0) * CELL_WIDTH + 4
            mark = "/" if xb > xa else "\\"
        put(row, col, mark, "blue")
    return "\n".join("".join(line).rstrip() for line in lines)


LEGEND = (
    "G3w* = green plot, upper case if irrigated, 3 bamboo, watershed (w) / enclosure (e) / "
    "fertilizer (f), gardener (G) / panda (P) / both (*) there; ≈ pond; · open space; "
    "| / \\ channels"
)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def render_state(
    state: GameState, names: list[str] | None = None, *, color: bool = True, legend: bool = True
) -> str:
    """The board, then one line per seat: score, stock, hand, completed objectives."""
    out = [render_board(state, color=color)]
    if legend:
        out.append(LEGEND)
    weather = FACES[state.weather] if state.weather >= 0 else "-"
    turn = (
        "game over" if state.ended
        else f"seat {state.current} to play, step {state.step_name}, weather {weather}"
    )
    out.append(
        f"round {state.round}, {turn}; reserve: {_count(state.reserve_channels, 'channel')}, "
        + ", ".join(
            f"{state.reserve_improvements[i]} {IMPROVEMENTS[i]}" for i in (1, 2, 3)
        )
        + f"; deck: {_count(len(state.plot_deck), 'plot')}"
    )
    scores = state.scores()
    for seat in range(state.players):
        name = names[seat] if names else f"seat {seat}"
        eaten = "/".join(str(n) for n in state.eaten[seat])
        stored = state.stored_improvements[seat]
        extras = [_count(state.stored_channels[seat], "channel")] + [
            f"{stored[i]} {IMPROVEMENTS[i]}" for i in (1, 2, 3) if stored[i]
        ]
        crown = " (Emperor)" if state.emperor == seat else ""
        out.append(
            f"  {seat} {name}: {scores[seat]} pts{crown}; eaten g/y/p {eaten}; "
            f"stock {', '.join(extras)}; hand "
            + (" ".join(state.card_set.cards[c].id for c in state.hands[seat]) or "-")
            + "; done "
            + (" ".join(state.card_set.cards[c].id for c in state.completed[seat]) or "-")
        )
    return "\n".join(out)


def render_view(view: PlayerView, names: list[str] | None = None, *, color: bool = True,
                legend: bool = True, coords: bool = False) -> str:
    """What one seat may see, as ``render_state`` draws the whole truth: the board, the turn,
    each seat's score and stock, this seat's hand, the others' hands by category only."""
    out = [render_board(view, color=color, coords=coords)]
    if legend:
        out.append(LEGEND + ("; the q,r under each is its place (docs/notation.md)"
                             if coords else ""))
    weather = FACES[view.weather] if view.weather >= 0 else "-"
    turn = ("game over" if view.ended
            else f"seat {view.current} to play, step {view.step_name}, weather {weather}")
    out.append(f"round {view.round}, {turn}; reserve: "
               f"{_count(view.reserve_channels, 'channel')}, "
               + ", ".join(f"{view.reserve_improvements[i]} {IMPROVEMENTS[i]}" for i in (1, 2, 3))
               + f"; deck: {_count(view.plot_deck_size, 'plot')}")
    scores = view.scores()
    for seat in range(view.players):
        name = names[seat] if names else f"seat {seat}"
        stored = view.stored_improvements[seat]
        extras = [_count(view.stored_channels[seat], "channel")] + [
            f"{stored[i]} {IMPROVEMENTS[i]}" for i in (1, 2, 3) if stored[i]]
        if seat == view.seat:
            hand = " ".join(view.card_set.cards[c].id for c in view.hand) or "-"
        else:
            hand = " ".join(f"{CATEGORIES[k]}?" for k in view.hand_categories[seat]) or "-"
        crown = " (Emperor)" if view.emperor == seat else ""
        you = " (you)" if seat == view.seat else ""
        eaten = "/".join(str(n) for n in view.eaten[seat])
        out.append(f"  {seat} {name}{you}: {scores[seat]} pts{crown}; eaten g/y/p {eaten}; "
                   f"stock {', '.join(extras)}; hand {hand}; done "
                   + (" ".join(view.card_set.cards[c].id for c in view.completed[seat]) or "-"))
    return "\n".join(out)
