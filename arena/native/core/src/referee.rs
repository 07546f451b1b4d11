//! The referee: one game between seats, the loop of the reference's `arena/play/match.py`
//! (`play_game`), and its record: [`record_of`] is the one writer of record bytes (orjson's
//! compact JSON, as the runner writes a line), for the core's games and, through the
//! binding's `record_line` (`arena/runs/records.py`, `make_record`), the Python loop's.
//!
//! The referee treats seats as untrusted: each is asked for a decision with the legal list,
//! timed, and a fault (a crash, an action that is not legal, a decision past the move time)
//! ends the game, the faulty seat unable to win, the others scored as the game stood.  A
//! native bot cannot be pre-empted, so its move time is checked when it returns, as the
//! reference checks a bot that returns before its alarm.  Who the seats are is the caller's
//! ([`Seats`]): native bots ([`NativeSeats`]), or the binding's mix of native bots and
//! Python bots called back.

use std::fmt::Write;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;
use std::time::Instant;

use crate::actions::{self, Action, COMPLETE, KIND_MASK};
use crate::bots::Bot;
use crate::components::{CardSet, FACES};
use crate::error::Error;
use crate::history::Entry;
use crate::json::{orjson_float, str_repr, write_orjson_str};
use crate::options::RuleOptions;
use crate::placement::Placement;
use crate::state::{GameResult, Legal, State, STEP_NAMES};
use crate::view::View;

/// What a seat answered when asked for a decision.
#[derive(Clone, Debug, PartialEq)]
pub enum Decision {
    /// An action (the referee checks that it is legal).
    Action(Action),
    /// Something that is no action at all, as the error message names it (`returned ...`).
    Returned(String),
    /// A fault of the seat: its kind (`crash`, `timeout`, `illegal`, `abandoned`) and message.
    Fault(String, String),
    /// The caller stops the game (an error outside the seats' faults: the caller has it).
    Stop,
}

/// The seats of a game, as the referee asks them.
pub trait Seats {
    /// A new game; `Err((kind, message))` is the seat's fault, `Err(None)`-like stops are
    /// `Decision::Stop`.
    fn start(&mut self, seat: u8, players: u8, options: &Arc<RuleOptions>) -> Decision;
    /// A decision of `seat` at `state` (its turn), and the seconds it took: the seat's own
    /// clock, started once its view is made.
    fn choose(&mut self, seat: u8, state: &State, legal: &[Action]) -> (Decision, f64);
    /// The entries `from..` of the history happened (the state is past them); false stops
    /// the game.
    fn publish(&mut self, state: &State, from: usize) -> bool;
    /// The game ended without a fault.
    fn finish(&mut self, state: &State);
}

/// Native bots in every seat.
pub struct NativeSeats {
    pub bots: Vec<Box<dyn Bot>>,
    /// The view of the last decision, made again in place for the next.
    view: Option<View>,
}

impl NativeSeats {
    pub fn new(bots: Vec<Box<dyn Bot>>) -> NativeSeats {
        NativeSeats { bots, view: None }
    }
}

impl Seats for NativeSeats {
    fn start(&mut self, seat: u8, players: u8, options: &Arc<RuleOptions>) -> Decision {
        self.bots[seat as usize].start(seat, players, options);
        Decision::Action(0)
    }

    fn choose(&mut self, seat: u8, state: &State, legal: &[Action]) -> (Decision, f64) {
        let bot = self.bots[seat as usize].as_mut();
        native_choice(bot, &mut self.view, (seat, state, legal), || true)
    }

    fn publish(&mut self, state: &State, from: usize) -> bool {
        tell(&mut self.bots, state, from);
        true
    }

    fn finish(&mut self, _state: &State) {}
}

/// A native bot's decision: its view first (made again in `view`'s lists; left as it was
/// for a bot that does not read it), then the caller's hook (`before`; false stops the
/// game: the Python referee's `on_decision` raised), then the clock around `choose`.
pub fn native_choice(
    bot: &mut dyn Bot,
    view: &mut Option<View>,
    (seat, state, legal): (u8, &State, &[Action]),
    before: impl FnOnce() -> bool,
) -> (Decision, f64) {
    let view = match view {
        Some(v) if !bot.reads_view() => v,
        _ => seat_view(view, state, seat),
    };
    if !before() {
        return (Decision::Stop, 0.0);
    }
    let start = Instant::now();
    let action = bot.choose(view, legal);
    (Decision::Action(action), start.elapsed().as_secs_f64())
}

