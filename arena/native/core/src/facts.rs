//! The facts of a game the Python loop played, read from one JSON text, for the one writer
//! of record bytes (`referee::record_of`).
//!
//! The Python side writes the facts with `json.dumps` (`arena.runs.records.make_record`)
//! and the core reads them here with its own JSON reader, so the binding converts one text
//! instead of each argument by hand, and a malformed fact is refused by its field's name.
//! The other way, a history entry and a result are handed to Python in the same forms
//! (`entry_json`, `result_dict`), which the binding makes into the reference's tuples and
//! `GameResult`.

use arrayvec::ArrayVec;

use crate::components::CardSet;
use crate::history::{Entry, DEALT, DREW, DREW_PLOTS, EMPEROR, GAME_OVER, MOVE, RETURNED, ROLLED};
use crate::json::{parse, Json};
use crate::placement::Placement;
use crate::referee::{record_of, Facts, Fault, RecordParts};
use crate::state::GameResult;

/// The value under `key`, or an error naming it.
fn field<'a>(data: &'a Json, key: &str) -> Result<&'a Json, String> {
    data.get(key).ok_or_else(|| format!("the facts lack {key}"))
}

/// An integer of type `T`, or an error naming `what`.
fn int<T: TryFrom<i128>>(v: &Json, what: &str) -> Result<T, String> {
    v.as_int()
        .and_then(|i| T::try_from(i).ok())
        .ok_or_else(|| format!("{what}: not an integer in range"))
}

/// A list's items, or an error naming `what`.
fn list<'a>(v: &'a Json, what: &str) -> Result<&'a [Json], String> {
    v.as_list().ok_or_else(|| format!("{what}: not a list"))
}

/// A list of integers of type `T`.
fn ints<T: TryFrom<i128>>(v: &Json, what: &str) -> Result<Vec<T>, String> {
    list(v, what)?.iter().map(|x| int(x, what)).collect()
}

/// An optional integer (`null`: None).
fn maybe<T: TryFrom<i128>>(v: &Json, what: &str) -> Result<Option<T>, String> {
    match v {
        Json::Null => Ok(None),
        _ => int(v, what).map(Some),
    }
}

/// A text.
fn text(v: &Json, what: &str) -> Result<String, String> {
    v.as_str()
        .map(str::to_string)
        .ok_or_else(|| format!("{what}: not a text"))
}

/// A history entry from the reference's form, a list `[tag, round, ...]`
/// (`arena/engine/history.py`'s tuples, which the core's state gives Python too).
pub fn entry_of(item: &Json) -> Result<Entry, String> {
    let items = list(item, "a history entry")?;
    let at = |i: usize| {
        items
            .get(i)
            .ok_or("a history entry is too short".to_string())
    };
    let tag: u8 = int(at(0)?, "a history tag")?;
    let round: u32 = int(at(1)?, "a history round")?;
    let small = |i: usize| -> Result<u8, String> { int(at(i)?, "a history entry") };
    Ok(match tag {
        MOVE => Entry::Move {
            round,
            seat: small(2)?,
            action: int(at(3)?, "an action")?,
        },
        ROLLED => Entry::Rolled {
            round,
            face: small(2)?,
        },
        DREW_PLOTS => Entry::DrewPlots {
            round,
            tiles: ArrayVec::try_from(&ints::<u8>(at(2)?, "plots")?[..])
                .map_err(|_| "a plot draw of more than 3 tiles".to_string())?,
        },
        DREW => Entry::Drew {
            round,
            card: small(2)?,
        },
        RETURNED => Entry::Returned {
            round,
            card: small(2)?,
        },
        DEALT => Entry::Dealt {
            round,
            seat: small(2)?,
            hand: ints::<u8>(at(3)?, "a hand")?
                .try_into()
                .map_err(|_| "a hand of other than 3 cards".to_string())?,
        },
        EMPEROR => Entry::Emperor {
            round,
            seat: small(2)?,
        },
        GAME_OVER => Entry::GameOver { round },
        _ => return Err(format!("a history entry tagged {tag}")),
    })
}

/// A history entry as the Python side writes it: the reference's tuple, a JSON list.
pub fn entry_json(e: &Entry) -> Json {
    let (tag, round) = (Json::Int(e.tag().into()), Json::Int(e.round().into()));
    let rest = match e {
        Entry::Move { seat, action, .. } => {
            vec![Json::Int((*seat).into()), Json::Int((*action).into())]
        }
        Entry::Rolled { face: x, .. }
        | Entry::Drew { card: x, .. }
        | Entry::Returned { card: x, .. }
        | Entry::Emperor { seat: x, .. } => vec![Json::Int((*x).into())],
        Entry::DrewPlots { tiles, .. } => vec![int_list(tiles)],
        Entry::Dealt { seat, hand, .. } => vec![Json::Int((*seat).into()), int_list(hand)],
        Entry::GameOver { .. } => vec![],
    };
    Json::List([tag, round].into_iter().chain(rest).collect())
}

