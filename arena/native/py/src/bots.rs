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
use takenoko::bots::greedy::Greedy;
use takenoko::bots::objective::{Objective, Settings};
use takenoko::bots::registry;
use takenoko::grid::CellSet;
use takenoko::view::View;

use super::referee::params_of;
use super::{guard, random_class, PyState, PyView, PythonDraws};

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
}

enum Inner {
    Greedy(Box<Greedy>),
    Objective(Box<Objective>),
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
    if view.points_set {
        out.extend(view.card_points.bind(py).extract::<Vec<f64>>()?);
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
        let exact = rng.get_type().is(&random_class(py)?);
        let mut draws = PythonDraws {
            getrandbits: rng.getattr("getrandbits")?,
            rng,
            exact,
            error: None,
        };
        let (name, seat, round) = (self.name.clone(), view.seat, view.b.round);
        let context = move || format!("the {name} bot of seat {seat}, round {round}");
        let points = &self.points;
        let action = guard(py, context, || {
            Ok(match &mut self.inner {
                Inner::Greedy(g) => g.choose(view, legal, points, &mut draws),
                Inner::Objective(o) => o.choose(view, legal, points, &mut draws),
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
    /// The bot `name` (`greedy` or `objective`) with these parameters (the Python bot's,
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
            other => {
                return Err(PyValueError::new_err(format!(
                    "no native bot {other:?} to decide for a Python bot (these: greedy, objective)"
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

    /// A new game: this bot plays `seat`.
    fn start(&mut self, seat: u8) {
        self.seat = seat;
        if let Inner::Objective(o) = &mut self.inner {
            o.start();
        }
    }

    /// A move of the game (`objective` remembers where opponents' pandas went).
    fn observe_move(&mut self, seat: u8, action: Action) {
        if let Inner::Objective(o) = &mut self.inner {
            let entry = takenoko::history::Entry::Move {
                round: 0,
                seat,
                action,
            };
            o.observe(self.seat, &entry);
        }
    }

    /// The cells where opponents' pandas were seen, as `objective` has them (`observe`),
    /// or sets them (a Python caller keeps its own set).
    #[pyo3(signature = (cells))]
    fn set_eaten_by_others(&mut self, cells: Vec<u16>) -> PyResult<()> {
        if let Inner::Objective(o) = &mut self.inner {
            let mut set = CellSet::default();
            for c in cells {
                if (c as usize) < takenoko::grid::SIZE {
                    set.insert(c);
                }
            }
            o.eaten_by_others = set;
        }
        Ok(())
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

    /// `objective`'s values of the turn's first actions on a sample (`planned_values`):
    /// a dict, in the order of `legal`.
    fn planned_values<'py>(
        &mut self,
        py: Python<'py>,
        view: PyRef<'_, PyView>,
        state: PyRef<'_, PyState>,
        legal: Vec<Action>,
        rng: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyDict>> {
        view_points(py, &view, &mut self.points)?;
        let Inner::Objective(o) = &mut self.inner else {
            return Err(PyValueError::new_err("planned_values is objective's"));
        };
        let exact = rng.get_type().is(&random_class(py)?);
        let mut draws = PythonDraws {
            getrandbits: rng.getattr("getrandbits")?,
            rng,
            exact,
            error: None,
        };
        let (seat, round) = (view.v.seat, view.v.b.round);
        let context = move || format!("the objective planner of seat {seat}, round {round}");
        let points = &self.points;
        let values = guard(py, context, || {
            Ok(o.planned_values(&view.v, &state.st, &legal, points, &mut draws))
        })?;
        if let Some(e) = draws.error {
            return Err(e);
        }
        let out = PyDict::new(py);
        for (a, v) in values {
            out.set_item(a, v)?;
        }
        Ok(out)
    }
}
