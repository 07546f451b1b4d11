//! The game state and its forward model: legal actions, apply, copy, result.
//!
//! A port of the reference's `state.py` and `board.py`, decision for decision: the legal
//! actions come in the same order, forced steps are taken the same way, the generator is
//! drawn from at the same moments.  The public board (`Board`) is what a state and a view
//! have in common; the hidden parts are the state's own.

use std::sync::Arc;

use arrayvec::ArrayVec;

use crate::actions::*;
use crate::components::*;
use crate::error::Error;
use crate::grid::{self, Cell, CellSet, CornerSet, Edge, EdgeSet, GRID, POND};
use crate::history::Entry;
use crate::options::{RuleOptions, Rules};
use crate::rng;

pub const STEP_ROLL: u8 = 0;
pub const STEP_CHOOSE_WEATHER: u8 = 1;
pub const STEP_RAIN: u8 = 2;
pub const STEP_STORM: u8 = 3;
pub const STEP_CLOUDS: u8 = 4;
pub const STEP_ACTIONS: u8 = 5;
pub const STEP_PLACE: u8 = 6;
pub const STEP_REDRAW: u8 = 7;
pub const STEP_NAMES: [&str; 8] = [
    "roll",
    "choose_weather",
    "rain",
    "storm",
    "clouds",
    "actions",
    "place",
    "redraw",
];

/// No seat (no Emperor yet).
pub const NO_SEAT: i8 = -1;
/// Tiles a board holds at most: a game has the pond and 27 plots; a position read from a
/// file may hold more, and is refused for it when its plots are counted, as the
/// reference refuses it (beyond this many, at once).
pub const MAX_TILES: usize = 64;
/// Cards per objective deck at most (15 printed per category, the rest for added cards).
pub const MAX_DECK: usize = 32;
/// Objectives in hand at most (R10.2).
pub const MAX_HAND: usize = 5;
/// The legal actions at one decision fit in this (the place step bounds it: three plots,
/// every space, four improvements, two orders, beside the free moves).
pub const MAX_LEGAL: usize = 2048;
/// Height-4 plots by (colour, improvement) at `colour * 4 + improvement`, height-3 plots by
/// colour at `12 + colour`.
pub const SHOOT_COUNTERS: usize = 15;

pub type Legal = ArrayVec<Action, MAX_LEGAL>;

/// Counter slot of a plot with this bamboo, or None when it counts for no objective.
pub fn shoot_slot(colour: u8, height: u8, improvement: u8) -> Option<usize> {
    match height {
        4 => Some(colour as usize * 4 + improvement as usize),
        3 => Some(12 + colour as usize),
        _ => None,
    }
}

/// Which plot cards' patterns are on the board, as worked out for the irrigation of so
/// many plots (irrigation only grows in a game, so the count names it): the count in the
/// top byte and a bit per card worked out below it; and a bit per card found.  Not part of
/// what a board is (equal boards may remember different cards).  Atomics, so that a board
/// can be shared between threads (a Python object may be).
#[derive(Debug, Default)]
pub struct Memo {
    known: std::sync::atomic::AtomicU64,
    found: std::sync::atomic::AtomicU64,
}

impl Clone for Memo {
    fn clone(&self) -> Memo {
        use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
        Memo {
            known: AtomicU64::new(self.known.load(Relaxed)),
            found: AtomicU64::new(self.found.load(Relaxed)),
        }
    }
}

impl PartialEq for Memo {
    fn eq(&self, _other: &Memo) -> bool {
        true
    }
}

/// The public game: what every seat sees, and the questions the rules ask of it.
#[derive(Clone, Debug, PartialEq)]
pub struct Board {
    pub players: u8,
    pub options: Arc<RuleOptions>,
    pub rules: Rules,
    pub card_set: Arc<CardSet>,
    pub round: u32,
    pub current: u8,
    pub step: u8,
    pub weather: i8,
    pub taken: ArrayVec<u8, 4>,
    pub put_back: [u8; 3],
    /// Tiles in play, the pond first, then the plots in the order they were placed.
    pub order: ArrayVec<Cell, MAX_TILES>,
    pub codes: ArrayVec<u8, MAX_TILES>,
    pub heights: ArrayVec<u8, MAX_TILES>,
    pub occupied: CellSet,
    /// Improvements on plots, in the order they were put there (the reference's dict).
    pub improvements: ArrayVec<(Cell, u8), MAX_TILES>,
    pub irrigated: CellSet,
    pub irrigated_by_colour: [CellSet; 3],
    pub channels: EdgeSet,
    pub network: CornerSet,
    pub shoots: [u8; SHOOT_COUNTERS],
    pub gardener: Cell,
    pub panda: Cell,
    pub reserve_channels: u32,
    pub reserve_improvements: [u8; 4],
    /// Per plot-deck place (top first), a bit per seat that knows the plot there.
    pub plot_known: ArrayVec<u8, 27>,
    pub objective_known: [ArrayVec<u8, MAX_DECK>; 3],
    pub completed: [ArrayVec<u8, 48>; 4],
    pub eaten: [[u32; 3]; 4],
    pub stored_channels: [u32; 4],
    pub stored_improvements: [[u8; 4]; 4],
    pub emperor: i8,
    pub last_turns: i32,
    pub ended: bool,
    pub capped: bool,
    /// Plot objectives found, by irrigation (`forget_plots` when irrigation is set by hand).
    pub plot_memo: Memo,
}

impl Board {
    /// Drops what the board remembers of plot patterns (irrigation was set, not grown).
    pub fn forget_plots(&self) {
        self.plot_memo
            .known
            .store(0, std::sync::atomic::Ordering::Relaxed);
    }

    fn slot(&self, cell: Cell) -> Option<usize> {
        if !self.occupied.has(cell) {
            return None;
        }
        self.order.iter().position(|&c| c == cell)
    }

    /// Whether a tile (or the pond) is at a cell.
    pub fn has_tile(&self, cell: Cell) -> bool {
        self.occupied.has(cell)
    }

    /// The tile code at a cell (the pond's is `POND_TILE`).
    pub fn tile(&self, cell: Cell) -> Option<u8> {
        self.slot(cell).map(|i| self.codes[i])
    }

    /// Bamboo on a plot (0 where none or no plot).
    pub fn bamboo(&self, cell: Cell) -> u8 {
        self.slot(cell).map_or(0, |i| self.heights[i])
    }

    fn set_height(&mut self, cell: Cell, h: u8) {
        if let Some(i) = self.slot(cell) {
            self.heights[i] = h;
        }
    }

    /// The improvement on a plot (0: none).
    pub fn improvement(&self, cell: Cell) -> u8 {
        self.improvements
            .iter()
            .find(|(c, _)| *c == cell)
            .map_or(0, |&(_, i)| i)
    }

    /// The colour of the plot at a cell (-1 for the pond and empty spaces).
    pub fn colour(&self, cell: Cell) -> i8 {
        match self.tile(cell) {
            None | Some(POND_TILE) => -1,
            Some(code) => (code >> 2) as i8,
        }
    }

