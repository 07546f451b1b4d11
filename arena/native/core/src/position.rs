//! Positions as JSON: written from a state, read back into one (the reference's
//! `position.py`, section by section, refusal by refusal).
//!
//! Reading is parsing and then checking, as shakmaty's `Setup` becomes a position only
//! through a checked conversion: a `Setup` is the position's fields as read, and
//! `Setup::into_state` checks that they add up, failing with the first fault in the
//! reference's order and its sentence (`tiles[3].bamboo: ...`).

use std::sync::Arc;

use arrayvec::ArrayVec;

use crate::actions::{ACTION_NAMES, TURN_OBJECTIVE, TURN_PLOT};
use crate::components::*;
use crate::error::{Error, ErrorKind};
use crate::grid::{self, Cell, CellSet, EdgeSet, GRID, POND};
use crate::json::Json;
use crate::options::RuleOptions;
use crate::rng;
use crate::state::*;

pub const FORMAT: &str = "takenoko-position/1";
pub const DECK_NAMES: [&str; 4] = ["plots", "plot", "gardener", "panda"];

fn s(text: impl Into<String>) -> Json {
    Json::Str(text.into())
}

fn int(v: impl Into<i128>) -> Json {
    Json::Int(v.into())
}

fn obj(items: Vec<(&str, Json)>) -> Json {
    Json::Object(items.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
}

fn ids(cards: &[u8], set: &CardSet) -> Json {
    Json::List(cards.iter().map(|&c| s(set.id(c))).collect())
}

/// The public board as JSON: tiles in the order they were placed, channels, figures.
pub fn board_json(b: &Board) -> Json {
    let tiles = b
        .bamboo_items()
        .map(|(cell, h)| {
            let imp = b.improvement(cell);
            obj(vec![
                ("at", s(grid::cell_text(cell))),
                ("tile", s(tile_name(b.tile(cell).unwrap_or(0)))),
                ("bamboo", int(h)),
                (
                    "improvement",
                    if imp > 0 {
                        s(IMPROVEMENTS[imp as usize])
                    } else {
                        Json::Null
                    },
                ),
                ("irrigated", Json::Bool(b.irrigated.has(cell))),
            ])
        })
        .collect();
    let mut channels: Vec<String> = b.channels.iter().map(grid::edge_text).collect();
    channels.sort();
    obj(vec![
        ("tiles", Json::List(tiles)),
        (
            "channels",
            Json::List(channels.into_iter().map(s).collect()),
        ),
        ("gardener", s(grid::cell_text(b.gardener))),
        ("panda", s(grid::cell_text(b.panda))),
    ])
}

/// The position of a state: the whole truth, hidden parts included.
pub fn to_position(st: &State) -> Json {
    let b = &st.b;
    let mut d: Vec<(&str, Json)> =
        vec![("format", s(FORMAT)), ("options", b.options.to_dict(true))];
    if !b.card_set.is_default() {
        d.push(("card_set", b.card_set.changes()));
    }
    d.extend([
        ("players", int(b.players)),
        ("seed", int(st.seed)),
        ("rng", int(st.rng)),
        ("round", int(b.round)),
        ("current", int(b.current)),
        ("turn", turn_json(st)),
        (
            "dice",
            Json::List(st.dice.iter().map(|&f| s(FACES[f as usize])).collect()),
        ),
    ]);
    if let Json::Object(items) = board_json(b) {
        for (k, v) in items {
            d.push((
                match k.as_str() {
                    "tiles" => "tiles",
                    "channels" => "channels",
                    "gardener" => "gardener",
                    _ => "panda",
                },
                v,
            ));
        }
    }
    d.push(("reserve", reserve_json(b)));
    d.push(("decks", decks_json(st)));
    if let Some(known) = known_json(b) {
        d.push(("known", known));
    }
    d.push(("hands", hands_json(st)));
    let emperor = b.emperor >= 0;
    d.push(("emperor", if emperor { int(b.emperor) } else { Json::Null }));
    d.push((
        "last_turns",
        if emperor {
            int(b.last_turns)
        } else {
            Json::Null
        },
    ));
    d.push(("ended", Json::Bool(b.ended)));
    d.push(("capped", Json::Bool(b.capped)));
    obj(d)
}

/// A position's `turn`: the step, the weather, the actions taken, the plots drawn (and
/// the cards to put back at a redraw).
fn turn_json(st: &State) -> Json {
    let b = &st.b;
    let mut turn = vec![
        ("step", s(STEP_NAMES[b.step as usize])),
        (
            "weather",
            if b.weather >= 0 {
                s(FACES[b.weather as usize])
            } else {
                Json::Null
            },
        ),
        (
            "actions",
            Json::List(
                b.taken
                    .iter()
                    .map(|&a| s(ACTION_NAMES[a as usize]))
                    .collect(),
            ),
        ),
        (
            "drawn",
            Json::List(st.drawn.iter().map(|&t| s(tile_name(t))).collect()),
        ),
    ];
    if b.step == STEP_REDRAW {
        turn.push((
            "put_back",
            obj(CATEGORIES
                .iter()
                .zip(b.put_back)
                .map(|(k, n)| (*k, int(n)))
                .collect()),
        ));
    }
    obj(turn)
}

/// A position's `reserve`: channels and improvements left.
fn reserve_json(b: &Board) -> Json {
    obj(vec![
        ("channels", int(b.reserve_channels)),
        (
            "improvements",
            obj((1..4)
                .map(|i| (IMPROVEMENTS[i], int(b.reserve_improvements[i])))
                .collect()),
        ),
    ])
}

/// A position's `decks`: the plot deck and the objective decks, top first.
fn decks_json(st: &State) -> Json {
    let mut decks = vec![(
        "plots",
        Json::List(st.plot_deck.iter().map(|&t| s(tile_name(t))).collect()),
    )];
    for (k, name) in CATEGORIES.iter().enumerate() {
        decks.push((name, ids(&st.objective_decks[k], &st.b.card_set)));
    }
    obj(decks)
}

/// A position's `known`: per deck, which seats know each place (None when no one knows any).
fn known_json(b: &Board) -> Option<Json> {
    let p = b.players as usize;
    let masks: [&[u8]; 4] = [
        &b.plot_known,
        &b.objective_known[0],
        &b.objective_known[1],
        &b.objective_known[2],
    ];
    let mut known = Vec::new();
    for (name, m) in DECK_NAMES.iter().zip(masks) {
        if m.iter().any(|&x| x != 0) {
            let rows = m
                .iter()
                .map(|&x| {
                    Json::List(
                        (0..p)
                            .filter(|s| x >> s & 1 != 0)
                            .map(|s| int(s as i128))
                            .collect(),
                    )
                })
                .collect();
            known.push((*name, Json::List(rows)));
        }
    }
    (!known.is_empty()).then(|| obj(known))
}

/// A position's `hands`: per seat its objectives, completed cards, eaten sections and
/// stored pieces.
fn hands_json(st: &State) -> Json {
    let b = &st.b;
    let hands = (0..b.players as usize)
        .map(|seat| {
            let imps: Vec<Json> = (1..4)
                .flat_map(|i| {
                    std::iter::repeat_n(s(IMPROVEMENTS[i]), b.stored_improvements[seat][i] as usize)
                })
                .collect();
            obj(vec![
                ("objectives", ids(&st.hands[seat], &b.card_set)),
                ("completed", ids(&b.completed[seat], &b.card_set)),
                (
                    "eaten",
                    obj(COLOURS
                        .iter()
                        .zip(b.eaten[seat])
                        .map(|(c, n)| (*c, int(n)))
                        .collect()),
                ),
                ("channels", int(b.stored_channels[seat])),
                ("improvements", Json::List(imps)),
            ])
        })
        .collect();
    Json::List(hands)
}

/// What a field must be.
#[derive(Clone, Copy, PartialEq)]
enum K {
    Int,
    Bool,
    List,
    Dict,
}

fn fail(field: &str, message: impl std::fmt::Display) -> Error {
    Error::position(message.to_string()).at(field)
}

/// A refusal of `field` whose phrase quotes the offending `value` (where it says `{value}`).
fn fail_quoting(field: &str, phrase: impl std::fmt::Display, value: &Json) -> Error {
    fail(field, phrase).quoting(value.clone())
}

/// `r.get` of the reference: the value under a key, checked for its kind; `Ok(None)` for a
/// key left out (or null) when the field has a default.
fn get<'a>(
    o: &'a Json,
    key: &str,
    field: &str,
    kind: K,
    default: bool,
) -> Result<Option<&'a Json>, Error> {
    let value = o.get(key);
    match value {
        None => {
            return if default {
                Ok(None)
            } else {
                Err(fail(field, "is missing"))
            };
        }
        Some(Json::Null) if default => return Ok(None),
        _ => {}
    }
    let v = value.unwrap_or(&Json::Null);
    let ok = match (kind, v) {
        (K::Int, Json::Bool(_)) => {
            return Err(fail_quoting(
                field,
                "must be a whole number, not {value}",
                v,
            ));
        }
        (K::Int, Json::Int(_) | Json::Big(_))
        | (K::Bool, Json::Bool(_))
        | (K::List, Json::List(_))
        | (K::Dict, Json::Object(_)) => true,
        _ => false,
    };
    if !ok {
        let expected = match kind {
            K::Int => "a whole number",
            K::Bool => "true or false",
            K::List => "a list",
            K::Dict => "an object",
        };
        return Err(fail_quoting(
            field,
            format!("must be {expected}, not {{value}}"),
            v,
        ));
    }
    Ok(Some(v))
}

