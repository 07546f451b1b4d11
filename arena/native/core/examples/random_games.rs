//! Random games per second in the core alone (no Python): `cargo run --release --example
//! random_games`.

use std::sync::Arc;
use std::time::Instant;

use takenoko::rng::PyRandom;
use takenoko::State;

fn main() {
    let mut r = PyRandom::new(1);
    let start = Instant::now();
    let (mut games, mut decisions) = (0u64, 0u64);
    while start.elapsed().as_secs_f64() < 2.0 {
        let mut s = State::new(2, games as i128, Arc::default(), &[], false, Arc::default())
            .expect("a new game");
        while !s.is_terminal() {
            let legal = s.legal_actions();
            let a = legal[r.randbelow(legal.len() as u64) as usize];
            s.apply(a).expect("a legal action");
            decisions += 1;
        }
        games += 1;
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{:.0} games/s, {:.0} decisions/s, {:.0} decisions per game",
        games as f64 / secs,
        decisions as f64 / secs,
        decisions as f64 / games as f64
    );
}