/// The view of `seat` on `state`, made in `view`'s lists when it has some.
pub fn seat_view<'a>(view: &'a mut Option<View>, state: &State, seat: u8) -> &'a View {
    match view {
        Some(v) => {
            v.refresh(state, seat);
            v
        }
        None => view.insert(View::of(state, seat as i64).expect("a seat of the game")),
    }
}

/// Tells native bots the new entries of the history.
pub fn tell<'a>(bots: impl IntoIterator<Item = &'a mut Box<dyn Bot>>, state: &State, from: usize) {
    if let Some(history) = &state.history.0 {
        for bot in bots {
            for entry in &history[from..] {
                bot.observe(entry);
            }
        }
    }
}

/// The game to play: what `new_game` takes, and the move time.
#[derive(Clone)]
pub struct Setup {
    pub players: u8,
    pub seed: i128,
    pub options: Arc<RuleOptions>,
    pub cards: Arc<CardSet>,
    pub dice: Vec<u8>,
    /// The hard limit per decision in seconds, and its text as messages write it (Python's
    /// `f"{move_time:g}"`, given by the caller).
    pub move_time: Option<(f64, String)>,
    /// An experiment's intervention: cards placed in the deal, in order, before the bots
    /// are told of it (`crate::placement`); the record keeps them.
    pub placements: Vec<Placement>,
}

impl Setup {
    /// The game dealt from the seed, the intervention's cards placed (refused with the
    /// engine's sentence when the setup or a placement cannot be).
    pub fn deal(&self) -> Result<State, Error> {
        let mut state = State::new(
            self.players as usize,
            self.seed,
            self.options.clone(),
            &self.dice,
            true,
            self.cards.clone(),
        )?;
        for &p in &self.placements {
            state.make_placement(p)?;
        }
        Ok(state)
    }
}

/// A fault that ended a game.
#[derive(Clone, Debug, PartialEq)]
pub struct Fault {
    pub seat: u8,
    pub kind: String,
    pub message: String,
}

/// What the referee knows of a game as it goes: the decisions applied and the time spent,
/// kept outside the loop so that a caller can rebuild the game if the loop panics.
#[derive(Clone, Debug, Default)]
pub struct Progress {
    pub actions: Vec<Action>,
    pub seconds: Vec<f64>,
}

/// A game played (or stopped by the caller).
pub struct Played {
    pub state: State,
    pub seconds: Vec<f64>,
    pub error: Option<Fault>,
    /// The caller stopped it (`Decision::Stop`, or `publish` returned false).
    pub stopped: bool,
}

/// An action as an error message names it: its notation when it reads back as itself,
/// else its number (the reference's `returned_text` for an int); a card is one of the
/// game's set (an added card by its id).
pub fn returned_text(action: Action, cards: &CardSet) -> String {
    if let Some(text) = actions::try_text_in(action as u64, cards) {
        if actions::parse_in(&text, cards) == Ok(action) {
            return str_repr(&text);
        }
    }
    action.to_string()
}

/// How a game stops before its end: a seat's fault, or a callback that asked to stop.
enum Ended {
    Fault(Fault),
    Stop,
}

fn fault(seat: u8, kind: &str, message: String) -> Ended {
    Ended::Fault(Fault {
        seat,
        kind: kind.into(),
        message,
    })
}

/// Every seat told the game starts, in seat order; the first fault or stop ends it.
fn start_all(seats: &mut dyn Seats, players: u8, options: &Arc<RuleOptions>) -> Option<Ended> {
    for seat in 0..players {
        match seats.start(seat, players, options) {
            Decision::Fault(kind, message) => return Some(fault(seat, &kind, message)),
            Decision::Stop => return Some(Ended::Stop),
            _ => {}
        }
    }
    None
}

