//! The published game's components, read from the same `components.json` as the reference.

use std::sync::{Arc, LazyLock};

use crate::grid::{self, WIDTH};
use crate::json::{self, str_repr, Json};

/// The most a count may be (points, a round, sections eaten, stored channels, a rule
/// option's number): the engine holds counts in 32 bits, and both engines refuse more with
/// the same sentence (the reference's `components.COUNT_MAX`).
pub const COUNT_MAX: i128 = u32::MAX as i128;

pub const COLOURS: [&str; 3] = ["green", "yellow", "pink"];
pub const IMPROVEMENTS: [&str; 4] = ["none", "watershed", "enclosure", "fertilizer"];
pub const NO_IMPROVEMENT: u8 = 0;
pub const WATERSHED: u8 = 1;
pub const ENCLOSURE: u8 = 2;
pub const FERTILIZER: u8 = 3;
pub const CATEGORIES: [&str; 3] = ["plot", "gardener", "panda"];
pub const PLOT_CARD: u8 = 0;
pub const GARDENER_CARD: u8 = 1;
pub const PANDA_CARD: u8 = 2;
pub const FACES: [&str; 6] = ["sun", "rain", "wind", "storm", "clouds", "choice"];
pub const FACE_SUN: i8 = 0;
pub const FACE_RAIN: i8 = 1;
pub const FACE_WIND: i8 = 2;
pub const FACE_STORM: i8 = 3;
pub const FACE_CLOUDS: i8 = 4;
pub const FACE_CHOICE: i8 = 5;
/// A tile code is `colour * 4 + printed improvement`; the pond has its own code.
pub const POND_TILE: u8 = 12;

/// The source of the facts, compiled in.
pub const COMPONENTS_JSON: &str = include_str!("../../../data/components.json");

/// `colour` or `colour/improvement`.
pub fn tile_name(code: u8) -> String {
    if code == POND_TILE {
        return "pond".into();
    }
    let (colour, imp) = (code / 4, code % 4);
    if imp != 0 {
        format!(
            "{}/{}",
            COLOURS[colour as usize], IMPROVEMENTS[imp as usize]
        )
    } else {
        COLOURS[colour as usize].into()
    }
}

/// Tile code of a name; the error lists the valid names, as the reference's.
pub fn parse_tile(text: &str) -> Result<u8, String> {
    (0..12u8).find(|&c| tile_name(c) == text).ok_or_else(|| {
        let names: Vec<String> = (0..12).map(tile_name).collect();
        format!(
            "{} is not a tile (expected one of {})",
            str_repr(text),
            names.join(", ")
        )
    })
}

/// Cards a native game holds at most, printed and added: a card index is a bit of a `u64`
/// in the state's and the bots' card masks (45 printed, so a set may add 19).
pub const MAX_CARDS: usize = 64;

/// An objective card: the printed facts and what the rules need of them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Card {
    pub index: u8,
    pub id: String,
    pub category: u8,
    pub points: u32,
    /// plot: per distinct rotation, `(shift, colour)` per cell from the cell of smallest index.
    pub shifts: Vec<Vec<(u16, u8)>>,
    /// plot: the rotations as (q, r, colour), each anchored at its first cell.
    pub rotations: Vec<Vec<(i32, i32, u8)>>,
    /// gardener: colour, shoots, height, improvement (-1: any).
    pub colour: i8,
    pub shoots: u8,
    pub height: u8,
    pub improvement: i8,
    /// panda: sections to eat per colour.
    pub eat: [u8; 3],
}

/// The components' tables.
pub struct Components {
    /// Every plot, in the file's order (the deck before shuffling).
    pub all_plots: Vec<u8>,
    pub plot_counts: [u8; 12],
    pub channels: u32,
    pub improvement_tokens: [u8; 4],
    pub bamboo_sections: [u32; 3],
    pub emperor_points: u32,
    pub cards: Vec<Card>,
    /// Card indices per category, in the file's order.
    pub category_cards: [Vec<u8>; 3],
}

pub static COMPONENTS: LazyLock<Components> =
    LazyLock::new(|| load(COMPONENTS_JSON).expect("components.json is the engine's own data"));

