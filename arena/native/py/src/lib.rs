//! The Python binding of takenoko-core: the module `arena._native`.
//!
//! A thin layer of conversions and errors, no rules: `GameState` and `PlayerView` hold the
//! core's `State` and `View` and make the engine API of `arena/engine/api.py` (legal
//! actions, apply, copy, view, determinize, result, positions in and out, named edits).
//! Every other field of the reference's object model is answered off the reference's object
//! made from this one, once until it changes (`__getattr__`, `Holder::reference`).  Every
//! call that runs the rules goes through `guard`, so a Rust panic never crosses into
//! Python: it becomes an `ArenaError` naming the game and the seat.
#![forbid(unsafe_code)]

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use pyo3::exceptions::{PyAttributeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::GILOnceCell;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple, PyType};

use takenoko::actions::Kind;
use takenoko::components::CardSet;
use takenoko::edits::Hidden;
use takenoko::error::Error;
use takenoko::facts;
use takenoko::grid::GRID;
use takenoko::history::Entry;
use takenoko::json::Json;
use takenoko::options::RuleOptions;
use takenoko::placement;
use takenoko::position;
use takenoko::referee::panic_text;
use takenoko::state::{Board, State, STEP_NAMES};
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

reference_item!(rule_options_class, "arena.engine.options", "RuleOptions");
reference_item!(card_set_class, "arena.engine.components", "CardSet");
reference_item!(game_result_class, "arena.engine.state", "GameResult");
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

