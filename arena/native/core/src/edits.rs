//! The named edits of a state (`with_hand`, `with_hidden`, `with_hidden_from`, `with_step`,
//! `share_layout`): what a search or a test may change of a game besides playing it, each
//! checked here so that every binding refuses the same arguments with the same sentence;
//! and the board's queries that take a caller's seat and card (`objective_found_at`).

use arrayvec::ArrayVec;

use crate::components::CardSet;
use crate::error::{Error, ErrorKind};
use crate::json::Json;
use crate::state::{Board, State, STEP_NAMES};

/// The hidden parts `with_hidden` replaces (None: kept).
#[derive(Default)]
pub struct Hidden {
    pub hands: Option<Vec<Vec<i64>>>,
    pub objective_decks: Option<Vec<Vec<i64>>>,
    pub plot_deck: Option<Vec<i64>>,
    pub drawn: Option<Vec<i64>>,
    pub rng: Option<u64>,
    pub seed: Option<i128>,
}

/// A caller's int argument (`Json::Int`, or `Json::Big` beyond 128 bits) in `0..end`, or
/// `refusal` quoting it as given.
pub fn index_arg(arg: &Json, end: usize, refusal: impl FnOnce() -> Error) -> Result<usize, Error> {
    match arg.as_wide_int() {
        Some(i) if (0..end as i128).contains(&i) => Ok(i as usize),
        _ => Err(refusal().quoting(arg.clone())),
    }
}

/// A card index of the game's set (printed and added cards; IndexError otherwise).
fn card_arg(c: &Json, set: &CardSet) -> Result<u8, Error> {
    let refusal = || Error::index("{value} is not a card index");
    Ok(index_arg(c, set.cards.len(), refusal)? as u8)
}

/// Card indexes of the game's set, at most `N` of them (`what` names the refused part).
fn cards<const N: usize>(
    cards: &[Json],
    set: &CardSet,
    what: &str,
) -> Result<ArrayVec<u8, N>, Error> {
    if cards.len() > N {
        return Err(Error::value(format!("{what}: at most {N} cards")));
    }
    cards.iter().map(|c| card_arg(c, set)).collect()
}

/// Card indexes as a caller's int arguments.
fn ints(v: &[i64]) -> Vec<Json> {
    v.iter().map(|&i| Json::Int(i.into())).collect()
}

/// Tile codes (0..11), at most `N` of them.
fn tiles<const N: usize>(tiles: &[i64], what: &str) -> Result<ArrayVec<u8, N>, Error> {
    if tiles.len() > N || tiles.iter().any(|t| !(0..12).contains(t)) {
        return Err(Error::value(format!(
            "{what}: at most {N} tile codes 0..11"
        )));
    }
    Ok(tiles.iter().map(|&t| t as u8).collect())
}

/// The known-marks of a deck resized to the deck a caller gave (new cards known to no one).
fn fit_known<const N: usize>(known: &mut ArrayVec<u8, N>, len: usize) {
    known.truncate(len);
    while known.len() < len {
        known.push(0);
    }
}

impl Board {
    /// A seat of the game (IndexError otherwise).
    pub fn seat_arg(&self, seat: &Json) -> Result<u8, Error> {
        let refusal = || Error::index("seat {value} is not in the game");
        Ok(index_arg(seat, self.players as usize, refusal)? as u8)
    }

    /// `objective_found` of a caller's seat and card index, checked (IndexError).
    pub fn objective_found_at(&self, seat: &Json, card: &Json) -> Result<bool, Error> {
        let seat = self.seat_arg(seat)?;
        Ok(self.objective_found(seat, card_arg(card, &self.card_set)?))
    }
}

impl State {
    /// `seat` holds `hand` (search asks "what if" of its own copies).
    pub fn with_hand(&mut self, seat: &Json, hand: &[Json]) -> Result<(), Error> {
        let seat = self.b.seat_arg(seat)?;
        self.hands[seat as usize] = cards(hand, &self.b.card_set, "hand")?;
        Ok(())
    }

    /// The hidden parts given replaced: a test's or a diagnostic's twin that differs only in
    /// what some seat cannot see.  A deck's known-marks are fitted to its new length.
    pub fn with_hidden(&mut self, h: &Hidden) -> Result<(), Error> {
        let set = self.b.card_set.clone();
        if let Some(hands) = &h.hands {
            if hands.len() != self.b.players as usize {
                return Err(Error::value("hands: one per seat"));
            }
            for (i, hand) in hands.iter().enumerate() {
                self.hands[i] = cards(&ints(hand), &set, "hands")?;
            }
        }
        if let Some(decks) = &h.objective_decks {
            if decks.len() != 3 {
                return Err(Error::value("objective_decks: one per category"));
            }
            for (k, deck) in decks.iter().enumerate() {
                self.objective_decks[k] = cards(&ints(deck), &set, "objective_decks")?;
                fit_known(&mut self.b.objective_known[k], deck.len());
            }
        }
        if let Some(deck) = &h.plot_deck {
            self.plot_deck = tiles(deck, "plot_deck")?;
            fit_known(&mut self.b.plot_known, deck.len());
        }
        if let Some(drawn) = &h.drawn {
            self.drawn = tiles(drawn, "drawn")?;
        }
        self.rng = h.rng.unwrap_or(self.rng);
        self.seed = h.seed.unwrap_or(self.seed);
        Ok(())
    }

    /// This state with `sample`'s hidden parts but a caller's `seat`'s own hand (`seat_arg`'s
    /// sentence, as a ValueError: the reference's refusal of this edit).
    pub fn with_hidden_from_seat(&self, sample: &State, seat: &Json) -> Result<State, Error> {
        let seat = self.b.seat_arg(seat).map_err(|e| Error {
            kind: ErrorKind::Value,
            ..e
        })?;
        Ok(self.with_hidden_from(sample, seat))
    }

    /// Another step of the turn with another weather (the objective bot's probe: "what
    /// would one more action be worth").
    pub fn with_step(&mut self, step: &Json, weather: &Json) -> Result<(), Error> {
        let step = index_arg(step, STEP_NAMES.len(), || {
            Error::value("{value} is not a step")
        })?;
        // -1 (no weather) or a face 0..5.
        let Some(face) = weather.as_wide_int().filter(|w| (-1..6).contains(w)) else {
            return Err(Error::value("{value} is not a weather").quoting(weather.clone()));
        };
        self.b.step = step as u8;
        self.b.weather = face as i8;
        Ok(())
    }

    /// Takes `other`'s improvements in its order, the layouts (tiles, irrigation, channels,
    /// improvements) being equal as sets; refused otherwise.
    pub fn share_layout(&mut self, other: &State) -> Result<(), Error> {
        let key = |s: &State| {
            let mut tiles: Vec<(u16, u8)> = s.b.tile_items().collect();
            tiles.sort_unstable();
            let mut improvements = s.b.improvements.to_vec();
            improvements.sort_unstable();
            (tiles, s.b.irrigated, s.b.channels, improvements)
        };
        if key(self) != key(other) {
            return Err(Error::value("share_layout: the two layouts differ"));
        }
        self.b.improvements = other.b.improvements.clone();
        Ok(())
    }
}
