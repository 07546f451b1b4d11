//! Rule options, read from the declarative table `options.json` (the reference's too).
//!
//! A new option is a row of the table: parsing, checking, writing and the refusals' sentences
//! (generated per type) need no Rust change; only the rule that reads it does (`Rules`).

use std::sync::LazyLock;

use crate::components::COUNT_MAX;
use crate::error::Error;
use crate::json::{self, str_repr, Json};

pub const OPTIONS_JSON: &str = include_str!("../../../data/options.json");

/// The kind of values an option takes.
#[derive(Clone, Debug, PartialEq)]
pub enum OptionType {
    Bool,
    Choice(Vec<String>),
    Int { minimum: i128 },
    PerPlayers { players: Vec<usize>, minimum: i128 },
}

/// One row of the table.
#[derive(Clone, Debug)]
pub struct OptionSpec {
    pub name: String,
    pub kind: OptionType,
    pub default: Value,
    pub rules: Vec<String>,
    pub help: String,
}

/// An option's value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    Bool(bool),
    Choice(usize),
    Int(i128),
    /// Per player count, in the order of the spec's `players`.
    PerPlayers(Vec<i128>),
}

pub struct Table {
    pub specs: Vec<OptionSpec>,
    /// The refusals' templates by key (`{name}`, `{given}`... filled in as the reference does).
    pub errors: Vec<(String, String)>,
}

pub static TABLE: LazyLock<Table> =
    LazyLock::new(|| load(OPTIONS_JSON).expect("options.json is the engine's own data"));

/// The table from `options.json`'s text; the error names the field that is missing or
/// wrong (the file is the engine's own, so a failure is a bug of the data).
fn load(text: &str) -> Result<Table, String> {
    let data = json::parse(text)?;
    let specs = data
        .get("options")
        .and_then(Json::as_list)
        .ok_or("options")?
        .iter()
        .map(option_spec)
        .collect::<Result<Vec<_>, String>>()?;
    let errors = match data.get("errors") {
        Some(Json::Object(items)) => items
            .iter()
            .map(|(k, v)| Ok((k.clone(), v.as_str().ok_or("errors")?.to_string())))
            .collect::<Result<Vec<_>, String>>()?,
        _ => return Err("errors".into()),
    };
    Ok(Table { specs, errors })
}

