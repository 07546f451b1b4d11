//! The learned value's side of the binding (issue 51): the feature names, one position's
//! features, and self-play games played in the core for `scripts/train_value.py`.

use std::sync::Arc;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use takenoko::bots::features::{features, FEATURES, NAMES};
use takenoko::bots::heuristics::{card_points, Cache};
use takenoko::bots::learned::Mlp;
use takenoko::bots::selfplay::{play, Plan, Player};

use super::{guard, PyState};

/// The names of the learned value's features, in order.
#[pyfunction]
pub fn feature_names() -> Vec<&'static str> {
    NAMES.to_vec()
}

/// The features of a game for `seat` (what that seat may see of it).
#[pyfunction]
pub fn value_features(py: Python<'_>, state: PyRef<'_, PyState>, seat: u8) -> PyResult<Vec<f32>> {
    if seat >= state.st.b.players {
        return Err(PyValueError::new_err(format!(
            "no seat {seat} in this game"
        )));
    }
    let mut out = [0.0f32; FEATURES];
    let points = card_points(&state.st.b);
    let context = || format!("the features of seat {seat}");
    guard(py, context, || {
        features(&state.st, seat, &mut Cache::new(), &points, &mut out);
        Ok(out.to_vec())
    })
}

/// The logit of the chance to win that a weights file's net gives these features.
#[pyfunction]
pub fn value_logit(weights: &str, x: Vec<f32>) -> PyResult<f32> {
    let net = Mlp::from_json(weights).map_err(PyValueError::new_err)?;
    let x: [f32; FEATURES] = x
        .try_into()
        .map_err(|_| PyValueError::new_err(format!("{FEATURES} features expected")))?;
    Ok(net.logit(&x))
}

/// Plays games in the core (`takenoko::bots::selfplay`) and returns a dict: `features`
/// (bytes, little-endian float32, `FEATURES` per row), `game`, `seat`, `ply`, `outcome`,
/// `margin` per row, `lineups` and `outcomes` per game.  `afterstates`: the rows are the
/// positions each decision led to, for the seat that made it (`Plan::afterstates`).  `lineup`
/// names native bots; a name `learned`, or `elite` (with parameters as the arena takes them:
/// `elite:budget=0.25`), takes the weights text at the same place of `weights` (None: the
/// built-in).
#[pyfunction]
#[pyo3(signature = (seed, games, lineup, weights = None, players = 2, paired = false, explore = 0.0, keep = 0.25, samples = 1, afterstates = false))]
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
) -> PyResult<Bound<'py, PyDict>> {
    let weights = weights.unwrap_or_default();
    let mut bots = Vec::with_capacity(lineup.len());
    for (i, name) in lineup.iter().enumerate() {
        let (bot, params) = name.split_once(':').unwrap_or((name, ""));
        let net = || -> PyResult<Arc<Mlp>> {
            Ok(match weights.get(i).cloned().flatten() {
                Some(text) => Arc::new(Mlp::from_json(&text).map_err(PyValueError::new_err)?),
                None => takenoko::bots::learned::builtin(),
            })
        };
        bots.push(match bot {
            "learned" if params.is_empty() => Player::Learned(net()?, samples.max(1)),
            "elite" => Player::elite(params, net()?).map_err(PyValueError::new_err)?,
            _ if params.is_empty() => Player::Named(name.clone()),
            _ => {
                return Err(PyValueError::new_err(format!(
                    "only elite takes parameters in a self-play lineup, not {name:?}"
                )))
            }
        });
    }
    let plan = Plan {
        seed,
        games,
        players,
        lineup: bots,
        paired,
        explore,
        keep,
        afterstates,
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
    Ok(out)
}
