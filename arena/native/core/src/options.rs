//! Rule options, read from the declarative table `options.json` (the reference's too).
//!
//! A new option is a row of the table: parsing, checking, writing and the refusals' sentences
//! (generated per type) need no Rust change; only the rule that reads it does (`Rules`).

use std::sync::LazyLock;

use crate::json::{self, str_repr, Json};

pub const OPTIONS_JSON: &str = include_str!("../../../engine/data/options.json");

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
    pub rule: Option<String>,
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
}

pub static TABLE: LazyLock<Table> =
    LazyLock::new(|| load(OPTIONS_JSON).expect("options.json is the engine's own data"));

fn load(text: &str) -> Result<Table, String> {
    let data = json::parse(text)?;
    let mut specs = Vec::new();
    for row in data
        .get("options")
        .and_then(Json::as_list)
        .ok_or("options")?
    {
        let name = row
            .get("name")
            .and_then(Json::as_str)
            .ok_or("name")?
            .to_string();
        let minimum = row.get("minimum").and_then(Json::as_int).unwrap_or(0);
        let default = row.get("default").ok_or("default")?;
        let (kind, value) = match row.get("type").and_then(Json::as_str).ok_or("type")? {
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
        };
        specs.push(OptionSpec {
            name,
            kind,
            default: value,
            rule: row.get("rule").and_then(Json::as_str).map(String::from),
            help: row
                .get("help")
                .and_then(Json::as_str)
                .unwrap_or("")
                .to_string(),
        });
    }
    Ok(Table { specs })
}

impl Table {
    pub fn index(&self, name: &str) -> Option<usize> {
        self.specs.iter().position(|s| s.name == name)
    }

