//! `elite`: a shallow search on the learned value, as backgammon programs search on theirs
//! (issue 51).
//!
//! Why this search and not the tree of `mcts`: in this game a single decision is worth a few
//! points of win chance, a rollout to the end of the game spreads its outcome over ±0.5, and
//! a hand-made leaf caps any search at its own bias (`docs/experiments.md`, "Why the search
//! is flat in its budget").  The learned value already averages the luck of a very large
//! number of games; what one ply on it (`learned`) cannot see is what happens next: the rest
//! of the bot's own turn, the opponents' reply and the dice.  So `elite`:
//!
//! 1. samples `samples × budget` full states consistent with its view (at least one), and
//!    ranks every legal action by `learned`'s one-ply value averaged over them (the learned
//!    value as the policy, its ranking the prior);
//! 2. keeps the best `candidates` of them, and for each, on *every* sample (common random
//!    numbers: the same hidden cards, the same dice and decks to come for each candidate),
//!    applies it and lets every seat play on with a cheap policy — one ply on the same value,
//!    on the sampled state — until the deciding seat is about to begin its next turn (or
//!    `turns` turns have ended, or the game is over);
//! 3. values that position with the learned value (a finished game by its result), and keeps
//!    the candidate with the best mean: with every candidate on the same samples, the best
//!    mean is the best of the paired differences, ties to the better one-ply rank.
//!
//! The truncated horizon keeps the spread of a sample's value far below a full rollout's,
//! and the search corrects the value's one-ply errors where they show within a turn.
//! `budget` scales the samples (the thinking): `elite:budget=4` plays every candidate on
//! four times the samples.  A satisfied objective is completed first, as in `learned`.

use std::sync::{Arc, Mutex};

use crate::actions::{Action, COMPLETE, KIND_MASK};
use crate::rng::PyRandom;
use crate::state::{Legal, State};
use crate::view::View;

use super::declared;
use super::draws::BotDraws;
use super::features::FEATURES;
use super::greedy::lookahead;
use super::heuristics::Cache;
use super::learned::{builtin, Mlp};
use super::registry::{BotEntry, Params};
use super::seated::{Decider, Seated};
use super::Bot;

/// `elite` in the registry: its parameters are declared in `bot_params.json`.
pub const ENTRY: BotEntry = BotEntry {
    name: "elite",
    class: "EliteBot",
    declared: || declared::of("elite"),
    make,
    test_only: false,
};

/// Decisions a playout makes at most before it is valued where it stands (a safety bound:
/// a turn is a handful of decisions).
const MAX_PLAYOUT: u32 = 200;

/// The settings of the search, from its parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Settings {
    /// Sampled states per decision (`samples × budget`, at least 1).
    pub samples: u32,
    /// Actions kept from the one-ply ranking for the playouts.
    pub candidates: usize,
    /// Turns that end before the leaf; 0 = until the deciding seat's next turn.
    pub turns: u32,
}

impl Settings {
    /// From parameters the registry checked.
    pub fn from_params(p: &Params) -> Settings {
        let samples = (p.int("samples") as f64 * p.float("budget")).round();
        Settings {
            samples: samples.max(1.0) as u32,
            candidates: p.int("candidates").max(1) as usize,
            turns: p.int("turns") as u32,
        }
    }
}

/// The search's estimate of one candidate (issue 51, search-distilled targets): the
/// features of the afterstate it led to for the deciding seat (on the first sample, where
/// the seat's step is done: the position `learned` values), the mean of its playouts' values
/// (a chance of winning) and how many samples that mean is over.  Why: the search's mean is
/// a lower-noise target for the value than a game's outcome, as AlphaZero trains on its
/// search's statistics.
#[derive(Clone, Debug, PartialEq)]
pub struct Estimate {
    pub features: Vec<f32>,
    pub mean: f64,
    pub samples: u32,
}

/// Where a recording `elite` puts its estimates, shared with whoever drains them.
pub type Estimates = Arc<Mutex<Vec<Estimate>>>;

/// The decision procedure of `elite`, apart from its generator.
pub struct Elite {
    pub settings: Settings,
    pub net: Arc<Mlp>,
    cache: Cache,
    x: [f32; FEATURES],
    legal: Legal,
    /// Leaves valued so far (net evaluations and finished games): the work done.
    pub evaluations: u64,
    /// Leaves the last decision valued (0 when it had no choice to search).
    pub last_evaluations: u64,
    /// Where to record each searched decision's estimates (None: not recorded).  Recording
    /// reads features and nothing else: the decisions and the draws are the same.
    pub record: Option<Estimates>,
}

