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

/// What the referee asks of a bot, as `arena.bot.Bot` asks it of a Python bot.
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

pub mod draws;
pub mod elite;
pub mod greedy;
pub mod heuristics;
pub mod mcts;
pub mod mcts_leaves;
pub mod mcts_search;
pub mod objective;
pub mod random_bot;
pub mod registry;
pub mod test_bots;

pub use registry::{make_bot, BotEntry, Params, Value, REGISTRY};
