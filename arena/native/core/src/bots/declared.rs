//! The built-in bots' parameters, read from the declarative table `bot_params.json`.
//!
//! The Python bots read the same file (`arena.play.bot.declared`), so a parameter's name,
//! type, default and bounds are written once for both sides: a bot's [`BotEntry`] names its
//! declarations by `|| declared::of("greedy")`, and a new parameter is a row of the table
//! (plus the code that reads it).  A bot that is `like` another takes that one's parameters
//! with some defaults of its own (`elite` is `mcts` with other defaults).
//!
//! [`BotEntry`]: super::BotEntry

use std::sync::LazyLock;

use crate::json::{self, Json};

use super::registry::{Default, Kind, ParamDecl};

pub const BOT_PARAMS_JSON: &str = include_str!("../../../../data/bot_params.json");

/// Every bot of the table with its declarations, in the file's order.
type Table = Vec<(String, &'static [ParamDecl])>;

static TABLE: LazyLock<Table> =
    LazyLock::new(|| load(BOT_PARAMS_JSON).expect("bot_params.json is the core's own data"));

/// The declarations of a bot of the table (the file is the core's own, compiled in: a name
/// it lacks is a bug of the bot's entry, found by the registry's tests).
pub fn of(bot: &str) -> &'static [ParamDecl] {
    TABLE
        .iter()
        .find(|(name, _)| name == bot)
        .map(|(_, decls)| *decls)
        .unwrap_or_else(|| panic!("bot_params.json declares no bot {bot}"))
}

/// A text of the table made `'static`: the table lives as long as the process, and
/// `ParamDecl` keeps `&'static str`s so that a test bot's declarations stay constants.
fn leak(text: &str) -> &'static str {
    Box::leak(text.to_string().into_boxed_str())
}

/// The table from the file's text; the error names the field that is missing or wrong.
fn load(text: &str) -> Result<Table, String> {
    let data = json::parse(text)?;
    let bots = data.get("bots").and_then(Json::as_object).ok_or("bots")?;
    let mut table: Table = Vec::with_capacity(bots.len());
    for (name, bot) in bots {
        let decls: Vec<ParamDecl> = match bot.get("like").and_then(Json::as_str) {
            Some(like) => {
                let base = table
                    .iter()
                    .find(|(n, _)| n == like)
                    .ok_or_else(|| format!("{name}: like {like}"))?
                    .1;
                with_defaults(base, bot.get("defaults"))
                    .map_err(|field| format!("{name}: {field}"))?
            }
            None => bot
                .get("params")
                .and_then(Json::as_list)
                .ok_or_else(|| format!("{name}: params"))?
                .iter()
                .map(decl)
                .collect::<Result<_, _>>()
                .map_err(|field| format!("{name}: {field}"))?,
        };
        table.push((name.clone(), Vec::leak(decls)));
    }
    Ok(table)
}

/// `base` with the defaults of `defaults` (each must name one of its parameters).
fn with_defaults(base: &[ParamDecl], defaults: Option<&Json>) -> Result<Vec<ParamDecl>, String> {
    let mut decls = base.to_vec();
    for (name, value) in defaults.and_then(Json::as_object).unwrap_or(&[]) {
        let d = decls
            .iter_mut()
            .find(|d| d.name == name)
            .ok_or_else(|| format!("defaults: no parameter {name}"))?;
        d.default = default(d.kind, value).ok_or_else(|| format!("defaults: {name}"))?;
    }
    Ok(decls)
}

/// One row: a parameter's name, type, bounds or choices and default (its `help` is for
/// `arena bots`, which Python writes).
fn decl(row: &Json) -> Result<ParamDecl, String> {
    let name = row.get("name").and_then(Json::as_str).ok_or("name")?;
    let number = |key: &str| row.get(key).and_then(as_float);
    let int = |key: &str| {
        row.get(key)
            .and_then(Json::as_int)
            .and_then(|i| i64::try_from(i).ok())
    };
    let kind = match row.get("type").and_then(Json::as_str).ok_or("type")? {
        "bool" => Kind::Bool,
        "int" => Kind::Int {
            minimum: int("minimum"),
            maximum: int("maximum"),
        },
        "float" => Kind::Float {
            minimum: number("minimum"),
            maximum: number("maximum"),
        },
        "str" => Kind::Text {
            choices: match row.get("choices").and_then(Json::as_list) {
                Some(list) => Vec::leak(
                    list.iter()
                        .map(|c| c.as_str().map(leak).ok_or("choices"))
                        .collect::<Result<Vec<_>, _>>()?,
                ),
                None => &[],
            },
        },
        other => return Err(format!("{name}: type {other}")),
    };
    let default = row
        .get("default")
        .and_then(|v| default(kind, v))
        .ok_or_else(|| format!("{name}: default"))?;
    Ok(ParamDecl {
        name: leak(name),
        kind,
        default,
    })
}

/// A JSON number as a float (`0` and `0.0` alike, as Python's `float` reads them).
fn as_float(value: &Json) -> Option<f64> {
    match value {
        Json::Float(f) => Some(*f),
        Json::Int(i) => Some(*i as f64),
        _ => None,
    }
}

/// A default of this kind of parameter (none if the value is of another type).
fn default(kind: Kind, value: &Json) -> Option<Default> {
    Some(match (kind, value) {
        (Kind::Bool, Json::Bool(b)) => Default::Bool(*b),
        (Kind::Int { .. }, Json::Int(i)) => Default::Int(i64::try_from(*i).ok()?),
        (Kind::Float { .. }, v) => Default::Float(as_float(v)?),
        (Kind::Text { .. }, Json::Str(s)) => Default::Text(leak(s)),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::super::REGISTRY;
    use super::*;

    #[test]
    fn every_native_bot_reads_its_declarations() {
        for entry in REGISTRY.iter().filter(|e| !e.test_only) {
            assert!(TABLE.iter().any(|(n, _)| n == entry.name), "{}", entry.name);
            assert!(
                std::ptr::eq(entry.params(), of(entry.name)),
                "{}",
                entry.name
            );
        }
    }

    #[test]
    fn a_default_of_another_type_or_name_is_refused() {
        let text = r#"{"bots": {"a": {"params": [
            {"name": "n", "type": "int", "default": 1, "minimum": 0, "help": ""}]},
            "b": {"like": "a", "defaults": {"m": 2}}}}"#;
        assert_eq!(load(text).unwrap_err(), "b: defaults: no parameter m");
        let text = text.replace("\"m\": 2", "\"n\": 2.5");
        assert_eq!(load(&text).unwrap_err(), "b: defaults: n");
        let text = text.replace("\"n\": 2.5", "\"n\": 2");
        let table = load(&text).unwrap();
        assert_eq!(table[1].1[0].default, Default::Int(2));
        assert_eq!(table[0].1[0].default, Default::Int(1));
    }
}
