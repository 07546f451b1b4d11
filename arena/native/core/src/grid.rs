//! Hex geometry, computed once into flat tables (the reference's `grid.py`, index for index).
//!
//! A cell is `(q + RADIUS) + (r + RADIUS) * WIDTH`; edges and corners get the same dense ids
//! as the reference, in the same order, so actions (which carry cells and edges) are the same
//! ints on both sides.

use std::sync::LazyLock;

pub type Cell = u16;
pub type Edge = u16;
pub type Corner = u16;

pub const RADIUS: i32 = 15;
pub const WIDTH: i32 = 2 * RADIUS + 1 + 3;
pub const SIZE: usize = (WIDTH * (2 * RADIUS + 1)) as usize;
/// No cell, edge or corner (off the grid).
pub const NONE: u16 = u16::MAX;
/// The six directions of the notation, in order.
pub const DIRECTIONS: [(i32, i32); 6] = [(1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1)];

/// Index of axial `(q, r)`, or None off the grid.
pub fn cell_of(q: i32, r: i32) -> Option<Cell> {
    if q.abs().max(r.abs()).max((q + r).abs()) > RADIUS {
        return None;
    }
    Some(((q + RADIUS) + (r + RADIUS) * WIDTH) as Cell)
}

/// Axial `(q, r)` of a cell.
pub fn coords_of(cell: Cell) -> (i32, i32) {
    let c = cell as i32;
    (c % WIDTH - RADIUS, c / WIDTH - RADIUS)
}

pub const POND: Cell = (RADIUS + RADIUS * WIDTH) as Cell;

/// A fixed-size bit set (cells, edges, corners).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct BitSet<const W: usize>(pub [u64; W]);

impl<const W: usize> Default for BitSet<W> {
    fn default() -> Self {
        BitSet([0; W])
    }
}

impl<const W: usize> BitSet<W> {
    pub fn has(&self, i: u16) -> bool {
        let i = i as usize;
        self.0[i >> 6] >> (i & 63) & 1 != 0
    }
    pub fn insert(&mut self, i: u16) {
        let i = i as usize;
        self.0[i >> 6] |= 1 << (i & 63);
    }
    pub fn remove(&mut self, i: u16) {
        let i = i as usize;
        self.0[i >> 6] &= !(1 << (i & 63));
    }
    pub fn len(&self) -> usize {
        self.0.iter().map(|w| w.count_ones() as usize).sum()
    }
    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|&w| w == 0)
    }
    /// The members in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = u16> + '_ {
        self.0.iter().enumerate().flat_map(|(k, &w)| {
            let mut w = w;
            std::iter::from_fn(move || {
                if w == 0 {
                    return None;
                }
                let b = w.trailing_zeros();
                w &= w - 1;
                Some((k * 64) as u16 + b as u16)
            })
        })
    }
}

pub const CELL_WORDS: usize = SIZE.div_ceil(64);
pub type CellSet = BitSet<CELL_WORDS>;
pub const EDGE_WORDS: usize = 34;
pub type EdgeSet = BitSet<EDGE_WORDS>;
pub const CORNER_WORDS: usize = 23;
pub type CornerSet = BitSet<CORNER_WORDS>;

/// The grid's tables.
pub struct Grid {
    /// Every cell, in index order.
    pub cells: Vec<Cell>,
    /// `neighbour[cell][d]`: the cell in direction d, or NONE.
    pub neighbour: Vec<[Cell; 6]>,
    /// `neighbours[cell]`: the cells around it on the grid, in direction order.
    pub neighbours: Vec<Vec<Cell>>,
    /// `rays[cell][d]`: the cells met going straight out, nearest first.
    pub rays: Vec<[Vec<Cell>; 6]>,
    pub edge_cells: Vec<(Cell, Cell)>,
    pub corner_cells: Vec<(Cell, Cell, Cell)>,
    /// The corners at an edge's two ends (NONE off the grid).
    pub edge_ends: Vec<(Corner, Corner)>,
    /// The (up to) three edges that meet at a corner, NONE where fewer.
    pub corner_edges: Vec<[Edge; 3]>,
    pub cell_edges: Vec<Vec<Edge>>,
    /// Edge id by the two cells' (min, max): `edge_at[min * 6 + d]` for the neighbour of
    /// min in direction d.
    edge_dir: Vec<[Edge; 6]>,
    pub pond_corners: CornerSet,
    pub pond_edges: EdgeSet,
    pub pond_ring: CellSet,
}