    /// Cells of the plots, in the order they were placed.
    pub fn plots(&self) -> impl Iterator<Item = Cell> + '_ {
        self.order.iter().skip(1).copied()
    }

    /// `(cell, height)` of the plots, in the order they were placed (the reference's bamboo).
    pub fn bamboo_items(&self) -> impl Iterator<Item = (Cell, u8)> + '_ {
        self.order
            .iter()
            .zip(&self.heights)
            .skip(1)
            .map(|(&c, &h)| (c, h))
    }

    /// `(cell, code)` of the tiles, the pond first.
    pub fn tile_items(&self) -> impl Iterator<Item = (Cell, u8)> + '_ {
        self.order.iter().zip(&self.codes).map(|(&c, &t)| (c, t))
    }

    /// Puts a tile (tiles are never removed).
    pub fn put_tile(&mut self, cell: Cell, code: u8, height: u8) {
        self.order.push(cell);
        self.codes.push(code);
        self.heights.push(height);
        self.occupied.insert(cell);
    }

    /// Empty spaces where a plot may go (R5.2), in cell order.
    pub fn placement_spaces(&self) -> ArrayVec<Cell, 128> {
        let g = &*GRID;
        let mut candidates = CellSet::default();
        for &c in &self.order {
            for &n in &g.neighbours[c as usize] {
                if !self.occupied.has(n) {
                    candidates.insert(n);
                }
            }
        }
        let mut out = ArrayVec::new();
        for n in candidates.iter() {
            if g.pond_ring.has(n) {
                out.push(n);
                continue;
            }
            let touching = g.neighbours[n as usize]
                .iter()
                .filter(|&&m| self.occupied.has(m))
                .count();
            if touching >= 2 {
                out.push(n);
            }
        }
        out
    }

    /// Edges where a channel may go now (R6.2, R6.3), in edge order.
    ///
    /// A search asks this of the same few layouts again and again (every sample of a view
    /// starts from its board): the last layouts' answers are remembered per thread, by
    /// everything the answer reads (the network, the channels, the tiles in play).
    pub fn channel_spots(&self) -> ArrayVec<Edge, 256> {
        self.with_channel_spots(|spots| spots.iter().copied().collect())
    }

    /// `f` of the channel spots (read in place: no copy of the list).
    pub fn with_channel_spots<T>(&self, f: impl FnOnce(&[Edge]) -> T) -> T {
        SPOTS.with(|memo| {
            let mut memo = memo.borrow_mut();
            let (entries, next) = &mut *memo;
            let i = match entries.iter().position(|m| {
                m.occupied == self.occupied
                    && m.channels == self.channels
                    && m.network == self.network
            }) {
                Some(i) => i,
                None => {
                    let m = SpotsMemo {
                        channels: self.channels,
                        occupied: self.occupied,
                        network: self.network,
                        spots: self.find_channel_spots(),
                    };
                    if entries.is_full() {
                        let i = *next;
                        entries[i] = m;
                        *next = (i + 1) % entries.len();
                        i
                    } else {
                        entries.push(m);
                        entries.len() - 1
                    }
                }
            };
            f(&entries[i].spots)
        })
    }

    fn find_channel_spots(&self) -> ArrayVec<Edge, 256> {
        let g = &*GRID;
        // A set, read in edge order: each edge once, sorted, whatever the corners' order.
        let mut spots = EdgeSet::default();
        for corner in self.network.iter() {
            for &e in &g.corner_edges[corner as usize] {
                if e == grid::NONE || self.channels.has(e) || g.pond_edges.has(e) {
                    continue;
                }
                let (a, b) = g.edge_cells[e as usize];
                if self.occupied.has(a) && self.occupied.has(b) {
                    spots.insert(e);
                }
            }
        }
        spots.iter().take(256).collect()
    }

    /// Plots that may take an improvement: none yet and no bamboo (R11.1), placement order.
    pub fn improvable_plots(&self) -> ArrayVec<Cell, MAX_TILES> {
        self.bamboo_items()
            .filter(|&(c, h)| h == 0 && self.improvement(c) == 0)
            .map(|(c, _)| c)
            .collect()
    }

    /// Plots whose improvement is a token, not printed, in the order they were put there.
    pub fn token_improvements(&self) -> ArrayVec<Cell, MAX_TILES> {
        self.improvements
            .iter()
            .filter(|(c, _)| self.tile(*c).is_some_and(|t| t & 3 == 0))
            .map(|&(c, _)| c)
            .collect()
    }

    /// Plots that rain would grow (R4.2): irrigated, below 4, supply left; in cell order.
    pub fn rain_targets(&self) -> ArrayVec<Cell, MAX_TILES> {
        let mut out = ArrayVec::new();
        for c in self.irrigated.iter() {
            let Some(i) = self.slot(c) else { continue };
            if self.heights[i] >= 4 {
                continue;
            }
            if self.rules.bamboo_limited && self.supply_left(self.codes[i] >> 2) <= 0 {
                continue;
            }
            out.push(c);
        }
        out
    }

    /// Sections of a colour still in the reserve (R1.5, option `bamboo_supply`).
    pub fn supply_left(&self, colour: u8) -> i64 {
        let mut used: i64 = 0;
        for (i, &code) in self.codes.iter().enumerate().skip(1) {
            if code >> 2 == colour {
                used += self.heights[i] as i64;
            }
        }
        for e in &self.eaten[..self.players as usize] {
            used += e[colour as usize] as i64;
        }
        COMPONENTS.bamboo_sections[colour as usize] as i64 - used
    }

    /// Points per seat now (R13.3).
    pub fn scores(&self) -> ArrayVec<i64, 4> {
        (0..self.players).map(|s| self.score(s)).collect()
    }

    /// One seat's points: completed objectives plus the Emperor.
    pub fn score(&self, seat: u8) -> i64 {
        let points = &self.card_set.points;
        let mut total: i64 = self.completed[seat as usize]
            .iter()
            .map(|&c| points[c as usize] as i64)
            .sum();
        if self.emperor == seat as i8 {
            total += self.rules.emperor_points as i64;
        }
        total
    }

    /// Whether a plot card's pattern lies on irrigated plots of its colours (R10.3).
    pub fn plot_objective_found(&self, card: u8) -> bool {
        use std::sync::atomic::Ordering::Relaxed;
        if card >= 56 {
            // The memo keeps a bit for 56 cards (its top byte is the board's count); an
            // added card beyond them is looked for each time.
            return self.plot_pattern_here(card);
        }
        let count = self.irrigated.len() as u64 + 1;
        let bit = 1u64 << card;
        let memo = &self.plot_memo;
        let (mut known, mut found) = (memo.known.load(Relaxed), memo.found.load(Relaxed));
        if known >> 56 != count {
            (known, found) = (count << 56, 0);
        }
        if known & bit != 0 {
            return found & bit != 0;
        }
        let here = self.plot_pattern_here(card);
        if here {
            found |= bit;
        }
        memo.found.store(found, Relaxed);
        memo.known.store(known | bit, Relaxed);
        here
    }

    /// Whether some rotation of a plot card's pattern lies on irrigated plots (no memo).
    fn plot_pattern_here(&self, card: u8) -> bool {
        let cells = self.irrigated_cells();
        self.card_set
            .card(card)
            .shifts
            .iter()
            .any(|rotation| self.rotation_anchors(rotation, &cells).next().is_some())
    }

    /// The irrigated plots of each colour, in cell order.
    fn irrigated_cells(&self) -> [ArrayVec<Cell, MAX_TILES>; 3] {
        let mut out: [ArrayVec<Cell, MAX_TILES>; 3] = Default::default();
        for (k, set) in self.irrigated_by_colour.iter().enumerate() {
            for c in set.iter() {
                if out[k].try_push(c).is_err() {
                    break;
                }
            }
        }
        out
    }

    /// The anchors (smallest cell) of a rotation's placements, in increasing order.
    fn rotation_anchors<'a>(
        &'a self,
        rotation: &'a [(u16, u8)],
        cells: &'a [ArrayVec<Cell, MAX_TILES>; 3],
    ) -> impl Iterator<Item = Cell> + 'a {
        // The rotation's cell of shift 0 is its anchor: try each irrigated plot of its colour.
        let first = rotation
            .iter()
            .find(|(s, _)| *s == 0)
            .map_or(0, |&(_, c)| c);
        cells[first as usize]
            .iter()
            .copied()
            .filter(move |&anchor| {
                rotation.iter().all(|&(shift, colour)| {
                    let cell = anchor as usize + shift as usize;
                    cell < grid::SIZE && self.irrigated_by_colour[colour as usize].has(cell as u16)
                })
            })
    }

    /// Every placement of a plot card's pattern, as its cells (the reference's order).
    pub fn plot_pattern_places(&self, card: u8) -> Vec<Vec<Cell>> {
        let cells = self.irrigated_cells();
        let mut out = Vec::new();
        for rotation in &self.card_set.card(card).shifts {
            for anchor in self.rotation_anchors(rotation, &cells) {
                out.push(rotation.iter().map(|&(s, _)| anchor + s).collect());
            }
        }
        out
    }

    /// Whether a gardener card's shoots are on the board now (R10.4, R10.5).
    pub fn gardener_objective_found(&self, card: u8) -> bool {
        let c = &self.card_set.card(card);
        if card as usize >= COMPONENTS.cards.len() {
            return self.added_gardener_found(c);
        }
        let shoots = &self.shoots;
        let colour = c.colour as usize;
        if c.shoots == 1 {
            let count: u32 = if c.improvement < 0 {
                shoots[colour * 4..colour * 4 + 4]
                    .iter()
                    .map(|&x| x as u32)
                    .sum()
            } else {
                shoots[colour * 4 + c.improvement as usize] as u32
            };
            if count == 0 {
                return false;
            }
        } else if shoots[12 + colour] < c.shoots {
            return false;
        }
        // Shoots of height 3 are counted by colour only (their improvement is not asked).
        self.gardener_stands_on(c, c.shoots == 1)
    }

    /// Whether the plot at `cell` shows a gardener card's shoot: its colour, exactly its
    /// height and, when `improvement` says so, the improvement it asks.
    fn shows(&self, cell: Cell, c: &Card, improvement: bool) -> bool {
        self.colour(cell) == c.colour
            && self.bamboo(cell) == c.height
            && (!improvement || c.improvement < 0 || self.improvement(cell) as i8 == c.improvement)
    }

    /// The gardener card's last condition under the option `gardener_on_shoot`: the
    /// gardener stands on such a shoot (R10.5).
    fn gardener_stands_on(&self, c: &Card, improvement: bool) -> bool {
        !self.rules.gardener_on_shoot
            || (self.gardener != POND && self.shows(self.gardener, c, improvement))
    }

    /// `gardener_objective_found` for a card a set adds, whose condition the shoot counters
    /// may not hold (they count height 4 by improvement and height 3 by colour, what the
    /// printed cards ask): its plots counted on the board, of its colour, at exactly its
    /// height, with its improvement (`none`: without one; `any`: whatever), as the
    /// reference's `added_gardener_found`.
    fn added_gardener_found(&self, c: &Card) -> bool {
        let count = self
            .plots()
            .filter(|&cell| self.shows(cell, c, true))
            .count();
        count >= c.shoots as usize && self.gardener_stands_on(c, true)
    }

    /// Whether a stock holds the sections of a panda card (R10.6).
    pub fn panda_objective_found(&self, seat: u8, card: u8) -> bool {
        let need = self.card_set.card(card).eat;
        let e = self.eaten[seat as usize];
        (0..3).all(|i| e[i] >= need[i] as u32)
    }

    /// Whether a card's condition holds now for a seat (R10.3-R10.6).
    pub fn objective_found(&self, seat: u8, card: u8) -> bool {
        match self.card_set.card(card).category {
            PANDA_CARD => self.panda_objective_found(seat, card),
            GARDENER_CARD => self.gardener_objective_found(card),
            _ => self.plot_objective_found(card),
        }
    }

    /// Actions the current seat may still take this turn (R3.3, R4.1).
    pub fn actions_left(&self) -> i64 {
        (if self.weather == FACE_SUN { 3 } else { 2 }) - self.taken.len() as i64
    }
}