/// The legal action a seat's decision gave, or how the game ends there: its fault, a stop,
/// a decision past the move time (checked first), or what is not a legal action.
fn judged(
    setup: &Setup,
    state: &State,
    legal: &Legal,
    seat: u8,
    decision: Decision,
    elapsed: f64,
) -> Result<Action, Ended> {
    let returned = match decision {
        Decision::Fault(kind, message) => return Err(fault(seat, &kind, message)),
        Decision::Stop => return Err(Ended::Stop),
        Decision::Action(a) => Ok(a),
        Decision::Returned(text) => Err(text),
    };
    if let Some((limit, text)) = &setup.move_time {
        if elapsed > *limit {
            let message = format!("took {elapsed:.3} s, over the {text} s move time");
            return Err(fault(seat, "timeout", message));
        }
    }
    let text = match returned {
        Ok(action) if legal.contains(&action) => return Ok(action),
        Ok(action) => returned_text(action, &state.b.card_set),
        Err(text) => text,
    };
    let (round, step) = (state.b.round, STEP_NAMES[state.b.step as usize]);
    let message =
        format!("returned {text}, which is not a legal action at round {round}, step {step}");
    Err(fault(seat, "illegal", message))
}

/// Plays one game (the reference's `play_game`); `progress` is kept up to date as it goes.
pub fn play(
    setup: &Setup,
    seats: &mut dyn Seats,
    progress: &mut Progress,
) -> Result<Played, Error> {
    let players = setup.players;
    let mut state = setup.deal()?;
    progress.actions.clear();
    progress.seconds = vec![0.0; players as usize];
    let mut ended = start_all(seats, players, &setup.options);
    let mut seen = 0;
    if ended.is_none() {
        if !seats.publish(&state, 0) {
            ended = Some(Ended::Stop);
        }
        seen = history_len(&state);
    }
    let mut legal = Legal::new();
    while ended.is_none() && !state.is_terminal() {
        let seat = state.b.current;
        state.legal_into(&mut legal);
        let (decision, elapsed) = seats.choose(seat, &state, &legal);
        progress.seconds[seat as usize] += elapsed;
        match judged(setup, &state, &legal, seat, decision, elapsed) {
            Ok(action) => {
                if let Err(e) = state.apply(action) {
                    panic!("the engine refused a legal action: {e}");
                }
                progress.actions.push(action);
                if !seats.publish(&state, seen) {
                    ended = Some(Ended::Stop);
                }
                seen = history_len(&state);
            }
            Err(e) => ended = Some(e),
        }
    }
    if ended.is_none() {
        seats.finish(&state);
    }
    let (error, stopped) = match ended {
        None => (None, false),
        Some(Ended::Stop) => (None, true),
        Some(Ended::Fault(f)) => (Some(f), false),
    };
    Ok(Played {
        state,
        seconds: progress.seconds.clone(),
        error,
        stopped,
    })
}

fn history_len(state: &State) -> usize {
    state.history.0.as_ref().map_or(0, Vec::len)
}

/// The parts of a record the caller writes once per configuration, as orjson writes them:
/// `options` (the rule options that differ from the defaults) and `card_set` (its hash and
/// changes, `arena.engine.card_files.record_field`).
#[derive(Clone, Debug, Default)]
pub struct RecordParts {
    pub options: String,
    pub card_set: String,
}

const ACTION_NAMES: [&str; 5] = ["plot", "irrigation", "gardener", "panda", "objective"];

fn ids(out: &mut String, cards: &[u8], set: &CardSet) {
    out.push('[');
    for (i, &c) in cards.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_orjson_str(set.id(c), out);
    }
    out.push(']');
}

fn ints<T: std::fmt::Display>(out: &mut String, items: impl IntoIterator<Item = T>) {
    out.push('[');
    for (i, x) in items.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let _ = write!(out, "{x}");
    }
    out.push(']');
}

/// Seconds as the record keeps them (`round(s, 6)`).
fn rounded(s: f64) -> f64 {
    (s * 1e6).round() / 1e6
}

/// What a record is written from: a game's facts, whichever engine or loop played it (the
/// core's referee from its state, [`record`]; the Python loop from the reference's or the
/// core's state, through the binding's `record_line`).
pub struct Facts<'a> {
    /// The seed as JSON writes it (its digits: the Python loop takes seeds of any size).
    pub seed: &'a str,
    pub players: u8,
    pub cards: &'a CardSet,
    /// The result, the faulty seat excluded.
    pub result: &'a GameResult,
    pub history: &'a [Entry],
}