/// An int field (a `Big` one as the nearest `i128`: `Json::as_wide_int`), checked against
/// its range before it is narrowed; a refusal quotes the value given (`given`).
fn get_int(o: &Json, key: &str, field: &str, default: i128) -> Result<i128, Error> {
    Ok(get(o, key, field, K::Int, true)?
        .and_then(Json::as_wide_int)
        .unwrap_or(default))
}

fn get_req_int(o: &Json, key: &str, field: &str) -> Result<i128, Error> {
    Ok(get(o, key, field, K::Int, false)?
        .and_then(Json::as_wide_int)
        .unwrap_or(0))
}

/// The value of an int field as given (its default when left out), for a refusal to quote.
fn given(o: &Json, key: &str, default: i128) -> Json {
    match o.get(key) {
        None | Some(Json::Null) => Json::Int(default),
        Some(v) => v.clone(),
    }
}

/// The refusal of a seed beyond 128 bits, the engines holding a seed in 128 bits (the
/// reference's `rng.SEED_RANGE`, which also checks a new game's).
const SEED_RANGE: &str = "must be a whole number from -2**127 to 2**127-1, not {value}";

/// A count's refusal when it is beyond `COUNT_MAX`.
fn check_count(o: &Json, key: &str, field: &str, count: i128) -> Result<(), Error> {
    if count > COUNT_MAX {
        return Err(fail_quoting(
            field,
            format!("must be at most {COUNT_MAX}, not {{value}}"),
            &given(o, key, 0),
        ));
    }
    Ok(())
}

fn get_bool(o: &Json, key: &str, field: &str, default: bool) -> Result<bool, Error> {
    Ok(match get(o, key, field, K::Bool, true)? {
        Some(Json::Bool(b)) => *b,
        _ => default,
    })
}

static EMPTY_LIST: Json = Json::List(Vec::new());
static EMPTY_OBJECT: Json = Json::Object(Vec::new());

fn get_list<'a>(o: &'a Json, key: &str, field: &str) -> Result<&'a [Json], Error> {
    Ok(get(o, key, field, K::List, true)?
        .unwrap_or(&EMPTY_LIST)
        .as_list()
        .unwrap_or(&[]))
}

fn get_dict<'a>(o: &'a Json, key: &str, field: &str) -> Result<&'a Json, Error> {
    Ok(get(o, key, field, K::Dict, true)?.unwrap_or(&EMPTY_OBJECT))
}

fn cell(v: Option<&Json>, field: &str) -> Result<Cell, Error> {
    match v {
        Some(Json::Str(t)) => grid::parse_cell(t).map_err(|m| fail(field, m)),
        other => Err(fail_quoting(
            field,
            "must be a coordinate q,r, not {value}",
            other.unwrap_or(&Json::Null),
        )),
    }
}

