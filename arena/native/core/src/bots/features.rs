//! The features of a position as one seat may see it: the input of the learned value
//! (`learned.rs`, issue 51).
//!
//! Why these and not a picture of the board: the first learned value has to learn from
//! thousands of games, not millions, so the encoding carries what the hand-made evaluation
//! already knows how to compute (each card's estimated cost, `heuristics.rs`) next to the raw
//! facts the evaluation ignores or weighs by hand (the Emperor race, the opponent's public
//! stock, the decks, the bamboo by colour).  The net learns how these combine into a chance
//! of winning.  A per-plot encoding of the board is left for later generations.
//!
//! Honesty: [`features`] reads a [`State`] (the learned bot evaluates determinized states,
//! training reads the true ones) but only what `seat` may see: the board, every seat's
//! public stock, the deck sizes, its own hand, and the categories of the others' hands.
//! Another seat's cards are valued only by what a card of their category is expected to be
//! worth (`expected_hand_value`), as `objective`'s denial does.
//!
//! [`NAMES`] is the one list of the features, in order; the weights file names them and is
//! refused when its list differs (`learned::Mlp::from_json`).  Scales are fixed divisors that
//! bring each feature to about [0, 1]; the trainer standardises them again.

use crate::components::{COMPONENTS, FACE_SUN, FACE_WIND};
use crate::state::{State, MAX_HAND, STEP_ACTIONS};

use super::heuristics::{
    actions_horizon, category, draw_value, own_hand, score, unseen_for, Cache, Pools, Snapshot,
    Weights, DECAY, NO_HORIZON, UNREACHABLE,
};

/// The features, in order (one name each; `docs/learned.md` says what each is).
pub const NAMES: &[&str] = &[
    // scores and the race to the Emperor
    "score",
    "rival_score",
    "score_lead",
    "completed",
    "rival_completed",
    "completed_plot",
    "completed_gardener",
    "completed_panda",
    "rival_completed_plot",
    "rival_completed_gardener",
    "rival_completed_panda",
    "emperor_mine",
    "emperor_rival",
    "emperor_taken",
    "horizon",
    "round",
    // the turn
    "my_turn",
    "my_action_step",
    "actions_taken",
    "sun",
    "wind",
    // the own hand, by the heuristics' cost estimates
    "hand_size",
    "hand_plot",
    "hand_gardener",
    "hand_panda",
    "evaluation",
    "card1_points",
    "card1_cost",
    "card2_points",
    "card2_cost",
    "card3_points",
    "card3_cost",
    "hand_value_fast",
    "hand_value_slow",
    "cards_satisfied",
    "cards_within_1",
    "cards_within_2",
    "cards_within_4",
    "cheapest_cost",
    "reachable_points",
    // stocks
    "eaten_green",
    "eaten_yellow",
    "eaten_pink",
    "rival_eaten_green",
    "rival_eaten_yellow",
    "rival_eaten_pink",
    "stored_channels",
    "rival_stored_channels",
    "stored_watershed",
    "stored_enclosure",
    "stored_fertilizer",
    "rival_stored_improvements",
    // the rival's hand, from what is public
    "rival_hand_size",
    "rival_hand_plot",
    "rival_hand_gardener",
    "rival_hand_panda",
    "rival_expected_hand",
    // what a draw is worth
    "draw_plot",
    "draw_gardener",
    "draw_panda",
    // the board
    "plots",
    "plots_green",
    "plots_yellow",
    "plots_pink",
    "irrigated_green",
    "irrigated_yellow",
    "irrigated_pink",
    "bamboo_green",
    "bamboo_yellow",
    "bamboo_pink",
    "tall_green",
    "tall_yellow",
    "tall_pink",
    "board_watershed",
    "board_enclosure",
    "board_fertilizer",
    "reserve_watershed",
    "reserve_enclosure",
    "reserve_fertilizer",
    "reserve_channels",
    "supply_green",
    "supply_yellow",
    "supply_pink",
    // decks
    "plot_deck",
    "deck_plot",
    "deck_gardener",
    "deck_panda",
    // figures
    "gardener_green",
    "gardener_yellow",
    "gardener_pink",
    "gardener_height",
    "panda_green",
    "panda_yellow",
    "panda_pink",
    "panda_height",
];

