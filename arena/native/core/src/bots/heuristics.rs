//! The shared evaluation and card-cost estimator of `bots/heuristics.py`, value for value.
//!
//! How good a position is for one seat: the points it has scored plus, for each objective
//! in its hand, the card's points discounted by the actions it still needs.  The Python
//! module's docstring gives the terms and the reasons; this port computes the same floats:
//! every sum is taken in the reference's order (a hand's cards as its dict of costs
//! iterates them, a pool in its order), `x ** y` is `powf` (libm's `pow`, as CPython's),
//! and the first best wins where the reference's `max` or `<` keeps the first.
//!
//! What the reference caches per board layout (tiles, irrigation, channels, improvements)
//! is cached here too, in a [`Cache`] the caller owns (a bot keeps one for its games):
//! the costs are pure functions of the layout, so a cache changes no value.
//!
//! A position is a full [`State`] (a sample) or a [`View`]; a view shows only its own
//! seat's hand, and another seat's cards count as [`UNKNOWN_CARD_VALUE`] each.  Card points
//! are passed as floats per card ([`card_points`]): the game's, or an archetype's weighted
//! ones (`objective:prefer=...`).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;

use arrayvec::ArrayVec;

use crate::components::{
    CardSet, ENCLOSURE, FACE_SUN, FERTILIZER, GARDENER_CARD, PANDA_CARD, PLOT_CARD, POND_TILE,
};
use crate::grid::{Cell, CellSet, EdgeSet, CELL_WORDS, GRID, NONE, POND, SIZE};
use crate::state::{Board, State, MAX_HAND, MAX_TILES, STEP_ACTIONS, STEP_PLACE, STEP_REDRAW};
use crate::view::View;

/// Weight of a point already scored, against a point still in hand (must stay above 1).
pub const SCORE_WEIGHT: f64 = 1.5;
/// A card worth `p` that needs `k` more actions counts `p * DECAY ** k`.
pub const DECAY: f64 = 0.5;
/// A stored channel or improvement saves an action later.
pub const CHANNEL_VALUE: f64 = 0.35;
pub const IMPROVEMENT_VALUE: f64 = 0.3;
/// Eaten sections not claimed by a card in hand: raw material for a future panda card.
pub const SPARE_SECTION_VALUE: f64 = 0.12;
pub const SPARE_SECTION_CAP: u32 = 4;
/// What an unknown card in another seat's hand is worth on average (views only).
pub const UNKNOWN_CARD_VALUE: f64 = 1.2;
/// An action on a plot of a colour: plots of rarer colours are harder to draw.
pub const PLOT_ACTION_COST: [f64; 3] = [1.0, 1.2, 1.5];
/// Irrigating a dry plot: one channel when one can go on its edges now, else more.
pub const IRRIGATION_NEAR: f64 = 1.0;
pub const IRRIGATION_FAR: f64 = 2.0;
/// An empty space that cannot take a plot yet needs another plot first.
pub const NOT_PLACEABLE_YET: f64 = 1.0;
/// Getting an improvement onto a bare plot: from the own stock, or through the weather.
pub const IMPROVEMENT_FROM_STOCK: f64 = 0.3;
pub const IMPROVEMENT_FROM_CLOUDS: f64 = 2.0;
/// Cards needing more than the actions left once the Emperor is taken count this much.
pub const LATE_FACTOR: f64 = 0.05;
// A layout remembers an empty space's extra cost in whole actions (`Layout::extra`).
const _: () = assert!(
    IRRIGATION_NEAR == 1.0 && IRRIGATION_FAR == 2.0 && NOT_PLACEABLE_YET == 1.0,
    "the extra cost of an empty space must stay a whole number of actions"
);
/// Beyond this, a cost is "never": the card is worth nothing.
pub const UNREACHABLE: f64 = 30.0;
/// No horizon: the game is not about to end.
pub const NO_HORIZON: i64 = 99;
/// Cards in the game at most (45 printed, the rest added: the card set's bound).
pub use crate::components::MAX_CARDS;
/// Layouts a cache keeps before it starts afresh (the reference's limit).
const LAYOUT_LIMIT: usize = 4000;

/// The evaluation's weights (the reference's `Weights`, defaults above).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Weights {
    pub score: f64,
    pub decay: f64,
    pub channel: f64,
    pub improvement: f64,
    pub spare_section: f64,
    pub race: f64,
}

impl Default for Weights {
    fn default() -> Weights {
        Weights {
            score: SCORE_WEIGHT,
            decay: DECAY,
            channel: CHANNEL_VALUE,
            improvement: IMPROVEMENT_VALUE,
            spare_section: SPARE_SECTION_VALUE,
            race: 0.0,
        }
    }
}

/// The game's card points as floats, one per card (a card set may change them).
pub fn card_points(board: &Board) -> Vec<f64> {
    board.card_set.points.iter().map(|&p| p as f64).collect()
}

/// A card's category.
pub fn category(b: &Board, card: u8) -> u8 {
    b.card_set.card(card).category
}

// ----------------------------------------------------------------- positions

/// What the heuristics read of a position: the board, and the hands it may show.
pub trait Position {
    fn board(&self) -> &Board;
    /// The hand of `seat` if this position may show it (a state: every hand; a view: its
    /// own), else None.
    fn known_hand(&self, seat: u8) -> Option<&[u8]>;
    /// The categories of a seat's cards, in hand order (public).
    fn hand_categories(&self, seat: u8) -> ArrayVec<u8, MAX_HAND>;
}