fn tile(v: Option<&Json>, field: &str) -> Result<u8, Error> {
    match v {
        Some(Json::Str(t)) => parse_tile(t).map_err(|m| fail(field, m)),
        other => Err(fail_quoting(
            field,
            "must be a tile name, not {value}",
            other.unwrap_or(&Json::Null),
        )),
    }
}

fn card(v: &Json, field: &str, set: &CardSet) -> Result<u8, Error> {
    match v {
        Json::Str(t) => set.parse_card(t).map_err(|m| fail(field, m)),
        other => Err(fail_quoting(field, "must be a card id, not {value}", other)),
    }
}

fn choice(v: Option<&Json>, names: &[&str], field: &str) -> Result<usize, Error> {
    let v = v.unwrap_or(&Json::Null);
    v.as_str()
        .and_then(|t| names.iter().position(|n| *n == t))
        .ok_or_else(|| {
            fail_quoting(
                field,
                format!("{{value}} is not one of {}", names.join(", ")),
                v,
            )
        })
}

/// A position read but not yet checked against itself (what the rules can reach).
struct Setup {
    st: State,
    claimed_irrigated: Vec<(Cell, String, bool)>,
    /// `turn.put_back` as given, checked against the decks once they are read.
    put_back: [Json; 3],
}

/// A state from a position; the error names the field that is bad, in the reference's words.
pub fn from_position(data: &Json) -> Result<State, Error> {
    if !matches!(data, Json::Object(_)) {
        return Err(Error::position("a position must be a JSON object"));
    }
    let mut setup = read_game(data)?;
    read_tiles(data, &mut setup)?;
    read_channels(data, &mut setup)?;
    read_irrigation(&mut setup)?;
    read_figures(data, &mut setup)?;
    read_turn(data, &mut setup)?;
    read_hands(data, &mut setup)?;
    read_reserve(data, &mut setup)?;
    read_decks(data, &mut setup)?;
    read_known(data, &mut setup)?;
    read_end(data, &mut setup)?;
    let mut st = setup.st;
    st.history = History(Some(Vec::new()));
    st.advance();
    Ok(st)
}

fn read_game(d: &Json) -> Result<Setup, Error> {
    let fmt = d.get("format").unwrap_or(&Json::Null);
    if fmt.as_str() != Some(FORMAT) {
        return Err(fail_quoting(
            "format",
            format!("{{value}} is not a known position format (expected '{FORMAT}')"),
            fmt,
        ));
    }
    let options =
        RuleOptions::from_dict(get_dict(d, "options", "options")?).map_err(|e| Error {
            kind: ErrorKind::Position,
            ..e.at("options")
        })?;
    let players = get_req_int(d, "players", "players")?;
    if !(2..=4).contains(&players) {
        let phrase = "a game has 2, 3 or 4 players, not {value}";
        return Err(fail_quoting("players", phrase, &given(d, "players", 0)));
    }
    let seed = get_int(d, "seed", "seed", 0)?;
    if let Some(Json::Big(_)) = d.get("seed") {
        return Err(fail_quoting("seed", SEED_RANGE, &given(d, "seed", 0)));
    }
    let card_set = read_card_set(d)?;
    let round = get_int(d, "round", "round", 1)?;
    if round < 1 {
        let phrase = "must be at least 1, not {value}";
        return Err(fail_quoting("round", phrase, &given(d, "round", 1)));
    }
    check_count(d, "round", "round", round)?;
    let current = get_int(d, "current", "current", 0)?;
    if !(0..players).contains(&current) {
        return Err(fail_quoting(
            "current",
            format!("seat {{value}} is not in a {players}-player game"),
            &given(d, "current", 0),
        ));
    }
    let mut st = State::blank(players as u8, Arc::new(options), Arc::new(card_set));
    st.seed = seed;
    st.b.round = round as u32;
    st.b.current = current as u8;
    Ok(Setup {
        st,
        claimed_irrigated: Vec::new(),
        put_back: [Json::Int(0), Json::Int(0), Json::Int(0)],
    })
}

fn read_card_set(d: &Json) -> Result<CardSet, Error> {
    let data = get_dict(d, "card_set", "card_set")?;
    for (key, _) in data.as_object().unwrap_or(&[]) {
        if key != "points" && key != "remove" && key != "add" {
            return Err(fail_quoting(
                "card_set",
                "{value} is not a card-set field (points, remove, add)",
                &s(key.clone()),
            ));
        }
    }
    let points = get_dict(data, "points", "card_set.points")?;
    let remove = get_list(data, "remove", "card_set.remove")?;
    // `add` was checked by the Python side's card definitions (as the reference checks it)
    // before the position came here; what is left to refuse is what the core cannot hold.
    let add = data.get("add");
    if add.is_some_and(|a| !matches!(a, Json::Object(_))) {
        return Err(fail(
            "card_set.add",
            "must be an object of categories to lists of cards",
        ));
    }
    CardSet::from_changes(points.as_object().unwrap_or(&[]), remove, add)
        .map_err(|m| fail("card_set", m))
}

fn read_tiles(d: &Json, setup: &mut Setup) -> Result<(), Error> {
    let mut improvements: ArrayVec<(Cell, u8), MAX_TILES> = ArrayVec::new();
    for (i, entry) in get_list(d, "tiles", "tiles")?.iter().enumerate() {
        let b = &mut setup.st.b;
        let f = format!("tiles[{i}]");
        if !matches!(entry, Json::Object(_)) {
            return Err(fail(
                &f,
                "must be an object with at, tile, bamboo, improvement",
            ));
        }
        let at = cell(entry.get("at"), &format!("{f}.at"))?;
        if at == POND {
            return Err(fail(&format!("{f}.at"), "0,0 is the pond, not a plot"));
        }
        if b.has_tile(at) {
            let text = entry.get("at").and_then(Json::as_str).unwrap_or("");
            return Err(fail(&format!("{f}.at"), format!("{text} holds two tiles")));
        }
        let code = tile(entry.get("tile"), &format!("{f}.tile"))?;
        let height = get_int(entry, "bamboo", &format!("{f}.bamboo"), 0)?;
        if !(0..=4).contains(&height) {
            return Err(fail_quoting(
                &format!("{f}.bamboo"),
                "{value} is not between 0 and 4 (R7.3)",
                &given(entry, "bamboo", 0),
            ));
        }
        let imp = tile_improvement(entry, code, &f)?;
        if b.order.is_full() {
            return Err(fail(&f, "more tiles than the game's 27 plots (R1.2)"));
        }
        b.put_tile(at, code, height as u8);
        if imp != 0 {
            improvements.push((at, imp));
        }
        if entry.get("irrigated").is_some() {
            let field = format!("{f}.irrigated");
            let claim = match get(entry, "irrigated", &field, K::Bool, false)? {
                Some(Json::Bool(v)) => *v,
                _ => false,
            };
            setup.claimed_irrigated.retain(|(c, _, _)| *c != at);
            setup.claimed_irrigated.push((at, field, claim));
        }
    }
    setup.st.b.improvements = improvements;
    check_joined(&setup.st.b)
}

