//! The Python binding of takenoko-core: the module `arena._native`.
//!
//! A thin layer of conversions and errors, no rules: `GameState` and `PlayerView` hold the
//! core's `State` and `View` and hand out Python values of the reference's types (dicts,
//! frozensets, tuples, the reference's `RuleOptions`, `CardSet`, `GameResult` and
//! exceptions).  Every call that runs the rules goes through `guard`, so a Rust panic never
//! crosses into Python: it becomes an `ArenaError` naming the game and the seat.
#![forbid(unsafe_code)]

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use pyo3::exceptions::{PyIndexError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::GILOnceCell;
use pyo3::types::{PyBool, PyDict, PyFloat, PyFrozenSet, PyInt, PyList, PyString, PyTuple, PyType};

use takenoko::actions::{self, Kind};
use takenoko::components::{CardSet, COMPONENTS};
use takenoko::error::{Error, ErrorKind};
use takenoko::grid::{self, CellSet, GRID};
use takenoko::history::Entry;
use takenoko::json::Json;
use takenoko::options::RuleOptions;
use takenoko::placement;
use takenoko::position;
use takenoko::rng::PyRandom;
use takenoko::state::{Board, State, STEP_NAMES};
use takenoko::view::{Draws, View};

mod bots;
mod learned;
mod record;
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
reference_item!(read_only, "arena.engine.view", "read_only");
reference_item!(random_class, "random", "Random");

fn exception<'py>(py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyType>> {
    Ok(py
        .import("arena.engine.errors")?
        .getattr(name)?
        .downcast_into::<PyType>()?)
}

/// The reference's exception for a refusal of the core.
fn raise(py: Python<'_>, e: Error) -> PyErr {
    let class = match e.kind {
        ErrorKind::Option => "OptionError",
        ErrorKind::Notation => "NotationError",
        ErrorKind::IllegalAction => "IllegalActionError",
        ErrorKind::Position => "PositionError",
        ErrorKind::Placement => "PlacementError",
        ErrorKind::Value => return PyValueError::new_err(e.message),
    };
    match exception(py, class) {
        Ok(t) => PyErr::from_type(t, e.message),
        Err(err) => err,
    }
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
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic".into());
            let message = format!(
                "the native engine failed ({}): {what}; this is a bug of the engine, please report it",
                context()
            );
            Err(match exception(py, "ArenaError") {
                Ok(t) => PyErr::from_type(t, message),
                Err(err) => err,
            })
        }
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

/// Python value -> JSON value (what a position or options dict holds; other values keep
/// their `repr` for the refusal that will quote them).
fn to_json(v: &Bound<'_, PyAny>) -> PyResult<Json> {
    if v.is_none() {
        return Ok(Json::Null);
    }
    if v.is_exact_instance_of::<PyBool>() {
        return Ok(Json::Bool(v.extract()?));
    }
    if v.is_instance_of::<PyInt>() && !v.is_instance_of::<PyBool>() {
        return Ok(match v.extract::<i128>() {
            Ok(i) => Json::Int(i),
            Err(_) => Json::Other(v.repr()?.to_string()),
        });
    }
    if v.is_instance_of::<PyFloat>() {
        return Ok(Json::Float(v.extract()?));
    }
    if v.is_instance_of::<PyString>() {
        return Ok(Json::Str(v.extract()?));
    }
    if let Ok(list) = v.downcast::<PyList>() {
        return Ok(Json::List(
            list.iter().map(|x| to_json(&x)).collect::<PyResult<_>>()?,
        ));
    }
    if let Ok(dict) = v.downcast::<PyDict>() {
        let mut items = Vec::new();
        for (k, x) in dict.iter() {
            let key = match k.downcast::<PyString>() {
                Ok(s) => s.to_string(),
                Err(_) => k.str()?.to_string(),
            };
            items.push((key, to_json(&x)?));
        }
        return Ok(Json::Object(items));
    }
    Ok(Json::Other(v.repr()?.to_string()))
}

/// JSON value -> Python value.
fn from_json(py: Python<'_>, v: &Json) -> PyResult<PyObject> {
    Ok(match v {
        Json::Null | Json::Other(_) => py.None(),
        Json::Bool(b) => PyBool::new(py, *b).to_owned().into_any().unbind(),
        Json::Int(i) => i.into_pyobject(py)?.into_any().unbind(),
        Json::Float(f) => PyFloat::new(py, *f).into_any().unbind(),
        Json::Str(s) => PyString::new(py, s).into_any().unbind(),
        Json::List(items) => {
            let list = PyList::empty(py);
            for x in items {
                list.append(from_json(py, x)?)?;
            }
            list.into_any().unbind()
        }
        Json::Object(items) => {
            let d = PyDict::new(py);
            for (k, x) in items {
                d.set_item(k, from_json(py, x)?)?;
            }
            d.into_any().unbind()
        }
    })
}

/// The core's options of a reference `RuleOptions` (the last one is remembered: a run
/// plays thousands of games with the same object).
fn core_options(py: Python<'_>, options: &Bound<'_, PyAny>) -> PyResult<Arc<RuleOptions>> {
    static LAST: Mutex<Option<(Py<PyAny>, Arc<RuleOptions>)>> = Mutex::new(None);
    let mut last = LAST.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((obj, parsed)) = last.as_ref() {
        if obj.bind(py).is(options) {
            return Ok(parsed.clone());
        }
    }
    let data = to_json(&options.call_method0("to_dict")?)?;
    let parsed = Arc::new(RuleOptions::from_dict(&data).map_err(|m| raise(py, Error::option(m)))?);
    *last = Some((options.clone().unbind(), parsed.clone()));
    Ok(parsed)
}

/// The core's card set of a reference `CardSet`.
fn core_cards(py: Python<'_>, cards: &Bound<'_, PyAny>) -> PyResult<Arc<CardSet>> {
    static LAST: Mutex<Option<(Py<PyAny>, Arc<CardSet>)>> = Mutex::new(None);
    let mut last = LAST.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((obj, parsed)) = last.as_ref() {
        if obj.bind(py).is(cards) {
            return Ok(parsed.clone());
        }
    }
    let points: Vec<u32> = cards.getattr("points")?.extract()?;
    let removed: Vec<u8> = cards
        .getattr("removed")?
        .try_iter()?
        .map(|x| x?.extract::<u8>())
        .collect::<PyResult<_>>()?;
    // The added cards as the reference keeps them: (category, the entry as JSON text).
    let entries: Vec<(String, String)> = cards.getattr("added_entries")?.extract()?;
    let mut added = Vec::with_capacity(entries.len());
    for (category, text) in &entries {
        let k = takenoko::components::CATEGORIES
            .iter()
            .position(|c| c == category)
            .ok_or_else(|| PyValueError::new_err(format!("{category} is not a card category")))?;
        let entry = takenoko::json::parse(text).map_err(PyValueError::new_err)?;
        added.push((k as u8, entry));
    }
    if points.len() != COMPONENTS.cards.len() + added.len() {
        return Err(PyValueError::new_err(
            "a card set gives points to every card",
        ));
    }
    let mask = removed
        .iter()
        .fold(0u64, |m, &c| m | 1u64 << (c as u32 % 64));
    let parsed = Arc::new(
        CardSet::with_added(points, mask, added).map_err(|m| raise(py, Error::option(m)))?,
    );
    *last = Some((cards.clone().unbind(), parsed.clone()));
    Ok(parsed)
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
    let changes = b.card_set.changes();
    let points = from_json(py, changes.get("points").unwrap_or(&Json::Object(vec![])))?;
    let remove = from_json(py, changes.get("remove").unwrap_or(&Json::List(vec![])))?;
    let kwargs = PyDict::new(py);
    if let Some(add) = changes.get("add") {
        kwargs.set_item("add", from_json(py, add)?)?;
    }
    let cards = card_set_class(py)?
        .call_method("from_changes", (points, remove), Some(&kwargs))?
        .unbind();
    Ok((options, cards))
}