fn colour_index(name: &str) -> Result<u8, String> {
    COLOURS
        .iter()
        .position(|c| *c == name)
        .map(|i| i as u8)
        .ok_or(format!("colour {name}"))
}

fn int_of(v: Option<&Json>, what: &str) -> Result<i128, String> {
    v.and_then(Json::as_int)
        .ok_or_else(|| format!("{what} is not an integer"))
}

fn str_of<'a>(v: Option<&'a Json>, what: &str) -> Result<&'a str, String> {
    v.and_then(Json::as_str)
        .ok_or_else(|| format!("{what} is not a text"))
}

/// The distinct rotations of a pattern (never mirrored), each anchored at its first cell.
fn rotations(cells: &[(i32, i32, u8)]) -> Vec<Vec<(i32, i32, u8)>> {
    let mut seen: Vec<Vec<(i32, i32, u8)>> = Vec::new();
    let mut out = Vec::new();
    let mut current = cells.to_vec();
    for _ in 0..6 {
        let (q0, r0, _) = current[0];
        let anchored: Vec<_> = current
            .iter()
            .map(|&(q, r, c)| (q - q0, r - r0, c))
            .collect();
        let (mq, mr) = anchored
            .iter()
            .map(|&(q, r, _)| (q, r))
            .min()
            .unwrap_or((0, 0));
        let mut key: Vec<_> = anchored
            .iter()
            .map(|&(q, r, c)| (q - mq, r - mr, c))
            .collect();
        key.sort();
        if !seen.contains(&key) {
            seen.push(key);
            out.push(anchored);
        }
        current = current
            .iter()
            .map(|&(q, r, c)| {
                let (a, b) = grid::rotate(q, r);
                (a, b, c)
            })
            .collect();
    }
    out
}

fn shifts(rotation: &[(i32, i32, u8)]) -> Vec<(u16, u8)> {
    let deltas: Vec<(i32, u8)> = rotation
        .iter()
        .map(|&(q, r, c)| (q + r * WIDTH, c))
        .collect();
    let base = deltas.iter().map(|d| d.0).min().unwrap_or(0);
    deltas
        .iter()
        .map(|&(d, c)| ((d - base) as u16, c))
        .collect()
}

/// A card from its catalog entry (the printed file's, or a set's added one, already checked
/// by the Python side's `card_defs`): the same reading for both, so an added card's rotations
/// are counted as the printed cards' are.
fn card_of(index: usize, category: u8, entry: &Json) -> Result<Card, String> {
    let id = str_of(entry.get("id"), "id")?;
    let points = int_of(entry.get("points"), "points")? as u32;
    let mut card = Card {
        index: index as u8,
        id: id.to_string(),
        category,
        points,
        shifts: Vec::new(),
        rotations: Vec::new(),
        colour: -1,
        shoots: 0,
        height: 0,
        improvement: -1,
        eat: [0; 3],
    };
    match category {
        PLOT_CARD => {
            let mut cells = Vec::new();
            for cell in entry.get("cells").and_then(Json::as_list).ok_or("cells")? {
                let at = str_of(cell.get("at"), "at")?;
                let (q, r) = at.split_once(',').ok_or("at")?;
                let (q, r) = (q.trim().parse::<i32>(), r.trim().parse::<i32>());
                let (Ok(q), Ok(r)) = (q, r) else {
                    return Err("at".into());
                };
                cells.push((q, r, colour_index(str_of(cell.get("colour"), "colour")?)?));
            }
            if cells.is_empty() {
                return Err("cells".into());
            }
            card.rotations = rotations(&cells);
            card.shifts = card.rotations.iter().map(|r| shifts(r)).collect();
        }
        GARDENER_CARD => {
            card.colour = colour_index(str_of(entry.get("colour"), "colour")?)? as i8;
            card.shoots = int_of(entry.get("shoots"), "shoots")? as u8;
            card.height = int_of(entry.get("height"), "height")? as u8;
            let imp = str_of(entry.get("improvement"), "improvement")?;
            card.improvement = if imp == "any" {
                -1
            } else {
                IMPROVEMENTS
                    .iter()
                    .position(|i| *i == imp)
                    .ok_or("improvement")? as i8
            };
        }
        _ => {
            let eat = entry.get("eat").ok_or("eat")?;
            for (i, c) in COLOURS.iter().enumerate() {
                card.eat[i] = eat.get(c).and_then(Json::as_int).unwrap_or(0) as u8;
            }
        }
    }
    Ok(card)
}