impl Position for State {
    fn board(&self) -> &Board {
        &self.b
    }
    fn known_hand(&self, seat: u8) -> Option<&[u8]> {
        Some(&self.hands[seat as usize])
    }
    fn hand_categories(&self, seat: u8) -> ArrayVec<u8, MAX_HAND> {
        self.hands[seat as usize]
            .iter()
            .map(|&c| category(&self.b, c))
            .collect()
    }
}

impl Position for View {
    fn board(&self) -> &Board {
        &self.b
    }
    fn known_hand(&self, seat: u8) -> Option<&[u8]> {
        (seat == self.seat).then_some(&self.hand[..])
    }
    fn hand_categories(&self, seat: u8) -> ArrayVec<u8, MAX_HAND> {
        self.hand_categories
            .get(seat as usize)
            .cloned()
            .unwrap_or_default()
    }
}

/// One seat's points: its completed cards (at these points, summed in order) and the
/// Emperor's (the reference's `score`).
pub fn score(board: &Board, seat: u8, points: &[f64]) -> f64 {
    let mut total = 0.0;
    for &c in &board.completed[seat as usize] {
        total += points[c as usize];
    }
    if board.emperor == seat as i8 {
        total += board.rules.emperor_points as f64;
    }
    total
}

/// Actions `seat` can still take when the game is about to end, else [`NO_HORIZON`]
/// (the reference's `actions_horizon`).
pub fn actions_horizon(board: &Board, seat: u8) -> i64 {
    let emperor = board.emperor;
    if emperor < 0 {
        return NO_HORIZON;
    }
    let current = board.current;
    if current == seat {
        if matches!(board.step, STEP_ACTIONS | STEP_PLACE | STEP_REDRAW) {
            let limit = if board.weather == FACE_SUN { 3 } else { 2 };
            return (limit - board.taken.len() as i64).max(0);
        }
        return 3;
    }
    if seat as i8 == emperor {
        return 0;
    }
    let left = board.last_turns as i64;
    let players = board.players;
    let (mut k, mut s) = (0i64, current);
    while k < left {
        s = (s + 1) % players;
        if s as i8 == emperor {
            continue;
        }
        k += 1;
        if s == seat {
            return 2;
        }
    }
    0
}

/// What a card in hand is worth now: its points discounted by the actions it needs.
pub fn card_value(points: f64, cost: f64, decay: f64, horizon: i64) -> f64 {
    if cost >= UNREACHABLE {
        return 0.0;
    }
    let mut value = points * decay.powf(cost);
    if cost > horizon as f64 {
        value *= LATE_FACTOR;
    }
    value
}

// ----------------------------------------------------------------- layouts

/// A small, fast hasher for layout keys (no untrusted input reaches it).
#[derive(Default)]
pub struct FxHasher(u64);

