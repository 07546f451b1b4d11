//! The engine's refusals as data: a kind (the Python exception class the binding raises:
//! the reference's `arena.engine.errors`), the field at fault, a phrase, and the offending
//! value itself, as shakmaty's `PositionErrorKinds` are data rather than text.
//!
//! The sentence is made once, in Python (`arena.engine.errors.refusal`), which quotes the
//! value as the reference does (`repr`), so the core never imitates Python's `repr`; the
//! `Display` here is for Rust-only readers (cargo test, examples) and quotes it as JSON.

use std::fmt;

use crate::json::Json;

/// Which exception a refusal is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// `OptionError`: an unknown rule option, or a value it does not take.
    Option,
    /// `NotationError`: action or event text that does not follow the notation.
    Notation,
    /// `IllegalActionError`: a well-formed action that is not legal now.
    IllegalAction,
    /// `PositionError`: a position that is malformed or does not add up.
    Position,
    /// `ValueError`: a bad argument of a call (a seat out of range, a player count).
    Value,
    /// `PlacementError`: a card placement (an experiment's intervention) that cannot be made.
    Placement,
    /// `IndexError`: a seat or card index out of range.
    Index,
}

impl ErrorKind {
    /// The name of the Python exception it is, which the binding hands over with the rest
    /// (`arena.engine.errors.KINDS`).
    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::Option => "OptionError",
            ErrorKind::Notation => "NotationError",
            ErrorKind::IllegalAction => "IllegalActionError",
            ErrorKind::Position => "PositionError",
            ErrorKind::Value => "ValueError",
            ErrorKind::Placement => "PlacementError",
            ErrorKind::Index => "IndexError",
        }
    }
}

/// A refusal.
#[derive(Clone, Debug, PartialEq)]
pub struct Error {
    pub kind: ErrorKind,
    /// The field of the input at fault (`tiles[3].bamboo`); empty when none is.
    pub field: String,
    /// What is wrong, a phrase; `{value}` in it stands for `value`, quoted by the reader.
    pub message: String,
    /// The offending value, when the phrase quotes it.
    pub value: Option<Json>,
}

/// Where a phrase quotes the offending value (as Python's `repr` writes it).
pub const VALUE: &str = "{value}";
/// Where a phrase quotes the offending value as JSON (`json.dumps`, `repr` if it is none).
pub const JSON_VALUE: &str = "{json}";

impl Error {
    fn new(kind: ErrorKind, message: String) -> Error {
        Error {
            kind,
            field: String::new(),
            message,
            value: None,
        }
    }
    /// The same refusal, naming the field at fault.
    pub fn at(mut self, field: impl Into<String>) -> Error {
        self.field = field.into();
        self
    }
    /// The same refusal, its phrase quoting `value` where it says `{value}`.
    pub fn quoting(mut self, value: Json) -> Error {
        self.value = Some(value);
        self
    }
    pub fn option(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::Option, message.into())
    }
    pub fn notation(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::Notation, message.into())
    }
    pub fn illegal(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::IllegalAction, message.into())
    }
    pub fn position(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::Position, message.into())
    }
    pub fn value(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::Value, message.into())
    }
    pub fn index(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::Index, message.into())
    }
    pub fn placement(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::Placement, message.into())
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.field.is_empty() {
            write!(f, "{}: ", self.field)?;
        }
        match &self.value {
            Some(v) => {
                let quoted = match v {
                    Json::Foreign(i) => format!("<the caller's value {i}>"),
                    v => v.dump_unicode(),
                };
                let at = if self.message.contains(JSON_VALUE) {
                    JSON_VALUE
                } else {
                    VALUE
                };
                f.write_str(&self.message.replacen(at, &quoted, 1))
            }
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for Error {}
