"""Hex geometry, computed once at import into flat tables.

Cells are small ints (a box index over axial coordinates) so that the hot path works on ints,
tuples and dict lookups, never on coordinate objects.  The index is linear in ``(q, r)``:
``cell = (q + RADIUS) + (r + RADIUS) * WIDTH``, so a translation is an addition and a set of
cells can be a Python int used as a bit set and shifted, which is how plot patterns are
matched (``objectives.py``).

The grid is bounded: a plot needs the pond or two tiles beside it (R5.2), so reaching
distance ``d`` takes at least ``2d - 1`` plots and 27 plots never go beyond distance 14.
RADIUS 15 leaves a ring of empty spaces around the farthest possible plot.
"""

from __future__ import annotations

from arena.engine.aliases import Cell

RADIUS = 15
#: Row stride; three padding columns keep pattern shifts from wrapping into the next row.
WIDTH = 2 * RADIUS + 1 + 3
SIZE = WIDTH * (2 * RADIUS + 1)

#: The six directions of docs/notation.md, in order.
DIRECTIONS: tuple[tuple[int, int], ...] = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))


def cell_of(q: int, r: int) -> Cell:
    """Index of axial ``(q, r)``; -1 when off the grid."""
    if max(abs(q), abs(r), abs(q + r)) > RADIUS:
        return -1
    return (q + RADIUS) + (r + RADIUS) * WIDTH


def coords_of(cell: int) -> tuple[int, int]:
    """Axial ``(q, r)`` of a cell index."""
    return cell % WIDTH - RADIUS, cell // WIDTH - RADIUS


POND: int = cell_of(0, 0)

#: Every cell of the grid, in index order.
CELLS: tuple[int, ...] = tuple(
    c for c in range(SIZE) if cell_of(*coords_of(c)) == c and c % WIDTH < 2 * RADIUS + 1
)


def _neighbour(cell: int, d: int) -> int:
    q, r = coords_of(cell)
    dq, dr = DIRECTIONS[d]
    return cell_of(q + dq, r + dr)


#: NEIGHBOUR[cell][d]: the cell in direction d, or -1 off the grid.
NEIGHBOUR: list[tuple[int, ...]] = [() for _ in range(SIZE)]
#: NEIGHBOURS[cell]: the cells around it that are on the grid.
NEIGHBOURS: list[tuple[int, ...]] = [() for _ in range(SIZE)]
#: RAYS[cell]: for each direction, the cells met going straight out, nearest first.
RAYS: list[tuple[tuple[int, ...], ...]] = [() for _ in range(SIZE)]

for _c in CELLS:
    NEIGHBOUR[_c] = tuple(_neighbour(_c, d) for d in range(6))
    NEIGHBOURS[_c] = tuple(n for n in NEIGHBOUR[_c] if n >= 0)
for _c in CELLS:
    _rays = []
    for _d in range(6):
        _ray = []
        _n = NEIGHBOUR[_c][_d]
        while _n >= 0:
            _ray.append(_n)
            _n = NEIGHBOUR[_n][_d]
        _rays.append(tuple(_ray))
    RAYS[_c] = tuple(_rays)

# Edges and corners.  An edge joins two adjacent cells; a corner is three mutually adjacent
# cells.  Both get dense ids so that channels and the irrigation network are sets of ints.
_edge_ids: dict[tuple[int, int], int] = {}
EDGE_CELLS: list[tuple[int, int]] = []
for _c in CELLS:
    for _n in NEIGHBOURS[_c]:
        _key = (min(_c, _n), max(_c, _n))
        if _key not in _edge_ids:
            _edge_ids[_key] = len(EDGE_CELLS)
            EDGE_CELLS.append(_key)

_corner_ids: dict[tuple[int, int, int], int] = {}
CORNER_CELLS: list[tuple[int, int, int]] = []
for _c in CELLS:
    for _d in range(6):
        _a, _b = NEIGHBOUR[_c][_d], NEIGHBOUR[_c][(_d + 1) % 6]
        if _a < 0 or _b < 0:
            continue
        _key3 = tuple(sorted((_c, _a, _b)))
        if _key3 not in _corner_ids:
            _corner_ids[_key3] = len(CORNER_CELLS)
            CORNER_CELLS.append(_key3)  # type: ignore[arg-type]