/// The chance of a win a logit says.
fn chance(logit: f64) -> f64 {
    1.0 / (1.0 + (-logit).exp())
}

/// What a finished game is worth to `seat`: 1 a win, 1/k a win shared by k, 0 a loss.
fn outcome(state: &State, seat: u8) -> f64 {
    let winners = state.result(&[]).winners;
    if winners.contains(&seat) {
        1.0 / winners.len() as f64
    } else {
        0.0
    }
}

impl Elite {
    pub fn new(settings: Settings, net: Arc<Mlp>) -> Elite {
        Elite {
            settings,
            net,
            cache: Cache::new(),
            x: [0.0; FEATURES],
            legal: Legal::new(),
            evaluations: 0,
            last_evaluations: 0,
            record: None,
        }
    }

    /// The net's logit for `seat` on `state` (a finished game: ±1e6, as `learned` has it).
    fn logit(&mut self, state: &State, seat: u8, points: &[f64]) -> f64 {
        self.evaluations += 1;
        if state.is_terminal() {
            return if outcome(state, seat) > 0.0 {
                1e6
            } else {
                -1e6
            };
        }
        super::features::features(state, seat, &mut self.cache, points, &mut self.x);
        self.net.logit(&self.x) as f64
    }

    /// `learned`'s one-ply value of `action` for `seat` on a full state (through the
    /// follow-up steps of the same move, as `greedy::lookahead` looks).
    fn one_ply(&mut self, state: &State, action: Action, seat: u8, points: &[f64]) -> f64 {
        lookahead(state, action, seat, 2, &mut |child| {
            self.logit(child, seat, points)
        })
    }

    /// The playout policy: the seat to play takes its best one-ply action on the sampled
    /// state itself (a satisfied objective first; ties to the first).
    fn policy(&mut self, state: &State, points: &[f64]) -> Action {
        state.legal_into(&mut self.legal);
        let legal = std::mem::take(&mut self.legal);
        let seat = state.b.current;
        let mut pick = legal[0];
        if legal.len() > 1 && pick & KIND_MASK != COMPLETE {
            if let Some(&a) = legal.iter().find(|&&a| a & KIND_MASK == COMPLETE) {
                pick = a;
            } else {
                let mut top = f64::NEG_INFINITY;
                for &a in &legal {
                    let v = self.one_ply(state, a, seat, points);
                    if v > top {
                        (top, pick) = (v, a);
                    }
                }
            }
        }
        self.legal = legal;
        pick
    }

    /// The worth to `seat` of `action` on this sample: applied, played on by the policy to
    /// the horizon, then valued (a chance of winning).
    pub fn playout(&mut self, state: &State, action: Action, seat: u8, points: &[f64]) -> f64 {
        self.playout_into(state, action, seat, points, None)
    }

    /// [`Elite::playout`], writing into `capture` (when given) the features for `seat` of
    /// the first position where its step is done (the afterstate; none if the game ends
    /// first), and whether there was one.  Features are read with a cache of their own, so
    /// that recording cannot touch what the search computes.
    fn playout_into(
        &mut self,
        state: &State,
        action: Action,
        seat: u8,
        points: &[f64],
        mut capture: Option<(&mut Cache, &mut ([f32; FEATURES], bool))>,
    ) -> f64 {
        let mut s = state.clone();
        let _ = s.apply(action);
        let (mut ended_turns, mut current) = (0u32, seat);
        for _ in 0..MAX_PLAYOUT {
            if let Some((cache, (x, found))) = capture.as_mut() {
                if !*found && super::features::is_afterstate(&s, seat) {
                    super::features::features(&s, seat, cache, points, x);
                    *found = true;
                }
            }
            if s.b.ended {
                self.evaluations += 1;
                return outcome(&s, seat);
            }
            if s.b.current != current {
                ended_turns += 1;
                current = s.b.current;
                let horizon = match self.settings.turns {
                    0 => current == seat,
                    n => ended_turns >= n,
                };
                if horizon {
                    break;
                }
            }
            let a = self.policy(&s, points);
            let _ = s.apply(a);
        }
        chance(self.logit(&s, seat, points))
    }

