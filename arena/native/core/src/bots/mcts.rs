//! `mcts`: information-set Monte Carlo tree search with a Takenoko leaf evaluation (the
//! port of `bots/mcts.py`, every parameter and leaf).
//!
//! The bot decides when to search, what to leave to the `objective` planner, and the
//! root's priors; the tree and its selection are [`super::mcts_search`], the leaves
//! [`super::mcts_leaves`].  The Python module's docstring gives the method and the
//! reasons; this port makes the same decisions with the same draws from the same
//! generator (in iteration mode; `time` reads the clock every 8 iterations as the
//! reference does, so a deadline stops it where the machine's speed says).

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::actions::{Action, COMPLETE, END, KIND_MASK};
use crate::history::Entry;
use crate::options::RuleOptions;
use crate::rng::PyRandom;
use crate::state::STEP_ACTIONS;
use crate::view::View;

use super::declared;
use super::draws::BotDraws;
use super::heuristics::{CHANNEL_VALUE, IMPROVEMENT_VALUE, SCORE_WEIGHT};
use super::mcts_leaves::{lead_chance, Leaf, LeafKind};
use super::mcts_search::{candidates, ordered, NodeId, Search, SearchSettings};
use super::objective::{Objective, Settings as ObjectiveSettings};
use super::registry::{BotEntry, Params};
use super::Bot;

/// The most seconds a decision may be given (`arena.play.limits.MAX_MOVE_TIME`).
pub const MAX_MOVE_TIME: f64 = 86400.0;
/// The default budget by number of players (2, and 3 or more).
pub const AUTO_ITERATIONS: [u64; 2] = [1000, 1000];
/// The choices of `eval` and `delegate` in `bot_params.json`'s order (a setting is its place).
const EVALS: &[&str] = &["auto", "deny", "fitted", "score"];
const DELEGATES: &[&str] = &["auto", "none", "complete", "steps"];

/// What the planner is left (`delegate`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Delegate {
    None,
    Complete,
    Steps,
}

/// The parameters' values.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Settings {
    pub iterations: u64,
    pub time: f64,
    /// A multiple of the thinking (`iterations` and `time`; 1 = as given).
    pub budget: f64,
    pub search: SearchSettings,
    /// None: auto (by the number of players).
    pub eval: Option<LeafKind>,
    pub temperature: f64,
    pub reuse: bool,
    pub planner: bool,
    /// None: auto.
    pub delegate: Option<Delegate>,
}

impl Settings {
    /// From the registry's checked parameters (`ENTRY.check`: Python's types, bounds and
    /// sentences).
    pub fn from_params(p: &Params) -> Settings {
        let eval = match choice(EVALS, p.text("eval")) {
            1 => Some(LeafKind::Deny),
            2 => Some(LeafKind::Fitted),
            3 => Some(LeafKind::Score),
            _ => None,
        };
        let delegate = match choice(DELEGATES, p.text("delegate")) {
            1 => Some(Delegate::None),
            2 => Some(Delegate::Complete),
            3 => Some(Delegate::Steps),
            _ => None,
        };
        Settings {
            iterations: p.int("iterations").max(0) as u64,
            time: p.float("time"),
            budget: p.float("budget"),
            search: SearchSettings {
                c: p.float("c"),
                depth: p.int("depth").max(0) as u64,
                random_rollout: p.text("rollout") == "random",
                widen: p.float("widen"),
                lookahead: p.int("lookahead").max(0) as u64,
                prior: p.int("prior").max(0) as u64,
                turns: p.int("turns").max(0) as u64,
            },
            eval,
            temperature: p.float("temperature"),
            reuse: p.bool("reuse"),
            planner: p.bool("planner"),
            delegate,
        }
    }
}

/// The search bot apart from its generator.
pub struct Mcts {
    pub settings: Settings,
    pub search: Search,
    /// The `objective` planner (priors and delegated decisions), if the bot has one.
    pub planner: Option<Objective>,
    seat: u8,
    iterations: u64,
    delegate: Delegate,
    kept: Option<NodeId>,
    kept_round: i64,
    /// Iterations run by the last `choose` (for benchmarks).
    pub last_iterations: u64,
}

impl Mcts {
    pub fn new(settings: Settings) -> Mcts {
        let leaf = Leaf::new(LeafKind::Fitted, settings.temperature);
        let planner = (settings.planner || settings.delegate != Some(Delegate::None))
            .then(|| Objective::new(ObjectiveSettings::default()));
        let mut bot = Mcts {
            settings,
            search: Search::new(settings.search, leaf),
            planner,
            seat: 0,
            iterations: 0,
            delegate: Delegate::None,
            kept: None,
            kept_round: -1,
            last_iterations: 0,
        };
        bot.for_players(2);
        bot
    }