// ---------------------------------------------------------------------- the board's values

static COUNTER: AtomicU64 = AtomicU64::new(1);

fn fresh() -> u64 {
    COUNTER.fetch_add(1, Ordering::Relaxed)
}

/// The slots that change with the layout only (tiles, improvements, irrigation, channels):
/// the copies of one layout share their values.
const LAYOUT: [Slot; 6] = [
    Slot::Tiles,
    Slot::Improvement,
    Slot::Irrigated,
    Slot::IrrigatedByColour,
    Slot::Channels,
    Slot::Network,
];

fn is_layout(slot: Slot) -> bool {
    LAYOUT.contains(&slot)
}

/// The layout values of the states that share a layout.
type Shared = Arc<Mutex<Cache>>;

fn new_shared() -> Shared {
    Arc::new(Mutex::new(Cache::default()))
}

/// Built values, each with the version of the board it was built from.
#[derive(Default)]
struct Cache {
    slots: [Option<(u64, PyObject)>; SLOTS],
}

impl Cache {
    fn get(&self, py: Python<'_>, slot: Slot, version: u64) -> Option<PyObject> {
        match &self.slots[slot as usize] {
            Some((v, obj)) if *v == version => Some(obj.clone_ref(py)),
            _ => None,
        }
    }

    fn put(&mut self, py: Python<'_>, slot: Slot, version: u64, obj: &PyObject) {
        self.slots[slot as usize] = Some((version, obj.clone_ref(py)));
    }

    /// The same values, for a copy.
    fn clone_ref(&self, py: Python<'_>) -> Cache {
        Cache {
            slots: std::array::from_fn(|i| {
                self.slots[i].as_ref().map(|(v, o)| (*v, o.clone_ref(py)))
            }),
        }
    }
}

fn cells_frozenset(
    py: Python<'_>,
    cells: impl Iterator<Item = u16>,
) -> PyResult<Bound<'_, PyFrozenSet>> {
    let v: Vec<u16> = cells.collect();
    PyFrozenSet::new(py, &v)
}

fn big_int(py: Python<'_>, set: &CellSet) -> PyResult<PyObject> {
    let mut bytes = Vec::with_capacity(set.0.len() * 8);
    for w in set.0 {
        bytes.extend_from_slice(&w.to_le_bytes());
    }
    let int = py.get_type::<PyInt>();
    Ok(int
        .call_method1(
            "from_bytes",
            (pyo3::types::PyBytes::new(py, &bytes), "little"),
        )?
        .unbind())
}

fn tuple_of<T: for<'py> IntoPyObject<'py> + Copy>(
    py: Python<'_>,
    items: &[T],
) -> PyResult<PyObject> {
    Ok(PyTuple::new(py, items.iter().copied())?.into_any().unbind())
}

/// A tuple of what `f` makes of each item.
fn tuple_map<'py, I: IntoIterator, T: IntoPyObject<'py>>(
    py: Python<'py>,
    items: I,
    f: impl FnMut(I::Item) -> PyResult<T>,
) -> PyResult<Bound<'py, PyTuple>> {
    PyTuple::new(py, items.into_iter().map(f).collect::<PyResult<Vec<T>>>()?)
}

/// A list of what `f` makes of each item.
fn list_map<'py, I: IntoIterator, T: IntoPyObject<'py>>(
    py: Python<'py>,
    items: I,
    f: impl FnMut(I::Item) -> PyResult<T>,
) -> PyResult<Bound<'py, PyList>> {
    PyList::new(py, items.into_iter().map(f).collect::<PyResult<Vec<T>>>()?)
}

/// `(position, item)` pairs as tuples of ints (the known cards of a deck).
fn pairs<'py>(py: Python<'py>, items: &[(usize, u8)]) -> PyResult<Bound<'py, PyTuple>> {
    tuple_map(py, items, |&(i, c)| PyTuple::new(py, [i, c as usize]))
}

/// The items of the seats in play (a board keeps four).
fn seats<'a, T>(b: &Board, items: &'a [T]) -> &'a [T] {
    &items[..b.players as usize]
}

/// A dict of `(key, value)` items, in their order.
fn dict_of<'py, K: IntoPyObject<'py>, V: IntoPyObject<'py>>(
    py: Python<'py>,
    items: impl IntoIterator<Item = (K, V)>,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (k, v) in items {
        d.set_item(k, v)?;
    }
    Ok(d)
}

/// The board's values that are Python objects built when first read, one row each:
/// `getter: Slot = |py, b| how it is built from the board b;`.  The table makes the `Slot`s
/// (and `Legal`, the state's own), `build`, and the getters of both classes
/// (`Holder::slot` keeps what `build` made until the board changes).
macro_rules! board_slots {
    (@getters $cls:ident $($name:ident $slot:ident)*) => {
        #[pymethods]
        impl $cls {
            $(
                #[getter]
                fn $name(&mut self, py: Python<'_>) -> PyResult<PyObject> {
                    self.slot(py, Slot::$slot)
                }
            )*
        }
    };
    ($($name:ident: $slot:ident = |$py:ident, $b:ident| $build:expr;)*) => {
        /// The Python values a board hands out, built when first asked for.
        #[derive(Clone, Copy, PartialEq, Eq)]
        enum Slot {
            $($slot,)*
            Legal,
        }

        const SLOTS: usize = [$(Slot::$slot,)* Slot::Legal].len();

        /// Builds the value of a slot from a board.
        fn build(py: Python<'_>, b: &Board, slot: Slot) -> PyResult<PyObject> {
            Ok(match slot {
                $(Slot::$slot => {
                    let ($py, $b) = (py, b);
                    $build?.into_any().unbind()
                })*
                Slot::Legal => PyList::empty(py).into_any().unbind(),
            })
        }

        board_slots!(@getters PyState $($name $slot)*);
        board_slots!(@getters PyView $($name $slot)*);
    };
}

board_slots! {
    taken: Taken = |py, b| PyTuple::new(py, &b.taken);
    put_back: PutBack = |py, b| PyTuple::new(py, b.put_back);
    tiles: Tiles = |py, b| dict_of(py, b.tile_items());
    bamboo: Bamboo = |py, b| dict_of(py, b.bamboo_items());
    improvement: Improvement = |py, b| dict_of(py, b.improvements.iter().copied());
    irrigated: Irrigated = |py, b| cells_frozenset(py, b.irrigated.iter());
    irrigated_by_colour: IrrigatedByColour =
        |py, b| tuple_map(py, &b.irrigated_by_colour, |s| big_int(py, s));
    channels: Channels = |py, b| cells_frozenset(py, b.channels.iter());
    network: Network = |py, b| cells_frozenset(py, b.network.iter());
    shoots: Shoots = |py, b| PyList::new(py, b.shoots);
    reserve_improvements: ReserveImprovements = |py, b| PyTuple::new(py, b.reserve_improvements);
    plot_known: PlotKnown = |py, b| PyTuple::new(py, &b.plot_known);
    objective_known: ObjectiveKnown =
        |py, b| tuple_map(py, &b.objective_known, |k| tuple_of(py, k));
    completed: Completed = |py, b| list_map(py, seats(b, &b.completed), |k| tuple_of(py, k));
    eaten: Eaten = |py, b| list_map(py, seats(b, &b.eaten), |k| tuple_of(py, k));
    stored_channels: StoredChannels = |py, b| PyList::new(py, seats(b, &b.stored_channels));
    stored_improvements: StoredImprovements =
        |py, b| list_map(py, seats(b, &b.stored_improvements), |k| tuple_of(py, k));
}

