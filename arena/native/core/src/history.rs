//! A game's history entries and their notation (the reference's `history.py`).

use arrayvec::ArrayVec;

use crate::actions::{self, Action};
use crate::components::{tile_name, CardSet, FACES};

/// The reference's tags: `(MOVE, round, seat, action)` and one entry per chance event.
pub const MOVE: u8 = 0;
pub const ROLLED: u8 = 1;
pub const DREW_PLOTS: u8 = 2;
pub const DREW: u8 = 3;
pub const RETURNED: u8 = 4;
pub const DEALT: u8 = 5;
pub const EMPEROR: u8 = 6;
pub const GAME_OVER: u8 = 7;

/// One history entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Entry {
    Move {
        round: u32,
        seat: u8,
        action: Action,
    },
    Rolled {
        round: u32,
        face: u8,
    },
    DrewPlots {
        round: u32,
        tiles: ArrayVec<u8, 3>,
    },
    Drew {
        round: u32,
        card: u8,
    },
    Returned {
        round: u32,
        card: u8,
    },
    Dealt {
        round: u32,
        seat: u8,
        hand: [u8; 3],
    },
    Emperor {
        round: u32,
        seat: u8,
    },
    GameOver {
        round: u32,
    },
}

thread_local! {
    static ACTION_TEXTS: std::cell::RefCell<std::collections::HashMap<Action, Box<str>>> =
        std::cell::RefCell::new(std::collections::HashMap::new());
}

impl Entry {
    /// The reference's tag of the entry.
    pub fn tag(&self) -> u8 {
        match self {
            Entry::Move { .. } => MOVE,
            Entry::Rolled { .. } => ROLLED,
            Entry::DrewPlots { .. } => DREW_PLOTS,
            Entry::Drew { .. } => DREW,
            Entry::Returned { .. } => RETURNED,
            Entry::Dealt { .. } => DEALT,
            Entry::Emperor { .. } => EMPEROR,
            Entry::GameOver { .. } => GAME_OVER,
        }
    }

    pub fn round(&self) -> u32 {
        match *self {
            Entry::Move { round, .. }
            | Entry::Rolled { round, .. }
            | Entry::DrewPlots { round, .. }
            | Entry::Drew { round, .. }
            | Entry::Returned { round, .. }
            | Entry::Dealt { round, .. }
            | Entry::Emperor { round, .. }
            | Entry::GameOver { round } => round,
        }
    }

    /// The notation of the entry into `out`, as JSON text (orjson's: the notation has no
    /// character to escape), a record's `moves` item: the texts of the actions remembered
    /// per thread (a record writes hundreds; there are a few thousand actions in all).
    pub fn write_json(&self, out: &mut String, cards: &CardSet) {
        out.push('"');
        match self {
            Entry::Move { seat, action, .. } if actions::names_added_card(*action) => {
                // The text of a card a set adds is the set's: not remembered per thread.
                out.push((b'0' + seat) as char);
                out.push(' ');
                out.push_str(&actions::text_in(*action, cards));
            }
            Entry::Move { seat, action, .. } => {
                out.push((b'0' + seat) as char);
                out.push(' ');
                ACTION_TEXTS.with(|texts| {
                    let mut texts = texts.borrow_mut();
                    if texts.len() > 1 << 16 {
                        texts.clear();
                    }
                    out.push_str(
                        texts
                            .entry(*action)
                            .or_insert_with(|| actions::text(*action).into_boxed_str()),
                    );
                });
            }
            other => out.push_str(&other.text(cards)),
        }
        out.push('"');
    }

    /// The notation of the entry (`"S ACTION"` for a choice, `"* EVENT"` for chance).
    pub fn text(&self, cards: &CardSet) -> String {
        let card_id = |c: u8| cards.id(c);
        match self {
            Entry::Move { seat, action, .. } => {
                format!("{seat} {}", actions::text_in(*action, cards))
            }
            Entry::Rolled { face, .. } => format!("* roll {}", FACES[*face as usize]),
            Entry::DrewPlots { tiles, .. } => {
                let names: Vec<String> = tiles.iter().map(|&t| tile_name(t)).collect();
                format!("* drew plots {}", names.join(" "))
            }
            Entry::Drew { card, .. } => format!("* drew {}", card_id(*card)),
            Entry::Returned { card, .. } => format!("* returned {}", card_id(*card)),
            Entry::Dealt { seat, hand, .. } => {
                let ids: Vec<&str> = hand.iter().map(|&c| card_id(c)).collect();
                format!("* deal {seat} {}", ids.join(" "))
            }
            Entry::Emperor { seat, .. } => format!("* emperor {seat}"),
            Entry::GameOver { .. } => "* game over".into(),
        }
    }
}
