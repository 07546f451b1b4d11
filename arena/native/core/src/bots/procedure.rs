//! The procedures a Python bot decides through on the native engine (`arena._native.Bot`):
//! a built-in bot's decision apart from its generator, which the caller's draws feed.
//!
//! Which procedure a name makes, what a new game and a move tell it, and how many
//! iterations its last decision searched are the bots' knowledge, so they live here; the
//! binding only converts the view, the legal actions and the caller's generator.

use crate::actions::Action;
use crate::history::Entry;
use crate::view::View;

use super::draws::BotDraws;
use super::elite::{Elite, Settings as EliteSettings};
use super::greedy::Greedy;
use super::learned::{builtin, Learned};
use super::mcts::{Mcts, Settings as MctsSettings};
use super::objective::{Objective, Settings as ObjectiveSettings};
use super::seated::Decider;
use super::Value;

enum Inner {
    Greedy(Box<Greedy>),
    Objective(Box<Objective>),
    Mcts(Box<Mcts>),
    Learned(Box<Learned>),
    Elite(Box<Elite>),
}

/// A built-in bot's procedure and the seat it plays.
pub struct Procedure {
    inner: Inner,
    seat: u8,
}

impl Procedure {
    /// The procedure of `name` (`greedy`, `objective`, `mcts`, `elite` or `learned`) with
    /// these parameters, checked as the Python bot checks them; the refusal's sentence.
    pub fn new(name: &str, given: &[(String, Value)]) -> Result<Procedure, String> {
        let checked = |entry: &super::BotEntry| entry.check(given);
        let inner = match name {
            "greedy" => Inner::Greedy(Box::new(Greedy::from_params(&checked(
                &super::greedy::ENTRY,
            )?))),
            "objective" => Inner::Objective(Box::new(Objective::new(
                ObjectiveSettings::from_params(&checked(&super::objective::ENTRY)?),
            ))),
            "mcts" => Inner::Mcts(Box::new(Mcts::new(MctsSettings::from_params(&checked(
                &super::mcts::ENTRY,
            )?)))),
            "elite" => Inner::Elite(Box::new(Elite::new(
                EliteSettings::from_params(&checked(&super::elite::ENTRY)?),
                builtin(),
            ))),
            "learned" => Inner::Learned(Box::new(Learned::new(
                checked(&super::learned::ENTRY)?.int("samples") as u32,
                builtin(),
            ))),
            other => {
                return Err(format!(
                    "no native bot {other:?} to decide for a Python bot (these: greedy, objective, mcts, elite, learned)"
                ))
            }
        };
        Ok(Procedure { inner, seat: 0 })
    }

    /// A new game: this bot plays `seat` of `players`.
    pub fn start(&mut self, seat: u8, players: u8) -> Result<(), String> {
        if !(2..=4).contains(&players) || seat >= players {
            return Err(format!(
                "seat {seat} of {players} players is no seat of a game"
            ));
        }
        self.seat = seat;
        match &mut self.inner {
            Inner::Objective(o) => o.start(),
            Inner::Mcts(m) => m.start(seat, players),
            Inner::Greedy(_) | Inner::Learned(_) | Inner::Elite(_) => {}
        }
        Ok(())
    }

    /// A move of the game (`objective` remembers where opponents' pandas went).
    pub fn observe_move(&mut self, seat: u8, action: Action) {
        let entry = Entry::Move {
            round: 0,
            seat,
            action,
        };
        match &mut self.inner {
            Inner::Objective(o) => o.observe(self.seat, &entry),
            Inner::Mcts(m) => m.observe(&entry),
            Inner::Greedy(_) | Inner::Learned(_) | Inner::Elite(_) => {}
        }
    }

    /// Iterations the last decision searched (`mcts`; `elite`: the leaves it valued; 0 for
    /// the other bots).
    pub fn last_iterations(&self) -> u64 {
        match &self.inner {
            Inner::Mcts(m) => m.last_iterations,
            Inner::Elite(e) => e.last_evaluations,
            _ => 0,
        }
    }

    /// Whether it searches (draws thousands of numbers: the binding draws them from a copy
    /// of the caller's generator rather than through its methods).
    pub fn searches(&self) -> bool {
        matches!(self.inner, Inner::Mcts(_) | Inner::Elite(_))
    }
}

impl Decider for Procedure {
    fn decide<R: BotDraws>(
        &mut self,
        view: &View,
        legal: &[Action],
        points: &[f64],
        rng: &mut R,
    ) -> Action {
        match &mut self.inner {
            Inner::Greedy(g) => g.choose(view, legal, points, rng),
            Inner::Objective(o) => o.choose(view, legal, points, rng),
            Inner::Mcts(m) => m.choose(view, legal, points, rng),
            Inner::Learned(l) => l.choose(view, legal, points, rng),
            Inner::Elite(e) => e.choose(view, legal, points, rng),
        }
    }
}