impl Hasher for FxHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }
    fn write_u8(&mut self, i: u8) {
        self.write_u64(i as u64);
    }
    fn write_u16(&mut self, i: u16) {
        self.write_u64(i as u64);
    }
    fn write_u32(&mut self, i: u32) {
        self.write_u64(i as u64);
    }
    fn write_usize(&mut self, i: usize) {
        self.write_u64(i as u64);
    }
    fn write_u64(&mut self, i: u64) {
        self.0 = (self.0.rotate_left(5) ^ i).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

pub type FxBuild = BuildHasherDefault<FxHasher>;

/// [`FxHasher`] with its high bits folded into the low ones: a table's bucket is read
/// from the low bits, which Fx's product leaves depending on the key's low bits only (the
/// children of every node under one action would share a bucket).
#[derive(Default)]
pub struct MixHasher(FxHasher);

impl Hasher for MixHasher {
    fn finish(&self) -> u64 {
        let h = self.0.finish();
        h ^ h >> 32
    }
    fn write(&mut self, bytes: &[u8]) {
        self.0.write(bytes)
    }
    fn write_u8(&mut self, i: u8) {
        self.0.write_u8(i)
    }
    fn write_u16(&mut self, i: u16) {
        self.0.write_u16(i)
    }
    fn write_u32(&mut self, i: u32) {
        self.0.write_u32(i)
    }
    fn write_u64(&mut self, i: u64) {
        self.0.write_u64(i)
    }
    fn write_usize(&mut self, i: usize) {
        self.0.write_usize(i)
    }
}

/// Tables of the search, hashed by [`MixHasher`].
pub type MixBuild = BuildHasherDefault<MixHasher>;

/// What a layout is: tiles, irrigation, channels and improvements (kept by its layout, to
/// tell two layouts of one hash apart).
#[derive(Clone, PartialEq, Eq)]
struct LayoutKey {
    order: ArrayVec<Cell, MAX_TILES>,
    codes: ArrayVec<u8, MAX_TILES>,
    irrigated: CellSet,
    channels: EdgeSet,
    improvements: ArrayVec<(Cell, u8), MAX_TILES>,
}

impl LayoutKey {
    fn of(b: &Board) -> LayoutKey {
        LayoutKey {
            order: b.order.clone(),
            codes: b.codes.clone(),
            irrigated: b.irrigated,
            channels: b.channels,
            improvements: b.improvements.clone(),
        }
    }

    fn is_of(&self, b: &Board) -> bool {
        self.order == b.order
            && self.irrigated == b.irrigated
            && self.channels == b.channels
            && self.improvements == b.improvements
            && self.codes == b.codes
    }
}

/// The hash of a board's layout (what [`LayoutKey`] holds), read off the board.
fn layout_hash(b: &Board) -> u64 {
    let mut h = FxHasher::default();
    for (&c, &t) in b.order.iter().zip(&b.codes) {
        h.write_u64((c as u64) << 8 | t as u64);
    }
    for &(c, i) in &b.improvements {
        h.write_u64(1 << 40 | (c as u64) << 8 | i as u64);
    }
    // Irrigation and channels follow the tiles in most layouts: the words that have bits.
    for (k, &w) in b.irrigated.0.iter().enumerate() {
        if w != 0 {
            h.write_u64(w ^ (k as u64) << 58);
        }
    }
    for (k, &w) in b.channels.0.iter().enumerate() {
        if w != 0 {
            h.write_u64(w.rotate_left(17) ^ (k as u64 + 32) << 58);
        }
    }
    h.finish()
}

/// A plot of a layout as the gardener costs read it: its place in the board's tile order
/// (a board of this layout keeps its bamboo there), improvement, whether irrigated, and the
/// cost of irrigating it.
#[derive(Clone, Copy, Debug)]
struct Plot {
    slot: u8,
    imp: u8,
    wet: bool,
    dry: f64,
}

/// No tile at a cell (in [`Layout::slot_of`]).
const NO_SLOT: u8 = u8::MAX;

/// What the heuristics need from a board layout, worked out once per layout (the
/// reference's `_Layout` and `_PlotLayout`).
pub struct Layout {
    key: LayoutKey,
    /// Per cell, its place in the tile order (`NO_SLOT`: none, and the pond's).
    slot_of: [u8; SIZE],
    /// Per colour, the cells a pattern cell of that colour must not meet (the pond and the
    /// plots of the other colours), and the plots of that colour.
    masks: [(CellSet, CellSet); 3],
    /// Per place in the tile order: irrigating that plot, 0 once irrigated.
    dry: ArrayVec<f64, MAX_TILES>,
    by_colour: [ArrayVec<Plot, COLOUR_PLOTS>; 3],
    /// Per colour, the unfenced plots (cell, place in the tile order).
    unfenced: [ArrayVec<(Cell, u8), COLOUR_PLOTS>; 3],
    plot_costs: [Option<f64>; MAX_CARDS],
    spaces: Option<CellSet>,
    /// Per empty cell met by a pattern: irrigating it and "not placeable yet", in whole
    /// actions (`NO_SLOT`: not worked out yet).
    extra: [u8; SIZE],
    /// Per panda cell: the places of the unfenced plots of each colour one panda move away.
    near: Vec<(Cell, [ArrayVec<u8, COLOUR_PLOTS>; 3])>,
}

/// Plots of one colour a game holds at most (11 green, 9 yellow, 7 pink are printed; a
/// position with more is refused when it is read).
const COLOUR_PLOTS: usize = 16;

impl Layout {
    fn new(b: &Board) -> Layout {
        let mut colour_masks = [CellSet::default(); 3];
        let mut slot_of = [NO_SLOT; SIZE];
        let mut dry = ArrayVec::new();
        let mut by_colour: [ArrayVec<Plot, COLOUR_PLOTS>; 3] = Default::default();
        let mut unfenced: [ArrayVec<(Cell, u8), COLOUR_PLOTS>; 3] = Default::default();
        for (slot, (cell, code)) in b.tile_items().enumerate() {
            if code == POND_TILE {
                dry.push(0.0);
                continue;
            }
            let slot = slot as u8;
            slot_of[cell as usize] = slot;
            let colour = (code >> 2) as usize;
            colour_masks[colour].insert(cell);
            let wet = b.irrigated.has(cell);
            let d = if wet { 0.0 } else { irrigation_cost(b, cell) };
            dry.push(d);
            let imp = b.improvement(cell);
            let _ = by_colour[colour].try_push(Plot {
                slot,
                imp,
                wet,
                dry: d,
            });
            if imp != ENCLOSURE {
                let _ = unfenced[colour].try_push((cell, slot));
            }
        }
        let mut pond = CellSet::default();
        pond.insert(POND);
        let all = or(&or(&colour_masks[0], &colour_masks[1]), &colour_masks[2]);
        let masks =
            [0, 1, 2].map(|k| (or(&pond, &and_not(&all, &colour_masks[k])), colour_masks[k]));
        Layout {
            key: LayoutKey::of(b),
            slot_of,
            masks,
            dry,
            by_colour,
            unfenced,
            plot_costs: [None; MAX_CARDS],
            spaces: None,
            extra: [NO_SLOT; SIZE],
            near: Vec::with_capacity(4),
        }
    }
}

fn or(a: &CellSet, b: &CellSet) -> CellSet {
    let mut out = *a;
    for (o, w) in out.0.iter_mut().zip(&b.0) {
        *o |= w;
    }
    out
}

fn and_not(a: &CellSet, b: &CellSet) -> CellSet {
    let mut out = *a;
    for (o, w) in out.0.iter_mut().zip(&b.0) {
        *o &= !w;
    }
    out
}

/// `set >> shift`, or-ed into `into` (bit `a` of the result is bit `a + shift` of `set`),
/// for the words `words` of the result (the others are left as they are).
fn or_shifted(into: &mut CellSet, set: &CellSet, shift: usize, range: std::ops::Range<usize>) {
    let (words, bits) = (shift / 64, shift % 64);
    for i in range {
        let lo = set.0.get(i + words).copied().unwrap_or(0);
        let v = if bits == 0 {
            lo
        } else {
            let hi = set.0.get(i + words + 1).copied().unwrap_or(0);
            (lo >> bits) | (hi << (64 - bits))
        };
        into.0[i] |= v;
    }
}

/// The layouts a bot has met, by content (the reference caches them by identity and by
/// content; a cache changes no value).
#[derive(Default)]
pub struct Cache {
    layouts: Layouts,
    pows: Pows,
}

/// The layouts themselves, by the hash of their content.
#[derive(Default)]
struct Layouts {
    /// Layouts by the hash of their content (a list: two layouts may share a hash).
    index: HashMap<u64, ArrayVec<u32, 4>, FxBuild>,
    layouts: Vec<Box<Layout>>,
    /// The last layout looked up, to skip hashing when a search stays on one layout.
    last: Option<usize>,
    /// How many times the layouts were forgotten (a layout's id holds it).
    generation: u32,
    /// Layouts made (misses), for benchmarks.
    made: u64,
    /// The card table the layouts' card costs were worked out for (its address): a game of
    /// a set with other added cards starts them afresh, as card 45 is another card there.
    cards: usize,
}

/// `decay ** cost` remembered (a pure function; the heuristics ask for few pairs).
struct Pows([(u64, u64, f64); 256]);

impl Default for Pows {
    fn default() -> Pows {
        // No pair has these bits (a NaN decay): every slot starts empty.
        Pows([(u64::MAX, u64::MAX, 0.0); 256])
    }
}

impl Pows {
    fn pow(&mut self, decay: f64, cost: f64) -> f64 {
        let (d, c) = (decay.to_bits(), cost.to_bits());
        let slot = ((c ^ c >> 29 ^ d >> 7).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 56) as usize;
        let e = &mut self.0[slot];
        if e.0 == d && e.1 == c {
            return e.2;
        }
        let v = decay.powf(cost);
        *e = (d, c, v);
        v
    }
}

impl Layouts {
    /// Every layout forgotten (ids made before no longer match).
    fn forget(&mut self) {
        self.index.clear();
        self.layouts.clear();
        self.last = None;
        self.generation = self.generation.wrapping_add(1);
    }

    fn find(&mut self, b: &Board) -> usize {
        let cards = Arc::as_ptr(&b.card_set.cards) as usize;
        if cards != self.cards {
            if self.cards != 0 {
                self.forget();
            }
            self.cards = cards;
        }
        if let Some(i) = self.last {
            if self.layouts[i].key.is_of(b) {
                return i;
            }
        }
        let hash = layout_hash(b);
        let found = self.index.get(&hash).and_then(|list| {
            list.iter()
                .map(|&i| i as usize)
                .find(|&i| self.layouts[i].key.is_of(b))
        });
        let i = match found {
            Some(i) => i,
            None => {
                if self.layouts.len() >= LAYOUT_LIMIT {
                    self.forget();
                }
                if self.layouts.capacity() == 0 {
                    self.layouts.reserve(LAYOUT_LIMIT);
                    self.index.reserve(LAYOUT_LIMIT);
                }
                self.layouts.push(Box::new(Layout::new(b)));
                self.made += 1;
                let i = self.layouts.len() - 1;
                let list = self.index.entry(hash).or_default();
                if list.is_full() {
                    list.remove(0);
                }
                list.push(i as u32);
                i
            }
        };
        self.last = Some(i);
        i
    }
}

impl Cache {
    pub fn new() -> Cache {
        Cache::default()
    }

    /// The layout of a board (made and remembered on a miss).
    pub fn layout(&mut self, b: &Board) -> &mut Layout {
        let i = self.layouts.find(b);
        &mut self.layouts.layouts[i]
    }

    /// An id of the board's layout: equal for boards of one layout while the cache keeps
    /// it (a bot's own memory may key by it, as the reference's `layout_token`).
    pub fn layout_id(&mut self, b: &Board) -> u64 {
        let i = self.layouts.find(b);
        (self.layouts.generation as u64) << 32 | i as u64
    }

    /// Layouts made since the cache was created (misses), for benchmarks.
    pub fn made(&self) -> u64 {
        self.layouts.made
    }

    /// Forgets every layout (a cold start gives the same values).
    pub fn clear(&mut self) {
        let generation = self.layouts.generation.wrapping_add(1);
        *self = Cache::default();
        self.layouts.generation = generation;
    }
}

// ----------------------------------------------------------------- per-card costs

/// Channels to irrigate a plot (or a plot to come) at `cell`: near when one of its edges
/// could take a channel joined to the network, else far.
fn irrigation_cost(b: &Board, cell: Cell) -> f64 {
    let g = &*GRID;
    let Some(edges) = g.cell_edges.get(cell as usize) else {
        return IRRIGATION_FAR;
    };
    for &edge in edges {
        let (a, c) = g.edge_cells[edge as usize];
        let other = if a == cell { c } else { a };
        if other == POND || !b.occupied.has(other) || b.channels.has(edge) {
            continue;
        }
        let (e0, e1) = g.edge_ends[edge as usize];
        if (e0 != NONE && b.network.has(e0)) || (e1 != NONE && b.network.has(e1)) {
            return IRRIGATION_NEAR;
        }
    }
    IRRIGATION_FAR
}

/// Actions to lay out a plot card's pattern (the reference's `_plot_card_cost`).
fn plot_card_cost(b: &Board, layout: &mut Layout, card: u8) -> f64 {
    if let Some(cost) = layout.plot_costs[card as usize] {
        return cost;
    }
    if b.plot_objective_found(card) {
        layout.plot_costs[card as usize] = Some(0.0);
        return 0.0;
    }
    if layout.spaces.is_none() {
        let mut spaces = CellSet::default();
        for c in b.placement_spaces() {
            spaces.insert(c);
        }
        layout.spaces = Some(spaces);
    }
    let rotations = &b.card_set.card(card).shifts;
    let mut best = 0.0;
    for &(_, c) in &rotations[0] {
        best += PLOT_ACTION_COST[c as usize] + IRRIGATION_NEAR;
    }
    let g = &*GRID;
    // Anchors lie below the highest tile, and no lower than the lowest minus the pattern's
    // reach: only those words of the sets are worked out.
    let (low, high) = (layout.key.order.iter().min(), layout.key.order.iter().max());
    let (low, high) = (*low.unwrap_or(&0) as usize, *high.unwrap_or(&0) as usize);
    for rotation in rotations {
        let reach = rotation.iter().map(|&(s, _)| s as usize).max().unwrap_or(0);
        let words = low.saturating_sub(reach) / 64..(high / 64 + 1).min(CELL_WORDS);
        let mut touching = CellSet::default();
        let mut spoiled = CellSet::default();
        for &(shift, colour) in rotation {
            let (bad, good) = &layout.masks[colour as usize];
            or_shifted(&mut spoiled, bad, shift as usize, words.clone());
            or_shifted(&mut touching, good, shift as usize, words.clone());
        }
        let anchors = and_not(&touching, &spoiled);
        for anchor in anchors.iter() {
            let mut total = 0.0;
            for &(shift, colour) in rotation {
                let cell = anchor + shift;
                let on_grid = (cell as usize) < SIZE;
                if on_grid && layout.slot_of[cell as usize] != NO_SLOT {
                    total += layout.dry[layout.slot_of[cell as usize] as usize];
                    continue;
                }
                // An empty space: irrigating it, and whether a plot can go there yet.
                let known = if on_grid {
                    layout.extra[cell as usize]
                } else {
                    NO_SLOT
                };
                let more = if known != NO_SLOT {
                    known as f64
                } else {
                    let mut more = if on_grid && g.pond_ring.has(cell) {
                        0.0
                    } else {
                        irrigation_cost(b, cell)
                    };
                    if !(on_grid && layout.spaces.as_ref().is_some_and(|s| s.has(cell))) {
                        more += NOT_PLACEABLE_YET;
                    }
                    if on_grid {
                        layout.extra[cell as usize] = more as u8; // 0, 1, 2 or 3: exact
                    }
                    more
                };
                total += PLOT_ACTION_COST[colour as usize] + more;
            }
            if total < best {
                best = total;
            }
        }
    }
    layout.plot_costs[card as usize] = Some(best);
    best
}

/// Growths (or eats) to bring an irrigated bamboo from `height` to exactly `target`.
fn grow_steps(height: u8, target: u8, fertilized: bool) -> f64 {
    if height == target {
        return 0.0;
    }
    if height > target {
        return (height - target) as f64;
    }
    let gap = (target - height) as f64;
    if !fertilized {
        return gap;
    }
    if (target - height).is_multiple_of(2) {
        return gap / 2.0;
    }
    if target == 4 {
        return (gap + 1.0) / 2.0;
    }
    (gap + 1.0) / 2.0 + 1.0
}

fn grow(target: u8, fertilized: bool, height: u8) -> f64 {
    grow_steps(height.min(4), target, fertilized)
}

/// A plot not in play yet: draw and place it, irrigate it, grow it.
fn new_plot_cost(colour: usize, target: u8) -> f64 {
    PLOT_ACTION_COST[colour] + 0.5 + (target as f64 - 1.0)
}

/// Actions a gardener card still needs (the reference's `_gardener_cost`).
fn gardener_cost(b: &Board, layout: &Layout, card: u8, stored: &[u8; 4]) -> f64 {
    let c = &b.card_set.card(card);
    let (colour, target, need) = (c.colour as usize, c.height, c.improvement);
    let reserve = &b.reserve_improvements;
    if c.shoots == 1 {
        let mut best = UNREACHABLE;
        for p in &layout.by_colour[colour] {
            let mut extra = 0.0;
            let mut imp = p.imp;
            if need > 0 && imp as i8 != need {
                if imp != 0 || b.heights[p.slot as usize] != 0 {
                    continue;
                }
                if stored[need as usize] != 0 {
                    extra = IMPROVEMENT_FROM_STOCK;
                } else if reserve[need as usize] != 0 {
                    extra = IMPROVEMENT_FROM_CLOUDS;
                } else {
                    continue;
                }
                imp = need as u8;
            } else if need == 0 && imp != 0 {
                continue;
            }
            let fert = imp == FERTILIZER;
            let first = if fert { 2 } else { 1 };
            let cost = if p.wet {
                extra + grow(target, fert, b.heights[p.slot as usize])
            } else if imp == 1 {
                extra + grow(target, fert, first)
            } else {
                extra + p.dry + grow(target, fert, first)
            };
            if cost < best {
                best = cost;
                if cost == 0.0 {
                    break;
                }
            }
        }
        let mut fresh = new_plot_cost(colour, target);
        if need > 0 {
            fresh += if stored[need as usize] != 0 {
                IMPROVEMENT_FROM_STOCK
            } else {
                IMPROVEMENT_FROM_CLOUDS
            };
        }
        return if fresh < best { fresh } else { best };
    }
    let mut costs: ArrayVec<f64, MAX_TILES> = ArrayVec::new();
    for p in &layout.by_colour[colour] {
        let fert = p.imp == FERTILIZER;
        if p.wet {
            costs.push(grow(target, fert, b.heights[p.slot as usize]));
        } else {
            let first = if fert { 2 } else { 1 };
            let base = if p.imp == 1 { 0.0 } else { p.dry };
            costs.push(base + grow(target, fert, first));
        }
    }
    costs.sort_by(|a, b| a.total_cmp(b));
    let n = c.shoots as usize;
    let mut total = 0.0;
    for &x in costs.iter().take(n) {
        total += x;
    }
    if costs.len() < n {
        total += (n - costs.len()) as f64 * new_plot_cost(colour, target);
    }
    total
}

/// Per colour: unfenced sections on the board, and whether one is a panda move away.
pub type PandaBamboo = ([u32; 3], [bool; 3]);

fn bamboo_for_panda(b: &Board, layout: &mut Layout) -> PandaBamboo {
    let panda = b.panda;
    let k = match layout.near.iter().position(|(c, _)| *c == panda) {
        Some(k) => k,
        None => {
            let mut reachable = CellSet::default();
            for ray in &GRID.rays[panda as usize] {
                for &cell in ray {
                    if !b.has_tile(cell) {
                        break;
                    }
                    reachable.insert(cell);
                }
            }
            let near = [0, 1, 2].map(|k| {
                layout.unfenced[k]
                    .iter()
                    .filter(|&&(c, _)| reachable.has(c))
                    .map(|&(_, slot)| slot)
                    .collect()
            });
            layout.near.push((panda, near));
            layout.near.len() - 1
        }
    };
    let h = &b.heights;
    let near = &layout.near[k].1;
    let avail = [0, 1, 2].map(|k| {
        layout.unfenced[k]
            .iter()
            .map(|&(_, slot)| h[slot as usize] as u32)
            .sum()
    });
    let reach = [0, 1, 2].map(|k| near[k].iter().any(|&slot| h[slot as usize] != 0));
    (avail, reach)
}

/// Costs of the hand's panda cards, sharing the stock out nearest card first, in the
/// order the reference's dict holds them; and the sections no card claims (spare).
pub fn panda_costs(
    bamboo: &PandaBamboo,
    cards: &[u8],
    stock: &[u32; 3],
    set: &CardSet,
) -> (ArrayVec<(u8, f64), MAX_HAND>, u32) {
    let (mut avail, reach) = (bamboo.0, bamboo.1);
    let mut left = *stock;
    let mut order: ArrayVec<u8, MAX_HAND> = cards.iter().copied().collect();
    if cards.len() > 1 {
        let missing = |card: &u8| -> u32 {
            let n = set.card(*card).eat;
            (0..3).map(|k| (n[k] as u32).saturating_sub(stock[k])).sum()
        };
        order.sort_by_key(missing); // stable, as `sorted`
    }
    let mut out = ArrayVec::new();
    for &card in &order {
        let need = set.card(card).eat;
        let mut cost = 0.0;
        for k in 0..3 {
            let asked = need[k] as u32;
            if asked == 0 {
                continue;
            }
            let have = left[k].min(asked);
            left[k] -= have;
            let short = asked - have;
            if short != 0 {
                let on_board = short.min(avail[k]);
                avail[k] -= on_board;
                cost += on_board as f64 + 2.0 * (short - on_board) as f64;
                if !reach[k] {
                    cost += 0.5;
                }
            }
        }
        out.push((card, cost));
    }
    (out, left[0] + left[1] + left[2])
}

// ----------------------------------------------------------------- snapshots

/// Per card of a hand, the actions it still needs, in the order the reference's dict of
/// costs iterates them (the hand's plot and gardener cards, then its panda cards nearest
/// first).
pub type Costs = ArrayVec<(u8, f64), MAX_HAND>;

/// The cost of one card in a list of costs.
pub fn cost_of(costs: &Costs, card: u8) -> Option<f64> {
    costs.iter().find(|(c, _)| *c == card).map(|&(_, v)| v)
}

/// The cards each seat may still draw per category, as an observer counts them (what
/// [`Snapshot::expected_hand_value`] averages over); empty pools are skipped.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Pools(pub [Vec<u8>; 3]);

/// One board read for several questions (the reference's `Snapshot`): the layout and the
/// bamboo within the panda's reach are looked up once.
pub struct Snapshot<'a, P: Position> {
    pub pos: &'a P,
    layout: &'a mut Layout,
    pows: &'a mut Pows,
    points: &'a [f64],
    panda: Option<PandaBamboo>,
    /// Sums over a pool by (category, decay, race, what they read of the seat).
    pools: ArrayVec<([u64; 5], f64), 16>,
}

