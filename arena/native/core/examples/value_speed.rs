//! The cost of the learned value (issue 51 asks for at most 10 µs a position):
//! `cargo run --release --example value_speed [positions] [weights.json]`.  Positions come from games of
//! random legal actions; it times the features and the net's logit apart, on the compiled-in
//! weights or the file given, in wall time per position (run it on an idle core).

use std::hint::black_box;
use std::sync::Arc;
use std::time::Instant;

use takenoko::bots::features::{features, FEATURES};
use takenoko::bots::heuristics::{card_points, Cache};
use takenoko::bots::learned::{builtin, Mlp};
use takenoko::rng::PyRandom;
use takenoko::State;

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(20_000);
    let mut rng = PyRandom::new(1);
    let mut positions = Vec::with_capacity(n);
    let mut seed = 0;
    while positions.len() < n {
        let mut s =
            State::new(2, seed, Arc::default(), &[], false, Arc::default()).expect("a game");
        seed += 1;
        while !s.is_terminal() && positions.len() < n {
            positions.push(s.clone());
            let legal = s.legal_actions();
            let a = legal[rng.randbelow(legal.len() as u64) as usize];
            s.apply(a).expect("a legal action");
        }
    }
    let points = card_points(&positions[0].b);
    let mut cache = Cache::new();
    let mut xs = vec![[0.0f32; FEATURES]; n];
    let start = Instant::now();
    for (p, x) in positions.iter().zip(xs.iter_mut()) {
        features(p, p.b.current, &mut cache, &points, x);
    }
    let feat = start.elapsed().as_secs_f64() / n as f64;
    let net = match std::env::args().nth(2) {
        Some(path) => {
            let text = std::fs::read_to_string(path).expect("a weights file");
            Arc::new(Mlp::from_json(&text).expect("weights of this format"))
        }
        None => builtin(),
    };
    let start = Instant::now();
    let mut total = 0.0f32;
    for x in &xs {
        total += net.logit(black_box(x));
    }
    let logit = start.elapsed().as_secs_f64() / n as f64;
    black_box(total);
    println!(
        "{n} positions: features {:.2} µs, net {:.2} µs a position",
        feat * 1e6,
        logit * 1e6
    );
}