#: EDGE_ENDS[edge]: the corner ids at its two ends (-1 where the corner is off the grid).
EDGE_ENDS: list[tuple[int, int]] = []
#: CORNER_EDGES[corner]: the three edges that meet at it.
CORNER_EDGES: list[tuple[int, ...]] = [() for _ in CORNER_CELLS]
for _e, (_a, _b) in enumerate(EDGE_CELLS):
    _ends = []
    for _x in NEIGHBOURS[_a]:
        if _x in NEIGHBOURS[_b]:
            _ends.append(_corner_ids[tuple(sorted((_a, _b, _x)))])  # type: ignore[index]
    while len(_ends) < 2:
        _ends.append(-1)
    EDGE_ENDS.append((_ends[0], _ends[1]))
    for _k in _ends:
        if _k >= 0:
            CORNER_EDGES[_k] = (*CORNER_EDGES[_k], _e)

#: CELL_EDGES[cell]: the edges around a cell.
CELL_EDGES: list[tuple[int, ...]] = [() for _ in range(SIZE)]
for _c in CELLS:
    CELL_EDGES[_c] = tuple(_edge_ids[(min(_c, _n), max(_c, _n))] for _n in NEIGHBOURS[_c])

#: The six corners of the pond: every irrigation network starts at one of them (R6.3).
POND_CORNERS: frozenset[int] = frozenset(
    _corner_ids[tuple(sorted((POND, NEIGHBOUR[POND][d], NEIGHBOUR[POND][(d + 1) % 6])))]  # type: ignore[index]
    for d in range(6)
)
#: Edges that touch the pond: never a channel (R1.1).
POND_EDGES: frozenset[int] = frozenset(CELL_EDGES[POND])
#: Cells beside the pond: irrigated from the start (R6.4) and always legal spaces (R5.2).
POND_RING: frozenset[int] = frozenset(NEIGHBOURS[POND])


def edge_of(a: int, b: int) -> int:
    """The edge between two adjacent cells, or -1 when they are not adjacent."""
    return _edge_ids.get((min(a, b), max(a, b)), -1)


def rotate(q: int, r: int) -> tuple[int, int]:
    """One 60° rotation (docs/notation.md): ``(q, r) -> (-r, q + r)``."""
    return -r, q + r


def distance(a: int, b: int) -> int:
    """Hex distance between two cells."""
    (q1, r1), (q2, r2) = coords_of(a), coords_of(b)
    dq, dr = q1 - q2, r1 - r2
    return max(abs(dq), abs(dr), abs(dq + dr))


def cell_text(cell: int) -> str:
    """``q,r`` text of a cell."""
    q, r = coords_of(cell)
    return f"{q},{r}"


def parse_cell(text: str) -> Cell:
    """Cell of a ``q,r`` text; raises ValueError naming the text when malformed or off grid."""
    parts = text.split(",")
    if len(parts) != 2:
        raise ValueError(f"{text!r} is not a coordinate q,r")
    try:
        q, r = int(parts[0]), int(parts[1])
    except ValueError:
        raise ValueError(f"{text!r} is not a coordinate q,r") from None
    cell = cell_of(q, r)
    if cell < 0:
        raise ValueError(f"{text!r} is off the grid (farther than {RADIUS} from the pond)")
    return cell


def edge_text(edge: int) -> str:
    """``q,r|q,r`` text of an edge, smaller tile first (by q, then r)."""
    a, b = EDGE_CELLS[edge]
    ca, cb = coords_of(a), coords_of(b)
    if cb < ca:
        ca, cb = cb, ca
    return f"{ca[0]},{ca[1]}|{cb[0]},{cb[1]}"


def parse_edge(text: str) -> int:
    """Edge of a ``q,r|q,r`` text; raises ValueError when malformed or not adjacent."""
    parts = text.split("|")
    if len(parts) != 2:
        raise ValueError(f"{text!r} is not an edge q,r|q,r")
    a, b = parse_cell(parts[0]), parse_cell(parts[1])
    edge = edge_of(a, b)
    if edge < 0:
        raise ValueError(f"{text!r} is not an edge: the two tiles are not adjacent")
    return edge


def channel_network(channels: set[int] | frozenset[int]) -> tuple[frozenset[int], set[int]]:
    """The corners reached from the pond through channels (R6.3), and the channels cut off.

    Worked out from scratch, for reading positions and for checking the network a game keeps
    up to date channel by channel.
    """
    network = set(POND_CORNERS)
    remaining = set(channels)
    grew = True
    while grew:
        grew = False
        for e in list(remaining):
            ends = EDGE_ENDS[e]
            if ends[0] in network or ends[1] in network:
                network.update(k for k in ends if k >= 0)
                remaining.discard(e)
                grew = True
    return frozenset(network), remaining