impl<'a, P: Position> Snapshot<'a, P> {
    pub fn new(pos: &'a P, cache: &'a mut Cache, points: &'a [f64]) -> Snapshot<'a, P> {
        let i = cache.layouts.find(pos.board());
        Snapshot {
            pos,
            layout: &mut cache.layouts.layouts[i],
            pows: &mut cache.pows,
            points,
            panda: None,
            pools: ArrayVec::new(),
        }
    }

    fn board(&self) -> &'a Board {
        self.pos.board()
    }

    /// The bamboo for the panda cards, worked out once.
    pub fn panda_bamboo(&mut self) -> PandaBamboo {
        if let Some(found) = self.panda {
            return found;
        }
        let found = bamboo_for_panda(self.pos.board(), self.layout);
        self.panda = Some(found);
        found
    }

    /// Per card of `hand`: the actions it still needs; and the spare sections.
    pub fn costs(&mut self, seat: u8, hand: &[u8]) -> (Costs, u32) {
        let b = self.board();
        let mut out = Costs::new();
        let mut pandas: ArrayVec<u8, MAX_HAND> = ArrayVec::new();
        let stored = b.stored_improvements[seat as usize];
        for &card in hand {
            match category(b, card) {
                PANDA_CARD => pandas.push(card),
                GARDENER_CARD => {
                    let cost = if b.gardener_objective_found(card) {
                        0.0
                    } else {
                        gardener_cost(b, self.layout, card, &stored)
                    };
                    out.push((card, cost));
                }
                _ => out.push((card, plot_card_cost(b, self.layout, card))),
            }
        }
        let stock = b.eaten[seat as usize];
        let mut spare = stock[0] + stock[1] + stock[2];
        if !pandas.is_empty() {
            let bamboo = self.panda_bamboo();
            let (panda, left) = panda_costs(&bamboo, &pandas, &stock, &b.card_set);
            spare = left;
            out.extend(panda);
        }
        (out, spare)
    }