/// A layout's channel spots, remembered with what they were worked out from.
struct SpotsMemo {
    channels: EdgeSet,
    occupied: CellSet,
    network: CornerSet,
    spots: ArrayVec<Edge, 256>,
}

thread_local! {
    /// The channel spots of the last layouts asked about, and the entry to replace next.
    static SPOTS: std::cell::RefCell<(ArrayVec<SpotsMemo, 4>, usize)> =
        const { std::cell::RefCell::new((ArrayVec::new_const(), 0)) };
}

/// The history of a game, or None when it is not kept.  Cloning a state drops it (a search
/// copies states by the thousand); `State::copy(true)` keeps it.
#[derive(Debug, Default, PartialEq)]
pub struct History(pub Option<Vec<Entry>>);

impl Clone for History {
    fn clone(&self) -> Self {
        History(None)
    }
}

impl History {
    fn push(&mut self, entry: Entry) {
        if let Some(h) = &mut self.0 {
            h.push(entry);
        }
    }
}

/// The outcome of a game (R13).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameResult {
    pub scores: Vec<i64>,
    pub panda_points: Vec<i64>,
    pub winners: Vec<u8>,
    /// `none`, `panda` or `shared`.
    pub tiebreak: &'static str,
    pub emperor: Option<u8>,
    pub capped: bool,
    pub rounds: u32,
    pub completed: Vec<Vec<u8>>,
    pub excluded: Vec<u8>,
}

