//! What a native bot declares to be registered: its [`BotEntry`] (name, parameters,
//! factory) and the checks of its parameters.
//!
//! Specs are parsed and validated in Python (`arena.play.registry.BotSpec`, the one parser); the
//! native side receives the bot's name and its full parameters (defaults filled in) and
//! checks them again against the same declarations (a Python bot's `PARAMS`), refusing what
//! `arena.play.bot.Param.convert` refuses, with the same sentences.  The list of the bots,
//! [`REGISTRY`](super::REGISTRY), is built in `bots/mod.rs`, where the bots are declared:
//! a bot module uses this one, and this one names no bot (no circle).

use crate::error::Error;
use crate::json::{float_repr, str_repr, Json};
use crate::rng::PyRandom;

use super::Bot;

/// A parameter's value as Python hands it over (`bool`, `int`, `float`, `str`).
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Bool(bool),
    Int(i64),
    Float(f64),
    Text(String),
}

impl Value {
    /// Python's `str` of the value (what a text parameter makes of it).
    pub fn str(&self) -> String {
        match self {
            Value::Text(s) => s.clone(),
            other => other.repr(),
        }
    }

    /// A bot's parameters as the binding reads a Python dict (a JSON object): each a bool,
    /// an int of 64 bits, a float or a text; a ValueError quotes any other value.
    pub fn params_of(data: &Json) -> Result<Vec<(String, Value)>, Error> {
        let items = data
            .as_object()
            .ok_or_else(|| Error::value("bot parameters are a dict"))?;
        let value = |v: &Json| {
            Ok(match v {
                Json::Bool(b) => Value::Bool(*b),
                Json::Int(i) => Value::Int(i64::try_from(*i).map_err(|_| {
                    Error::value("{value} is beyond a native bot's 64-bit ints").quoting(v.clone())
                })?),
                Json::Float(f) => Value::Float(*f),
                Json::Str(s) => Value::Text(s.clone()),
                _ => {
                    return Err(Error::value(
                        "a bot parameter is a bool, int, float or str, not {value}",
                    )
                    .quoting(v.clone()))
                }
            })
        };
        items
            .iter()
            .map(|(k, v)| Ok((k.clone(), value(v)?)))
            .collect()
    }

    /// Python's `repr` of the value (as a refusal quotes it).
    pub fn repr(&self) -> String {
        match self {
            Value::Bool(true) => "True".into(),
            Value::Bool(false) => "False".into(),
            Value::Int(i) => i.to_string(),
            Value::Float(f) => float_repr(*f),
            Value::Text(s) => str_repr(s),
        }
    }
}

/// What a parameter holds, with its bounds (the Python `Param`'s type, minimum, maximum and
/// choices).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind {
    Bool,
    Int {
        minimum: Option<i64>,
        maximum: Option<i64>,
    },
    Float {
        minimum: Option<f64>,
        maximum: Option<f64>,
    },
    /// Text; `choices` empty: any.
    Text {
        choices: &'static [&'static str],
    },
}

/// A declared parameter: the Rust side of a Python bot's `Param`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ParamDecl {
    pub name: &'static str,
    pub kind: Kind,
    pub default: Default,
}

/// A parameter's default (a `Value` that can be a constant).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Default {
    Bool(bool),
    Int(i64),
    Float(f64),
    Text(&'static str),
}

impl Default {
    pub fn value(&self) -> Value {
        match *self {
            Default::Bool(b) => Value::Bool(b),
            Default::Int(i) => Value::Int(i),
            Default::Float(f) => Value::Float(f),
            Default::Text(s) => Value::Text(s.into()),
        }
    }
}

/// A bound as a person writes it (Python's `_number`: 1000000, not 1e+06 or 1000000.0).
fn number(value: f64) -> String {
    if value.fract() == 0.0 && value.abs() < 1e18 {
        format!("{}", value as i64)
    } else {
        float_repr(value)
    }
}

