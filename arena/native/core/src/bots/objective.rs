//! `objective`: plans each turn towards the objectives it holds (the port of
//! `bots/objective.py`, every parameter, `prefer=` archetypes, denial and `observe`).
//!
//! The *target* is the card in hand with the most points per estimated remaining action;
//! a position is judged by the shared evaluation, plus `focus` times the target's
//! discounted value, minus `deny` times what the opponents' hidden hands are expected to
//! be worth, plus the fences.  At the action step every first action is valued on a
//! sample (a plot draw over `plot_samples` samples, an objective draw by its deck's
//! expectation) and the `beam` best are extended by the best second action of the turn.
//! The Python module's docstring gives the reasons; this port makes the same decisions
//! with the same draws.

use std::collections::HashMap;
use std::sync::Arc;

use crate::actions::{
    Action, A_MASK, A_SHIFT, B_SHIFT, COMPLETE, END, IMPROVE, KIND_MASK, OBJECTIVE, PANDA, PLOT,
    REDRAW, STORM, WEATHER,
};
use crate::components::{ENCLOSURE, FACE_SUN, FACE_WIND, GARDENER_CARD, PANDA_CARD};
use crate::grid::CellSet;
use crate::history::Entry;
use crate::options::RuleOptions;
use crate::rng::PyRandom;
use crate::state::{Legal, State, STEP_ACTIONS, STEP_CHOOSE_WEATHER, STEP_REDRAW};
use crate::view::View;

use super::declared;
use super::draws::{best, BotDraws};
use super::greedy::{is_free, is_swap};
use super::heuristics::{
    self, card_value, category, cost_of, Cache, FxBuild, Pools, Snapshot, Weights, NO_HORIZON,
};
use super::registry::{BotEntry, Params};
use super::Bot;

/// What the sun's third action is worth, as a share of the best single action's gain.
pub const SUN_SHARE: f64 = 0.8;
/// What the wind's permission to repeat an action is worth, likewise.
pub const WIND_SHARE: f64 = 0.2;
/// Value of a stored enclosure on a plot the hand wants, once opponents eat (`protect`).
pub const FENCE_VALUE: f64 = 1.0;
/// Values of `prefer`: no archetype, or the category the bot favours.
pub const ARCHETYPES: &[&str] = &["none", "plot", "gardener", "panda"];

/// `objective` in the registry: the parameters `bots/objective.py` declares.
pub const ENTRY: BotEntry = BotEntry {
    name: "objective",
    class: "ObjectiveBot",
    declared: || declared::of("objective"),
    make,
    test_only: false,
};

/// The parameters' values.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Settings {
    pub hand_size: usize,
    pub beam: usize,
    pub plot_samples: usize,
    pub focus: f64,
    pub protect: bool,
    pub decay: f64,
    pub deny: f64,
    pub race: f64,
    /// The preferred category, or None (`prefer=none`).
    pub prefer: Option<u8>,
    pub weight: f64,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings::from_params(&ENTRY.check(&[]).expect("the defaults"))
    }
}

impl Settings {
    /// From parameters the registry checked (`ENTRY.check`).
    pub fn from_params(p: &Params) -> Settings {
        // `prefer` is one of ARCHETYPES ("none" first, then the categories in order).
        let prefer = ARCHETYPES.iter().position(|a| *a == p.text("prefer"));
        Settings {
            hand_size: p.int("hand_size") as usize,
            beam: p.int("beam") as usize,
            plot_samples: p.int("plot_samples") as usize,
            focus: p.float("focus"),
            protect: p.bool("protect"),
            decay: p.float("decay"),
            deny: p.float("deny"),
            race: p.float("race"),
            prefer: prefer.filter(|&i| i > 0).map(|i| (i - 1) as u8),
            weight: p.float("weight"),
        }
    }
}

/// What one decision works towards (the Python `_Plan`).
#[derive(Clone, Debug)]
pub struct Plan {
    pub seat: u8,
    /// The target card, if the hand holds any.
    pub target: Option<u8>,
    pub horizon: Option<i64>,
    pub focus: f64,
    /// Colours whose shoots opponents have been eating (bit per colour).
    pub threatened: u8,
    /// Colours of the hand's gardener cards that an enclosure does not spoil.
    pub fence_colours: u8,
    /// The cards this seat has not seen, per category (what opponents may hold); None
    /// without denial.
    pub pools: Option<Pools>,
}

fn kind(a: Action) -> u32 {
    a & KIND_MASK
}

