//! The search of `mcts` (the port of `bots/mcts_search.py`): nodes, selection, tree keys
//! and the rollout policy.
//!
//! Single-observer information-set MCTS: one tree over the searching seat's information
//! set, its edges keyed by action ints ([`tree_keys`]).  Every iteration samples a full
//! state from the view, walks the tree choosing among the actions legal in that sample
//! with the availability-aware UCB, adds one node, plays a few cheap decisions on, and
//! asks the leaf ([`Leaf`]) for a value per seat.  The same draws in the same order as the
//! reference, so the same trees and the same decisions.

use std::cmp::Ordering;
use std::collections::HashMap;

use crate::actions::{
    Action, A_MASK, A_SHIFT, B_SHIFT, CHANNEL, CLOUDS, CLOUDS_KEEP, CLOUDS_MOVE, COMPLETE, END,
    GARDENER, IMPROVE, IRRIGATE, IRRIGATE_KEEP, KIND_MASK, OBJECTIVE, PANDA, PLACE, PLOT, RAIN,
    SKIP, STORM, WEATHER,
};
use crate::components::{ENCLOSURE, GARDENER_CARD, PANDA_CARD};
use crate::grid::{GRID, POND};
use crate::state::{Legal, State, STEP_PLACE};
use crate::view::{Unseen, View};

use super::draws::BotDraws;
use super::greedy::is_swap;
use super::heuristics::MixBuild;
use super::mcts_leaves::{Leaf, Values};

fn kind(a: Action) -> u32 {
    a & KIND_MASK
}

fn cell(a: Action) -> u16 {
    (a >> A_SHIFT & A_MASK) as u16
}

/// Whether a kind is one of the turn's actions (R3.5), not a free move.
pub fn turn_kind(k: u32) -> bool {
    crate::actions::turn_action(k) >= 0
}

/// Whether a kind, taken by the seat to move in its own turn, reads nothing hidden (the
/// reference's `OPEN_KIND`).
pub fn open_kind(k: u32) -> bool {
    matches!(
        k,
        GARDENER
            | PANDA
            | IRRIGATE
            | IRRIGATE_KEEP
            | CHANNEL
            | IMPROVE
            | COMPLETE
            | WEATHER
            | RAIN
            | STORM
            | CLOUDS
            | CLOUDS_KEEP
            | CLOUDS_MOVE
            | SKIP
    )
}

/// Whether a kind, taken by the searching seat, may let another seat move next in some
/// samples (`SEAT_TURN_ENDS`; keyed by position, a placement too).
fn turn_ends(k: u32, plot_keys: bool) -> bool {
    matches!(k, OBJECTIVE | END) || (!plot_keys && k == PLACE)
}

// ------------------------------------------------------------------------- action scores

/// A cheap guess of how useful an action is for the seat to move (the reference's
/// `action_score`).
pub fn action_score(s: &State, a: Action) -> f64 {
    let k = kind(a);
    if k == COMPLETE {
        return 100.0;
    }
    let b = &s.b;
    let p = b.current as usize;
    let cards = &b.card_set.cards;
    match k {
        GARDENER | RAIN => {
            let c = cell(a);
            if c == POND {
                return -1.0;
            }
            let colour = (b.tile(c).unwrap_or(0) >> 2) as i8;
            let mut score = 0.0;
            for &card in &s.hands[p] {
                let info = &cards[card as usize];
                if info.category == GARDENER_CARD && info.colour == colour {
                    score += 2.0;
                } else if info.category == PANDA_CARD && info.eat[colour as usize] != 0 {
                    score += 0.5;
                }
            }
            if b.irrigated.has(c) && b.bamboo(c) < 4 {
                score += 0.5;
            }
            score
        }
        PANDA | STORM => {
            let c = cell(a);
            if c == POND {
                return -1.0;
            }
            let h = b.bamboo(c);
            if h == 0 || b.improvement(c) == ENCLOSURE {
                return -0.5;
            }
            let colour = (b.tile(c).unwrap_or(0) >> 2) as i8;
            let mut score = 1.0;
            for &card in &s.hands[p] {
                let info = &cards[card as usize];
                if info.category == PANDA_CARD {
                    if info.eat[colour as usize] as u32 > b.eaten[p][colour as usize] {
                        score += 2.0;
                    }
                } else if info.category == GARDENER_CARD
                    && info.colour == colour
                    && (h == 3 || h == 4)
                {
                    score -= 1.0;
                }
            }
            score
        }
        OBJECTIVE if s.hands[p].len() < 3 => 2.5,
        OBJECTIVE => 0.0,
        END => -2.0,
        PLACE => {
            if GRID.neighbour[POND as usize].contains(&cell(a)) {
                1.0
            } else {
                0.5
            }
        }
        IRRIGATE | CHANNEL | PLOT | IMPROVE => 0.5,
        IRRIGATE_KEEP => 0.2,
        _ => 0.0,
    }
}

