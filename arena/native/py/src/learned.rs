//! The learned value's side of the binding (issue 51): the feature names and self-play
//! games played in the core for `scripts/train_value.py` (a position's features and a
//! net's logit, which only tests ask for, are probes: `takenoko::probe`).

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use takenoko::bots::features::NAMES;
use takenoko::bots::selfplay::{play, Plan, Player};

use super::guard;

/// The names of the learned value's features, in order.
#[pyfunction]
pub fn feature_names() -> Vec<&'static str> {
    NAMES.to_vec()
}

/// Plays games in the core (`takenoko::bots::selfplay`) and returns a dict: `features`
/// (bytes, little-endian float32, `FEATURES` per row), `game`, `seat`, `ply`, `outcome`,
/// `margin` per row, `lineups` and `outcomes` per game.  `afterstates`: the rows are the
/// positions each decision led to, for the seat that made it (`Plan::afterstates`).
/// `distill`: also `estimate_features` (bytes as `features`), `estimate_game`, `_seat`,
/// `_ply`, `_mean` and `_samples`, the `elite` seats' estimates of each candidate they
/// searched (`Plan::distill`).  `lineup`
/// and `weights`: `Player::lineup`'s.
#[pyfunction]
#[pyo3(signature = (seed, games, lineup, weights = None, players = 2, paired = false, explore = 0.0, keep = 0.25, samples = 1, afterstates = false, distill = false))]
#[allow(clippy::too_many_arguments)]
pub fn selfplay<'py>(
    py: Python<'py>,
    seed: u64,
    games: u32,
    lineup: Vec<String>,
    weights: Option<Vec<Option<String>>>,
    players: u8,
    paired: bool,
    explore: f64,
    keep: f64,
    samples: u32,
    afterstates: bool,
    distill: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let lineup = Player::lineup(&lineup, &weights.unwrap_or_default(), samples);
    let lineup = lineup.map_err(PyValueError::new_err)?;
    let plan = Plan {
        seed,
        games,
        players,
        lineup,
        paired,
        explore,
        keep,
        afterstates,
        distill,
    };
    let context = move || format!("self-play games of seed {seed}");
    let rows = guard(py, context, || {
        py.allow_threads(|| play(&plan, |_| {}))
            .map_err(PyValueError::new_err)
    })?;
    let out = PyDict::new(py);
    let bytes: Vec<u8> = rows.features.iter().flat_map(|v| v.to_le_bytes()).collect();
    out.set_item("features", PyBytes::new(py, &bytes))?;
    out.set_item("game", rows.game)?;
    out.set_item("seat", rows.seat)?;
    out.set_item("ply", rows.ply)?;
    out.set_item("outcome", rows.outcome)?;
    out.set_item("margin", rows.margin)?;
    out.set_item("lineups", rows.lineups)?;
    out.set_item("outcomes", rows.outcomes)?;
    if distill {
        let e = rows.estimates;
        let bytes: Vec<u8> = e.features.iter().flat_map(|v| v.to_le_bytes()).collect();
        out.set_item("estimate_features", PyBytes::new(py, &bytes))?;
        out.set_item("estimate_game", e.game)?;
        out.set_item("estimate_seat", e.seat)?;
        out.set_item("estimate_ply", e.ply)?;
        out.set_item("estimate_mean", e.mean)?;
        out.set_item("estimate_samples", e.samples)?;
    }
    Ok(out)
}
