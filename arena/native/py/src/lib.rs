//! The Python binding of takenoko-core: the module `arena._native`.
//!
//! A thin layer of conversions and errors, no rules: `State` and `View` hold the core's
//! state and view and answer the engine API's questions (`arena/engine/api.py`: legal
//! actions, apply, copy, view, determinize, result, positions in and out, named edits) in
//! plain values.  The Python classes `GameState` and `PlayerView` of `arena.engine.native`
//! hold them and make the reference's objects (options, card sets, results, history
//! tuples) of those values.  Every call that runs the rules goes through `guard`, so a
//! Rust panic never crosses into Python: it becomes an `ArenaError` naming the game and
//! the seat.
#![forbid(unsafe_code)]

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::sync::GILOnceCell;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

use takenoko::actions::Kind;
use takenoko::components::CardSet;
use takenoko::error::Error;
use takenoko::facts;
use takenoko::grid::GRID;
use takenoko::history::Entry;
use takenoko::json::Json;
use takenoko::options::RuleOptions;
use takenoko::placement;
use takenoko::position;
use takenoko::referee::panic_text;
use takenoko::state::{Board, State};
use takenoko::view::View;

use draws::PythonDraws;

mod bots;
mod draws;
mod learned;
mod referee;

// ---------------------------------------------------------------------- Python values

/// A class or function of the reference package, looked up once.
fn reference<'py>(
    py: Python<'py>,
    cell: &'static GILOnceCell<Py<PyAny>>,
    module: &str,
    name: &str,
) -> PyResult<Bound<'py, PyAny>> {
    Ok(cell
        .get_or_try_init(py, || -> PyResult<Py<PyAny>> {
            Ok(py.import(module)?.getattr(name)?.unbind())
        })?
        .bind(py)
        .clone())
}

macro_rules! reference_item {
    ($fn:ident, $module:literal, $name:literal) => {
        fn $fn(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
            static CELL: GILOnceCell<Py<PyAny>> = GILOnceCell::new();
            reference(py, &CELL, $module, $name)
        }
    };
}

reference_item!(random_class, "random", "Random");
reference_item!(int_type, "builtins", "int");

/// The reference's exception for a refusal of the core.
fn raise(py: Python<'_>, e: Error) -> PyErr {
    raise_quoting(py, e, &[])
}

/// The reference's exception for a refusal of the core, its sentence made by
/// `arena.engine.errors.core_refusal` from the kind's name, field, phrase and value;
/// `foreign` holds the input's values JSON has no form for (`to_json`), handed back as
/// they were given.
fn raise_quoting(py: Python<'_>, e: Error, foreign: &[Py<PyAny>]) -> PyErr {
    let made = || -> PyResult<PyErr> {
        let kwargs = PyDict::new(py);
        kwargs.set_item("field", &e.field)?;
        if let Some(v) = &e.value {
            kwargs.set_item("value", from_json_with(py, v, foreign)?)?;
        }
        let refusal = py.import("arena.engine.errors")?.getattr("core_refusal")?;
        let exc = refusal.call((e.kind.name(), &e.message), Some(&kwargs))?;
        Ok(PyErr::from_value(exc))
    };
    made().unwrap_or_else(|err| err)
}

static PLANTED_PANIC: AtomicBool = AtomicBool::new(false);

/// Runs the rules; a panic becomes an `ArenaError` naming `context` (the game and seat).
fn guard<T>(
    py: Python<'_>,
    context: impl FnOnce() -> String,
    f: impl FnOnce() -> PyResult<T>,
) -> PyResult<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(payload) => Err(arena_error(
            py,
            format!(
                "the native engine failed ({}): {}; this is a bug of the engine, please report it",
                context(),
                panic_text(payload.as_ref())
            ),
        )),
    }
}

reference_item!(arena_error_class, "arena.engine.errors", "ArenaError");

/// An `ArenaError` with this sentence (a panic of the engine).
fn arena_error(py: Python<'_>, message: String) -> PyErr {
    match arena_error_class(py).and_then(|c| c.call1((message,))) {
        Ok(e) => PyErr::from_value(e),
        Err(e) => e,
    }
}

/// What names a game in a panic's message, written only if one happens.
fn game_context(st: &State) -> impl FnOnce() -> String {
    let (seed, round, seat) = (st.seed, st.b.round, st.b.current);
    move || format!("game seed {seed}, round {round}, seat {seat}")
}

