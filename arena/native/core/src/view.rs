//! What one seat may know (R2.6), and full states sampled from it (the reference's `view.py`).
//!
//! `determinize` makes the same draws as the reference from the caller's generator: the
//! seed (`getrandbits(63)`), the generator (`getrandbits(64)`), then `shuffle` of the unseen
//! plots and of each category's unseen cards in turn.

use arrayvec::ArrayVec;

use crate::grid::Cell;

use crate::components::{COMPONENTS, POND_TILE};
use crate::error::Error;
use crate::json::Json;
use crate::position::board_json;
use crate::rng::{self, PyRandom};
use crate::state::{Board, History, State, MAX_HAND, STEP_NAMES, STEP_PLACE};

/// The draws a sample makes: what `random.Random` gives (or a caller's own generator).
pub trait Draws {
    fn getrandbits(&mut self, k: u32) -> u128;
    fn shuffle(&mut self, items: &mut [u8]);
}

impl Draws for PyRandom {
    fn getrandbits(&mut self, k: u32) -> u128 {
        PyRandom::getrandbits(self, k)
    }
    fn shuffle(&mut self, items: &mut [u8]) {
        PyRandom::shuffle(self, items)
    }
}

/// The most cards or plots a pool of unseen ones holds (27 plots, 15 cards a category).
const POOL: usize = 64;

/// What a view has not seen: the plots (sorted) and each category's cards.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Unseen {
    pub plots: Vec<u8>,
    pub cards: [Vec<u8>; 3],
}

/// The information set of one seat at one moment.
#[derive(Clone, Debug, PartialEq)]
pub struct View {
    pub b: Board,
    pub seat: u8,
    /// The plots being chosen from, when this seat is choosing; else empty.
    pub drawn: ArrayVec<u8, 3>,
    pub drawn_count: usize,
    pub plot_deck_size: usize,
    /// `(position, tile)` of the plots this seat knows in the deck.
    pub known_plots: Vec<(usize, u8)>,
    pub objective_deck_sizes: [usize; 3],
    pub known_objectives: [Vec<(usize, u8)>; 3],
    pub hand: ArrayVec<u8, MAX_HAND>,
    /// Per seat, the category of each objective in hand, in draw order.
    pub hand_categories: Vec<ArrayVec<u8, MAX_HAND>>,
}

impl View {
    /// The view of `seat` on `state`.
    pub fn of(state: &State, seat: i64) -> Result<View, Error> {
        View::of_arg(state, &Json::Int(seat.into()))
    }

    /// The view of a caller's `seat` (`Json::Int`, or `Json::Big` beyond 128 bits), which a
    /// refusal quotes as given.
    pub fn of_arg(state: &State, seat: &Json) -> Result<View, Error> {
        let players = state.b.players;
        let refusal = || Error::value(format!("seat {{value}} is not in a {players}-player game"));
        let seat = crate::edits::index_arg(seat, players as usize, refusal)?;
        let mut view = View {
            b: state.b.clone(),
            seat: seat as u8,
            drawn: ArrayVec::new(),
            drawn_count: 0,
            plot_deck_size: 0,
            known_plots: Vec::new(),
            objective_deck_sizes: [0; 3],
            known_objectives: Default::default(),
            hand: ArrayVec::new(),
            hand_categories: Vec::new(),
        };
        view.fill(state, seat as u8);
        Ok(view)
    }

    /// This view made again as the view of `seat` (a seat of the game) on `state`, in the
    /// lists it already has (the referee makes one per decision).
    pub fn refresh(&mut self, state: &State, seat: u8) {
        self.b.clone_from(&state.b);
        self.fill(state, seat);
    }