fn cell_arg(cell: i64) -> Option<u16> {
    (0..grid::SIZE as i64)
        .contains(&cell)
        .then_some(cell as u16)
}

/// A seat of the game, as the board's queries take it (IndexError otherwise).
fn seat_arg(b: &Board, seat: i64) -> PyResult<u8> {
    if (0..b.players as i64).contains(&seat) {
        Ok(seat as u8)
    } else {
        Err(PyIndexError::new_err(format!(
            "seat {seat} is not in the game"
        )))
    }
}

/// The known-marks of a deck resized to the deck a caller gave (new cards known to no one).
fn fit_known<const N: usize>(known: &mut arrayvec::ArrayVec<u8, N>, len: usize) {
    known.truncate(len);
    while known.len() < len {
        known.push(0);
    }
}

/// A card index of the game's set (printed and added cards).
fn card_arg(card: i64, set: &CardSet) -> PyResult<u8> {
    if (0..set.cards.len() as i64).contains(&card) {
        Ok(card as u8)
    } else {
        Err(PyIndexError::new_err(format!("{card} is not a card index")))
    }
}

/// A seat's points summed from a `card_points` of the caller's (any numbers).
fn python_score(py: Python<'_>, b: &Board, points: &Py<PyAny>, seat: u8) -> PyResult<PyObject> {
    let points = points.bind(py);
    let mut total = 0i64.into_pyobject(py)?.into_any();
    for &c in &b.completed[seat as usize] {
        total = total.add(points.get_item(c)?)?;
    }
    if b.emperor == seat as i8 {
        total = total.add(b.rules.emperor_points)?;
    }
    Ok(total.unbind())
}

/// The reference's objects a game is played with: its options, its card set, and the card
/// points read off the set or given by a caller.
struct GameObjects {
    options: Py<PyAny>,
    card_set: Py<PyAny>,
    card_points: Py<PyAny>,
    /// Whether `card_points` was given by a caller (then scores are summed from it, in
    /// Python, as the reference sums whatever it holds: an archetype's weighted points).
    points_set: bool,
}

impl GameObjects {
    /// The objects of a game, its card points the card set's own.
    fn new(py: Python<'_>, options: Py<PyAny>, card_set: Py<PyAny>) -> PyResult<GameObjects> {
        let card_points = card_set.bind(py).getattr("points")?.unbind();
        Ok(GameObjects {
            options,
            card_set,
            card_points,
            points_set: false,
        })
    }