fn plant_check() {
    if PLANTED_PANIC.load(Ordering::Relaxed) {
        panic!("a panic planted by the test hook");
    }
}

/// Python value -> JSON value (what a position or options dict holds); a value JSON has no
/// form for is kept in `foreign`, the JSON holding its index, so that a refusal quoting it
/// hands it back to Python as it was (`raise_quoting`).
fn to_json(v: &Bound<'_, PyAny>, foreign: &mut Vec<Py<PyAny>>) -> PyResult<Json> {
    let mut keep = || {
        foreign.push(v.clone().unbind());
        Ok(Json::Foreign(foreign.len() - 1))
    };
    if v.is_none() {
        return Ok(Json::Null);
    }
    if v.is_exact_instance_of::<PyBool>() {
        return Ok(Json::Bool(v.extract()?));
    }
    if v.is_instance_of::<PyInt>() && !v.is_instance_of::<PyBool>() {
        return match v.extract::<i128>() {
            Ok(i) => Ok(Json::Int(i)),
            Err(_) => Ok(Json::Big(int_type(v.py())?.call1((v,))?.str()?.to_string())),
        };
    }
    if v.is_instance_of::<PyFloat>() {
        return Ok(Json::Float(v.extract()?));
    }
    if v.is_instance_of::<PyString>() {
        return Ok(Json::Str(v.extract()?));
    }
    if let Ok(list) = v.downcast::<PyList>() {
        return Ok(Json::List(
            list.iter()
                .map(|x| to_json(&x, foreign))
                .collect::<PyResult<_>>()?,
        ));
    }
    if let Ok(dict) = v.downcast::<PyDict>() {
        let mut items = Vec::new();
        for (k, x) in dict.iter() {
            let key = match k.downcast::<PyString>() {
                Ok(s) => s.to_string(),
                Err(_) => k.str()?.to_string(),
            };
            items.push((key, to_json(&x, foreign)?));
        }
        return Ok(Json::Object(items));
    }
    keep()
}

/// A caller's int argument as the core checks it: `Json::Int`, or `Json::Big` beyond 128
/// bits, so that a refusal quotes it as given (a bool is the int it is in Python).
struct Int(Json);

impl<'py> FromPyObject<'py> for Int {
    fn extract_bound(v: &Bound<'py, PyAny>) -> PyResult<Self> {
        if let Ok(i) = v.extract::<i64>() {
            return Ok(Int(Json::Int(i.into())));
        }
        let index = v.py().import("operator")?.call_method1("index", (v,))?;
        Ok(Int(Json::int_from_digits(&index.str()?.to_string())))
    }
}

/// JSON value -> Python value.
fn from_json(py: Python<'_>, v: &Json) -> PyResult<PyObject> {
    from_json_with(py, v, &[])
}

/// JSON value -> Python value, `Json::Foreign(i)` being `foreign[i]`.
fn from_json_with(py: Python<'_>, v: &Json, foreign: &[Py<PyAny>]) -> PyResult<PyObject> {
    Ok(match v {
        Json::Foreign(i) => match foreign.get(*i) {
            Some(x) => x.clone_ref(py),
            None => py.None(),
        },
        Json::Null => py.None(),
        Json::Bool(b) => PyBool::new(py, *b).to_owned().into_any().unbind(),
        Json::Int(i) => i.into_pyobject(py)?.into_any().unbind(),
        Json::Big(digits) => int_type(py)?.call1((digits,))?.unbind(),
        Json::Float(f) => PyFloat::new(py, *f).into_any().unbind(),
        Json::Str(s) => PyString::new(py, s).into_any().unbind(),
        Json::List(items) => {
            let list = PyList::empty(py);
            for x in items {
                list.append(from_json_with(py, x, foreign)?)?;
            }
            list.into_any().unbind()
        }
        Json::Object(items) => {
            let d = PyDict::new(py);
            for (k, x) in items {
                d.set_item(k, from_json_with(py, x, foreign)?)?;
            }
            d.into_any().unbind()
        }
    })
}