fn arg(a: Action) -> u32 {
    a >> B_SHIFT
}

fn cell(a: Action) -> u16 {
    (a >> A_SHIFT & A_MASK) as u16
}

/// The planner apart from its generator: what `mcts` also calls for its priors.
pub struct Objective {
    pub settings: Settings,
    pub weights: Weights,
    pub cache: Cache,
    /// Cells where opponents' pandas were seen (`observe`).
    pub eaten_by_others: CellSet,
    /// The decision's draw values, per category, for its view's seat.
    draws: [Option<f64>; 3],
    /// The card points the decision plans with (an archetype's weighted ones).
    planning: Vec<f64>,
    /// `value`'s memory for the decision's plan, by what the value reads of a state.
    values: HashMap<Box<[u8]>, f64, FxBuild>,
    key: Vec<u8>,
}

impl Objective {
    pub fn new(settings: Settings) -> Objective {
        Objective {
            settings,
            weights: Weights {
                decay: settings.decay,
                race: settings.race,
                ..Weights::default()
            },
            cache: Cache::new(),
            eaten_by_others: CellSet::default(),
            draws: [None; 3],
            planning: Vec::new(),
            values: HashMap::default(),
            key: Vec::new(),
        }
    }

    /// A new game (`start`): nothing seen of the opponents' pandas yet.
    pub fn start(&mut self) {
        self.eaten_by_others = CellSet::default();
    }

    /// Remembers where opponents' pandas went (to decide when to fence, `protect`).
    pub fn observe(&mut self, my_seat: u8, entry: &Entry) {
        if let Entry::Move { seat, action, .. } = *entry {
            if seat != my_seat && matches!(kind(action), PANDA | STORM) {
                self.eaten_by_others.insert(cell(action));
            }
        }
    }

