//! The native referee from Python: one game per call (`play_game`), or a batch of a
//! tournament's games (`play_batch`), the records streamed back in chunks.
//!
//! Native bots play natively; a Python bot (any other, an isolated one behind its proxy)
//! is called back through the *table*, the Python object of `arena/play/referee.py` that holds
//! the Python seats, the alarm and the hooks.  A game of native bots only, without hooks,
//! runs with the GIL released.  A panic never crosses into Python: the game is rebuilt as
//! it stood from its seed and the decisions made, and recorded as failed by the seat whose
//! turn it was, with an `ArenaError`'s sentence naming the game and the seat.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};

use takenoko::actions::Action;
use takenoko::batch::{Batch, Finished, Game, Participant};
use takenoko::bots::registry::BotEntry;
use takenoko::bots::{self, Bot, Value, REGISTRY};
use takenoko::json::Json;
use takenoko::placement::Placement;
use takenoko::referee::{
    conclude, native_choice, play_caught, tell, Concluded, Decision, Failure, NativeSeats, Outcome,
    Progress, RecordParts, Seats, Setup,
};
use takenoko::rng::PyRandom;
use takenoko::state::State;
use takenoko::view::View;

use super::draws::{generator, rng_state};
use super::{
    arena_error, core_cards, core_options, entry_list, raise_quoting, result_dict, to_json,
    PyState, PyView,
};

/// Whether the test-only bots of the registry may be made (`_test_bots`).
static TEST_BOTS: AtomicBool = AtomicBool::new(false);

fn tests_on() -> bool {
    TEST_BOTS.load(Ordering::Relaxed)
}

// ---------------------------------------------------------------------- bots and records

/// The names of the native bots (the test-only ones while the test hook is on).
#[pyfunction]
pub fn bot_names() -> Vec<&'static str> {
    REGISTRY
        .iter()
        .filter(|e| tests_on() || !e.test_only)
        .map(|e| e.name)
        .collect()
}

fn entry(name: &str) -> PyResult<&'static BotEntry> {
    bots::entry(name, tests_on())
        .ok_or_else(|| PyValueError::new_err(format!("no native bot {name:?}")))
}

/// A bot's parameters from a Python dict (`Value::params_of`: a ValueError quotes a value
/// that is no bool, int, float or str).
pub(crate) fn params_of(params: &Bound<'_, PyAny>) -> PyResult<Vec<(String, Value)>> {
    let mut foreign = Vec::new();
    let data = to_json(params, &mut foreign)?;
    Value::params_of(&data).map_err(|e| raise_quoting(params.py(), e, &foreign))
}

/// Why the native bot refuses these parameters (None: it takes them), as
/// `Bot.check_params` says it.
#[pyfunction]
pub fn check_bot_params(name: &str, params: &Bound<'_, PyDict>) -> PyResult<Option<String>> {
    Ok(entry(name)?.check(&params_of(params.as_any())?).err())
}

/// Test hook: while on, the registry's test-only bots (`panic`) can be made.
#[pyfunction]
pub fn _test_bots(on: bool) {
    TEST_BOTS.store(on, Ordering::Relaxed);
}

/// A native participant from Python: its bot's name, its parameters, its name.
fn participant(bot: &str, params: &Bound<'_, PyDict>, name: String) -> PyResult<Participant> {
    Participant::new(bot, &params_of(params.as_any())?, name, tests_on())
        .map_err(PyValueError::new_err)
}

/// The fields `wanted` of a record line (those the runner's parent checks and counts) as a
/// dict, the whole line checked to be one JSON object; ValueError when it is not.  What
/// `orjson.loads` would tell of them, without building the rest (the moves are most of a
/// record).
#[pyfunction]
pub fn record_fields(py: Python<'_>, line: &str, wanted: Vec<String>) -> PyResult<PyObject> {
    let wanted: Vec<&str> = wanted.iter().map(String::as_str).collect();
    let fields = py
        .allow_threads(|| takenoko::json::top_fields(line, &wanted))
        .map_err(PyValueError::new_err)?;
    super::from_json(py, &Json::Object(fields))
}

