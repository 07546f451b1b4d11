//! Actions as ints (`kind | a << 5 | b << 17`, the reference's layout) and their notation.

use crate::components::{parse_card, Card, CardSet, CATEGORIES, COMPONENTS, FACES, IMPROVEMENTS};
use crate::error::Error;
use crate::grid::{self, Cell};
use crate::json::str_repr;

pub type Action = u32;

/// The action kinds, with the reference's values (`actions.Kind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Kind {
    End = 0,
    Plot = 1,
    Place = 2,
    Irrigate = 3,
    IrrigateKeep = 4,
    Gardener = 5,
    Panda = 6,
    Objective = 7,
    Channel = 8,
    Improve = 9,
    Complete = 10,
    Weather = 11,
    Rain = 12,
    Storm = 13,
    Clouds = 14,
    CloudsKeep = 15,
    CloudsMove = 16,
    Skip = 17,
    Redraw = 18,
}

impl Kind {
    pub const ALL: [Kind; 19] = [
        Kind::End,
        Kind::Plot,
        Kind::Place,
        Kind::Irrigate,
        Kind::IrrigateKeep,
        Kind::Gardener,
        Kind::Panda,
        Kind::Objective,
        Kind::Channel,
        Kind::Improve,
        Kind::Complete,
        Kind::Weather,
        Kind::Rain,
        Kind::Storm,
        Kind::Clouds,
        Kind::CloudsKeep,
        Kind::CloudsMove,
        Kind::Skip,
        Kind::Redraw,
    ];

    /// The Python name (`END`, `IRRIGATE_KEEP`, ...).
    pub fn name(self) -> &'static str {
        [
            "END",
            "PLOT",
            "PLACE",
            "IRRIGATE",
            "IRRIGATE_KEEP",
            "GARDENER",
            "PANDA",
            "OBJECTIVE",
            "CHANNEL",
            "IMPROVE",
            "COMPLETE",
            "WEATHER",
            "RAIN",
            "STORM",
            "CLOUDS",
            "CLOUDS_KEEP",
            "CLOUDS_MOVE",
            "SKIP",
            "REDRAW",
        ][self as usize]
    }

    pub fn of(action: Action) -> Option<Kind> {
        Kind::ALL.get((action & KIND_MASK) as usize).copied()
    }
}

pub const END: u32 = 0;
pub const PLOT: u32 = 1;
pub const PLACE: u32 = 2;
pub const IRRIGATE: u32 = 3;
pub const IRRIGATE_KEEP: u32 = 4;
pub const GARDENER: u32 = 5;
pub const PANDA: u32 = 6;
pub const OBJECTIVE: u32 = 7;
pub const CHANNEL: u32 = 8;
pub const IMPROVE: u32 = 9;
pub const COMPLETE: u32 = 10;
pub const WEATHER: u32 = 11;
pub const RAIN: u32 = 12;
pub const STORM: u32 = 13;
pub const CLOUDS: u32 = 14;
pub const CLOUDS_KEEP: u32 = 15;
pub const CLOUDS_MOVE: u32 = 16;
pub const SKIP: u32 = 17;
pub const REDRAW: u32 = 18;

pub const KIND_MASK: u32 = 31;
pub const A_SHIFT: u32 = 5;
pub const B_SHIFT: u32 = 17;
pub const A_MASK: u32 = (1 << 12) - 1;

/// The five actions of R3.5, as `turn.actions` names them.
pub const ACTION_NAMES: [&str; 5] = ["plot", "irrigation", "gardener", "panda", "objective"];
pub const TURN_PLOT: u8 = 0;
pub const TURN_IRRIGATION: u8 = 1;
pub const TURN_GARDENER: u8 = 2;
pub const TURN_PANDA: u8 = 3;
pub const TURN_OBJECTIVE: u8 = 4;

/// Which of the five actions a kind spends (-1: free or weather).
pub fn turn_action(kind: u32) -> i8 {
    match kind {
        PLOT => TURN_PLOT as i8,
        IRRIGATE | IRRIGATE_KEEP => TURN_IRRIGATION as i8,
        GARDENER => TURN_GARDENER as i8,
        PANDA => TURN_PANDA as i8,
        OBJECTIVE => TURN_OBJECTIVE as i8,
        _ => -1,
    }
}

