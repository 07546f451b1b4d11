//! The core's private shortcuts agree with the lists they stand for, over random games
//! under several rule options (these checks ran in Python through exported helpers; the
//! binding exports no private helper now, so they run here).

use std::sync::Arc;

use takenoko::actions::{COMPLETE, END, IMPROVE, KIND_MASK};
use takenoko::components::CardSet;
use takenoko::options::RuleOptions;
use takenoko::rng::PyRandom;
use takenoko::state::{Legal, STEP_ACTIONS};
use takenoko::State;

const OPTIONS: [&[&str]; 5] = [
    &[],
    &["cloud_keep=false"],
    &["redraw_satisfied=all", "gardener_on_shoot=true"],
    &["bamboo_supply=limited"],
    &["max_rounds=6"],
];

/// Whether an action is a free move (channel, improve, complete: R9).
fn is_free(action: u32) -> bool {
    matches!(action & KIND_MASK, k if k == takenoko::actions::CHANNEL || k == IMPROVE || k == COMPLETE)
}

/// Checks one decision: `only_end` says what the action step's list says, and the free
/// moves are the legal list's first items and its only free ones.
fn check(state: &State) {
    let legal = state.legal_actions();
    if state.b.step == STEP_ACTIONS {
        let mut turn = Legal::new();
        state.legal_turn(&mut turn);
        assert_eq!(state.only_end(), turn.as_slice() == [END]);
    }
    let mut free = Legal::new();
    state.free_moves(&mut free);
    assert_eq!(&legal[..free.len()], free.as_slice());
    assert!(!legal[free.len()..].iter().any(|&a| is_free(a)));
}

#[test]
fn the_lazy_forced_end_and_the_free_moves_agree_with_the_legal_list() {
    for (k, pairs) in OPTIONS.iter().enumerate() {
        let options = Arc::new(RuleOptions::from_pairs(pairs).expect("options"));
        for game in 0..12i128 {
            let players = 2 + (game % 3) as usize;
            let seed = 1000 * k as i128 + game;
            let mut state = State::new(
                players,
                seed,
                options.clone(),
                &[],
                false,
                Arc::new(CardSet::default()),
            )
            .expect("a new game");
            let mut rng = PyRandom::new(seed);
            while !state.b.ended {
                check(&state);
                let legal = state.legal_actions();
                for &a in legal.iter() {
                    let mut child = state.copy(false);
                    child.apply(a).expect("a legal action");
                    if !child.b.ended && child.b.step == STEP_ACTIONS {
                        assert!(!child.only_end());
                    }
                }
                let a = legal[rng.randbelow(legal.len() as u64) as usize];
                state.apply(a).expect("a legal action");
            }
        }
    }
}