/// The record of a game from `"seed"` on (after the game id and the caller's meta fields,
/// which `head` holds: `{"game":"play"` or `{"game":"000-0001-0","pairing":0,...`), as one
/// line of orjson's compact JSON.
pub fn record(
    head: &str,
    state: &State,
    names: &[String],
    seconds: &[f64],
    error: Option<&Fault>,
    parts: &RecordParts,
    intervention: &[Placement],
) -> String {
    let excluded: Vec<u8> = error.map(|e| vec![e.seat]).unwrap_or_default();
    let facts = Facts {
        seed: &state.seed.to_string(),
        players: state.b.players,
        cards: &state.b.card_set,
        result: &state.result(&excluded),
        history: state.history.0.as_deref().unwrap_or(&[]),
    };
    record_of(head, &facts, names, seconds, error, parts, intervention)
}

/// The record of a game from its facts: the one writer of record bytes (see [`record`]).
pub fn record_of(
    head: &str,
    facts: &Facts<'_>,
    names: &[String],
    seconds: &[f64],
    error: Option<&Fault>,
    parts: &RecordParts,
    intervention: &[Placement],
) -> String {
    let set = facts.cards;
    let history = facts.history;
    let tally = Tally::of(history, facts.players as usize);
    let mut out = String::with_capacity(4096 + 24 * history.len());
    out.push_str(head);
    write_result(&mut out, facts, names, parts);
    tally.write(&mut out, set);
    out.push_str(",\"moves\":");
    list(&mut out, history, |out, entry| entry.write_json(out, set));
    out.push_str(",\"seconds\":");
    list(&mut out, seconds, |out, &s| {
        out.push_str(&orjson_float(rounded(s)))
    });
    out.push_str(",\"error\":");
    match error {
        Some(e) => {
            let _ = write!(out, "{{\"seat\":{},\"kind\":", e.seat);
            write_orjson_str(&e.kind, &mut out);
            out.push_str(",\"message\":");
            write_orjson_str(&e.message, &mut out);
            out.push('}');
        }
        None => out.push_str("null"),
    }
    if !intervention.is_empty() {
        out.push_str(",\"intervention\":");
        list(&mut out, intervention, |out, p| p.write_json(out, set));
    }
    out.push('}');
    out
}

/// `[a,b,...]`, each item written by `item`: the JSON list as orjson writes it (compact).
fn list<T>(out: &mut String, items: &[T], mut item: impl FnMut(&mut String, &T)) {
    out.push('[');
    for (i, x) in items.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        item(out, x);
    }
    out.push(']');
}

/// The record's fields from `"seed"` to `"completed"`: the game's setting and its result.
fn write_result(out: &mut String, facts: &Facts<'_>, names: &[String], parts: &RecordParts) {
    let (set, result) = (facts.cards, facts.result);
    let _ = write!(
        out,
        ",\"seed\":{},\"players\":{}",
        facts.seed, facts.players
    );
    let _ = write!(out, ",\"options\":{}", parts.options);
    let _ = write!(out, ",\"card_set\":{}", parts.card_set);
    out.push_str(",\"seats\":");
    list(out, names, |out, name| write_orjson_str(name, out));
    out.push_str(",\"scores\":");
    ints(out, &result.scores);
    out.push_str(",\"panda_points\":");
    ints(out, &result.panda_points);
    out.push_str(",\"winners\":");
    ints(out, &result.winners);
    let _ = write!(out, ",\"tiebreak\":\"{}\",\"emperor\":", result.tiebreak);
    match result.emperor {
        Some(s) => {
            let _ = write!(out, "{s}");
        }
        None => out.push_str("null"),
    }
    let _ = write!(
        out,
        ",\"capped\":{},\"rounds\":{},\"completed\":",
        result.capped, result.rounds
    );
    list(out, &result.completed, |out, done| ids(out, done, set));
}

/// An objective card drawn: by whom, in which round (0: dealt), and when completed.
struct Drawn {
    card: u8,
    seat: u8,
    round: u32,
    completed: Option<u32>,
}