pub fn make(kind: u32, a: u32, b: u32) -> Action {
    kind | a << A_SHIFT | b << B_SHIFT
}

/// `place K Q,R [+IMPROVEMENT] [swap]`.
pub fn place(k: u32, cell: Cell, improvement: u32, swap: bool) -> Action {
    PLACE | (cell as u32) << A_SHIFT | (k | improvement << 2 | (swap as u32) << 4) << B_SHIFT
}

/// Whether an action names a card a set adds (`complete CARD` of index 45 on): its text is
/// the set's, not the printed catalog's.
pub fn names_added_card(action: Action) -> bool {
    action & KIND_MASK == COMPLETE && (action >> B_SHIFT) as usize >= COMPONENTS.cards.len()
}

/// `q,r` of any index, as the reference writes it (off the grid too: its arithmetic).
fn cell_ok(a: u32) -> Option<String> {
    let (w, r) = (grid::WIDTH as i64, grid::RADIUS as i64);
    let a = a as i64;
    Some(format!("{},{}", a % w - r, a / w - r))
}

fn edge_ok(a: u32) -> Option<String> {
    ((a as usize) < grid::GRID.edge_cells.len()).then(|| grid::edge_text(a as u16))
}

/// The notation of an action, or None when the int is not one (a field out of range); the
/// cards are the printed ones ([`try_text_in`] names a set's own).
pub fn try_text(action: u64) -> Option<String> {
    try_text_with(action, &COMPONENTS.cards)
}

/// [`try_text`] with a card set's cards (printed and added).
pub fn try_text_in(action: u64, cards: &CardSet) -> Option<String> {
    try_text_with(action, &cards.cards)
}

fn try_text_with(action: u64, cards: &[Card]) -> Option<String> {
    let card_id = |b: u32| cards.get(b as usize).map(|c| c.id.as_str());
    let kind = (action & KIND_MASK as u64) as u32;
    let a = (action >> A_SHIFT & A_MASK as u64) as u32;
    let b64 = action >> B_SHIFT;
    let b = u32::try_from(b64).ok()?;
    let imp = |i: u32| IMPROVEMENTS.get(i as usize).copied();
    Some(match kind {
        END => "end".into(),
        PLOT => "plot".into(),
        PLACE => {
            let (k, improvement, swap) = (b & 3, b >> 2 & 3, b >> 4 & 1);
            let mut text = format!("place {k} {}", cell_ok(a)?);
            if improvement != 0 {
                text += &format!(" +{}", IMPROVEMENTS[improvement as usize]);
            }
            if swap != 0 {
                text += " swap";
            }
            text
        }
        IRRIGATE => format!("irrigation {}", edge_ok(a)?),
        IRRIGATE_KEEP => "irrigation keep".into(),
        GARDENER => format!("gardener {}", cell_ok(a)?),
        PANDA => format!("panda {}", cell_ok(a)?),
        OBJECTIVE => format!("objective {}", CATEGORIES.get(b as usize)?),
        CHANNEL => format!("channel {}", edge_ok(a)?),
        IMPROVE => format!("improve {} {}", imp(b)?, cell_ok(a)?),
        COMPLETE => format!("complete {}", card_id(b)?),
        WEATHER => format!("weather {}", FACES.get(b as usize)?),
        RAIN => format!("rain {}", cell_ok(a)?),
        STORM => format!("storm {}", cell_ok(a)?),
        CLOUDS => format!("clouds {} {}", imp(b)?, cell_ok(a)?),
        CLOUDS_KEEP => format!("clouds {} keep", imp(b)?),
        CLOUDS_MOVE => format!("clouds move {} {}", cell_ok(a)?, cell_ok(b)?),
        SKIP => "skip".into(),
        REDRAW => format!("redraw {}", CATEGORIES.get(b as usize)?),
        _ => return None,
    })
}