    /// Everything but the board, from `state` for `seat`.
    fn fill(&mut self, state: &State, seat: u8) {
        let bit = 1u8 << seat;
        self.seat = seat;
        let mine = state.b.current == seat && state.b.step == STEP_PLACE;
        self.known_plots.clear();
        self.known_plots.extend(
            state
                .plot_deck
                .iter()
                .zip(&state.b.plot_known)
                .enumerate()
                .filter(|(_, (_, &m))| m & bit != 0)
                .map(|(i, (&t, _))| (i, t)),
        );
        for k in 0..3 {
            let known = &mut self.known_objectives[k];
            known.clear();
            known.extend(
                state.objective_decks[k]
                    .iter()
                    .zip(&state.b.objective_known[k])
                    .enumerate()
                    .filter(|(_, (_, &m))| m & bit != 0)
                    .map(|(i, (&c, _))| (i, c)),
            );
            self.objective_deck_sizes[k] = state.objective_decks[k].len();
        }
        let cards = &state.b.card_set.cards;
        self.drawn.clear();
        if mine {
            self.drawn.extend(state.drawn.iter().copied());
        }
        self.drawn_count = state.drawn.len();
        self.plot_deck_size = state.plot_deck.len();
        self.hand = state.hands[seat as usize].clone();
        let players = state.b.players as usize;
        self.hand_categories.resize(players, ArrayVec::new());
        self.hand_categories.truncate(players);
        for (s, cats) in self.hand_categories.iter_mut().enumerate() {
            cats.clear();
            cats.extend(state.hands[s].iter().map(|&c| cards[c as usize].category));
        }
    }

    pub fn hand_size(&self, seat: usize) -> usize {
        self.hand_categories.get(seat).map_or(0, |h| h.len())
    }

    /// Plots this seat has not seen, sorted.
    pub fn unseen_plots(&self) -> Vec<u8> {
        let mut count = [0i32; 13];
        for &t in &COMPONENTS.all_plots {
            count[t as usize] += 1;
        }
        for (_, t) in self.b.tile_items() {
            if t != POND_TILE {
                count[t as usize] -= 1;
            }
        }
        for &(_, t) in &self.known_plots {
            count[t as usize] -= 1;
        }
        for &t in &self.drawn {
            count[t as usize] -= 1;
        }
        let mut out = Vec::new();
        for (t, &n) in count.iter().enumerate().take(12) {
            for _ in 0..n.max(0) {
                out.push(t as u8);
            }
        }
        out
    }

    /// Cards of a category this seat has not seen (other hands and unknown deck places).
    pub fn unseen_cards(&self, category: usize) -> Vec<u8> {
        let mut seen = 0u64;
        for done in &self.b.completed[..self.b.players as usize] {
            for &c in done {
                seen |= 1 << c;
            }
        }
        for &c in &self.hand {
            seen |= 1 << c;
        }
        for &(_, c) in &self.known_objectives[category] {
            seen |= 1 << c;
        }
        self.b.card_set.decks[category]
            .iter()
            .copied()
            .filter(|&c| seen >> c & 1 == 0)
            .collect()
    }

    /// A full state consistent with this view, the hidden parts drawn from `rng`.
    pub fn determinize<R: Draws>(&self, rng: &mut R) -> State {
        self.determinize_from(&self.unseen(), rng)
    }

    /// What this view has not seen (the pools `determinize` deals from), worked out once
    /// for a caller that samples the view many times ([`View::determinize_from`]).
    pub fn unseen(&self) -> Unseen {
        Unseen {
            plots: self.unseen_plots(),
            cards: [0, 1, 2].map(|k| self.unseen_cards(k)),
        }
    }