/// The core's value of a reference object, the last one remembered: a run plays thousands
/// of games with the same options and card set.
fn remembered<T>(
    last: &Mutex<Option<(Py<PyAny>, Arc<T>)>>,
    obj: &Bound<'_, PyAny>,
    make: impl FnOnce() -> PyResult<T>,
) -> PyResult<Arc<T>> {
    let mut last = last.lock().unwrap_or_else(|e| e.into_inner());
    match last.as_ref() {
        Some((seen, parsed)) if seen.bind(obj.py()).is(obj) => Ok(parsed.clone()),
        _ => {
            let parsed = Arc::new(make()?);
            *last = Some((obj.clone().unbind(), parsed.clone()));
            Ok(parsed)
        }
    }
}

/// The core's options of a reference `RuleOptions`, read from its `to_dict`.
fn core_options(py: Python<'_>, options: &Bound<'_, PyAny>) -> PyResult<Arc<RuleOptions>> {
    static LAST: Mutex<Option<(Py<PyAny>, Arc<RuleOptions>)>> = Mutex::new(None);
    remembered(&LAST, options, || {
        let mut foreign = Vec::new();
        let data = to_json(&options.call_method0("to_dict")?, &mut foreign)?;
        RuleOptions::from_dict(&data).map_err(|e| raise_quoting(py, e, &foreign))
    })
}

/// The core's card set of a reference `CardSet`, read through its `changes()`, the form
/// the core reads and writes a set in.
fn core_cards(py: Python<'_>, cards: &Bound<'_, PyAny>) -> PyResult<Arc<CardSet>> {
    static LAST: Mutex<Option<(Py<PyAny>, Arc<CardSet>)>> = Mutex::new(None);
    remembered(&LAST, cards, || {
        let changes = to_json(&cards.call_method0("changes")?, &mut Vec::new())?;
        let points = changes.get("points").and_then(Json::as_object);
        let remove = changes.get("remove").and_then(Json::as_list);
        CardSet::from_changes(
            points.unwrap_or(&[]),
            remove.unwrap_or(&[]),
            changes.get("add"),
        )
        .map_err(|m| raise(py, Error::option(m)))
    })
}

/// Whether the core can play a card set: OptionError with the core's sentence when its
/// arrays cannot hold it (too many added cards, too deep a deck).
#[pyfunction]
fn check_card_set(py: Python<'_>, cards: &Bound<'_, PyAny>) -> PyResult<()> {
    core_cards(py, cards).map(|_| ())
}

// ---------------------------------------------------------------------- the public board

/// What a state and a view share: the public board.
trait HasBoard {
    fn board(&self) -> &Board;
}

/// The board's reads, on both classes (the Python classes of `arena.engine.native` make
/// the reference's objects of them).
macro_rules! board_api {
    ($cls:ident) => {
        #[pymethods]
        impl $cls {
            #[getter]
            fn players(&self) -> u8 {
                self.board().players
            }
            #[getter]
            fn round(&self) -> u32 {
                self.board().round
            }
            #[getter]
            fn current(&self) -> u8 {
                self.board().current
            }
            #[getter]
            fn step(&self) -> u8 {
                self.board().step
            }
            #[getter]
            fn ended(&self) -> bool {
                self.board().ended
            }
            /// Points per seat now, from the card set's points (R13.3).
            fn scores(&self) -> Vec<i64> {
                self.board().scores().to_vec()
            }
            /// Whether a card's condition holds now for a seat (R10.3-R10.6).
            fn objective_found(&self, py: Python<'_>, seat: Int, card: Int) -> PyResult<bool> {
                let found = self.board().objective_found_at(&seat.0, &card.0);
                found.map_err(|e| raise(py, e))
            }
            /// The orders the reference's dicts keep: the improvements as they were made,
            /// the plots as they were placed.
            fn orders(&self) -> (Vec<u16>, Vec<u16>) {
                let b = self.board();
                let improvements = b.improvements.iter().map(|&(c, _)| c).collect();
                (improvements, b.order.to_vec())
            }
            /// The game's options (those changed) and card set (its changes), as the
            /// reference's `RuleOptions.from_dict` and `CardSet.from_changes` read them.
            fn objects(&self, py: Python<'_>) -> PyResult<(PyObject, PyObject)> {
                let b = self.board();
                let options = from_json(py, &b.options.to_dict(true))?;
                Ok((options, from_json(py, &b.card_set.changes())?))
            }
        }
    };
}

// ---------------------------------------------------------------------- a state

/// The core's state of a game (`arena.engine.native.GameState` holds one).
#[pyclass(name = "State", module = "arena._native")]
pub struct PyState {
    pub(crate) st: State,
}

impl HasBoard for PyState {
    fn board(&self) -> &Board {
        &self.st.b
    }
}