/// The record line of a game the Python loop played on `cards`, from its facts as one JSON
/// text (`arena.runs.records.make_record`), written by the core's one writer of record
/// bytes (`takenoko::facts`); ValueError names a malformed fact.
#[pyfunction]
pub fn record_line(py: Python<'_>, cards: &Bound<'_, PyAny>, facts: &str) -> PyResult<String> {
    let set = core_cards(py, cards)?;
    takenoko::facts::record_line(&set, facts).map_err(PyValueError::new_err)
}

// ---------------------------------------------------------------------- the seats

/// The seats of a game with Python in it: native bots, Python bots called back through the
/// table, and the hooks.
struct Mixed<'py> {
    py: Python<'py>,
    natives: Vec<Option<Box<dyn Bot>>>,
    table: Option<Bound<'py, PyAny>>,
    on_decision: Option<Bound<'py, PyAny>>,
    /// The table wants the history's entries (observers or `on_event`), and the state with
    /// them (`on_event`).
    publishes: bool,
    wants_state: bool,
    /// A core state following the game, which `on_event` is shown (the table makes a
    /// `GameState` of it once).
    mirror: Option<Py<PyState>>,
    /// The first error of a callback (not a seat's fault): the game stops and it is raised.
    error: Option<PyErr>,
    /// The native seats' view, made again for each decision.
    view: Option<View>,
}

impl<'py> Mixed<'py> {
    fn stop(&mut self, e: PyErr) -> Decision {
        self.error.get_or_insert(e);
        Decision::Stop
    }

    /// The mirror, brought up to `state`.
    fn follow(&mut self, state: &State) -> PyResult<Bound<'py, PyState>> {
        if let Some(mirror) = &self.mirror {
            let mirror = mirror.bind(self.py).clone();
            mirror.borrow_mut().st.catch_up(state);
            return Ok(mirror);
        }
        let st = state.copy(self.wants_state);
        let mirror = Bound::new(self.py, PyState { st })?;
        self.mirror = Some(mirror.clone().unbind());
        Ok(mirror)
    }

    fn python_choice(
        &mut self,
        seat: u8,
        state: &State,
        legal: &[Action],
    ) -> PyResult<(Decision, f64)> {
        let py = self.py;
        let v = View::of_arg(state, &Json::Int(seat.into())).map_err(|e| super::raise(py, e))?;
        let view = Py::new(py, PyView { v })?;
        let legal = PyList::new(py, legal.iter().copied())?;
        if let Some(f) = &self.on_decision {
            f.call1((seat,))?;
        }
        let table = self.table.as_ref().expect("a Python seat has a table");
        let start = Instant::now();
        let answer = table.call_method1("choose", (seat, view, legal))?;
        let elapsed = start.elapsed().as_secs_f64();
        // A legal action (the table checks it), or `(kind, message)`: a fault, or with no
        // kind something that is no legal action, as the message names it.
        let decision = match answer.extract::<u32>() {
            Ok(a) => Decision::Action(a),
            Err(_) => match answer.extract::<(String, String)>()? {
                (kind, message) if kind.is_empty() => Decision::Returned(message),
                (kind, message) => Decision::Fault(kind, message),
            },
        };
        Ok((decision, elapsed))
    }
}