    /// `determinize` from this view's [`Unseen`] (the same draws, the same state).
    pub fn determinize_from<R: Draws>(&self, unseen: &Unseen, rng: &mut R) -> State {
        let seed = rng.getrandbits(63) as i128;
        let state = rng::seed_state(rng.getrandbits(64) as i128);
        let mut plots: ArrayVec<u8, POOL> = unseen.plots.iter().copied().take(POOL).collect();
        rng.shuffle(&mut plots);
        let drawn: ArrayVec<u8, 3> = if self.drawn_count > 0 && self.drawn.is_empty() {
            let n = self.drawn_count.min(plots.len());
            plots.drain(..n).collect()
        } else {
            self.drawn.clone()
        };
        let mut plot_deck: ArrayVec<u8, 27> = ArrayVec::new();
        fill(
            self.plot_deck_size,
            &self.known_plots,
            &plots,
            &mut plot_deck,
        );
        let players = self.b.players as usize;
        let mut hands: [ArrayVec<Option<u8>, MAX_HAND>; 4] = Default::default();
        for (seat, cats) in self.hand_categories.iter().enumerate().take(4) {
            hands[seat] = cats.iter().map(|_| None).take(MAX_HAND).collect();
        }
        let mut decks: [ArrayVec<u8, { crate::state::MAX_DECK }>; 3] = Default::default();
        for (category, deck) in decks.iter_mut().enumerate() {
            let mut pool: ArrayVec<u8, POOL> =
                unseen.cards[category].iter().copied().take(POOL).collect();
            rng.shuffle(&mut pool);
            for (other, cats) in self.hand_categories.iter().enumerate().take(4) {
                if other == self.seat as usize {
                    continue;
                }
                for (j, &cat) in cats.iter().enumerate().take(MAX_HAND) {
                    if cat as usize == category {
                        hands[other][j] = pool.pop();
                    }
                }
            }
            fill(
                self.objective_deck_sizes[category],
                &self.known_objectives[category],
                &pool,
                deck,
            );
        }
        let mut state_hands: [ArrayVec<u8, MAX_HAND>; 4] = Default::default();
        for (seat, hand) in hands.iter().enumerate().take(players) {
            state_hands[seat] = if seat == self.seat as usize {
                self.hand.clone()
            } else {
                // A slot no unseen card is left for keeps its category's first card
                // (only a view that does not add up gets there).
                hand.iter()
                    .enumerate()
                    .map(|(j, c)| {
                        c.unwrap_or_else(|| {
                            let cat = self.hand_categories[seat][j] as usize;
                            COMPONENTS.category_cards[cat][0]
                        })
                    })
                    .collect()
            };
        }
        State {
            b: self.b.clone(),
            seed,
            rng: state,
            dice: Vec::new(),
            drawn,
            plot_deck,
            objective_decks: decks,
            hands: state_hands,
            history: History(None),
        }
    }

    /// Everything in the view, JSON-ready (the reference's `to_dict`, key for key).
    pub fn to_json(&self) -> Json {
        let b = &self.b;
        let p = b.players as usize;
        let ids = |cards: &[u8]| {
            Json::List(
                cards
                    .iter()
                    .map(|&c| Json::Str(b.card_set.id(c).to_string()))
                    .collect(),
            )
        };
        let int = |x: i128| Json::Int(x);
        let mut d: Vec<(&str, Json)> = vec![
            ("seat", int(self.seat as i128)),
            ("players", int(p as i128)),
            ("options", b.options.to_dict(true)),
            ("round", int(b.round as i128)),
            ("current", int(b.current as i128)),
            ("step", Json::Str(STEP_NAMES[b.step as usize].into())),
            ("weather", int(b.weather as i128)),
            ("taken", int_list(&b.taken)),
            ("drawn", int_list(&self.drawn)),
            ("drawn_count", int(self.drawn_count as i128)),
            ("put_back", int_list(&b.put_back)),
            ("plot_deck_size", int(self.plot_deck_size as i128)),
            ("plot_known", int_list(&b.plot_known)),
            ("known_plots", pairs(&self.known_plots)),
            ("objective_deck_sizes", int_list(&self.objective_deck_sizes)),
            ("objective_known", int_rows(&b.objective_known)),
            (
                "known_objectives",
                Json::List(self.known_objectives.iter().map(|k| pairs(k)).collect()),
            ),
            ("hand", ids(&self.hand)),
            ("hand_categories", int_rows(&self.hand_categories)),
            (
                "completed",
                Json::List(b.completed[..p].iter().map(|c| ids(c)).collect()),
            ),
            ("eaten", int_rows(&b.eaten[..p])),
            ("stored_channels", int_list(&b.stored_channels[..p])),
            ("stored_improvements", int_rows(&b.stored_improvements[..p])),
            ("reserve_channels", int(b.reserve_channels as i128)),
            ("reserve_improvements", int_list(&b.reserve_improvements)),
            ("emperor", int(b.emperor as i128)),
            ("last_turns", int(b.last_turns as i128)),
            ("ended", Json::Bool(b.ended)),
            ("capped", Json::Bool(b.capped)),
        ];
        if !b.card_set.is_default() {
            d.push(("card_set", b.card_set.changes()));
        }
        let mut d: Vec<(String, Json)> = d.into_iter().map(|(k, v)| (k.into(), v)).collect();
        if let Json::Object(items) = board_json(b) {
            d.extend(items);
        }
        Json::Object(d)
    }