board_api!(PyState);

/// History entries as the reference keeps them: tuples, their lists tuples too.
pub(crate) fn entry_list<'py>(py: Python<'py>, entries: &[Entry]) -> PyResult<Bound<'py, PyList>> {
    fn tuple_of(py: Python<'_>, v: &Json) -> PyResult<PyObject> {
        let Json::List(items) = v else {
            return from_json(py, v);
        };
        let items = items.iter().map(|x| tuple_of(py, x));
        Ok(PyTuple::new(py, items.collect::<PyResult<Vec<_>>>()?)?
            .into_any()
            .unbind())
    }
    let items = entries.iter().map(|e| tuple_of(py, &facts::entry_json(e)));
    PyList::new(py, items.collect::<PyResult<Vec<_>>>()?)
}

impl PyState {
    /// A copy changed by `edit` (a named edit: the core checks its arguments).
    fn edited(
        &self,
        py: Python<'_>,
        history: bool,
        edit: impl FnOnce(&mut State) -> Result<(), Error>,
    ) -> PyResult<PyState> {
        let mut st = self.st.copy(history);
        edit(&mut st).map_err(|e| raise(py, e))?;
        Ok(PyState { st })
    }
}

#[pymethods]
impl PyState {
    #[getter]
    fn seed(&self) -> i128 {
        self.st.seed
    }
    #[getter]
    fn rng(&self) -> u64 {
        self.st.rng
    }
    /// The hidden parts: hands, objective decks, plot deck, drawn plots, scripted dice.
    #[allow(clippy::type_complexity)]
    fn hidden(&self) -> (Vec<Vec<u8>>, Vec<Vec<u8>>, Vec<u8>, Vec<u8>, Vec<u8>) {
        let st = &self.st;
        let hands = st.hands[..st.b.players as usize].iter();
        (
            hands.map(|h| h.to_vec()).collect(),
            st.objective_decks.iter().map(|d| d.to_vec()).collect(),
            st.plot_deck.to_vec(),
            st.drawn.to_vec(),
            st.dice.clone(),
        )
    }
    /// The history's entries from `start` on (None: the game keeps no history).
    fn entries<'py>(&self, py: Python<'py>, start: usize) -> PyResult<Option<Bound<'py, PyList>>> {
        let Some(entries) = &self.st.history.0 else {
            return Ok(None);
        };
        entry_list(py, entries.get(start..).unwrap_or(&[])).map(Some)
    }
    /// The actions the current seat may choose now (empty once the game is over).
    fn legal_actions(&self, py: Python<'_>) -> PyResult<Vec<u32>> {
        let st = &self.st;
        guard(py, game_context(st), || Ok(st.legal_actions().to_vec()))
    }
    /// Applies an action of the current seat (checked to be legal when `checked`), then
    /// chance and forced steps.
    fn apply(&mut self, py: Python<'_>, action: Int, checked: bool) -> PyResult<()> {
        let Some(action) = action.0.as_int().and_then(|a| u32::try_from(a).ok()) else {
            let refusal = Error::illegal("{value} is not an action").quoting(action.0);
            return Err(raise(py, refusal));
        };
        let st = &mut self.st;
        let result = guard(py, game_context(st), || {
            plant_check();
            Ok(if checked {
                st.play(action)
            } else {
                st.apply(action)
            })
        })?;
        result.map_err(|e| raise(py, e))
    }
    /// A cheap, independent copy; the history only when asked for.
    fn copy(&self, py: Python<'_>, history: bool) -> PyResult<PyState> {
        let st = &self.st;
        guard(py, game_context(st), || {
            Ok(PyState {
                st: st.copy(history),
            })
        })
    }
    /// A copy in which `seat` holds `hand`.
    fn with_hand(&self, py: Python<'_>, seat: Int, hand: Vec<Int>) -> PyResult<PyState> {
        let hand: Vec<Json> = hand.into_iter().map(|c| c.0).collect();
        self.edited(py, false, |st| st.with_hand(&seat.0, &hand))
    }
    /// A copy (history kept) with the hidden parts in `given` replaced: a dict of lists
    /// and ints, which the core reads and checks (`State::with_hidden`).
    fn with_hidden(&self, py: Python<'_>, given: &Bound<'_, PyAny>) -> PyResult<PyState> {
        let given = to_json(given, &mut Vec::new())?;
        self.edited(py, true, |st| st.with_hidden(&given))
    }
    /// A copy at another step of the turn with another weather.
    fn with_step(&self, py: Python<'_>, step: Int, weather: Int) -> PyResult<PyState> {
        self.edited(py, false, |st| st.with_step(&step.0, &weather.0))
    }
    /// A copy holding `sample`'s hidden parts but `seat`'s own hand.
    fn with_hidden_from(&self, py: Python<'_>, sample: &Self, seat: Int) -> PyResult<PyState> {
        let st = self.st.with_hidden_from_seat(&sample.st, &seat.0);
        self.edited(py, false, |s| st.map(|st| *s = st))
    }
    /// Takes the layout of `other`, a state with the same layout.
    fn share_layout(&mut self, py: Python<'_>, other: &Self) -> PyResult<()> {
        self.st.share_layout(&other.st).map_err(|e| raise(py, e))
    }
    /// Puts objective `card` in a chosen place of the deal before the first decision (an
    /// experiment's intervention), its refusals a `PlacementError` with the reference's
    /// sentence.
    #[pyo3(signature = (card, seat, depth))]
    fn place_card(
        &mut self,
        py: Python<'_>,
        card: &Bound<'_, PyAny>,
        seat: Option<&Bound<'_, PyAny>>,
        depth: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let mut foreign = Vec::new();
        let mut arg = |v: &Bound<'_, PyAny>| -> placement::Arg {
            // The reference takes exactly an int (not a bool, not a float).
            if v.is_exact_instance_of::<PyInt>() {
                if let Ok(i) = v.extract::<i128>() {
                    return placement::Arg::Int(i);
                }
            }
            foreign.push(v.clone().unbind());
            placement::Arg::Foreign(foreign.len() - 1)
        };
        let (card, seat, depth) = (arg(card), seat.map(&mut arg), depth.map(&mut arg));
        self.st
            .place_card(&card, seat.as_ref(), depth.as_ref())
            .map_err(|e| raise_quoting(py, e, &foreign))
    }
    /// Scores and winners (R13.3-R13.5) as `GameResult.to_dict` writes them; `excluded`
    /// seats cannot win.
    fn result(&self, py: Python<'_>, excluded: Vec<u8>) -> PyResult<PyObject> {
        result_dict(py, &self.st, &excluded)
    }
    /// The position (the whole truth).
    fn position(&self, py: Python<'_>) -> PyResult<PyObject> {
        let st = &self.st;
        let json = guard(py, game_context(st), || Ok(position::to_position(st)))?;
        from_json(py, &json)
    }
    /// Whether two states are the same position.
    fn same_position(&self, other: &Self) -> bool {
        self.st.same_position(&other.st)
    }
    /// What `seat` may know.
    fn view(&self, py: Python<'_>, seat: Int) -> PyResult<PyView> {
        let st = &self.st;
        guard(py, game_context(st), || {
            let v = View::of_arg(st, &seat.0).map_err(|e| raise(py, e))?;
            Ok(PyView { v })
        })
    }
}