fn load(text: &str) -> Result<Components, String> {
    let d = json::parse(text)?;
    let mut all_plots = Vec::new();
    let mut plot_counts = [0u8; 12];
    for p in d.get("plots").and_then(Json::as_list).ok_or("plots")? {
        let code = parse_tile(str_of(p.get("tile"), "tile")?)?;
        let count = int_of(p.get("count"), "count")? as u8;
        plot_counts[code as usize] = count;
        all_plots.extend(std::iter::repeat_n(code, count as usize));
    }
    let tokens = d.get("improvement_tokens").ok_or("improvement_tokens")?;
    let mut improvement_tokens = [0u8; 4];
    for i in 1..4 {
        improvement_tokens[i] = int_of(tokens.get(IMPROVEMENTS[i]), IMPROVEMENTS[i])? as u8;
    }
    let sections = d.get("bamboo_sections").ok_or("bamboo_sections")?;
    let mut bamboo_sections = [0u32; 3];
    for (i, c) in COLOURS.iter().enumerate() {
        bamboo_sections[i] = int_of(sections.get(c), c)? as u32;
    }
    let objectives = d.get("objectives").ok_or("objectives")?;
    let mut cards: Vec<Card> = Vec::new();
    for (k, name) in CATEGORIES.iter().enumerate() {
        for entry in objectives.get(name).and_then(Json::as_list).ok_or(*name)? {
            cards.push(card_of(cards.len(), k as u8, entry)?);
        }
    }
    let category_cards = [0u8, 1, 2].map(|k| {
        cards
            .iter()
            .filter(|c| c.category == k)
            .map(|c| c.index)
            .collect::<Vec<u8>>()
    });
    Ok(Components {
        all_plots,
        plot_counts,
        channels: int_of(d.get("irrigation_channels"), "irrigation_channels")? as u32,
        improvement_tokens,
        bamboo_sections,
        emperor_points: int_of(d.get("emperor_points"), "emperor_points")? as u32,
        cards,
        category_cards,
    })
}

/// Card index of an id such as `plot-07`; the error is the reference's sentence.
pub fn parse_card(text: &str) -> Result<u8, String> {
    find_card(&COMPONENTS.cards, text)
}

/// The printed cards, shared by every set that adds none.
static PRINTED: LazyLock<Arc<Vec<Card>>> = LazyLock::new(|| Arc::new(COMPONENTS.cards.clone()));

/// A JSON value with every object's keys sorted (Python's `json.dumps(sort_keys=True)`, the
/// reference's canonical form of an added entry), so that two sets adding the same cards
/// compare equal however their entries were written.
fn canonical(v: &Json) -> Json {
    match v {
        Json::Object(items) => {
            let mut items: Vec<(String, Json)> = items
                .iter()
                .map(|(k, v)| (k.clone(), canonical(v)))
                .collect();
            items.sort_by(|a, b| a.0.cmp(&b.0));
            Json::Object(items)
        }
        Json::List(items) => Json::List(items.iter().map(canonical).collect()),
        other => other.clone(),
    }
}

/// The objective cards a game is played with: each card's points, the cards left out, and
/// the cards the set adds to the printed ones (the reference's `CardSet`).
#[derive(Clone, Debug)]
pub struct CardSet {
    /// Points per card index, printed and added cards.
    pub points: Vec<u32>,
    /// Bit per card index.
    pub removed: u64,
    /// Per category, the cards in play in the file's order (printed, then added).
    pub decks: [Vec<u8>; 3],
    /// Every card by index: the printed ones, then the added ones (indices 45 on).
    pub cards: Arc<Vec<Card>>,
    /// The added cards' entries, `(category, entry)` in their order, keys sorted.
    pub added: Vec<(u8, Json)>,
}