    /// A new game: this bot plays `seat` of `players`.
    pub fn start(&mut self, seat: u8, players: u8) {
        self.seat = seat;
        self.for_players(players);
        self.kept = None;
        self.kept_round = -1;
        if let Some(p) = &mut self.planner {
            p.start();
        }
    }

    /// Passed on to the planner (it remembers where opponents' pandas ate).
    pub fn observe(&mut self, entry: &Entry) {
        if let Some(p) = &mut self.planner {
            p.observe(self.seat, entry);
        }
    }

    /// The budget, delegation, leaf and tree keys for this number of players.
    fn for_players(&mut self, players: u8) {
        let two = players <= 2;
        let base = if self.settings.iterations > 0 {
            self.settings.iterations
        } else {
            AUTO_ITERATIONS[usize::from(!two)]
        };
        self.iterations = scaled(base, self.settings.budget);
        self.delegate =
            self.settings
                .delegate
                .unwrap_or(if two { Delegate::Steps } else { Delegate::None });
        let kind = self.settings.eval.unwrap_or(if two {
            LeafKind::Fitted
        } else {
            LeafKind::Deny
        });
        if kind != self.search.leaf.kind {
            self.search.leaf = Leaf::new(kind, self.settings.temperature);
        }
        self.search.plot_keys = two;
    }

    /// The most visited root action after the search (`points`: the view's card points).
    pub fn choose<R: BotDraws>(
        &mut self,
        view: &View,
        legal: &[Action],
        points: &[f64],
        rng: &mut R,
    ) -> Action {
        if legal.len() == 1 {
            self.kept = None;
            return legal[0];
        }
        if self.delegate != Delegate::None
            && (legal[0] & KIND_MASK == COMPLETE
                || (self.delegate == Delegate::Steps && view.b.step != STEP_ACTIONS))
        {
            self.kept = None;
            self.last_iterations = 0;
            let planner = self.planner.as_mut().expect("a planner to delegate to");
            return planner.choose(view, legal, points, rng);
        }
        let deadline = (self.settings.time > 0.0).then(|| {
            let seconds = (self.settings.time * self.settings.budget).min(MAX_MOVE_TIME);
            Instant::now() + Duration::from_secs_f64(seconds)
        });
        self.search.prepare(view, points);
        let root = self.root(view, points, rng);
        let mut n: u64 = 0;
        while n < self.iterations {
            self.search.iterate(root, view, rng);
            n += 1;
            if let Some(d) = deadline {
                if n & 7 == 0 && Instant::now() >= d {
                    break;
                }
            }
        }
        self.last_iterations = n;
        let (best, action) = self.search.best(root, view, legal);
        self.kept = None;
        if self.settings.reuse && best != END {
            if let Some(child) = self.search.child(root, best) {
                self.kept = Some(child);
                self.kept_round = view.b.round as i64;
            }
        }
        action
    }

    /// The kept subtree when this decision continues the turn it was grown for, else a
    /// new root ordered by a look-ahead and, at the action step, the planner's values.
    fn root<R: BotDraws>(&mut self, view: &View, points: &[f64], rng: &mut R) -> NodeId {
        if let Some(kept) = self.kept.take() {
            if view.b.round as i64 == self.kept_round && view.b.current == self.seat {
                return kept;
            }
        }
        let root = self.search.new_root();
        let s = view.determinize_from(&self.search.unseen, rng);
        let legal = s.legal_actions();
        let mut cands = Vec::new();
        candidates(&legal, &mut cands);
        let keyed = self.search.keys(s.b.step, &s.drawn, &cands);
        let alone = view.b.current == self.seat;
        self.search.lookahead_order(root, &s, &keyed, alone, rng);
        if self.planner.is_some()
            && view.b.step == STEP_ACTIONS
            && keyed.keys[0] & KIND_MASK != COMPLETE
        {
            self.planner_prior(root, view, &s, &keyed.keys, points, rng);
        }
        root
    }

