//! The random draws a bot makes: those of CPython's `random.Random`, so that a Rust bot and
//! its Python original draw the same numbers from generators seeded alike.

use crate::rng::PyRandom;
use crate::view::Draws;

/// What a bot draws: a sample's draws ([`Draws`], for `View::determinize`) and
/// `randrange(n)` for a tie.
pub trait BotDraws: Draws {
    /// `random.Random.randrange(n)` for n > 0.
    fn randrange(&mut self, n: usize) -> usize;
    /// `random.Random.random()`: a float in [0, 1).
    fn random(&mut self) -> f64;
}

impl BotDraws for PyRandom {
    fn randrange(&mut self, n: usize) -> usize {
        self.randbelow(n as u64) as usize
    }
    fn random(&mut self) -> f64 {
        PyRandom::random(self)
    }
}

/// `randbelow(n)` through `getrandbits`, as CPython's `_randbelow_with_getrandbits`.
pub fn randbelow_by_bits<R: Draws + ?Sized>(rng: &mut R, n: u64) -> u64 {
    if n == 0 {
        return 0;
    }
    let k = 64 - n.leading_zeros();
    loop {
        let r = rng.getrandbits(k) as u64;
        if r < n {
            return r;
        }
    }
}

/// The first of the actions whose value is within 1e-9 of the best, or one of them drawn
/// with `randrange` when several are (the Python bots' `_best`; `values` is not empty).
pub fn best<R: BotDraws>(actions: &[u32], values: &[f64], rng: &mut R) -> u32 {
    let mut top = values[0];
    for &v in &values[1..] {
        if v > top {
            top = v;
        }
    }
    let ties: arrayvec::ArrayVec<u32, { crate::state::MAX_LEGAL }> = actions
        .iter()
        .zip(values)
        .filter(|(_, &v)| v >= top - 1e-9)
        .map(|(&a, _)| a)
        .collect();
    if ties.len() > 1 {
        ties[rng.randrange(ties.len())]
    } else {
        ties[0]
    }
}