pub static GRID: LazyLock<Grid> = LazyLock::new(build);

/// The grid's tables, worked out once (`GRID`); each table is a function of its own.
fn build() -> Grid {
    let cells = grid_cells();
    let (neighbour, neighbours) = adjacency(&cells);
    let rays = rays_of(&cells, &neighbour);
    let (edge_ids, edge_cells) = edges_of(&cells, &neighbours);
    let (corner_ids, corner_cells) = corners_of(&cells, &neighbour);
    let (edge_ends, corner_edges) =
        edge_ends_of(&edge_cells, &corner_ids, &neighbours, corner_cells.len());
    let (cell_edges, edge_dir) = cell_edges_of(&cells, &neighbour, &edge_ids);
    assert!(edge_cells.len() <= EDGE_WORDS * 64 && corner_cells.len() <= CORNER_WORDS * 64);
    let mut pond_corners = CornerSet::default();
    for d in 0..6 {
        let mut key = [
            POND,
            neighbour[POND as usize][d],
            neighbour[POND as usize][(d + 1) % 6],
        ];
        key.sort();
        pond_corners.insert(corner_ids[&(key[0], key[1], key[2])]);
    }
    let mut pond_edges = EdgeSet::default();
    for &e in &cell_edges[POND as usize] {
        pond_edges.insert(e);
    }
    let mut pond_ring = CellSet::default();
    for &n in &neighbours[POND as usize] {
        pond_ring.insert(n);
    }
    Grid {
        cells,
        neighbour,
        neighbours,
        rays,
        edge_cells,
        corner_cells,
        edge_ends,
        corner_edges,
        cell_edges,
        edge_dir,
        pond_corners,
        pond_edges,
        pond_ring,
    }
}

/// Edge ids by their two cells (lower first), in the order the edges were met.
type EdgeIds = std::collections::HashMap<(Cell, Cell), Edge>;
/// Corner ids by their three cells (sorted), in the order the corners were met.
type CornerIds = std::collections::HashMap<(Cell, Cell, Cell), Corner>;

/// The cells of the board, in index order.
fn grid_cells() -> Vec<Cell> {
    let on_grid = |c: usize| {
        let (q, r) = coords_of(c as Cell);
        (c as i32 % WIDTH) < 2 * RADIUS + 1 && cell_of(q, r) == Some(c as Cell)
    };
    (0..SIZE)
        .filter(|&c| on_grid(c))
        .map(|c| c as Cell)
        .collect()
}

/// Per cell, its neighbour in each direction (NONE off the board), and those on it.
fn adjacency(cells: &[Cell]) -> (Vec<[Cell; 6]>, Vec<Vec<Cell>>) {
    let mut neighbour = vec![[NONE; 6]; SIZE];
    let mut neighbours = vec![Vec::new(); SIZE];
    for &c in cells {
        let (q, r) = coords_of(c);
        for (d, (dq, dr)) in DIRECTIONS.iter().enumerate() {
            neighbour[c as usize][d] = cell_of(q + dq, r + dr).unwrap_or(NONE);
        }
        neighbours[c as usize] = neighbour[c as usize]
            .iter()
            .copied()
            .filter(|&n| n != NONE)
            .collect();
    }
    (neighbour, neighbours)
}

/// Per cell and direction, the cells met going straight out, nearest first.
fn rays_of(cells: &[Cell], neighbour: &[[Cell; 6]]) -> Vec<[Vec<Cell>; 6]> {
    let mut rays: Vec<[Vec<Cell>; 6]> = (0..SIZE).map(|_| Default::default()).collect();
    for &c in cells {
        for d in 0..6 {
            let mut ray = Vec::new();
            let mut n = neighbour[c as usize][d];
            while n != NONE {
                ray.push(n);
                n = neighbour[n as usize][d];
            }
            rays[c as usize][d] = ray;
        }
    }
    rays
}

