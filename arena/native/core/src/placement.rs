//! An experiment's intervention on the deal (the reference's `GameState.place_card`, R2.3).
//!
//! A balance study plays one seed several times with a different objective card in one place
//! of the deal: a seat holds the card in place of the card of its category it was dealt, or
//! the card sits at a given depth of its category's deck.  The operation is an exchange of
//! the places of two cards of one category, allowed only before the first decision; the die,
//! the plots, the other cards and the generator stay as the seed made them, and the history's
//! deal entries are rewritten to the hands as placed (the bots are told of the deal they
//! hold, and a record that carries the placement replays to the same history).
//!
//! The refusals are the reference's, checked in the reference's order; one that names an
//! argument carries it as its value (`Error::quoting`), which Python quotes.

use crate::components::{CardSet, CATEGORIES};
use crate::error::Error;
use crate::history::Entry;
use crate::json::Json;
use crate::state::{State, STEP_ACTIONS};

/// An argument of `place_card` as the caller gave it: a whole number, or anything else,
/// the caller's handle for it (`Json::Foreign`), which a refusal hands back to be quoted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Arg {
    Int(i128),
    Foreign(usize),
}

impl Arg {
    fn int(&self) -> Option<i128> {
        match self {
            Arg::Int(v) => Some(*v),
            Arg::Foreign(_) => None,
        }
    }

    /// The argument as a refusal carries it.
    fn value(&self) -> Json {
        match self {
            Arg::Int(v) => Json::Int(*v),
            Arg::Foreign(i) => Json::Foreign(*i),
        }
    }
}

/// One placement of an intervention, as a record keeps it: the card (its index), and
/// exactly one of the seat that holds it and the depth of its deck where it sits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placement {
    pub card: i64,
    pub seat: Option<i64>,
    pub depth: Option<i64>,
}

impl Placement {
    /// The record's form, `{"card":"plot-07","seat":1}` or `{"card":"panda-03","depth":2}`
    /// (the card in range: a placement made).
    pub fn write_json(&self, out: &mut String, cards: &CardSet) {
        use std::fmt::Write;
        let id = cards.id(self.card as u8);
        let _ = match (self.seat, self.depth) {
            (Some(seat), _) => write!(out, "{{\"card\":\"{id}\",\"seat\":{seat}}}"),
            (None, depth) => write!(
                out,
                "{{\"card\":\"{id}\",\"depth\":{}}}",
                depth.unwrap_or(0)
            ),
        };
    }
}

impl State {
    /// Whether the game is still before its first decision (a card may be placed).
    pub fn before_first_decision(&self) -> bool {
        let b = &self.b;
        b.round == 1
            && b.current == 0
            && b.taken.is_empty()
            && b.step == STEP_ACTIONS
            && b.order.len() == 1
            && b.completed.iter().all(|c| c.is_empty())
            && !b.ended
    }

    /// Makes a placement (`place_card` with whole numbers).
    pub fn make_placement(&mut self, p: Placement) -> Result<(), Error> {
        self.place_card(
            &Arg::Int(p.card as i128),
            p.seat.map(|s| Arg::Int(s as i128)).as_ref(),
            p.depth.map(|d| Arg::Int(d as i128)).as_ref(),
        )
    }

    /// Puts objective `card` in a chosen place of the deal by exchanging the places of two
    /// cards of its category: with `seat`, that seat holds it in place of the card of its
    /// category it was dealt, and its old place (another hand, or its deck position) takes
    /// the dealt card; with `depth`, it sits at that position of its deck (0: the next card
    /// drawn) and the card that was there takes its old place.  A card already in the place
    /// asked for changes nothing.  Refused (a `Placement` error, the reference's sentence)
    /// when not exactly one place is given, the game has begun, or the card, seat or depth
    /// is out of range.
    pub fn place_card(
        &mut self,
        card: &Arg,
        seat: Option<&Arg>,
        depth: Option<&Arg>,
    ) -> Result<(), Error> {
        if seat.is_some() == depth.is_some() {
            return Err(Error::placement(
                "place_card takes exactly one of seat= and depth=",
            ));
        }
        if !self.before_first_decision() {
            return Err(Error::placement(
                "a card can be placed only before the first decision of the game",
            ));
        }
        let card = self.card_to_place(card)?;
        let category = self.b.card_set.card(card).category as usize;
        let there = match seat {
            Some(seat) => self.card_held(seat, category)?,
            None => self.card_at_depth(depth.expect("one of the two is given"), category)?,
        };
        if there != card {
            self.exchange(card, there, category);
        }
        Ok(())
    }

    /// The card `place_card` is asked to place: one of the game's set, not removed.
    fn card_to_place(&self, card: &Arg) -> Result<u8, Error> {
        let set = &self.b.card_set;
        let count = set.cards.len();
        let card = match card.int() {
            Some(c) if (0..count as i128).contains(&c) => c as u8,
            _ => {
                return Err(Error::placement(format!(
                    "{{value}} is not an objective card (0..{})",
                    count - 1
                ))
                .quoting(card.value()))
            }
        };
        if set.removed >> card & 1 == 1 {
            return Err(Error::placement(format!(
                "{} is removed from this game's card set",
                set.id(card)
            )));
        }
        Ok(card)
    }