/// A game at a decision point: the whole truth.
#[derive(Clone, Debug, PartialEq)]
pub struct State {
    pub b: Board,
    pub seed: i128,
    pub rng: u64,
    /// Scripted die faces still to come.
    pub dice: Vec<u8>,
    pub drawn: ArrayVec<u8, 3>,
    pub plot_deck: ArrayVec<u8, 27>,
    pub objective_decks: [ArrayVec<u8, MAX_DECK>; 3],
    pub hands: [ArrayVec<u8, MAX_HAND>; 4],
    pub history: History,
}

fn minus(counts: &mut [u8; 4], index: usize) {
    counts[index] = counts[index].wrapping_sub(1);
}

impl State {
    /// A new game (R2): decks shuffled from `seed`, one objective of each kind dealt.
    pub fn new(
        players: usize,
        seed: i128,
        options: Arc<RuleOptions>,
        dice: &[u8],
        history: bool,
        cards: Arc<CardSet>,
    ) -> Result<State, Error> {
        if !(2..=4).contains(&players) {
            return Err(Error::value(format!(
                "a game has 2, 3 or 4 players, not {players}"
            )));
        }
        if let Some(problem) = cards.deal_problem(players) {
            return Err(Error::option(format!("card set: {problem}")));
        }
        if dice.iter().any(|&f| f > 5) {
            return Err(Error::value("dice: faces are 0..5"));
        }
        let comp = &*COMPONENTS;
        let mut state = rng::seed_state(seed);
        let mut plots = comp.all_plots.clone();
        state = rng::shuffle(state, &mut plots);
        let mut decks: [Vec<u8>; 3] = Default::default();
        for (k, deck) in decks.iter_mut().enumerate() {
            *deck = cards.decks[k].clone();
            state = rng::shuffle(state, deck);
        }
        let mut s = State::blank(players as u8, options, cards);
        s.seed = seed;
        s.rng = state;
        s.dice = dice.to_vec();
        s.b.plot_known = plots.iter().map(|_| 0).collect();
        s.plot_deck = plots.into_iter().collect();
        s.history = History(if history { Some(Vec::new()) } else { None });
        for seat in 0..players {
            let hand = [decks[0][seat], decks[1][seat], decks[2][seat]];
            s.hands[seat] = hand.iter().copied().collect();
            s.history.push(Entry::Dealt {
                round: 0,
                seat: seat as u8,
                hand,
            });
        }
        for k in 0..3 {
            s.objective_decks[k] = decks[k][players..].iter().copied().collect();
            s.b.objective_known[k] = s.objective_decks[k].iter().map(|_| 0).collect();
        }
        s.advance();
        Ok(s)
    }

    /// A game with nothing dealt: the pond alone, full reserves, empty decks and hands (what
    /// `new` deals into and a position is read into).
    pub fn blank(players: u8, options: Arc<RuleOptions>, cards: Arc<CardSet>) -> State {
        let comp = &*COMPONENTS;
        let rules = Rules::of(&options);
        let mut b = Board {
            players,
            options,
            rules,
            card_set: cards,
            round: 1,
            current: 0,
            step: STEP_ACTIONS,
            weather: -1,
            taken: ArrayVec::new(),
            put_back: [0; 3],
            order: ArrayVec::new(),
            codes: ArrayVec::new(),
            heights: ArrayVec::new(),
            occupied: CellSet::default(),
            improvements: ArrayVec::new(),
            irrigated: CellSet::default(),
            irrigated_by_colour: [CellSet::default(); 3],
            channels: EdgeSet::default(),
            network: GRID.pond_corners,
            shoots: [0; SHOOT_COUNTERS],
            gardener: POND,
            panda: POND,
            reserve_channels: comp.channels,
            reserve_improvements: comp.improvement_tokens,
            plot_known: ArrayVec::new(),
            objective_known: Default::default(),
            completed: Default::default(),
            eaten: [[0; 3]; 4],
            stored_channels: [0; 4],
            stored_improvements: [[0; 4]; 4],
            emperor: NO_SEAT,
            last_turns: -1,
            ended: false,
            capped: false,
            plot_memo: Memo::default(),
        };
        b.put_tile(POND, POND_TILE, 0);
        State {
            b,
            seed: 0,
            rng: 0,
            dice: Vec::new(),
            drawn: ArrayVec::new(),
            plot_deck: ArrayVec::new(),
            objective_decks: Default::default(),
            hands: Default::default(),
            history: History(None),
        }
    }

    /// A cheap, independent copy; the history only when asked for.
    pub fn copy(&self, history: bool) -> State {
        let mut s = self.clone();
        if history {
            s.history = History(self.history.0.clone());
        }
        s
    }

    /// Brings this state, a follower of `state`'s game, up to `state`: its values, and its
    /// history, if it keeps one, extended with the entries it lacks (the mirror a Python
    /// callback is shown, kept without copying the whole history at every step).
    pub fn catch_up(&mut self, state: &State) {
        let history = self.history.0.take();
        *self = state.clone();
        if let (Some(mut h), Some(all)) = (history, &state.history.0) {
            h.extend_from_slice(&all[h.len().min(all.len())..]);
            self.history.0 = Some(h);
        }
    }

    pub fn is_terminal(&self) -> bool {
        self.b.ended
    }

    /// This state with `sample`'s hidden parts but `seat`'s own hand (the reference's
    /// `with_hidden_from`).
    pub fn with_hidden_from(&self, sample: &State, seat: u8) -> State {
        let mut s = self.copy(false);
        s.seed = sample.seed;
        s.rng = sample.rng;
        s.dice = sample.dice.clone();
        s.plot_deck = sample.plot_deck.clone();
        s.objective_decks = sample.objective_decks.clone();
        let mut hands = sample.hands.clone();
        hands[seat as usize] = self.hands[seat as usize].clone();
        s.hands = hands;
        s
    }

    /// In place, what `public.with_hidden_from(self, seat)` returns: `public`'s board,
    /// draw and `seat`'s hand, this state's hidden parts (a search's kept positions).
    pub fn take_public_from(&mut self, public: &State, seat: u8) {
        self.b.clone_from(&public.b);
        self.drawn.clone_from(&public.drawn);
        self.hands[seat as usize].clone_from(&public.hands[seat as usize]);
        self.history = History(None);
    }

    // ------------------------------------------------------------------ legal actions

    /// The actions the current seat may choose now (empty once the game is over).
    pub fn legal_actions(&self) -> Legal {
        let mut out = Legal::new();
        self.generate(&mut out);
        out
    }

    /// The legal actions into a list of the caller's (cleared first): no copy of the list.
    pub fn legal_into(&self, out: &mut Legal) {
        out.clear();
        self.generate(out);
    }

