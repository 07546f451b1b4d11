"""R10.3 in full: every plot card, in each of its six rotations, found where it lies; never
found with a dry plot, a wrong colour, or (two-colour diamonds) as a mirror image."""

from __future__ import annotations

import pytest

from arena.engine import components as comp
from arena.engine import grid
from arena.engine.objectives import plot_pattern_found
from tests.engine.helpers import PLOT_CARDS, hand, legal, load, tile

Cell = tuple[int, int, str]  # q, r, colour
TWO_COLOUR = ["plot-13", "plot-14", "plot-15"]
OTHER = {"green": "yellow", "yellow": "pink", "pink": "green"}


def card_cells(card_id: str) -> list[Cell]:
    """The pattern of a card as printed in components.json."""
    entry = next(e for e in comp.DATA["objectives"]["plot"] if e["id"] == card_id)
    out = []
    for cell in entry["cells"]:
        q, r = (int(x) for x in cell["at"].split(","))
        out.append((q, r, cell["colour"]))
    return out


def rotate(cells: list[Cell], times: int) -> list[Cell]:
    """``times`` rotations by 60°: (q, r) -> (-r, q + r)."""
    for _ in range(times):
        cells = [(-r, q + r, c) for q, r, c in cells]
    return cells


def mirror(cells: list[Cell]) -> list[Cell]:
    """The mirror image (q, r) -> (r, q)."""
    return [(r, q, c) for q, r, c in cells]


def translate(cells: list[Cell], dq: int, dr: int) -> list[Cell]:
    return [(q + dq, r + dr, c) for q, r, c in cells]


def normal(cells: list[Cell]) -> frozenset[Cell]:
    """A placement up to translation."""
    mq, mr = min((q, r) for q, r, _c in cells)
    return frozenset((q - mq, r - mr, c) for q, r, c in cells)


def dist(q: int, r: int) -> int:
    return max(abs(q), abs(r), abs(q + r))


def beside_the_pond(cells: list[Cell]) -> list[Cell]:
    """A translation with exactly one cell beside the pond, none on it, all near it."""
    for dq in range(-4, 5):
        for dr in range(-4, 5):
            moved = translate(cells, dq, dr)
            d = [dist(q, r) for q, r, _c in moved]
            if min(d) == 1 and d.count(1) == 1 and max(d) <= 4:
                return moved
    raise AssertionError("no translation found")


def board(cells: list[Cell], dry: int | None = None, recolour: int | None = None) -> list[dict]:
    """Tiles for a placement: the cell beside the pond is watered by it, the others by
    watershed tokens (3 in the game: enough for 4 cells); ``dry`` leaves one cell without,
    ``recolour`` gives one cell another colour."""
    tiles = []
    for i, (q, r, colour) in enumerate(cells):
        if i == recolour:
            colour = OTHER[colour]
        improvement = None if dist(q, r) == 1 or i == dry else "watershed"
        tiles.append(tile(f"{q},{r}", colour, 0, improvement=improvement))
    return tiles


def found(card_id: str, tiles: list[dict]) -> bool:
    s = load(tiles=tiles, weather="rain", hands=[hand([card_id]), hand()])
    return f"complete {card_id}" in legal(s)


CASES = [(c, k) for c in PLOT_CARDS for k in range(6)]


@pytest.mark.parametrize(("card_id", "turns"), CASES)
def test_R10_3_every_rotation_is_found(card_id: str, turns: int) -> None:
    """R10.3: each of the six rotations, on irrigated plots of the right colours, is found."""
    cells = beside_the_pond(rotate(card_cells(card_id), turns))
    assert found(card_id, board(cells)), f"{card_id} rotated {turns}x at {cells}"


@pytest.mark.parametrize(("card_id", "turns"), CASES)
def test_R10_3_a_dry_plot_breaks_the_pattern(card_id: str, turns: int) -> None:
    """R10.3: every plot of the pattern must be irrigated."""
    cells = beside_the_pond(rotate(card_cells(card_id), turns))
    for i, (q, r, _c) in enumerate(cells):
        if dist(q, r) > 1:
            assert not found(card_id, board(cells, dry=i)), f"{card_id}: {cells[i]} is dry"