/// The improvement of a tile entry `f` (0 for none): a printed one must be the tile's own.
fn tile_improvement(entry: &Json, code: u8, f: &str) -> Result<u8, Error> {
    let imp = match entry.get("improvement") {
        None | Some(Json::Null) => 0,
        Some(Json::Str(t)) if t == "none" => 0,
        v => choice(v, &IMPROVEMENTS[1..], &format!("{f}.improvement"))? as u8 + 1,
    };
    let printed = code & 3;
    if printed != 0 && imp != printed {
        return Err(fail(
            &format!("{f}.improvement"),
            format!(
                "a {} tile always carries its printed {}",
                tile_name(code),
                IMPROVEMENTS[printed as usize]
            ),
        ));
    }
    Ok(imp)
}

/// Every plot is joined to the pond through tiles in play (R5.2).
fn check_joined(b: &Board) -> Result<(), Error> {
    let mut reached = CellSet::default();
    reached.insert(POND);
    let mut frontier = vec![POND];
    while let Some(c) = frontier.pop() {
        for &n in &GRID.neighbours[c as usize] {
            if b.has_tile(n) && !reached.has(n) {
                reached.insert(n);
                frontier.push(n);
            }
        }
    }
    for &c in &b.order {
        if !reached.has(c) {
            return Err(fail(
                "tiles",
                format!(
                    "the plot at {} is cut off from the pond",
                    grid::cell_text(c)
                ),
            ));
        }
    }
    Ok(())
}

fn read_channels(d: &Json, setup: &mut Setup) -> Result<(), Error> {
    let b = &mut setup.st.b;
    let mut channels = EdgeSet::default();
    for (i, v) in get_list(d, "channels", "channels")?.iter().enumerate() {
        let f = format!("channels[{i}]");
        let Json::Str(text) = v else {
            return Err(fail_quoting(&f, "must be an edge q,r|q,r, not {value}", v));
        };
        let edge = grid::parse_edge(text).map_err(|m| fail(&f, m))?;
        let (a, c) = GRID.edge_cells[edge as usize];
        if a == POND || c == POND {
            return Err(fail(
                &f,
                format!("{text} is an edge of the pond, where no channel may lie (R1.1)"),
            ));
        }
        if !b.has_tile(a) || !b.has_tile(c) {
            return Err(fail(&f, format!("{text} needs plots on both sides (R6.2)")));
        }
        if channels.has(edge) {
            return Err(fail(&f, format!("{text} holds two channels")));
        }
        channels.insert(edge);
    }
    let (network, remaining) = grid::channel_network(&channels);
    if let Some(&first) = remaining.iter().min() {
        return Err(fail(
            "channels",
            format!(
                "{} is not joined to the pond by other channels (R6.3)",
                grid::edge_text(first)
            ),
        ));
    }
    b.network = network;
    b.channels = channels;
    Ok(())
}

fn read_irrigation(setup: &mut Setup) -> Result<(), Error> {
    let b = &mut setup.st.b;
    let mut irrigated = CellSet::default();
    for c in b.plots().collect::<Vec<_>>() {
        if GRID.pond_ring.has(c) || b.improvement(c) == WATERSHED {
            irrigated.insert(c);
        }
    }
    for e in b.channels.iter() {
        let (x, y) = GRID.edge_cells[e as usize];
        irrigated.insert(x);
        irrigated.insert(y);
    }
    for (c, field, claim) in &setup.claimed_irrigated {
        if *claim && !irrigated.has(*c) && b.rules.cloud_move {
            // A watershed moved away by clouds leaves its plot irrigated (R6.4, R12).
            irrigated.insert(*c);
            continue;
        }
        if *claim != irrigated.has(*c) {
            return Err(fail(
                field,
                format!(
                    "is {} but the plot at {} is {}irrigated by the pond, a channel or a watershed (R6.4)",
                    claim,
                    grid::cell_text(*c),
                    if irrigated.has(*c) { "" } else { "not " }
                ),
            ));
        }
    }
    for (c, h) in b.bamboo_items() {
        if h > 0 && !irrigated.has(c) {
            return Err(fail(
                "tiles",
                format!(
                    "the plot at {} has bamboo but is not irrigated (R6.4)",
                    grid::cell_text(c)
                ),
            ));
        }
    }
    b.irrigated = irrigated;
    b.irrigated_by_colour = [CellSet::default(); 3];
    for c in irrigated.iter() {
        let code = b.tile(c).unwrap_or(0);
        b.irrigated_by_colour[(code >> 2) as usize].insert(c);
    }
    Ok(())
}

fn read_figures(d: &Json, setup: &mut Setup) -> Result<(), Error> {
    let b = &mut setup.st.b;
    let pond = s("0,0");
    let gardener = cell(Some(d.get("gardener").unwrap_or(&pond)), "gardener")?;
    let panda = cell(Some(d.get("panda").unwrap_or(&pond)), "panda")?;
    for (name, c) in [("gardener", gardener), ("panda", panda)] {
        if !b.has_tile(c) {
            return Err(fail(
                name,
                format!("{} is not a tile in play (R7.1)", grid::cell_text(c)),
            ));
        }
    }
    b.gardener = gardener;
    b.panda = panda;
    b.shoots = [0; SHOOT_COUNTERS];
    for (c, h) in b.bamboo_items().collect::<Vec<_>>() {
        if let Some(slot) = shoot_slot(b.tile(c).unwrap_or(0) >> 2, h, b.improvement(c)) {
            b.shoots[slot] += 1;
        }
    }
    Ok(())
}

