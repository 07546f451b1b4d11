//! Games per second of the native referee alone (random bots, no Python), with and without
//! the record: `cargo run --release --example referee_games`.

use std::sync::Arc;
use std::time::Instant;

use takenoko::bots::{make_bot, Value};
use takenoko::referee::{play, record, NativeSeats, Progress, RecordParts, Setup};
use takenoko::rng::PyRandom;
use takenoko::seeds::bot_seed;

fn main() {
    let parts = RecordParts {
        options: "{}".into(),
        card_set: "{}".into(),
    };
    let names = vec!["random".to_string(), "random".to_string()];
    for with_record in [false, true] {
        let start = Instant::now();
        let mut games = 0u64;
        let mut bytes = 0usize;
        while start.elapsed().as_secs_f64() < 2.0 {
            let seed = games as i128;
            let setup = Setup {
                players: 2,
                seed,
                options: Arc::default(),
                cards: Arc::default(),
                dice: vec![],
                move_time: None,
                placements: vec![],
            };
            let bots = (0..2)
                .map(|seat| {
                    let rng = PyRandom::new(bot_seed(seed, seat, "random") as i128);
                    make_bot(
                        "random",
                        &[("complete".into(), Value::Bool(false))],
                        rng,
                        false,
                    )
                    .expect("the random bot")
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
        let secs = start.elapsed().as_secs_f64();
        println!(
            "record {with_record}: {:.0} games/s{}",
            games as f64 / secs,
            if with_record {
                format!(", {} bytes a record", bytes as u64 / games)
            } else {
                String::new()
            }
        );
    }
}
