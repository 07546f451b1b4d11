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
use takenoko::bots::draws::{randbelow_by_bits, BotDraws};
use takenoko::bots::elite::{Elite, Settings as EliteSettings};
use takenoko::bots::greedy::Greedy;
use takenoko::bots::learned::Learned;
use takenoko::bots::mcts::{Mcts, Settings as MctsSettings};
use takenoko::bots::objective::{Objective, Settings};
use takenoko::bots::registry;
use takenoko::rng::PyRandom;
use takenoko::view::View;

use super::referee::{generator, params_of, rng_state};
use super::{guard, random_class, PyView, PythonDraws};

impl BotDraws for PythonDraws<'_, '_> {
    fn randrange(&mut self, n: usize) -> usize {
        if self.exact {
            return randbelow_by_bits(self, n as u64) as usize;
        }
        match self
            .rng
            .call_method1("randrange", (n,))
            .and_then(|v| v.extract::<usize>())
        {
            Ok(v) if v < n => v,
            Ok(_) => 0,
            Err(e) => {
                self.error.get_or_insert(e);
                0
            }
        }
    }

    fn random(&mut self) -> f64 {
        if self.exact {
            // CPython's `random()`: two 32-bit words, 27 and 26 of their bits.
            let a = (takenoko::view::Draws::getrandbits(self, 32) as u32 >> 5) as f64;
            let b = (takenoko::view::Draws::getrandbits(self, 32) as u32 >> 6) as f64;
            return (a * 67_108_864.0 + b) * (1.0 / 9_007_199_254_740_992.0);
        }
        match self
            .rng
            .call_method0("random")
            .and_then(|v| v.extract::<f64>())
        {
            Ok(v) if (0.0..1.0).contains(&v) => v,
            Ok(_) => 0.0,
            Err(e) => {
                self.error.get_or_insert(e);
                0.0
            }
        }
    }
}

enum Inner {
    Greedy(Box<Greedy>),
    Objective(Box<Objective>),
    Mcts(Box<Mcts>),
    Learned(Box<Learned>),
    Elite(Box<Elite>),
}

/// The generator of a `random.Random` (not a subclass: it may draw otherwise), read with
/// `getstate`; None when its state is not one CPython's version 3 makes.
fn exact_generator(py: Python<'_>, rng: &Bound<'_, PyAny>) -> PyResult<Option<PyRandom>> {
    if !rng.get_type().is(&random_class(py)?) {
        return Ok(None);
    }
    let state = rng.call_method0("getstate")?;
    let version3 = state
        .get_item(0)
        .and_then(|v| v.extract::<i64>())
        .is_ok_and(|v| v == 3);
    Ok(version3.then(|| generator(&state).ok()).flatten())
}

/// Writes a generator back into the `random.Random` it was read from.
fn put_generator(py: Python<'_>, rng: &Bound<'_, PyAny>, r: &PyRandom) -> PyResult<()> {
    rng.call_method1("setstate", (rng_state(py, r)?,))?;
    Ok(())
}

/// A built-in bot decided in Rust: `Bot("greedy", {"samples": 2})`, then `start`,
/// `choose(view, legal, rng)` and, for `objective`, `observe_move(seat, action)`.
#[pyclass(name = "Bot", module = "arena._native")]
pub struct PyBot {
    inner: Inner,
    name: String,
    seat: u8,
    points: Vec<f64>,
}