    /// The actions a card needs when it is the only one asked about (a panda card then
    /// has the whole stock), as the reference's `card_cost`.
    pub fn card_cost(&mut self, seat: u8, card: u8) -> f64 {
        self.costs(seat, &[card]).0[0].1
    }

    /// The costs of many cards of one category (a pool), one per card, in pool order; for
    /// panda cards each as if alone in the hand.
    fn pool_costs(&mut self, seat: u8, pool: &[u8], out: &mut Vec<f64>) {
        let b = self.board();
        out.clear();
        let stored = b.stored_improvements[seat as usize];
        for &card in pool {
            out.push(match category(b, card) {
                GARDENER_CARD => {
                    if b.gardener_objective_found(card) {
                        0.0
                    } else {
                        gardener_cost(b, self.layout, card, &stored)
                    }
                }
                PLOT_CARD => plot_card_cost(b, self.layout, card),
                _ => self.card_cost(seat, card),
            });
        }
    }

    /// The evaluation (the reference's `Snapshot.evaluate`), and the costs of the hand's
    /// cards it read (empty for a hand it cannot see).  `horizon` None: the actions left
    /// as `actions_horizon` reckons them once someone holds the Emperor.
    pub fn evaluate(&mut self, seat: u8, w: &Weights, horizon: Option<i64>) -> (f64, Costs) {
        let b = self.board();
        let mut total = w.score * score(b, seat, self.points);
        if w.race != 0.0 {
            total += w.score * w.race * b.completed[seat as usize].len() as f64;
        }
        let mut costs = Costs::new();
        match self.pos.known_hand(seat) {
            None => {
                total += UNKNOWN_CARD_VALUE * self.pos.hand_categories(seat).len() as f64;
            }
            Some(hand) => {
                let (c, spare) = self.costs(seat, hand);
                costs = c;
                let horizon = horizon.unwrap_or_else(|| {
                    if b.emperor >= 0 {
                        actions_horizon(b, seat)
                    } else {
                        NO_HORIZON
                    }
                });
                for &(card, cost) in &costs {
                    if cost < UNREACHABLE {
                        let mut value =
                            (self.points[card as usize] + w.race) * self.pows.pow(w.decay, cost);
                        if cost > horizon as f64 {
                            value *= LATE_FACTOR;
                        }
                        total += value;
                    }
                }
                total += w.spare_section * spare.min(SPARE_SECTION_CAP) as f64;
            }
        }
        let stored = b.stored_improvements[seat as usize];
        total += w.channel * b.stored_channels[seat as usize] as f64;
        total += w.improvement * (stored[1] as u32 + stored[2] as u32 + stored[3] as u32) as f64;
        (total, costs)
    }

