//! `greedy`: one-ply lookahead with the shared evaluation (the port of `bots/greedy.py`).
//!
//! For each decision: sample a full state consistent with the view (`determinize`), try
//! every legal action on a copy, and keep the action whose result the evaluation likes
//! best for this seat, looking through the follow-up steps of the same move (`place` after
//! `plot`, the weather's effects).  Values are summed over `samples` samples; ties are
//! broken with the bot's generator, as the Python bot breaks them.  A satisfied objective
//! is completed first.

use crate::actions::{Action, CHANNEL, COMPLETE, IMPROVE, KIND_MASK, PLACE};
use crate::rng::PyRandom;
use crate::state::{Legal, State, STEP_ACTIONS};
use crate::view::View;

use super::declared;
use super::draws::{best, BotDraws};
use super::heuristics::{Cache, Snapshot, Weights};
use super::registry::{BotEntry, Params};
use super::seated::{Decider, Seated};
use super::Bot;

/// `greedy` in the registry: the parameters `bots/greedy.py` declares.
pub const ENTRY: BotEntry = BotEntry {
    name: "greedy",
    class: "GreedyBot",
    declared: || declared::of("greedy"),
    make,
    test_only: false,
};

/// Whether an action is a `place ... swap` (the Python `is_swap`).
pub fn is_swap(action: Action) -> bool {
    const SWAP_BIT: u32 = 1 << (crate::actions::B_SHIFT + 4);
    action & (KIND_MASK | SWAP_BIT) == PLACE | SWAP_BIT
}

/// Whether an action is a free move (the Python `FREE_KINDS`: channel, improve, complete).
pub fn is_free(action: Action) -> bool {
    matches!(action & KIND_MASK, CHANNEL | IMPROVE | COMPLETE)
}

/// The decision procedure of `greedy`, apart from the generator it draws from.
pub struct Greedy {
    pub samples: u32,
    pub weights: Weights,
    pub cache: Cache,
}

impl Greedy {
    /// With these parameters' values.
    pub fn new(samples: u32, decay: f64) -> Greedy {
        Greedy {
            samples,
            weights: Weights {
                decay,
                ..Weights::default()
            },
            cache: Cache::new(),
        }
    }

    /// From parameters the registry checked (`ENTRY.check`).
    pub fn from_params(p: &Params) -> Greedy {
        Greedy::new(p.int("samples") as u32, p.float("decay"))
    }

    /// One of `legal` (not empty) for the view's seat, at these card points: the shared
    /// evaluation after each action (`GreedyBot.value_after`), through `one_ply`.
    pub fn choose<R: BotDraws>(
        &mut self,
        view: &View,
        legal: &[Action],
        points: &[f64],
        rng: &mut R,
    ) -> Action {
        let seat = view.seat;
        let (cache, weights) = (&mut self.cache, &self.weights);
        one_ply(view, legal, self.samples, rng, &mut |child| {
            Snapshot::new(child, cache, points)
                .evaluate(seat, weights, None)
                .0
        })
    }
}

/// The decision of `greedy` and of `learned`, which differ only in their `leaf`: a satisfied
/// objective is completed first; else each action's `lookahead`, summed over `samples`
/// states sampled from the view, and the best (ties drawn by `best`).
pub fn one_ply<R: BotDraws>(
    view: &View,
    legal: &[Action],
    samples: u32,
    rng: &mut R,
    leaf: &mut impl FnMut(&State) -> f64,
) -> Action {
    if legal.len() == 1 {
        return legal[0];
    }
    if let Some(&a) = legal.iter().find(|&&a| a & KIND_MASK == COMPLETE) {
        return a;
    }
    let mut totals = vec![0.0; legal.len()];
    for _ in 0..samples {
        let state = view.determinize(rng);
        for (i, &action) in legal.iter().enumerate() {
            totals[i] += lookahead(&state, action, view.seat, 2, leaf);
        }
    }
    best(legal, &totals, rng)
}

/// The value of `action` for `seat`: the position it leads to, valued by `leaf`, or, while
/// the same seat has follow-up steps of its turn (`depth` bounds them; swaps and free moves
/// left out), the best of those: the one-ply lookahead of `greedy` and of `learned`, which
/// differ only in their leaf.
pub fn lookahead(
    state: &State,
    action: Action,
    seat: u8,
    depth: u32,
    leaf: &mut impl FnMut(&State) -> f64,
) -> f64 {
    let mut child = state.clone();
    let _ = child.apply(action);
    let b = &child.b;
    if depth > 0 && !b.ended && b.current == seat && b.step != STEP_ACTIONS {
        let mut legal = Legal::new();
        child.legal_into(&mut legal);
        let mut top: Option<f64> = None;
        for &follow in &legal {
            if is_swap(follow) || is_free(follow) {
                continue;
            }
            let v = lookahead(&child, follow, seat, depth - 1, leaf);
            if top.is_none_or(|t| v > t) {
                top = Some(v);
            }
        }
        // The reference's `max` of nothing raises; no rule reaches that.
        return top.unwrap_or(f64::NEG_INFINITY);
    }
    leaf(&child)
}

impl Decider for Greedy {
    fn decide<R: BotDraws>(
        &mut self,
        view: &View,
        legal: &[Action],
        points: &[f64],
        rng: &mut R,
    ) -> Action {
        self.choose(view, legal, points, rng)
    }
}

/// `greedy` with these checked parameters and generator (the registry's factory).
fn make(params: &Params, rng: PyRandom) -> Box<dyn Bot> {
    Seated::boxed(Greedy::from_params(params), rng)
}