impl Seats for Mixed<'_> {
    fn start(
        &mut self,
        seat: u8,
        players: u8,
        options: &Arc<takenoko::options::RuleOptions>,
    ) -> Decision {
        if let Some(bot) = &mut self.natives[seat as usize] {
            bot.start(seat, players, options);
            return Decision::Action(0);
        }
        let table = self.table.as_ref().expect("a Python seat has a table");
        // None, or `(kind, message)` for the seat's fault.
        let answer = table.call_method1("start", (seat,));
        match answer.and_then(|a| a.extract::<Option<(String, String)>>()) {
            Ok(None) => Decision::Action(0),
            Ok(Some((kind, message))) => Decision::Fault(kind, message),
            Err(e) => self.stop(e),
        }
    }

    fn choose(&mut self, seat: u8, state: &State, legal: &[Action]) -> (Decision, f64) {
        if let Some(bot) = self.natives[seat as usize].as_mut() {
            // The view first, then the hook, then the clock (as the reference).
            let (hook, error) = (&self.on_decision, &mut self.error);
            let before = || {
                let Some(Err(e)) = hook.as_ref().map(|f| f.call1((seat,))) else {
                    return true;
                };
                error.get_or_insert(e);
                false
            };
            return native_choice(bot.as_mut(), &mut self.view, (seat, state, legal), before);
        }
        match self.python_choice(seat, state, legal) {
            Ok(answer) => answer,
            Err(e) => (self.stop(e), 0.0),
        }
    }

    fn publish(&mut self, state: &State, from: usize) -> bool {
        tell(self.natives.iter_mut().flatten(), state, from);
        let history = state.history.0.as_deref().unwrap_or(&[]);
        if !self.publishes || from >= history.len() {
            return true;
        }
        let mut run = || -> PyResult<()> {
            let py = self.py;
            let entries = entry_list(py, &history[from..])?;
            let shown: PyObject = if self.wants_state {
                self.follow(state)?.into_any().unbind()
            } else {
                py.None()
            };
            let table = self.table.as_ref().expect("publishing needs a table");
            table.call_method1("publish", (entries, shown))?;
            Ok(())
        };
        match run() {
            Ok(()) => true,
            Err(e) => {
                self.stop(e);
                false
            }
        }
    }

    fn finish(&mut self, state: &State) {
        let Some(table) = self.table.clone() else {
            return;
        };
        if let Err(e) =
            result_dict(self.py, state, &[]).and_then(|r| table.call_method1("finish", (r,)))
        {
            self.stop(e);
        }
    }
}

// ---------------------------------------------------------------------- a game

/// A game played, in plain values: its record line, the `(seat, kind, message)` of the fault
/// that ended it, thinking time per seat in seconds (the record rounds them), the sentence of
/// the panic it met (it is recorded as failed), its final state with its history, and where
/// each native seat's generator ended, as `random.Random.getstate()` gives it (None for a
/// Python seat).
type Played<'py> = (
    String,
    Option<(u8, String, String)>,
    Vec<f64>,
    Option<String>,
    PyState,
    Vec<Option<Bound<'py, PyTuple>>>,
);

/// A native seat as Python hands it over: (native name, params, generator).
type NativeSeat<'py> = (String, Bound<'py, PyDict>, Bound<'py, PyAny>);

fn failure_error(py: Python<'_>, failure: Failure) -> PyErr {
    match failure {
        Failure::Refused(e) => super::raise(py, e),
        Failure::Panic(m) => arena_error(py, m),
    }
}

/// The native bots of a game's seats (None: a Python seat), each from its parameters and
/// its generator's state.
fn native_bots(seats: &[Option<NativeSeat<'_>>]) -> PyResult<Vec<Option<Box<dyn Bot>>>> {
    seats
        .iter()
        .map(|seat| match seat {
            Some((name, params, rng)) => Ok(Some(
                participant(name, params, String::new())?.make(generator(rng)?),
            )),
            None => Ok(None),
        })
        .collect()
}

/// What a game calls back in Python: the table of its Python seats and hooks, the
/// tournament's `on_decision`, and whether `on_event` wants the state.
struct Callbacks<'py> {
    table: Option<Bound<'py, PyAny>>,
    on_decision: Option<Bound<'py, PyAny>>,
    wants_state: bool,
}

/// How the referee's loop ended (or panicked), and the native seats' generators after it.
type SeatsPlayed = (Outcome, Vec<Option<PyRandom>>);