/// A state's result as `GameResult.to_dict` writes it.
pub(crate) fn result_dict(py: Python<'_>, st: &State, excluded: &[u8]) -> PyResult<PyObject> {
    from_json(
        py,
        &facts::result_dict(&st.result(excluded), &st.b.card_set),
    )
}

// ---------------------------------------------------------------------- a view

/// The core's view of one seat (`arena.engine.native.PlayerView` holds one).
#[pyclass(name = "View", module = "arena._native", frozen)]
pub struct PyView {
    pub(crate) v: View,
}

impl HasBoard for PyView {
    fn board(&self) -> &Board {
        &self.v.b
    }
}

board_api!(PyView);

#[pymethods]
impl PyView {
    #[getter]
    fn seat(&self) -> u8 {
        self.v.seat
    }
    /// A full state consistent with this view, the hidden parts drawn from `rng` (the
    /// same draws as the reference: a `random.Random` ends where the reference leaves it).
    fn determinize(&self, py: Python<'_>, rng: &Bound<'_, PyAny>) -> PyResult<PyState> {
        let (seat, round) = (self.v.seat, self.v.b.round);
        let context = move || format!("a determinize of seat {seat}, round {round}");
        let v = &self.v;
        let st = guard(py, context, || {
            plant_check();
            let mut draws = PythonDraws::new(rng)?;
            let st = v.determinize(&mut draws);
            draws.error.map_or(Ok(st), Err)
        })?;
        Ok(PyState { st })
    }
    /// Everything in the view, JSON-ready (equal views give equal dicts).
    fn to_dict(&self, py: Python<'_>) -> PyResult<PyObject> {
        from_json(py, &self.v.to_json())
    }
    /// The canonical text of the view (sorted keys).
    fn canonical(&self) -> String {
        self.v.canonical()
    }
    /// Equal views hold the same values.
    fn __eq__(&self, other: &Self) -> bool {
        self.v.canonical() == other.v.canonical()
    }
    /// The text a view is pickled as (`from_text` reads it with the improvements' order).
    fn text(&self) -> String {
        self.v.to_json().dump()
    }
    /// A view from its text and the order its improvements were made in.
    #[staticmethod]
    fn from_text(text: &str, order: Vec<u16>) -> PyResult<PyView> {
        let data = takenoko::json::parse(text).map_err(PyValueError::new_err)?;
        let v = View::from_json(&data, &order).map_err(PyValueError::new_err)?;
        Ok(PyView { v })
    }
}