    fn generate(&self, out: &mut Legal) {
        let b = &self.b;
        if b.ended {
            return;
        }
        match b.step {
            STEP_ACTIONS => return self.legal_turn(out),
            STEP_ROLL => return,
            _ => {}
        }
        self.free_moves(out);
        match b.step {
            STEP_PLACE => self.legal_place(out),
            STEP_RAIN => {
                for c in b.rain_targets() {
                    out.push(RAIN | (c as u32) << A_SHIFT);
                }
                out.push(SKIP);
            }
            STEP_STORM => {
                let mut cells: ArrayVec<Cell, MAX_TILES> = b.order.iter().copied().collect();
                cells.sort_unstable();
                for c in cells {
                    if c != b.panda {
                        out.push(STORM | (c as u32) << A_SHIFT);
                    }
                }
                out.push(SKIP);
            }
            STEP_CLOUDS => self.legal_clouds(out),
            STEP_CHOOSE_WEATHER => self.legal_weather(out),
            _ => {
                for k in 0..3 {
                    if self.objective_decks[k].len() > b.put_back[k] as usize {
                        out.push(REDRAW | (k as u32) << B_SHIFT);
                    }
                }
            }
        }
    }

    /// The choices of the action step (what `legal_actions` gives there).
    pub fn legal_turn(&self, out: &mut Legal) {
        let b = &self.b;
        self.free_moves(out);
        let taken = &b.taken;
        let limit = if b.weather == FACE_SUN { 3 } else { 2 };
        if taken.len() < limit {
            let repeat = b.weather == FACE_WIND;
            let open = |a: u8| repeat || !taken.contains(&a);
            if !self.plot_deck.is_empty() && open(TURN_PLOT) {
                out.push(PLOT);
            }
            if b.reserve_channels > 0 && open(TURN_IRRIGATION) {
                out.push(IRRIGATE_KEEP);
                b.with_channel_spots(|spots| {
                    for &e in spots {
                        out.push(IRRIGATE | (e as u32) << A_SHIFT);
                    }
                });
            }
            for (kind, figure, action) in [
                (GARDENER, b.gardener, TURN_GARDENER),
                (PANDA, b.panda, TURN_PANDA),
            ] {
                if open(action) {
                    for ray in &GRID.rays[figure as usize] {
                        for &c in ray {
                            if !b.occupied.has(c) {
                                break;
                            }
                            out.push(kind | (c as u32) << A_SHIFT);
                        }
                    }
                }
            }
            if self.hands[b.current as usize].len() < MAX_HAND && open(TURN_OBJECTIVE) {
                for k in 0..3u32 {
                    if !self.objective_decks[k as usize].is_empty() {
                        out.push(OBJECTIVE | k << B_SHIFT);
                    }
                }
            }
        }
        out.push(END);
    }

    /// The free moves of R9: completions, then stored channels, then stored improvements.
    pub fn free_moves(&self, out: &mut Legal) {
        let b = &self.b;
        let s = b.current;
        for &card in &self.hands[s as usize] {
            if b.objective_found(s, card) {
                out.push(COMPLETE | (card as u32) << B_SHIFT);
            }
        }
        if b.stored_channels[s as usize] > 0 {
            b.with_channel_spots(|spots| {
                for &e in spots {
                    out.push(CHANNEL | (e as u32) << A_SHIFT);
                }
            });
        }
        let stored = b.stored_improvements[s as usize];
        if stored[1] > 0 || stored[2] > 0 || stored[3] > 0 {
            let spots = b.improvable_plots();
            for imp in 1..4u32 {
                if stored[imp as usize] > 0 {
                    for &c in &spots {
                        out.push(IMPROVE | (c as u32) << A_SHIFT | imp << B_SHIFT);
                    }
                }
            }
        }
    }

    /// Whether `legal_turn` would give `[END]` alone (the same tests, cheap ones first).
    pub fn only_end(&self) -> bool {
        let b = &self.b;
        let taken = &b.taken;
        let s = b.current;
        if taken.len() < if b.weather == FACE_SUN { 3 } else { 2 } {
            let repeat = b.weather == FACE_WIND;
            let open = |a: u8| repeat || !taken.contains(&a);
            if !self.plot_deck.is_empty() && open(TURN_PLOT) {
                return false;
            }
            if b.reserve_channels > 0 && open(TURN_IRRIGATION) {
                return false;
            }
            for (figure, action) in [(b.gardener, TURN_GARDENER), (b.panda, TURN_PANDA)] {
                if open(action) {
                    for ray in &GRID.rays[figure as usize] {
                        if ray.first().is_some_and(|&c| b.occupied.has(c)) {
                            return false;
                        }
                    }
                }
            }
            if self.hands[s as usize].len() < MAX_HAND
                && open(TURN_OBJECTIVE)
                && self.objective_decks.iter().any(|d| !d.is_empty())
            {
                return false;
            }
        }
        if b.stored_channels[s as usize] > 0 && b.with_channel_spots(|spots| !spots.is_empty()) {
            return false;
        }
        let stored = b.stored_improvements[s as usize];
        if (stored[1] > 0 || stored[2] > 0 || stored[3] > 0) && !b.improvable_plots().is_empty() {
            return false;
        }
        !self.hands[s as usize]
            .iter()
            .any(|&card| b.objective_found(s, card))
    }

    fn legal_place(&self, out: &mut Legal) {
        let b = &self.b;
        let drawn = &self.drawn;
        let spaces = b.placement_spaces();
        let stored = b.stored_improvements[b.current as usize];
        let extras: ArrayVec<u32, 3> = (1..4u32).filter(|&i| stored[i as usize] > 0).collect();
        for (k, &tile) in drawn.iter().enumerate() {
            if drawn[..k].contains(&tile) {
                continue;
            }
            let others: ArrayVec<u8, 3> = drawn
                .iter()
                .enumerate()
                .filter(|(i, _)| *i != k)
                .map(|(_, &t)| t)
                .collect();
            let swaps: &[bool] = if others.len() == 2 && others[0] != others[1] {
                &[false, true]
            } else {
                &[false]
            };
            let mut improvements: ArrayVec<u32, 4> = ArrayVec::new();
            improvements.push(0);
            if tile & 3 == 0 {
                improvements.extend(extras.iter().copied());
            }
            for &c in &spaces {
                for &imp in &improvements {
                    for &swap in swaps {
                        out.push(place(k as u32, c, imp, swap));
                    }
                }
            }
        }
    }

    fn legal_clouds(&self, out: &mut Legal) {
        let b = &self.b;
        let reserve = b.reserve_improvements;
        if reserve[1] > 0 || reserve[2] > 0 || reserve[3] > 0 {
            let mut spots = b.improvable_plots();
            spots.sort_unstable();
            for imp in 1..4u32 {
                if reserve[imp as usize] > 0 {
                    for &c in &spots {
                        out.push(CLOUDS | (c as u32) << A_SHIFT | imp << B_SHIFT);
                    }
                    if b.rules.cloud_keep {
                        out.push(CLOUDS_KEEP | imp << B_SHIFT);
                    }
                }
            }
        } else if b.rules.cloud_move {
            let mut spots = b.improvable_plots();
            spots.sort_unstable();
            let mut sources = b.token_improvements();
            sources.sort_unstable();
            for &src in &sources {
                for &dst in &spots {
                    out.push(CLOUDS_MOVE | (src as u32) << A_SHIFT | (dst as u32) << B_SHIFT);
                }
            }
        }
        out.push(SKIP);
    }

