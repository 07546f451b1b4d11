//! The Takenoko rules engine of takenoko-arena: the same rules, notation, positions, views
//! and draws as the Python reference in `arena/engine`, for speed.
//!
//! Two implementations of one specification: the rule IDs, the notation and the decision
//! digests hold them together, and the differential test (`tests/engine/test_native.py`)
//! compares them step by step.
#![forbid(unsafe_code)]
// Loops over parallel per-seat and per-category arrays index them, as the reference does.
#![allow(clippy::needless_range_loop)]

pub mod actions;
pub mod batch;
pub mod bots;
pub mod components;
pub mod edits;
pub mod error;
pub mod facts;
pub mod grid;
pub mod history;
pub mod json;
pub mod options;
pub mod placement;
pub mod position;
pub mod probe;
pub mod referee;
pub mod rng;
pub mod seeds;
pub mod state;
pub mod view;

pub use actions::{Action, Kind};
pub use error::{Error, ErrorKind};
pub use state::{GameResult, State};
pub use view::View;