/// What a record counts from a game's history: the cards drawn in order, each seat's turn
/// actions by kind, and the weather's faces.
struct Tally {
    players: usize,
    drawn: Vec<Drawn>,
    /// (seat, card) -> the latest draw of that card by that seat, in `drawn`.
    latest: Vec<(u8, u8, usize)>,
    counts: Vec<[u32; 5]>,
    weather: [u32; 6],
}

impl Tally {
    fn of(history: &[Entry], players: usize) -> Tally {
        let mut tally = Tally {
            players,
            drawn: Vec::with_capacity(16),
            latest: Vec::with_capacity(16),
            counts: vec![[0u32; 5]; players],
            weather: [0u32; 6],
        };
        let mut actor = 0u8;
        for entry in history {
            match *entry {
                Entry::Move {
                    seat,
                    action,
                    round,
                } => {
                    actor = seat;
                    tally.moved(seat, action, round);
                }
                Entry::Dealt { seat, hand, .. } => {
                    for card in hand {
                        tally.draw(seat, card, 0);
                    }
                }
                Entry::Drew { card, round } => tally.draw(actor, card, round),
                Entry::Rolled { face, .. } => tally.weather[face as usize] += 1,
                _ => {}
            }
        }
        tally
    }

    fn moved(&mut self, seat: u8, action: Action, round: u32) {
        let kind = action & KIND_MASK;
        let turn = actions::turn_action(kind);
        if turn >= 0 {
            self.counts[seat as usize][turn as usize] += 1;
        } else if kind == COMPLETE {
            let card = (action >> actions::B_SHIFT) as u8;
            if let Some(&(_, _, at)) = self
                .latest
                .iter()
                .find(|(s, c, _)| *s == seat && *c == card)
            {
                self.drawn[at].completed = Some(round);
            }
        }
    }

    fn draw(&mut self, seat: u8, card: u8, round: u32) {
        let at = self.drawn.len();
        self.drawn.push(Drawn {
            card,
            seat,
            round,
            completed: None,
        });
        match self
            .latest
            .iter_mut()
            .find(|(s, c, _)| *s == seat && *c == card)
        {
            Some(slot) => slot.2 = at,
            None => self.latest.push((seat, card, at)),
        }
    }

    /// The record's `"drawn"`, `"cards"`, `"actions"` and `"weather"` fields.
    fn write(&self, out: &mut String, set: &CardSet) {
        out.push_str(",\"drawn\":");
        let seats: Vec<usize> = (0..self.players).collect();
        list(out, &seats, |out, &seat| {
            let mine: Vec<u8> = self
                .drawn
                .iter()
                .filter(|d| d.seat as usize == seat)
                .map(|d| d.card)
                .collect();
            ids(out, &mine, set);
        });
        out.push_str(",\"cards\":");
        list(out, &self.drawn, |out, d| {
            out.push_str("{\"card\":");
            write_orjson_str(set.id(d.card), out);
            let _ = write!(
                out,
                ",\"seat\":{},\"drawn_round\":{},\"completed_round\":",
                d.seat, d.round
            );
            match d.completed {
                Some(r) => {
                    let _ = write!(out, "{r}}}");
                }
                None => out.push_str("null}"),
            }
        });
        out.push_str(",\"actions\":");
        list(out, &self.counts, |out, c| {
            out.push('{');
            for (k, name) in ACTION_NAMES.iter().enumerate() {
                let comma = if k > 0 { "," } else { "" };
                let _ = write!(out, "{comma}\"{name}\":{}", c[k]);
            }
            out.push('}');
        });
        out.push_str(",\"weather\":{");
        for (k, face) in FACES.iter().enumerate() {
            let comma = if k > 0 { "," } else { "" };
            let _ = write!(out, "{comma}\"{face}\":{}", self.weather[k]);
        }
        out.push('}');
    }
}

// ---------------------------------------------------------------------- a game concluded

/// What a panic carried, as text.
pub fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".into())
}

/// The game as it stood before the decision that panicked: replayed from its seed.
pub fn rebuild(setup: &Setup, actions: &[Action]) -> Option<State> {
    catch_unwind(|| {
        let mut st = setup.deal().ok()?;
        for &a in actions {
            st.apply(a).ok()?;
        }
        Some(st)
    })
    .ok()
    .flatten()
}