    /// One of `legal` (not empty) for the view's seat: the search above.
    pub fn choose<R: BotDraws>(
        &mut self,
        view: &View,
        legal: &[Action],
        points: &[f64],
        rng: &mut R,
    ) -> Action {
        let before = self.evaluations;
        let action = self.search(view, legal, points, rng);
        self.last_evaluations = self.evaluations - before;
        action
    }

    fn search<R: BotDraws>(
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
        let seat = view.seat;
        let unseen = view.unseen();
        let states: Vec<State> = (0..self.settings.samples)
            .map(|_| view.determinize_from(&unseen, rng))
            .collect();
        let mut prior = vec![0.0; legal.len()];
        for state in &states {
            for (i, &a) in legal.iter().enumerate() {
                prior[i] += self.one_ply(state, a, seat, points);
            }
        }
        let kept = self.ranked(&prior);
        if kept.len() == 1 {
            return legal[kept[0]];
        }
        let totals = self.playouts(&states, legal, &kept, seat, points);
        // The best mean; `kept` is in rank order, so a tie goes to the better prior.
        let mut best = 0;
        for (j, &t) in totals.iter().enumerate() {
            if t > totals[best] + 1e-12 {
                best = j;
            }
        }
        legal[kept[best]]
    }

    /// Each kept candidate's total over the samples; recorded as estimates when asked.
    fn playouts(
        &mut self,
        states: &[State],
        legal: &[Action],
        kept: &[usize],
        seat: u8,
        points: &[f64],
    ) -> Vec<f64> {
        let mut totals = vec![0.0; kept.len()];
        let Some(record) = self.record.clone() else {
            for state in states {
                for (t, &i) in totals.iter_mut().zip(kept) {
                    *t += self.playout(state, legal[i], seat, points);
                }
            }
            return totals;
        };
        let mut cache = Cache::new();
        let mut captures = vec![([0.0f32; FEATURES], false); kept.len()];
        for (k, state) in states.iter().enumerate() {
            for ((t, &i), c) in totals.iter_mut().zip(kept).zip(&mut captures) {
                let capture = if k == 0 { Some((&mut cache, c)) } else { None };
                *t += self.playout_into(state, legal[i], seat, points, capture);
            }
        }
        let n = states.len() as u32;
        let mut out = record.lock().expect("the estimates");
        for (t, (x, found)) in totals.iter().zip(captures) {
            if found {
                out.push(Estimate {
                    features: x.to_vec(),
                    mean: t / n as f64,
                    samples: n,
                });
            }
        }
        totals
    }

    /// The indices of the `candidates` best prior values, best first (ties by order).
    fn ranked(&self, prior: &[f64]) -> Vec<usize> {
        let mut order: Vec<usize> = (0..prior.len()).collect();
        order.sort_by(|&a, &b| prior[b].total_cmp(&prior[a]).then(a.cmp(&b)));
        order.truncate(self.settings.candidates);
        order
    }
}

