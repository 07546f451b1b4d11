//! `greedy`: one-ply lookahead with the shared evaluation (the port of `bots/greedy.py`).
//!
//! For each decision: sample a full state consistent with the view (`determinize`), try
//! every legal action on a copy, and keep the action whose result the evaluation likes
//! best for this seat, looking through the follow-up steps of the same move (`place` after
//! `plot`, the weather's effects).  Values are summed over `samples` samples; ties are
//! broken with the bot's generator, as the Python bot breaks them.  A satisfied objective
//! is completed first.

use std::sync::Arc;

use crate::actions::{Action, CHANNEL, COMPLETE, IMPROVE, KIND_MASK, PLACE};
use crate::json::Json;
use crate::options::RuleOptions;
use crate::rng::PyRandom;
use crate::state::{Legal, State, STEP_ACTIONS};
use crate::view::View;

use super::draws::{best, BotDraws};
use super::heuristics::{card_points, Cache, Snapshot, Weights, DECAY};
use super::params::{self, Spec};
use super::registry::{BotEntry, Default as Given, Kind as Decl, ParamDecl, Params};
use super::Bot;

/// The parameters of `greedy`, as `bots/greedy.py` declares them.
pub const PARAMS: &[Spec] = &[
    Spec::int("samples", 1, 1, 1000),
    Spec::float("decay", DECAY, Some(0.0), None),
];

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
    /// From checked parameters (`params::check(PARAMS, ...)`).
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

    /// From a spec's parameters (name, value), checked as the Python bot checks them.
    pub fn from_params(given: &[(String, Json)]) -> Result<Greedy, String> {
        let p = params::check("GreedyBot", PARAMS, given)?;
        Ok(Greedy::new(p[0].as_int() as u32, p[1].as_float()))
    }

    /// One of `legal` (not empty) for the view's seat, at these card points.
    pub fn choose<R: BotDraws>(
        &mut self,
        view: &View,
        legal: &[Action],
        points: &[f64],
        rng: &mut R,
    ) -> Action {
        if legal.len() == 1 {
            return legal[0];
        }
        if let Some(&a) = legal.iter().find(|&&a| a & KIND_MASK == COMPLETE) {
            return a;
        }
        let mut totals = vec![0.0; legal.len()];
        for _ in 0..self.samples {
            let state = view.determinize(rng);
            for (i, &action) in legal.iter().enumerate() {
                totals[i] += self.value_after(&state, action, view.seat, points, 2);
            }
        }
        best(legal, &totals, rng)
    }

    /// The evaluation after `action`, looking through follow-up steps of the same seat
    /// (`depth` bounds it), as `GreedyBot.value_after`.
    pub fn value_after(
        &mut self,
        state: &State,
        action: Action,
        seat: u8,
        points: &[f64],
        depth: u32,
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
                let v = self.value_after(&child, follow, seat, points, depth - 1);
                if top.is_none_or(|t| v > t) {
                    top = Some(v);
                }
            }
            // The reference's `max` of nothing raises; no rule reaches that.
            return top.unwrap_or(f64::NEG_INFINITY);
        }
        Snapshot::new(&child, &mut self.cache, points)
            .evaluate(seat, &self.weights, None)
            .0
    }
}

/// `greedy` as the referee plays it: the procedure and its own generator.
pub struct GreedyBot {
    pub greedy: Greedy,
    pub rng: PyRandom,
    points: Vec<f64>,
}

impl GreedyBot {
    pub fn new(greedy: Greedy, rng: PyRandom) -> GreedyBot {
        GreedyBot {
            greedy,
            rng,
            points: Vec::new(),
        }
    }
}

impl Bot for GreedyBot {
    fn start(&mut self, _seat: u8, _players: u8, _options: &Arc<RuleOptions>) {}

    fn choose(&mut self, view: &View, legal: &[Action]) -> Action {
        if self.points.is_empty() {
            self.points = card_points(&view.b);
        }
        self.greedy.choose(view, legal, &self.points, &mut self.rng)
    }

    fn rng(&self) -> &PyRandom {
        &self.rng
    }
}

/// `greedy` with these parameters and generator (what a registry builds by name).
pub fn make(given: &[(String, Json)], rng: PyRandom) -> Result<Box<dyn Bot>, String> {
    Ok(Box::new(GreedyBot::new(Greedy::from_params(given)?, rng)))
}

/// `greedy` in the native registry (the referee plays it without Python).
pub const ENTRY: BotEntry = BotEntry {
    name: "greedy",
    class: "GreedyBot",
    params: &[
        ParamDecl {
            name: "samples",
            kind: Decl::Int {
                minimum: Some(1),
                maximum: Some(1000),
            },
            default: Given::Int(1),
        },
        ParamDecl {
            name: "decay",
            kind: Decl::Float {
                minimum: Some(0.0),
                maximum: None,
            },
            default: Given::Float(DECAY),
        },
    ],
    make: |p: &Params, rng: PyRandom| -> Box<dyn Bot> {
        Box::new(GreedyBot::new(
            Greedy::new(p.int("samples").max(1) as u32, p.float("decay")),
            rng,
        ))
    },
    test_only: false,
};