    /// What another seat's hidden hand is expected to be worth on this board (the
    /// reference's `expected_hand_value`): each card it holds is any card of its pool,
    /// equally likely, valued with that seat's stock and stored improvements.
    pub fn expected_hand_value(&mut self, seat: u8, pools: &Pools, decay: f64, race: f64) -> f64 {
        let categories = self.pos.hand_categories(seat);
        if categories.is_empty() {
            return 0.0;
        }
        let b = self.board();
        let stored = b.stored_improvements[seat as usize];
        let stock = b.eaten[seat as usize];
        let mut total = 0.0;
        for category in [PLOT_CARD, GARDENER_CARD, PANDA_CARD] {
            let n = categories.iter().filter(|&&c| c == category).count();
            let pool = &pools.0[category as usize];
            if n == 0 || pool.is_empty() {
                continue;
            }
            let reads: [u64; 2] = match category {
                PANDA_CARD => [
                    stock[0] as u64 | (stock[1] as u64) << 21 | (stock[2] as u64) << 42,
                    0,
                ],
                GARDENER_CARD => [
                    (stored[1] > 0) as u64
                        | ((stored[2] > 0) as u64) << 1
                        | ((stored[3] > 0) as u64) << 2,
                    0,
                ],
                _ => [0, 0],
            };
            let key = [
                category as u64,
                decay.to_bits(),
                race.to_bits(),
                reads[0],
                reads[1],
            ];
            let values = match self.pools.iter().find(|(k, _)| *k == key) {
                Some(&(_, v)) => v,
                None => {
                    let v = self.pool_sum(category, pool, decay, race, seat);
                    if self.pools.is_full() {
                        self.pools.clear();
                    }
                    self.pools.push((key, v));
                    v
                }
            };
            total += n as f64 * values / pool.len() as f64;
        }
        total
    }

