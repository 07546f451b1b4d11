//! Bots for the tests of the referee only, reachable only through the binding's test hook
//! (`arena._native._test_bots`): never in a real run.

use std::sync::Arc;

use crate::actions::Action;
use crate::options::RuleOptions;
use crate::rng::PyRandom;
use crate::view::View;

use super::registry::{BotEntry, Default, Kind, ParamDecl, Params};
use super::Bot;

/// Plays the first legal action, and panics at its decision number `after` (a planted bug:
/// the referee must turn it into a failed game, not a crash of the run).
pub struct PanicBot {
    rng: PyRandom,
    after: i64,
    made: i64,
}

pub const PANIC: BotEntry = BotEntry {
    name: "panic",
    class: "PanicBot",
    declared: || {
        &[ParamDecl {
            name: "after",
            kind: Kind::Int {
                minimum: Some(0),
                maximum: None,
            },
            default: Default::Int(0),
        }]
    },
    make,
    test_only: true,
};

fn make(params: &Params, rng: PyRandom) -> Box<dyn Bot> {
    Box::new(PanicBot {
        rng,
        after: params.int("after"),
        made: 0,
    })
}

impl Bot for PanicBot {
    fn start(&mut self, _seat: u8, _players: u8, _options: &Arc<RuleOptions>) {
        self.made = 0;
    }

    fn choose(&mut self, _view: &View, legal: &[Action]) -> Action {
        if self.made >= self.after {
            panic!("a panic planted in the test bot");
        }
        self.made += 1;
        legal[0]
    }

    fn rng(&self) -> &PyRandom {
        &self.rng
    }
}