fn read_turn(d: &Json, setup: &mut Setup) -> Result<(), Error> {
    let st = &mut setup.st;
    let turn = get_dict(d, "turn", "turn")?;
    let step_name = s("actions");
    st.b.step = choice(
        Some(turn.get("step").unwrap_or(&step_name)),
        &STEP_NAMES,
        "turn.step",
    )? as u8;
    st.b.weather = match turn.get("weather") {
        None | Some(Json::Null) => -1,
        v => choice(v, &FACES, "turn.weather")? as i8,
    };
    let taken = get_list(turn, "actions", "turn.actions")?;
    let mut names = Vec::new();
    for (i, a) in taken.iter().enumerate() {
        names.push(choice(Some(a), &ACTION_NAMES, &format!("turn.actions[{i}]"))? as u8);
    }
    check_turn(&st.b, &names)?;
    st.b.taken = names.iter().copied().collect();
    let drawn = get_list(turn, "drawn", "turn.drawn")?;
    let mut tiles = Vec::new();
    for (i, t) in drawn.iter().enumerate() {
        tiles.push(tile(Some(t), &format!("turn.drawn[{i}]"))?);
    }
    if (st.b.step == STEP_PLACE) == tiles.is_empty() || tiles.len() > 3 {
        return Err(fail(
            "turn.drawn",
            "holds 1 to 3 plots at step place, and none at other steps",
        ));
    }
    st.drawn = tiles.into_iter().collect();
    let put_back = get_dict(turn, "put_back", "turn.put_back")?;
    for (key, _) in put_back.as_object().unwrap_or(&[]) {
        if !CATEGORIES.contains(&key.as_str()) {
            return Err(fail_quoting(
                "turn.put_back",
                "{value} is not a category (plot, gardener, panda)",
                &s(key.clone()),
            ));
        }
    }
    let mut counts = [0i128; 3];
    for (k, name) in CATEGORIES.iter().enumerate() {
        counts[k] = get_int(put_back, name, &format!("turn.put_back.{name}"), 0)?;
        setup.put_back[k] = given(put_back, name, 0);
    }
    if counts.iter().any(|&c| c < 0) {
        return Err(fail("turn.put_back", "counts cannot be negative"));
    }
    st.b.put_back = counts.map(|c| c.min(255) as u8);
    if (st.b.step == STEP_REDRAW) != (counts != [0; 3]) {
        return Err(fail(
            "turn.put_back",
            "counts the satisfied cards put back at step redraw (at least one), and is empty at other steps",
        ));
    }
    let mut dice = Vec::new();
    for (i, f) in get_list(d, "dice", "dice")?.iter().enumerate() {
        dice.push(choice(Some(f), &FACES, &format!("dice[{i}]"))? as u8);
    }
    st.dice = dice;
    Ok(())
}

fn check_turn(b: &Board, taken: &[u8]) -> Result<(), Error> {
    let (step, weather) = (b.step, b.weather);
    let name = STEP_NAMES[step as usize];
    let faces: &[&str] = match name {
        "choose_weather" => &["choice", "clouds"],
        "rain" => &["rain"],
        "storm" => &["storm"],
        "clouds" => &["clouds"],
        _ => &[],
    };
    if !faces.is_empty() && (weather < 0 || !faces.contains(&FACES[weather as usize])) {
        return Err(fail(
            "turn.weather",
            format!("step {name} needs the weather {}", faces.join(" or ")),
        ));
    }
    if step == STEP_ROLL && (weather >= 0 || !taken.is_empty()) {
        return Err(fail(
            "turn",
            "step roll is the start of a turn: no weather, no actions yet",
        ));
    }
    if ![STEP_ACTIONS, STEP_PLACE, STEP_REDRAW].contains(&step) && !taken.is_empty() {
        return Err(fail("turn.actions", "actions come after the weather"));
    }
    if b.round == 1 && step == STEP_ROLL {
        return Err(fail(
            "turn.step",
            "there is no weather roll in the first round (R3.2)",
        ));
    }
    if b.round == 1 && weather >= 0 {
        return Err(fail(
            "turn.weather",
            "there is no weather in the first round (R3.2)",
        ));
    }
    let limit = if weather == FACE_SUN { 3 } else { 2 };
    if taken.len() > limit {
        return Err(fail(
            "turn.actions",
            format!("{} actions; at most {limit} this turn (R3.3)", taken.len()),
        ));
    }
    let mut distinct = taken.to_vec();
    distinct.sort();
    distinct.dedup();
    if weather != FACE_WIND && distinct.len() != taken.len() {
        return Err(fail(
            "turn.actions",
            "the same action twice needs the wind (R3.4)",
        ));
    }
    if step == STEP_PLACE && taken.last() != Some(&TURN_PLOT) {
        return Err(fail("turn.actions", "step place follows the plot action"));
    }
    if step == STEP_REDRAW {
        if b.rules.redraw != 2 {
            return Err(fail(
                "turn.step",
                "step redraw needs the option redraw_satisfied=all (R12)",
            ));
        }
        if taken.last() != Some(&TURN_OBJECTIVE) {
            return Err(fail(
                "turn.actions",
                "step redraw follows the objective action",
            ));
        }
    }
    Ok(())
}

fn read_hands(d: &Json, setup: &mut Setup) -> Result<(), Error> {
    let st = &mut setup.st;
    let players = st.b.players as usize;
    let hands = get(d, "hands", "hands", K::List, false)?
        .and_then(Json::as_list)
        .unwrap_or(&[]);
    if hands.len() != players {
        return Err(fail(
            "hands",
            format!("has {} entries for {players} players", hands.len()),
        ));
    }
    for (seat, h) in hands.iter().enumerate() {
        read_hand(h, seat, st)?;
    }
    if st.b.rules.bamboo_limited {
        check_bamboo_supply(&st.b)?;
    }
    Ok(())
}