    /// The canonical text: sorted keys, compact (two views are equal iff their texts are).
    pub fn canonical(&self) -> String {
        sorted(&self.to_json()).dump()
    }
}

/// A JSON value with every object's keys sorted (`json.dumps(sort_keys=True)`).
pub fn sorted(v: &Json) -> Json {
    match v {
        Json::Object(items) => {
            let mut items: Vec<(String, Json)> =
                items.iter().map(|(k, v)| (k.clone(), sorted(v))).collect();
            items.sort_by(|a, b| a.0.cmp(&b.0));
            Json::Object(items)
        }
        Json::List(items) => Json::List(items.iter().map(sorted).collect()),
        other => other.clone(),
    }
}

/// A deck: the known places as they are, the others dealt from the end of `pool` (the
/// reference's `_fill`); the pool in its order when no place is known.
/// A deck of `size` cards into `out` (up to its capacity): the `known` places hold their
/// cards, the others are dealt from the end of `pool` (all of `pool`, in order, when no
/// place is known).
fn fill<const N: usize>(
    size: usize,
    known: &[(usize, u8)],
    pool: &[u8],
    out: &mut ArrayVec<u8, N>,
) {
    out.clear();
    if known.is_empty() {
        out.extend(pool.iter().copied().take(N));
        return;
    }
    let mut dealt = pool.iter().rev();
    for i in 0..size {
        let card = match known.iter().find(|(at, _)| *at == i) {
            Some(&(_, card)) => Some(card),
            None => dealt.next().copied(),
        };
        if let Some(c) = card {
            if out.try_push(c).is_err() {
                return;
            }
        }
    }
}

fn ints(v: Option<&Json>) -> Vec<i128> {
    v.and_then(Json::as_list)
        .unwrap_or(&[])
        .iter()
        .filter_map(Json::as_int)
        .collect()
}

fn int_of(v: Option<&Json>) -> i128 {
    v.and_then(Json::as_int).unwrap_or(0)
}

fn id_list(v: Option<&Json>, set: &crate::components::CardSet) -> Result<Vec<u8>, String> {
    v.and_then(Json::as_list)
        .unwrap_or(&[])
        .iter()
        .map(|c| set.parse_card(c.as_str().unwrap_or("")))
        .collect()
}

impl View {
    /// A view from `to_json`'s data with `improvement_order` (how views are pickled: a
    /// bot in its own process receives its views so); the data is the engine's own.
    pub fn from_json(d: &Json, improvement_order: &[Cell]) -> Result<View, String> {
        let players = int_of(d.get("players")) as u8;
        if !(2..=4).contains(&players) {
            return Err("not a view".into());
        }
        let mut st = blank_of(d, players)?;
        read_public(&mut st.b, d)?;
        read_layout(&mut st.b, d, improvement_order)?;
        let per_seat = |key: &str| d.get(key).and_then(Json::as_list).unwrap_or(&[]).to_vec();
        let pairs = |v: Option<&Json>| -> Vec<(usize, u8)> {
            v.and_then(Json::as_list)
                .unwrap_or(&[])
                .iter()
                .map(|p| {
                    let p = ints(Some(p));
                    (
                        p.first().copied().unwrap_or(0) as usize,
                        p.get(1).copied().unwrap_or(0) as u8,
                    )
                })
                .collect()
        };
        let ko = d
            .get("known_objectives")
            .and_then(Json::as_list)
            .unwrap_or(&[]);
        let sizes = ints(d.get("objective_deck_sizes"));
        let hand = id_list(d.get("hand"), &st.b.card_set)?;
        Ok(View {
            b: st.b,
            seat: int_of(d.get("seat")) as u8,
            drawn: ints(d.get("drawn"))
                .into_iter()
                .map(|x| x as u8)
                .take(3)
                .collect(),
            drawn_count: int_of(d.get("drawn_count")) as usize,
            plot_deck_size: int_of(d.get("plot_deck_size")) as usize,
            known_plots: pairs(d.get("known_plots")),
            objective_deck_sizes: [0, 1, 2].map(|k| sizes.get(k).copied().unwrap_or(0) as usize),
            known_objectives: [0, 1, 2].map(|k| pairs(ko.get(k))),
            hand: hand.into_iter().take(MAX_HAND).collect(),
            hand_categories: per_seat("hand_categories")
                .iter()
                .map(|h| {
                    ints(Some(h))
                        .into_iter()
                        .map(|x| x as u8)
                        .take(MAX_HAND)
                        .collect()
                })
                .collect(),
        })
    }
}

