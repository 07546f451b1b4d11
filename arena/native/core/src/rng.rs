//! The two generators of the game: SplitMix64 (the engine's own, one u64 of state) and
//! Python's `random.Random` (MT19937 as CPython seeds and draws from it), which bots and
//! `determinize` draw from, reproduced draw for draw.

pub const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;

/// Initial SplitMix64 state for a game seed (any integer: its low 64 bits).
pub fn seed_state(seed: i128) -> u64 {
    seed as u64
}

/// Advances the state: `(new state, 64-bit output)`.
pub fn next_state(state: u64) -> (u64, u64) {
    let state = state.wrapping_add(GOLDEN);
    let mut z = state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (state, z ^ (z >> 31))
}

/// `(new state, x)`, x uniform below n by rejection (as the reference's `rng.below`).
pub fn below(mut state: u64, n: u64) -> (u64, u64) {
    // limit = 2**64 - 2**64 % n, computed in 128 bits.
    let m = 1u128 << 64;
    let limit = m - m % n as u128;
    loop {
        let (s, z) = next_state(state);
        state = s;
        if (z as u128) < limit {
            return (state, z % n);
        }
    }
}

/// Fisher-Yates with `below`, as the reference's `rng.shuffled`.
pub fn shuffle<T>(mut state: u64, items: &mut [T]) -> u64 {
    for i in (1..items.len()).rev() {
        let (s, j) = below(state, i as u64 + 1);
        state = s;
        items.swap(i, j as usize);
    }
    state
}

const N: usize = 624;
const M: usize = 397;

/// CPython's `random.Random`: MT19937 with its seeding and its ways of drawing.
#[derive(Clone)]
pub struct PyRandom {
    pub mt: [u32; N],
    pub index: usize,
    /// `gauss_next` of the Python state, carried through untouched.
    pub gauss_next: Option<f64>,
}

impl PyRandom {
    fn init_genrand(s: u32) -> PyRandom {
        let mut mt = [0u32; N];
        mt[0] = s;
        for i in 1..N {
            mt[i] = 1_812_433_253u32
                .wrapping_mul(mt[i - 1] ^ (mt[i - 1] >> 30))
                .wrapping_add(i as u32);
        }
        PyRandom {
            mt,
            index: N,
            gauss_next: None,
        }
    }

    /// `random.Random(seed)` for an int seed (its absolute value, in 32-bit words).
    pub fn new(seed: i128) -> PyRandom {
        let mut key: Vec<u32> = Vec::new();
        let mut n = seed.unsigned_abs();
        while n > 0 {
            key.push(n as u32);
            n >>= 32;
        }
        if key.is_empty() {
            key.push(0);
        }
        PyRandom::from_key(&key)
    }

    /// `init_by_array` over 32-bit words, least significant first.
    pub fn from_key(key: &[u32]) -> PyRandom {
        let mut r = PyRandom::init_genrand(19_650_218);
        let mt = &mut r.mt;
        let (mut i, mut j) = (1usize, 0usize);
        for _ in 0..N.max(key.len()) {
            mt[i] = (mt[i] ^ (mt[i - 1] ^ (mt[i - 1] >> 30)).wrapping_mul(1_664_525))
                .wrapping_add(key[j])
                .wrapping_add(j as u32);
            i += 1;
            j += 1;
            if i >= N {
                mt[0] = mt[N - 1];
                i = 1;
            }
            if j >= key.len() {
                j = 0;
            }
        }
        for _ in 0..N - 1 {
            mt[i] = (mt[i] ^ (mt[i - 1] ^ (mt[i - 1] >> 30)).wrapping_mul(1_566_083_941))
                .wrapping_sub(i as u32);
            i += 1;
            if i >= N {
                mt[0] = mt[N - 1];
                i = 1;
            }
        }
        mt[0] = 0x8000_0000;
        r
    }