    fn clouds_possible(&self) -> bool {
        let b = &self.b;
        let reserve = b.reserve_improvements;
        if reserve[1] > 0 || reserve[2] > 0 || reserve[3] > 0 {
            return b.rules.cloud_keep || !b.improvable_plots().is_empty();
        }
        if b.rules.cloud_move {
            return !b.token_improvements().is_empty() && !b.improvable_plots().is_empty();
        }
        false
    }

    fn legal_weather(&self, out: &mut Legal) {
        let b = &self.b;
        out.push(WEATHER | (FACE_SUN as u32) << B_SHIFT);
        if !b.rain_targets().is_empty() {
            out.push(WEATHER | (FACE_RAIN as u32) << B_SHIFT);
        }
        out.push(WEATHER | (FACE_WIND as u32) << B_SHIFT);
        if b.order.len() > 1 {
            out.push(WEATHER | (FACE_STORM as u32) << B_SHIFT);
        }
        if b.weather == FACE_CHOICE && self.clouds_possible() {
            out.push(WEATHER | (FACE_CLOUDS as u32) << B_SHIFT);
        }
    }

    // ------------------------------------------------------------------ applying actions

    /// Applies an action after checking it is legal.
    pub fn play(&mut self, action: Action) -> Result<(), Error> {
        let mut legal = Legal::new();
        self.generate(&mut legal);
        if !legal.contains(&action) {
            if crate::actions::try_text_in(action as u64, &self.b.card_set).is_none() {
                return Err(if action & KIND_MASK > REDRAW {
                    Error::value(format!("not an action: {action}"))
                } else {
                    Error::illegal(format!("{action} is not an action"))
                });
            }
            return Err(Error::illegal(format!(
                "action {} is not legal at this step (round {}, seat {}, step {})",
                crate::json::str_repr(&text_in(action, &self.b.card_set)),
                self.b.round,
                self.b.current,
                STEP_NAMES[self.b.step as usize]
            )));
        }
        self.apply(action)
    }

    /// Applies a legal action of the current seat, then resolves chance and forced steps.
    /// The action is trusted (as in the reference): one that is not legal here leaves a
    /// state the rules never reach, or is refused when its fields are out of range.
    pub fn apply(&mut self, action: Action) -> Result<(), Error> {
        let kind = action & KIND_MASK;
        let s = self.b.current;
        let a = action >> A_SHIFT & A_MASK;
        let arg = action >> B_SHIFT;
        if kind > REDRAW || !crate::actions::in_range(action, self.b.card_set.cards.len()) {
            return Err(Error::illegal(format!("{action} is not an action")));
        }
        let cell = a as Cell;
        self.history.push(Entry::Move {
            round: self.b.round,
            seat: s,
            action,
        });
        let ta = turn_action(kind);
        if ta >= 0 && !self.b.taken.is_full() {
            self.b.taken.push(ta as u8);
        }
        match kind {
            GARDENER => self.move_gardener(cell),
            PANDA => {
                self.b.panda = cell;
                self.eat(cell, s);
            }
            END => self.end_turn(),
            PLACE => self.place(cell, arg),
            PLOT => self.draw_plots(),
            IRRIGATE => {
                self.b.reserve_channels = self.b.reserve_channels.wrapping_sub(1);
                self.put_channel(a as Edge);
            }
            IRRIGATE_KEEP => {
                self.b.reserve_channels = self.b.reserve_channels.wrapping_sub(1);
                self.b.stored_channels[s as usize] += 1;
            }
            OBJECTIVE | REDRAW => self.draw_objective(s, arg as u8),
            COMPLETE => self.complete(s, arg as u8),
            CHANNEL => {
                self.b.stored_channels[s as usize] =
                    self.b.stored_channels[s as usize].wrapping_sub(1);
                self.put_channel(a as Edge);
            }
            IMPROVE => {
                minus(&mut self.b.stored_improvements[s as usize], arg as usize);
                self.put_improvement(cell, arg as u8);
            }
            WEATHER => self.set_weather(arg as i8),
            RAIN => {
                self.grow(cell);
                self.b.step = STEP_ACTIONS;
            }
            STORM => {
                self.b.panda = cell;
                self.eat(cell, s);
                self.b.step = STEP_ACTIONS;
            }
            CLOUDS => {
                minus(&mut self.b.reserve_improvements, arg as usize);
                self.put_improvement(cell, arg as u8);
                self.b.step = STEP_ACTIONS;
            }
            CLOUDS_KEEP => {
                minus(&mut self.b.reserve_improvements, arg as usize);
                self.b.stored_improvements[s as usize][arg as usize] += 1;
                self.b.step = STEP_ACTIONS;
            }
            CLOUDS_MOVE => {
                self.move_improvement(cell, arg as Cell);
                self.b.step = STEP_ACTIONS;
            }
            _ => self.b.step = STEP_ACTIONS, // SKIP
        }
        self.advance();
        Ok(())
    }

    /// Resolves chance and forced steps until a real decision (or the end).
    pub fn advance(&mut self) {
        while !self.b.ended {
            if self.b.step == STEP_ROLL {
                self.roll();
                continue;
            }
            if self.b.step == STEP_ACTIONS {
                if self.only_end() {
                    self.end_turn();
                    continue;
                }
                return;
            }
            let mut legal = Legal::new();
            self.generate(&mut legal);
            if legal.len() == 1 {
                let only = legal[0];
                if only == SKIP {
                    self.b.step = STEP_ACTIONS;
                    continue;
                }
                if only & KIND_MASK == REDRAW {
                    self.draw_objective(self.b.current, (only >> B_SHIFT) as u8);
                    continue;
                }
            }
            return;
        }
    }

    fn roll(&mut self) {
        let face = if !self.dice.is_empty() {
            self.dice.remove(0)
        } else {
            let (state, face) = rng::below(self.rng, 6);
            self.rng = state;
            face as u8
        };
        self.history.push(Entry::Rolled {
            round: self.b.round,
            face,
        });
        self.b.weather = face as i8;
        self.weather_step(face as i8);
    }

    fn set_weather(&mut self, face: i8) {
        self.b.weather = face;
        self.weather_step(face);
    }

    fn weather_step(&mut self, face: i8) {
        let b = &mut self.b;
        b.step = match face {
            FACE_RAIN => STEP_RAIN,
            FACE_STORM => STEP_STORM,
            FACE_CLOUDS => {
                let r = b.reserve_improvements;
                if r[1] > 0 || r[2] > 0 || r[3] > 0 || b.rules.cloud_move {
                    STEP_CLOUDS
                } else {
                    STEP_CHOOSE_WEATHER
                }
            }
            FACE_CHOICE => STEP_CHOOSE_WEATHER,
            _ => STEP_ACTIONS,
        };
    }

