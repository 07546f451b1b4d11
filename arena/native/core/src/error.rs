//! The engine's refusals: one sentence for the person at the terminal, and its kind (the
//! Python exception class the binding raises: the reference's `arena.engine.errors`).

use std::fmt;

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

/// A refusal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    pub kind: ErrorKind,
    pub message: String,
}

impl Error {
    pub fn option(message: impl Into<String>) -> Error {
        Error {
            kind: ErrorKind::Option,
            message: message.into(),
        }
    }
    pub fn notation(message: impl Into<String>) -> Error {
        Error {
            kind: ErrorKind::Notation,
            message: message.into(),
        }
    }
    pub fn illegal(message: impl Into<String>) -> Error {
        Error {
            kind: ErrorKind::IllegalAction,
            message: message.into(),
        }
    }
    pub fn position(message: impl Into<String>) -> Error {
        Error {
            kind: ErrorKind::Position,
            message: message.into(),
        }
    }
    pub fn value(message: impl Into<String>) -> Error {
        Error {
            kind: ErrorKind::Value,
            message: message.into(),
        }
    }
    pub fn index(message: impl Into<String>) -> Error {
        Error {
            kind: ErrorKind::Index,
            message: message.into(),
        }
    }
    pub fn placement(message: impl Into<String>) -> Error {
        Error {
            kind: ErrorKind::Placement,
            message: message.into(),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}
