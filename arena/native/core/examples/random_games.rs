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
    let limit: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(u64::MAX);
    while start.elapsed().as_secs_f64() < 2.0 && games < limit {
        let mut s = State::new(2, games as i128, Arc::default(), &[], false, Arc::default())
            .expect("a new game");
        let mut legal = takenoko::state::Legal::new();
        while !s.is_terminal() {
            s.legal_into(&mut legal);
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