/// How many features a position has.
pub const FEATURES: usize = NAMES.len();

/// The opponent `seat` measures itself against: the one with the most points (the lowest
/// seat after `seat` on a tie); in a 2-player game, the other seat.
pub fn rival(state: &State, seat: u8, points: &[f64]) -> u8 {
    let b = &state.b;
    let mut best: Option<(f64, u8)> = None;
    for k in 1..b.players {
        let s = (seat + k) % b.players;
        let v = score(b, s, points);
        if best.is_none_or(|(top, _)| v > top) {
            best = Some((v, s));
        }
    }
    best.map_or(seat, |(_, s)| s)
}

/// Writes features one after the other.
struct Out<'a> {
    out: &'a mut [f32; FEATURES],
    at: usize,
}

impl Out<'_> {
    fn put(&mut self, value: f64) {
        self.out[self.at] = value as f32;
        self.at += 1;
    }
}

/// Whether `state`, just reached by a decision of `seat`, is a position `learned`'s one ply
/// values (`greedy::lookahead`'s leaf): the seat's step is done, and the game goes on.
pub fn is_afterstate(state: &State, seat: u8) -> bool {
    let b = &state.b;
    !state.is_terminal() && (b.current != seat || b.step == crate::state::STEP_ACTIONS)
}

/// The features of `state` for `seat` (see the module's note on what it reads), at these
/// card points, into `out`.  One section after the other, in [`NAMES`]' order.
pub fn features(
    state: &State,
    seat: u8,
    cache: &mut Cache,
    points: &[f64],
    out: &mut [f32; FEATURES],
) {
    let other = rival(state, seat, points);
    let mut o = Out { out, at: 0 };
    race(&mut o, state, seat, other, points);
    turn(&mut o, state, seat);
    let mut snap = Snapshot::new(state, cache, points);
    hand(&mut o, &mut snap, state, seat, points);
    stocks(&mut o, state, seat, other);
    rival_hand(&mut o, &mut snap, state, seat, other);
    drop(snap);
    draws(&mut o, state, seat, cache, points);
    board(&mut o, state);
    decks_and_figures(&mut o, state);
    debug_assert_eq!(o.at, FEATURES);
}

/// Scores, cards completed by category, and the race to the Emperor.
fn race(o: &mut Out, state: &State, seat: u8, other: u8, points: &[f64]) {
    let b = &state.b;
    let (me, them) = (seat as usize, other as usize);
    let to_end = b.rules.objectives_to_end[b.players as usize].max(1) as f64;
    let (mine, theirs) = (score(b, seat, points), score(b, other, points));
    o.put(mine / 30.0);
    o.put(theirs / 30.0);
    o.put((mine - theirs) / 10.0);
    o.put(b.completed[me].len() as f64 / to_end);
    o.put(b.completed[them].len() as f64 / to_end);
    for s in [me, them] {
        let mut by = [0.0; 3];
        for &c in &b.completed[s] {
            by[category(b, c) as usize] += 1.0;
        }
        for v in by {
            o.put(v / 5.0);
        }
    }
    o.put((b.emperor == seat as i8) as u8 as f64);
    o.put((b.emperor == other as i8) as u8 as f64);
    o.put((b.emperor >= 0) as u8 as f64);
    let horizon = if b.emperor >= 0 {
        actions_horizon(b, seat)
    } else {
        NO_HORIZON
    };
    o.put(horizon.min(6) as f64 / 6.0);
    o.put(b.round as f64 / 40.0);
}

/// Whose turn, and where in it.
fn turn(o: &mut Out, state: &State, seat: u8) {
    let b = &state.b;
    let my_turn = b.current == seat;
    o.put(my_turn as u8 as f64);
    o.put((my_turn && b.step == STEP_ACTIONS) as u8 as f64);
    o.put(if my_turn {
        b.taken.len() as f64 / 3.0
    } else {
        0.0
    });
    o.put((my_turn && b.weather == FACE_SUN) as u8 as f64);
    o.put((my_turn && b.weather == FACE_WIND) as u8 as f64);
}