/// An `ArenaError` with this sentence (a panic of the engine).
fn arena_error(py: Python<'_>, message: String) -> PyErr {
    let class = py
        .import("arena.engine.errors")
        .and_then(|m| m.getattr("ArenaError"));
    match class.and_then(|c| Ok(c.downcast_into::<PyType>()?)) {
        Ok(t) => PyErr::from_type(t, message),
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

/// The reference objects of a core's options and card set (positions, unpickled views).
fn python_values(py: Python<'_>, b: &Board) -> PyResult<(Py<PyAny>, Py<PyAny>)> {
    let options = rule_options_class(py)?
        .call_method1("from_dict", (from_json(py, &b.options.to_dict(true))?,))?
        .unbind();
    let changes = from_json(py, &b.card_set.changes())?;
    let changes = changes.downcast_bound::<PyDict>(py)?;
    let cards = card_set_class(py)?
        .call_method("from_changes", (), Some(changes))?
        .unbind();
    Ok((options, cards))
}

// ---------------------------------------------------------------------- the public board

/// The reference's objects a game is played with: its options, its card set, and the card
/// points read off the set or given by a caller (`with_card_points`).
pub(crate) struct GameObjects {
    options: Py<PyAny>,
    card_set: Py<PyAny>,
    card_points: Py<PyAny>,
    points_set: bool,
}

impl GameObjects {
    pub(crate) fn new(
        py: Python<'_>,
        options: Py<PyAny>,
        card_set: Py<PyAny>,
    ) -> PyResult<GameObjects> {
        let card_points = card_set.bind(py).getattr("points")?.unbind();
        Ok(GameObjects {
            options,
            card_set,
            card_points,
            points_set: false,
        })
    }

    fn clone_ref(&self, py: Python<'_>) -> GameObjects {
        GameObjects {
            options: self.options.clone_ref(py),
            card_set: self.card_set.clone_ref(py),
            card_points: self.card_points.clone_ref(py),
            points_set: self.points_set,
        }
    }

    fn traverse(&self, visit: &pyo3::PyVisit<'_>) -> Result<(), pyo3::PyTraverseError> {
        visit.call(&self.options)?;
        visit.call(&self.card_set)?;
        visit.call(&self.card_points)
    }
}

/// What `GameState` and `PlayerView` share: a board, the game's objects, and the
/// reference's object made from it when a caller reads a field the API does not name.
trait Holder: Sized + pyo3::PyClass {
    const IS_STATE: bool;
    fn board(&self) -> &Board;
    fn objects(&self) -> &GameObjects;
    fn reference_slot(&mut self) -> &mut Option<PyObject>;
    /// Extra arguments of `arena.engine.native.reference_of` (the orders a dict keeps).
    fn orders(&self) -> (Vec<u16>, Option<Vec<u16>>);

    /// The reference's state or view with this one's values, made once until it changes:
    /// every field beyond the API is read off it (one conversion instead of a getter each).
    fn reference(slf: &Bound<'_, Self>) -> PyResult<PyObject>
    where
        Self: pyo3::PyClass<Frozen = pyo3::pyclass::boolean_struct::False>,
    {
        let py = slf.py();
        if let Some(obj) = slf.borrow_mut().reference_slot() {
            return Ok(obj.clone_ref(py));
        }
        let (improvements, tiles) = slf.borrow().orders();
        let obj = reference_of(py)?
            .call1((slf, improvements, tiles))?
            .unbind();
        *slf.borrow_mut().reference_slot() = Some(obj.clone_ref(py));
        Ok(obj)
    }
}

reference_item!(reference_of, "arena.engine.native", "reference_of");

/// The API's reads of the public board, on both classes; any other public field is the
/// reference's (`__getattr__`, through `Holder::reference`).
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
            #[getter]
            fn options(&self, py: Python<'_>) -> PyObject {
                self.objects().options.clone_ref(py)
            }
            #[getter]
            fn card_set(&self, py: Python<'_>) -> PyObject {
                self.objects().card_set.clone_ref(py)
            }
            #[getter]
            fn card_points(&self, py: Python<'_>) -> PyObject {
                self.objects().card_points.clone_ref(py)
            }
            /// Points per seat now (R13.3); summed in Python from points a caller gave.
            fn scores(slf: &Bound<'_, Self>) -> PyResult<PyObject> {
                let py = slf.py();
                if slf.borrow().objects().points_set {
                    return Self::reference(slf)?.call_method0(py, "scores");
                }
                Ok(PyList::new(py, slf.borrow().board().scores())?
                    .into_any()
                    .unbind())
            }
            /// Whether a card's condition holds now for a seat (R10.3-R10.6).
            fn objective_found(&self, py: Python<'_>, seat: Int, card: Int) -> PyResult<bool> {
                let found = self.board().objective_found_at(&seat.0, &card.0);
                found.map_err(|e| raise(py, e))
            }
            /// The reference engine's object with this one's values (a state: a copy of it,
            /// history kept): what a Python bot searches on, or a test compares.
            fn as_reference(slf: &Bound<'_, Self>) -> PyResult<PyObject> {
                let reference = Self::reference(slf)?;
                if !Self::IS_STATE {
                    return Ok(reference);
                }
                let kwargs = PyDict::new(slf.py());
                kwargs.set_item("history", true)?;
                reference.call_method(slf.py(), "copy", (), Some(&kwargs))
            }
            /// Any other public field or query: the reference's, on its object made from
            /// this one (`arena.engine.native.reference_of`).
            fn __getattr__(slf: &Bound<'_, Self>, name: &str) -> PyResult<PyObject> {
                if name.starts_with('_') {
                    return Err(PyAttributeError::new_err(name.to_string()));
                }
                Self::reference(slf)?.getattr(slf.py(), name)
            }
        }
    };
}

// ---------------------------------------------------------------------- GameState

/// A Takenoko game at a decision point (the native `arena.engine.GameState`).
#[pyclass(name = "GameState", module = "arena.engine")]
pub struct PyState {
    st: State,
    objects: GameObjects,
    /// The history as the reference keeps it: a list of tuples, live (appended as the game
    /// goes), or None when the game keeps none.
    history: Option<Py<PyList>>,
    synced: usize,
    /// The legal list handed out, the same list until the state changes.
    legal: Option<PyObject>,
    reference: Option<PyObject>,
    /// The order of `tiles` taken from another state (`share_layout`: the reference keeps
    /// the dict it is given, and a plot placed later comes last in it).
    tiles_order: Option<Vec<u16>>,
}