    /// Order and prior values of the root's actions from the `objective` planner (the
    /// reference's `_planner_prior`).
    fn planner_prior<R: BotDraws>(
        &mut self,
        root: NodeId,
        view: &View,
        s: &crate::state::State,
        cands: &[u32],
        points: &[f64],
        rng: &mut R,
    ) {
        let seat = view.seat as usize;
        let planner = self.planner.as_mut().expect("a planner");
        let values = planner.planned_values(view, s, cands, points, rng);
        if values.is_empty() {
            return;
        }
        let b = &view.b;
        let players = b.players as usize;
        let mut rival: Option<f64> = None;
        for q in 0..players {
            if q == seat {
                continue;
            }
            let stored = b.stored_improvements[q];
            let v = SCORE_WEIGHT * b.score(q as u8) as f64
                + CHANNEL_VALUE * b.stored_channels[q] as f64
                + IMPROVEMENT_VALUE
                    * (stored[1] as u32 + stored[2] as u32 + stored[3] as u32) as f64;
            if rival.is_none_or(|r| v > r) {
                rival = Some(v);
            }
        }
        let rival = rival.unwrap_or(0.0);
        let t = self.settings.temperature;
        let node = self.search.node_mut(root);
        let mut prior = node.prior.take().unwrap_or_default();
        for &(a, v) in &values {
            let chance = lead_chance(v - rival, t);
            match prior.iter_mut().find(|(k, _)| *k == a) {
                Some((_, vec)) => vec[seat] = chance,
                None => {
                    let mut vec = [0.0; 4];
                    vec[..players].fill(0.5);
                    vec[seat] = chance;
                    prior.push((a, vec));
                }
            }
        }
        if self.settings.search.prior > 0 {
            node.prior = Some(prior);
        }
        let value_of = |i: usize| {
            values
                .iter()
                .find(|(a, _)| *a == cands[i])
                .map_or(-1e9, |&(_, v)| v)
        };
        let order = ordered(cands, value_of, rng);
        self.search.node_mut(root).order = Some(order);
    }
}

/// `mcts` as the referee plays it: the search and its own generator.
pub struct MctsBot {
    pub mcts: Mcts,
    pub rng: PyRandom,
    points: Vec<f64>,
}

impl MctsBot {
    pub fn new(mcts: Mcts, rng: PyRandom) -> MctsBot {
        MctsBot {
            mcts,
            rng,
            points: Vec::new(),
        }
    }
}

impl Bot for MctsBot {
    fn start(&mut self, seat: u8, players: u8, _options: &Arc<RuleOptions>) {
        self.mcts.start(seat, players);
    }

    fn choose(&mut self, view: &View, legal: &[Action]) -> Action {
        self.points.clear();
        self.points
            .extend(view.b.card_set.points.iter().map(|&p| p as f64));
        self.mcts.choose(view, legal, &self.points, &mut self.rng)
    }

    fn observe(&mut self, entry: &Entry) {
        self.mcts.observe(entry);
    }

    fn rng(&self) -> &PyRandom {
        &self.rng
    }
}

/// Iterations for a budget: `base × budget` rounded half up, at least one (the reference's
/// `scaled_iterations`; exactly `base` at budget 1, so the default's decisions hold).
pub fn scaled(base: u64, budget: f64) -> u64 {
    ((base as f64 * budget + 0.5).floor() as u64).max(1)
}

/// `mcts` in the native registry (the referee plays it without Python).
pub const ENTRY: BotEntry = BotEntry {
    name: "mcts",
    class: "MctsBot",
    declared: || declared::of("mcts"),
    make: from_registry,
    test_only: false,
};

fn choice(list: &[&str], text: &str) -> usize {
    list.iter().position(|&c| c == text).unwrap_or(0)
}

/// `mcts` from the registry's checked parameters (`elite`'s too).
pub fn from_registry(p: &Params, rng: PyRandom) -> Box<dyn Bot> {
    Box::new(MctsBot::new(Mcts::new(Settings::from_params(p)), rng))
}

#[cfg(test)]
mod tests {
    use super::super::heuristics::DECAY;
    use super::super::mcts_leaves::DEFAULT_TEMPERATURE;
    use super::super::objective::ARCHETYPES;
    use super::super::registry::{Default, Kind, ParamDecl};
    use super::*;

    /// A parameter as `bot_params.json` declares it.
    fn param(bot: &str, name: &str) -> ParamDecl {
        *declared::of(bot).iter().find(|p| p.name == name).unwrap()
    }

    /// The constants the code keeps beside the table (a setting is a choice's place, the
    /// shared evaluation's `DECAY`...) are the defaults, choices and bounds it declares.
    #[test]
    fn the_code_s_constants_are_the_table_s() {
        for bot in ["greedy", "objective"] {
            assert_eq!(param(bot, "decay").default, Default::Float(DECAY));
        }
        let text = |bot, name| match param(bot, name).kind {
            Kind::Text { choices } => choices,
            _ => panic!("{name}"),
        };
        assert_eq!(text("objective", "prefer"), ARCHETYPES);
        assert_eq!(text("mcts", "eval"), EVALS);
        assert_eq!(text("mcts", "delegate"), DELEGATES);
        let temperature = param("mcts", "temperature").default;
        assert_eq!(temperature, Default::Float(DEFAULT_TEMPERATURE));
        assert!(matches!(
            param("mcts", "time").kind,
            Kind::Float { maximum: Some(m), .. } if m == MAX_MOVE_TIME
        ));
    }
}