/// Whether an action's fields are in range: its cells on the grid, its edge, card, face,
/// improvement or category one of the game's (what `apply` may be given).
pub fn in_range(action: Action, cards: usize) -> bool {
    let kind = action & KIND_MASK;
    let a = action >> A_SHIFT & A_MASK;
    let b = action >> B_SHIFT;
    let g = &*grid::GRID;
    let cell = |c: u32| g.is_cell(c as usize);
    let edge = |e: u32| (e as usize) < g.edge_cells.len();
    match kind {
        END | PLOT | IRRIGATE_KEEP | SKIP => true,
        PLACE => cell(a) && b < 32,
        IRRIGATE | CHANNEL => edge(a),
        GARDENER | PANDA | RAIN | STORM => cell(a),
        OBJECTIVE | REDRAW => b < 3,
        IMPROVE | CLOUDS => cell(a) && b < 4,
        CLOUDS_KEEP => b < 4,
        COMPLETE => (b as usize) < cards,
        WEATHER => b < 6,
        CLOUDS_MOVE => cell(a) && cell(b),
        _ => false,
    }
}

/// The notation of an action of the engine's own (always in range), printed cards.
pub fn text(action: Action) -> String {
    try_text(action as u64).unwrap_or_else(|| format!("<action {action}>"))
}

/// [`text`] with a card set's cards (printed and added).
pub fn text_in(action: Action, cards: &CardSet) -> String {
    try_text_in(action as u64, cards).unwrap_or_else(|| format!("<action {action}>"))
}

const FORMS: &str = "end, plot, place K Q,R [+IMPROVEMENT] [swap], irrigation EDGE|keep, gardener Q,R, panda Q,R, objective CATEGORY, channel EDGE, improve IMPROVEMENT Q,R, complete CARD, weather FACE, rain Q,R, storm Q,R, clouds IMPROVEMENT Q,R|keep, clouds move Q,R Q,R, skip, redraw CATEGORY";

/// The action of a notation text; the errors are the reference's `NotationError`s.
pub fn parse(text: &str) -> Result<Action, Error> {
    parse_with(text, parse_card)
}

/// [`parse`] with a card set's cards (printed and added).
pub fn parse_in(text: &str, cards: &CardSet) -> Result<Action, Error> {
    parse_with(text, |id| cards.parse_card(id))
}

/// [`parse`] with the card names read by `parse_card`. Each form with more than one
/// field is read by a function of its own; the errors name the action as written.
fn parse_with(
    text: &str,
    parse_card: impl Fn(&str) -> Result<u8, String>,
) -> Result<Action, Error> {
    let p = Parsing {
        quoted: str_repr(text),
    };
    let words: Vec<&str> = py_strip(text).split(' ').collect();
    let (verb, args) = (words[0], &words[1..]);
    match (verb, args.len()) {
        ("end", 0) => Ok(END),
        ("skip", 0) => Ok(SKIP),
        ("plot", 0) => Ok(PLOT),
        ("place", 2..=4) => p.place(args),
        ("irrigation", 1) if args[0] == "keep" => Ok(IRRIGATE_KEEP),
        ("irrigation", 1) => Ok(make(IRRIGATE, p.edge(args[0])? as u32, 0)),
        ("gardener" | "panda" | "rain" | "storm", 1) => {
            let kind = match verb {
                "gardener" => GARDENER,
                "panda" => PANDA,
                "rain" => RAIN,
                _ => STORM,
            };
            Ok(make(kind, p.cell(args[0])? as u32, 0))
        }
        ("objective", 1) => Ok(make(OBJECTIVE, 0, p.category(args[0])?)),
        ("redraw", 1) => Ok(make(REDRAW, 0, p.category(args[0])?)),
        ("channel", 1) => Ok(make(CHANNEL, p.edge(args[0])? as u32, 0)),
        ("improve", 2) => {
            let c = p.cell(args[1])?;
            let imp = p.improvement(args[0])?;
            Ok(make(IMPROVE, c as u32, imp))
        }
        ("complete", 1) => {
            let card = parse_card(args[0]).map_err(|m| p.fail(m))?;
            Ok(make(COMPLETE, 0, card as u32))
        }
        ("weather", 1) => p.weather(args[0]),
        ("clouds", 3) if args[0] == "move" => {
            let a = p.cell(args[1])?;
            let b = p.cell(args[2])?;
            Ok(make(CLOUDS_MOVE, a as u32, b as u32))
        }
        ("clouds", 2) => {
            let imp = p.improvement(args[0])?;
            if args[1] == "keep" {
                return Ok(make(CLOUDS_KEEP, 0, imp));
            }
            Ok(make(CLOUDS, p.cell(args[1])? as u32, imp))
        }
        _ => Err(Error::notation(format!(
            "{} is not an action (the forms are: {FORMS})",
            p.quoted
        ))),
    }
}