/// The edges (pairs of adjacent cells), numbered in the order the cells meet them.
fn edges_of(cells: &[Cell], neighbours: &[Vec<Cell>]) -> (EdgeIds, Vec<(Cell, Cell)>) {
    let mut edge_ids = EdgeIds::new();
    let mut edge_cells = Vec::new();
    for &c in cells {
        for &n in &neighbours[c as usize] {
            let key = (c.min(n), c.max(n));
            edge_ids.entry(key).or_insert_with(|| {
                edge_cells.push(key);
                (edge_cells.len() - 1) as Edge
            });
        }
    }
    (edge_ids, edge_cells)
}

/// The corners (three mutually adjacent cells), numbered in the order the cells meet them.
fn corners_of(cells: &[Cell], neighbour: &[[Cell; 6]]) -> (CornerIds, Vec<(Cell, Cell, Cell)>) {
    let mut corner_ids = CornerIds::new();
    let mut corner_cells = Vec::new();
    for &c in cells {
        for d in 0..6 {
            let (a, b) = (neighbour[c as usize][d], neighbour[c as usize][(d + 1) % 6]);
            if a == NONE || b == NONE {
                continue;
            }
            let mut key = [c, a, b];
            key.sort();
            let key = (key[0], key[1], key[2]);
            corner_ids.entry(key).or_insert_with(|| {
                corner_cells.push(key);
                (corner_cells.len() - 1) as Corner
            });
        }
    }
    (corner_ids, corner_cells)
}

/// Per edge, the corners at its two ends (NONE off the grid); per corner, the (up to)
/// three edges that meet there (NONE where fewer).
fn edge_ends_of(
    edge_cells: &[(Cell, Cell)],
    corner_ids: &CornerIds,
    neighbours: &[Vec<Cell>],
    corners: usize,
) -> (Vec<(Corner, Corner)>, Vec<[Edge; 3]>) {
    let mut edge_ends = Vec::with_capacity(edge_cells.len());
    let mut corner_edges = vec![[NONE; 3]; corners];
    for (e, &(a, b)) in edge_cells.iter().enumerate() {
        let mut ends = Vec::new();
        for &x in &neighbours[a as usize] {
            if neighbours[b as usize].contains(&x) {
                let mut key = [a, b, x];
                key.sort();
                ends.push(corner_ids[&(key[0], key[1], key[2])]);
            }
        }
        while ends.len() < 2 {
            ends.push(NONE);
        }
        edge_ends.push((ends[0], ends[1]));
        for &k in &ends {
            if k != NONE {
                if let Some(slot) = corner_edges[k as usize].iter_mut().find(|x| **x == NONE) {
                    *slot = e as Edge;
                }
            }
        }
    }
    (edge_ends, corner_edges)
}

/// Per cell, its edges in direction order, and its edge in each direction (NONE off the
/// board).
fn cell_edges_of(
    cells: &[Cell],
    neighbour: &[[Cell; 6]],
    edge_ids: &EdgeIds,
) -> (Vec<Vec<Edge>>, Vec<[Edge; 6]>) {
    let mut cell_edges = vec![Vec::new(); SIZE];
    let mut edge_dir = vec![[NONE; 6]; SIZE];
    for &c in cells {
        for d in 0..6 {
            let n = neighbour[c as usize][d];
            if n != NONE {
                let e = edge_ids[&(c.min(n), c.max(n))];
                cell_edges[c as usize].push(e);
                edge_dir[c as usize][d] = e;
            }
        }
    }
    (cell_edges, edge_dir)
}

impl Grid {
    /// The edge between two adjacent cells, or None.
    pub fn edge_of(&self, a: Cell, b: Cell) -> Option<Edge> {
        if a as usize >= SIZE || b as usize >= SIZE {
            return None;
        }
        let d = self.neighbour[a as usize].iter().position(|&n| n == b)?;
        Some(self.edge_dir[a as usize][d])
    }

    pub fn is_cell(&self, cell: usize) -> bool {
        cell < SIZE && !self.neighbours[cell].is_empty()
    }
}

/// One 60° rotation: `(q, r) -> (-r, q + r)`.
pub fn rotate(q: i32, r: i32) -> (i32, i32) {
    (-r, q + r)
}

/// `q,r` text of a cell.
pub fn cell_text(cell: Cell) -> String {
    let (q, r) = coords_of(cell);
    format!("{q},{r}")
}

