//! The leaves of `mcts` (the port of `bots/mcts_leaves.py`): the per-seat win chances the
//! search asks of a sampled state it stops at.
//!
//! `deny` and `fitted` are built on the shared evaluation and judge the searching seat
//! against its rivals as reckoned from public information (their hidden cards valued as
//! the mean over the cards it has not seen), `score` reads points only.  Every value is
//! the float the reference computes: the same sums in the same order, `exp` as CPython's
//! `math.exp` (libm), the first maximum kept where the reference's `max` keeps it.

use std::collections::HashMap;

use crate::components::PLOT_CARD;
use crate::state::{State, STEP_ACTIONS};
use crate::view::View;

use super::heuristics::{
    actions_horizon, card_value, category, Cache, MixBuild, Pools, Snapshot, Weights,
    CHANNEL_VALUE, DECAY, IMPROVEMENT_VALUE, NO_HORIZON, SCORE_WEIGHT,
};

/// `mcts`'s default `temperature`, at which `fitted` reads its regression as fitted.
pub const DEFAULT_TEMPERATURE: f64 = 8.0;

/// The leaves by name, in the reference's order (`LEAVES`).
pub const LEAVES: &[&str] = &["deny", "fitted", "score"];

/// `eval=fitted`'s logistic-regression weights for 2 and for 4 players (3-player games use
/// the 4-player ones), as `FITTED_WEIGHTS` of the reference.
pub const FITTED_WEIGHTS_2: [f64; 11] = [
    -0.0537, 0.0347, 0.1341, 0.1683, 0.017, 0.0563, 0.0971, 0.1698, 0.3025, 0.1578, -0.0132,
];
pub const FITTED_WEIGHTS_4: [f64; 11] = [
    -1.0488, 0.0574, 0.1393, 0.0284, -0.0231, 0.0483, 0.3201, 0.7448, 0.3174, 0.2768, 0.1558,
];

/// Which leaf evaluation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LeafKind {
    Deny,
    Fitted,
    Score,
}

impl LeafKind {
    /// The leaf of this name (one of [`LEAVES`]).
    pub fn of(name: &str) -> Option<LeafKind> {
        match name {
            "deny" => Some(LeafKind::Deny),
            "fitted" => Some(LeafKind::Fitted),
            "score" => Some(LeafKind::Score),
            _ => None,
        }
    }
}

/// Per-seat values (the first `players` are used).
pub type Values = [f64; 4];

/// A win chance in (0, 1) from a lead: a logistic, clamped (the reference's `lead_chance`).
pub fn lead_chance(lead: f64, temperature: f64) -> f64 {
    let d = (lead / temperature).clamp(-30.0, 30.0);
    1.0 / (1.0 + (-d).exp())
}

/// The first maximum of `values` over the seats other than `p` (Python's `max`).
fn best_other(values: &[f64], p: usize) -> f64 {
    let mut best: Option<f64> = None;
    for (q, &v) in values.iter().enumerate() {
        if q == p {
            continue;
        }
        match best {
            Some(b) if v > b => best = Some(v),
            None => best = Some(v),
            _ => {}
        }
    }
    best.unwrap_or(0.0)
}

/// Per seat, the chance of its `own` value against the best `rivals` value of the others.
fn against_best(own: &[f64], rivals: &[f64], temperature: f64, out: &mut Values) {
    for p in 0..own.len() {
        out[p] = lead_chance(own[p] - best_other(rivals, p), temperature);
    }
}

/// `(value, seat)` of the largest value (ties: the larger seat), as Python's `max` of
/// tuples over `candidates`.
fn max_pair(pairs: impl Iterator<Item = (f64, usize)>) -> (f64, usize) {
    let mut best: Option<(f64, usize)> = None;
    for (v, k) in pairs {
        best = match best {
            None => Some((v, k)),
            Some((bv, bk)) => {
                if v > bv || (v == bv && k > bk) {
                    Some((v, k))
                } else {
                    Some((bv, bk))
                }
            }
        };
    }
    best.unwrap_or((0.0, 0))
}

/// A leaf evaluation with its decision's preparation and its caches (pure: a cache
/// changes no value).
pub struct Leaf {
    pub kind: LeafKind,
    pub temperature: f64,
    /// What the fitted logit is divided by: 1.0 at the default temperature.
    pub scale: f64,
    pub weights: [f64; 11],
    pub seat: u8,
    pools: Pools,
    plot_card: f64,
    pub cache: Cache,
    /// The card points states are judged with (their card set's).
    points: Vec<f64>,
    /// `rival`'s hidden-card values, by what they read of a state.
    rivals: HashMap<Box<[u8]>, f64, MixBuild>,
    key: Vec<u8>,
}