    fn end_turn(&mut self) {
        let b = &mut self.b;
        let s = b.current;
        if b.emperor >= 0 && s as i8 != b.emperor {
            b.last_turns -= 1;
            if b.last_turns <= 0 {
                self.game_over();
                return;
            }
        }
        let mut next = s + 1;
        if next == b.players {
            next = 0;
            if b.round >= b.rules.max_rounds {
                b.capped = true;
                self.game_over();
                return;
            }
            b.round += 1;
        }
        b.current = next;
        b.taken.clear();
        b.weather = -1;
        self.drawn.clear();
        b.step = if b.round > 1 { STEP_ROLL } else { STEP_ACTIONS };
    }

    fn game_over(&mut self) {
        self.b.ended = true;
        self.b.step = STEP_ACTIONS;
        self.history.push(Entry::GameOver {
            round: self.b.round,
        });
    }

    fn draw_plots(&mut self) {
        let n = self.plot_deck.len().min(3);
        self.drawn = self.plot_deck.drain(..n).collect();
        self.b.plot_known.drain(..n.min(self.b.plot_known.len()));
        self.b.step = STEP_PLACE;
        self.history.push(Entry::DrewPlots {
            round: self.b.round,
            tiles: self.drawn.clone(),
        });
    }

    fn place(&mut self, cell: Cell, arg: u32) {
        let (k, imp, swap) = ((arg & 3) as usize, (arg >> 2 & 3) as u8, arg >> 4 & 1 != 0);
        let drawn = std::mem::take(&mut self.drawn);
        let Some(&tile) = drawn.get(k) else { return };
        let mut others: ArrayVec<u8, 3> = drawn
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != k)
            .map(|(_, &t)| t)
            .collect();
        if swap {
            others.reverse();
        }
        let bit = 1u8 << self.b.current;
        for &t in &others {
            if !self.plot_deck.is_full() {
                self.plot_deck.push(t);
                self.b.plot_known.push(bit);
            }
        }
        self.b.step = STEP_ACTIONS;
        if self.b.has_tile(cell) || self.b.order.is_full() {
            return; // not a legal place: nothing more the rules can do with it
        }
        self.b.put_tile(cell, tile, 0);
        let printed = tile & 3;
        let imp = if imp != 0 {
            minus(
                &mut self.b.stored_improvements[self.b.current as usize],
                imp as usize,
            );
            imp
        } else {
            printed
        };
        if imp != 0 {
            self.set_improvement(cell, imp);
        }
        if GRID.pond_ring.has(cell) || imp == WATERSHED {
            self.irrigate(cell);
        }
    }

    /// An improvement on a plot, replacing any there (the dict keeps its place).
    fn set_improvement(&mut self, cell: Cell, imp: u8) {
        if let Some(slot) = self.b.improvements.iter_mut().find(|(c, _)| *c == cell) {
            slot.1 = imp;
        } else if !self.b.improvements.is_full() {
            self.b.improvements.push((cell, imp));
        }
    }

    fn put_channel(&mut self, edge: Edge) {
        let g = &*GRID;
        if edge as usize >= g.edge_cells.len() {
            return;
        }
        self.b.channels.insert(edge);
        let (x, y) = g.edge_ends[edge as usize];
        for k in [x, y] {
            if k != grid::NONE {
                self.b.network.insert(k);
            }
        }
        let (a, b) = g.edge_cells[edge as usize];
        self.irrigate(a);
        self.irrigate(b);
    }

    fn irrigate(&mut self, cell: Cell) {
        if self.b.irrigated.has(cell) {
            return;
        }
        let Some(code) = self.b.tile(cell) else {
            return;
        };
        self.b.irrigated.insert(cell);
        if code != POND_TILE {
            self.b.irrigated_by_colour[(code >> 2) as usize].insert(cell);
        }
        self.grow(cell);
    }

    fn grow(&mut self, cell: Cell) {
        let b = &self.b;
        let Some(code) = b.tile(cell) else { return };
        let h = b.bamboo(cell);
        if h >= 4 || !b.irrigated.has(cell) {
            return;
        }
        let mut new = if b.improvement(cell) == FERTILIZER {
            h + 2
        } else {
            h + 1
        };
        if new > 4 {
            new = 4;
        }
        if b.rules.bamboo_limited {
            let left = b.supply_left(code >> 2).max(0);
            new = new.min((h as i64 + left).min(4) as u8);
            if new == h {
                return;
            }
        }
        self.set_bamboo(cell, h, new);
    }

    fn set_bamboo(&mut self, cell: Cell, old: u8, new: u8) {
        if old >= 3 || new >= 3 {
            let colour = self.b.tile(cell).unwrap_or(0) >> 2;
            let imp = self.b.improvement(cell);
            if let Some(slot) = shoot_slot(colour, old, imp) {
                self.b.shoots[slot] = self.b.shoots[slot].wrapping_sub(1);
            }
            if let Some(slot) = shoot_slot(colour, new, imp) {
                self.b.shoots[slot] += 1;
            }
        }
        self.b.set_height(cell, new);
    }

    fn move_gardener(&mut self, cell: Cell) {
        self.b.gardener = cell;
        if cell == POND {
            return;
        }
        let Some(code) = self.b.tile(cell) else {
            return;
        };
        let colour = code >> 2;
        self.grow(cell);
        for &n in &GRID.neighbours[cell as usize] {
            if let Some(c) = self.b.tile(n) {
                if c != POND_TILE && c >> 2 == colour {
                    self.grow(n);
                }
            }
        }
    }

    fn eat(&mut self, cell: Cell, seat: u8) {
        if cell == POND {
            return;
        }
        let h = self.b.bamboo(cell);
        if h > 0 && self.b.improvement(cell) != ENCLOSURE {
            self.set_bamboo(cell, h, h - 1);
            let colour = self.b.tile(cell).unwrap_or(0) >> 2;
            self.b.eaten[seat as usize][colour as usize] += 1;
        }
    }

    fn put_improvement(&mut self, cell: Cell, imp: u8) {
        self.set_improvement(cell, imp);
        if imp == WATERSHED {
            self.irrigate(cell);
        }
    }

    fn move_improvement(&mut self, src: Cell, dst: Cell) {
        let imp = self.b.improvement(src);
        self.b.improvements.retain(|(c, _)| *c != src);
        let h = self.b.bamboo(src);
        if h >= 3 {
            let colour = self.b.tile(src).unwrap_or(0) >> 2;
            if let Some(slot) = shoot_slot(colour, h, imp) {
                self.b.shoots[slot] = self.b.shoots[slot].wrapping_sub(1);
            }
            if let Some(slot) = shoot_slot(colour, h, 0) {
                self.b.shoots[slot] += 1;
            }
        }
        self.put_improvement(dst, imp);
    }

    fn draw_objective(&mut self, seat: u8, category: u8) {
        let k = category as usize;
        if self.objective_decks[k].is_empty() {
            self.b.step = STEP_ACTIONS;
            return;
        }
        let mut deck = self.objective_decks[k].clone();
        let mut known = self.b.objective_known[k].clone();
        let mut card = deck.remove(0);
        if !known.is_empty() {
            known.remove(0);
        }
        match self.b.rules.redraw {
            2 => return self.draw_or_redraw(seat, k, card, deck, known),
            1 if category != PANDA_CARD => {
                let mut tries = deck.len();
                while tries > 0 && self.b.objective_found(seat, card) {
                    self.history.push(Entry::Returned {
                        round: self.b.round,
                        card,
                    });
                    deck.push(card);
                    known.push(1 << seat);
                    card = deck.remove(0);
                    known.remove(0);
                    tries -= 1;
                }
            }
            _ => {}
        }
        self.objective_decks[k] = deck;
        self.b.objective_known[k] = known;
        let _ = self.hands[seat as usize].try_push(card);
        self.history.push(Entry::Drew {
            round: self.b.round,
            card,
        });
    }

    fn draw_or_redraw(
        &mut self,
        seat: u8,
        k: usize,
        card: u8,
        deck: ArrayVec<u8, MAX_DECK>,
        known: ArrayVec<u8, MAX_DECK>,
    ) {
        self.objective_decks[k] = deck;
        self.b.objective_known[k] = known;
        let put_back = self.b.put_back;
        let can_replace = (0..3).any(|i| self.objective_decks[i].len() > put_back[i] as usize);
        if self.b.objective_found(seat, card) && can_replace {
            self.history.push(Entry::Returned {
                round: self.b.round,
                card,
            });
            self.objective_decks[k].push(card);
            self.b.objective_known[k].push(1 << seat);
            self.b.put_back[k] += 1;
            self.b.step = STEP_REDRAW;
        } else {
            let _ = self.hands[seat as usize].try_push(card);
            self.history.push(Entry::Drew {
                round: self.b.round,
                card,
            });
            self.b.put_back = [0; 3];
            self.b.step = STEP_ACTIONS;
        }
    }

    fn complete(&mut self, seat: u8, card: u8) {
        let hand = &mut self.hands[seat as usize];
        if let Some(i) = hand.iter().position(|&c| c == card) {
            hand.remove(i);
        }
        let b = &mut self.b;
        let _ = b.completed[seat as usize].try_push(card);
        let c = &b.card_set.card(card);
        let (category, eat) = (c.category, c.eat);
        if category == PANDA_CARD {
            for i in 0..3 {
                b.eaten[seat as usize][i] = b.eaten[seat as usize][i].wrapping_sub(eat[i] as u32);
            }
        }
        if b.emperor < 0
            && b.completed[seat as usize].len() as u32
                >= b.rules.objectives_to_end[b.players as usize]
        {
            b.emperor = seat as i8;
            b.last_turns = b.players as i32 - 1;
            self.history.push(Entry::Emperor {
                round: b.round,
                seat,
            });
        }
    }

    // ------------------------------------------------------------------ results

    /// Points of completed panda objectives per seat (the tie-break of R13.4).
    pub fn panda_points(&self) -> Vec<i64> {
        let points = &self.b.card_set.points;
        (0..self.b.players as usize)
            .map(|s| {
                self.b.completed[s]
                    .iter()
                    .filter(|&&c| self.b.card_set.card(c).category == PANDA_CARD)
                    .map(|&c| points[c as usize] as i64)
                    .sum()
            })
            .collect()
    }

    /// Scores and winners (R13.3-R13.5); `excluded` seats cannot win.
    pub fn result(&self, excluded: &[u8]) -> GameResult {
        let scores: Vec<i64> = self.b.scores().to_vec();
        let panda = self.panda_points();
        let seats: Vec<u8> = (0..self.b.players)
            .filter(|s| !excluded.contains(s))
            .collect();
        let mut winners = Vec::new();
        let mut tiebreak = "none";
        if !seats.is_empty() {
            let best = seats.iter().map(|&s| scores[s as usize]).max().unwrap_or(0);
            winners = seats
                .iter()
                .copied()
                .filter(|&s| scores[s as usize] == best)
                .collect();
            if winners.len() > 1 {
                let best_panda = winners
                    .iter()
                    .map(|&s| panda[s as usize])
                    .max()
                    .unwrap_or(0);
                winners.retain(|&s| panda[s as usize] == best_panda);
                tiebreak = if winners.len() == 1 {
                    "panda"
                } else {
                    "shared"
                };
            }
        }
        GameResult {
            scores,
            panda_points: panda,
            winners,
            tiebreak,
            emperor: (self.b.emperor >= 0).then_some(self.b.emperor as u8),
            capped: self.b.capped,
            rounds: self.b.round,
            completed: (0..self.b.players as usize)
                .map(|s| self.b.completed[s].to_vec())
                .collect(),
            excluded: excluded.to_vec(),
        }
    }

    /// Per seat: 1 for a win, 1/k for a victory shared by k, 0 otherwise.
    pub fn returns(&self) -> Vec<f64> {
        let res = self.result(&[]);
        let share = if res.winners.is_empty() {
            0.0
        } else {
            1.0 / res.winners.len() as f64
        };
        (0..self.b.players)
            .map(|s| if res.winners.contains(&s) { share } else { 0.0 })
            .collect()
    }

    /// Whether two states are the same position: every field but the history, improvements
    /// compared as a mapping (the order they were put in is not part of a position).
    pub fn same_position(&self, other: &State) -> bool {
        let mut a = self.b.clone();
        let mut b = other.b.clone();
        a.improvements.sort_unstable();
        b.improvements.sort_unstable();
        a == b
            && self.seed == other.seed
            && self.rng == other.rng
            && self.dice == other.dice
            && self.drawn == other.drawn
            && self.plot_deck == other.plot_deck
            && self.objective_decks == other.objective_decks
            && self.hands[..self.b.players as usize] == other.hands[..other.b.players as usize]
    }

    /// The history in notation.
    pub fn history_text(&self) -> Vec<String> {
        let cards = &self.b.card_set;
        self.history
            .0
            .iter()
            .flatten()
            .map(|e| e.text(cards))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(seed: i128) -> State {
        State::new(2, seed, Arc::default(), &[], true, Arc::default()).unwrap()
    }

    #[test]
    fn random_games_end() {
        let mut r = rng::PyRandom::new(1);
        for seed in 0..50 {
            let mut s = game(seed);
            let mut moves = 0;
            while !s.is_terminal() {
                let legal = s.legal_actions();
                assert!(!legal.is_empty());
                let a = legal[r.choice_index(legal.len())];
                s.play(a).unwrap();
                moves += 1;
                assert!(moves < 5000);
            }
            let res = s.result(&[]);
            assert!(!res.winners.is_empty());
        }
    }

    #[test]
    fn first_legal_list() {
        let s = game(7);
        let texts: Vec<String> = s.legal_actions().iter().map(|&a| text(a)).collect();
        assert_eq!(
            texts,
            [
                "plot",
                "irrigation keep",
                "objective plot",
                "objective gardener",
                "objective panda",
                "end"
            ]
        );
    }
}