    /// The next 624 words of the state (MT19937's twist, in the reference's three runs:
    /// no index wraps inside a run).
    fn twist(&mut self) {
        let mt = &mut self.mt;
        let step = |a: u32, b: u32, c: u32| {
            let y = (a & 0x8000_0000) | (b & 0x7fff_ffff);
            c ^ (y >> 1) ^ (if y & 1 != 0 { 0x9908_b0df } else { 0 })
        };
        for k in 0..N - M {
            mt[k] = step(mt[k], mt[k + 1], mt[k + M]);
        }
        for k in N - M..N - 1 {
            mt[k] = step(mt[k], mt[k + 1], mt[k + M - N]);
        }
        mt[N - 1] = step(mt[N - 1], mt[0], mt[M - 1]);
        self.index = 0;
    }

    /// The next 32-bit output.
    #[inline]
    pub fn next_u32(&mut self) -> u32 {
        if self.index >= N {
            self.twist();
        }
        let mut y = self.mt[self.index];
        self.index += 1;
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c_5680;
        y ^= (y << 15) & 0xefc6_0000;
        y ^ (y >> 18)
    }

    /// `getrandbits(k)` for k <= 128.
    #[inline]
    pub fn getrandbits(&mut self, k: u32) -> u128 {
        if k == 0 {
            return 0;
        }
        if k <= 32 {
            return (self.next_u32() >> (32 - k)) as u128;
        }
        let mut out: u128 = 0;
        let mut left = k;
        let mut shift = 0;
        while left > 0 {
            let mut r = self.next_u32();
            if left < 32 {
                r >>= 32 - left;
            }
            out |= (r as u128) << shift;
            shift += 32;
            left = left.saturating_sub(32);
        }
        out
    }

    /// `random()`: a float in [0, 1) from 53 bits.
    #[inline]
    pub fn random(&mut self) -> f64 {
        let a = (self.next_u32() >> 5) as f64;
        let b = (self.next_u32() >> 6) as f64;
        (a * 67_108_864.0 + b) * (1.0 / 9_007_199_254_740_992.0)
    }

    /// `_randbelow(n)`: getrandbits of n's bit length until below n.
    #[inline]
    pub fn randbelow(&mut self, n: u64) -> u64 {
        if n == 0 {
            return 0;
        }
        let k = 64 - n.leading_zeros();
        loop {
            let r = self.getrandbits(k) as u64;
            if r < n {
                return r;
            }
        }
    }

    /// `randrange(start, stop)` with step 1 (stop > start).
    pub fn randrange(&mut self, start: i64, stop: i64) -> i64 {
        start + self.randbelow((stop - start) as u64) as i64
    }

    /// `choice(seq)`'s index for a sequence of this length (> 0).
    pub fn choice_index(&mut self, len: usize) -> usize {
        self.randbelow(len as u64) as usize
    }

    /// `shuffle(items)`.
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.randbelow(i as u64 + 1) as usize;
            items.swap(i, j);
        }
    }

    /// The 625 words of `getstate()[1]` (the state and the index).
    pub fn state_words(&self) -> Vec<u32> {
        let mut out = self.mt.to_vec();
        out.push(self.index as u32);
        out
    }

    /// From `getstate()`'s words; None when they are not 625 with an index <= 624.
    pub fn from_state_words(words: &[u32], gauss_next: Option<f64>) -> Option<PyRandom> {
        if words.len() != N + 1 || words[N] as usize > N {
            return None;
        }
        let mut mt = [0u32; N];
        mt.copy_from_slice(&words[..N]);
        Some(PyRandom {
            mt,
            index: words[N] as usize,
            gauss_next,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_outputs() {
        // random.Random(0).getrandbits(32), .random() of a fresh Random(42), as CPython gives.
        assert_eq!(PyRandom::new(0).getrandbits(32), 3_626_764_237);
        let x = PyRandom::new(42).random();
        assert!((x - 0.639_426_798_457_883_8).abs() < 1e-16);
        assert_eq!(next_state(0).1, 0xE220_A839_7B1D_CDAF);
        // Past several twists of the state: random.Random(5)'s 2001st getrandbits(32).
        let mut r = PyRandom::new(5);
        for _ in 0..2000 {
            r.next_u32();
        }
        assert_eq!(r.getrandbits(32), 3_742_285_322);
    }
}