impl ParamDecl {
    /// The declaration as data (`name`, `type`, `default`, `minimum`, `maximum`,
    /// `choices`; an absent bound is null): what the binding hands Python to hold against
    /// the Python bot's `PARAMS`.
    pub fn to_json(&self) -> Json {
        let (kind, minimum, maximum, choices): (_, _, _, &[&str]) = match self.kind {
            Kind::Bool => ("bool", None, None, &[]),
            Kind::Int { minimum, maximum } => (
                "int",
                minimum.map(|m| Json::Int(m.into())),
                maximum.map(|m| Json::Int(m.into())),
                &[],
            ),
            Kind::Float { minimum, maximum } => (
                "float",
                minimum.map(Json::Float),
                maximum.map(Json::Float),
                &[],
            ),
            Kind::Text { choices } => ("str", None, None, choices),
        };
        let default = match self.default {
            Default::Bool(b) => Json::Bool(b),
            Default::Int(i) => Json::Int(i.into()),
            Default::Float(f) => Json::Float(f),
            Default::Text(t) => Json::Str(t.into()),
        };
        let choices = choices.iter().map(|c| Json::Str(c.to_string())).collect();
        Json::Object(vec![
            ("name".into(), Json::Str(self.name.into())),
            ("type".into(), Json::Str(kind.into())),
            ("default".into(), default),
            ("minimum".into(), minimum.unwrap_or(Json::Null)),
            ("maximum".into(), maximum.unwrap_or(Json::Null)),
            ("choices".into(), Json::List(choices)),
        ])
    }

    /// An int parameter with its bounds.
    pub const fn int(name: &'static str, default: i64, minimum: i64, maximum: i64) -> ParamDecl {
        ParamDecl {
            name,
            kind: Kind::Int {
                minimum: Some(minimum),
                maximum: Some(maximum),
            },
            default: Default::Int(default),
        }
    }

    /// A float parameter with its bounds.
    pub const fn float(
        name: &'static str,
        default: f64,
        minimum: Option<f64>,
        maximum: Option<f64>,
    ) -> ParamDecl {
        ParamDecl {
            name,
            kind: Kind::Float { minimum, maximum },
            default: Default::Float(default),
        }
    }

    /// A bool parameter.
    pub const fn bool(name: &'static str, default: bool) -> ParamDecl {
        ParamDecl {
            name,
            kind: Kind::Bool,
            default: Default::Bool(default),
        }
    }

