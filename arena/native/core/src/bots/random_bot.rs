//! `random`: uniform over the legal actions (the reference's `bots/random_bot.py`), drawing
//! as the Python bot draws: `legal[rng.randrange(len(legal))]`.

use std::sync::Arc;

use crate::actions::{Action, COMPLETE, KIND_MASK};
use crate::options::RuleOptions;
use crate::rng::PyRandom;
use crate::view::View;

use super::declared;
use super::registry::{BotEntry, Params};
use super::Bot;

/// Uniformly random legal actions (optionally completing objectives at once).
pub struct RandomBot {
    rng: PyRandom,
    /// Complete any satisfied objective before anything else.
    complete: bool,
}

pub const ENTRY: BotEntry = BotEntry {
    name: "random",
    class: "RandomBot",
    declared: || declared::of("random"),
    make,
    test_only: false,
};

fn make(params: &Params, rng: PyRandom) -> Box<dyn Bot> {
    Box::new(RandomBot {
        rng,
        complete: params.bool("complete"),
    })
}

impl Bot for RandomBot {
    fn start(&mut self, _seat: u8, _players: u8, _options: &Arc<RuleOptions>) {}

    fn choose(&mut self, _view: &View, legal: &[Action]) -> Action {
        if self.complete {
            if let Some(&a) = legal.iter().find(|&&a| a & KIND_MASK == COMPLETE) {
                return a;
            }
        }
        legal[self.rng.randbelow(legal.len() as u64) as usize]
    }

    fn rng(&self) -> &PyRandom {
        &self.rng
    }

    fn reads_view(&self) -> bool {
        false
    }
}