impl Holder for PyState {
    const IS_STATE: bool = true;
    fn board(&self) -> &Board {
        &self.st.b
    }
    fn objects(&self) -> &GameObjects {
        &self.objects
    }
    fn reference_slot(&mut self) -> &mut Option<PyObject> {
        &mut self.reference
    }
    fn orders(&self) -> (Vec<u16>, Option<Vec<u16>>) {
        let b = &self.st.b;
        (
            b.improvements.iter().map(|&(c, _)| c).collect(),
            self.tiles_order.clone(),
        )
    }
}

board_api!(PyState);

/// A history entry as the reference keeps it: a tuple, its lists tuples too.
fn entry_tuple(py: Python<'_>, e: &Entry) -> PyResult<PyObject> {
    fn tuple_of(py: Python<'_>, v: &Json) -> PyResult<PyObject> {
        let Json::List(items) = v else {
            return from_json(py, v);
        };
        let items: Vec<PyObject> = items
            .iter()
            .map(|x| tuple_of(py, x))
            .collect::<PyResult<_>>()?;
        Ok(PyTuple::new(py, items)?.into_any().unbind())
    }
    tuple_of(py, &facts::entry_json(e))
}

impl PyState {
    fn wrap(py: Python<'_>, st: State, objects: GameObjects) -> PyResult<PyState> {
        let history = st.history.0.as_ref().map(|_| PyList::empty(py).unbind());
        let mut s = PyState {
            st,
            objects,
            history,
            synced: 0,
            legal: None,
            reference: None,
            tiles_order: None,
        };
        s.sync(py)?;
        Ok(s)
    }

    /// Appends the core's new history entries to the Python list.
    fn sync(&mut self, py: Python<'_>) -> PyResult<()> {
        if let (Some(list), Some(entries)) = (&self.history, &self.st.history.0) {
            let list = list.bind(py);
            for e in &entries[self.synced..] {
                list.append(entry_tuple(py, e)?)?;
            }
            self.synced = entries.len();
        }
        Ok(())
    }

    /// Forgets what was made of the state before it changed.
    fn changed(&mut self) {
        self.legal = None;
        self.reference = None;
    }

    fn copy_of(&self, py: Python<'_>, history: bool) -> PyResult<PyState> {
        let hist = match (&self.history, history) {
            (Some(list), true) => Some(PyList::new(py, list.bind(py).iter())?.unbind()),
            _ => None,
        };
        Ok(PyState {
            synced: if hist.is_some() { self.synced } else { 0 },
            st: self.st.copy(history),
            objects: self.objects.clone_ref(py),
            history: hist,
            legal: self.legal.as_ref().map(|l| l.clone_ref(py)),
            reference: None,
            tiles_order: self.tiles_order.clone(),
        })
    }

    /// A copy changed by `edit` (a named edit: the core checks its arguments).
    fn edited(
        &self,
        py: Python<'_>,
        history: bool,
        edit: impl FnOnce(&mut State) -> Result<(), Error>,
    ) -> PyResult<PyState> {
        let mut s = self.copy_of(py, history)?;
        edit(&mut s.st).map_err(|e| raise(py, e))?;
        s.changed();
        Ok(s)
    }

    fn do_apply(&mut self, py: Python<'_>, action: Int, checked: bool) -> PyResult<()> {
        let Some(action) = action.0.as_int().and_then(|a| u32::try_from(a).ok()) else {
            let refusal = Error::illegal("{value} is not an action").quoting(action.0);
            return Err(raise(py, refusal));
        };
        let context = game_context(&self.st);
        let st = &mut self.st;
        let result = guard(py, context, || {
            plant_check();
            Ok(if checked {
                st.play(action)
            } else {
                st.apply(action)
            })
        })?;
        self.changed();
        self.sync(py)?;
        result.map_err(|e| raise(py, e))
    }
}

