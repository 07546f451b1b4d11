//! A batch of native games (a tournament worker's share): each game's bots made and seeded
//! as `arena.play.registry.make_bot` seeds them, played, recorded and summed up.  The
//! binding only converts the arguments, releases the GIL around `Batch::play` and hands the
//! finished games back in chunks.

use std::sync::Arc;

use crate::bots::registry::{BotEntry, Params, Value};
use crate::bots::Bot;
use crate::components::CardSet;
use crate::options::RuleOptions;
use crate::placement::Placement;
use crate::referee::{play_natives, Concluded, Failure, RecordParts, Setup};
use crate::rng::PyRandom;
use crate::seeds;

/// A participant: its registry entry, its checked parameters, and its name (which seeds it).
pub struct Participant {
    pub entry: &'static BotEntry,
    pub params: Params,
    pub name: String,
}

impl Participant {
    /// The native bot `bot` (a test-only one with `tests`) with its `given` parameters,
    /// checked by the registry; the refusal names the bot.
    pub fn new(
        bot: &str,
        given: &[(String, Value)],
        name: String,
        tests: bool,
    ) -> Result<Participant, String> {
        let entry =
            crate::bots::entry(bot, tests).ok_or_else(|| format!("no native bot {bot:?}"))?;
        let params = entry
            .check(given)
            .map_err(|m| format!("native bot {bot}: {m}"))?;
        Ok(Participant {
            entry,
            params,
            name,
        })
    }

    /// Its bot, drawing from `rng`.
    pub fn make(&self, rng: PyRandom) -> Box<dyn Bot> {
        (self.entry.make)(&self.params, rng)
    }
}

/// A batch's game: its seed, the participant per seat, the record's head, the label that
/// names it in a failure, its card set (an index of the batch's), the intervention's cards.
pub struct Game {
    pub seed: i128,
    pub seats: Vec<usize>,
    pub head: String,
    pub label: String,
    pub set: usize,
    pub placements: Vec<Placement>,
}

/// A finished game: `(position in the batch, line, winners, tiebreak, scores, error seat,
/// error kind, panic sentence)`.
pub type Finished = (
    usize,
    String,
    Vec<u8>,
    &'static str,
    Vec<i64>,
    Option<u8>,
    Option<String>,
    Option<String>,
);

/// What every game of a batch shares.
pub struct Batch {
    pub players: u8,
    pub options: Arc<RuleOptions>,
    /// The card sets, each with the record's `options` and `card_set` parts.
    pub sets: Vec<(Arc<CardSet>, RecordParts)>,
    pub move_time: Option<(f64, String)>,
    pub participants: Vec<Participant>,
}

impl Batch {
    /// Every game's seats are participants' indices, its card set one of the batch's.
    pub fn check(&self, games: &[Game]) -> Result<(), &'static str> {
        for g in games {
            if g.seats.len() != self.players as usize
                || g.seats.iter().any(|&p| p >= self.participants.len())
            {
                return Err("a game's seats are participants' indices");
            }
            if g.set >= self.sets.len() {
                return Err("a game's card set is an index of the batch's");
            }
        }
        Ok(())
    }

    /// The `k`th game played and recorded (a checked one: see `check`).
    pub fn play(&self, k: usize, game: Game) -> Result<Finished, Failure> {
        let (cards, parts) = &self.sets[game.set];
        let setup = Setup {
            players: self.players,
            seed: game.seed,
            options: self.options.clone(),
            cards: cards.clone(),
            dice: vec![],
            move_time: self.move_time.clone(),
            placements: game.placements,
        };
        let names: Vec<String> = game
            .seats
            .iter()
            .map(|&p| self.participants[p].name.clone())
            .collect();
        let bots = game.seats.iter().enumerate().map(|(seat, &p)| {
            let who = &self.participants[p];
            let rng = PyRandom::new(seeds::bot_seed(setup.seed, seat as u8, &who.name) as i128);
            who.make(rng)
        });
        let Concluded {
            state,
            fault,
            failure,
            line,
            ..
        } = play_natives(
            &setup,
            bots.collect(),
            &game.label,
            &game.head,
            &names,
            parts,
        )?;
        let result = state.result(&fault.as_ref().map(|f| vec![f.seat]).unwrap_or_default());
        let (seat, kind) = fault.map(|f| (f.seat, f.kind)).unzip();
        Ok((
            k,
            line,
            result.winners,
            result.tiebreak,
            result.scores,
            seat,
            kind,
            failure,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn batch() -> Batch {
        let entry = crate::bots::entry("random", false).expect("random is built in");
        let participants = ["a", "b"].map(|name| Participant {
            entry,
            params: entry.check(&[]).expect("no parameters"),
            name: name.into(),
        });
        let parts = RecordParts {
            options: "{}".into(),
            card_set: "{}".into(),
        };
        Batch {
            players: 2,
            options: Arc::default(),
            sets: vec![(Arc::default(), parts)],
            move_time: None,
            participants: participants.into(),
        }
    }

    fn game(seed: i128, seats: Vec<usize>, set: usize) -> Game {
        Game {
            seed,
            seats,
            head: "{\"game\":\"g\"".into(),
            label: "g".into(),
            set,
            placements: vec![],
        }
    }

    #[test]
    fn a_batch_refuses_seats_and_sets_it_does_not_have() {
        let b = batch();
        assert!(b.check(&[game(1, vec![0, 1], 0)]).is_ok());
        assert!(b.check(&[game(1, vec![0, 2], 0)]).is_err());
        assert!(b.check(&[game(1, vec![0], 0)]).is_err());
        assert!(b.check(&[game(1, vec![0, 1], 1)]).is_err());
    }

    #[test]
    fn a_batch_game_is_recorded_with_its_seats_names_and_repeats() {
        let b = batch();
        let Ok(first) = b.play(3, game(7, vec![1, 0], 0)) else {
            panic!("a game of random bots plays");
        };
        assert_eq!(first.0, 3);
        assert!(first.1.starts_with("{\"game\":\"g\",\"seed\":7"));
        assert!(first.1.contains("\"seats\":[\"b\",\"a\"]"));
        assert_eq!(first.4.len(), 2);
        assert!(first.5.is_none());
        let Ok(again) = b.play(3, game(7, vec![1, 0], 0)) else {
            panic!("a game of random bots plays");
        };
        // The same game again, but for the thinking time.
        let played = |line: &str| line.split(",\"seconds\"").next().map(str::to_string);
        assert_eq!(played(&again.1), played(&first.1));
    }
}