impl Leaf {
    pub fn new(kind: LeafKind, temperature: f64) -> Leaf {
        Leaf {
            kind,
            temperature,
            scale: temperature / DEFAULT_TEMPERATURE,
            weights: FITTED_WEIGHTS_2,
            seat: 0,
            pools: Pools::default(),
            plot_card: 0.0,
            cache: Cache::new(),
            points: Vec::new(),
            rivals: HashMap::default(),
            key: Vec::new(),
        }
    }

    /// Whether `mine` is cheaper than `values` (the search then uses it).
    pub fn alone(&self) -> bool {
        self.kind != LeafKind::Score
    }

    /// A new decision of `view.seat`; `points` are the view's card points.
    pub fn prepare(&mut self, view: &View, points: &[f64]) {
        self.points.clear();
        self.points
            .extend(view.b.card_set.points.iter().map(|&p| p as f64));
        if self.kind == LeafKind::Score {
            return;
        }
        self.seat = view.seat;
        self.pools = Pools([
            Vec::new(),
            view.unseen_cards(crate::components::GARDENER_CARD as usize),
            view.unseen_cards(crate::components::PANDA_CARD as usize),
        ]);
        let plots = view.unseen_cards(PLOT_CARD as usize);
        if plots.is_empty() {
            self.plot_card = 0.0;
        } else {
            // Plot cards' costs do not depend on each other: one at a time (a hand holds
            // fewer than a deck).
            let mut snap = Snapshot::new(view, &mut self.cache, points);
            let mut total = 0.0;
            for &c in &plots {
                let cost = snap.card_cost(view.seat, c);
                total += card_value(points[c as usize], cost, DECAY, NO_HORIZON);
            }
            self.plot_card = total / plots.len() as f64;
        }
        self.rivals.clear();
        if self.kind == LeafKind::Fitted {
            self.weights = if view.b.players == 2 {
                FITTED_WEIGHTS_2
            } else {
                FITTED_WEIGHTS_4
            };
        }
    }

    /// The per-seat values of a sampled state (the reference's `__call__`).
    pub fn values(&mut self, s: &State, out: &mut Values) {
        let n = s.b.players as usize;
        match self.kind {
            LeafKind::Score => {
                let scores: Vec<f64> = (0..n as u8).map(|p| s.b.score(p) as f64).collect();
                if n == 2 {
                    let v0 = lead_chance(scores[0] - scores[1], self.temperature);
                    out[0] = v0;
                    out[1] = 1.0 - v0;
                } else {
                    against_best(&scores, &scores, self.temperature, out);
                }
            }
            LeafKind::Deny => {
                let mut own = [0.0; 4];
                self.evaluate_all(s, &mut own[..n]);
                let (rival, _q) = self.public_rival(s);
                against_best(&own[..n], &own[..n], self.temperature, out);
                let me = self.seat as usize;
                out[me] = lead_chance(own[me] - rival, self.temperature);
            }
            LeafKind::Fitted => {
                let mut own = [0.0; 4];
                self.evaluate_all(s, &mut own[..n]);
                let (rival, q) = self.public_rival(s);
                self.chances(s, &own[..n], rival, q, None, out);
            }
        }
    }

    /// The searching seat's value alone, the other seats 0 (the reference's `mine`).
    pub fn mine(&mut self, s: &State, out: &mut Values) {
        let n = s.b.players as usize;
        let me = self.seat as usize;
        match self.kind {
            LeafKind::Score => self.values(s, out),
            LeafKind::Deny => {
                let own = self.evaluate(s, self.seat);
                let (rival, _q) = self.public_rival(s);
                *out = [0.0; 4];
                out[me] = lead_chance(own - rival, self.temperature);
            }
            LeafKind::Fitted => {
                let mut own = [0.0; 4];
                own[me] = self.evaluate(s, self.seat);
                let (rival, q) = self.public_rival(s);
                self.chances(s, &own[..n], rival, q, Some(me), out);
            }
        }
    }

    fn evaluate(&mut self, s: &State, seat: u8) -> f64 {
        Snapshot::new(s, &mut self.cache, &self.points)
            .evaluate(seat, &Weights::default(), None)
            .0
    }

    fn evaluate_all(&mut self, s: &State, own: &mut [f64]) {
        let mut snap = Snapshot::new(s, &mut self.cache, &self.points);
        for (p, v) in own.iter_mut().enumerate() {
            *v = snap.evaluate(p as u8, &Weights::default(), None).0;
        }
    }