/// The game played: with the Python seats and hooks called back (the GIL held), or, with
/// none, by the native seats alone with the GIL released.  A callback's exception is
/// raised here once the game stops.
fn play_seats<'py>(
    py: Python<'py>,
    setup: &Setup,
    natives: Vec<Option<Box<dyn Bot>>>,
    calls: Callbacks<'py>,
    progress: &mut Progress,
) -> PyResult<SeatsPlayed> {
    let python =
        natives.iter().any(Option::is_none) || calls.on_decision.is_some() || calls.wants_state;
    if !python {
        let mut only = NativeSeats::new(natives.into_iter().flatten().collect());
        let outcome = py.allow_threads(|| play_caught(setup, &mut only, progress));
        let rngs = only.bots.iter().map(|b| Some(b.rng().clone())).collect();
        return Ok((outcome, rngs));
    }
    let publishes = match &calls.table {
        Some(t) => t.getattr("publishes")?.extract::<bool>()?,
        None => false,
    };
    let mut mixed = Mixed {
        py,
        natives,
        table: calls.table,
        on_decision: calls.on_decision,
        publishes,
        wants_state: calls.wants_state,
        mirror: None,
        error: None,
        view: None,
    };
    let outcome = play_caught(setup, &mut mixed, progress);
    if let Some(e) = mixed.error.take() {
        return Err(e);
    }
    let rngs = mixed
        .natives
        .iter()
        .map(|b| b.as_ref().map(|b| b.rng().clone()))
        .collect();
    Ok((outcome, rngs))
}

/// One game (what `arena.play.match.play_game` asks for under the native engine).
///
/// `seats[i]` is `(native name, params, generator)` for a native bot (the generator as
/// `getstate()` gives it, or an int seed), None for a Python bot, which `table.choose` is
/// asked for.  `head` is the start of the record, `{"game":...` and the caller's meta;
/// `parts` the record's options and card set as JSON text.  A callback's exception is
/// raised once the game stops; a panic raises an `ArenaError` naming the game and seat
/// whose `played` holds the game recorded as failed.
#[pyfunction]
#[pyo3(signature = (players, seed, options, cards, dice, move_time, seats, table, on_decision,
                    wants_state, head, names, parts, label, placements = vec![]))]
#[allow(clippy::too_many_arguments)]
pub fn play_game<'py>(
    py: Python<'py>,
    players: u8,
    seed: i128,
    options: &Bound<'_, PyAny>,
    cards: &Bound<'_, PyAny>,
    dice: Vec<u8>,
    move_time: Option<(f64, String)>,
    seats: Vec<Option<NativeSeat<'_>>>,
    table: Option<Bound<'_, PyAny>>,
    on_decision: Option<Bound<'_, PyAny>>,
    wants_state: bool,
    head: &str,
    names: Vec<String>,
    parts: (String, String),
    label: &str,
    placements: Vec<(i64, Option<i64>, Option<i64>)>,
) -> PyResult<Played<'py>> {
    if seats.len() != players as usize || names.len() != players as usize {
        return Err(PyValueError::new_err("one seat and one name per player"));
    }
    let setup = Setup {
        players,
        seed,
        options: core_options(py, options)?,
        cards: core_cards(py, cards)?,
        dice,
        move_time,
        placements: placements_of(placements),
    };
    let parts = RecordParts {
        options: parts.0,
        card_set: parts.1,
    };
    let natives = native_bots(&seats)?;
    let mut progress = Progress::default();
    let callbacks = Callbacks {
        table,
        on_decision,
        wants_state,
    };
    let (outcome, rngs) = play_seats(py, &setup, natives, callbacks, &mut progress)?;
    let Concluded {
        state,
        seconds,
        fault,
        failure,
        line,
    } = conclude(outcome, &setup, &progress, label, head, &names, &parts)
        .map_err(|f| failure_error(py, f))?;
    let rngs = rngs.iter().map(|r| r.as_ref().map(|r| rng_state(py, r)));
    let rngs = rngs.map(Option::transpose).collect::<PyResult<_>>()?;
    let error = fault.map(|f| (f.seat, f.kind, f.message));
    let played = (
        line,
        error,
        seconds,
        failure.clone(),
        PyState { st: state },
        rngs,
    );
    if let Some(message) = failure {
        let err = arena_error(py, message);
        err.value(py).setattr("played", played)?;
        return Err(err);
    }
    Ok(played)
}

