//! Games played on the Python reference (`scripts/native_golden.py`), replayed by the core
//! without Python: every chosen action is legal here too, and the final position and the
//! history in notation are the reference's, field for field and line for line.

use std::sync::Arc;

use takenoko::components::CardSet;
use takenoko::json::{self, Json};
use takenoko::options::RuleOptions;
use takenoko::position::{from_position, to_position};
use takenoko::State;

const GAMES: &str = include_str!("data/reference_games.json");

#[test]
fn reference_games_replay_to_the_same_positions_and_histories() {
    let data = json::parse(GAMES).expect("the recorded games are JSON");
    let games = data
        .get("games")
        .and_then(Json::as_list)
        .expect("a list of games");
    assert!(games.len() >= 10);
    for (k, g) in games.iter().enumerate() {
        let int = |key: &str| g.get(key).and_then(Json::as_int).expect(key);
        let options = RuleOptions::from_dict(g.get("options").expect("options")).expect("options");
        let changes = g.get("card_set").expect("card_set");
        let cards = CardSet::from_changes(
            changes
                .get("points")
                .and_then(Json::as_object)
                .unwrap_or(&[]),
            changes.get("remove").and_then(Json::as_list).unwrap_or(&[]),
            changes.get("add"),
        )
        .expect("card set");
        let dice: Vec<u8> = g
            .get("dice")
            .and_then(Json::as_list)
            .unwrap_or(&[])
            .iter()
            .filter_map(|f| f.as_int().map(|f| f as u8))
            .collect();
        let mut state = State::new(
            int("players") as usize,
            int("seed"),
            Arc::new(options),
            &dice,
            true,
            Arc::new(cards),
        )
        .expect("a new game");
        for (i, a) in g
            .get("actions")
            .and_then(Json::as_list)
            .expect("actions")
            .iter()
            .enumerate()
        {
            let action = a.as_int().expect("an action") as u32;
            assert!(
                state.legal_actions().contains(&action),
                "game {k}, action {i}: not legal here"
            );
            state.apply(action).expect("applies");
        }
        assert!(state.is_terminal(), "game {k} ends");
        assert_eq!(
            &to_position(&state),
            g.get("position").expect("position"),
            "game {k}: position"
        );
        let history: Vec<String> = g
            .get("history")
            .and_then(Json::as_list)
            .expect("history")
            .iter()
            .map(|l| l.as_str().expect("a line").to_string())
            .collect();
        assert_eq!(state.history_text(), history, "game {k}: history");
        // The position reads back into the same state.
        let back = from_position(&to_position(&state)).expect("reads back");
        assert!(back.same_position(&state), "game {k}: round trip");
    }
}