    /// The searching seat's strongest rival from public information: value and seat.
    fn public_rival(&mut self, s: &State) -> (f64, usize) {
        let me = self.seat as usize;
        let n = s.b.players as usize;
        if n == 2 {
            return (self.rival(s, 1 - me), 1 - me);
        }
        let mut values = [0.0; 4];
        for q in 0..n {
            if q != me {
                values[q] = self.rival(s, q);
            }
        }
        max_pair((0..n).filter(|&q| q != me).map(|q| (values[q], q)))
    }

    /// What the searching seat reckons seat `q` is worth (public information only).
    fn rival(&mut self, s: &State, q: usize) -> f64 {
        let b = &s.b;
        let stored = b.stored_improvements[q];
        let value = SCORE_WEIGHT * b.score(q as u8) as f64
            + CHANNEL_VALUE * b.stored_channels[q] as f64
            + IMPROVEMENT_VALUE * (stored[1] as u32 + stored[2] as u32 + stored[3] as u32) as f64;
        let hand = &s.hands[q];
        if hand.is_empty() || (b.emperor >= 0 && actions_horizon(b, q as u8) == 0) {
            return value;
        }
        let mut key = std::mem::take(&mut self.key);
        key.clear();
        let layout = self.cache.layout_id(b);
        key.push(q as u8);
        key.extend_from_slice(&layout.to_le_bytes());
        key.extend_from_slice(&b.heights);
        key.extend_from_slice(&b.panda.to_le_bytes());
        for k in 0..3 {
            key.extend_from_slice(&b.eaten[q][k].to_le_bytes());
        }
        key.extend_from_slice(&stored);
        key.extend_from_slice(&b.reserve_improvements);
        let mut counts = [0u8; 3];
        for &c in hand {
            counts[category(b, c) as usize] += 1;
        }
        key.extend_from_slice(&counts);
        let cards = match self.rivals.get(&key[..]) {
            Some(&v) => v,
            None => {
                let mut snap = Snapshot::new(s, &mut self.cache, &self.points);
                let mut cards = snap.expected_hand_value(q as u8, &self.pools, DECAY, 0.0);
                let plots = hand
                    .iter()
                    .filter(|&&c| category(b, c) == PLOT_CARD)
                    .count();
                cards += self.plot_card * plots as f64;
                if self.rivals.len() > 100_000 {
                    self.rivals.clear();
                }
                self.rivals.insert(key.as_slice().into(), cards);
                cards
            }
        };
        self.key = key;
        value + cards
    }

    /// `fitted`'s chance for each seat (or `only` that one, the others 0), from the
    /// seats' evaluations (the reference's `_chances`, its sums in its order).
    fn chances(
        &self,
        s: &State,
        own: &[f64],
        public_rival: f64,
        public_q: usize,
        only: Option<usize>,
        out: &mut Values,
    ) {
        let b = &s.b;
        let n = b.players as usize;
        let weight = SCORE_WEIGHT;
        let [w0, w1, w2, w3, w4, w5, w6, w7, w8, w9, w10] = self.weights;
        let mut scores = [0i64; 4];
        let mut done = [0i64; 4];
        let mut sizes = [0i64; 4];
        for p in 0..n {
            scores[p] = b.score(p as u8);
            done[p] = b.completed[p].len() as i64;
            sizes[p] = s.hands[p].len() as i64;
        }
        let most = done[..n].iter().copied().max().unwrap_or(0);
        let phase = most as f64 / b.rules.objectives_to_end[n] as f64;
        let left = if b.step == STEP_ACTIONS {
            b.actions_left()
        } else {
            2
        };
        let current = b.current as usize;
        let emperor = b.emperor;
        let me = self.seat as usize;
        *out = [0.0; 4];
        for p in 0..n {
            if only.is_some_and(|o| o != p) {
                continue;
            }
            let (rival, q) = if p == me {
                (public_rival, public_q)
            } else {
                max_pair((0..n).filter(|&k| k != p).map(|k| (own[k], k)))
            };
            let (sp, sq) = (scores[p], scores[q]);
            let points = (sp - sq) as f64;
            let hand = (own[p] - weight * sp as f64) - (rival - weight * sq as f64);
            let lead = (done[p] - done[q]) as f64;
            let tempo = if current == p {
                left
            } else if current == q {
                -left
            } else {
                0
            };
            let mut z = w0;
            z += w1 * points;
            z += w2 * hand;
            z += w3 * lead;
            z += w4 * (sizes[p] - sizes[q]) as f64;
            z += w5 * tempo as f64;
            z += w6
                * if emperor < 0 {
                    0.0
                } else if emperor as usize == p {
                    1.0
                } else {
                    -1.0
                };
            z += w7 * phase;
            z += w8 * (phase * points);
            z += w9 * (phase * hand);
            z += w10 * (phase * lead);
            out[p] = lead_chance(z, self.scale);
        }
    }
}