    /// One of `legal` (not empty) for the view's seat; `points` are the view's card points.
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
        let mut legal: Vec<Action> = legal.to_vec();
        let completing: Vec<Action> = legal
            .iter()
            .copied()
            .filter(|&a| kind(a) == COMPLETE)
            .collect();
        if !completing.is_empty() {
            if emperor_would_lose(view, &completing, points) {
                legal.retain(|&a| kind(a) != COMPLETE);
            } else {
                let mut top = completing[0];
                for &a in &completing[1..] {
                    if points[arg(a) as usize] > points[arg(top) as usize] {
                        top = a;
                    }
                }
                return top;
            }
        }
        self.planning.clear();
        match self.settings.prefer {
            Some(category) => {
                let w = self.settings.weight;
                self.planning
                    .extend(points.iter().enumerate().map(|(c, &p)| {
                        if heuristics::category(&view.b, c as u8) == category {
                            p * w
                        } else {
                            p
                        }
                    }));
            }
            None => self.planning.extend_from_slice(points),
        }
        self.draws = [None; 3];
        if view.b.step == STEP_REDRAW {
            return self.choose_redraw(view, &legal, rng);
        }
        let plan = self.plan(view);
        let state = view.determinize(rng);
        match view.b.step {
            STEP_ACTIONS => {
                if let Some(fence) = self.fence(view, &legal, &plan) {
                    return fence;
                }
                self.plan_turn(view, &state, &legal, &plan, rng)
            }
            STEP_CHOOSE_WEATHER => self.choose_weather(view, &state, &legal, &plan, rng),
            _ => {
                let values: Vec<f64> = legal
                    .iter()
                    .map(|&a| self.value_after(view, &state, a, &plan, rng))
                    .collect();
                best(&legal, &values, rng)
            }
        }
    }

    /// `turn_values` with this decision's plan made afresh from `view` (what `mcts` takes
    /// as the prior of its root), in the order of `legal`; the view's card points.
    pub fn planned_values<R: BotDraws>(
        &mut self,
        view: &View,
        state: &State,
        legal: &[Action],
        points: &[f64],
        rng: &mut R,
    ) -> Vec<(Action, f64)> {
        self.planning.clear();
        self.planning.extend_from_slice(points);
        self.draws = [None; 3];
        let plan = self.plan(view);
        self.turn_values(view, state, legal, &plan, rng)
    }

    fn choose_redraw<R: BotDraws>(&mut self, view: &View, legal: &[Action], rng: &mut R) -> Action {
        let redraws: Vec<Action> = legal
            .iter()
            .copied()
            .filter(|&a| kind(a) == REDRAW)
            .collect();
        let values: Vec<f64> = redraws
            .iter()
            .map(|&a| self.draw_value(view, arg(a) as u8))
            .collect();
        best(&redraws, &values, rng)
    }

    /// `draw_value` of a deck for the view's seat, worked out once per decision.
    fn draw_value(&mut self, view: &View, category: u8) -> f64 {
        if let Some(v) = self.draws[category as usize] {
            return v;
        }
        let v = heuristics::draw_value(
            view,
            view.seat,
            category,
            self.settings.decay,
            self.settings.race,
            &mut self.cache,
            &self.planning,
        );
        self.draws[category as usize] = Some(v);
        v
    }

    /// The decision's plan: target, horizon, threats, fences, pools (the Python `_plan`).
    pub fn plan(&mut self, view: &View) -> Plan {
        self.values.clear();
        let seat = view.seat;
        let b = &view.b;
        let hand = &view.hand;
        let race = self.settings.race;
        let mut target = None;
        if !hand.is_empty() {
            let costs = Snapshot::new(view, &mut self.cache, &self.planning)
                .costs(seat, hand)
                .0;
            let mut best: Option<(f64, f64, u8)> = None;
            for &c in hand {
                let cost = cost_of(&costs, c).unwrap_or(0.0);
                let key = ((self.planning[c as usize] + race) / (1.0 + cost), -cost);
                let better = match best {
                    None => true,
                    Some((r, n, _)) => key.0 > r || (key.0 == r && key.1 > n),
                };
                if better {
                    best = Some((key.0, key.1, c));
                }
            }
            target = best.map(|t| t.2);
        }
        let mut horizon = None;
        let needed = b.rules.objectives_to_end[b.players as usize] as i64;
        if b.emperor < 0
            && (0..b.players)
                .any(|s| s != seat && b.completed[s as usize].len() as i64 >= needed - 1)
        {
            let left = if b.weather == FACE_SUN { 3 } else { 2 } - b.taken.len() as i64;
            horizon = Some(left + 2);
        }
        let mut threatened = 0u8;
        for k in 0..3 {
            if (0..b.players).any(|s| s != seat && b.eaten[s as usize][k] != 0) {
                threatened |= 1 << k;
            }
        }
        for c in self.eaten_by_others.iter() {
            let colour = b.colour(c);
            if colour >= 0 {
                threatened |= 1 << colour;
            }
        }
        let mut fence_colours = 0u8;
        for &c in hand {
            let card = &b.card_set.card(c);
            if card.category == GARDENER_CARD && matches!(card.improvement, -1 | 2) {
                fence_colours |= 1 << card.colour;
            }
        }
        let pools = (self.settings.deny != 0.0).then(|| {
            Pools([
                Vec::new(),
                view.unseen_cards(GARDENER_CARD as usize),
                view.unseen_cards(PANDA_CARD as usize),
            ])
        });
        Plan {
            seat,
            target,
            horizon,
            focus: self.settings.focus,
            threatened,
            fence_colours,
            pools,
        }
    }

    /// The planner's evaluation (`_value`), remembered for the decision: a turn's search
    /// meets the same position many times (a first action valued again when extended, two
    /// actions in either order), and the key holds everything the value reads (the Python
    /// `_value_key`); the plan is the decision's (`plan` starts the memory afresh).
    pub fn value(&mut self, state: &State, plan: &Plan) -> f64 {
        let mut key = std::mem::take(&mut self.key);
        let layout = self.cache.layout_id(&state.b);
        value_key(state, plan, layout, &mut key);
        if let Some(&v) = self.values.get(&key[..]) {
            self.key = key;
            return v;
        }
        let v = self.value_of(state, plan);
        self.values.insert(key.as_slice().into(), v);
        self.key = key;
        v
    }

    /// The planner's evaluation: the shared one, plus the target's pull, minus the
    /// opponents' expected progress, plus the fences (the Python `_value`).
    pub fn value_of(&mut self, state: &State, plan: &Plan) -> f64 {
        let s = &self.settings;
        let seat = plan.seat;
        let b = &state.b;
        let mut board = Snapshot::new(state, &mut self.cache, &self.planning);
        let (mut v, costs) = board.evaluate(seat, &self.weights, plan.horizon);
        if let Some(target) = plan.target {
            if plan.focus != 0.0 && state.hands[seat as usize].contains(&target) {
                let cost = if category(b, target) == PANDA_CARD {
                    board.card_cost(seat, target)
                } else {
                    cost_of(&costs, target).unwrap_or(0.0)
                };
                v += plan.focus
                    * card_value(
                        self.planning[target as usize] + s.race,
                        cost,
                        s.decay,
                        NO_HORIZON,
                    );
            }
        }
        if let Some(pools) = &plan.pools {
            let deny = s.deny / (b.players as f64 - 1.0);
            for other in 0..b.players {
                if other != seat {
                    v -= deny * board.expected_hand_value(other, pools, s.decay, s.race);
                }
            }
        }
        if s.protect && plan.fence_colours & plan.threatened != 0 {
            for &(c, imp) in &b.improvements {
                if imp == ENCLOSURE
                    && plan.fence_colours >> (b.tile(c).unwrap_or(0) >> 2) & 1 != 0
                    && b.bamboo(c) < 4
                {
                    v += FENCE_VALUE;
                }
            }
        }
        v
    }

    // ----------------------------------------------------------------- lookahead

    /// Value after `action` (looking through place and weather effects) and the state
    /// (the Python `_after`).  A drawn objective is valued by its deck's expectation and
    /// left out of the returned state; with `samples` > 1 a `plot` is valued over that
    /// many sampled draws (the first on `state`, the others on new samples).
    pub fn after<R: BotDraws>(
        &mut self,
        view: &View,
        state: &State,
        action: Action,
        plan: &Plan,
        samples: usize,
        rng: &mut R,
    ) -> (f64, State) {
        let (v, child) = self.after_in(view, state, action, plan, samples, rng, true);
        (v, child.expect("kept"))
    }

    /// `after`'s value alone (no state is kept).
    pub fn value_after<R: BotDraws>(
        &mut self,
        view: &View,
        state: &State,
        action: Action,
        plan: &Plan,
        rng: &mut R,
    ) -> f64 {
        self.after_in(view, state, action, plan, 1, rng, false).0
    }

    /// `after`, keeping the state only when `keep` (a search that only wants the value
    /// copies no state up the recursion).
    #[allow(clippy::too_many_arguments)]
    fn after_in<R: BotDraws>(
        &mut self,
        view: &View,
        state: &State,
        action: Action,
        plan: &Plan,
        samples: usize,
        rng: &mut R,
        keep: bool,
    ) -> (f64, Option<State>) {
        let seat = plan.seat;
        let k = kind(action);
        if k == OBJECTIVE {
            let mut child = state.clone();
            let _ = child.apply(action);
            let mut legal = Legal::new();
            while child.b.step == STEP_REDRAW && !child.b.ended {
                child.legal_into(&mut legal);
                let mut top: Option<(Action, f64)> = None;
                for &a in legal.iter().filter(|&&a| kind(a) == REDRAW) {
                    let v = self.draw_value(view, arg(a) as u8);
                    if top.is_none_or(|(_, t)| v > t) {
                        top = Some((a, v));
                    }
                }
                match top {
                    Some((a, _)) => {
                        let _ = child.apply(a);
                    }
                    None => break,
                }
            }
            child.hands[seat as usize].pop();
            let bonus = self.draw_value(view, arg(action) as u8);
            let v = self.value(&child, plan) + bonus;
            return (v, keep.then_some(child));
        }
        if k == PLOT && samples > 1 {
            let mut total = 0.0;
            let mut first = None;
            for i in 0..samples {
                let (v, child) = if i == 0 {
                    self.after_in(view, state, action, plan, 1, rng, keep)
                } else {
                    let base = view.determinize(rng);
                    self.after_in(view, &base, action, plan, 1, rng, false)
                };
                total += v;
                if i == 0 {
                    first = child;
                }
            }
            return (total / samples as f64, first);
        }
        let mut child = state.clone();
        let _ = child.apply(action);
        let b = &child.b;
        if !b.ended && b.current == seat && b.step != STEP_ACTIONS {
            let mut legal = Legal::new();
            child.legal_into(&mut legal);
            let mut best_v = -1e9;
            let mut best_c: Option<State> = None;
            for &follow in &legal {
                if is_swap(follow) || is_free(follow) {
                    continue;
                }
                let (v, c) = self.after_in(view, &child, follow, plan, 1, rng, keep);
                if v > best_v {
                    best_v = v;
                    best_c = c;
                }
            }
            if keep && best_c.is_none() {
                best_c = Some(child);
            }
            return (best_v, best_c);
        }
        let v = self.value(&child, plan);
        (v, keep.then_some(child))
    }

    fn plan_turn<R: BotDraws>(
        &mut self,
        view: &View,
        state: &State,
        legal: &[Action],
        plan: &Plan,
        rng: &mut R,
    ) -> Action {
        let values = self.turn_values(view, state, legal, plan, rng);
        if values.is_empty() {
            return if legal.contains(&END) { END } else { legal[0] };
        }
        let (actions, vs): (Vec<Action>, Vec<f64>) = values.into_iter().unzip();
        best(&actions, &vs, rng)
    }

    /// Each first action of the turn valued with its best follow-up in the same turn, in
    /// the order of `legal` (the Python `turn_values`).
    pub fn turn_values<R: BotDraws>(
        &mut self,
        view: &View,
        state: &State,
        legal: &[Action],
        plan: &Plan,
        rng: &mut R,
    ) -> Vec<(Action, f64)> {
        let seat = plan.seat;
        let hand_size = self.settings.hand_size;
        let hand_full = view.hand.len() >= hand_size;
        let mut firsts: Vec<(f64, Action, State)> = Vec::with_capacity(legal.len());
        for &action in legal {
            if kind(action) == OBJECTIVE && hand_full {
                continue;
            }
            let (v, child) = self.after(view, state, action, plan, self.settings.plot_samples, rng);
            firsts.push((v, action, child));
        }
        let mut values: Vec<(Action, f64)> = firsts.iter().map(|(v, a, _)| (*a, *v)).collect();
        let mut ranked: Vec<usize> = (0..firsts.len()).collect();
        ranked.sort_by(|&i, &j| (-firsts[i].0).total_cmp(&-firsts[j].0)); // stable
        let mut legal2 = Legal::new();
        for &i in ranked.iter().take(self.settings.beam) {
            let (v1, action, ref child) = firsts[i];
            let b = &child.b;
            if action == END || b.ended || b.current != seat || b.step != STEP_ACTIONS {
                continue;
            }
            let bonus = v1 - self.value(child, plan);
            let mut best2 = v1;
            let drew = kind(action) == OBJECTIVE;
            let full = child.hands[seat as usize].len() + drew as usize >= hand_size;
            child.legal_into(&mut legal2);
            for &follow in &legal2 {
                let k = kind(follow);
                if k == END || k == COMPLETE || (k == OBJECTIVE && full) {
                    continue;
                }
                let v2 = self.value_after(view, child, follow, plan, rng);
                if v2 + bonus > best2 {
                    best2 = v2 + bonus;
                }
            }
            if let Some(slot) = values.iter_mut().find(|(a, _)| *a == action) {
                slot.1 = best2 + 1e-3 * v1;
            }
        }
        values
    }

    fn choose_weather<R: BotDraws>(
        &mut self,
        view: &View,
        state: &State,
        legal: &[Action],
        plan: &Plan,
        rng: &mut R,
    ) -> Action {
        let base = self.value(state, plan);
        // The best single action's gain now: what one more action (the sun) is roughly worth.
        let mut probe = state.clone();
        probe.b.step = STEP_ACTIONS;
        probe.b.weather = -1;
        let mut gain = 0.0;
        let mut probe_legal = Legal::new();
        probe.legal_into(&mut probe_legal);
        for &action in &probe_legal {
            if matches!(kind(action), END | OBJECTIVE) {
                continue;
            }
            let g = self.value_after(view, &probe, action, plan, rng) - base;
            if g > gain {
                gain = g;
            }
        }
        let mut values = Vec::with_capacity(legal.len());
        for &action in legal {
            let face = arg(action) as i8;
            values.push(if kind(action) != WEATHER {
                self.value_after(view, state, action, plan, rng)
            } else if face == FACE_SUN {
                base + SUN_SHARE * gain
            } else if face == FACE_WIND {
                base + WIND_SHARE * gain
            } else {
                self.value_after(view, state, action, plan, rng)
            });
        }
        best(legal, &values, rng)
    }

    /// An enclosure from the stock on a bare plot the hand's gardener cards need.
    fn fence(&self, view: &View, legal: &[Action], plan: &Plan) -> Option<Action> {
        if !self.settings.protect || plan.fence_colours & plan.threatened == 0 {
            return None;
        }
        let mut best: Option<(Action, (bool, u16))> = None;
        for &action in legal {
            if kind(action) != IMPROVE || arg(action) != ENCLOSURE as u32 {
                continue;
            }
            let c = cell(action);
            let colour = view.b.colour(c);
            if colour < 0
                || plan.fence_colours >> colour & 1 == 0
                || plan.threatened >> colour & 1 == 0
            {
                continue;
            }
            let key = (view.b.irrigated.has(c), c);
            if best.is_none_or(|(_, k)| key > k) {
                best = Some((action, key));
            }
        }
        best.map(|(a, _)| a)
    }
}

