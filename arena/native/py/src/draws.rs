//! The caller's generator from Rust: drawn from through its methods (`PythonDraws`, so it
//! ends where the Python code would leave it), or read and written back as a state
//! (`generator`, `rng_state`: a search's thousands of draws, a native seat's generator).
//! One place for what a determinize, a Python bot's native twin and the referee share.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyInt, PyList, PyTuple};

use takenoko::bots::draws::{randbelow_by_bits, random_by_bits, BotDraws};
use takenoko::rng::PyRandom;
use takenoko::view::Draws;

use super::random_class;

/// The caller's generator, drawn from through its `getrandbits`; a `random.Random` is
/// shuffled here with those draws exactly as its `shuffle` would (`_randbelow` of each
/// place), a subclass by its own `shuffle` (it may draw otherwise).  So the generator ends
/// where the reference's `determinize` leaves it, at the cost of one call per draw.
pub(crate) struct PythonDraws<'a, 'py> {
    rng: &'a Bound<'py, PyAny>,
    getrandbits: Bound<'py, PyAny>,
    exact: bool,
    pub(crate) error: Option<PyErr>,
}

impl<'a, 'py> PythonDraws<'a, 'py> {
    /// Draws from the caller's generator.
    pub(crate) fn new(rng: &'a Bound<'py, PyAny>) -> PyResult<PythonDraws<'a, 'py>> {
        Ok(PythonDraws {
            getrandbits: rng.getattr("getrandbits")?,
            rng,
            exact: rng.get_type().is(&random_class(rng.py())?),
            error: None,
        })
    }

    /// What a call of the generator gave, or `fallback` with its error kept (the first one,
    /// raised once the sample is made).
    fn kept<T>(&mut self, drawn: PyResult<T>, fallback: T) -> T {
        drawn.unwrap_or_else(|e| {
            self.error.get_or_insert(e);
            fallback
        })
    }
}

impl Draws for PythonDraws<'_, '_> {
    fn getrandbits(&mut self, k: u32) -> u128 {
        let drawn = self.getrandbits.call1((k,)).and_then(|v| v.extract());
        self.kept(drawn, 0)
    }
    fn shuffle(&mut self, items: &mut [u8]) {
        if self.exact {
            for i in (1..items.len()).rev() {
                let j = randbelow_by_bits(self, i as u64 + 1) as usize;
                items.swap(i, j);
            }
            return;
        }
        let py = self.rng.py();
        let done = PyList::new(py, items.iter().copied()).and_then(|list| {
            self.rng.call_method1("shuffle", (&list,))?;
            list.extract::<Vec<u8>>()
        });
        let v = self.kept(done, Vec::new());
        if v.len() == items.len() {
            items.copy_from_slice(&v);
        }
    }
}

impl BotDraws for PythonDraws<'_, '_> {
    fn randrange(&mut self, n: usize) -> usize {
        if self.exact {
            return randbelow_by_bits(self, n as u64) as usize;
        }
        let drawn = self
            .rng
            .call_method1("randrange", (n,))
            .and_then(|v| v.extract());
        let v = self.kept(drawn, 0);
        if v < n {
            v
        } else {
            0
        }
    }

    fn random(&mut self) -> f64 {
        if self.exact {
            return random_by_bits(self);
        }
        let drawn = self.rng.call_method0("random").and_then(|v| v.extract());
        let v = self.kept(drawn, 0.0);
        if (0.0..1.0).contains(&v) {
            v
        } else {
            0.0
        }
    }
}

/// The generator of a `random.Random` (not a subclass: it may draw otherwise), read with
/// `getstate`; None when its state is not one CPython's version 3 makes.
pub(crate) fn exact_generator(
    py: Python<'_>,
    rng: &Bound<'_, PyAny>,
) -> PyResult<Option<PyRandom>> {
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
pub(crate) fn put_generator(py: Python<'_>, rng: &Bound<'_, PyAny>, r: &PyRandom) -> PyResult<()> {
    rng.call_method1("setstate", (rng_state(py, r)?,))?;
    Ok(())
}

/// A generator from `random.Random.getstate()` (its version, words and `gauss_next`), or
/// an int seed.
pub(crate) fn generator(rng: &Bound<'_, PyAny>) -> PyResult<PyRandom> {
    if rng.is_instance_of::<PyInt>() {
        return Ok(PyRandom::new(rng.extract()?));
    }
    let (_, words, gauss): (i64, Vec<u32>, Option<f64>) = rng.extract()?;
    PyRandom::from_state_words(&words, gauss)
        .ok_or_else(|| PyValueError::new_err("not a random.Random state"))
}

pub(crate) fn rng_state<'py>(py: Python<'py>, r: &PyRandom) -> PyResult<Bound<'py, PyTuple>> {
    let words = PyTuple::new(py, r.state_words())?;
    (3, words, r.gauss_next).into_pyobject(py)
}
