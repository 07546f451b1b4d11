//! Self-play games per second of the Rust bots in the core alone (no Python, no referee):
//! `cargo run --release --example bot_games -- greedy 2 [games]` (any native bot).  Each seat is the bot
//! with its default parameters and its own generator; the loop asks the seat to play,
//! tells every bot each move, and counts games per CPU-second of this process (Linux's
//! `/proc/self/schedstat`; wall time elsewhere), as `scripts/bench_bots.py` counts them.

use std::sync::Arc;
use std::time::Instant;

use takenoko::bots::{make_bot, Bot};
use takenoko::history::Entry;
use takenoko::rng::PyRandom;
use takenoko::{State, View};

/// CPU seconds this process has run (wall seconds since `start` where that is not known).
fn cpu_seconds(start: Instant) -> f64 {
    std::fs::read_to_string("/proc/self/schedstat")
        .ok()
        .and_then(|t| t.split_whitespace().next()?.parse::<f64>().ok())
        .map_or_else(|| start.elapsed().as_secs_f64(), |ns| ns / 1e9)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let name = args.get(1).map_or("greedy", |s| s.as_str()).to_string();
    let players: usize = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(2);
    let limit: u64 = args.get(3).and_then(|a| a.parse().ok()).unwrap_or(u64::MAX);
    let make = |seed: u64| -> Box<dyn Bot> {
        let rng = PyRandom::new(seed as i128);
        make_bot(&name, &[], rng, false).expect("a native bot, with its default parameters")
    };
    let start = Instant::now();
    let cpu0 = cpu_seconds(start);
    let (mut games, mut decisions) = (0u64, 0u64);
    let mut legal = takenoko::state::Legal::new();
    while cpu_seconds(start) - cpu0 < 5.0 && games < limit {
        let mut s = State::new(
            players,
            games as i128,
            Arc::default(),
            &[],
            false,
            Arc::default(),
        )
        .expect("a new game");
        let mut bots: Vec<Box<dyn Bot>> = (0..players)
            .map(|seat| make(games * 10 + seat as u64))
            .collect();
        for (seat, b) in bots.iter_mut().enumerate() {
            b.start(seat as u8, players as u8, &s.b.options);
        }
        while !s.is_terminal() {
            s.legal_into(&mut legal);
            let seat = s.b.current;
            let view = View::of(&s, seat as i64).expect("a seat of the game");
            let a = bots[seat as usize].choose(&view, &legal);
            s.apply(a).expect("a legal action");
            let entry = Entry::Move {
                round: s.b.round,
                seat,
                action: a,
            };
            for b in bots.iter_mut() {
                b.observe(&entry);
            }
            decisions += 1;
        }
        games += 1;
    }
    let secs = cpu_seconds(start) - cpu0;
    println!(
        "{name}, {players} players: {:.1} games/CPU-s, {:.0} decisions/s, {:.0} decisions per game",
        games as f64 / secs,
        decisions as f64 / secs,
        decisions as f64 / games as f64
    );
}
