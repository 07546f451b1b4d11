//! The named edits of a state (`with_hand`, `with_hidden`, `with_hidden_from`, `with_step`,
//! `share_layout`): what a search or a test may change of a game besides playing it, each
//! checked here so that every binding refuses the same arguments with the same sentence;
//! and the board's queries that take a caller's seat and card (`objective_found_at`).

use arrayvec::ArrayVec;

use crate::components::CardSet;
use crate::error::{Error, ErrorKind};
use crate::json::Json;
use crate::state::{Board, State, STEP_NAMES};

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

/// A part of `with_hidden`'s argument that must be a list (`what` names it).
fn list_arg<'a>(v: &'a Json, what: &str) -> Result<&'a [Json], Error> {
    v.as_list()
        .ok_or_else(|| Error::value(format!("{what}: {{value}} is not a list")).quoting(v.clone()))
}

/// Tile codes (0..11), at most `N` of them.
fn tiles<const N: usize>(tiles: &Json, what: &str) -> Result<ArrayVec<u8, N>, Error> {
    let tiles = list_arg(tiles, what)?;
    let code = |t: &Json| t.as_int().filter(|t| (0..12).contains(t));
    if tiles.len() > N || tiles.iter().any(|t| code(t).is_none()) {
        return Err(Error::value(format!(
            "{what}: at most {N} tile codes 0..11"
        )));
    }
    Ok(tiles.iter().filter_map(code).map(|t| t as u8).collect())
}

/// An int part of `with_hidden`'s argument in `lo..=hi` (ValueError quoting it otherwise, an
/// int beyond 128 bits included; `range` says the range in words).
fn int_arg(v: &Json, what: &str, (lo, hi): (i128, i128), range: &str) -> Result<i128, Error> {
    match v.as_int() {
        Some(i) if (lo..=hi).contains(&i) => Ok(i),
        _ => Err(Error::value(format!("{what}: {{value}} is not {range}")).quoting(v.clone())),
    }
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

    /// The hidden parts `given` replaced (`hands`, `objective_decks`, `plot_deck`, `drawn`,
    /// `rng`, `seed`: a key missing or null keeps its part): a test's or a diagnostic's twin
    /// that differs only in what some seat cannot see.  A deck's known-marks are fitted to
    /// its new length.  Any int is read and checked, however large (the same sentences as
    /// the other edits' arguments).
    pub fn with_hidden(&mut self, given: &Json) -> Result<(), Error> {
        let part = |key: &str| given.get(key).filter(|v| !matches!(v, Json::Null));
        let set = self.b.card_set.clone();
        if let Some(hands) = part("hands") {
            let hands = list_arg(hands, "hands")?;
            if hands.len() != self.b.players as usize {
                return Err(Error::value("hands: one per seat"));
            }
            for (i, hand) in hands.iter().enumerate() {
                self.hands[i] = cards(list_arg(hand, "hands")?, &set, "hands")?;
            }
        }
        if let Some(decks) = part("objective_decks") {
            let decks = list_arg(decks, "objective_decks")?;
            if decks.len() != 3 {
                return Err(Error::value("objective_decks: one per category"));
            }
            for (k, deck) in decks.iter().enumerate() {
                let deck = list_arg(deck, "objective_decks")?;
                self.objective_decks[k] = cards(deck, &set, "objective_decks")?;
                fit_known(&mut self.b.objective_known[k], deck.len());
            }
        }
        if let Some(deck) = part("plot_deck") {
            self.plot_deck = tiles(deck, "plot_deck")?;
            fit_known(&mut self.b.plot_known, self.plot_deck.len());
        }
        if let Some(drawn) = part("drawn") {
            self.drawn = tiles(drawn, "drawn")?;
        }
        if let Some(rng) = part("rng") {
            let range = (0, u64::MAX.into());
            self.rng = int_arg(rng, "rng", range, "an int from 0 to 2**64 - 1")? as u64;
        }
        if let Some(seed) = part("seed") {
            let range = (i128::MIN, i128::MAX);
            self.seed = int_arg(seed, "seed", range, "an int of 128 bits")?;
        }
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
