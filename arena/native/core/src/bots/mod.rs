//! The built-in bots in Rust: the same decisions as the Python bots of `bots/`, for speed.
//!
//! A bot sees the game as the Python bots do: through a [`View`] of its seat, never the
//! state, and draws every random number from its own CPython-compatible generator
//! ([`PyRandom`]) seeded as the arena seeds the Python bot, so that both implementations
//! make the same decisions (the decision digests of `tests/bots/test_decision_digests.py`
//! hold for both).

use std::sync::Arc;

use crate::actions::Action;
use crate::history::Entry;
use crate::options::RuleOptions;
use crate::rng::PyRandom;
use crate::view::View;

/// What the referee asks of a bot, as `arena.play.bot.Bot` asks it of a Python bot.
pub trait Bot: Send {
    /// A new game: this bot plays `seat` of `players` under these rules.
    fn start(&mut self, seat: u8, players: u8, options: &Arc<RuleOptions>);

    /// One of `legal` (never empty), chosen from the view of the bot's seat.
    fn choose(&mut self, view: &View, legal: &[Action]) -> Action;

    /// An entry of the game's history, told after it happens. The referee tells every
    /// entry; a bot reads only what its seat may see of it (a move, a roll, its own
    /// draws), as the Python bots receive `Event`s with the rest hidden.
    fn observe(&mut self, _entry: &Entry) {}

    /// The bot's generator (for tests that check where a game leaves it).
    fn rng(&self) -> &PyRandom;

    /// Whether `choose` reads its view.  A bot that answers false (`random`: its choice
    /// is a draw among the legal actions) is handed a view that may be out of date, and the
    /// referee saves copying the board for it at every decision.
    fn reads_view(&self) -> bool {
        true
    }
}

pub mod declared;
pub mod draws;
pub mod elite;
pub mod features;
pub mod greedy;
pub mod heuristics;
pub mod learned;
pub mod mcts;
pub mod mcts_leaves;
pub mod mcts_search;
pub mod objective;
pub mod procedure;
pub mod random_bot;
pub mod registry;
pub mod seated;
pub mod selfplay;
pub mod test_bots;

pub use registry::{BotEntry, Params, Value};

use crate::json::str_repr;

/// The native bots, one line each: a bot module declares its [`BotEntry`] (`ENTRY`, with
/// `registry`'s types) and names nothing here; the list is built here, where the modules
/// are declared, so no bot module and the registry need each other.  A new bot is its
/// `pub mod` line above and its line here.
pub const REGISTRY: &[BotEntry] = &[
    random_bot::ENTRY,
    greedy::ENTRY,
    objective::ENTRY,
    mcts::ENTRY,
    elite::ENTRY,
    learned::ENTRY,
    test_bots::PANIC,
];

/// The entry of a bot name; test-only bots only when `tests` is set.
pub fn entry(name: &str, tests: bool) -> Option<&'static BotEntry> {
    REGISTRY
        .iter()
        .find(|e| e.name == name && (tests || !e.test_only))
}

/// A bot from its name, parameters and generator; the refusal names what is wrong.
pub fn make_bot(
    name: &str,
    params: &[(String, Value)],
    rng: PyRandom,
    tests: bool,
) -> Result<Box<dyn Bot>, String> {
    let e = entry(name, tests).ok_or_else(|| format!("no native bot {}", str_repr(name)))?;
    let checked = e.check(params)?;
    Ok((e.make)(&checked, rng))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_what_python_refuses() {
        let e = entry("random", false).unwrap();
        assert!(e.check(&[]).is_ok());
        let err = e
            .check(&[("completed".into(), Value::Bool(true))])
            .unwrap_err();
        assert_eq!(
            err,
            "RandomBot has no parameter 'completed' (its parameters: complete)"
        );
        let err = e
            .check(&[("complete".into(), Value::Text("maybe".into()))])
            .unwrap_err();
        assert_eq!(err, "parameter complete must be true|false, not 'maybe'");
        assert!(entry("panic", false).is_none());
        assert!(entry("panic", true).is_some());
    }

    #[test]
    fn every_bot_is_listed_once() {
        let mut names: Vec<&str> = REGISTRY.iter().map(|e| e.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), REGISTRY.len());
    }
}