#[pymethods]
impl PyState {
    #[getter]
    fn history(&self, py: Python<'_>) -> PyObject {
        match &self.history {
            Some(list) => list.clone_ref(py).into_any(),
            None => py.None(),
        }
    }
    /// The hidden parts, read here (a named edit may make a state that is no position).
    #[getter]
    fn hands<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let hands = &self.st.hands[..self.st.b.players as usize];
        PyList::new(
            py,
            hands
                .iter()
                .map(|h| PyTuple::new(py, h))
                .collect::<PyResult<Vec<_>>>()?,
        )
    }
    #[getter]
    fn objective_decks<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let decks = self.st.objective_decks.iter().map(|d| PyTuple::new(py, d));
        PyTuple::new(py, decks.collect::<PyResult<Vec<_>>>()?)
    }
    #[getter]
    fn plot_deck<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, &self.st.plot_deck)
    }
    #[getter]
    fn drawn<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, &self.st.drawn)
    }
    #[getter]
    fn dice<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, &self.st.dice)
    }
    #[getter]
    fn seed(&self) -> i128 {
        self.st.seed
    }
    #[getter]
    fn rng(&self) -> u64 {
        self.st.rng
    }
    /// A copy in which `seat` holds `hand` (search asks "what if" of its own copies).
    fn with_hand(&self, py: Python<'_>, seat: Int, hand: Vec<Int>) -> PyResult<PyState> {
        let hand: Vec<Json> = hand.into_iter().map(|c| c.0).collect();
        self.edited(py, false, |st| st.with_hand(&seat.0, &hand))
    }
    /// A copy (history kept) with the hidden parts given replaced.
    #[pyo3(signature = (*, hands = None, objective_decks = None, plot_deck = None,
                        drawn = None, rng = None, seed = None))]
    #[allow(clippy::too_many_arguments)]
    fn with_hidden(
        &self,
        py: Python<'_>,
        hands: Option<Vec<Vec<i64>>>,
        objective_decks: Option<Vec<Vec<i64>>>,
        plot_deck: Option<Vec<i64>>,
        drawn: Option<Vec<i64>>,
        rng: Option<u64>,
        seed: Option<i128>,
    ) -> PyResult<PyState> {
        let hidden = Hidden {
            hands,
            objective_decks,
            plot_deck,
            drawn,
            rng,
            seed,
        };
        self.edited(py, true, |st| st.with_hidden(&hidden))
    }
    /// A copy at another step of the turn with another weather.
    fn with_step(&self, py: Python<'_>, step: Int, weather: Int) -> PyResult<PyState> {
        self.edited(py, false, |st| st.with_step(&step.0, &weather.0))
    }
    /// Takes the layout of `other`, a state with the same layout, in `other`'s order (a
    /// search canonicalises its layouts for the caches that find a layout by identity).
    fn share_layout(slf: &Bound<'_, Self>, other: &Bound<'_, PyState>) -> PyResult<()> {
        let py = slf.py();
        if slf.is(other) {
            return Ok(());
        }
        {
            let (mut me, theirs) = (slf.borrow_mut(), other.borrow());
            me.st.share_layout(&theirs.st).map_err(|e| raise(py, e))?;
            let order = theirs
                .tiles_order
                .clone()
                .unwrap_or_else(|| theirs.st.b.order.to_vec());
            me.tiles_order = (!order.iter().eq(me.st.b.order.iter())).then_some(order);
            me.changed();
        }
        // The reference's objects of the layout are the other's from now on.
        let theirs = Self::reference(other)?;
        Self::reference(slf)?.call_method1(py, "share_layout", (theirs,))?;
        Ok(())
    }
    /// A copy whose scores sum `points` (an archetype plans with weighted points).
    fn with_card_points(&self, py: Python<'_>, points: &Bound<'_, PyAny>) -> PyResult<PyState> {
        let mut s = self.copy_of(py, false)?;
        s.objects.card_points = points.clone().unbind();
        s.objects.points_set = true;
        Ok(s)
    }
    /// Puts objective `card` in a chosen place of the deal before the first decision (an
    /// experiment's intervention): the reference's `place_card`, its refusals a
    /// `PlacementError` with the same sentence.
    #[pyo3(signature = (card, *, seat = None, depth = None))]
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
            .map_err(|e| raise_quoting(py, e, &foreign))?;
        self.changed();
        // The deal entries were rewritten: so are the Python history's.
        if let (Some(list), Some(entries)) = (&self.history, &self.st.history.0) {
            let list = list.bind(py);
            for (i, e) in entries.iter().enumerate().take(self.synced) {
                if matches!(e, Entry::Dealt { .. }) {
                    list.set_item(i, entry_tuple(py, e)?)?;
                }
            }
        }
        Ok(())
    }
    /// The actions the current seat may choose now (empty once the game is over); the same
    /// list until the state changes.
    fn legal_actions(&mut self, py: Python<'_>) -> PyResult<PyObject> {
        if let Some(obj) = &self.legal {
            return Ok(obj.clone_ref(py));
        }
        let context = game_context(&self.st);
        let st = &self.st;
        let legal = guard(py, context, || Ok(st.legal_actions()))?;
        let obj = PyList::new(py, legal.iter().copied())?.into_any().unbind();
        self.legal = Some(obj.clone_ref(py));
        Ok(obj)
    }
    fn __traverse__(&self, visit: pyo3::PyVisit<'_>) -> Result<(), pyo3::PyTraverseError> {
        self.objects.traverse(&visit)?;
        for obj in [&self.legal, &self.reference].into_iter().flatten() {
            visit.call(obj)?;
        }
        if let Some(h) = &self.history {
            visit.call(h)?;
        }
        Ok(())
    }
    fn __clear__(&mut self) {
        self.changed();
        self.history = None;
    }
    /// A cheap, independent copy; the history is dropped unless asked for.
    #[pyo3(signature = (*, history = false))]
    fn copy(&self, py: Python<'_>, history: bool) -> PyResult<PyState> {
        let context = game_context(&self.st);
        guard(py, context, || self.copy_of(py, history))
    }
    fn __copy__(&self, py: Python<'_>) -> PyResult<PyState> {
        self.copy_of(py, false)
    }
    /// A copy holding `sample`'s hidden parts but `seat`'s own hand.
    fn with_hidden_from(
        &self,
        py: Python<'_>,
        sample: PyRef<'_, PyState>,
        seat: Int,
    ) -> PyResult<PyState> {
        let st = self.st.with_hidden_from_seat(&sample.st, &seat.0);
        self.edited(py, false, |s| st.map(|st| *s = st))
    }
    /// Apply an action after checking it is legal; IllegalActionError if not.
    fn play(&mut self, py: Python<'_>, action: Int) -> PyResult<()> {
        self.do_apply(py, action, true)
    }
    /// Apply a legal action of the current seat, then resolve chance and forced steps.
    fn apply(&mut self, py: Python<'_>, action: Int) -> PyResult<()> {
        self.do_apply(py, action, false)
    }
    /// Scores and winners (R13.3-R13.5); `excluded` seats cannot win.
    #[pyo3(signature = (excluded = None))]
    fn result(&self, py: Python<'_>, excluded: Option<Vec<Bound<PyAny>>>) -> PyResult<PyObject> {
        result_object(py, &self.st, excluded.unwrap_or_default())
    }
    fn __repr__(&self) -> String {
        let b = &self.st.b;
        format!(
            "<GameState players={} round={} seat={} step={} scores={:?}{}>",
            b.players,
            b.round,
            b.current,
            STEP_NAMES[b.step as usize],
            b.scores().to_vec(),
            if b.ended { " ended" } else { "" }
        )
    }
    /// Pickled as its position and history (the position is the whole truth).
    fn __reduce__(&self, py: Python<'_>) -> PyResult<(PyObject, (PyObject, PyObject))> {
        let module = py.import("arena._native")?;
        let data = from_json(py, &position::to_position(&self.st))?;
        let history = self.history(py);
        Ok((
            module.getattr("_state_from_pickle")?.unbind(),
            (data, history),
        ))
    }
}