impl PartialEq for CardSet {
    fn eq(&self, other: &CardSet) -> bool {
        self.points == other.points && self.removed == other.removed && self.added == other.added
    }
}

// An added entry holds no float (its fields are ids, names and whole numbers): equality is
// an equivalence.
impl Eq for CardSet {}

impl Default for CardSet {
    fn default() -> Self {
        let c = &*COMPONENTS;
        CardSet::new(c.cards.iter().map(|c| c.points).collect(), 0)
    }
}

impl CardSet {
    /// The printed cards with these points and removals.
    pub fn new(points: Vec<u32>, removed: u64) -> CardSet {
        CardSet::build(points, removed, PRINTED.clone(), Vec::new())
    }

    fn build(
        points: Vec<u32>,
        removed: u64,
        cards: Arc<Vec<Card>>,
        added: Vec<(u8, Json)>,
    ) -> CardSet {
        let decks = [0u8, 1, 2].map(|k| {
            cards
                .iter()
                .filter(|c| c.category == k && removed >> c.index & 1 == 0)
                .map(|c| c.index)
                .collect::<Vec<u8>>()
        });
        CardSet {
            points,
            removed,
            decks,
            cards,
            added,
        }
    }

    /// A set that adds cards: `added` are `(category, entry)` in the order of their indices
    /// (45 on), `points` and `removed` cover every card.  The error says what the native
    /// engine cannot hold (more than [`MAX_CARDS`] cards, a deck beyond its arrays) or which
    /// entry it cannot read.
    pub fn with_added(
        points: Vec<u32>,
        removed: u64,
        added: Vec<(u8, Json)>,
    ) -> Result<CardSet, String> {
        if added.is_empty() {
            return Ok(CardSet::new(points, removed));
        }
        let printed = COMPONENTS.cards.len();
        let total = printed + added.len();
        if total > MAX_CARDS {
            return Err(format!(
                "the card set adds {} cards: the native engine plays at most {} in all ({} added); \
                 play more on the reference engine (ARENA_ENGINE=reference)",
                added.len(),
                MAX_CARDS,
                MAX_CARDS - printed
            ));
        }
        if points.len() != total {
            return Err(format!(
                "a card set gives points to {total} cards, not {}",
                points.len()
            ));
        }
        let mut cards = COMPONENTS.cards.clone();
        let mut entries = Vec::with_capacity(added.len());
        for (category, entry) in added {
            if category > PANDA_CARD {
                return Err(format!("{category} is not a card category"));
            }
            let card = card_of(cards.len(), category, &entry).map_err(|m| {
                format!(
                    "added card {}: {m}",
                    entry.get("id").map_or("?".into(), |v| v.repr())
                )
            })?;
            if cards.iter().any(|c| c.id == card.id) {
                return Err(format!("the card set adds {} twice", card.id));
            }
            cards.push(card);
            entries.push((category, canonical(&entry)));
        }
        let set = CardSet::build(points, removed, Arc::new(cards), entries);
        for (k, deck) in set.decks.iter().enumerate() {
            if deck.len() > crate::state::MAX_DECK {
                return Err(format!(
                    "the {} deck holds {} cards: the native engine plays at most {} a deck; \
                     play it on the reference engine (ARENA_ENGINE=reference)",
                    CATEGORIES[k],
                    deck.len(),
                    crate::state::MAX_DECK
                ));
            }
        }
        Ok(set)
    }

    pub fn is_removed(&self, card: u8) -> bool {
        self.removed >> card & 1 != 0
    }

    /// A card of this set by index (printed or added).
    pub fn card(&self, card: u8) -> &Card {
        &self.cards[card as usize]
    }

    /// The id of a card of this set.
    pub fn id(&self, card: u8) -> &str {
        &self.cards[card as usize].id
    }

    /// Card index of an id of this set (printed or added); the error is the reference's.
    pub fn parse_card(&self, text: &str) -> Result<u8, String> {
        find_card(&self.cards, text)
    }