    /// A text parameter that must be one of `choices`.
    pub const fn choice(
        name: &'static str,
        default: &'static str,
        choices: &'static [&'static str],
    ) -> ParamDecl {
        ParamDecl {
            name,
            kind: Kind::Text { choices },
            default: Default::Text(default),
        }
    }

    fn type_name(&self) -> String {
        match self.kind {
            Kind::Bool => "true|false".into(),
            Kind::Int { .. } => "an integer".into(),
            Kind::Float { .. } => "a finite number".into(),
            Kind::Text { choices } if !choices.is_empty() => choices.join("|"),
            Kind::Text { .. } => "text".into(),
        }
    }

    /// The value as this parameter's type, checked (`Param.convert` on a typed value).
    pub fn convert(&self, value: &Value) -> Result<Value, String> {
        let bad = || {
            format!(
                "parameter {} must be {}, not {}",
                self.name,
                self.type_name(),
                value.repr()
            )
        };
        let out = match (self.kind, value) {
            (Kind::Bool, Value::Bool(b)) => Value::Bool(*b),
            (Kind::Bool, Value::Int(i)) if *i == 0 || *i == 1 => Value::Bool(*i == 1),
            (Kind::Bool, Value::Text(t)) => match t.to_lowercase().as_str() {
                "true" | "yes" | "1" => Value::Bool(true),
                "false" | "no" | "0" => Value::Bool(false),
                _ => return Err(bad()),
            },
            (Kind::Int { .. }, Value::Int(i)) => Value::Int(*i),
            (Kind::Int { .. }, Value::Float(f)) if f.fract() == 0.0 && f.abs() < 9.2e18 => {
                Value::Int(*f as i64)
            }
            (Kind::Int { .. }, Value::Text(t)) => Value::Int(int_text(t).ok_or_else(bad)?),
            (Kind::Float { .. }, Value::Int(i)) => Value::Float(*i as f64),
            (Kind::Float { .. }, Value::Float(f)) if f.is_finite() => Value::Float(*f),
            (Kind::Float { .. }, Value::Text(t)) => match float_text(t) {
                Some(f) if f.is_finite() => Value::Float(f),
                _ => return Err(bad()),
            },
            (Kind::Text { .. }, Value::Text(t)) => Value::Text(t.clone()),
            (Kind::Text { .. }, other) => Value::Text(other.str()),
            _ => return Err(bad()),
        };
        match (self.kind, &out) {
            (Kind::Text { choices }, Value::Text(t))
                if !choices.is_empty() && !choices.contains(&t.as_str()) =>
            {
                return Err(format!(
                    "parameter {} cannot be {} (valid: {})",
                    self.name,
                    out.repr(),
                    choices.join(", ")
                ))
            }
            (Kind::Int { minimum, maximum }, Value::Int(i)) => bounds(
                self.name,
                *i as f64,
                minimum.map(|m| m as f64),
                maximum.map(|m| m as f64),
            )?,
            (Kind::Float { minimum, maximum }, Value::Float(f)) => {
                bounds(self.name, *f, minimum, maximum)?
            }
            _ => {}
        }
        Ok(out)
    }
}

/// Python's `int(text)` of a decimal text: surrounding blanks, a sign, `_` between digits.
fn int_text(text: &str) -> Option<i64> {
    let t = text.trim();
    let digits = t.strip_prefix(['+', '-']).unwrap_or(t);
    if !underscores_between_digits(digits, |b| b.is_ascii_digit()) {
        return None;
    }
    t.replace('_', "").parse().ok()
}

/// Python's `float(text)` for the texts a parameter gets: decimal or exponent notation,
/// `_` between digits (Rust's parser alone refuses those and takes nothing Python does not).
fn float_text(text: &str) -> Option<f64> {
    let t = text.trim();
    if t.contains('_') {
        let body = t.strip_prefix(['+', '-']).unwrap_or(t);
        let digit = |b: u8| b.is_ascii_digit();
        let ok = body
            .split(['.', 'e', 'E'])
            .map(|part| part.strip_prefix(['+', '-']).unwrap_or(part))
            .all(|part| part.is_empty() || underscores_between_digits(part, digit));
        if !ok {
            return None;
        }
    }
    t.replace('_', "").parse().ok()
}

/// Whether `text` is digits (as `digit` says), with single `_`s only between two of them.
fn underscores_between_digits(text: &str, digit: impl Fn(u8) -> bool) -> bool {
    let b = text.as_bytes();
    !b.is_empty()
        && b.iter().enumerate().all(|(i, &c)| {
            digit(c)
                || (c == b'_' && i > 0 && i + 1 < b.len() && digit(b[i - 1]) && digit(b[i + 1]))
        })
}

fn bounds(name: &str, v: f64, minimum: Option<f64>, maximum: Option<f64>) -> Result<(), String> {
    if let Some(m) = minimum {
        if v < m {
            return Err(format!("parameter {name} must be at least {}", number(m)));
        }
    }
    if let Some(m) = maximum {
        if v > m {
            return Err(format!("parameter {name} must be at most {}", number(m)));
        }
    }
    Ok(())
}