    fn unknown(&self, name: &str) -> String {
        let names: Vec<&str> = self.specs.iter().map(|s| s.name.as_str()).collect();
        format!(
            "unknown rule option {} (valid options: {})",
            str_repr(name),
            names.join(", ")
        )
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

/// What the value of a `per_players` option needs, in the refusal's words.
fn per_players_needs(spec: &OptionSpec, players: &[usize], minimum: i128) -> String {
    let counts: Vec<String> = players.iter().map(|p| p.to_string()).collect();
    let list = match counts.len() {
        0 => String::new(),
        1 => counts[0].clone(),
        n => format!("{} and {}", counts[..n - 1].join(", "), counts[n - 1]),
    };
    let example = match &spec.default {
        Value::PerPlayers(v) => players
            .iter()
            .zip(v)
            .map(|(p, v)| format!("{p}:{v}"))
            .collect::<Vec<_>>()
            .join(","),
        _ => String::new(),
    };
    format!(
        "rule option {} needs a whole number >= {minimum} for each of {list} players, e.g. {example}",
        spec.name
    )
}

/// Python's `int()` of a text: white space around, a sign, `_` between digits.
pub fn py_int(text: &str) -> Option<i128> {
    let t = text.trim();
    let (neg, digits) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    if digits.is_empty()
        || digits.starts_with('_')
        || digits.ends_with('_')
        || digits.contains("__")
    {
        return None;
    }
    let mut value: i128 = 0;
    for ch in digits.chars() {
        if ch == '_' {
            continue;
        }
        value = value
            .checked_mul(10)?
            .checked_add(ch.to_digit(10)? as i128)?;
    }
    Some(if neg { -value } else { value })
}

/// A yes/no of a command line (`true`/`yes`/`1`, `false`/`no`/`0`, any case).
pub fn parse_bool(text: &str) -> Option<bool> {
    match text.to_lowercase().as_str() {
        "true" | "yes" | "1" => Some(true),
        "false" | "no" | "0" => Some(false),
        _ => None,
    }
}

/// A value given from outside before it is checked (`from_dict`'s JSON or a pair's text).
enum Given {
    Json(Json),
    Checked(Value),
}

impl RuleOptions {
    /// The value of an option by name (the table must hold it).
    pub fn get(&self, name: &str) -> &Value {
        &self.values[TABLE
            .index(name)
            .unwrap_or_else(|| panic!("no rule option {name}"))]
    }

    /// Every option's value checked, in the reference's order: choices, then yes/no, then
    /// numbers, then per-player numbers (each in the table's order).
    fn check(given: Vec<Option<Given>>) -> Result<RuleOptions, String> {
        let table = &*TABLE;
        let mut values: Vec<Value> = table.specs.iter().map(|s| s.default.clone()).collect();
        let mut pending: Vec<(usize, Json)> = Vec::new();
        for (i, g) in given.into_iter().enumerate() {
            match g {
                Some(Given::Checked(v)) => values[i] = v,
                Some(Given::Json(j)) => pending.push((i, j)),
                None => {}
            }
        }
        for pass in 0..4 {
            for (i, j) in &pending {
                let spec = &table.specs[*i];
                let name = &spec.name;
                match (&spec.kind, pass) {
                    (OptionType::Choice(valid), 0) => {
                        let pos = j.as_str().and_then(|s| valid.iter().position(|v| v == s));
                        let Some(pos) = pos else {
                            return Err(format!(
                                "rule option {name} cannot be {} (valid values: {})",
                                j.repr(),
                                valid.join(", ")
                            ));
                        };
                        values[*i] = Value::Choice(pos);
                    }
                    (OptionType::Bool, 1) => match j {
                        Json::Bool(b) => values[*i] = Value::Bool(*b),
                        _ => return Err(format!("rule option {name} must be true or false")),
                    },
                    (OptionType::Int { minimum }, 2) => {
                        // As in Python, true and false are the numbers 1 and 0.
                        let v = match j {
                            Json::Int(v) => Some(*v),
                            Json::Bool(b) => Some(*b as i128),
                            _ => None,
                        };
                        match v {
                            Some(v) if v >= *minimum => values[*i] = Value::Int(v),
                            _ => {
                                return Err(format!(
                                    "rule option {name} must be a whole number >= {minimum}"
                                ))
                            }
                        }
                    }
                    (OptionType::PerPlayers { players, minimum }, 3) => {
                        let Json::Object(items) = j else {
                            return Err(format!(
                                "rule option {name} must map player counts to numbers"
                            ));
                        };
                        let mut keyed: Vec<(i128, &Json)> = Vec::new();
                        for (k, v) in items {
                            let Some(k) = py_int(k) else {
                                let counts: Vec<String> =
                                    players.iter().map(|p| p.to_string()).collect();
                                return Err(format!(
                                    "rule option {name} must map player counts {} to numbers",
                                    counts.join(", ")
                                ));
                            };
                            keyed.push((k, v));
                        }
                        let mut out = Vec::new();
                        for &p in players {
                            let v = keyed.iter().rev().find(|(k, _)| *k == p as i128);
                            let v = v.and_then(|(_, v)| match v {
                                Json::Int(v) => Some(*v),
                                Json::Bool(b) => Some(*b as i128),
                                _ => None,
                            });
                            match v {
                                Some(v) if v >= *minimum => out.push(v),
                                _ => return Err(per_players_needs(spec, players, *minimum)),
                            }
                        }
                        let mut keys: Vec<i128> = keyed.iter().map(|(k, _)| *k).collect();
                        keys.sort();
                        keys.dedup();
                        let bad_value = keyed.iter().any(|(_, v)| {
                            !matches!(v, Json::Int(x) if *x >= *minimum)
                                && !matches!(v, Json::Bool(true) if *minimum <= 1)
                        });
                        if keys != players.iter().map(|p| *p as i128).collect::<Vec<_>>()
                            || bad_value
                        {
                            return Err(per_players_needs(spec, players, *minimum));
                        }
                        values[*i] = Value::PerPlayers(out);
                    }
                    _ => {}
                }
            }
        }
        Ok(RuleOptions { values })
    }

    /// Options from JSON (a position's `options`); unknown names are refused.
    pub fn from_dict(data: &Json) -> Result<RuleOptions, String> {
        let table = &*TABLE;
        let Json::Object(items) = data else {
            return Err("options must be an object of rule option names to values".into());
        };
        let mut given: Vec<Option<Given>> = table.specs.iter().map(|_| None).collect();
        for (name, value) in items {
            let i = table.index(name).ok_or_else(|| table.unknown(name))?;
            given[i] = Some(Given::Json(value.clone()));
        }
        RuleOptions::check(given)
    }

    /// Options from `NAME=VALUE` texts (`--rule cloud_keep=false`).
    pub fn from_pairs<S: AsRef<str>>(pairs: &[S]) -> Result<RuleOptions, String> {
        let table = &*TABLE;
        let mut given: Vec<Option<Given>> = table.specs.iter().map(|_| None).collect();
        for pair in pairs {
            let pair = pair.as_ref();
            let (name, text, sep) = match pair.split_once('=') {
                Some((n, t)) => (n.trim(), t.trim(), true),
                None => (pair.trim(), "", false),
            };
            if !sep || name.is_empty() {
                return Err(format!(
                    "rule {} is not of the form NAME=VALUE",
                    str_repr(pair)
                ));
            }
            let i = table.index(name).ok_or_else(|| table.unknown(name))?;
            if given[i].is_some() {
                return Err(format!("rule option {name} is given twice"));
            }
            let spec = &table.specs[i];
            given[i] = Some(match &spec.kind {
                OptionType::Bool => match parse_bool(text) {
                    Some(b) => Given::Checked(Value::Bool(b)),
                    None => {
                        return Err(format!(
                            "rule option {name} must be true or false, not {}",
                            str_repr(text)
                        ))
                    }
                },
                OptionType::Int { .. } => match py_int(text) {
                    Some(v) => Given::Json(Json::Int(v)),
                    None => {
                        return Err(format!(
                            "rule option {name} must be a whole number, not {}",
                            str_repr(text)
                        ))
                    }
                },
                OptionType::Choice(_) => Given::Json(Json::Str(text.to_string())),
                OptionType::PerPlayers { players, .. } => {
                    let bad = || {
                        let forms: Vec<String> = players.iter().map(|p| format!("{p}:N")).collect();
                        format!(
                            "rule option {name} must be N or {}, not {}",
                            forms.join(","),
                            str_repr(text)
                        )
                    };
                    let Value::PerPlayers(defaults) = &spec.default else {
                        unreachable!()
                    };
                    let mut ends: Vec<i128> = defaults.clone();
                    if !text.contains(':') {
                        let v = py_int(text).ok_or_else(bad)?;
                        ends.iter_mut().for_each(|e| *e = v);
                    } else {
                        for part in text.split(',') {
                            let (k, v) = part.split_once(':').unwrap_or((part, ""));
                            let k = py_int(k).ok_or_else(bad)?;
                            let at = players
                                .iter()
                                .position(|p| *p as i128 == k)
                                .ok_or_else(bad)?;
                            ends[at] = py_int(v).ok_or_else(bad)?;
                        }
                    }
                    let object = players
                        .iter()
                        .zip(&ends)
                        .map(|(p, v)| (p.to_string(), Json::Int(*v)))
                        .collect();
                    Given::Json(Json::Object(object))
                }
            });
        }
        RuleOptions::check(given)
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
            Value::Int(v) => (*v).clamp(0, u32::MAX as i128) as u32,
            _ => 0,
        };
        let mut ends = [0u32; 5];
        if let (Value::PerPlayers(v), OptionType::PerPlayers { players, .. }) = (
            options.get("objectives_to_end"),
            &TABLE.specs[TABLE.index("objectives_to_end").expect("rule option")].kind,
        ) {
            for (p, v) in players.iter().zip(v) {
                if *p < 5 {
                    ends[*p] = (*v).clamp(0, u32::MAX as i128) as u32;
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
            "rule option max_rounds must be a whole number >= 1"
        );
        assert!(RuleOptions::from_pairs(&["nope=1"])
            .unwrap_err()
            .starts_with("unknown rule option 'nope'"));
        let bad = json::parse(r#"{"objectives_to_end": {"2": 9}}"#).unwrap();
        assert_eq!(
            RuleOptions::from_dict(&bad).unwrap_err(),
            "rule option objectives_to_end needs a whole number >= 1 for each of 2, 3 and 4 players, e.g. 2:9,3:8,4:7"
        );
    }
}