/// The legal actions worth searching: completions first and alone, no `swap` twins, no
/// end of the turn while an action is left (the reference's `candidates`).
pub fn candidates(legal: &[Action], out: &mut Vec<Action>) {
    out.clear();
    if kind(legal[0]) == COMPLETE {
        out.extend(legal.iter().copied().take_while(|&a| kind(a) == COMPLETE));
        return;
    }
    let n = legal.len();
    if kind(legal[n - 1]) == PLACE {
        out.extend(legal.iter().copied().filter(|&a| !is_swap(a)));
        return;
    }
    if n > 1 && legal[n - 1] == END && turn_kind(kind(legal[n - 2])) {
        out.extend_from_slice(&legal[..n - 1]);
        return;
    }
    out.extend_from_slice(legal);
}

/// Where `tree_keys` puts the drawn plot's tile (plus one) in a `place` key.
pub const PLOT_KEY_SHIFT: u32 = B_SHIFT + 5;
const PLOT_INDEX: u32 = 3 << B_SHIFT;

/// A decision's tree keys, and the action of each key where they differ.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Keyed {
    pub keys: Vec<u32>,
    /// `acts[i]` is the action of `keys[i]`; None: every key is its own action.
    pub acts: Option<Vec<Action>>,
}

impl Keyed {
    /// The action of the `i`-th key.
    pub fn action(&self, i: usize) -> Action {
        match &self.acts {
            None => self.keys[i],
            Some(acts) => acts[i],
        }
    }

    /// The action of a key.
    pub fn action_of(&self, key: u32) -> Action {
        match &self.acts {
            None => key,
            Some(acts) => acts[self.keys.iter().position(|&k| k == key).unwrap_or(0)],
        }
    }
}

/// The tree's keys for a decision's candidates (the reference's `tree_keys`, or with
/// `plot_keys` off `position_keys`): at the place step a placement is keyed by the plot
/// drawn (its tile) and the cell rather than its place in the draw.
pub fn tree_keys(step: u8, drawn: &[u8], cands: &[Action], plot_keys: bool, out: &mut Keyed) {
    out.keys.clear();
    if !plot_keys || step != STEP_PLACE {
        out.keys.extend_from_slice(cands);
        out.acts = None;
        return;
    }
    let mut acts = out.acts.take().unwrap_or_default();
    acts.clear();
    let mut seen: std::collections::HashSet<u32, MixBuild> = Default::default();
    for &a in cands {
        let key = if kind(a) != PLACE {
            a
        } else {
            let plot = (a >> B_SHIFT & 3) as usize;
            (a & !PLOT_INDEX) | (drawn[plot] as u32 + 1) << PLOT_KEY_SHIFT
        };
        if seen.insert(key) {
            out.keys.push(key);
            acts.push(a);
        }
    }
    out.acts = Some(acts);
}

// ------------------------------------------------------------------------- the tree

/// An edge of the tree and the node below it: the statistics of one action in one
/// context (`totals` per seat; `avail` the iterations in which it was legal).
#[derive(Clone, Debug)]
pub struct Node {
    pub visits: u64,
    pub avail: u64,
    pub totals: Values,
    pub order: Option<Vec<u32>>,
    /// One-step leaf values of the actions, where a look-ahead ordered them.
    pub prior: Option<Vec<(u32, Values)>>,
    /// How many children the node has.
    pub children: u32,
}