// ---------------------------------------------------------------------- functions

/// A new game (R2), its arguments checked first by `arena.engine.rng.check_new_game`.
#[pyfunction]
fn new_game(
    py: Python<'_>,
    players: usize,
    seed: i128,
    options: &Bound<'_, PyAny>,
    faces: Vec<u8>,
    history: bool,
    cards: &Bound<'_, PyAny>,
) -> PyResult<PyState> {
    let core_opts = core_options(py, options)?;
    let core_set = core_cards(py, cards)?;
    let st = guard(
        py,
        || format!("new game, seed {seed}"),
        || {
            State::new(players, seed, core_opts, &faces, history, core_set)
                .map_err(|e| raise(py, e))
        },
    )?;
    Ok(PyState { st })
}

/// A state from a position (a dict as read from JSON); PositionError names the bad field.
#[pyfunction]
fn from_position(py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<PyState> {
    let mut foreign = Vec::new();
    let data = to_json(data, &mut foreign)?;
    let st = guard(
        py,
        || "reading a position".into(),
        || position::from_position(&data).map_err(|e| raise_quoting(py, e, &foreign)),
    )?;
    Ok(PyState { st })
}

/// What a differential test holds against the reference, by name (`takenoko::probe`: the
/// options table, Python's generator), the argument and the answer as JSON.
#[pyfunction]
fn _probe(py: Python<'_>, name: &str, arg: &Bound<'_, PyAny>) -> PyResult<PyObject> {
    let mut foreign = Vec::new();
    let arg = to_json(arg, &mut foreign)?;
    let answer = takenoko::probe::probe(name, &arg).map_err(|e| raise_quoting(py, e, &foreign))?;
    from_json(py, &answer)
}

/// Test hook: while set, every native apply and determinize panics (to show that a panic
/// reaches Python as an ArenaError).  Reachable only through this function.
#[pyfunction]
fn _plant_panic(on: bool) {
    PLANTED_PANIC.store(on, Ordering::Relaxed);
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyState>()?;
    m.add_class::<PyView>()?;
    m.add_class::<bots::PyBot>()?;
    for f in [
        wrap_pyfunction!(new_game, m)?,
        wrap_pyfunction!(from_position, m)?,
        wrap_pyfunction!(_probe, m)?,
        wrap_pyfunction!(_plant_panic, m)?,
        wrap_pyfunction!(learned::feature_names, m)?,
        wrap_pyfunction!(learned::selfplay, m)?,
        wrap_pyfunction!(referee::bot_names, m)?,
        wrap_pyfunction!(referee::check_bot_params, m)?,
        wrap_pyfunction!(referee::_test_bots, m)?,
        wrap_pyfunction!(referee::play_game, m)?,
        wrap_pyfunction!(referee::play_batch, m)?,
        wrap_pyfunction!(referee::record_fields, m)?,
        wrap_pyfunction!(referee::record_line, m)?,
        wrap_pyfunction!(check_card_set, m)?,
    ] {
        m.add_function(f)?;
    }
    let kinds: Vec<(&str, u8)> = Kind::ALL.iter().map(|k| (k.name(), *k as u8)).collect();
    m.add("KINDS", kinds)?;
    m.add("CELLS", GRID.cells.len())?;
    Ok(())
}
