//! The Rust bots behind the Python ones: `arena._native.Bot(name, params)`, which
//! `bots.greedy.GreedyBot` and `bots.objective.ObjectiveBot` decide through on the native
//! engine.  Conversions only: the decisions are the core's (`takenoko::bots`).
//!
//! The bot draws from the caller's generator (`random.Random`) through its `getrandbits`,
//! as a native `determinize` does, and breaks ties with `randrange` as CPython's
//! `random.Random` computes it: the generator ends where the Python bot leaves it, and a
//! generator shared with other code (the `mcts` planner's) stays in step.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use takenoko::actions::Action;
use takenoko::bots::procedure::Procedure;
use takenoko::bots::seated::Decider;
use takenoko::view::View;

use super::draws::{exact_generator, put_generator, PythonDraws};
use super::referee::params_of;
use super::{guard, PyView};

/// A built-in bot decided in Rust: `Bot("greedy", {"samples": 2})`, then `start`,
/// `choose(view, legal, rng)` and, for `objective`, `observe_move(seat, action)`.
#[pyclass(name = "Bot", module = "arena._native")]
pub struct PyBot {
    procedure: Procedure,
    name: String,
    points: Vec<f64>,
}

impl PyBot {
    fn decide(
        &mut self,
        py: Python<'_>,
        view: &View,
        legal: &[Action],
        rng: &Bound<'_, PyAny>,
    ) -> PyResult<Action> {
        let (name, seat, round) = (self.name.clone(), view.seat, view.b.round);
        let context = move || format!("the {name} bot of seat {seat}, round {round}");
        let (procedure, points) = (&mut self.procedure, &self.points);
        if procedure.searches() {
            // A search draws thousands of numbers: from a copy of the generator's state
            // here, written back after (the same numbers as through its methods).
            if let Some(mut r) = exact_generator(py, rng)? {
                let action = guard(py, context, || {
                    Ok(procedure.decide(view, legal, points, &mut r))
                })?;
                put_generator(py, rng, &r)?;
                return Ok(action);
            }
        }
        let mut draws = PythonDraws::new(rng)?;
        let action = guard(py, context, || {
            Ok(procedure.decide(view, legal, points, &mut draws))
        })?;
        match draws.error {
            Some(e) => Err(e),
            None => Ok(action),
        }
    }
}

#[pymethods]
impl PyBot {
    /// The bot `name` (`greedy`, `objective` or `mcts`) with these parameters (the Python bot's,
    /// checked as it checks them).
    #[new]
    #[pyo3(signature = (name, params = None))]
    fn new(name: &str, params: Option<&Bound<'_, PyDict>>) -> PyResult<PyBot> {
        let given = match params {
            Some(params) => params_of(params.as_any())?,
            None => Vec::new(),
        };
        let procedure = Procedure::new(name, &given).map_err(PyValueError::new_err)?;
        Ok(PyBot {
            procedure,
            name: name.to_string(),
            points: Vec::new(),
        })
    }

    /// A new game: this bot plays `seat` of `players`.
    #[pyo3(signature = (seat, players = 2))]
    fn start(&mut self, seat: u8, players: u8) -> PyResult<()> {
        self.procedure
            .start(seat, players)
            .map_err(PyValueError::new_err)
    }

    /// Iterations the last decision searched (`mcts`; `elite`: the leaves it valued; 0 for
    /// the other bots).
    #[getter]
    fn last_iterations(&self) -> u64 {
        self.procedure.last_iterations()
    }

    /// A move of the game (`objective` remembers where opponents' pandas went).
    fn observe_move(&mut self, seat: u8, action: Action) {
        self.procedure.observe_move(seat, action);
    }

    /// One of `legal` for the view's seat, drawing from `rng` as the Python bot would;
    /// `points` are the card points it plans with when a caller gave the view some (an
    /// archetype's weighted ones), else its card set's.
    #[pyo3(signature = (view, legal, rng, points = None))]
    fn choose(
        &mut self,
        py: Python<'_>,
        view: &PyView,
        legal: Vec<Action>,
        rng: &Bound<'_, PyAny>,
        points: Option<Vec<f64>>,
    ) -> PyResult<Action> {
        if legal.is_empty() {
            return Err(PyValueError::new_err("no legal action to choose from"));
        }
        let set = view.v.b.card_set.points.iter().map(|&p| p as f64);
        self.points = points.unwrap_or_else(|| set.collect());
        self.decide(py, &view.v, &legal, rng)
    }
}