    /// The same objects, for a copy, a view or a sample.
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

/// What `GameState` and `PlayerView` share: a board, its Python values, its options.
trait Holder {
    fn board(&self) -> &Board;
    fn objects(&self) -> &GameObjects;
    fn objects_mut(&mut self) -> &mut GameObjects;
    /// The value of a slot, built once per version of what it shows.
    fn slot(&mut self, py: Python<'_>, slot: Slot) -> PyResult<PyObject>;

    fn options_obj(&self) -> &Py<PyAny> {
        &self.objects().options
    }
    fn card_set_obj(&self) -> &Py<PyAny> {
        &self.objects().card_set
    }
    fn card_points_obj(&self) -> &Py<PyAny> {
        &self.objects().card_points
    }
    fn points_set(&self) -> bool {
        self.objects().points_set
    }
    /// Card points of the caller's own.
    fn set_points(&mut self, points: Py<PyAny>) {
        let objects = self.objects_mut();
        objects.card_points = points;
        objects.points_set = true;
    }
}

/// The getters of a class, made from a table with one row per field:
///
/// - `name: Type = |x| value;` a plain value read from `x = self.via()`;
/// - `name: py |x, py| value;` a Python object built at each read from `x = self.via()`
///   (a `PyResult` of a `Bound`);
/// - `name: object held;` an object the class holds (`self.held()`, the reference's own).
///
/// (The board's values kept between reads are `board_slots!`'s.)  The rows are munched one
/// by one into the items of a single `#[pymethods]` block: the attribute reads the block's
/// items as they are written, before any macro inside it would be expanded.
macro_rules! getters {
    (@rows $cls:ident $via:ident [$($done:tt)*]) => {
        #[pymethods]
        impl $cls {
            $($done)*
        }
    };
    (@rows $cls:ident $via:ident [$($done:tt)*] $name:ident: object $held:ident; $($rest:tt)*) => {
        getters!(@rows $cls $via [$($done)*
            #[getter]
            fn $name(&self, py: Python<'_>) -> PyObject {
                self.$held().clone_ref(py)
            }
        ] $($rest)*);
    };
    (@rows $cls:ident $via:ident [$($done:tt)*]
        $name:ident: py |$x:ident, $py:ident| $value:expr; $($rest:tt)*) => {
        getters!(@rows $cls $via [$($done)*
            #[getter]
            fn $name(&self, $py: Python<'_>) -> PyResult<PyObject> {
                let $x = self.$via();
                Ok($value?.into_any().unbind())
            }
        ] $($rest)*);
    };
    (@rows $cls:ident $via:ident [$($done:tt)*]
        $name:ident: $type:ty = |$x:ident| $value:expr; $($rest:tt)*) => {
        getters!(@rows $cls $via [$($done)*
            #[getter]
            fn $name(&self) -> $type {
                let $x = self.$via();
                $value
            }
        ] $($rest)*);
    };
    ($cls:ident via $via:ident { $($rows:tt)* }) => {
        getters!(@rows $cls $via [] $($rows)*);
    };
}

/// The board's attributes and queries, on both classes (the reference's `Board`).
macro_rules! board_api {
    ($cls:ident) => {
        getters!($cls via board {
            players: u8 = |b| b.players;
            options: object options_obj;
            card_set: object card_set_obj;
            card_points: object card_points_obj;
            round: u32 = |b| b.round;
            current: u8 = |b| b.current;
            step: u8 = |b| b.step;
            weather: i8 = |b| b.weather;
            step_name: &'static str = |b| STEP_NAMES[b.step as usize];
            gardener: u16 = |b| b.gardener;
            panda: u16 = |b| b.panda;
            reserve_channels: u32 = |b| b.reserve_channels;
            emperor: i8 = |b| b.emperor;
            last_turns: i32 = |b| b.last_turns;
            ended: bool = |b| b.ended;
            capped: bool = |b| b.capped;
        });

        #[pymethods]
        impl $cls {

            /// Colour of the plot at a cell (-1 for the pond and empty spaces).
            fn colour(&self, cell: i64) -> i8 {
                cell_arg(cell).map_or(-1, |c| self.board().colour(c))
            }
            /// Cells of the plots in play, in the order they were placed.
            fn plots(&self) -> Vec<u16> {
                self.board().plots().collect()
            }
            /// Empty spaces where a plot may go (R5.2), in cell order.
            fn placement_spaces<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
                PyTuple::new(py, self.board().placement_spaces())
            }
            /// Edges where a channel may go now (R6.2, R6.3), in edge order.
            fn channel_spots<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
                PyTuple::new(py, self.board().channel_spots())
            }
            /// Plots that may take an improvement (R11.1).
            fn improvable_plots(&self) -> Vec<u16> {
                self.board().improvable_plots().to_vec()
            }
            /// Plots whose improvement is a token.
            fn token_improvements(&self) -> Vec<u16> {
                self.board().token_improvements().to_vec()
            }
            /// Plots that rain would grow (R4.2).
            fn rain_targets(&self) -> Vec<u16> {
                self.board().rain_targets().to_vec()
            }
            /// Sections of a colour still in the reserve (R1.5).
            fn supply_left(&self, colour: i64) -> PyResult<i64> {
                if !(0..3).contains(&colour) {
                    return Err(PyIndexError::new_err(format!("{colour} is not a colour")));
                }
                Ok(self.board().supply_left(colour as u8))
            }
            /// Points per seat now (R13.3).
            fn scores(&self, py: Python<'_>) -> PyResult<PyObject> {
                if self.points_set() {
                    let parts: Vec<PyObject> = (0..self.board().players)
                        .map(|s| python_score(py, self.board(), self.card_points_obj(), s))
                        .collect::<PyResult<_>>()?;
                    return Ok(PyList::new(py, parts)?.into_any().unbind());
                }
                Ok(PyList::new(py, self.board().scores())?.into_any().unbind())
            }
            /// One seat's points.
            fn score(&self, py: Python<'_>, seat: i64) -> PyResult<PyObject> {
                let seat = seat_arg(self.board(), seat)?;
                if self.points_set() {
                    return python_score(py, self.board(), self.card_points_obj(), seat);
                }
                Ok(self
                    .board()
                    .score(seat)
                    .into_pyobject(py)?
                    .into_any()
                    .unbind())
            }
            /// Whether a plot card's pattern is on the board now (R10.3).
            fn plot_objective_found(&self, card: i64) -> PyResult<bool> {
                Ok(self.board().plot_objective_found(card_arg(card, &self.board().card_set)?))
            }
            /// Whether a gardener card's shoots are on the board now (R10.4, R10.5).
            fn gardener_objective_found(&self, card: i64) -> PyResult<bool> {
                Ok(self.board().gardener_objective_found(card_arg(card, &self.board().card_set)?))
            }
            /// Whether a card's condition holds now for a seat (R10.3-R10.6).
            fn objective_found(&self, seat: i64, card: i64) -> PyResult<bool> {
                let seat = seat_arg(self.board(), seat)?;
                Ok(self.board().objective_found(seat, card_arg(card, &self.board().card_set)?))
            }
            /// Every placement of a plot card's pattern on the board, as tuples of cells.
            fn plot_pattern_places<'py>(
                &self,
                py: Python<'py>,
                card: i64,
            ) -> PyResult<Bound<'py, PyList>> {
                let places = self.board().plot_pattern_places(card_arg(card, &self.board().card_set)?);
                let items: Vec<Bound<'py, PyTuple>> = places
                    .iter()
                    .map(|p| PyTuple::new(py, p))
                    .collect::<PyResult<_>>()?;
                PyList::new(py, items)
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
    /// Of everything; of the layout (tiles, improvements, irrigation, channels) only.
    version: u64,
    layout: u64,
    cache: Cache,
    /// The layout values, shared by the copies of one layout (built once for all of them,
    /// so they are the same objects, as the reference's copies share its dicts).
    shared: Shared,
    /// The order of `tiles` when a caller gave the dict another (the reference keeps the
    /// dict it is given, and a plot placed later comes last in it).
    tiles_order: Option<Vec<u16>>,
}

impl Holder for PyState {
    fn board(&self) -> &Board {
        &self.st.b
    }
    fn objects(&self) -> &GameObjects {
        &self.objects
    }
    fn objects_mut(&mut self) -> &mut GameObjects {
        &mut self.objects
    }
    fn slot(&mut self, py: Python<'_>, slot: Slot) -> PyResult<PyObject> {
        let version = if is_layout(slot) {
            self.layout
        } else {
            self.version
        };
        if is_layout(slot) {
            let shared = self.shared.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(obj) = shared.get(py, slot, version) {
                return Ok(obj);
            }
        } else if let Some(obj) = self.cache.get(py, slot, version) {
            return Ok(obj);
        }
        let obj = match (&self.tiles_order, slot) {
            (Some(order), Slot::Tiles) => {
                let d = PyDict::new(py);
                let b = &self.st.b;
                for &c in order
                    .iter()
                    .chain(b.order.iter().filter(|c| !order.contains(c)))
                {
                    d.set_item(c, b.tile(c))?;
                }
                d.into_any().unbind()
            }
            _ => build(py, &self.st.b, slot)?,
        };
        if is_layout(slot) {
            self.shared
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .put(py, slot, version, &obj);
        } else {
            self.cache.put(py, slot, version, &obj);
        }
        Ok(obj)
    }
}

board_api!(PyState);

fn entry_tuple(py: Python<'_>, e: &Entry) -> PyResult<PyObject> {
    let tag = e.tag();
    let round = e.round();
    let t = match e {
        Entry::Move { seat, action, .. } => {
            PyTuple::new(py, [tag as u32, round, *seat as u32, *action])?
        }
        Entry::Rolled { face, .. } => PyTuple::new(py, [tag as u32, round, *face as u32])?,
        Entry::DrewPlots { tiles, .. } => {
            let tiles = PyTuple::new(py, tiles.iter().copied())?;
            PyTuple::new(
                py,
                [
                    tag.into_pyobject(py)?.into_any(),
                    round.into_pyobject(py)?.into_any(),
                    tiles.into_any(),
                ],
            )?
        }
        Entry::Drew { card, .. } | Entry::Returned { card, .. } => {
            PyTuple::new(py, [tag as u32, round, *card as u32])?
        }
        Entry::Dealt { seat, hand, .. } => {
            let hand = PyTuple::new(py, hand.iter().copied())?;
            PyTuple::new(
                py,
                [
                    tag.into_pyobject(py)?.into_any(),
                    round.into_pyobject(py)?.into_any(),
                    seat.into_pyobject(py)?.into_any(),
                    hand.into_any(),
                ],
            )?
        }
        Entry::Emperor { seat, .. } => PyTuple::new(py, [tag as u32, round, *seat as u32])?,
        Entry::GameOver { .. } => PyTuple::new(py, [tag as u32, round])?,
    };
    Ok(t.into_any().unbind())
}

impl PyState {
    /// The core's state (what `getters!` reads the state's own fields from).
    fn state(&self) -> &State {
        &self.st
    }

