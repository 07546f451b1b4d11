//! Bot parameters as the Python bots declare and check them (`arena.bot.Param`): a spec's
//! values converted to each parameter's type and held to its bounds, with the same
//! sentences, so a native bot refuses what its Python original refuses.

use crate::json::Json;
use crate::options::parse_bool;

/// A parameter's type and bounds.
#[derive(Clone, Copy, Debug)]
pub enum Kind {
    Int { min: Option<i64>, max: Option<i64> },
    Float { min: Option<f64>, max: Option<f64> },
    Bool,
    Choice(&'static [&'static str]),
}

/// One declared parameter.
#[derive(Clone, Copy, Debug)]
pub struct Spec {
    pub name: &'static str,
    pub kind: Kind,
    pub default: Value,
}

/// A checked value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    Int(i64),
    Float(f64),
    Bool(bool),
    Choice(usize),
}

impl Value {
    pub fn as_int(&self) -> i64 {
        match *self {
            Value::Int(i) => i,
            Value::Choice(i) => i as i64,
            Value::Float(f) => f as i64,
            Value::Bool(b) => b as i64,
        }
    }
    pub fn as_float(&self) -> f64 {
        match *self {
            Value::Float(f) => f,
            other => other.as_int() as f64,
        }
    }
    pub fn as_bool(&self) -> bool {
        self.as_int() != 0
    }
}

impl Spec {
    pub const fn int(name: &'static str, default: i64, min: i64, max: i64) -> Spec {
        Spec {
            name,
            kind: Kind::Int {
                min: Some(min),
                max: Some(max),
            },
            default: Value::Int(default),
        }
    }
    pub const fn float(
        name: &'static str,
        default: f64,
        min: Option<f64>,
        max: Option<f64>,
    ) -> Spec {
        Spec {
            name,
            kind: Kind::Float { min, max },
            default: Value::Float(default),
        }
    }
    pub const fn bool(name: &'static str, default: bool) -> Spec {
        Spec {
            name,
            kind: Kind::Bool,
            default: Value::Bool(default),
        }
    }
    pub const fn choice(
        name: &'static str,
        default: usize,
        choices: &'static [&'static str],
    ) -> Spec {
        Spec {
            name,
            kind: Kind::Choice(choices),
            default: Value::Choice(default),
        }
    }

    fn type_name(&self) -> String {
        match self.kind {
            Kind::Choice(c) => c.join("|"),
            Kind::Bool => "true|false".into(),
            Kind::Int { .. } => "an integer".into(),
            Kind::Float { .. } => "a finite number".into(),
        }
    }

    /// The value as this parameter's type, checked (the Python `Param.convert`).
    pub fn convert(&self, value: &Json) -> Result<Value, String> {
        let bad = || {
            format!(
                "parameter {} must be {}, not {}",
                self.name,
                self.type_name(),
                value.repr()
            )
        };
        let v = match self.kind {
            Kind::Bool => match value {
                Json::Bool(b) => Value::Bool(*b),
                Json::Str(s) => Value::Bool(parse_bool(s).ok_or_else(bad)?),
                Json::Int(i) => Value::Bool(parse_bool(&i.to_string()).ok_or_else(bad)?),
                _ => return Err(bad()),
            },
            Kind::Int { .. } => match value {
                Json::Int(i) => Value::Int(i64::try_from(*i).map_err(|_| bad())?),
                Json::Float(f) if f.is_finite() && f.fract() == 0.0 => Value::Int(*f as i64),
                Json::Str(s) => Value::Int(int_text(s).ok_or_else(bad)?),
                _ => return Err(bad()),
            },
            Kind::Float { .. } => {
                let f = match value {
                    Json::Int(i) => *i as f64,
                    Json::Float(f) => *f,
                    Json::Str(s) => s.trim().parse::<f64>().map_err(|_| bad())?,
                    _ => return Err(bad()),
                };
                if !f.is_finite() {
                    return Err(bad());
                }
                Value::Float(f)
            }
            Kind::Choice(choices) => {
                let text = match value {
                    Json::Str(s) => s.clone(),
                    other => other.repr(),
                };
                match choices.iter().position(|c| *c == text) {
                    Some(i) => Value::Choice(i),
                    None => {
                        return Err(format!(
                            "parameter {} cannot be {} (valid: {})",
                            self.name,
                            Json::Str(text).repr(),
                            choices.join(", ")
                        ))
                    }
                }
            }
        };
        let (min, max) = match self.kind {
            Kind::Int { min, max } => (min.map(|m| m as f64), max.map(|m| m as f64)),
            Kind::Float { min, max } => (min, max),
            _ => (None, None),
        };
        let x = v.as_float();
        if let Some(m) = min {
            if x < m {
                return Err(format!(
                    "parameter {} must be at least {}",
                    self.name,
                    number(m)
                ));
            }
        }
        if let Some(m) = max {
            if x > m {
                return Err(format!(
                    "parameter {} must be at most {}",
                    self.name,
                    number(m)
                ));
            }
        }
        Ok(v)
    }
}

/// A bound as a person writes it: 1000, not 1000.0.
fn number(x: f64) -> String {
    if x.fract() == 0.0 {
        format!("{}", x as i64)
    } else {
        format!("{x}")
    }
}

/// `int(text)` of Python for a plain decimal text.
fn int_text(text: &str) -> Option<i64> {
    let t = text.trim().replace('_', "");
    let digits = t.strip_prefix(['+', '-']).unwrap_or(&t);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    t.parse().ok()
}

/// Every declared parameter's value (defaults filled in), in declaration order; the
/// sentence of the first bad one otherwise.  `bot` names the bot as its Python class does.
pub fn check(bot: &str, specs: &[Spec], given: &[(String, Json)]) -> Result<Vec<Value>, String> {
    for (name, _) in given {
        if !specs.iter().any(|s| s.name == name) {
            let valid: Vec<&str> = specs.iter().map(|s| s.name).collect();
            let valid = if valid.is_empty() {
                "none".to_string()
            } else {
                valid.join(", ")
            };
            return Err(format!(
                "{bot} has no parameter {} (its parameters: {valid})",
                Json::Str(name.clone()).repr()
            ));
        }
    }
    specs
        .iter()
        .map(|s| match given.iter().rev().find(|(n, _)| n == s.name) {
            Some((_, v)) => s.convert(v),
            None => Ok(s.default),
        })
        .collect()
}