    /// The printed set with `add` (entries by category, the reference's form), points (card
    /// id -> value) and removals (card ids) applied; the error names the field at fault as
    /// the reference's `CardSet.from_changes`.
    pub fn from_changes(
        points: &[(String, Json)],
        remove: &[Json],
        add: Option<&Json>,
    ) -> Result<CardSet, String> {
        let mut added = Vec::new();
        if let Some(add) = add {
            for (k, name) in CATEGORIES.iter().enumerate() {
                for entry in add.get(name).and_then(Json::as_list).unwrap_or(&[]) {
                    added.push((k as u8, entry.clone()));
                }
            }
        }
        let mut table: Vec<u32> = COMPONENTS.cards.iter().map(|c| c.points).collect();
        for (_, entry) in &added {
            table.push(
                entry
                    .get("points")
                    .and_then(Json::as_int)
                    .unwrap_or(0)
                    .max(0) as u32,
            );
        }
        let base = CardSet::with_added(table, 0, added)?;
        let mut table = base.points.clone();
        for (card_id, value) in points {
            let Ok(index) = base.parse_card(card_id) else {
                return Err(format!(
                    "points.{card_id}: {} is not an objective card (`arena cards` lists them)",
                    str_repr(card_id)
                ));
            };
            match value.as_wide_int() {
                Some(v) if (0..=COUNT_MAX).contains(&v) => table[index as usize] = v as u32,
                Some(v) if v > 0 => {
                    return Err(format!(
                        "points.{card_id} must be at most {COUNT_MAX}, not {}",
                        value.repr()
                    ))
                }
                _ => {
                    return Err(format!(
                        "points.{card_id} must be a whole number >= 0, not {}",
                        value.repr()
                    ))
                }
            }
        }
        let mut removed = 0u64;
        for (i, v) in remove.iter().enumerate() {
            let index = v.as_str().and_then(|s| base.parse_card(s).ok());
            let Some(index) = index else {
                return Err(format!(
                    "remove[{i}]: {} is not an objective card (`arena cards` lists them)",
                    v.repr()
                ));
            };
            if removed >> index & 1 != 0 {
                return Err(format!("remove[{i}]: {} is removed twice", base.id(index)));
            }
            removed |= 1 << index;
        }
        Ok(CardSet::build(table, removed, base.cards, base.added))
    }

    /// What differs from the printed set: `points` (by id, card order), `remove` (ids) and
    /// `add` (the added entries by category), as the reference's `changes()`.
    pub fn changes(&self) -> Json {
        let mut out = Vec::new();
        let points: Vec<(String, Json)> = self
            .cards
            .iter()
            .filter(|c| self.points[c.index as usize] != c.points)
            .map(|c| {
                (
                    c.id.clone(),
                    Json::Int(self.points[c.index as usize] as i128),
                )
            })
            .collect();
        if !points.is_empty() {
            out.push(("points".to_string(), Json::Object(points)));
        }
        if self.removed != 0 {
            let ids = self
                .cards
                .iter()
                .filter(|c| self.is_removed(c.index))
                .map(|c| Json::Str(c.id.clone()))
                .collect();
            out.push(("remove".to_string(), Json::List(ids)));
        }
        if !self.added.is_empty() {
            let mut by_category: Vec<(String, Json)> = Vec::new();
            for (category, entry) in &self.added {
                let name = CATEGORIES[*category as usize];
                match by_category.iter_mut().find(|(k, _)| k == name) {
                    Some((_, Json::List(list))) => list.push(entry.clone()),
                    _ => by_category.push((name.to_string(), Json::List(vec![entry.clone()]))),
                }
            }
            out.push(("add".to_string(), Json::Object(by_category)));
        }
        Json::Object(out)
    }

    pub fn is_default(&self) -> bool {
        self.removed == 0
            && self.added.is_empty()
            && self
                .points
                .iter()
                .zip(self.cards.iter())
                .all(|(p, c)| *p == c.points)
    }