/// One seat's entry of `hands`: its objectives, completed cards, eaten sections and stored
/// pieces.
fn read_hand(h: &Json, seat: usize, st: &mut State) -> Result<(), Error> {
    let f = format!("hands[{seat}]");
    if !matches!(h, Json::Object(_)) {
        return Err(fail(&f, "must be an object"));
    }
    let objectives = get_list(h, "objectives", &format!("{f}.objectives"))?;
    if objectives.len() > MAX_HAND {
        return Err(fail(
            &format!("{f}.objectives"),
            format!("holds {} cards; the limit is 5 (R10.2)", objectives.len()),
        ));
    }
    let mut hand = ArrayVec::new();
    for (i, c) in objectives.iter().enumerate() {
        hand.push(card(c, &format!("{f}.objectives[{i}]"), &st.b.card_set)?);
    }
    st.hands[seat] = hand;
    let mut done = ArrayVec::new();
    for (i, c) in get_list(h, "completed", &format!("{f}.completed"))?
        .iter()
        .enumerate()
    {
        let c = card(c, &format!("{f}.completed[{i}]"), &st.b.card_set)?;
        if done.try_push(c).is_err() {
            return Err(fail(
                &format!("{f}.completed"),
                "holds more cards than the game has",
            ));
        }
    }
    st.b.completed[seat] = done;
    let eaten = get_dict(h, "eaten", &format!("{f}.eaten"))?;
    for (key, _) in eaten.as_object().unwrap_or(&[]) {
        if !COLOURS.contains(&key.as_str()) {
            return Err(fail_quoting(
                &format!("{f}.eaten"),
                "{value} is not a colour (green, yellow, pink)",
                &s(key.clone()),
            ));
        }
    }
    let mut counts = [0i128; 3];
    for (k, c) in COLOURS.iter().enumerate() {
        counts[k] = get_int(eaten, c, &format!("{f}.eaten.{c}"), 0)?;
    }
    if counts.iter().any(|&c| c < 0) {
        return Err(fail(&format!("{f}.eaten"), "counts cannot be negative"));
    }
    for (c, &count) in COLOURS.iter().zip(&counts) {
        check_count(eaten, c, &format!("{f}.eaten.{c}"), count)?;
    }
    st.b.eaten[seat] = counts.map(|c| c as u32);
    let stored = get_int(h, "channels", &format!("{f}.channels"), 0)?;
    if stored < 0 {
        return Err(fail(&format!("{f}.channels"), "cannot be negative"));
    }
    check_count(h, "channels", &format!("{f}.channels"), stored)?;
    st.b.stored_channels[seat] = stored as u32;
    let mut imps = [0u8; 4];
    for (i, name) in get_list(h, "improvements", &format!("{f}.improvements"))?
        .iter()
        .enumerate()
    {
        let k = choice(
            Some(name),
            &IMPROVEMENTS[1..],
            &format!("{f}.improvements[{i}]"),
        )? + 1;
        imps[k] = imps[k].saturating_add(1);
    }
    st.b.stored_improvements[seat] = imps;
    Ok(())
}

/// The bamboo on the board and in the stocks fits the supply (R1.5, `bamboo_supply=limited`):
/// the first field that goes over is named.
fn check_bamboo_supply(b: &Board) -> Result<(), Error> {
    let players = b.players as usize;
    for (colour, name) in COLOURS.iter().enumerate() {
        let mut total: i128 = b
            .bamboo_items()
            .filter(|&(c, _)| b.tile(c).unwrap_or(0) >> 2 == colour as u8)
            .map(|(_, h)| h as i128)
            .sum();
        let limit = COMPONENTS.bamboo_sections[colour] as i128;
        let mut fields = vec![("tiles".to_string(), 0i128)];
        for i in 0..players {
            fields.push((
                format!("hands[{i}].eaten.{name}"),
                b.eaten[i][colour] as i128,
            ));
        }
        for (field, count) in fields {
            total += count;
            if total > limit {
                return Err(fail(
                    &field,
                    format!(
                        "{total} {name} sections on the board and in stocks exceed the game's {limit} (R1.5, bamboo_supply=limited)"
                    ),
                ));
            }
        }
    }
    Ok(())
}

fn read_reserve(d: &Json, setup: &mut Setup) -> Result<(), Error> {
    let b = &mut setup.st.b;
    let players = b.players as usize;
    let reserve = get_dict(d, "reserve", "reserve")?;
    let mut placed = [0i128; 4];
    for &(c, imp) in &b.improvements {
        if b.tile(c).unwrap_or(0) & 3 == 0 {
            placed[imp as usize] += 1;
        }
    }
    let mut held = [0i128; 4];
    for si in &b.stored_improvements[..players] {
        for i in 0..4 {
            held[i] += si[i] as i128;
        }
    }
    let on_board = b.channels.len() as i128;
    let stocks: i128 = b.stored_channels[..players]
        .iter()
        .map(|&x| x as i128)
        .sum();
    let total = COMPONENTS.channels as i128;
    let rc = if reserve.get("channels").is_some() {
        get_req_int(reserve, "channels", "reserve.channels")?
    } else {
        total - on_board - stocks
    };
    if rc < 0 || rc.saturating_add(on_board + stocks) != total {
        return Err(fail_quoting(
            "reserve.channels",
            format!("{{value}} in the reserve, {on_board} on the board and {stocks} in stocks do not make the game's {total} (R1.3)"),
            &given(reserve, "channels", rc),
        ));
    }
    b.reserve_channels = rc as u32;
    let res_imps = get_dict(reserve, "improvements", "reserve.improvements")?;
    for (key, _) in res_imps.as_object().unwrap_or(&[]) {
        if !IMPROVEMENTS[1..].contains(&key.as_str()) {
            return Err(fail_quoting(
                "reserve.improvements",
                "{value} is not an improvement",
                &s(key.clone()),
            ));
        }
    }
    let mut out = [0u8; 4];
    for i in 1..4 {
        let name = IMPROVEMENTS[i];
        let tokens = COMPONENTS.improvement_tokens[i] as i128;
        let expected = tokens - placed[i] - held[i];
        let v = get_int(
            res_imps,
            name,
            &format!("reserve.improvements.{name}"),
            expected,
        )?;
        if v != expected || expected < 0 {
            return Err(fail_quoting(
                &format!("reserve.improvements.{name}"),
                format!(
                    "{{value}} in the reserve, {} placed as tokens and {} in stocks do not make the game's {tokens} (R1.4)",
                    placed[i], held[i]
                ),
                &given(res_imps, name, expected),
            ));
        }
        out[i] = v as u8;
    }
    b.reserve_improvements = out;
    Ok(())
}