// ---------------------------------------------------------------------- a batch

/// A batch's game as Python gives it: `(seed, participant per seat, head, label, card set
/// (an index of the batch's card sets), placements)`.
type BatchGame = (i128, Vec<usize>, String, String, usize, Vec<PlacementArgs>);

/// A placement as Python gives it: `(card index, seat or None, depth or None)`.
type PlacementArgs = (i64, Option<i64>, Option<i64>);

/// An intervention's placements from Python's tuples.
fn placements_of(items: Vec<PlacementArgs>) -> Vec<Placement> {
    items
        .into_iter()
        .map(|(card, seat, depth)| Placement { card, seat, depth })
        .collect()
}

/// Games of native bots only, one after another, the GIL released while each plays
/// (`arena.tournament` workers and the scripts; the games themselves: `takenoko::batch`).
///
/// `participants[p]` is `(native name, params, name)`: a bot is seeded as
/// `arena.play.registry.make_bot` seeds it, from the game seed, its seat and `name`.
/// `card_sets` are the batch's card sets with their records' `card_set` as JSON text;
/// `games` are `(seed, participant per seat, head, label, card set index, placements)`, the
/// placements an experiment's intervention (`arena.play.intervention`, empty for a plain game).
/// Finished games go to `emit` as a list every `every` games or `seconds` seconds, and at
/// the end; Ctrl-C (a signal's exception) is raised between two games once the finished
/// ones are emitted.
#[pyfunction]
#[pyo3(signature = (players, options, card_sets, move_time, participants, games, options_part,
                    emit, every = 64, seconds = 0.05))]
#[allow(clippy::too_many_arguments)]
pub fn play_batch(
    py: Python<'_>,
    players: u8,
    options: &Bound<'_, PyAny>,
    card_sets: Vec<(Bound<'_, PyAny>, String)>,
    move_time: Option<(f64, String)>,
    participants: Vec<(String, Bound<'_, PyDict>, String)>,
    games: Vec<BatchGame>,
    options_part: String,
    emit: &Bound<'_, PyAny>,
    every: usize,
    seconds: f64,
) -> PyResult<()> {
    let batch = Batch {
        players,
        options: core_options(py, options)?,
        sets: card_sets
            .into_iter()
            .map(|(cards, card_set)| {
                let options = options_part.clone();
                Ok((core_cards(py, &cards)?, RecordParts { options, card_set }))
            })
            .collect::<PyResult<_>>()?,
        move_time,
        participants: participants
            .iter()
            .map(|(bot, params, name)| participant(bot, params, name.clone()))
            .collect::<PyResult<_>>()?,
    };
    let games: Vec<Game> = games
        .into_iter()
        .map(|(seed, seats, head, label, set, placements)| {
            let placements = placements_of(placements);
            Game {
                seed,
                seats,
                head,
                label,
                set,
                placements,
            }
        })
        .collect();
    batch.check(&games).map_err(PyValueError::new_err)?;
    let mut pending: Vec<Finished> = Vec::new();
    let mut since = Instant::now();
    let flush = |pending: &mut Vec<Finished>| -> PyResult<()> {
        if !pending.is_empty() {
            emit.call1((PyList::new(py, pending.drain(..))?,))?;
        }
        Ok(())
    };
    for (k, game) in games.into_iter().enumerate() {
        match py.allow_threads(|| batch.play(k, game)) {
            Ok(f) => pending.push(f),
            Err(f) => {
                flush(&mut pending)?;
                return Err(failure_error(py, f));
            }
        }
        if pending.len() >= every || since.elapsed().as_secs_f64() >= seconds {
            flush(&mut pending)?;
            since = Instant::now();
        }
        if let Err(e) = py.check_signals() {
            flush(&mut pending)?;
            return Err(e);
        }
    }
    flush(&mut pending)
}