/// The reference's `GameResult` of a state (`GameResult.from_dict` of the core's
/// `result_dict`); `excluded` seats cannot win.
fn result_object(py: Python<'_>, st: &State, excluded: Vec<Bound<PyAny>>) -> PyResult<PyObject> {
    let seats: Vec<u8> = excluded
        .iter()
        .filter_map(|s| s.extract::<u8>().ok().filter(|&s| s < 4))
        .collect();
    let data = from_json(py, &facts::result_dict(&st.result(&seats), &st.b.card_set))?;
    let class = game_result_class(py)?;
    Ok(class.call_method1("from_dict", (data, excluded))?.unbind())
}

// ---------------------------------------------------------------------- PlayerView

/// What one seat may know (R2.6): the native `arena.engine.PlayerView`, a snapshot.
#[pyclass(name = "PlayerView", module = "arena.engine", subclass)]
pub struct PyView {
    v: View,
    objects: GameObjects,
    reference: Option<PyObject>,
}

impl Holder for PyView {
    const IS_STATE: bool = false;
    fn board(&self) -> &Board {
        &self.v.b
    }
    fn objects(&self) -> &GameObjects {
        &self.objects
    }
    fn reference_slot(&mut self) -> &mut Option<PyObject> {
        &mut self.reference
    }
    fn orders(&self) -> (Vec<u16>, Option<Vec<u16>>) {
        (
            self.v.b.improvements.iter().map(|&(c, _)| c).collect(),
            None,
        )
    }
}