/// The card points a view plans with: its own when a caller gave it some (an archetype's
/// weighted ones), else its card set's.
fn view_points(py: Python<'_>, view: &PyView, out: &mut Vec<f64>) -> PyResult<()> {
    out.clear();
    if view.objects.points_set {
        out.extend(view.objects.card_points.bind(py).extract::<Vec<f64>>()?);
    } else {
        out.extend(view.v.b.card_set.points.iter().map(|&p| p as f64));
    }
    Ok(())
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
        let points = &self.points;
        if matches!(self.inner, Inner::Mcts(_) | Inner::Elite(_)) {
            // A search draws thousands of numbers: from a copy of the generator's state
            // here, written back after (the same numbers as through its methods).
            if let Some(mut r) = exact_generator(py, rng)? {
                let action = guard(py, context, || {
                    Ok(match &mut self.inner {
                        Inner::Mcts(m) => m.choose(view, legal, points, &mut r),
                        Inner::Elite(e) => e.choose(view, legal, points, &mut r),
                        _ => unreachable!("a search"),
                    })
                })?;
                put_generator(py, rng, &r)?;
                return Ok(action);
            }
        }
        let mut draws = PythonDraws::new(rng)?;
        let action = guard(py, context, || {
            Ok(match &mut self.inner {
                Inner::Greedy(g) => g.choose(view, legal, points, &mut draws),
                Inner::Objective(o) => o.choose(view, legal, points, &mut draws),
                Inner::Mcts(m) => m.choose(view, legal, points, &mut draws),
                Inner::Learned(l) => l.choose(view, legal, points, &mut draws),
                Inner::Elite(e) => e.choose(view, legal, points, &mut draws),
            })
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
            Some(params) => params_of(params)?,
            None => Vec::new(),
        };
        let checked =
            |entry: &registry::BotEntry| entry.check(&given).map_err(PyValueError::new_err);
        let inner = match name {
            "greedy" => Inner::Greedy(Box::new(Greedy::from_params(&checked(
                &takenoko::bots::greedy::ENTRY,
            )?))),
            "objective" => Inner::Objective(Box::new(Objective::new(Settings::from_params(
                &checked(&takenoko::bots::objective::ENTRY)?,
            )))),
            "mcts" => Inner::Mcts(Box::new(Mcts::new(MctsSettings::from_params(&checked(
                &takenoko::bots::mcts::ENTRY,
            )?)))),
            "elite" => Inner::Elite(Box::new(Elite::new(
                EliteSettings::from_params(&checked(&takenoko::bots::elite::ENTRY)?),
                takenoko::bots::learned::builtin(),
            ))),
            "learned" => Inner::Learned(Box::new(Learned::new(
                checked(&takenoko::bots::learned::ENTRY)?.int("samples") as u32,
                takenoko::bots::learned::builtin(),
            ))),
            other => {
                return Err(PyValueError::new_err(format!(
                    "no native bot {other:?} to decide for a Python bot (these: greedy, objective, mcts, elite, learned)"
                )))
            }
        };
        Ok(PyBot {
            inner,
            name: name.to_string(),
            seat: 0,
            points: Vec::new(),
        })
    }

    /// A new game: this bot plays `seat` of `players`.
    #[pyo3(signature = (seat, players = 2))]
    fn start(&mut self, seat: u8, players: u8) -> PyResult<()> {
        if !(2..=4).contains(&players) || seat >= players {
            return Err(PyValueError::new_err(format!(
                "seat {seat} of {players} players is no seat of a game"
            )));
        }
        self.seat = seat;
        match &mut self.inner {
            Inner::Objective(o) => o.start(),
            Inner::Mcts(m) => m.start(seat, players),
            Inner::Greedy(_) | Inner::Learned(_) | Inner::Elite(_) => {}
        }
        Ok(())
    }

    /// Iterations the last decision searched (`mcts`; `elite`: the leaves it valued; 0 for
    /// the other bots).
    #[getter]
    fn last_iterations(&self) -> u64 {
        match &self.inner {
            Inner::Mcts(m) => m.last_iterations,
            Inner::Elite(e) => e.last_evaluations,
            _ => 0,
        }
    }

    /// A move of the game (`objective` remembers where opponents' pandas went).
    fn observe_move(&mut self, seat: u8, action: Action) {
        let entry = takenoko::history::Entry::Move {
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

    /// One of `legal` for the view's seat, drawing from `rng` as the Python bot would.
    fn choose(
        &mut self,
        py: Python<'_>,
        view: PyRef<'_, PyView>,
        legal: Vec<Action>,
        rng: &Bound<'_, PyAny>,
    ) -> PyResult<Action> {
        if legal.is_empty() {
            return Err(PyValueError::new_err("no legal action to choose from"));
        }
        view_points(py, &view, &mut self.points)?;
        self.decide(py, &view.v, &legal, rng)
    }
}