    fn wrap(
        py: Python<'_>,
        st: State,
        options: Py<PyAny>,
        card_set: Py<PyAny>,
    ) -> PyResult<PyState> {
        let objects = GameObjects::new(py, options, card_set)?;
        let history = st.history.0.as_ref().map(|_| PyList::empty(py).unbind());
        let mut s = PyState {
            st,
            objects,
            history,
            synced: 0,
            version: fresh(),
            layout: fresh(),
            cache: Cache::default(),
            shared: new_shared(),
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

    fn changed(&mut self, layout: bool) {
        self.version = fresh();
        if layout {
            self.layout = fresh();
            self.shared = new_shared();
        }
    }

    fn copy_of(&self, py: Python<'_>, history: bool) -> PyResult<PyState> {
        let st = self.st.copy(history);
        let hist = match (&self.history, history) {
            (Some(list), true) => Some(PyList::new(py, list.bind(py).iter())?.unbind()),
            _ => None,
        };
        let mut cache = Cache::default();
        if let Some(legal) = &self.cache.slots[Slot::Legal as usize] {
            cache.slots[Slot::Legal as usize] = Some((legal.0, legal.1.clone_ref(py)));
        }
        Ok(PyState {
            synced: if hist.is_some() { self.synced } else { 0 },
            st,
            objects: self.objects.clone_ref(py),
            history: hist,
            version: self.version,
            layout: self.layout,
            cache,
            shared: self.shared.clone(),
            tiles_order: self.tiles_order.clone(),
        })
    }

    fn legal_list(&mut self, py: Python<'_>) -> PyResult<PyObject> {
        if let Some(obj) = self.cache.get(py, Slot::Legal, self.version) {
            return Ok(obj);
        }
        let context = game_context(&self.st);
        let st = &self.st;
        let legal = guard(py, context, || Ok(st.legal_actions()))?;
        let obj = PyList::new(py, legal.iter().copied())?.into_any().unbind();
        self.cache.put(py, Slot::Legal, self.version, &obj);
        Ok(obj)
    }

    fn do_apply(&mut self, py: Python<'_>, action: i64, checked: bool) -> PyResult<()> {
        let Ok(action) = u32::try_from(action) else {
            return Err(raise(
                py,
                Error::illegal(format!("{action} is not an action")),
            ));
        };
        let kind = action & actions::KIND_MASK;
        let layout = matches!(
            kind,
            actions::PLACE
                | actions::IRRIGATE
                | actions::CHANNEL
                | actions::IMPROVE
                | actions::CLOUDS
                | actions::CLOUDS_MOVE
        );
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
        self.changed(layout);
        self.sync(py)?;
        result.map_err(|e| raise(py, e))
    }
}

getters!(PyState via state {
    seed: i128 = |s| s.seed;
    rng: u64 = |s| s.rng;
    dice: py |s, py| PyTuple::new(py, &s.dice);
    drawn: py |s, py| PyTuple::new(py, &s.drawn);
    plot_deck: py |s, py| PyTuple::new(py, &s.plot_deck);
    objective_decks: py |s, py| tuple_map(py, &s.objective_decks, |d| tuple_of(py, d));
});

/// Card indexes of the game's set, at most `max` of them (`what` names the refused part).
fn cards_arg<const N: usize>(
    cards: &[i64],
    set: &CardSet,
    what: &str,
) -> PyResult<arrayvec::ArrayVec<u8, N>> {
    if cards.len() > N {
        return Err(PyValueError::new_err(format!("{what}: at most {N} cards")));
    }
    cards.iter().map(|&c| card_arg(c, set)).collect()
}

/// Tile codes (0..11), at most `N` of them.
fn tiles_arg<const N: usize>(tiles: &[i64], what: &str) -> PyResult<arrayvec::ArrayVec<u8, N>> {
    if tiles.len() > N || tiles.iter().any(|t| !(0..12).contains(t)) {
        return Err(PyValueError::new_err(format!(
            "{what}: at most {N} tile codes 0..11"
        )));
    }
    Ok(tiles.iter().map(|&t| t as u8).collect())
}

/// A board's layout (tiles, irrigation, channels, improvements) as sorted values.
fn layout_key(b: &Board) -> impl PartialEq {
    let mut tiles: Vec<(u16, u8)> = b.tile_items().collect();
    tiles.sort_unstable();
    let mut improvements = b.improvements.to_vec();
    improvements.sort_unstable();
    (tiles, b.irrigated, b.channels, improvements)
}

#[pymethods]
impl PyState {
    /// The seats' hands, a new list of tuples at each read (edits are `with_hand`'s and
    /// `with_hidden`'s).
    #[getter]
    fn hands<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        list_map(py, seats(&self.st.b, &self.st.hands), |h| tuple_of(py, h))
    }
    #[getter]
    fn history(&self, py: Python<'_>) -> PyObject {
        match &self.history {
            Some(list) => list.clone_ref(py).into_any(),
            None => py.None(),
        }
    }
    /// A copy in which `seat` holds `hand` (search asks "what if" of its own copies).
    fn with_hand(&self, py: Python<'_>, seat: i64, hand: Vec<i64>) -> PyResult<PyState> {
        let seat = seat_arg(&self.st.b, seat)?;
        let mut s = self.copy_of(py, false)?;
        s.st.hands[seat as usize] = cards_arg(&hand, &self.st.b.card_set, "hand")?;
        s.changed(false);
        Ok(s)
    }
    /// A copy (history kept) with the hidden parts given replaced: a test's or a
    /// diagnostic's twin that differs only in what some seat cannot see.  A deck's
    /// known-marks are fitted to its new length (new places known to no one).
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
        let mut s = self.copy_of(py, true)?;
        let set = &self.st.b.card_set;
        if let Some(hands) = hands {
            if hands.len() != self.st.b.players as usize {
                return Err(PyValueError::new_err("hands: one per seat"));
            }
            for (i, hand) in hands.iter().enumerate() {
                s.st.hands[i] = cards_arg(hand, set, "hands")?;
            }
        }
        if let Some(decks) = objective_decks {
            if decks.len() != 3 {
                return Err(PyValueError::new_err("objective_decks: one per category"));
            }
            for (k, deck) in decks.iter().enumerate() {
                s.st.objective_decks[k] = cards_arg(deck, set, "objective_decks")?;
                fit_known(&mut s.st.b.objective_known[k], deck.len());
            }
        }
        if let Some(deck) = plot_deck {
            s.st.plot_deck = tiles_arg(&deck, "plot_deck")?;
            fit_known(&mut s.st.b.plot_known, deck.len());
        }
        if let Some(drawn) = drawn {
            s.st.drawn = tiles_arg(&drawn, "drawn")?;
        }
        s.st.rng = rng.unwrap_or(s.st.rng);
        s.st.seed = seed.unwrap_or(s.st.seed);
        s.changed(false);
        Ok(s)
    }
    /// A copy at another step of the turn with another weather (the objective bot's probe:
    /// "what would one more action be worth").
    fn with_step(&self, py: Python<'_>, step: i64, weather: i64) -> PyResult<PyState> {
        if !(0..STEP_NAMES.len() as i64).contains(&step) {
            return Err(PyValueError::new_err(format!("{step} is not a step")));
        }
        if !(-1..6).contains(&weather) {
            return Err(PyValueError::new_err(format!("{weather} is not a weather")));
        }
        let mut s = self.copy_of(py, false)?;
        s.st.b.step = step as u8;
        s.st.b.weather = weather as i8;
        s.changed(false);
        Ok(s)
    }
    /// Takes the layout values of `other`, a state with the same layout: the same objects
    /// (tiles, irrigation, channels, improvements) from now on, in `other`'s order, as a
    /// search canonicalises its layouts for the caches that find a layout by identity.
    fn share_layout(&mut self, other: PyRef<'_, PyState>) -> PyResult<()> {
        let theirs = &other.st.b;
        if layout_key(&self.st.b) != layout_key(theirs) {
            return Err(PyValueError::new_err(
                "share_layout: the two layouts differ",
            ));
        }
        if self.st.b.improvements != theirs.improvements {
            self.st.b.improvements = theirs.improvements.clone();
            self.version = fresh();
        }
        let order = (other.tiles_order.clone()).unwrap_or_else(|| theirs.order.to_vec());
        let same = order.iter().eq(self.st.b.order.iter());
        self.tiles_order = if same { None } else { Some(order) };
        self.shared = other.shared.clone();
        self.layout = other.layout;
        Ok(())
    }
    /// A copy whose scores sum `points` (an archetype plans with weighted points).
    fn with_card_points(&self, py: Python<'_>, points: &Bound<'_, PyAny>) -> PyResult<PyState> {
        let mut s = self.copy_of(py, false)?;
        s.set_points(points.clone().unbind());
        Ok(s)
    }