@pytest.mark.parametrize(("card_id", "turns"), CASES)
def test_R10_3_a_wrong_colour_breaks_the_pattern(card_id: str, turns: int) -> None:
    """R10.3: every plot of the pattern must be of the colour the card shows."""
    cells = beside_the_pond(rotate(card_cells(card_id), turns))
    for i in range(len(cells)):
        assert not found(card_id, board(cells, recolour=i)), f"{card_id}: cell {i} recoloured"


@pytest.mark.parametrize("card_id", TWO_COLOUR)
def test_R10_3_the_mirror_image_is_not_a_rotation(card_id: str) -> None:
    """R10.3: the mirror of a two-colour diamond differs from each of its rotations."""
    cells = card_cells(card_id)
    rotations = {normal(rotate(cells, k)) for k in range(6)}
    for reflect in (mirror, lambda cs: [(-q - r, r, c) for q, r, c in cs]):
        assert normal(reflect(cells)) not in rotations


@pytest.mark.parametrize(("card_id", "turns"), [(c, k) for c in TWO_COLOUR for k in range(6)])
def test_R10_3_mirror_images_are_never_found(card_id: str, turns: int) -> None:
    """R10.3: a mirrored two-colour diamond is not the card's pattern, in any rotation."""
    cells = beside_the_pond(rotate(mirror(card_cells(card_id)), turns))
    assert not found(card_id, board(cells)), f"mirror of {card_id} rotated {turns}x was found"


def bits(cells: list[Cell]) -> tuple[int, int, int]:
    """Irrigated plots by colour as the engine's bit sets."""
    out = [0, 0, 0]
    for q, r, colour in cells:
        out[comp.COLOURS.index(colour)] |= 1 << grid.cell_of(q, r)
    return (out[0], out[1], out[2])


# Far corners of the grid too: shifts of the bit sets must never wrap from a row to the next.
SPOTS = [(0, 3), (5, -2), (-7, 9), (13, -13), (-13, 11), (0, -13), (11, 2), (-2, -11)]


@pytest.mark.parametrize("card_id", PLOT_CARDS)
def test_R10_3_pattern_matcher_anywhere_on_the_grid(card_id: str) -> None:
    """R10.3: the matcher finds every rotation at every translation, and nothing else."""
    index = comp.parse_card(card_id)
    for turns in range(6):
        cells = rotate(card_cells(card_id), turns)
        for dq, dr in SPOTS:
            moved = translate(cells, dq, dr)
            if any(grid.cell_of(q, r) < 0 for q, r, _c in moved):
                continue
            assert plot_pattern_found(bits(moved), comp.CARDS[index]), (card_id, turns, dq, dr)
            for i in range(len(moved)):
                partial = moved[:i] + moved[i + 1 :]
                assert not plot_pattern_found(bits(partial), comp.CARDS[index])
                wrong = [*partial, (moved[i][0], moved[i][1], OTHER[moved[i][2]])]
                assert not plot_pattern_found(bits(wrong), comp.CARDS[index])
        if card_id in TWO_COLOUR:
            for dq, dr in SPOTS[:4]:
                moved = translate(rotate(mirror(card_cells(card_id)), turns), dq, dr)
                assert not plot_pattern_found(bits(moved), comp.CARDS[index]), (
                    card_id, "mirror", turns)


def test_R10_3_a_split_line_across_rows_is_not_a_line() -> None:
    """R10.3: three green plots at the end of one row of the grid and the start of the next
    are not a line (the bit-set matcher must not wrap around rows)."""
    index = comp.parse_card("plot-01")
    q_max = grid.RADIUS
    # The last cell of row r=-1 and the first two cells of row r=0 (far apart on the board).
    row_end = (q_max, -1)
    cells = [(*row_end, "green"), (-q_max, 0, "green"), (-q_max + 1, 0, "green")]
    assert all(grid.cell_of(q, r) >= 0 for q, r, _c in cells)
    assert not plot_pattern_found(bits(cells), comp.CARDS[index])