/// A result as the reference's `GameResult.to_dict` writes it (the completed cards by their
/// ids in `set`), which `GameResult.from_dict` reads back.
pub fn result_dict(r: &GameResult, set: &CardSet) -> Json {
    let ids =
        |done: &Vec<u8>| Json::List(done.iter().map(|&c| Json::Str(set.id(c).into())).collect());
    Json::Object(vec![
        ("scores".into(), int_list(&r.scores)),
        ("panda_points".into(), int_list(&r.panda_points)),
        ("winners".into(), int_list(&r.winners)),
        ("tiebreak".into(), Json::Str(r.tiebreak.into())),
        (
            "emperor".into(),
            r.emperor.map_or(Json::Null, |s| Json::Int(s.into())),
        ),
        ("capped".into(), Json::Bool(r.capped)),
        ("rounds".into(), Json::Int(r.rounds.into())),
        (
            "completed".into(),
            Json::List(r.completed.iter().map(ids).collect()),
        ),
    ])
}

fn int_list<T: Copy + Into<i128>>(items: &[T]) -> Json {
    Json::List(items.iter().map(|&i| Json::Int(i.into())).collect())
}

/// A result as Python holds it (`GameResult`'s fields, the completed cards by their index
/// in the game's set).
fn result_of(r: &Json) -> Result<GameResult, String> {
    let tiebreak = match field(r, "tiebreak")?.as_str() {
        Some("none") => "none",
        Some("panda") => "panda",
        Some("shared") => "shared",
        _ => return Err("tiebreak: none, panda or shared".into()),
    };
    let capped = match field(r, "capped")? {
        Json::Bool(b) => *b,
        _ => return Err("capped: not a bool".into()),
    };
    Ok(GameResult {
        scores: ints(field(r, "scores")?, "scores")?,
        panda_points: ints(field(r, "panda_points")?, "panda_points")?,
        winners: ints(field(r, "winners")?, "winners")?,
        tiebreak,
        emperor: maybe(field(r, "emperor")?, "emperor")?,
        capped,
        rounds: int(field(r, "rounds")?, "rounds")?,
        completed: list(field(r, "completed")?, "completed")?
            .iter()
            .map(|done| ints(done, "completed"))
            .collect::<Result<_, _>>()?,
        excluded: vec![],
    })
}

/// The seconds per seat (JSON writes a whole float as an int only if Python gave an int).
fn seconds_of(v: &Json) -> Result<Vec<f64>, String> {
    list(v, "seconds")?
        .iter()
        .map(|x| match x {
            Json::Float(f) => Ok(*f),
            Json::Int(i) => Ok(*i as f64),
            _ => Err("seconds: not a number".to_string()),
        })
        .collect()
}

/// The fault `[seat, kind, message]`, or None for `null`.
fn fault_of(v: &Json) -> Result<Option<Fault>, String> {
    if matches!(v, Json::Null) {
        return Ok(None);
    }
    let items = list(v, "error")?;
    let [seat, kind, message] = items else {
        return Err("error: [seat, kind, message]".into());
    };
    Ok(Some(Fault {
        seat: int(seat, "error seat")?,
        kind: text(kind, "error kind")?,
        message: text(message, "error message")?,
    }))
}

/// An intervention's placements `[card index, seat or null, depth or null]`.
fn placements_of(v: &Json) -> Result<Vec<Placement>, String> {
    list(v, "placements")?
        .iter()
        .map(|p| match list(p, "a placement")? {
            [card, seat, depth] => Ok(Placement {
                card: int(card, "a placement's card")?,
                seat: maybe(seat, "a placement's seat")?,
                depth: maybe(depth, "a placement's depth")?,
            }),
            _ => Err("a placement: [card, seat, depth]".to_string()),
        })
        .collect()
}