    /// The actions the current seat may choose now (empty once the game is over); the same
    /// list until the state changes.
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
        let arg = |v: &Bound<'_, PyAny>| -> PyResult<placement::Arg> {
            // The reference takes exactly an int (not a bool, not a float).
            if v.is_exact_instance_of::<PyInt>() {
                if let Ok(i) = v.extract::<i128>() {
                    return Ok(placement::Arg::Int(i));
                }
            }
            Ok(placement::Arg::Other(v.repr()?.to_string()))
        };
        let card = arg(card)?;
        let seat = seat.map(arg).transpose()?;
        let depth = depth.map(arg).transpose()?;
        self.st
            .place_card(&card, seat.as_ref(), depth.as_ref())
            .map_err(|e| raise(py, e))?;
        self.changed(false);
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
    fn legal_actions(&mut self, py: Python<'_>) -> PyResult<PyObject> {
        self.legal_list(py)
    }
    fn __traverse__(&self, visit: pyo3::PyVisit<'_>) -> Result<(), pyo3::PyTraverseError> {
        self.objects.traverse(&visit)?;
        if let Some(h) = &self.history {
            visit.call(h)?;
        }
        for (_, obj) in self.cache.slots.iter().flatten() {
            visit.call(obj)?;
        }
        Ok(())
    }
    fn __clear__(&mut self) {
        self.cache = Cache::default();
        self.history = None;
    }
    fn is_terminal(&self) -> bool {
        self.st.b.ended
    }
    /// Actions the current seat may still take this turn (R3.3, R4.1).
    fn actions_left(&self) -> i64 {
        self.st.b.actions_left()
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
        seat: i64,
    ) -> PyResult<PyState> {
        if !(0..self.st.b.players as i64).contains(&seat) {
            return Err(PyValueError::new_err(format!(
                "seat {seat} is not in the game"
            )));
        }
        let mut s = self.copy_of(py, false)?;
        s.st = self.st.with_hidden_from(&sample.st, seat as u8);
        s.version = fresh();
        Ok(s)
    }
    /// Apply an action after checking it is legal; IllegalActionError if not.
    fn play(&mut self, py: Python<'_>, action: i64) -> PyResult<()> {
        self.do_apply(py, action, true)
    }
    /// Apply a legal action of the current seat, then resolve chance and forced steps.
    fn apply(&mut self, py: Python<'_>, action: i64) -> PyResult<()> {
        self.do_apply(py, action, false)
    }
    /// Points of completed panda objectives per seat (the tie-break of R13.4).
    fn panda_points(&self) -> Vec<i64> {
        self.st.panda_points()
    }
    /// Scores and winners (R13.3-R13.5); `excluded` seats cannot win.
    #[pyo3(signature = (excluded = None))]
    fn result(&self, py: Python<'_>, excluded: Option<Vec<i64>>) -> PyResult<PyObject> {
        result_object(py, &self.st, &excluded.unwrap_or_default())
    }
    /// Per seat: 1 for a win, 1/k for a victory shared by k, 0 otherwise.
    fn returns(&self) -> Vec<f64> {
        self.st.returns()
    }
    /// The history in notation.
    fn history_text(&self) -> Vec<String> {
        self.st.history_text()
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

/// The reference's `GameResult` of a state; `excluded` seats cannot win.
fn result_object(py: Python<'_>, st: &State, excluded: &[i64]) -> PyResult<PyObject> {
    let seats: Vec<u8> = excluded
        .iter()
        .filter(|&&s| (0..4).contains(&s))
        .map(|&s| s as u8)
        .collect();
    let r = st.result(&seats);
    let completed: Vec<Bound<'_, PyTuple>> = r
        .completed
        .iter()
        .map(|done| PyTuple::new(py, done.iter().map(|&c| st.b.card_set.id(c))))
        .collect::<PyResult<_>>()?;
    let kwargs = PyDict::new(py);
    kwargs.set_item("scores", PyTuple::new(py, &r.scores)?)?;
    kwargs.set_item("panda_points", PyTuple::new(py, &r.panda_points)?)?;
    kwargs.set_item("winners", PyTuple::new(py, &r.winners)?)?;
    kwargs.set_item("tiebreak", r.tiebreak)?;
    kwargs.set_item("emperor", r.emperor)?;
    kwargs.set_item("capped", r.capped)?;
    kwargs.set_item("rounds", r.rounds)?;
    kwargs.set_item("completed", PyTuple::new(py, completed)?)?;
    kwargs.set_item("excluded", PyTuple::new(py, excluded)?)?;
    Ok(game_result_class(py)?.call((), Some(&kwargs))?.unbind())
}

// ---------------------------------------------------------------------- PlayerView

/// What one seat may know (R2.6): the native `arena.engine.PlayerView`, a snapshot.
#[pyclass(name = "PlayerView", module = "arena.engine", subclass)]
pub struct PyView {
    v: View,
    objects: GameObjects,
    cache: Cache,
    /// The version of the state's layout it was made from (its samples share it).
    layout: u64,
    /// The layout values its samples share.
    samples: Shared,
}

impl Holder for PyView {
    fn board(&self) -> &Board {
        &self.v.b
    }
    fn objects(&self) -> &GameObjects {
        &self.objects
    }
    fn objects_mut(&mut self) -> &mut GameObjects {
        &mut self.objects
    }
    fn slot(&mut self, py: Python<'_>, slot: Slot) -> PyResult<PyObject> {
        let version = if is_layout(slot) { self.layout } else { 0 };
        if let Some(obj) = self.cache.get(py, slot, version) {
            return Ok(obj);
        }
        let mut obj = build(py, &self.v.b, slot)?;
        if matches!(slot, Slot::Tiles | Slot::Improvement) {
            // A view hands these out read-only (a bot that edits them fails in its own turn).
            obj = read_only(py)?.call1((obj,))?.unbind();
        }
        self.cache.put(py, slot, version, &obj);
        Ok(obj)
    }
}

board_api!(PyView);

/// The caller's generator, drawn from through its `getrandbits`; a `random.Random` is
/// shuffled here with those draws exactly as its `shuffle` would (`_randbelow` of each
/// place), a subclass by its own `shuffle` (it may draw otherwise).  So the generator ends
/// where the reference's `determinize` leaves it, at the cost of one call per draw.
struct PythonDraws<'a, 'py> {
    rng: &'a Bound<'py, PyAny>,
    getrandbits: Bound<'py, PyAny>,
    exact: bool,
    error: Option<PyErr>,
}

impl<'a, 'py> PythonDraws<'a, 'py> {
    /// Draws from the caller's generator.
    fn new(rng: &'a Bound<'py, PyAny>) -> PyResult<PythonDraws<'a, 'py>> {
        Ok(PythonDraws {
            getrandbits: rng.getattr("getrandbits")?,
            rng,
            exact: rng.get_type().is(&random_class(rng.py())?),
            error: None,
        })
    }

    fn below(&mut self, n: u64) -> u64 {
        let k = 64 - n.leading_zeros();
        loop {
            let r = self.getrandbits(k) as u64;
            if r < n || self.error.is_some() {
                return r.min(n - 1);
            }
        }
    }
}

impl Draws for PythonDraws<'_, '_> {
    fn getrandbits(&mut self, k: u32) -> u128 {
        match self
            .getrandbits
            .call1((k,))
            .and_then(|v| v.extract::<u128>())
        {
            Ok(v) => v,
            Err(e) => {
                self.error.get_or_insert(e);
                0
            }
        }
    }
    fn shuffle(&mut self, items: &mut [u8]) {
        if self.exact {
            for i in (1..items.len()).rev() {
                let j = self.below(i as u64 + 1) as usize;
                items.swap(i, j);
            }
            return;
        }
        let py = self.rng.py();
        let done = PyList::new(py, items.iter().copied()).and_then(|list| {
            self.rng.call_method1("shuffle", (&list,))?;
            list.extract::<Vec<u8>>()
        });
        match done {
            Ok(v) if v.len() == items.len() => items.copy_from_slice(&v),
            Ok(_) => {}
            Err(e) => {
                self.error.get_or_insert(e);
            }
        }
    }
}

impl PyView {
    /// The core's view (what `getters!` reads the view's own fields from).
    fn view(&self) -> &View {
        &self.v
    }

    /// A copy holding the same values (`PlayerView(view)`, `copy.copy(view)`).
    fn duplicate(&self, py: Python<'_>) -> PyView {
        PyView {
            v: self.v.clone(),
            objects: self.objects.clone_ref(py),
            cache: self.cache.clone_ref(py),
            layout: self.layout,
            samples: self.samples.clone(),
        }
    }

    fn of_state(py: Python<'_>, state: &mut PyState, seat: i64) -> PyResult<PyView> {
        let v = View::of(&state.st, seat).map_err(|e| raise(py, e))?;
        // The layout values of the state, read-only where the reference hands out proxies,
        // so that views of one layout share them (bots cache per layout by identity).
        let mut cache = Cache::default();
        for slot in LAYOUT {
            let mut obj = state.slot(py, slot)?;
            if matches!(slot, Slot::Tiles | Slot::Improvement) {
                obj = read_only(py)?.call1((obj,))?.unbind();
            }
            cache.put(py, slot, state.layout, &obj);
        }
        Ok(PyView {
            v,
            objects: state.objects.clone_ref(py),
            cache,
            layout: state.layout,
            samples: new_shared(),
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
    fn __copy__(&self, py: Python<'_>) -> PyView {
        self.duplicate(py)
    }
    /// A copy whose scores sum `points` (an archetype plans with weighted points).
    fn with_card_points(&self, py: Python<'_>, points: &Bound<'_, PyAny>) -> PyView {
        let mut v = self.duplicate(py);
        v.set_points(points.clone().unbind());
        v
    }
    fn __traverse__(&self, visit: pyo3::PyVisit<'_>) -> Result<(), pyo3::PyTraverseError> {
        self.objects.traverse(&visit)?;
        for (_, obj) in self.cache.slots.iter().flatten() {
            visit.call(obj)?;
        }
        Ok(())
    }
    fn __clear__(&mut self) {
        self.cache = Cache::default();
    }
    /// The view of `seat` on `state`.
    #[staticmethod]
    fn of(py: Python<'_>, mut state: PyRefMut<'_, PyState>, seat: i64) -> PyResult<PyView> {
        let context = game_context(&state.st);
        guard(py, context, || PyView::of_state(py, &mut state, seat))
    }
    /// How many objectives a seat holds.
    fn hand_size(&self, seat: i64) -> PyResult<usize> {
        if !(0..self.v.b.players as i64).contains(&seat) {
            return Err(PyIndexError::new_err("tuple index out of range"));
        }
        Ok(self.v.hand_size(seat as usize))
    }
    /// Plots this seat has not seen, sorted.
    fn unseen_plots(&self) -> Vec<u16> {
        self.v.unseen_plots().into_iter().map(u16::from).collect()
    }
    /// Cards of a category this seat has not seen.
    fn unseen_cards(&self, category: i64) -> PyResult<Vec<u16>> {
        if !(0..3).contains(&category) {
            return Err(PyIndexError::new_err(format!(
                "{category} is not a category"
            )));
        }
        Ok(self
            .v
            .unseen_cards(category as usize)
            .into_iter()
            .map(u16::from)
            .collect())
    }
    /// A full state consistent with this view, the hidden parts drawn from `rng` (the
    /// same draws as the reference: a `random.Random` ends where the reference leaves it).
    #[pyo3(signature = (rng, legal = None))]
    fn determinize(
        &mut self,
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
            match draws.error {
                Some(e) => Err(e),
                None => Ok(st),
            }
        })?;
        // The samples of a view share its layout values (built once, the same objects).
        let filled = self
            .samples
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(py, Slot::Tiles, self.layout)
            .is_some();
        if !filled {
            let mut layout = Cache::default();
            for slot in LAYOUT {
                let obj = self.slot(py, slot)?;
                layout.put(py, slot, self.layout, &obj);
            }
            *self.samples.lock().unwrap_or_else(|e| e.into_inner()) = layout;
        }
        let mut cache = Cache::default();
        let version = fresh();
        if let Some(legal) = legal {
            if self.v.b.current == self.v.seat {
                let list = PyList::new(py, legal.try_iter()?.collect::<PyResult<Vec<_>>>()?)?
                    .into_any()
                    .unbind();
                cache.put(py, Slot::Legal, version, &list);
            }
        }
        Ok(PyState {
            st,
            objects: self.objects.clone_ref(py),
            history: None,
            synced: 0,
            version,
            layout: self.layout,
            cache,
            shared: self.samples.clone(),
            tiles_order: None,
        })
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
        let order: Vec<u16> = self.v.b.improvements.iter().map(|&(c, _)| c).collect();
        Ok((
            module.getattr("_view_from_pickle")?.unbind(),
            (self.v.to_json().dump(), order),
        ))
    }
}

getters!(PyView via view {
    seat: u8 = |v| v.seat;
    drawn: py |v, py| PyTuple::new(py, &v.drawn);
    drawn_count: usize = |v| v.drawn_count;
    plot_deck_size: usize = |v| v.plot_deck_size;
    known_plots: py |v, py| pairs(py, &v.known_plots);
    objective_deck_sizes: py |v, py| PyTuple::new(py, v.objective_deck_sizes);
    known_objectives: py |v, py| tuple_map(py, &v.known_objectives, |k| pairs(py, k));
    hand: py |v, py| PyTuple::new(py, &v.hand);
    hand_categories: py |v, py| tuple_map(py, &v.hand_categories, |h| tuple_of(py, h));
});

// ---------------------------------------------------------------------- functions

fn state_from(
    py: Python<'_>,
    st: State,
    options: Py<PyAny>,
    cards: Py<PyAny>,
) -> PyResult<PyState> {
    PyState::wrap(py, st, options, cards)
}

/// A new game (R2): the reference's `new_game`, arguments given in full.
#[pyfunction]
fn new_game(
    py: Python<'_>,
    players: i64,
    seed: &Bound<'_, PyAny>,
    options: &Bound<'_, PyAny>,
    dice: Vec<i64>,
    history: bool,
    cards: &Bound<'_, PyAny>,
) -> PyResult<PyState> {
    if !(2..=4).contains(&players) {
        return Err(PyValueError::new_err(format!(
            "a game has 2, 3 or 4 players, not {players}"
        )));
    }
    let seed: i128 = match seed.extract::<i128>() {
        Ok(s) => s,
        Err(_) => {
            // Any int: only its low 64 bits are used, but it is written back as given.
            let low: u64 = seed.call_method1("__and__", (u64::MAX,))?.extract()?;
            low as i128
        }
    };
    if dice.iter().any(|f| !(0..6).contains(f)) {
        return Err(PyValueError::new_err("dice: faces are 0..5"));
    }
    let faces: Vec<u8> = dice.iter().map(|&f| f as u8).collect();
    let core_opts = core_options(py, options)?;
    let core_set = core_cards(py, cards)?;
    let st = guard(
        py,
        || format!("new game, seed {seed}"),
        || {
            State::new(players as usize, seed, core_opts, &faces, history, core_set)
                .map_err(|e| raise(py, e))
        },
    )?;
    state_from(py, st, options.clone().unbind(), cards.clone().unbind())
}

/// A state from a position (a dict as read from JSON); PositionError names the bad field.
#[pyfunction]
fn from_position(py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<PyState> {
    let data = to_json(data)?;
    let st = guard(
        py,
        || "reading a position".into(),
        || position::from_position(&data).map_err(|e| raise(py, e)),
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
        cache: Cache::default(),
        layout: fresh(),
        samples: new_shared(),
    })
}

/// The notation of an action (docs/notation.md).
#[pyfunction]
fn action_text(action: u64) -> PyResult<String> {
    actions::try_text(action)
        .ok_or_else(|| PyValueError::new_err(format!("not an action: {action}")))
}

/// The action of a notation text; NotationError when malformed.
#[pyfunction]
fn parse_action(py: Python<'_>, text: &str) -> PyResult<u32> {
    actions::parse(text).map_err(|e| raise(py, e))
}

/// Options from JSON as the native side reads them: the dict of `to_dict`, back.
#[pyfunction]
fn options_from_dict(py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<PyObject> {
    let o = RuleOptions::from_dict(&to_json(data)?).map_err(|m| raise(py, Error::option(m)))?;
    from_json(py, &o.to_dict(false))
}

/// Options from `NAME=VALUE` texts as the native side reads them.
#[pyfunction]
fn options_from_pairs(py: Python<'_>, pairs: Vec<String>) -> PyResult<PyObject> {
    let o = RuleOptions::from_pairs(&pairs).map_err(|m| raise(py, Error::option(m)))?;
    from_json(py, &o.to_dict(false))
}

/// The option table as the native side read it: (name, type, default) per option.
#[pyfunction]
fn option_table(py: Python<'_>) -> PyResult<Vec<(String, String, PyObject)>> {
    let table = &*takenoko::options::TABLE;
    table
        .specs
        .iter()
        .map(|s| {
            let kind = match s.kind {
                takenoko::options::OptionType::Bool => "bool",
                takenoko::options::OptionType::Choice(_) => "choice",
                takenoko::options::OptionType::Int { .. } => "int",
                takenoko::options::OptionType::PerPlayers { .. } => "per_players",
            };
            Ok((
                s.name.clone(),
                kind.to_string(),
                from_json(py, &takenoko::options::value_json(s, &s.default))?,
            ))
        })
        .collect()
}

/// `random.Random(seed)`'s draws as the core makes them (for the tests against CPython):
/// each call is `(method, argument)`: `getrandbits k`, `random`, `randbelow n`, `shuffle n`
/// (the permutation of range(n)), `choice n` (the index).
#[pyfunction]
fn python_random_draws(
    py: Python<'_>,
    seed: i128,
    calls: Vec<(String, u64)>,
) -> PyResult<Vec<PyObject>> {
    let mut r = PyRandom::new(seed);
    let mut out = Vec::new();
    for (method, n) in calls {
        out.push(match method.as_str() {
            "getrandbits" => r
                .getrandbits(n as u32)
                .into_pyobject(py)?
                .into_any()
                .unbind(),
            "random" => PyFloat::new(py, r.random()).into_any().unbind(),
            "randbelow" => r.randbelow(n).into_pyobject(py)?.into_any().unbind(),
            "choice" => r
                .choice_index(n as usize)
                .into_pyobject(py)?
                .into_any()
                .unbind(),
            "shuffle" => {
                let mut items: Vec<u32> = (0..n as u32).collect();
                r.shuffle(&mut items);
                PyList::new(py, items)?.into_any().unbind()
            }
            other => return Err(PyTypeError::new_err(format!("no draw {other}"))),
        });
    }
    Ok(out)
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
    m.add_function(wrap_pyfunction!(new_game, m)?)?;
    m.add_function(wrap_pyfunction!(from_position, m)?)?;
    m.add_function(wrap_pyfunction!(to_position, m)?)?;
    m.add_function(wrap_pyfunction!(positions_equal, m)?)?;
    m.add_function(wrap_pyfunction!(action_text, m)?)?;
    m.add_function(wrap_pyfunction!(parse_action, m)?)?;
    m.add_function(wrap_pyfunction!(options_from_dict, m)?)?;
    m.add_function(wrap_pyfunction!(options_from_pairs, m)?)?;
    m.add_function(wrap_pyfunction!(option_table, m)?)?;
    m.add_function(wrap_pyfunction!(python_random_draws, m)?)?;
    m.add_function(wrap_pyfunction!(_plant_panic, m)?)?;
    m.add_function(wrap_pyfunction!(_state_from_pickle, m)?)?;
    m.add_function(wrap_pyfunction!(_view_from_pickle, m)?)?;
    m.add_class::<referee::Played>()?;
    m.add_function(wrap_pyfunction!(learned::feature_names, m)?)?;
    m.add_function(wrap_pyfunction!(learned::value_features, m)?)?;
    m.add_function(wrap_pyfunction!(learned::value_logit, m)?)?;
    m.add_function(wrap_pyfunction!(learned::selfplay, m)?)?;
    for f in [
        wrap_pyfunction!(referee::derive_seed, m)?,
        wrap_pyfunction!(referee::bot_seed, m)?,
        wrap_pyfunction!(referee::bot_names, m)?,
        wrap_pyfunction!(referee::bot_params, m)?,
        wrap_pyfunction!(referee::check_bot_params, m)?,
        wrap_pyfunction!(referee::_test_bots, m)?,
        wrap_pyfunction!(referee::play_game, m)?,
        wrap_pyfunction!(referee::play_batch, m)?,
        wrap_pyfunction!(referee::record_fields, m)?,
        wrap_pyfunction!(record::record_line, m)?,
        wrap_pyfunction!(check_card_set, m)?,
    ] {
        m.add_function(f)?;
    }
    let kinds: Vec<(&str, u8)> = Kind::ALL.iter().map(|k| (k.name(), *k as u8)).collect();
    m.add("KINDS", kinds)?;
    m.add("CELLS", GRID.cells.len())?;
    Ok(())
}