/// A concluded game: its final state, seconds per seat, the fault that ended it, the
/// engine's failure message (a panic's), and the record's line.
pub struct Concluded {
    pub state: State,
    pub seconds: Vec<f64>,
    pub fault: Option<Fault>,
    pub failure: Option<String>,
    pub line: String,
}

/// How the referee's loop ended, or its panic.
pub type Outcome = std::thread::Result<Result<Played, Error>>;

/// A game's record once its seats are done with it: or, when the loop panicked, the game
/// rebuilt and recorded as failed by the seat whose turn it was.
#[allow(clippy::too_many_arguments)]
pub fn conclude(
    outcome: Outcome,
    setup: &Setup,
    progress: &Progress,
    label: &str,
    head: &str,
    names: &[String],
    parts: &RecordParts,
) -> Result<Concluded, Failure> {
    let (state, seconds, fault, failure) = match outcome {
        Ok(Ok(p)) => (p.state, p.seconds, p.error, None),
        Ok(Err(e)) => return Err(Failure::Refused(e)),
        Err(payload) => {
            let what = panic_text(payload.as_ref());
            let Some(state) = rebuild(setup, &progress.actions) else {
                return Err(Failure::Panic(format!(
                    "the native engine failed (game {label}, seed {}, before its first \
                     decision): {what}; this is a bug of the engine, please report it",
                    setup.seed
                )));
            };
            let seat = state.b.current;
            let message = format!(
                "the native engine failed (game {label}, seed {}, round {}, seat {seat}): \
                 {what}; this is a bug of the engine, please report it",
                setup.seed, state.b.round
            );
            let mut seconds = progress.seconds.clone();
            seconds.resize(setup.players as usize, 0.0);
            let fault = Fault {
                seat,
                kind: "crash".into(),
                message: message.clone(),
            };
            (state, seconds, Some(fault), Some(message))
        }
    };
    let line = record(
        head,
        &state,
        names,
        &seconds,
        fault.as_ref(),
        parts,
        &setup.placements,
    );
    Ok(Concluded {
        state,
        seconds,
        fault,
        failure,
        line,
    })
}

/// Why a game has no record: the engine refused its setup, or panicked before it began.
pub enum Failure {
    Refused(Error),
    Panic(String),
}

/// One game of native seats alone, played and recorded (a batch's game).
pub fn play_natives(
    setup: &Setup,
    bots: Vec<Box<dyn Bot>>,
    label: &str,
    head: &str,
    names: &[String],
    parts: &RecordParts,
) -> Result<Concluded, Failure> {
    let mut seats = NativeSeats::new(bots);
    let mut progress = Progress::default();
    let outcome = play_caught(setup, &mut seats, &mut progress);
    conclude(outcome, setup, &progress, label, head, names, parts)
}