/// A blank state of the view's players, options and card set.
fn blank_of(d: &Json, players: u8) -> Result<State, String> {
    use crate::components::CardSet;
    use crate::options::RuleOptions;
    let options = RuleOptions::from_dict(d.get("options").unwrap_or(&Json::Object(vec![])))
        .map_err(|e| e.to_string())?;
    let card_set = match d.get("card_set") {
        Some(cs) => CardSet::from_changes(
            cs.get("points").and_then(Json::as_object).unwrap_or(&[]),
            cs.get("remove").and_then(Json::as_list).unwrap_or(&[]),
            cs.get("add"),
        )?,
        None => CardSet::default(),
    };
    let st = State::blank(
        players,
        std::sync::Arc::new(options),
        std::sync::Arc::new(card_set),
    );
    Ok(st)
}

/// The public fields of a view's JSON but the layout: the turn, the known-marks, the
/// seats' stocks, the reserve and the end.
fn read_public(b: &mut Board, d: &Json) -> Result<(), String> {
    use crate::options::Rules;
    use crate::state::MAX_DECK;
    b.rules = Rules::of(&b.options);
    b.round = int_of(d.get("round")) as u32;
    b.current = int_of(d.get("current")) as u8;
    b.step = STEP_NAMES
        .iter()
        .position(|s| Some(*s) == d.get("step").and_then(Json::as_str))
        .unwrap_or(5) as u8;
    b.weather = int_of(d.get("weather")) as i8;
    b.taken = ints(d.get("taken")).into_iter().map(|x| x as u8).collect();
    let pb = ints(d.get("put_back"));
    for k in 0..3.min(pb.len()) {
        b.put_back[k] = pb[k] as u8;
    }
    b.plot_known = ints(d.get("plot_known"))
        .into_iter()
        .map(|x| x as u8)
        .take(27)
        .collect();
    for (k, row) in d
        .get("objective_known")
        .and_then(Json::as_list)
        .unwrap_or(&[])
        .iter()
        .take(3)
        .enumerate()
    {
        b.objective_known[k] = ints(Some(row))
            .into_iter()
            .map(|x| x as u8)
            .take(MAX_DECK)
            .collect();
    }
    let per_seat = |key: &str| d.get(key).and_then(Json::as_list).unwrap_or(&[]).to_vec();
    for (s, done) in per_seat("completed").iter().take(4).enumerate() {
        b.completed[s] = id_list(Some(done), &b.card_set)?.into_iter().collect();
    }
    for (s, e) in per_seat("eaten").iter().take(4).enumerate() {
        let e = ints(Some(e));
        for i in 0..3.min(e.len()) {
            b.eaten[s][i] = e[i] as u32;
        }
    }
    for (s, c) in ints(d.get("stored_channels"))
        .into_iter()
        .take(4)
        .enumerate()
    {
        b.stored_channels[s] = c as u32;
    }
    for (s, e) in per_seat("stored_improvements").iter().take(4).enumerate() {
        let e = ints(Some(e));
        for i in 0..4.min(e.len()) {
            b.stored_improvements[s][i] = e[i] as u8;
        }
    }
    b.reserve_channels = int_of(d.get("reserve_channels")) as u32;
    let r = ints(d.get("reserve_improvements"));
    for i in 0..4.min(r.len()) {
        b.reserve_improvements[i] = r[i] as u8;
    }
    b.emperor = int_of(d.get("emperor")) as i8;
    b.last_turns = int_of(d.get("last_turns")) as i32;
    b.ended = matches!(d.get("ended"), Some(Json::Bool(true)));
    b.capped = matches!(d.get("capped"), Some(Json::Bool(true)));
    Ok(())
}

