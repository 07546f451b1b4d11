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

/// `random()` through `getrandbits`, as CPython's: two 32-bit words, 27 and 26 of their
/// bits.
pub fn random_by_bits<R: Draws + ?Sized>(rng: &mut R) -> f64 {
    let a = (rng.getrandbits(32) as u32 >> 5) as f64;
    let b = (rng.getrandbits(32) as u32 >> 6) as f64;
    (a * 67_108_864.0 + b) * (1.0 / 9_007_199_254_740_992.0)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_through_getrandbits_are_the_generator_s_own() {
        for seed in 0..50 {
            let (mut bits, mut own) = (PyRandom::new(seed), PyRandom::new(seed));
            assert_eq!(random_by_bits(&mut bits), own.random());
            assert_eq!(
                randbelow_by_bits(&mut bits, 7 + seed as u64),
                own.randbelow(7 + seed as u64)
            );
        }
    }
}