/// `play` with its panic caught, for `conclude` (which rebuilds the game from `progress`).
pub fn play_caught(setup: &Setup, seats: &mut impl Seats, progress: &mut Progress) -> Outcome {
    catch_unwind(AssertUnwindSafe(|| play(setup, seats, progress)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bots::{make_bot, Value};
    use crate::rng::PyRandom;
    use crate::seeds::bot_seed;

    fn setup(seed: i128) -> Setup {
        Setup {
            players: 2,
            seed,
            options: Arc::default(),
            cards: Arc::default(),
            dice: vec![],
            move_time: None,
            placements: vec![],
        }
    }

    fn randoms(seed: i128, complete: bool) -> NativeSeats {
        NativeSeats::new(
            (0..2)
                .map(|seat| {
                    let rng = PyRandom::new(bot_seed(seed, seat, "random") as i128);
                    make_bot(
                        "random",
                        &[("complete".into(), Value::Bool(complete))],
                        rng,
                        false,
                    )
                    .unwrap()
                })
                .collect(),
        )
    }

    #[test]
    fn games_end_with_a_record() {
        for seed in 0..20 {
            let mut progress = Progress::default();
            let played = play(
                &setup(seed),
                &mut randoms(seed, seed % 2 == 0),
                &mut progress,
            )
            .unwrap();
            assert!(played.state.is_terminal());
            assert!(played.error.is_none());
            let line = record(
                "{\"game\":\"play\"",
                &played.state,
                &["a".into(), "b".into()],
                &played.seconds,
                None,
                &RecordParts {
                    options: "{}".into(),
                    card_set: "{}".into(),
                },
                &[],
            );
            assert!(line.starts_with("{\"game\":\"play\",\"seed\":"));
            assert!(line.ends_with(",\"error\":null}"));
            let parsed = crate::json::parse(&line).unwrap();
            let moves = parsed.get("moves").and_then(Json::as_list).unwrap();
            assert_eq!(moves.len(), played.state.history_text().len());
        }
    }

    #[test]
    fn an_intervention_is_dealt_and_recorded() {
        let mut placed = setup(11);
        // gardener-13 (index 27) held by seat 1, panda-01 (30) the next panda card drawn.
        placed.placements = vec![
            Placement {
                card: 27,
                seat: Some(1),
                depth: None,
            },
            Placement {
                card: 30,
                seat: None,
                depth: Some(0),
            },
        ];
        let mut progress = Progress::default();
        let played = play(&placed, &mut randoms(11, true), &mut progress).unwrap();
        let line = record(
            "{\"game\":\"play\"",
            &played.state,
            &["a".into(), "b".into()],
            &played.seconds,
            None,
            &RecordParts {
                options: "{}".into(),
                card_set: "{}".into(),
            },
            &placed.placements,
        );
        assert!(line.ends_with(
            ",\"error\":null,\"intervention\":[{\"card\":\"gardener-13\",\"seat\":1},\
             {\"card\":\"panda-01\",\"depth\":0}]}"
        ));
        let parsed = crate::json::parse(&line).unwrap();
        let drawn = parsed.get("drawn").and_then(Json::as_list).unwrap();
        assert!(drawn[1]
            .as_list()
            .unwrap()
            .iter()
            .any(|c| c.as_str() == Some("gardener-13")));
        placed.placements[0].seat = Some(2);
        let refused = play(&placed, &mut randoms(11, true), &mut progress)
            .err()
            .unwrap();
        assert_eq!(
            refused.to_string(),
            "seat 2 is not a seat of this 2-player game"
        );
    }

    use crate::json::Json;

    /// A seat that answers what it is told to, to see the faults.
    struct Scripted(Decision, f64);

    impl Seats for Scripted {
        fn start(&mut self, _seat: u8, _players: u8, _options: &Arc<RuleOptions>) -> Decision {
            Decision::Action(0)
        }
        fn choose(&mut self, _seat: u8, _state: &State, _legal: &[Action]) -> (Decision, f64) {
            (self.0.clone(), self.1)
        }
        fn publish(&mut self, _state: &State, _from: usize) -> bool {
            true
        }
        fn finish(&mut self, _state: &State) {}
    }

    #[test]
    fn faults_end_the_game() {
        let mut timed = setup(3);
        timed.move_time = Some((0.5, "0.5".into()));
        let mut p = Progress::default();
        let played = play(
            &timed,
            &mut Scripted(Decision::Action(actions::END), 0.75),
            &mut p,
        )
        .unwrap();
        let e = played.error.unwrap();
        assert_eq!((e.seat, e.kind.as_str()), (0, "timeout"));
        assert_eq!(e.message, "took 0.750 s, over the 0.5 s move time");
        let played = play(
            &setup(3),
            &mut Scripted(Decision::Action(1 << 30), 0.0),
            &mut p,
        )
        .unwrap();
        let e = played.error.unwrap();
        assert_eq!(e.kind, "illegal");
        assert!(e
            .message
            .ends_with("which is not a legal action at round 1, step actions"));
        let played = play(
            &setup(3),
            &mut Scripted(Decision::Fault("crash".into(), "boom".into()), 0.0),
            &mut p,
        )
        .unwrap();
        assert_eq!(played.error.unwrap().message, "boom");
        let played = play(&setup(3), &mut Scripted(Decision::Stop, 0.0), &mut p).unwrap();
        assert!(played.stopped && played.error.is_none());
    }
}