impl Decider for Elite {
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

/// `elite` with the compiled-in weights (the registry's factory).
fn make(params: &Params, rng: PyRandom) -> Box<dyn Bot> {
    let elite = Elite::new(Settings::from_params(params), builtin());
    Seated::boxed(elite, rng)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bots::heuristics::card_points;
    use crate::state::STEP_ACTIONS;

    /// A position of a seeded random game at the action step, with choices and no
    /// objective to complete (what the search decides).
    fn position(seed: u64) -> State {
        let mut s = State::new(2, seed as i128, Arc::default(), &[], false, Arc::default())
            .expect("a game");
        let mut rng = PyRandom::new(seed as i128);
        for i in 0.. {
            let legal = s.legal_actions();
            let searched = legal.len() > 2 && !legal.iter().any(|&a| a & KIND_MASK == COMPLETE);
            if i >= 30 && s.b.step == STEP_ACTIONS && searched {
                return s;
            }
            s.apply(legal[rng.randbelow(legal.len() as u64) as usize])
                .expect("a legal action");
        }
        unreachable!()
    }

    fn settings(samples: u32, candidates: usize) -> Settings {
        Settings {
            samples,
            candidates,
            turns: 1,
        }
    }

    /// The action and the leaves valued by `elite` with these settings on a position.
    fn decide(s: &State, settings: Settings, seed: i128) -> (Action, u64) {
        let view = View::of(s, s.b.current as i64).expect("a seat");
        let legal = s.legal_actions();
        let mut elite = Elite::new(settings, builtin());
        let a = elite.choose(&view, &legal, &card_points(&s.b), &mut PyRandom::new(seed));
        assert!(legal.contains(&a));
        (a, elite.last_evaluations)
    }

    #[test]
    fn the_same_seed_makes_the_same_decision() {
        let s = position(3);
        assert_eq!(decide(&s, settings(2, 3), 9), decide(&s, settings(2, 3), 9));
    }

    #[test]
    fn the_budget_scales_the_work() {
        // Why: `elite:budget=4` must think four times as much, not a little more.
        let p = |budget: f64| {
            let mut p = super::super::registry::Params(vec![]);
            for (name, v) in [("samples", 2i64), ("candidates", 3), ("turns", 1)] {
                p.0.push((name, super::super::Value::Int(v)));
            }
            p.0.push(("budget", super::super::Value::Float(budget)));
            Settings::from_params(&p)
        };
        assert_eq!(p(1.0).samples, 2);
        assert_eq!(p(4.0).samples, 8);
        assert_eq!(p(0.25).samples, 1);
        // Leaves per playout vary with the sample: summed over a few positions.
        let (mut one, mut four) = (0, 0);
        for seed in 5..10 {
            let s = position(seed);
            one += decide(&s, p(1.0), 1).1;
            four += decide(&s, p(4.0), 1).1;
        }
        let ratio = four as f64 / one as f64;
        assert!((3.0..5.5).contains(&ratio), "{one} then {four} leaves");
    }

    #[test]
    fn one_candidate_is_learned_s_one_ply_choice() {
        // The prior is `learned`'s ranking: keeping one candidate plays no playout and
        // chooses what `learned` with as many samples chooses, on the same draws.
        for seed in [7, 8, 9] {
            let s = position(seed);
            let view = View::of(&s, s.b.current as i64).expect("a seat");
            let legal = s.legal_actions();
            let points = card_points(&s.b);
            let mut learned = super::super::learned::Learned::new(2, builtin());
            let want = learned.choose(&view, &legal, &points, &mut PyRandom::new(4));
            let (got, leaves) = decide(&s, settings(2, 1), 4);
            assert_eq!(got, want);
            let (_, searched) = decide(&s, settings(2, 3), 4);
            assert!(searched > leaves, "{searched} > {leaves}");
        }
    }

    #[test]
    fn recording_estimates_changes_no_decision() {
        // Why: the estimates are training rows of the search as it plays; recording them
        // must not change what it plays, nor the work it does.
        for seed in [3, 5, 7, 9] {
            let s = position(seed);
            let plain = decide(&s, settings(2, 3), 6);
            let view = View::of(&s, s.b.current as i64).expect("a seat");
            let legal = s.legal_actions();
            let mut elite = Elite::new(settings(2, 3), builtin());
            let record = Estimates::default();
            elite.record = Some(record.clone());
            let a = elite.choose(&view, &legal, &card_points(&s.b), &mut PyRandom::new(6));
            assert_eq!((a, elite.last_evaluations), plain);
            let estimates = record.lock().expect("the estimates");
            assert!((1..=3).contains(&estimates.len()), "{}", estimates.len());
            for e in estimates.iter() {
                assert_eq!((e.features.len(), e.samples), (FEATURES, 2));
                assert!((0.0..=1.0).contains(&e.mean), "{}", e.mean);
                assert!(e.features.iter().all(|v| v.is_finite()));
            }
            // Distinct candidates lead to distinct afterstates.
            if estimates.len() > 1 {
                assert_ne!(estimates[0].features, estimates[1].features);
            }
        }
    }

    #[test]
    fn a_finished_game_is_worth_its_result() {
        let mut s = position(11);
        let mut rng = PyRandom::new(2);
        while !s.is_terminal() {
            let legal = s.legal_actions();
            s.apply(legal[rng.randbelow(legal.len() as u64) as usize])
                .expect("a legal action");
        }
        let winners = s.result(&[]).winners;
        let total: f64 = (0..2).map(|seat| outcome(&s, seat)).sum();
        assert!((total - 1.0).abs() < 1e-12);
        assert_eq!(outcome(&s, winners[0]), 1.0 / winners.len() as f64);
        let mut elite = Elite::new(settings(1, 1), builtin());
        let points = card_points(&s.b);
        let loser = (0..2).find(|p| !winners.contains(p));
        if let Some(loser) = loser {
            assert_eq!(elite.logit(&s, loser, &points), -1e6);
        }
    }
}