    /// Σ over `pool` of each card's worth to `seat` (the reference's `_pool_sum`).
    fn pool_sum(&mut self, category: u8, pool: &[u8], decay: f64, race: f64, seat: u8) -> f64 {
        let b = self.board();
        let stored = b.stored_improvements[seat as usize];
        let stock = b.eaten[seat as usize];
        let points = self.points;
        let mut values = 0.0;
        match category {
            PANDA_CARD => {
                let (avail, reach) = self.panda_bamboo();
                let mut discounts: ArrayVec<([u8; 3], f64), 16> = ArrayVec::new();
                for &card in pool {
                    let need = b.card_set.card(card).eat;
                    let discount = match discounts.iter().find(|(n, _)| *n == need) {
                        Some(&(_, d)) => d,
                        None => {
                            let mut cost = 0.0;
                            for k in 0..3 {
                                let short = need[k] as i64 - stock[k] as i64;
                                if short > 0 {
                                    let on_board = if short <= avail[k] as i64 {
                                        short
                                    } else {
                                        avail[k] as i64
                                    };
                                    cost += on_board as f64
                                        + 2.0 * (short - on_board) as f64
                                        + if reach[k] { 0.0 } else { 0.5 };
                                }
                            }
                            let d = self.pows.pow(decay, cost);
                            if !discounts.is_full() {
                                discounts.push((need, d));
                            }
                            d
                        }
                    };
                    values += (points[card as usize] + race) * discount;
                }
            }
            GARDENER_CARD => {
                for &card in pool {
                    if b.gardener_objective_found(card) {
                        values += points[card as usize] + race;
                    } else {
                        let cost = gardener_cost(b, self.layout, card, &stored);
                        if cost < UNREACHABLE {
                            values += (points[card as usize] + race) * self.pows.pow(decay, cost);
                        }
                    }
                }
            }
            _ => {
                for &card in pool {
                    let cost = plot_card_cost(b, self.layout, card);
                    values += (points[card as usize] + race) * self.pows.pow(decay, cost);
                }
            }
        }
        values
    }
}