    /// The card of `category` that `seat` was dealt (the place `seat=` asks for).
    fn card_held(&self, seat: &Arg, category: usize) -> Result<u8, Error> {
        let players = self.b.players as i128;
        let s = match seat.int() {
            Some(s) if (0..players).contains(&s) => s as usize,
            _ => {
                return Err(Error::placement(format!(
                    "seat {{value}} is not a seat of this {players}-player game"
                ))
                .quoting(seat.value()))
            }
        };
        let set = &self.b.card_set;
        match self.hands[s]
            .iter()
            .copied()
            .find(|&c| set.card(c).category as usize == category)
        {
            Some(c) => Ok(c),
            None => Err(Error::placement(format!(
                "seat {s} holds no {} card",
                CATEGORIES[category]
            ))),
        }
    }

    /// The card at `depth` of the deck of `category` (the place `depth=` asks for).
    fn card_at_depth(&self, depth: &Arg, category: usize) -> Result<u8, Error> {
        let deck = &self.objective_decks[category];
        match depth.int() {
            Some(d) if (0..deck.len() as i128).contains(&d) => Ok(deck[d as usize]),
            _ => Err(Error::placement(format!(
                "depth {{value}} is not a place of the {} deck (0..{})",
                CATEGORIES[category],
                deck.len() as i64 - 1
            ))
            .quoting(depth.value())),
        }
    }

    /// The two cards exchange places wherever they are: two hands, or a hand and the deck;
    /// the history's deals are rewritten to the hands as they now are.
    fn exchange(&mut self, card: u8, there: u8, category: usize) {
        let swap = |c: &mut u8| {
            if *c == card {
                *c = there;
            } else if *c == there {
                *c = card;
            }
        };
        for hand in self.hands.iter_mut() {
            hand.iter_mut().for_each(swap);
        }
        self.objective_decks[category].iter_mut().for_each(swap);
        if let Some(history) = &mut self.history.0 {
            for entry in history.iter_mut() {
                if let Entry::Dealt { round, seat, hand } = entry {
                    *round = 0;
                    for (slot, c) in hand.iter_mut().enumerate() {
                        if let Some(&now) = self.hands[*seat as usize].get(slot) {
                            *c = now;
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::components::{CardSet, COMPONENTS};
    use std::sync::Arc;

    fn game(players: usize, seed: i128) -> State {
        State::new(
            players,
            seed,
            Arc::default(),
            &[],
            true,
            Arc::new(CardSet::default()),
        )
        .unwrap()
    }

    fn at(card: i64, seat: Option<i64>, depth: Option<i64>) -> Placement {
        Placement { card, seat, depth }
    }

    #[test]
    fn a_seat_holds_the_card_and_its_old_place_takes_the_dealt_one() {
        for seed in 0..40 {
            let before = game(3, seed);
            let card = (seed * 7 % 45) as u8;
            let k = COMPONENTS.cards[card as usize].category;
            let dealt = before.hands[1][k as usize];
            let mut s = game(3, seed);
            s.make_placement(at(card as i64, Some(1), None)).unwrap();
            assert_eq!(s.hands[1][k as usize], card);
            let mut all: Vec<u8> = s.hands.iter().flatten().copied().collect();
            all.extend(s.objective_decks.iter().flatten());
            all.sort();
            assert_eq!(all, (0..45).collect::<Vec<u8>>());
            if dealt != card {
                let holder = before.hands.iter().position(|h| h.contains(&card));
                match holder {
                    Some(h) => assert!(s.hands[h].contains(&dealt)),
                    None => assert!(s.objective_decks[k as usize].contains(&dealt)),
                }
            }
            let Some(Entry::Dealt { hand, .. }) = &s.history.0.as_ref().unwrap().get(1) else {
                panic!("the second entry deals seat 1");
            };
            assert_eq!(hand.as_slice(), s.hands[1].as_slice());
        }
    }

    #[test]
    fn depth_puts_the_card_at_that_place_and_the_rest_stays() {
        let before = game(2, 9);
        let mut s = game(2, 9);
        s.make_placement(at(40, None, Some(3))).unwrap();
        assert_eq!(s.objective_decks[2][3], 40);
        assert_eq!(s.rng, before.rng);
        assert_eq!(s.plot_deck, before.plot_deck);
        assert_eq!(s.objective_decks[..2], before.objective_decks[..2]);
    }

    #[test]
    fn refusals_are_the_references_sentences() {
        let mut s = game(2, 1);
        let refuse = |s: &mut State, card: Arg, seat: Option<Arg>, depth: Option<Arg>| {
            s.place_card(&card, seat.as_ref(), depth.as_ref())
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            refuse(&mut s, Arg::Int(0), None, None),
            "place_card takes exactly one of seat= and depth="
        );
        assert_eq!(
            refuse(&mut s, Arg::Int(0), Some(Arg::Int(2)), None),
            "seat 2 is not a seat of this 2-player game"
        );
        assert_eq!(
            refuse(&mut s, Arg::Int(0), None, Some(Arg::Int(13))),
            "depth 13 is not a place of the plot deck (0..12)"
        );
        assert_eq!(
            refuse(&mut s, Arg::Foreign(0), Some(Arg::Int(0)), None),
            "<the caller's value 0> is not an objective card (0..44)"
        );
        let action = s.legal_actions()[0];
        s.apply(action).unwrap();
        assert_eq!(
            refuse(&mut s, Arg::Int(0), Some(Arg::Int(0)), None),
            "a card can be placed only before the first decision of the game"
        );
    }
}