impl Node {
    fn new() -> Node {
        Node {
            visits: 0,
            avail: 1,
            totals: [0.0; 4],
            order: None,
            prior: None,
            children: 0,
        }
    }
}

/// Node ids in the tree's arena.
pub type NodeId = u32;

/// The search's parameters (`MctsBot`'s of the same names).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SearchSettings {
    pub c: f64,
    pub depth: u64,
    pub random_rollout: bool,
    pub widen: f64,
    pub lookahead: u64,
    pub prior: u64,
    pub turns: u64,
}

/// One searching seat's tree search, its leaf evaluation held as an object.
pub struct Search {
    pub settings: SearchSettings,
    pub seat: u8,
    pub leaf: Leaf,
    /// Whether placements are keyed by the plot drawn (`tree_keys`).
    pub plot_keys: bool,
    nodes: Vec<Node>,
    children: HashMap<u64, NodeId, MixBuild>,
    /// The root's keys in this decision (`iterate`).
    root_keys: Option<Keyed>,
    /// The placements' keys met, by the plots drawn and the legal list.
    place_keys: HashMap<Vec<u32>, Keyed, MixBuild>,
    /// Per node reached from the root by open actions only, its state.
    states: HashMap<NodeId, State, MixBuild>,
    legal: Box<Legal>,
    cands: Vec<Action>,
    memo: Vec<u32>,
    /// An iteration's buffers (kept to save their allocations).
    cur: Keyed,
    path: Vec<NodeId>,
    /// `ln(n)` of the availabilities met, by n (the UCB asks for the same few thousand).
    logs: Vec<f64>,
    /// What the decision's view has not seen (every sample deals from it).
    pub unseen: Unseen,
}

/// Availabilities whose logarithm is remembered (beyond, it is computed each time).
const LOGS_KEPT: u64 = 1 << 20;

/// `ln(n)` as libm computes it (`math.log`), remembered in `logs` for small n.
fn ln_of(logs: &mut Vec<f64>, n: u64) -> f64 {
    if n >= LOGS_KEPT {
        return (n as f64).ln();
    }
    let i = n as usize;
    if i >= logs.len() {
        let from = logs.len();
        logs.extend((from..=i.max(2 * from)).map(|k| (k as f64).ln()));
    }
    logs[i]
}

fn child_key(node: NodeId, key: u32) -> u64 {
    (node as u64) << 32 | key as u64
}

fn by_value(a: &(f64, f64, u32), b: &(f64, f64, u32)) -> Ordering {
    a.0.partial_cmp(&b.0)
        .unwrap_or(Ordering::Equal)
        .then(a.1.partial_cmp(&b.1).unwrap_or(Ordering::Equal))
        .then(a.2.cmp(&b.2))
}

/// An order of `keys`: by `-value`, then a draw, then the key (the reference's sorted
/// tuples; one draw per key, in the keys' order).
pub fn ordered<R: BotDraws>(
    keys: &[u32],
    mut value: impl FnMut(usize) -> f64,
    rng: &mut R,
) -> Vec<u32> {
    let mut scored: Vec<(f64, f64, u32)> = Vec::with_capacity(keys.len());
    for (i, &a) in keys.iter().enumerate() {
        let v = -value(i);
        scored.push((v, rng.random(), a));
    }
    scored.sort_by(by_value);
    scored.into_iter().map(|t| t.2).collect()
}

impl Search {
    pub fn new(settings: SearchSettings, leaf: Leaf) -> Search {
        Search {
            settings,
            seat: 0,
            leaf,
            plot_keys: true,
            nodes: Vec::new(),
            children: HashMap::default(),
            root_keys: None,
            place_keys: HashMap::default(),
            states: HashMap::default(),
            legal: Box::new(Legal::new()),
            cands: Vec::new(),
            memo: Vec::new(),
            cur: Keyed::default(),
            path: Vec::new(),
            logs: Vec::new(),
            unseen: Unseen::default(),
        }
    }

    /// A new decision of `view.seat`: the leaf is told the view, the caches emptied (the
    /// iterations of the decision must be given this view).
    pub fn prepare(&mut self, view: &View, points: &[f64]) {
        self.seat = view.seat;
        self.unseen = view.unseen();
        self.leaf.prepare(view, points);
        self.root_keys = None;
        self.place_keys.clear();
        self.states.clear();
    }