    /// Why a game of this many seats cannot be dealt from this set (R2.3).
    pub fn deal_problem(&self, players: usize) -> Option<String> {
        for (k, deck) in self.decks.iter().enumerate() {
            if deck.len() < players {
                return Some(format!(
                    "the {} deck keeps {} card{}, and a {players}-player game deals one to each seat (R2.3)",
                    CATEGORIES[k],
                    deck.len(),
                    if deck.len() == 1 { "" } else { "s" }
                ));
            }
        }
        None
    }
}

fn find_card(cards: &[Card], text: &str) -> Result<u8, String> {
    cards
        .iter()
        .find(|c| c.id == text)
        .map(|c| c.index)
        .ok_or_else(|| format!("{} is not an objective card of the game", str_repr(text)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_file_is_read() {
        let c = &*COMPONENTS;
        assert_eq!(c.all_plots.len(), 27);
        assert_eq!(c.cards.len(), 45);
        assert_eq!(c.channels, 20);
        assert_eq!(
            tile_name(parse_tile("green/watershed").unwrap()),
            "green/watershed"
        );
        assert_eq!(
            c.cards[parse_card("panda-01").unwrap() as usize].eat,
            [2, 0, 0]
        );
    }

    fn entry(text: &str) -> Json {
        json::parse(text).unwrap()
    }

    #[test]
    fn an_added_card_is_read_as_a_printed_one() {
        // plot-01's entry under another id: the same rotations, the next index.
        let printed = &COMPONENTS.cards[parse_card("plot-01").unwrap() as usize];
        let objectives = json::parse(COMPONENTS_JSON).unwrap();
        let mut copy = objectives
            .get("objectives")
            .unwrap()
            .get("plot")
            .unwrap()
            .as_list()
            .unwrap()[0]
            .clone();
        if let Json::Object(items) = &mut copy {
            items.retain(|(k, _)| k != "id");
            items.push(("id".into(), Json::Str("plot-copy".into())));
        }
        let mut points: Vec<u32> = COMPONENTS.cards.iter().map(|c| c.points).collect();
        points.push(printed.points);
        let set = CardSet::with_added(points, 0, vec![(PLOT_CARD, copy)]).unwrap();
        let added = set.card(45);
        assert_eq!(added.id, "plot-copy");
        assert_eq!(added.shifts, printed.shifts);
        assert_eq!(set.decks[0].len(), 16);
        assert_eq!(set.parse_card("plot-copy"), Ok(45));
        assert!(
            parse_card("plot-copy").is_err(),
            "the printed catalog is unchanged"
        );
    }

    #[test]
    fn changes_give_back_the_set() {
        let add = entry(
            r#"{"panda": [{"id": "panda-16", "eat": {"green": 3}, "points": 4}],
                "gardener": [{"points": 2, "id": "gardener-16", "colour": "pink", "shoots": 1,
                              "height": 2, "improvement": "any"}]}"#,
        );
        let points = vec![("panda-16".to_string(), Json::Int(6))];
        let remove = vec![Json::Str("panda-01".into())];
        let set = CardSet::from_changes(&points, &remove, Some(&add)).unwrap();
        // Indices follow the categories' order, gardener before panda.
        assert_eq!(set.id(45), "gardener-16");
        assert_eq!(set.id(46), "panda-16");
        assert_eq!(set.points[46], 6);
        assert_eq!(set.card(46).eat, [3, 0, 0]);
        let changes = set.changes();
        let again = CardSet::from_changes(
            changes.get("points").and_then(Json::as_object).unwrap(),
            changes.get("remove").and_then(Json::as_list).unwrap(),
            changes.get("add"),
        )
        .unwrap();
        assert_eq!(again, set);
        assert!(!set.is_default());
    }

    #[test]
    fn a_set_beyond_the_arrays_is_refused_in_a_sentence() {
        let many: Vec<String> = (0..20)
            .map(|i| format!(r#"{{"id": "panda-x{i}", "eat": {{"green": 1}}, "points": 2}}"#))
            .collect();
        let add = entry(&format!(r#"{{"panda": [{}]}}"#, many.join(",")));
        let err = CardSet::from_changes(&[], &[], Some(&add)).unwrap_err();
        assert!(err.starts_with("the card set adds 20 cards: the native engine plays at most 64"));
    }
}