/// `p` points at `cost` actions, discounted by `decay` per action (nothing unreachable).
fn worth(p: f64, cost: f64, decay: f64) -> f64 {
    if cost >= UNREACHABLE {
        0.0
    } else {
        p * decay.powf(cost)
    }
}

/// The own hand: its size by category, the evaluation, the three best cards and sums
/// over the cards' estimated costs.
fn hand(o: &mut Out, snap: &mut Snapshot<State>, state: &State, seat: u8, points: &[f64]) {
    let b = &state.b;
    let hand = own_hand(state, seat);
    o.put(hand.len() as f64 / 5.0);
    let mut by = [0.0; 3];
    for &c in hand {
        by[category(b, c) as usize] += 1.0;
    }
    for v in by {
        o.put(v / 5.0);
    }
    let (evaluation, costs) = snap.evaluate(seat, &Weights::default(), None);
    o.put(evaluation / 20.0);
    let mut cards: Vec<(f64, f64)> = costs
        .iter()
        .map(|&(c, cost)| (points[c as usize], cost.min(UNREACHABLE)))
        .collect();
    cards.sort_by(|x, y| worth(y.0, y.1, DECAY).total_cmp(&worth(x.0, x.1, DECAY)));
    for k in 0..3 {
        let (p, cost) = cards.get(k).copied().unwrap_or((0.0, UNREACHABLE));
        o.put(p / 6.0);
        o.put(cost.min(10.0) / 10.0);
    }
    for decay in [0.3, 0.7] {
        o.put(cards.iter().map(|&(p, c)| worth(p, c, decay)).sum::<f64>() / 10.0);
    }
    for within in [0.0, 1.0, 2.0, 4.0] {
        o.put(cards.iter().filter(|&&(_, c)| c <= within).count() as f64 / 5.0);
    }
    let cheapest = cards.iter().map(|&(_, c)| c).fold(UNREACHABLE, f64::min);
    o.put(cheapest.min(10.0) / 10.0);
    let reachable = cards.iter().filter(|&&(_, c)| c < UNREACHABLE);
    o.put(reachable.map(|&(p, _)| p).sum::<f64>() / 20.0);
}

/// Both seats' bamboo eaten, channels and improvements stored.
fn stocks(o: &mut Out, state: &State, seat: u8, other: u8) {
    let b = &state.b;
    let (me, them) = (seat as usize, other as usize);
    for s in [me, them] {
        for k in 0..3 {
            o.put(b.eaten[s][k] as f64 / 5.0);
        }
    }
    o.put(b.stored_channels[me] as f64 / 3.0);
    o.put(b.stored_channels[them] as f64 / 3.0);
    for k in 1..4 {
        o.put(b.stored_improvements[me][k] as f64 / 2.0);
    }
    let theirs_stored: u32 = b.stored_improvements[them][1..]
        .iter()
        .map(|&n| n as u32)
        .sum();
    o.put(theirs_stored as f64 / 2.0);
}

/// The rival's hand, from its categories and what a card of each is expected to be worth.
fn rival_hand(o: &mut Out, snap: &mut Snapshot<State>, state: &State, seat: u8, other: u8) {
    let categories = snap_categories(state, other);
    o.put(categories.iter().sum::<f64>() / 5.0);
    for v in categories {
        o.put(v / 5.0);
    }
    let pools = Pools([0, 1, 2].map(|k| unseen_for(state, seat, k)));
    o.put(snap.expected_hand_value(other, &pools, DECAY, 0.0) / 10.0);
}

/// What a draw of each category is worth (none with a full hand: the rules allow no draw
/// then).
fn draws(o: &mut Out, state: &State, seat: u8, cache: &mut Cache, points: &[f64]) {
    let full = own_hand(state, seat).len() >= MAX_HAND;
    for k in 0..3u8 {
        let value = if full {
            0.0
        } else {
            draw_value(state, seat, k, DECAY, 0.0, cache, points)
        };
        o.put(value / 6.0);
    }
}