/// What `value` reads of a state for a plan, as bytes: the layout (tiles, improvements,
/// irrigation, channels: by its id in the bot's cache), the bamboo, both figures, the hands (the seat's cards, the
/// others' categories), stocks, stored pieces, the reserve of improvements, the seat's
/// completed cards, the Emperor, and where the turn stands when the Emperor is out and
/// the plan sets no horizon (the evaluation then reckons the actions left).
fn value_key(state: &State, plan: &Plan, layout: u64, out: &mut Vec<u8>) {
    let b = &state.b;
    out.clear();
    let u16s = |out: &mut Vec<u8>, x: u16| out.extend_from_slice(&x.to_le_bytes());
    // The layout by its id in the cache (its tiles in their order): the bamboo by place.
    out.extend_from_slice(&layout.to_le_bytes());
    out.extend_from_slice(&b.heights);
    u16s(out, b.gardener);
    u16s(out, b.panda);
    for s in 0..b.players as usize {
        let hand = &state.hands[s];
        out.push(hand.len() as u8);
        if s == plan.seat as usize {
            out.extend_from_slice(hand);
        } else {
            out.extend(hand.iter().map(|&c| category(b, c)));
        }
        for k in 0..3 {
            out.extend_from_slice(&b.eaten[s][k].to_le_bytes());
        }
        out.extend_from_slice(&b.stored_improvements[s]);
    }
    out.extend_from_slice(&b.stored_channels[plan.seat as usize].to_le_bytes());
    out.extend_from_slice(&b.reserve_improvements);
    let done = &b.completed[plan.seat as usize];
    out.push(done.len() as u8);
    out.extend_from_slice(done);
    out.push(b.emperor as u8);
    if b.emperor >= 0 && plan.horizon.is_none() {
        out.push(b.current);
        out.push(b.step);
        out.push(b.taken.len() as u8);
        out.extend_from_slice(&b.taken);
        out.push(b.weather as u8);
        out.extend_from_slice(&b.last_turns.to_le_bytes());
    }
}