// ----------------------------------------------------------------- module functions

/// The value of a position for `seat` (the reference's `evaluate`).
pub fn evaluate<P: Position>(
    pos: &P,
    seat: u8,
    w: &Weights,
    horizon: Option<i64>,
    cache: &mut Cache,
    points: &[f64],
) -> f64 {
    Snapshot::new(pos, cache, points)
        .evaluate(seat, w, horizon)
        .0
}

/// The seat's own hand as the position shows it (empty for another seat of a view).
pub fn own_hand<P: Position>(pos: &P, seat: u8) -> &[u8] {
    pos.known_hand(seat).unwrap_or(&[])
}

/// Cards of a category `seat` could draw, from what it may know (the reference's
/// `unseen_for`).
pub fn unseen_for<P: Position + AsView>(pos: &P, seat: u8, category: u8) -> Vec<u8> {
    if let Some(view) = pos.as_view() {
        if view.seat == seat {
            return view.unseen_cards(category as usize);
        }
    }
    let b = pos.board();
    let mut seen = 0u64;
    for done in &b.completed[..b.players as usize] {
        for &c in done {
            seen |= 1 << c;
        }
    }
    for &c in own_hand(pos, seat) {
        seen |= 1 << c;
    }
    b.card_set.decks[category as usize]
        .iter()
        .copied()
        .filter(|&c| seen >> c & 1 == 0)
        .collect()
}

/// Whether a position is a view (what `unseen_for` asks).
pub trait AsView {
    fn as_view(&self) -> Option<&View>;
}

impl AsView for View {
    fn as_view(&self) -> Option<&View> {
        Some(self)
    }
}

impl AsView for State {
    fn as_view(&self) -> Option<&View> {
        None
    }
}

/// Expected value (as in `evaluate`) of one card drawn from a category's deck (the
/// reference's `draw_value`).
pub fn draw_value<P: Position + AsView>(
    pos: &P,
    seat: u8,
    category: u8,
    decay: f64,
    race: f64,
    cache: &mut Cache,
    points: &[f64],
) -> f64 {
    let pool = unseen_for(pos, seat, category);
    if pool.is_empty() {
        return 0.0;
    }
    let hand = own_hand(pos, seat);
    let mut snap = Snapshot::new(pos, cache, points);
    let mut total = 0.0;
    if category == PANDA_CARD {
        let mut cards: ArrayVec<u8, 8> = hand
            .iter()
            .copied()
            .filter(|&c| pos.board().card_set.card(c).category == PANDA_CARD)
            .collect();
        let bamboo = snap.panda_bamboo();
        let stock = pos.board().eaten[seat as usize];
        let n = cards.len();
        for &card in &pool {
            cards.truncate(n);
            cards.push(card);
            let (costs, _) = panda_costs(&bamboo, &cards, &stock, &pos.board().card_set);
            let cost = cost_of(&costs, card).unwrap_or(UNREACHABLE);
            total += card_value(points[card as usize] + race, cost, decay, NO_HORIZON);
        }
        return total / pool.len() as f64;
    }
    let mut costs = Vec::with_capacity(pool.len());
    snap.pool_costs(seat, &pool, &mut costs);
    for (&card, &cost) in pool.iter().zip(&costs) {
        total += card_value(points[card as usize] + race, cost, decay, NO_HORIZON);
    }
    total / pool.len() as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grow_steps_as_the_reference() {
        assert_eq!(grow_steps(0, 4, true), 2.0);
        assert_eq!(grow_steps(1, 4, true), 2.0);
        assert_eq!(grow_steps(0, 3, true), 3.0);
        assert_eq!(grow_steps(4, 3, false), 1.0);
        assert_eq!(grow_steps(1, 3, false), 2.0);
    }

    #[test]
    fn shifting_a_set_moves_its_bits_down() {
        let mut s = CellSet::default();
        s.insert(130);
        s.insert(64);
        let mut out = CellSet::default();
        or_shifted(&mut out, &s, 65, 0..CELL_WORDS);
        assert_eq!(out.iter().collect::<Vec<_>>(), vec![65]);
        let mut out = CellSet::default();
        or_shifted(&mut out, &s, 0, 0..CELL_WORDS);
        assert_eq!(out.iter().collect::<Vec<_>>(), vec![64, 130]);
    }
}
