//! The one writer of record bytes, for the Python loop: the game's facts in, the record line
//! out, written by the core's `referee::record_of` as the core's referee writes its own
//! games' (so a record has one writer, whichever loop and engine played it).

use arrayvec::ArrayVec;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyInt, PyTuple};

use takenoko::history::{
    Entry, DEALT, DREW, DREW_PLOTS, EMPEROR, GAME_OVER, MOVE, RETURNED, ROLLED,
};
use takenoko::referee::{self, Facts, Fault, RecordParts};
use takenoko::state::GameResult;

use super::core_cards;
use super::referee::{placements_of, PlacementArgs};

/// A result as Python holds it (``GameResult``'s fields, the completed cards by their index
/// in the game's set): scores, panda points, winners, tiebreak, emperor, capped, rounds,
/// completed.
type ResultArgs = (
    Vec<i64>,
    Vec<i64>,
    Vec<u8>,
    String,
    Option<u8>,
    bool,
    u32,
    Vec<Vec<u8>>,
);

fn bad(what: String) -> PyErr {
    PyValueError::new_err(what)
}

/// The core's result from Python's.
fn result_of(r: ResultArgs) -> PyResult<GameResult> {
    let tiebreak = match r.3.as_str() {
        "none" => "none",
        "panda" => "panda",
        "shared" => "shared",
        other => return Err(bad(format!("a tiebreak {other:?}"))),
    };
    Ok(GameResult {
        scores: r.0,
        panda_points: r.1,
        winners: r.2,
        tiebreak,
        emperor: r.4,
        capped: r.5,
        rounds: r.6,
        completed: r.7,
        excluded: vec![],
    })
}

/// A history entry from the reference's tuple (``arena/engine/history.py``'s form, which the
/// core's state gives Python too).
fn entry_of(item: &Bound<'_, PyAny>) -> PyResult<Entry> {
    let t = item.downcast::<PyTuple>()?;
    let tag: u8 = t.get_item(0)?.extract()?;
    let round: u32 = t.get_item(1)?.extract()?;
    let at = |i: usize| t.get_item(i);
    Ok(match tag {
        MOVE => Entry::Move {
            round,
            seat: at(2)?.extract()?,
            action: at(3)?.extract()?,
        },
        ROLLED => Entry::Rolled {
            round,
            face: at(2)?.extract()?,
        },
        DREW_PLOTS => {
            let tiles: Vec<u8> = at(2)?.extract()?;
            Entry::DrewPlots {
                round,
                tiles: ArrayVec::try_from(&tiles[..])
                    .map_err(|_| bad("a plot draw of more than 3 tiles".into()))?,
            }
        }
        DREW => Entry::Drew {
            round,
            card: at(2)?.extract()?,
        },
        RETURNED => Entry::Returned {
            round,
            card: at(2)?.extract()?,
        },
        DEALT => Entry::Dealt {
            round,
            seat: at(2)?.extract()?,
            hand: at(3)?.extract()?,
        },
        EMPEROR => Entry::Emperor {
            round,
            seat: at(2)?.extract()?,
        },
        GAME_OVER => Entry::GameOver { round },
        _ => return Err(bad(format!("a history entry tagged {tag}"))),
    })
}

/// The record line of a game the Python loop played, from its facts: `head` (`{"game":...`
/// and the caller's meta), the seed (any int: its digits), the players, the game's card
/// set, the result (the faulty seat excluded), the history's tuples, the seat names, the
/// seconds, the fault `(seat, kind, message)`, the record's options and card-set parts
/// (JSON text) and the intervention's placements.
#[pyfunction]
#[pyo3(signature = (head, seed, players, cards, result, history, names, seconds, error, parts,
                    placements))]
#[allow(clippy::too_many_arguments)]
pub fn record_line(
    py: Python<'_>,
    head: &str,
    seed: &Bound<'_, PyInt>,
    players: u8,
    cards: &Bound<'_, PyAny>,
    result: ResultArgs,
    history: &Bound<'_, PyAny>,
    names: Vec<String>,
    seconds: Vec<f64>,
    error: Option<(u8, String, String)>,
    parts: (String, String),
    placements: Vec<PlacementArgs>,
) -> PyResult<String> {
    if seed.is_instance_of::<PyBool>() {
        return Err(bad("a seed that is a bool".into()));
    }
    let seed = seed.str()?.to_string();
    let set = core_cards(py, cards)?;
    let entries = history
        .try_iter()?
        .map(|item| entry_of(&item?))
        .collect::<PyResult<Vec<Entry>>>()?;
    let result = result_of(result)?;
    let fault = error.map(|(seat, kind, message)| Fault {
        seat,
        kind,
        message,
    });
    let facts = Facts {
        seed: &seed,
        players,
        cards: &set,
        result: &result,
        history: &entries,
    };
    let parts = RecordParts {
        options: parts.0,
        card_set: parts.1,
    };
    Ok(referee::record_of(
        head,
        &facts,
        &names,
        &seconds,
        fault.as_ref(),
        &parts,
        &placements_of(placements),
    ))
}