/// Whether completing now would take the Emperor and end the game behind (R13).
fn emperor_would_lose(view: &View, completing: &[Action], points: &[f64]) -> bool {
    let b = &view.b;
    let seat = view.seat;
    let needed = b.rules.objectives_to_end[b.players as usize] as usize;
    if b.emperor >= 0 || b.completed[seat as usize].len() + 1 < needed {
        return false;
    }
    let mut mine = heuristics::score(b, seat, points) + b.rules.emperor_points as f64;
    let mut extra = 0.0;
    for &a in completing {
        extra += points[arg(a) as usize];
    }
    mine += extra;
    let best_other = (0..b.players)
        .filter(|&s| s != seat)
        .map(|s| heuristics::score(b, s, points))
        .fold(f64::NEG_INFINITY, f64::max);
    mine < best_other
}

/// `objective` as the referee plays it: the planner and its own generator.
pub struct ObjectiveBot {
    pub objective: Objective,
    pub rng: PyRandom,
    seat: u8,
    points: Vec<f64>,
}

impl ObjectiveBot {
    pub fn new(objective: Objective, rng: PyRandom) -> ObjectiveBot {
        ObjectiveBot {
            objective,
            rng,
            seat: 0,
            points: Vec::new(),
        }
    }
}

impl Bot for ObjectiveBot {
    fn start(&mut self, seat: u8, _players: u8, _options: &Arc<RuleOptions>) {
        self.seat = seat;
        self.objective.start();
    }

    fn choose(&mut self, view: &View, legal: &[Action]) -> Action {
        self.points.clear();
        self.points
            .extend(view.b.card_set.points.iter().map(|&p| p as f64));
        self.objective
            .choose(view, legal, &self.points, &mut self.rng)
    }

    fn observe(&mut self, entry: &Entry) {
        self.objective.observe(self.seat, entry);
    }

    fn rng(&self) -> &PyRandom {
        &self.rng
    }
}

/// `objective` with these checked parameters and generator (the registry's factory).
fn make(params: &Params, rng: PyRandom) -> Box<dyn Bot> {
    Box::new(ObjectiveBot::new(
        Objective::new(Settings::from_params(params)),
        rng,
    ))
}