/// The board: plots, irrigation and bamboo by colour, improvements, the reserves.
fn board(o: &mut Out, state: &State) {
    let b = &state.b;
    let mut plots = [0.0; 3];
    let mut bamboo = [0.0; 3];
    let mut tall = [0.0; 3];
    for (cell, height) in b.bamboo_items() {
        let c = b.colour(cell);
        if c >= 0 {
            plots[c as usize] += 1.0;
            bamboo[c as usize] += height as f64;
            tall[c as usize] += (height >= 3) as u8 as f64;
        }
    }
    o.put(plots.iter().sum::<f64>() / 27.0);
    for v in plots {
        o.put(v / 9.0);
    }
    for set in &b.irrigated_by_colour {
        o.put(set.len() as f64 / 9.0);
    }
    for v in bamboo {
        o.put(v / 20.0);
    }
    for v in tall {
        o.put(v / 5.0);
    }
    let mut improved = [0.0; 4];
    for &(_, kind) in &b.improvements {
        improved[kind as usize] += 1.0;
    }
    for v in &improved[1..] {
        o.put(v / 3.0);
    }
    for v in &b.reserve_improvements[1..] {
        o.put(*v as f64 / 3.0);
    }
    o.put(b.reserve_channels as f64 / 20.0);
    for k in 0..3u8 {
        let total = COMPONENTS.bamboo_sections[k as usize].max(1) as f64;
        o.put(b.supply_left(k) as f64 / total);
    }
}

/// The decks' sizes and the colour and bamboo under the gardener and the panda.
fn decks_and_figures(o: &mut Out, state: &State) {
    let b = &state.b;
    o.put(state.plot_deck.len() as f64 / 27.0);
    for deck in &state.objective_decks {
        o.put(deck.len() as f64 / 15.0);
    }
    for cell in [b.gardener, b.panda] {
        let c = b.colour(cell);
        for k in 0..3 {
            o.put((c == k) as u8 as f64);
        }
        o.put(b.bamboo(cell) as f64 / 4.0);
    }
}

/// How many cards of each category a seat holds (public).
fn snap_categories(state: &State, seat: u8) -> [f64; 3] {
    let mut by = [0.0; 3];
    for &c in &state.hands[seat as usize] {
        by[category(&state.b, c) as usize] += 1.0;
    }
    by
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bots::heuristics::card_points;
    use crate::options::RuleOptions;
    use crate::state::Legal;
    use std::sync::Arc;

    fn game(seed: i128) -> State {
        State::new(
            2,
            seed,
            Arc::new(RuleOptions::default()),
            &[],
            false,
            Arc::default(),
        )
        .unwrap()
    }

    #[test]
    fn names_are_unique() {
        let mut names = NAMES.to_vec();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), FEATURES);
    }

    #[test]
    fn fills_every_feature_with_a_finite_value_along_a_game() {
        let mut state = game(7);
        let points = card_points(&state.b);
        let mut cache = Cache::new();
        let mut legal = Legal::new();
        let mut out = [f32::NAN; FEATURES];
        let mut step = 0usize;
        while !state.is_terminal() && step < 400 {
            for seat in 0..2 {
                out.fill(f32::NAN);
                features(&state, seat, &mut cache, &points, &mut out);
                assert!(out.iter().all(|v| v.is_finite()), "step {step}: {out:?}");
            }
            state.legal_into(&mut legal);
            let a = legal[step * 7919 % legal.len()];
            state.apply(a).unwrap();
            step += 1;
        }
    }

    #[test]
    fn another_seats_cards_do_not_change_the_features() {
        let mut state = game(11);
        let points = card_points(&state.b);
        let mut cache = Cache::new();
        let (mut a, mut b) = ([0.0; FEATURES], [0.0; FEATURES]);
        features(&state, 0, &mut cache, &points, &mut a);
        // Swap seat 1's card for an unseen card of the same category.
        let card = state.hands[1][0];
        let k = category(&state.b, card) as usize;
        let unseen = state.objective_decks[k][0];
        state.hands[1][0] = unseen;
        state.objective_decks[k][0] = card;
        features(&state, 0, &mut cache, &points, &mut b);
        assert_eq!(a, b);
    }
}