/// The record line of a game the Python loop played on the card set `cards`, from its
/// facts as JSON text: `head` (`{"game":...` and the caller's meta), `seed` (its digits, as
/// text: the Python loop takes seeds of any size), `players`, `result` (the faulty seat
/// excluded), `history`, `names`, `seconds`, `error`, `parts` (the record's options and
/// card-set parts, JSON text) and `placements`.
pub fn record_line(cards: &CardSet, json_text: &str) -> Result<String, String> {
    let data = parse(json_text)?;
    let seed = text(field(&data, "seed")?, "seed")?;
    if seed.is_empty()
        || !seed
            .trim_start_matches('-')
            .bytes()
            .all(|b| b.is_ascii_digit())
    {
        return Err(format!("seed: {seed:?} is not an integer's digits"));
    }
    let history = list(field(&data, "history")?, "history")?
        .iter()
        .map(entry_of)
        .collect::<Result<Vec<_>, _>>()?;
    let names = list(field(&data, "names")?, "names")?
        .iter()
        .map(|n| text(n, "a name"))
        .collect::<Result<Vec<_>, _>>()?;
    let parts = list(field(&data, "parts")?, "parts")?;
    let [options, card_set] = parts else {
        return Err("parts: [options, card set]".into());
    };
    let facts = Facts {
        seed: &seed,
        players: int(field(&data, "players")?, "players")?,
        cards,
        result: &result_of(field(&data, "result")?)?,
        history: &history,
    };
    let parts = RecordParts {
        options: text(options, "parts")?,
        card_set: text(card_set, "parts")?,
    };
    Ok(record_of(
        &text(field(&data, "head")?, "head")?,
        &facts,
        &names,
        &seconds_of(field(&data, "seconds")?)?,
        fault_of(field(&data, "error")?)?.as_ref(),
        &parts,
        &placements_of(field(&data, "placements")?)?,
    ))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::json::Json::{Int, List, Null, Str};
    use crate::referee::record;
    use crate::state::State;

    fn ints<T: Copy + Into<i128>>(items: &[T]) -> Json {
        List(items.iter().map(|&i| Int(i.into())).collect())
    }

    /// The facts of a state as `make_record` writes them.
    fn facts_json(st: &State, error: Option<&Fault>) -> String {
        let excluded: Vec<u8> = error.map(|e| vec![e.seat]).unwrap_or_default();
        let r = st.result(&excluded);
        let result = Json::Object(vec![
            ("scores".into(), ints(&r.scores)),
            ("panda_points".into(), ints(&r.panda_points)),
            ("winners".into(), ints(&r.winners)),
            ("tiebreak".into(), Str(r.tiebreak.into())),
            ("emperor".into(), r.emperor.map_or(Null, |s| Int(s.into()))),
            ("capped".into(), Json::Bool(r.capped)),
            ("rounds".into(), Int(r.rounds.into())),
            (
                "completed".into(),
                List(r.completed.iter().map(|c| ints(c)).collect()),
            ),
        ]);
        let history = st.history.0.as_deref().unwrap_or(&[]);
        let fault = error.map_or(Null, |f| {
            List(vec![
                Int(f.seat.into()),
                Str(f.kind.clone()),
                Str(f.message.clone()),
            ])
        });
        Json::Object(vec![
            ("head".into(), Str("{\"game\":\"play\"".into())),
            ("seed".into(), Str(st.seed.to_string())),
            ("players".into(), Int(st.b.players.into())),
            (
                "history".into(),
                List(history.iter().map(entry_json).collect()),
            ),
            ("result".into(), result),
            ("names".into(), List(vec![Str("a".into()), Str("b".into())])),
            ("seconds".into(), List(vec![Json::Float(0.5), Int(2)])),
            ("error".into(), fault),
            (
                "parts".into(),
                List(vec![Str("{}".into()), Str("{}".into())]),
            ),
            ("placements".into(), List(vec![])),
        ])
        .dump()
    }

    #[test]
    fn the_facts_as_json_make_the_record_of_the_state() {
        let parts = RecordParts {
            options: "{}".into(),
            card_set: "{}".into(),
        };
        let names = ["a".to_string(), "b".to_string()];
        for seed in 0..6 {
            let mut st = State::new(2, seed, Arc::default(), &[], true, Arc::default()).unwrap();
            for _ in 0..(40 + 30 * seed) {
                match st.legal_actions().first() {
                    Some(&a) => st.apply(a).unwrap(),
                    None => break,
                }
            }
            let fault = (seed % 2 == 1).then(|| Fault {
                seat: 1,
                kind: "crash".into(),
                message: "it \"broke\"".into(),
            });
            let expected = record(
                "{\"game\":\"play\"",
                &st,
                &names,
                &[0.5, 2.0],
                fault.as_ref(),
                &parts,
                &[],
            );
            let text = facts_json(&st, fault.as_ref());
            assert_eq!(record_line(&st.b.card_set, &text).unwrap(), expected);
        }
    }

    #[test]
    fn a_malformed_fact_is_refused_by_its_name() {
        let cards = CardSet::default();
        let err = record_line(&cards, r#"{"seed":"x1"}"#).unwrap_err();
        assert!(err.starts_with("seed:"), "{err}");
        let err = entry_of(&parse("[9, 1]").unwrap()).unwrap_err();
        assert_eq!(err, "a history entry tagged 9");
        let err = entry_of(&parse("[5, 1, 0, [1, 2]]").unwrap()).unwrap_err();
        assert_eq!(err, "a hand of other than 3 cards");
    }
}