fn plot_mismatch(used: &[i128; 12]) -> String {
    let expected = &COMPONENTS.plot_counts;
    let parts: Vec<String> = (0..12u8)
        .filter(|&c| used[c as usize] != expected[c as usize] as i128)
        .map(|c| {
            format!(
                "{} {} for {}",
                used[c as usize],
                tile_name(c),
                expected[c as usize]
            )
        })
        .collect();
    format!(
        "the plots do not add up with the game's 27 (R1.2): {}",
        parts.join(", ")
    )
}

fn read_decks(d: &Json, setup: &mut Setup) -> Result<(), Error> {
    let st = &mut setup.st;
    let decks = get_dict(d, "decks", "decks")?;
    for (key, _) in decks.as_object().unwrap_or(&[]) {
        if !DECK_NAMES.contains(&key.as_str()) {
            return Err(fail_quoting(
                "decks",
                "{value} is not a deck (plots, plot, gardener, panda)",
                &s(key.clone()),
            ));
        }
    }
    let mut state = read_plot_deck(decks, st, rng::seed_state(st.seed))?;
    let card_set = st.b.card_set.clone();
    let mut seen = cards_in_hands(st)?;
    for (k, name) in CATEGORIES.iter().enumerate() {
        if decks.get(name).is_some() {
            st.objective_decks[k] = read_objective_deck(decks, k, &card_set, &mut seen)?;
        } else {
            let mut rest: Vec<u8> = card_set.decks[k]
                .iter()
                .copied()
                .filter(|&c| seen[c as usize].is_none())
                .collect();
            state = rng::shuffle(state, &mut rest);
            st.objective_decks[k] = rest.into_iter().collect();
        }
    }
    let value = get_int(d, "rng", "rng", state as i128)?;
    if !(0..1i128 << 64).contains(&value) {
        return Err(fail("rng", "must be a 64-bit generator state"));
    }
    st.rng = value as u64;
    Ok(())
}

/// The plot deck as given, or the plots found nowhere shuffled from the deal's generator
/// `state` (which is returned, moved on).
fn read_plot_deck(decks: &Json, st: &mut State, mut state: u64) -> Result<u64, Error> {
    let mut used = [0i128; 12];
    for (_, t) in st.b.tile_items().skip(1) {
        used[t as usize] += 1;
    }
    for &t in &st.drawn {
        used[t as usize] += 1;
    }
    if decks.get("plots").is_some() {
        let list = get(decks, "plots", "decks.plots", K::List, false)?
            .and_then(Json::as_list)
            .unwrap_or(&[]);
        let mut deck = Vec::new();
        for (i, t) in list.iter().enumerate() {
            let t = tile(Some(t), &format!("decks.plots[{i}]"))?;
            deck.push(t);
            used[t as usize] += 1;
        }
        if (0..12).any(|c| used[c] != COMPONENTS.plot_counts[c] as i128) {
            return Err(fail("decks.plots", plot_mismatch(&used)));
        }
        st.plot_deck = deck.into_iter().collect();
    } else {
        let mut missing = Vec::new();
        for c in 0..12 {
            let left = COMPONENTS.plot_counts[c] as i128 - used[c];
            if left < 0 {
                return Err(fail("tiles", plot_mismatch(&used)));
            }
            missing.extend(std::iter::repeat_n(c as u8, left as usize));
        }
        state = rng::shuffle(state, &mut missing);
        st.plot_deck = missing.into_iter().collect();
    }
    Ok(state)
}

/// The cards in hands and completed, each with the field it was found in (a card twice,
/// or one the card set removed, is refused).
fn cards_in_hands(st: &State) -> Result<Vec<Option<String>>, Error> {
    let card_set = &st.b.card_set;
    let mut seen: Vec<Option<String>> = vec![None; card_set.cards.len()];
    for seat in 0..st.b.players as usize {
        let lists: [(String, &[u8]); 2] = [
            (format!("hands[{seat}].objectives"), &st.hands[seat]),
            (format!("hands[{seat}].completed"), &st.b.completed[seat]),
        ];
        for (field, cards) in lists {
            for &c in cards {
                let id = card_set.id(c);
                if let Some(other) = &seen[c as usize] {
                    return Err(fail(&field, format!("{id} is also in {other}")));
                }
                if card_set.is_removed(c) {
                    return Err(fail(&field, format!("{id} is removed by the card_set")));
                }
                seen[c as usize] = Some(field.clone());
            }
        }
    }
    Ok(seen)
}

/// The objective deck of category `k` as given: its cards of that category, none seen
/// elsewhere, and with the cards `seen` so far every card of the category (R1.6).
fn read_objective_deck(
    decks: &Json,
    k: usize,
    card_set: &CardSet,
    seen: &mut [Option<String>],
) -> Result<ArrayVec<u8, MAX_DECK>, Error> {
    let name = CATEGORIES[k];
    let field = format!("decks.{name}");
    let list = get(decks, name, &field, K::List, false)?
        .and_then(Json::as_list)
        .unwrap_or(&[]);
    let mut cards = ArrayVec::<u8, MAX_DECK>::new();
    for (i, text) in list.iter().enumerate() {
        let f = format!("decks.{name}[{i}]");
        let c = card(text, &f, card_set)?;
        let id = text.as_str().unwrap_or("");
        if card_set.card(c).category != k as u8 {
            return Err(fail(&f, format!("{id} is not a {name} card")));
        }
        if let Some(other) = &seen[c as usize] {
            return Err(fail(&f, format!("{id} is also in {other}")));
        }
        if card_set.is_removed(c) {
            return Err(fail(&f, format!("{id} is removed by the card_set")));
        }
        seen[c as usize] = Some(field.clone());
        let _ = cards.try_push(c);
    }
    let missing: Vec<&str> = card_set.decks[k]
        .iter()
        .filter(|&&c| seen[c as usize].is_none())
        .map(|&c| card_set.id(c))
        .collect();
    if !missing.is_empty() {
        return Err(fail(
            &field,
            format!(
                "the game's cards do not add up: {} found nowhere (R1.6)",
                missing.join(", ")
            ),
        ));
    }
    Ok(cards)
}

