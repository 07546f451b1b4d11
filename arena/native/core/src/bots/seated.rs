//! One wrapper for the bots whose procedure needs nothing of the game but the view: a
//! [`Decider`] (`greedy`, `learned`, `elite`) seated with its own generator.
//!
//! The three differed only in the procedure they call, so the referee's side of them (the
//! generator, the card points filled on the first decision) is written once here.

use std::sync::Arc;

use crate::actions::Action;
use crate::options::RuleOptions;
use crate::rng::PyRandom;
use crate::view::View;

use super::draws::BotDraws;
use super::heuristics::card_points;
use super::Bot;

/// A bot's procedure apart from its generator: the same decision whether the referee's
/// generator or a Python caller's draws (`arena._native.Bot`) feed it.
pub trait Decider: Send {
    /// One of `legal` (not empty) for the view's seat, planning with `points`.
    fn decide<R: BotDraws>(
        &mut self,
        view: &View,
        legal: &[Action],
        points: &[f64],
        rng: &mut R,
    ) -> Action;
}

/// A decider as the referee plays it: the procedure, its own generator, and the card
/// points it plans with, read off the first view (a game's card set does not change).
pub struct Seated<D> {
    pub decider: D,
    pub rng: PyRandom,
    points: Vec<f64>,
}

impl<D: Decider + 'static> Seated<D> {
    /// The registry's bot of a decider and its generator.
    pub fn boxed(decider: D, rng: PyRandom) -> Box<dyn Bot> {
        Box::new(Seated {
            decider,
            rng,
            points: Vec::new(),
        })
    }
}

impl<D: Decider> Bot for Seated<D> {
    fn start(&mut self, _seat: u8, _players: u8, _options: &Arc<RuleOptions>) {}

    fn choose(&mut self, view: &View, legal: &[Action]) -> Action {
        if self.points.is_empty() {
            self.points = card_points(&view.b);
        }
        self.decider
            .decide(view, legal, &self.points, &mut self.rng)
    }

    fn rng(&self) -> &PyRandom {
        &self.rng
    }
}