board_api!(PyView);

impl PyView {
    fn duplicate(&self, py: Python<'_>) -> PyView {
        PyView {
            v: self.v.clone(),
            objects: self.objects.clone_ref(py),
            reference: self.reference.as_ref().map(|r| r.clone_ref(py)),
        }
    }

    /// The view of `seat` on a core state, with the game's objects.
    fn of_core(py: Python<'_>, st: &State, seat: &Json, objects: GameObjects) -> PyResult<PyView> {
        let v = View::of_arg(st, seat).map_err(|e| raise(py, e))?;
        Ok(PyView {
            v,
            objects,
            reference: None,
        })
    }
}

#[pymethods]
impl PyView {
    /// A copy of a view (what a subclass that wraps one is made from:
    /// `class Mine(PlayerView)`, `Mine(view, ...)`; the arguments after it are the
    /// subclass's own).
    #[new]
    #[pyo3(signature = (view, *_args, **_kwargs))]
    fn new(
        py: Python<'_>,
        view: PyRef<'_, PyView>,
        _args: &Bound<'_, PyTuple>,
        _kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyView {
        view.duplicate(py)
    }
    #[getter]
    fn seat(&self) -> u8 {
        self.v.seat
    }
    fn __copy__(&self, py: Python<'_>) -> PyView {
        self.duplicate(py)
    }
    /// A copy whose scores sum `points` (an archetype plans with weighted points).
    fn with_card_points(&self, py: Python<'_>, points: &Bound<'_, PyAny>) -> PyView {
        let mut v = self.duplicate(py);
        v.objects.card_points = points.clone().unbind();
        v.objects.points_set = true;
        v.reference = None;
        v
    }
    fn __traverse__(&self, visit: pyo3::PyVisit<'_>) -> Result<(), pyo3::PyTraverseError> {
        self.objects.traverse(&visit)?;
        if let Some(r) = &self.reference {
            visit.call(r)?;
        }
        Ok(())
    }
    fn __clear__(&mut self) {
        self.reference = None;
    }
    /// The view of `seat` on `state`.
    #[staticmethod]
    fn of(py: Python<'_>, state: PyRef<'_, PyState>, seat: Int) -> PyResult<PyView> {
        let context = game_context(&state.st);
        guard(py, context, || {
            PyView::of_core(py, &state.st, &seat.0, state.objects.clone_ref(py))
        })
    }
    /// A full state consistent with this view, the hidden parts drawn from `rng` (the
    /// same draws as the reference: a `random.Random` ends where the reference leaves it).
    #[pyo3(signature = (rng, legal = None))]
    fn determinize(
        &self,
        py: Python<'_>,
        rng: &Bound<'_, PyAny>,
        legal: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyState> {
        let (seat, round) = (self.v.seat, self.v.b.round);
        let context = move || format!("a determinize of seat {seat}, round {round}");
        let v = &self.v;
        let st = guard(py, context, || {
            plant_check();
            let mut draws = PythonDraws::new(rng)?;
            let st = v.determinize(&mut draws);
            draws.error.map_or(Ok(st), Err)
        })?;
        let mut s = PyState::wrap(py, st, self.objects.clone_ref(py))?;
        if let Some(legal) = legal.filter(|_| self.v.b.current == self.v.seat) {
            let items = legal.try_iter()?.collect::<PyResult<Vec<_>>>()?;
            s.legal = Some(PyList::new(py, items)?.into_any().unbind());
        }
        Ok(s)
    }
    /// Everything in the view, JSON-ready (equal views give equal dicts).
    fn to_dict(&self, py: Python<'_>) -> PyResult<PyObject> {
        from_json(py, &self.v.to_json())
    }
    /// The canonical text of the view (sorted keys).
    fn to_json(&self) -> String {
        self.v.canonical()
    }
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        match other.downcast::<PyView>() {
            Ok(o) => self.v.canonical() == o.borrow().v.canonical(),
            Err(_) => false,
        }
    }
    fn __hash__(&self, py: Python<'_>) -> PyResult<isize> {
        PyString::new(py, &self.v.canonical()).hash()
    }
    fn __repr__(&self) -> String {
        format!(
            "<PlayerView seat={} round={} current={} step={}>",
            self.v.seat, self.v.b.round, self.v.b.current, STEP_NAMES[self.v.b.step as usize]
        )
    }
    /// Pickled as its data (a bot in its own process receives its views so).
    fn __reduce__(&self, py: Python<'_>) -> PyResult<(PyObject, (String, Vec<u16>))> {
        let module = py.import("arena._native")?;
        let order = self.orders().0;
        Ok((
            module.getattr("_view_from_pickle")?.unbind(),
            (self.v.to_json().dump(), order),
        ))
    }
}

// ---------------------------------------------------------------------- functions

fn state_from(
    py: Python<'_>,
    st: State,
    options: Py<PyAny>,
    cards: Py<PyAny>,
) -> PyResult<PyState> {
    PyState::wrap(py, st, GameObjects::new(py, options, cards)?)
}

/// A new game (R2): the reference's `new_game`, its arguments checked by `check_new_game`.
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
    state_from(py, st, options.clone().unbind(), cards.clone().unbind())
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
    let (options, cards) = python_values(py, &st.b)?;
    state_from(py, st, options, cards)
}