/// Python's `int()` of a coordinate text (surrounding white space, `+`, `_` between digits).
fn py_int(text: &str) -> Option<i32> {
    let t = text.trim_matches(|c: char| c.is_whitespace());
    let (neg, digits) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    if digits.is_empty()
        || digits.starts_with('_')
        || digits.ends_with('_')
        || digits.contains("__")
    {
        return None;
    }
    let mut value: i64 = 0;
    for ch in digits.chars() {
        if ch == '_' {
            continue;
        }
        let d = ch.to_digit(10)? as i64;
        value = (value * 10 + d).min(1 << 40);
    }
    let value = if neg { -value } else { value };
    Some(value.clamp(i32::MIN as i64 / 2, i32::MAX as i64 / 2) as i32)
}

/// Cell of a `q,r` text; the error is the reference's sentence.
pub fn parse_cell(text: &str) -> Result<Cell, String> {
    let parts: Vec<&str> = text.split(',').collect();
    let bad = || format!("{} is not a coordinate q,r", crate::json::str_repr(text));
    if parts.len() != 2 {
        return Err(bad());
    }
    let (Some(q), Some(r)) = (py_int(parts[0]), py_int(parts[1])) else {
        return Err(bad());
    };
    cell_of(q, r).ok_or_else(|| {
        format!(
            "{} is off the grid (farther than {RADIUS} from the pond)",
            crate::json::str_repr(text)
        )
    })
}

/// `q,r|q,r` text of an edge, the smaller tile first (by q, then r).
pub fn edge_text(edge: Edge) -> String {
    let (a, b) = GRID.edge_cells[edge as usize];
    let (mut ca, mut cb) = (coords_of(a), coords_of(b));
    if cb < ca {
        std::mem::swap(&mut ca, &mut cb);
    }
    format!("{},{}|{},{}", ca.0, ca.1, cb.0, cb.1)
}

/// Edge of a `q,r|q,r` text; the error is the reference's sentence.
pub fn parse_edge(text: &str) -> Result<Edge, String> {
    let parts: Vec<&str> = text.split('|').collect();
    if parts.len() != 2 {
        return Err(format!(
            "{} is not an edge q,r|q,r",
            crate::json::str_repr(text)
        ));
    }
    let a = parse_cell(parts[0])?;
    let b = parse_cell(parts[1])?;
    GRID.edge_of(a, b).ok_or_else(|| {
        format!(
            "{} is not an edge: the two tiles are not adjacent",
            crate::json::str_repr(text)
        )
    })
}

/// Hex distance between two cells.
pub fn distance(a: Cell, b: Cell) -> i32 {
    let ((q1, r1), (q2, r2)) = (coords_of(a), coords_of(b));
    let (dq, dr) = (q1 - q2, r1 - r2);
    dq.abs().max(dr.abs()).max((dq + dr).abs())
}

/// The corners reached from the pond through channels, and the channels cut off (in edge
/// order).
pub fn channel_network(channels: &EdgeSet) -> (CornerSet, Vec<Edge>) {
    let g = &*GRID;
    let mut network = g.pond_corners;
    let mut remaining: Vec<Edge> = channels.iter().collect();
    let mut grew = true;
    while grew {
        grew = false;
        remaining.retain(|&e| {
            let (a, b) = g.edge_ends[e as usize];
            let joined = (a != NONE && network.has(a)) || (b != NONE && network.has(b));
            if joined {
                for k in [a, b] {
                    if k != NONE {
                        network.insert(k);
                    }
                }
                grew = true;
            }
            !joined
        });
    }
    (network, remaining)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_have_the_reference_sizes() {
        let g = &*GRID;
        assert_eq!(g.cells.len(), 721);
        assert_eq!(POND, cell_of(0, 0).unwrap());
        assert_eq!(g.neighbours[POND as usize].len(), 6);
        assert_eq!(parse_cell("1,-1").map(coords_of), Ok((1, -1)));
        assert!(parse_cell("16,0").unwrap_err().contains("off the grid"));
        let e = parse_edge("0,1|1,0").unwrap();
        assert_eq!(edge_text(e), "0,1|1,0");
        assert!(g
            .pond_edges
            .has(g.edge_of(POND, cell_of(1, 0).unwrap()).unwrap()));
    }
}