/// Checked parameters: every declared one, in declaration order, defaults filled in.
#[derive(Clone, Debug, PartialEq)]
pub struct Params(pub Vec<(&'static str, Value)>);

impl Params {
    fn get(&self, name: &str) -> Option<&Value> {
        self.0.iter().find(|(n, _)| *n == name).map(|(_, v)| v)
    }
    /// A declared bool parameter (false if the bot declares none of that name).
    pub fn bool(&self, name: &str) -> bool {
        matches!(self.get(name), Some(Value::Bool(true)))
    }
    /// A declared int parameter (0 if none).
    pub fn int(&self, name: &str) -> i64 {
        match self.get(name) {
            Some(Value::Int(i)) => *i,
            _ => 0,
        }
    }
    /// A declared float parameter (0.0 if none).
    pub fn float(&self, name: &str) -> f64 {
        match self.get(name) {
            Some(Value::Float(f)) => *f,
            _ => 0.0,
        }
    }
    /// A declared text parameter ("" if none).
    pub fn text(&self, name: &str) -> &str {
        match self.get(name) {
            Some(Value::Text(t)) => t,
            _ => "",
        }
    }
}

/// Makes a bot from checked parameters and its generator (seeded as the arena seeds the
/// Python bot: `arena.play.seeds.bot_seed`, or a caller's generator state).
pub type Factory = fn(&Params, PyRandom) -> Box<dyn Bot>;

/// One bot of the registry.
#[derive(Clone, Copy)]
pub struct BotEntry {
    /// The name the Python bot class declares as its `NATIVE` (its registered name).
    pub name: &'static str,
    /// The Python class's name (refusals name it, as `Bot.check_params` does).
    pub class: &'static str,
    /// Its parameters' declarations: a built-in bot's from `bot_params.json`
    /// ([`declared::of`](super::declared::of)), which the Python bot reads too.
    pub declared: fn() -> &'static [ParamDecl],
    pub make: Factory,
    /// Only with the binding's test hook (the planted panic): never in a real run.
    pub test_only: bool,
}

impl BotEntry {
    /// Its parameters' declarations, in order.
    pub fn params(&self) -> &'static [ParamDecl] {
        (self.declared)()
    }

    /// Every declared parameter with its value, checked (`Bot.check_params`).
    pub fn check(&self, given: &[(String, Value)]) -> Result<Params, String> {
        let params = self.params();
        for (name, _) in given {
            if !params.iter().any(|p| p.name == name) {
                let valid: Vec<&str> = params.iter().map(|p| p.name).collect();
                let valid = if valid.is_empty() {
                    "none".to_string()
                } else {
                    valid.join(", ")
                };
                return Err(format!(
                    "{} has no parameter {} (its parameters: {valid})",
                    self.class,
                    str_repr(name)
                ));
            }
        }
        let mut out = Vec::with_capacity(params.len());
        for p in params {
            let value = match given.iter().find(|(n, _)| n == p.name) {
                Some((_, v)) => p.convert(v)?,
                None => p.default.value(),
            };
            out.push((p.name, value));
        }
        Ok(Params(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_in_text_as_python_reads_them() {
        assert_eq!(int_text(" +1_000 "), Some(1000));
        assert_eq!(int_text("1__0"), None);
        assert_eq!(int_text("_1"), None);
        assert_eq!(int_text("1.0"), None);
        assert_eq!(float_text("1_0.2_5"), Some(10.25));
        assert_eq!(float_text("2.5e-1"), Some(0.25));
        assert_eq!(float_text("1_.5"), None);
        assert_eq!(float_text("x"), None);
    }

    #[test]
    fn bounds_as_python_words_them() {
        let p = ParamDecl {
            name: "n",
            kind: Kind::Int {
                minimum: Some(1),
                maximum: Some(1_000_000),
            },
            default: Default::Int(1),
        };
        assert_eq!(
            p.convert(&Value::Int(0)).unwrap_err(),
            "parameter n must be at least 1"
        );
        assert_eq!(
            p.convert(&Value::Int(2_000_000)).unwrap_err(),
            "parameter n must be at most 1000000"
        );
        assert_eq!(
            p.convert(&Value::Float(2.5)).unwrap_err(),
            "parameter n must be an integer, not 2.5"
        );
    }
}