/// The position of a state (the whole truth).
#[pyfunction]
fn to_position(py: Python<'_>, state: PyRef<'_, PyState>) -> PyResult<PyObject> {
    let context = game_context(&state.st);
    let json = guard(py, context, || Ok(position::to_position(&state.st)))?;
    from_json(py, &json)
}

/// Whether two states are the same position.
#[pyfunction]
fn positions_equal(a: PyRef<'_, PyState>, b: PyRef<'_, PyState>) -> bool {
    a.st.same_position(&b.st)
}

#[pyfunction]
fn _state_from_pickle(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    history: &Bound<'_, PyAny>,
) -> PyResult<PyState> {
    let mut s = from_position(py, data)?;
    // The position's own reading may have rolled nothing (it was written at a decision); the
    // history is the pickled one.
    if history.is_none() {
        s.history = None;
        s.st.history.0 = None;
    } else {
        let list = PyList::new(py, history.try_iter()?.collect::<PyResult<Vec<_>>>()?)?;
        s.synced = s.st.history.0.as_ref().map_or(0, |h| h.len());
        s.history = Some(list.unbind());
    }
    Ok(s)
}

#[pyfunction]
fn _view_from_pickle(py: Python<'_>, text: &str, order: Vec<u16>) -> PyResult<PyView> {
    let data = takenoko::json::parse(text).map_err(PyValueError::new_err)?;
    let v = View::from_json(&data, &order).map_err(PyValueError::new_err)?;
    let (options, cards) = python_values(py, &v.b)?;
    Ok(PyView {
        v,
        objects: GameObjects::new(py, options, cards)?,
        reference: None,
    })
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
    m.add_class::<referee::Played>()?;
    for f in [
        wrap_pyfunction!(new_game, m)?,
        wrap_pyfunction!(from_position, m)?,
        wrap_pyfunction!(to_position, m)?,
        wrap_pyfunction!(positions_equal, m)?,
        wrap_pyfunction!(_probe, m)?,
        wrap_pyfunction!(_plant_panic, m)?,
        wrap_pyfunction!(_state_from_pickle, m)?,
        wrap_pyfunction!(_view_from_pickle, m)?,
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