/// The action being parsed, as its errors quote it (`in action 'TEXT': ...`), and the
/// readers of its fields.
struct Parsing {
    quoted: String,
}

impl Parsing {
    fn fail(&self, m: String) -> Error {
        Error::notation(format!("in action {}: {m}", self.quoted))
    }

    fn cell(&self, t: &str) -> Result<grid::Cell, Error> {
        grid::parse_cell(t).map_err(|m| self.fail(m))
    }

    fn edge(&self, t: &str) -> Result<grid::Edge, Error> {
        grid::parse_edge(t).map_err(|m| self.fail(m))
    }

    fn improvement(&self, t: &str) -> Result<u32, Error> {
        match IMPROVEMENTS[1..].iter().position(|i| *i == t) {
            Some(i) => Ok(i as u32 + 1),
            None => Err(self.fail(format!(
                "{} is not an improvement (watershed, enclosure or fertilizer)",
                str_repr(t)
            ))),
        }
    }

    fn category(&self, t: &str) -> Result<u32, Error> {
        match CATEGORIES.iter().position(|c| *c == t) {
            Some(k) => Ok(k as u32),
            None => Err(self.fail(format!(
                "{} is not a category (plot, gardener or panda)",
                str_repr(t)
            ))),
        }
    }

    fn weather(&self, t: &str) -> Result<Action, Error> {
        match FACES[..5].iter().position(|f| *f == t) {
            Some(f) => Ok(make(WEATHER, 0, f as u32)),
            None => Err(self.fail(format!(
                "{} is not a weather to choose (sun, rain, wind, storm or clouds)",
                str_repr(t)
            ))),
        }
    }

    /// `place K Q,R [+IMPROVEMENT] [swap]`.
    fn place(&self, args: &[&str]) -> Result<Action, Error> {
        let k = match args[0] {
            "0" => 0,
            "1" => 1,
            "2" => 2,
            _ => return Err(self.fail("the plot number must be 0, 1 or 2".into())),
        };
        let c = self.cell(args[1])?;
        let mut rest = &args[2..];
        let mut imp = 0;
        if let Some(first) = rest.first() {
            if let Some(name) = first.strip_prefix('+') {
                imp = self.improvement(name)?;
                rest = &rest[1..];
            }
        }
        let mut swap = false;
        if rest == ["swap"] {
            swap = true;
            rest = &[];
        }
        if !rest.is_empty() {
            return Err(self.fail("expected 'place K Q,R [+IMPROVEMENT] [swap]'".into()));
        }
        Ok(place(k, c, imp, swap))
    }
}

/// Python's `str.strip()` (white space at both ends).
fn py_strip(text: &str) -> &str {
    text.trim_matches(|c: char| c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notation_round_trips() {
        for t in [
            "end",
            "place 1 0,1 +fertilizer swap",
            "irrigation 0,1|1,0",
            "clouds move 1,0 0,1",
            "complete plot-07",
            "weather storm",
            "redraw panda",
            "improve enclosure 1,-1",
        ] {
            assert_eq!(text(parse(t).unwrap()), t);
        }
        assert!(parse("fly")
            .unwrap_err()
            .message
            .starts_with("'fly' is not an action"));
    }
}