    /// A new tree: its root (the old tree is dropped).
    pub fn new_root(&mut self) -> NodeId {
        self.nodes.clear();
        self.children.clear();
        self.nodes.push(Node::new());
        0
    }

    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id as usize]
    }

    pub fn node_mut(&mut self, id: NodeId) -> &mut Node {
        &mut self.nodes[id as usize]
    }

    /// The child of `node` under `key`, if any.
    pub fn child(&self, node: NodeId, key: u32) -> Option<NodeId> {
        self.children.get(&child_key(node, key)).copied()
    }

    /// The keys of a decision's candidates at a position with this step and draw.
    pub fn keys(&self, step: u8, drawn: &[u8], cands: &[Action]) -> Keyed {
        let mut out = Keyed::default();
        tree_keys(step, drawn, cands, self.plot_keys, &mut out);
        out
    }

    /// The most visited root action (ties: the higher mean for the searching seat), as
    /// its tree key and as the action to play.
    pub fn best(&mut self, root: NodeId, view: &View, legal: &[Action]) -> (u32, Action) {
        let mut cands = Vec::new();
        candidates(legal, &mut cands);
        let keyed = self.keys(view.b.step, &view.drawn, &cands);
        let mut best = 0usize;
        let mut best_key: (i64, f64) = (-1, -1.0);
        for (i, &a) in keyed.keys.iter().enumerate() {
            let Some(child) = self.child(root, a) else {
                continue;
            };
            let n = &self.nodes[child as usize];
            if n.visits == 0 {
                continue;
            }
            let key = (
                n.visits as i64,
                n.totals[self.seat as usize] / n.visits as f64,
            );
            if key.0 > best_key.0 || (key.0 == best_key.0 && key.1 > best_key.1) {
                best = i;
                best_key = key;
            }
        }
        (keyed.keys[best], keyed.action(best))
    }

    /// Orders a node's actions by the evaluation one step ahead in one sample, best
    /// first, and keeps the values as priors (the reference's `lookahead_order`).
    pub fn lookahead_order<R: BotDraws>(
        &mut self,
        node: NodeId,
        s: &State,
        keyed: &Keyed,
        alone: bool,
        rng: &mut R,
    ) {
        let mine = alone && self.leaf.alone();
        let seat = s.b.current as usize;
        let mut prior: Vec<(u32, Values)> = Vec::with_capacity(keyed.keys.len());
        let mut scored: Vec<(f64, f64, u32)> = Vec::with_capacity(keyed.keys.len());
        for (i, &a) in keyed.keys.iter().enumerate() {
            let mut t = s.clone();
            let _ = t.apply(keyed.action(i));
            let mut values = [0.0; 4];
            if t.b.ended {
                for (p, r) in t.returns().into_iter().enumerate() {
                    values[p] = r;
                }
            } else if mine {
                self.leaf.mine(&t, &mut values);
            } else {
                self.leaf.values(&t, &mut values);
            }
            prior.push((a, values));
            scored.push((-values[seat], rng.random(), a));
        }
        scored.sort_by(by_value);
        let n = &mut self.nodes[node as usize];
        n.order = Some(scored.into_iter().map(|t| t.2).collect());
        if self.settings.prior > 0 {
            n.prior = Some(prior);
        }
    }

    /// One iteration below `root`: sample, select, expand, roll out, evaluate, back up.
    ///
    /// The steps are methods of their own so that each reads alone (as the reference's
    /// are); the iteration's buffers (`path`, `cur`) are taken from the search and given
    /// back, to save their allocations.
    pub fn iterate<R: BotDraws>(&mut self, root: NodeId, view: &View, rng: &mut R) {
        let mut s = view.determinize_from(&self.unseen, rng);
        let players = s.b.players as usize;
        let st = self.settings;
        let mut path = std::mem::take(&mut self.path);
        let mut cur = std::mem::take(&mut self.cur);
        let (turns, mover, mine_only) = self.descend(root, &mut s, &mut path, &mut cur, rng);
        if st.depth > 0 && !s.b.ended && (st.turns == 0 || turns > 1 || s.b.current == mover) {
            let stop = if turns == 1 { Some(s.b.current) } else { None };
            self.rollout(&mut s, stop, rng);
        }
        let mut values = [0.0; 4];
        if s.b.ended {
            for (p, r) in s.returns().into_iter().enumerate() {
                values[p] = r;
            }
        } else if mine_only && self.leaf.alone() {
            self.leaf.mine(&s, &mut values);
        } else {
            self.leaf.values(&s, &mut values);
        }
        for &id in &path {
            let n = &mut self.nodes[id as usize];
            n.visits += 1;
            for i in 0..players {
                n.totals[i] += values[i];
            }
        }
        self.path = path;
        self.cur = cur;
    }

    /// Selects down the tree from `root` in the sample `s` and adds one node, the nodes
    /// met in `path`. Returns the turns of the horizon left, the seat last seen to move
    /// (for the rollout's stop), and whether the node added is judged by the searching
    /// seat's values alone. While only open actions of the searching seat lead from the
    /// root, the state is one kept per node (`states`) given the sample's hidden parts;
    /// `mine_path`: the searching seat moves at the node reached in every sample.
    #[inline]
    fn descend<R: BotDraws>(
        &mut self,
        root: NodeId,
        s: &mut State,
        path: &mut Vec<NodeId>,
        cur: &mut Keyed,
        rng: &mut R,
    ) -> (u64, u8, bool) {
        let mut node = root;
        path.clear();
        path.push(root);
        let mut turns = self.settings.turns;
        let mut mover = s.b.current;
        let mut from_root = self.root_keys.is_some();
        let seat = self.seat;
        let mut open_path = s.b.current == seat;
        let mut mine_path = open_path;
        while !s.b.ended {
            if turns != 0 && s.b.current != mover {
                mover = s.b.current;
                turns -= 1;
                if turns == 0 {
                    break;
                }
            }
            if from_root {
                from_root = false;
                if let Some(k) = &self.root_keys {
                    cur.clone_from(k);
                }
            } else {
                self.node_keys(s, node == root, cur);
            }
            let Some((best, best_index)) = self.select(node, s, cur) else {
                let id = self.expand(node, s, cur, path.len(), open_path, mine_path, rng);
                path.push(id);
                return (turns, mover, mine_path);
            };
            let action = cur.action(best_index);
            if open_path {
                open_path = self.follow_open(best, s, action);
            } else {
                let _ = s.apply(action);
            }
            if mine_path
                && (turn_ends(kind(action), self.plot_keys) || s.b.current != seat || s.b.ended)
            {
                mine_path = false;
            }
            node = best;
            path.push(node);
        }
        (turns, mover, false)
    }

    /// A node's candidates as tree keys, into `cur`; the root's are kept for the decision
    /// (`root_keys`), the placements' by the plots drawn and the legal list (dozens of
    /// candidates to filter and key, the same whenever the same plots are drawn).
    #[inline]
    fn node_keys(&mut self, s: &State, at_root: bool, cur: &mut Keyed) {
        s.legal_into(&mut self.legal);
        if s.b.step == STEP_PLACE {
            self.memo.clear();
            self.memo.extend(s.drawn.iter().map(|&d| d as u32));
            self.memo.push(u32::MAX);
            self.memo.extend_from_slice(&self.legal);
            match self.place_keys.get(&self.memo) {
                Some(found) => cur.clone_from(found),
                None => {
                    candidates(&self.legal, &mut self.cands);
                    tree_keys(s.b.step, &s.drawn, &self.cands, self.plot_keys, cur);
                    self.place_keys.insert(self.memo.clone(), cur.clone());
                }
            }
        } else {
            candidates(&self.legal, &mut self.cands);
            tree_keys(s.b.step, &s.drawn, &self.cands, self.plot_keys, cur);
            if at_root {
                self.root_keys = Some(cur.clone());
            }
        }
    }

    /// The child to descend to by the availability-aware UCB, and its index in `cur`; or
    /// `None` when a child is to be added here (progressive widening). Every child whose
    /// key is legal in this sample counts one more availability.
    #[inline]
    fn select(&mut self, node: NodeId, s: &State, cur: &Keyed) -> Option<(NodeId, usize)> {
        let st = self.settings;
        let n_cands = cur.keys.len();
        let visits = self.nodes[node as usize].visits;
        let limit = if st.widen > 0.0 {
            1.0 + st.widen * (visits as f64).sqrt()
        } else {
            1e18
        };
        let known = self.nodes[node as usize].children as usize;
        if (known as f64) < limit && known < n_cands {
            // Fewer children than both bounds: a new one is added whatever the values.
            for &a in &cur.keys {
                if let Some(c) = self.child(node, a) {
                    self.nodes[c as usize].avail += 1;
                }
            }
            return None;
        }
        let p = s.b.current as usize;
        let mut best: Option<(NodeId, usize)> = None;
        let mut best_value = -1e18;
        let mut available = 0usize;
        for (i, &a) in cur.keys.iter().enumerate() {
            let Some(c) = self.child(node, a) else {
                continue;
            };
            available += 1;
            let child = &mut self.nodes[c as usize];
            child.avail += 1;
            let (avail, n, total) = (child.avail, child.visits as f64, child.totals[p]);
            let ln = ln_of(&mut self.logs, avail);
            let value = total / n + st.c * (ln / n).sqrt();
            if value > best_value {
                best_value = value;
                best = Some((c, i));
            }
        }
        if (available as f64) < limit && available < n_cands {
            return None;
        }
        Some(best.expect("a child to select"))
    }

    /// Adds the next untried child below `node` (`depth`: the path's length so far) and
    /// plays its action in `s`. A child with a one-step prior starts with `prior` virtual
    /// visits at that value; one reached by open actions of the searching seat keeps its
    /// state.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn expand<R: BotDraws>(
        &mut self,
        node: NodeId,
        s: &mut State,
        cur: &Keyed,
        depth: usize,
        open_path: bool,
        mine_path: bool,
        rng: &mut R,
    ) -> NodeId {
        let shallow = depth as u64 <= self.settings.lookahead;
        let a = self.untried(node, s, cur, shallow, mine_path, rng);
        let id = self.nodes.len() as NodeId;
        let mut child = Node::new();
        if let Some(prior) = &self.nodes[node as usize].prior {
            if let Some((_, v)) = prior.iter().find(|(k, _)| *k == a) {
                let k = self.settings.prior;
                child.visits = k;
                for i in 0..s.b.players as usize {
                    child.totals[i] = k as f64 * v[i];
                }
            }
        }
        self.nodes.push(child);
        self.children.insert(child_key(node, a), id);
        self.nodes[node as usize].children += 1;
        let action = cur.action_of(a);
        let _ = s.apply(action);
        if open_path && open_kind(kind(action)) && s.b.current == self.seat && !s.b.ended {
            self.states.insert(id, s.clone());
        }
        id
    }

    /// Steps to `child` along a path of the searching seat's open actions: its kept state
    /// given this sample's hidden parts, or `s` played on (and kept while the path stays
    /// open). Returns whether the path is still open.
    #[inline]
    fn follow_open(&mut self, child: NodeId, s: &mut State, action: Action) -> bool {
        if let Some(public) = self.states.get(&child) {
            s.take_public_from(public, self.seat);
            return true;
        }
        let _ = s.apply(action);
        if open_kind(kind(action)) && s.b.current == self.seat && !s.b.ended {
            self.states.insert(child, s.clone());
            return true;
        }
        false
    }

    /// The next key to add below a node: the first untried one in its order (made by a
    /// look-ahead at shallow own nodes, by `action_score` elsewhere).
    fn untried<R: BotDraws>(
        &mut self,
        node: NodeId,
        s: &State,
        cur: &Keyed,
        shallow: bool,
        alone: bool,
        rng: &mut R,
    ) -> u32 {
        if self.nodes[node as usize].order.is_none() {
            if shallow && s.b.current == self.seat {
                self.lookahead_order(node, s, cur, alone, rng);
            } else {
                let order = ordered(&cur.keys, |i| action_score(s, cur.action(i)), rng);
                self.nodes[node as usize].order = Some(order);
            }
        }
        let order = self.nodes[node as usize].order.as_ref().expect("an order");
        for &a in order {
            if self.child(node, a).is_none() && cur.keys.contains(&a) {
                return a;
            }
        }
        let fresh: Vec<u32> = cur
            .keys
            .iter()
            .copied()
            .filter(|&a| self.child(node, a).is_none())
            .collect();
        let a = fresh[(rng.random() * fresh.len() as f64) as usize];
        if let Some(order) = self.nodes[node as usize].order.as_mut() {
            order.push(a);
        }
        a
    }

    /// `depth` decisions by the rollout policy (objectives always completed first); with
    /// `stop` set, until that seat's turn ends (the horizon).
    fn rollout<R: BotDraws>(&mut self, s: &mut State, stop: Option<u8>, rng: &mut R) {
        let greedy = !self.settings.random_rollout;
        for _ in 0..self.settings.depth {
            s.legal_into(&mut self.legal);
            let legal = &self.legal;
            let mut a = legal[0];
            if kind(a) != COMPLETE {
                let mut n = legal.len();
                if n > 1 && legal[n - 1] == END && turn_kind(kind(legal[n - 2])) {
                    n -= 1;
                }
                a = legal[(rng.random() * n as f64) as usize];
                if greedy {
                    let b = legal[(rng.random() * n as f64) as usize];
                    if b != a && action_score(s, b) > action_score(s, a) {
                        a = b;
                    }
                }
            }
            let _ = s.apply(a);
            if s.b.ended || stop.is_some_and(|m| s.b.current != m) {
                break;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::rng::PyRandom;

    #[test]
    fn a_kept_position_takes_a_samples_hidden_parts_as_with_hidden_from() {
        let mut s = State::new(3, 7, Arc::default(), &[], false, Arc::default()).expect("a game");
        let mut rng = PyRandom::new(3);
        for _ in 0..40 {
            let legal = s.legal_actions();
            let a = legal[rng.randbelow(legal.len() as u64) as usize];
            s.apply(a).expect("a legal action");
        }
        let seat = s.b.current;
        let view = View::of(&s, seat as i64).expect("a seat");
        let unseen = view.unseen();
        let (public, sample) = (
            view.determinize(&mut rng),
            view.determinize_from(&unseen, &mut rng),
        );
        assert_ne!(public.hands, sample.hands);
        let mut kept = sample.clone();
        kept.take_public_from(&public, seat);
        assert_eq!(kept, public.with_hidden_from(&sample, seat));
    }

    #[test]
    fn candidates_and_keys_follow_the_reference() {
        // Completions first and alone; no end of the turn while an action is left.
        let complete = COMPLETE | 3 << B_SHIFT;
        let mut out = Vec::new();
        candidates(&[complete, GARDENER, END], &mut out);
        assert_eq!(out, vec![complete]);
        candidates(&[GARDENER | 9 << A_SHIFT, PANDA, END], &mut out);
        assert_eq!(out, vec![GARDENER | 9 << A_SHIFT, PANDA]);
        candidates(&[CHANNEL, END], &mut out);
        assert_eq!(out, vec![CHANNEL, END]);
        // A placement keyed by the plot drawn: the same tile at another place, one key.
        let place = |k: u32, cell: u32| PLACE | cell << A_SHIFT | k << B_SHIFT;
        let mut keyed = Keyed::default();
        tree_keys(
            STEP_PLACE,
            &[4, 4, 9],
            &[place(0, 20), place(1, 20), place(2, 20)],
            true,
            &mut keyed,
        );
        assert_eq!(keyed.keys.len(), 2);
        assert_eq!(keyed.action(0), place(0, 20));
        assert_eq!(keyed.action_of(keyed.keys[1]), place(2, 20));
        tree_keys(
            STEP_PLACE,
            &[4, 4, 9],
            &[place(0, 20), place(1, 20)],
            false,
            &mut keyed,
        );
        assert_eq!(keyed.keys, vec![place(0, 20), place(1, 20)]);
    }

    #[test]
    fn remembered_logarithms_are_libms() {
        let mut logs = Vec::new();
        for n in [1u64, 2, 3, 1000, 77, 5000] {
            assert_eq!(ln_of(&mut logs, n).to_bits(), (n as f64).ln().to_bits());
        }
    }
}
