//! A match of two native bot specs in the core alone (no Python, no referee), for the
//! screens of a search: `cargo run --release --example duel -- SPEC_A SPEC_B GAMES SEED
//! [PLAYERS]`, a spec as `name` or `name:key=value,key=value` (the parameters the arena
//! takes).  Two players: deal k is played twice, A first then B first (paired seats).
//! More players: one A against PLAYERS-1 copies of B, A's seat rotating with the game.
//! Prints A's win rate (a shared win counts 1/k) with its 95% Wilson interval, and each
//! bot's CPU seconds per game (its decisions with a choice, this thread's CPU time from
//! Linux's `/proc/thread-self/schedstat`).

use std::sync::Arc;

use takenoko::bots::{make_bot, Bot, Value};
use takenoko::history::Entry;
use takenoko::rng::PyRandom;
use takenoko::{State, View};

/// CPU seconds of this thread (0 where Linux's schedstat is not there).
fn cpu() -> f64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|t| t.split_whitespace().next()?.parse::<f64>().ok())
        .map_or(0.0, |ns| ns / 1e9)
}

/// A spec's name and parameters, as texts (the registry converts them).
fn spec(text: &str) -> (String, Vec<(String, Value)>) {
    let (name, rest) = text.split_once(':').unwrap_or((text, ""));
    let params = rest
        .split(',')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').expect("key=value");
            (k.to_string(), Value::Text(v.to_string()))
        })
        .collect();
    (name.to_string(), params)
}

/// One game; returns each seat's share of the win and CPU seconds.
fn game(specs: &[&str], seed: u64) -> (Vec<f64>, Vec<f64>) {
    let players = specs.len();
    let mut s = State::new(
        players,
        seed as i128,
        Arc::default(),
        &[],
        false,
        Arc::default(),
    )
    .expect("a new game");
    let mut bots: Vec<Box<dyn Bot>> = specs
        .iter()
        .enumerate()
        .map(|(seat, text)| {
            let (name, params) = spec(text);
            let rng = PyRandom::new((seed * 10 + seat as u64 + 1) as i128);
            make_bot(&name, &params, rng, false).expect("a native bot spec")
        })
        .collect();
    for (seat, b) in bots.iter_mut().enumerate() {
        b.start(seat as u8, players as u8, &s.b.options);
    }
    let mut seconds = vec![0.0; players];
    let mut legal = takenoko::state::Legal::new();
    while !s.is_terminal() {
        s.legal_into(&mut legal);
        let seat = s.b.current;
        let a = if legal.len() == 1 {
            legal[0]
        } else {
            let view = View::of(&s, seat as i64).expect("a seat of the game");
            let t = cpu();
            let a = bots[seat as usize].choose(&view, &legal);
            seconds[seat as usize] += cpu() - t;
            a
        };
        s.apply(a).expect("a legal action");
        let entry = Entry::Move {
            round: s.b.round,
            seat,
            action: a,
        };
        for b in bots.iter_mut() {
            b.observe(&entry);
        }
    }
    let winners = s.result(&[]).winners;
    let share = (0..players as u8)
        .map(|p| {
            if winners.contains(&p) {
                1.0 / winners.len() as f64
            } else {
                0.0
            }
        })
        .collect();
    (share, seconds)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (a, b) = (args[1].as_str(), args[2].as_str());
    let games: u64 = args[3].parse().expect("games");
    let seed: u64 = args[4].parse().expect("seed");
    let players: usize = args.get(5).map_or(2, |p| p.parse().expect("players"));
    let (mut won, mut cpu_a, mut cpu_b) = (0.0, 0.0, 0.0);
    for g in 0..games {
        let (deal, at) = if players == 2 {
            (seed * 100_000 + g / 2, (g % 2) as usize)
        } else {
            (seed * 100_000 + g, (g % players as u64) as usize)
        };
        let specs: Vec<&str> = (0..players).map(|p| if p == at { a } else { b }).collect();
        let (share, seconds) = game(&specs, deal);
        won += share[at];
        cpu_a += seconds[at];
        cpu_b += seconds.iter().sum::<f64>() - seconds[at];
        let n = (g + 1) as f64;
        let p = won / n;
        let z: f64 = 1.96;
        let centre = (p + z * z / (2.0 * n)) / (1.0 + z * z / n);
        let half = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / (1.0 + z * z / n);
        println!(
            "{} games: {a} {:.1}% [{:.1}, {:.1}]  cpu/game {a} {:.3}s, {b} {:.3}s",
            g + 1,
            100.0 * p,
            100.0 * (centre - half),
            100.0 * (centre + half),
            cpu_a / n,
            cpu_b / n / (players - 1) as f64
        );
    }
}