/// One row of the table: its name, kind and default, the rules it changes and its help.
fn option_spec(row: &Json) -> Result<OptionSpec, String> {
    let name = row
        .get("name")
        .and_then(Json::as_str)
        .ok_or("name")?
        .to_string();
    let (kind, default) = option_kind(row)?;
    Ok(OptionSpec {
        name,
        kind,
        default,
        rules: row
            .get("rules")
            .and_then(Json::as_list)
            .map(|l| {
                l.iter()
                    .filter_map(|r| r.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default(),
        help: row
            .get("help")
            .and_then(Json::as_str)
            .unwrap_or("")
            .to_string(),
    })
}

/// A row's kind of values and its default, read by its `type`.
fn option_kind(row: &Json) -> Result<(OptionType, Value), String> {
    let minimum = row.get("minimum").and_then(Json::as_int).unwrap_or(0);
    let default = row.get("default").ok_or("default")?;
    Ok(
        match row.get("type").and_then(Json::as_str).ok_or("type")? {
            "bool" => (
                OptionType::Bool,
                Value::Bool(matches!(default, Json::Bool(true))),
            ),
            "choice" => {
                let values: Vec<String> = row
                    .get("values")
                    .and_then(Json::as_list)
                    .ok_or("values")?
                    .iter()
                    .filter_map(|v| v.as_str().map(String::from))
                    .collect();
                let d = default.as_str().ok_or("default")?;
                let i = values.iter().position(|v| v == d).ok_or("default")?;
                (OptionType::Choice(values), Value::Choice(i))
            }
            "int" => (
                OptionType::Int { minimum },
                Value::Int(default.as_int().ok_or("default")?),
            ),
            "per_players" => {
                let players: Vec<usize> = row
                    .get("players")
                    .and_then(Json::as_list)
                    .ok_or("players")?
                    .iter()
                    .filter_map(|p| p.as_int().map(|p| p as usize))
                    .collect();
                let values = players
                    .iter()
                    .map(|p| {
                        default
                            .get(&p.to_string())
                            .and_then(Json::as_int)
                            .ok_or("default")
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                (
                    OptionType::PerPlayers { players, minimum },
                    Value::PerPlayers(values),
                )
            }
            other => return Err(format!("option type {other}")),
        },
    )
}

impl Table {
    pub fn index(&self, name: &str) -> Option<usize> {
        self.specs.iter().position(|s| s.name == name)
    }
}

/// The rule options of one game; the defaults are the official rules.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleOptions {
    pub values: Vec<Value>,
}

impl Default for RuleOptions {
    fn default() -> Self {
        RuleOptions {
            values: TABLE.specs.iter().map(|s| s.default.clone()).collect(),
        }
    }
}

/// `2, 3 and 4`.
fn and_list(items: &[String]) -> String {
    match items.len() {
        0 => String::new(),
        1 => items[0].clone(),
        n => format!("{} and {}", items[..n - 1].join(", "), items[n - 1]),
    }
}

/// Whether a value is no JSON text: it holds one of the caller's that JSON has no form for,
/// or a float that is not finite.
fn no_json(v: &Json) -> bool {
    match v {
        Json::Foreign(_) => true,
        Json::Float(f) => !f.is_finite(),
        Json::List(items) => items.iter().any(no_json),
        Json::Object(items) => items.iter().any(|(_, v)| no_json(v)),
        _ => false,
    }
}

/// A JSON value as a refusal quotes it: compact JSON as Python's `json.dumps` writes it with
/// `ensure_ascii=False`; a value that is no JSON text is quoted by the reader of the refusal
/// (`{json}`, the refusal carrying the value: `from_dict`).
pub fn quote_json(value: &Json) -> String {
    if no_json(value) {
        crate::error::JSON_VALUE.to_string()
    } else {
        value.dump_unicode()
    }
}

/// The pairs of a JSON object as a Python dict holds them: a key given twice keeps its first
/// place and its last value.
fn dict_items(items: &[(String, Json)]) -> Vec<(String, Json)> {
    let mut out: Vec<(String, Json)> = Vec::with_capacity(items.len());
    for (k, v) in items {
        match out.iter_mut().find(|(o, _)| o == k) {
            Some(slot) => slot.1 = v.clone(),
            None => out.push((k.clone(), v.clone())),
        }
    }
    out
}

/// The whole number a text spells (ASCII digits with an optional sign, nothing else), one
/// beyond 128 bits as the nearest `i128` (out of every option's range).
fn whole(text: &str) -> Option<i128> {
    let digits = text.strip_prefix(['+', '-']).unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let beyond = if text.starts_with('-') {
        i128::MIN
    } else {
        i128::MAX
    };
    Some(text.parse().unwrap_or(beyond))
}

/// A yes/no of a command line (`true`/`yes`/`1`, `false`/`no`/`0`, any case).
pub fn parse_bool(text: &str) -> Option<bool> {
    match text.to_lowercase().as_str() {
        "true" | "yes" | "1" => Some(true),
        "false" | "no" | "0" => Some(false),
        _ => None,
    }
}

impl Table {
    /// The sentence of template `key` with its fields.
    fn sentence(&self, key: &str, fields: &[(&str, String)]) -> String {
        let mut text = self
            .errors
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, t)| t.clone())
            .unwrap_or_else(|| key.to_string());
        for (field, value) in fields {
            text = text.replace(&format!("{{{field}}}"), value);
        }
        text
    }

    fn unknown(&self, given: String) -> String {
        let names: Vec<&str> = self.specs.iter().map(|s| s.name.as_str()).collect();
        self.sentence("unknown", &[("given", given), ("names", names.join(", "))])
    }
}

impl OptionSpec {
    /// The refusal of template `key` for this option, `given` being what was written.
    fn error(&self, key: &str, given: String) -> String {
        let (values, minimum, players) = match &self.kind {
            OptionType::Choice(v) => (v.join(", "), 0, vec![]),
            OptionType::Int { minimum } => (String::new(), *minimum, vec![]),
            OptionType::PerPlayers { players, minimum } => {
                (String::new(), *minimum, players.clone())
            }
            OptionType::Bool => (String::new(), 0, vec![]),
        };
        let counts: Vec<String> = players.iter().map(|p| p.to_string()).collect();
        let pattern: Vec<String> = players.iter().map(|p| format!("{p}:N")).collect();
        TABLE.sentence(
            key,
            &[
                ("name", self.name.clone()),
                ("given", given),
                ("values", values),
                ("minimum", minimum.to_string()),
                ("maximum", COUNT_MAX.to_string()),
                ("players", and_list(&counts)),
                ("pattern", pattern.join(",")),
                ("example", quote_json(&value_json(self, &self.default))),
            ],
        )
    }

    /// The typed value of a JSON value (a position's `options`).
    fn read_json(&self, value: &Json) -> Result<Value, String> {
        let refuse = |key: &str| self.error(key, quote_json(value));
        match &self.kind {
            OptionType::Bool => match value {
                Json::Bool(b) => Ok(Value::Bool(*b)),
                _ => Err(refuse("bool")),
            },
            OptionType::Choice(valid) => value
                .as_str()
                .and_then(|s| valid.iter().position(|v| v == s))
                .map(Value::Choice)
                .ok_or_else(|| refuse("choice")),
            OptionType::Int { minimum } => match value.as_wide_int() {
                Some(v) if v > COUNT_MAX => Err(refuse("too_big")),
                Some(v) if v >= *minimum => Ok(Value::Int(v)),
                _ => Err(refuse("int")),
            },
            OptionType::PerPlayers { players, minimum } => {
                let Json::Object(items) = value else {
                    return Err(refuse("per_players"));
                };
                let items = dict_items(items);
                let mut keys: Vec<&str> = items.iter().map(|(k, _)| k.as_str()).collect();
                keys.sort_unstable();
                let counts: Vec<String> = players.iter().map(|p| p.to_string()).collect();
                let mut wanted: Vec<&str> = counts.iter().map(String::as_str).collect();
                wanted.sort_unstable();
                let fine = keys == wanted
                    && items
                        .iter()
                        .all(|(_, v)| v.as_wide_int().is_some_and(|n| n >= *minimum));
                if !fine {
                    return Err(refuse("per_players"));
                }
                let numbers: Vec<i128> = counts
                    .iter()
                    .map(|c| match items.iter().find(|(k, _)| k == c) {
                        Some((_, v)) => v.as_wide_int().unwrap_or(0),
                        _ => 0,
                    })
                    .collect();
                if numbers.iter().any(|&n| n > COUNT_MAX) {
                    return Err(refuse("too_big"));
                }
                Ok(Value::PerPlayers(numbers))
            }
        }
    }

    /// The typed value of a command-line text (`--rule NAME=TEXT`).
    fn parse(&self, text: &str) -> Result<Value, String> {
        let refuse = |key: &str| self.error(key, str_repr(text));
        match &self.kind {
            OptionType::Bool => parse_bool(text)
                .map(Value::Bool)
                .ok_or_else(|| refuse("bool")),
            OptionType::Choice(valid) => valid
                .iter()
                .position(|v| v == text)
                .map(Value::Choice)
                .ok_or_else(|| refuse("choice")),
            OptionType::Int { minimum } => match whole(text) {
                Some(v) if v < *minimum => Err(refuse("int")),
                Some(v) if v > COUNT_MAX => Err(refuse("too_big")),
                Some(v) => Ok(Value::Int(v)),
                None => Err(refuse("int")),
            },
            OptionType::PerPlayers { players, minimum } => {
                let Value::PerPlayers(defaults) = &self.default else {
                    return Err(refuse("per_players_text"));
                };
                let mut counts = defaults.clone();
                if let Some(n) = whole(text) {
                    counts.iter_mut().for_each(|c| *c = n);
                } else {
                    let mut named: Vec<usize> = Vec::new();
                    for part in text.split(',') {
                        let (p, n) = part.split_once(':').unwrap_or((part, ""));
                        let at = whole(p)
                            .and_then(|p| players.iter().position(|q| *q as i128 == p))
                            .filter(|at| !named.contains(at));
                        let (Some(at), Some(n)) = (at, whole(n)) else {
                            return Err(refuse("per_players_text"));
                        };
                        named.push(at);
                        counts[at] = n;
                    }
                }
                if counts.iter().any(|n| n < minimum) {
                    return Err(refuse("per_players_text"));
                }
                if counts.iter().any(|&n| n > COUNT_MAX) {
                    return Err(refuse("too_big"));
                }
                Ok(Value::PerPlayers(counts))
            }
        }
    }
}

impl RuleOptions {
    /// The value of an option by name (the table must hold it).
    pub fn get(&self, name: &str) -> &Value {
        &self.values[TABLE
            .index(name)
            .unwrap_or_else(|| panic!("no rule option {name}"))]
    }

    /// Options from JSON (a position's `options`); unknown names are refused, and the first
    /// bad value in the object's order is, as the reference reads them.
    /// Options from a JSON object (a position's `options`); a refusal quoting a value JSON
    /// has no form for carries that value.
    pub fn from_dict(data: &Json) -> Result<RuleOptions, Error> {
        let table = &*TABLE;
        let Json::Object(items) = data else {
            return Err(Error::option(table.sentence("not_object", &[])));
        };
        let mut options = RuleOptions::default();
        for (name, value) in dict_items(items) {
            let i = table.index(&name).ok_or_else(|| {
                Error::option(table.unknown(quote_json(&Json::Str(name.clone()))))
            })?;
            options.values[i] = table.specs[i].read_json(&value).map_err(|m| {
                let e = Error::option(m);
                if no_json(&value) {
                    e.quoting(value.clone())
                } else {
                    e
                }
            })?;
        }
        Ok(options)
    }

    /// Options from `NAME=VALUE` texts (`--rule cloud_keep=false`).
    pub fn from_pairs<S: AsRef<str>>(pairs: &[S]) -> Result<RuleOptions, String> {
        let table = &*TABLE;
        let mut options = RuleOptions::default();
        let mut given = vec![false; table.specs.len()];
        for pair in pairs {
            let pair = pair.as_ref();
            let Some((name, text)) = pair.split_once('=') else {
                return Err(table.sentence("not_pair", &[("given", str_repr(pair))]));
            };
            let (name, text) = (name.trim(), text.trim());
            if name.is_empty() {
                return Err(table.sentence("not_pair", &[("given", str_repr(pair))]));
            }
            let i = table
                .index(name)
                .ok_or_else(|| table.unknown(str_repr(name)))?;
            let spec = &table.specs[i];
            if given[i] {
                return Err(spec.error("twice", String::new()));
            }
            given[i] = true;
            options.values[i] = spec.parse(text)?;
        }
        Ok(options)
    }

    /// JSON-ready options; `only_changed` keeps those that differ from the defaults.
    pub fn to_dict(&self, only_changed: bool) -> Json {
        let mut out = Vec::new();
        for (spec, value) in TABLE.specs.iter().zip(&self.values) {
            if only_changed && *value == spec.default {
                continue;
            }
            out.push((spec.name.clone(), value_json(spec, value)));
        }
        Json::Object(out)
    }
}

/// An option's value as JSON.
pub fn value_json(spec: &OptionSpec, value: &Value) -> Json {
    match (value, &spec.kind) {
        (Value::Bool(b), _) => Json::Bool(*b),
        (Value::Choice(i), OptionType::Choice(valid)) => Json::Str(valid[*i].clone()),
        (Value::Int(v), _) => Json::Int(*v),
        (Value::PerPlayers(v), OptionType::PerPlayers { players, .. }) => Json::Object(
            players
                .iter()
                .zip(v)
                .map(|(p, v)| (p.to_string(), Json::Int(*v)))
                .collect(),
        ),
        _ => Json::Null,
    }
}

/// What the rules read of the options, resolved once per game (the hot path reads fields).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rules {
    pub cloud_keep: bool,
    /// `cloud_when_empty=move_improvement`.
    pub cloud_move: bool,
    /// `redraw_satisfied`: 0 none, 1 plot_gardener, 2 all.
    pub redraw: u8,
    pub gardener_on_shoot: bool,
    /// `bamboo_supply=limited`.
    pub bamboo_limited: bool,
    /// Objectives that end the game, for 2, 3 and 4 players (index = players).
    pub objectives_to_end: [u32; 5],
    pub emperor_points: u32,
    pub max_rounds: u32,
}

fn choice_name(options: &RuleOptions, name: &str) -> String {
    let spec = &TABLE.specs[TABLE.index(name).expect("rule option")];
    match (options.get(name), &spec.kind) {
        (Value::Choice(i), OptionType::Choice(v)) => v[*i].clone(),
        _ => String::new(),
    }
}

impl Rules {
    pub fn of(options: &RuleOptions) -> Rules {
        let flag = |name| matches!(options.get(name), Value::Bool(true));
        let int = |name| match options.get(name) {
            Value::Int(v) => *v as u32, // within 0..=COUNT_MAX, as read
            _ => 0,
        };
        let mut ends = [0u32; 5];
        if let (Value::PerPlayers(v), OptionType::PerPlayers { players, .. }) = (
            options.get("objectives_to_end"),
            &TABLE.specs[TABLE.index("objectives_to_end").expect("rule option")].kind,
        ) {
            for (p, v) in players.iter().zip(v) {
                if *p < 5 {
                    ends[*p] = *v as u32;
                }
            }
        }
        Rules {
            cloud_keep: flag("cloud_keep"),
            cloud_move: choice_name(options, "cloud_when_empty") == "move_improvement",
            redraw: match choice_name(options, "redraw_satisfied").as_str() {
                "plot_gardener" => 1,
                "all" => 2,
                _ => 0,
            },
            gardener_on_shoot: flag("gardener_on_shoot"),
            bamboo_limited: choice_name(options, "bamboo_supply") == "limited",
            objectives_to_end: ends,
            emperor_points: int("emperor_points"),
            max_rounds: int("max_rounds"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_refusals() {
        let d = RuleOptions::default();
        assert_eq!(Rules::of(&d).objectives_to_end[2], 9);
        assert_eq!(d.to_dict(true), Json::Object(vec![]));
        let o = RuleOptions::from_pairs(&["objectives_to_end=3:5", "cloud_keep=no"]).unwrap();
        assert_eq!(Rules::of(&o).objectives_to_end, [0, 0, 9, 5, 7]);
        assert!(!Rules::of(&o).cloud_keep);
        assert_eq!(
            RuleOptions::from_pairs(&["max_rounds=0"]).unwrap_err(),
            "rule option max_rounds must be a whole number >= 1, not '0'"
        );
        assert!(RuleOptions::from_pairs(&["nope=1"])
            .unwrap_err()
            .starts_with("unknown rule option 'nope'"));
        let bad = json::parse(r#"{"objectives_to_end": {"2": 9}}"#).unwrap();
        assert_eq!(
            RuleOptions::from_dict(&bad).unwrap_err().message,
            r#"rule option objectives_to_end needs a whole number >= 1 for each of 2, 3 and 4 players, e.g. {"2":9,"3":8,"4":7}, not {"2":9}"#
        );
    }
}