/// The layout of a view's JSON: tiles (improvements in `improvement_order`), irrigation,
/// channels, the gardener and the panda, and the shoot counters derived from them.
fn read_layout(b: &mut Board, d: &Json, improvement_order: &[Cell]) -> Result<(), String> {
    use crate::components::{parse_tile, IMPROVEMENTS};
    use crate::state::{shoot_slot, SHOOT_COUNTERS};
    let mut imps: Vec<(Cell, u8)> = Vec::new();
    for t in d.get("tiles").and_then(Json::as_list).unwrap_or(&[]) {
        let at = crate::grid::parse_cell(t.get("at").and_then(Json::as_str).unwrap_or(""))?;
        let code = parse_tile(t.get("tile").and_then(Json::as_str).unwrap_or(""))?;
        let h = int_of(t.get("bamboo")) as u8;
        if b.order.is_full() {
            return Err("too many tiles".into());
        }
        b.put_tile(at, code, h);
        if let Some(name) = t.get("improvement").and_then(Json::as_str) {
            let i = IMPROVEMENTS.iter().position(|x| *x == name).unwrap_or(0) as u8;
            imps.push((at, i));
        }
        if matches!(t.get("irrigated"), Some(Json::Bool(true))) {
            b.irrigated.insert(at);
            b.irrigated_by_colour[(code >> 2) as usize].insert(at);
        }
    }
    imps.sort_by_key(|(c, _)| {
        improvement_order
            .iter()
            .position(|x| x == c)
            .unwrap_or(usize::MAX)
    });
    b.improvements = imps.into_iter().collect();
    for e in d.get("channels").and_then(Json::as_list).unwrap_or(&[]) {
        b.channels
            .insert(crate::grid::parse_edge(e.as_str().unwrap_or(""))?);
    }
    b.network = crate::grid::channel_network(&b.channels).0;
    b.gardener =
        crate::grid::parse_cell(d.get("gardener").and_then(Json::as_str).unwrap_or("0,0"))?;
    b.panda = crate::grid::parse_cell(d.get("panda").and_then(Json::as_str).unwrap_or("0,0"))?;
    b.shoots = [0; SHOOT_COUNTERS];
    for (c, h) in b.bamboo_items().collect::<Vec<_>>() {
        if let Some(slot) = shoot_slot(b.tile(c).unwrap_or(0) >> 2, h, b.improvement(c)) {
            b.shoots[slot] += 1;
        }
    }
    Ok(())
}

/// A list of ints (a view's JSON).
fn int_list<T: Copy>(items: &[T]) -> Json
where
    i128: TryFrom<T>,
{
    Json::List(
        items
            .iter()
            .map(|&x| Json::Int(i128::try_from(x).unwrap_or(i128::MAX)))
            .collect(),
    )
}

/// A list of lists of ints.
fn int_rows<T: Copy, R: AsRef<[T]>>(rows: &[R]) -> Json
where
    i128: TryFrom<T>,
{
    Json::List(rows.iter().map(|r| int_list(r.as_ref())).collect())
}

/// `(place, item)` pairs as lists of two ints (the known places of a deck).
fn pairs(v: &[(usize, u8)]) -> Json {
    Json::List(
        v.iter()
            .map(|&(i, t)| Json::List(vec![Json::Int(i as i128), Json::Int(t as i128)]))
            .collect(),
    )
}
