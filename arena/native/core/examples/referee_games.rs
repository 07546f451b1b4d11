//! Games per CPU-second of the native referee alone (random bots, no Python), with and
//! without the record: `cargo run --release --example referee_games [bot] [players]`.
//! CPU time of this process (Linux's `/proc/self/schedstat`; wall time elsewhere).

use std::sync::Arc;
use std::time::Instant;

use takenoko::bots::make_bot;
use takenoko::referee::{play, record, NativeSeats, Progress, RecordParts, Setup};
use takenoko::rng::PyRandom;
use takenoko::seeds::bot_seed;

/// CPU seconds this process has run (wall seconds since `start` where that is not known).
fn cpu_seconds(start: Instant) -> f64 {
    std::fs::read_to_string("/proc/self/schedstat")
        .ok()
        .and_then(|t| t.split_whitespace().next()?.parse::<f64>().ok())
        .map_or_else(|| start.elapsed().as_secs_f64(), |ns| ns / 1e9)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let bot = args.get(1).map_or("random", |s| s.as_str()).to_string();
    let players: u8 = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(2);
    let seconds = if bot == "random" { 2.0 } else { 5.0 };
    let parts = RecordParts {
        options: "{}".into(),
        card_set: "{}".into(),
    };
    let names = vec![bot.clone(); players as usize];
    for with_record in [false, true] {
        let start = Instant::now();
        let cpu0 = cpu_seconds(start);
        let mut games = 0u64;
        let mut bytes = 0usize;
        while cpu_seconds(start) - cpu0 < seconds {
            let seed = games as i128;
            let setup = Setup {
                players,
                seed,
                options: Arc::default(),
                cards: Arc::default(),
                dice: vec![],
                move_time: None,
                placements: vec![],
            };
            let bots = (0..players)
                .map(|seat| {
                    let rng = PyRandom::new(bot_seed(seed, seat, &bot) as i128);
                    make_bot(&bot, &[], rng, false).expect("a native bot")
                })
                .collect();
            let mut progress = Progress::default();
            let played = play(&setup, &mut NativeSeats::new(bots), &mut progress).expect("a game");
            if with_record {
                bytes += record(
                    "{\"game\":\"play\"",
                    &played.state,
                    &names,
                    &played.seconds,
                    None,
                    &parts,
                    &[],
                )
                .len();
            }
            games += 1;
        }
        let secs = cpu_seconds(start) - cpu0;
        println!(
            "{bot} {players}p, record {with_record}: {:.1} games/CPU-s{}",
            games as f64 / secs,
            if with_record {
                format!(", {} bytes a record", bytes as u64 / games)
            } else {
                String::new()
            }
        );
    }
}