fn read_known(d: &Json, setup: &mut Setup) -> Result<(), Error> {
    let st = &mut setup.st;
    let players = st.b.players as i128;
    let known = get_dict(d, "known", "known")?;
    let sizes = [
        st.plot_deck.len(),
        st.objective_decks[0].len(),
        st.objective_decks[1].len(),
        st.objective_decks[2].len(),
    ];
    let mut masks: Vec<Vec<u8>> = Vec::new();
    for (name, size) in DECK_NAMES.iter().zip(sizes) {
        let field = format!("known.{name}");
        let row: Vec<u8> = match get(known, name, &field, K::List, true)? {
            None => vec![0; size],
            Some(v) => {
                let entries = v.as_list().unwrap_or(&[]);
                if entries.len() != size {
                    return Err(fail(
                        &field,
                        format!("has {} entries for {size} cards", entries.len()),
                    ));
                }
                let mut row = Vec::new();
                for (i, seats) in entries.iter().enumerate() {
                    let list = seats.as_list().filter(|l| {
                        l.iter().all(|x| match x {
                            Json::Int(x) => (0..players).contains(x),
                            Json::Bool(b) => (*b as i128) < players,
                            _ => false,
                        })
                    });
                    let Some(list) = list else {
                        return Err(fail(
                            &format!("known.{name}[{i}]"),
                            "must be a list of seats",
                        ));
                    };
                    let mut mask = 0u8;
                    for x in list {
                        let x = match x {
                            Json::Int(x) => *x as u32,
                            Json::Bool(b) => *b as u32,
                            _ => 0,
                        };
                        mask |= 1 << x;
                    }
                    row.push(mask);
                }
                row
            }
        };
        masks.push(row);
    }
    st.b.plot_known = masks[0].iter().copied().collect();
    for k in 0..3 {
        st.b.objective_known[k] = masks[k + 1].iter().copied().collect();
    }
    if st.b.step == STEP_REDRAW {
        check_put_back(st, &setup.put_back)?;
    }
    Ok(())
}

/// `turn.put_back` (as given) against the decks: no more cards put back than a deck holds,
/// and some deck still holding one that was not.
fn check_put_back(st: &State, given: &[Json; 3]) -> Result<(), Error> {
    for (k, name) in CATEGORIES.iter().enumerate() {
        let deck = st.objective_decks[k].len();
        if given[k].as_wide_int().unwrap_or(0) > deck as i128 {
            return Err(fail_quoting(
                &format!("turn.put_back.{name}"),
                format!("{{value}} cards put back, but the {name} deck holds {deck}"),
                &given[k],
            ));
        }
    }
    if !(0..3).any(|k| st.objective_decks[k].len() > st.b.put_back[k] as usize) {
        return Err(fail(
            "turn.put_back",
            "at step redraw some deck must still hold a card not put back (R12)",
        ));
    }
    Ok(())
}

fn read_end(d: &Json, setup: &mut Setup) -> Result<(), Error> {
    let b = &mut setup.st.b;
    let players = b.players as i128;
    b.ended = get_bool(d, "ended", "ended", false)?;
    b.capped = get_bool(d, "capped", "capped", false)?;
    let needed = b.rules.objectives_to_end[b.players as usize] as usize;
    match d.get("emperor") {
        None | Some(Json::Null) => {
            b.emperor = NO_SEAT;
            b.last_turns = -1;
            if !matches!(d.get("last_turns"), None | Some(Json::Null)) {
                return Err(fail("last_turns", "is set but nobody has the Emperor"));
            }
            for seat in 0..b.players as usize {
                let n = b.completed[seat].len();
                if n >= needed {
                    return Err(fail(
                        "emperor",
                        format!(
                            "is null, but seat {seat} has completed {n} objectives and the first to reach {needed} takes the Emperor (R13.1)"
                        ),
                    ));
                }
            }
        }
        Some(_) => {
            let e = get_req_int(d, "emperor", "emperor")?;
            if !(0..players).contains(&e) {
                return Err(fail_quoting(
                    "emperor",
                    format!("seat {{value}} is not in a {players}-player game"),
                    &given(d, "emperor", 0),
                ));
            }
            let n = b.completed[e as usize].len();
            if n < needed {
                return Err(fail(
                    "emperor",
                    format!(
                        "seat {e} has completed {n} objectives; the Emperor takes {needed} (R13.1)"
                    ),
                ));
            }
            b.emperor = e as i8;
            let lt = get_req_int(d, "last_turns", "last_turns")?;
            let lowest = if b.ended { 0 } else { 1 };
            if !(lowest..=players - 1).contains(&lt) {
                return Err(fail(
                    "last_turns",
                    format!("must be between {lowest} and {}", players - 1),
                ));
            }
            b.last_turns = lt as i32;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let mut st = State::new(3, 11, Arc::default(), &[], true, Arc::default()).unwrap();
        let mut r = rng::PyRandom::new(5);
        for _ in 0..120 {
            if st.is_terminal() {
                break;
            }
            let legal = st.legal_actions();
            st.apply(legal[r.choice_index(legal.len())]).unwrap();
            let back = from_position(&to_position(&st)).unwrap();
            assert_eq!(to_position(&back), to_position(&st));
        }
    }

    #[test]
    fn refusals_name_the_field() {
        let bad = crate::json::parse(r#"{"format": "takenoko-position/1", "players": 5}"#).unwrap();
        let e = from_position(&bad).unwrap_err();
        assert_eq!(e.field, "players");
        assert_eq!(
            e.to_string(),
            "players: a game has 2, 3 or 4 players, not 5"
        );
    }

    #[test]
    fn refusals_carry_the_offending_value() {
        let bad =
            crate::json::parse(r#"{"format": "takenoko-position/1", "players": [2]}"#).unwrap();
        let e = from_position(&bad).unwrap_err();
        assert_eq!(e.field, "players");
        assert_eq!(e.message, "must be a whole number, not {value}");
        assert_eq!(e.value, Some(Json::List(vec![Json::Int(2)])));
        assert_eq!(e.to_string(), "players: must be a whole number, not [2]");
    }
}
