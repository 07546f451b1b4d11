//! Games played in the core for training and judging the learned value (issue 51): the
//! features of the positions met, each with how the game ended for the seat they describe.
//!
//! Why in the core: a value needs hundreds of thousands of positions, and a game between
//! native bots with no Python in the loop costs what its bots think and nothing else.
//! Everything is drawn from the seed: the same seed gives the same rows.

use std::sync::Arc;

use crate::actions::Action;
use crate::rng::PyRandom;
use crate::seeds::derive_seed;
use crate::state::{Legal, State};
use crate::view::View;

use super::elite::{Elite, Estimates, Settings};
use super::features::{features, is_afterstate, FEATURES};
use super::heuristics::{card_points, Cache};
use super::learned::{Learned, Mlp};
use super::registry::Value;
use super::seated::Seated;
use super::{entry, make_bot, Bot};

/// A seat's bot: a native bot by name with its defaults, `learned` on given weights, or
/// `elite` on given weights with its settings (expert iteration, issue 51: the search plays
/// the games that train the next value).
#[derive(Clone)]
pub enum Player {
    Named(String),
    Learned(Arc<Mlp>, u32),
    Elite(Arc<Mlp>, Settings),
}

impl Player {
    /// The seat's bot; an `elite` records its estimates into `record` when given.
    fn make(&self, rng: PyRandom, record: Option<&Estimates>) -> Result<Box<dyn Bot>, String> {
        match self {
            Player::Named(name) => make_bot(name, &[], rng, false),
            Player::Learned(net, samples) => {
                Ok(Seated::boxed(Learned::new(*samples, net.clone()), rng))
            }
            Player::Elite(net, settings) => {
                let mut elite = Elite::new(*settings, net.clone());
                elite.record = record.cloned();
                Ok(Seated::boxed(elite, rng))
            }
        }
    }

    /// `elite` on `net` from a spec's parameters (`budget=0.25,candidates=4`, as the arena
    /// takes them: checked and defaulted by the registry), so that a self-play seat thinks
    /// exactly as `elite` with those parameters would, on other weights.
    pub fn elite(params: &str, net: Arc<Mlp>) -> Result<Player, String> {
        let mut given = Vec::new();
        for p in params.split(',').filter(|p| !p.is_empty()) {
            let (k, v) = p
                .split_once('=')
                .ok_or_else(|| format!("a parameter is key=value, not {p:?}"))?;
            given.push((k.trim().to_string(), Value::Text(v.trim().to_string())));
        }
        let e = entry("elite", false).ok_or("no native bot elite")?;
        Ok(Player::Elite(net, Settings::from_params(&e.check(&given)?)))
    }

    /// A lineup as the training script names it: a native bot by name; `learned` (with
    /// `samples`), or `elite` with its parameters as the arena takes them
    /// (`elite:budget=0.25`), on the weights text at the same place of `weights` (None:
    /// the built-in).
    pub fn lineup(
        names: &[String],
        weights: &[Option<String>],
        samples: u32,
    ) -> Result<Vec<Player>, String> {
        let mut bots = Vec::with_capacity(names.len());
        for (i, name) in names.iter().enumerate() {
            let (bot, params) = name.split_once(':').unwrap_or((name, ""));
            let net = || -> Result<Arc<Mlp>, String> {
                Ok(match weights.get(i).cloned().flatten() {
                    Some(text) => Arc::new(Mlp::from_json(&text)?),
                    None => super::learned::builtin(),
                })
            };
            bots.push(match bot {
                "learned" if params.is_empty() => Player::Learned(net()?, samples.max(1)),
                "elite" => Player::elite(params, net()?)?,
                _ if params.is_empty() => Player::Named(name.clone()),
                _ => {
                    return Err(format!(
                        "only elite takes parameters in a self-play lineup, not {name:?}"
                    ))
                }
            });
        }
        Ok(bots)
    }
}

/// What to play.
#[derive(Clone)]
pub struct Plan {
    pub seed: u64,
    pub games: u32,
    pub players: u8,
    /// The bots to draw from.  Paired (2 players): game 2k seats them in order on deal k,
    /// game 2k+1 swapped on the same deal.  Otherwise each seat draws one.
    pub lineup: Vec<Player>,
    pub paired: bool,
    /// The chance that a decision is a uniformly random legal action (for diversity).
    pub explore: f64,
    /// The chance that a decision's position is kept as rows (one per seat).
    pub keep: f64,
    /// Keep instead, at a kept decision, the position the decision led to, for the seat
    /// that made it (when its step is done and the game goes on): the afterstates that
    /// `learned` compares, along each seat's own game, for TD targets.
    pub afterstates: bool,
    /// Record, at every decision an `elite` seat searches, each candidate's afterstate with
    /// the search's mean value of it (`Rows::estimates`): search-distilled targets.  The
    /// games and the other rows are the same with it or without.
    pub distill: bool,
}

/// The estimates of the searches (`Plan::distill`), one row per candidate searched.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EstimateRows {
    /// `FEATURES` values per row: the candidate's afterstate, for the deciding seat.
    pub features: Vec<f32>,
    pub game: Vec<u32>,
    pub seat: Vec<u8>,
    /// The decision of the game (counted from 0) that was searched.
    pub ply: Vec<u32>,
    /// The search's mean value of the candidate (a chance of winning, in [0, 1]).
    pub mean: Vec<f32>,
    /// The sampled states the mean is over.
    pub samples: Vec<u32>,
}

/// The rows and the results.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Rows {
    /// `FEATURES` values per row.
    pub features: Vec<f32>,
    pub game: Vec<u32>,
    pub seat: Vec<u8>,
    /// The decision of the game (counted from 0) at which the row was kept.
    pub ply: Vec<u32>,
    /// 1 won, 0 lost, 1/k a win shared by k.
    pub outcome: Vec<f32>,
    /// The seat's final points less the best of the others'.
    pub margin: Vec<f32>,
    /// Per game: which lineup entry sat at each seat, and each seat's outcome.
    pub lineups: Vec<Vec<u8>>,
    pub outcomes: Vec<Vec<f32>>,
    /// With `Plan::distill`: the searches' estimates.
    pub estimates: EstimateRows,
}

/// Plays the plan's games; `progress` is told after each game (games done).
pub fn play(plan: &Plan, mut progress: impl FnMut(u32)) -> Result<Rows, String> {
    let n = plan.lineup.len();
    if n == 0 || !(2..=4).contains(&plan.players) {
        return Err("a plan needs bots and 2 to 4 players".into());
    }
    if plan.paired && (n != 2 || plan.players != 2) {
        return Err("a paired plan is two bots in 2-player games".into());
    }
    let mut rows = Rows::default();
    let mut scratch = Scratch {
        cache: Cache::new(),
        x: [0.0f32; FEATURES],
        legal: Legal::new(),
    };
    for g in 0..plan.games {
        play_game(plan, g, &mut rows, &mut scratch)?;
        progress(g + 1);
    }
    Ok(rows)
}

/// What every game reuses.
struct Scratch {
    cache: Cache,
    x: [f32; FEATURES],
    legal: Legal,
}

/// A game set up: its state, its seats' bots, which lineup entry sits at each seat, and the
/// game's own generator (keeping and exploring).
type Game = (
    State,
    Vec<Box<dyn Bot>>,
    Vec<u8>,
    PyRandom,
    Option<Estimates>,
);

/// One game of the plan: its deal, its seats and their bots, drawn from the seed.
fn setup(plan: &Plan, g: u32) -> Result<Game, String> {
    let seed = plan.seed.to_string();
    let game = g.to_string();
    let deal_key = if plan.paired {
        (g / 2).to_string()
    } else {
        game.clone()
    };
    let deal = derive_seed(&["selfplay-deal", &seed, &deal_key]);
    let mut rng = PyRandom::new(derive_seed(&["selfplay", &seed, &game]) as i128);
    let n = plan.lineup.len() as u64;
    let seats: Vec<u8> = (0..plan.players)
        .map(|s| {
            if plan.paired {
                (s as u32 + g) as u8 % 2
            } else {
                rng.randbelow(n) as u8
            }
        })
        .collect();
    let record: Option<Estimates> = plan.distill.then(Estimates::default);
    let mut bots = Vec::with_capacity(seats.len());
    for (s, &p) in seats.iter().enumerate() {
        let key = derive_seed(&["selfplay-bot", &seed, &game, &s.to_string()]);
        bots.push(plan.lineup[p as usize].make(PyRandom::new(key as i128), record.as_ref())?);
    }
    let state = State::new(
        plan.players as usize,
        deal as i128,
        Arc::default(),
        &[],
        true,
        Arc::default(),
    )
    .map_err(|e| e.to_string())?;
    Ok((state, bots, seats, rng, record))
}

/// Moves what an `elite` recorded at decision `ply` of game `g` into `rows`.
fn drain(record: &Option<Estimates>, g: u32, seat: u8, ply: u32, rows: &mut EstimateRows) {
    let Some(record) = record else { return };
    for e in record.lock().expect("the estimates").drain(..) {
        rows.features.extend_from_slice(&e.features);
        rows.game.push(g);
        rows.seat.push(seat);
        rows.ply.push(ply);
        rows.mean.push(e.mean as f32);
        rows.samples.push(e.samples);
    }
}

/// Plays game `g` to its end, its rows (in the order met) and result added to `rows`.
fn play_game(plan: &Plan, g: u32, rows: &mut Rows, s: &mut Scratch) -> Result<(), String> {
    let (mut state, mut bots, seats, mut rng, record) = setup(plan, g)?;
    let points = card_points(&state.b);
    let options = state.b.options.clone();
    for (i, bot) in bots.iter_mut().enumerate() {
        bot.start(i as u8, plan.players, &options);
    }
    crate::referee::tell(&mut bots, &state, 0);
    let mut seen = history_len(&state);
    let first = rows.game.len();
    let mut ply = 0u32;
    let row = |state: &State, seat: u8, ply: u32, s: &mut Scratch, rows: &mut Rows| {
        features(state, seat, &mut s.cache, &points, &mut s.x);
        rows.features.extend_from_slice(&s.x);
        rows.game.push(g);
        rows.seat.push(seat);
        rows.ply.push(ply);
    };
    while !state.is_terminal() {
        let seat = state.b.current;
        state.legal_into(&mut s.legal);
        let kept = rng.random() < plan.keep;
        if kept && !plan.afterstates {
            for other in 0..plan.players {
                row(&state, other, ply, s, rows);
            }
        }
        let action: Action = if s.legal.len() > 1 && rng.random() < plan.explore {
            s.legal[rng.randbelow(s.legal.len() as u64) as usize]
        } else {
            let view = View::of(&state, seat as i64).map_err(|e| e.to_string())?;
            let action = bots[seat as usize].choose(&view, &s.legal);
            drain(&record, g, seat, ply, &mut rows.estimates);
            action
        };
        state.apply(action).map_err(|e| e.to_string())?;
        if kept && plan.afterstates && is_afterstate(&state, seat) {
            row(&state, seat, ply, s, rows);
        }
        crate::referee::tell(&mut bots, &state, seen);
        seen = history_len(&state);
        ply += 1;
    }
    finish(&state, first, seats, rows);
    Ok(())
}

/// The game's outcome for each seat, given to its rows (from `first` on) and recorded.
fn finish(state: &State, first: usize, seats: Vec<u8>, rows: &mut Rows) {
    let players = seats.len();
    let result = state.result(&[]);
    let share = 1.0 / result.winners.len().max(1) as f32;
    let outcome: Vec<f32> = (0..players as u8)
        .map(|s| {
            if result.winners.contains(&s) {
                share
            } else {
                0.0
            }
        })
        .collect();
    for i in first..rows.game.len() {
        let s = rows.seat[i] as usize;
        let best_other = (0..players)
            .filter(|&o| o != s)
            .map(|o| result.scores[o])
            .max()
            .unwrap_or(0);
        rows.outcome.push(outcome[s]);
        rows.margin.push((result.scores[s] - best_other) as f32);
    }
    rows.lineups.push(seats);
    rows.outcomes.push(outcome);
}

fn history_len(state: &State) -> usize {
    state.history.0.as_ref().map_or(0, Vec::len)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(seed: u64) -> Plan {
        Plan {
            seed,
            games: 2,
            players: 2,
            lineup: vec![
                Player::Named("greedy".into()),
                Player::Named("random".into()),
            ],
            paired: true,
            explore: 0.05,
            keep: 0.3,
            afterstates: false,
            distill: false,
        }
    }

    #[test]
    fn the_same_seed_gives_the_same_rows() {
        let a = play(&plan(3), |_| {}).unwrap();
        let b = play(&plan(3), |_| {}).unwrap();
        assert_eq!(a, b);
        assert!(!a.game.is_empty());
        assert_eq!(a.features.len(), a.game.len() * FEATURES);
        assert_eq!(a.outcome.len(), a.game.len());
        assert_eq!(a.lineups, vec![vec![0, 1], vec![1, 0]]);
        let c = play(&plan(4), |_| {}).unwrap();
        assert_ne!(a.features, c.features);
    }

    #[test]
    fn the_learned_bot_plays_whole_games_on_given_weights() {
        let mut p = plan(6);
        p.lineup[1] = Player::Learned(super::super::learned::builtin(), 1);
        p.keep = 0.0;
        let rows = play(&p, |_| {}).unwrap();
        assert!(rows.game.is_empty());
        assert_eq!(rows.outcomes.len(), 2);
    }

    #[test]
    fn afterstate_rows_follow_each_seats_own_decisions_in_order() {
        let mut p = plan(8);
        p.afterstates = true;
        p.keep = 1.0;
        let rows = play(&p, |_| {}).unwrap();
        assert_eq!(rows, play(&p, |_| {}).unwrap());
        let mut states = p.clone();
        states.afterstates = false;
        let before = play(&states, |_| {}).unwrap();
        // One row per kept decision at most (states: one per seat and decision).
        assert!(rows.game.len() * 2 <= before.game.len() && rows.game.len() > 20);
        for g in 0..2 {
            let plies: Vec<u32> = (0..rows.game.len())
                .filter(|&i| rows.game[i] == g)
                .map(|i| rows.ply[i])
                .collect();
            assert!(plies.windows(2).all(|w| w[0] < w[1]), "{plies:?}");
        }
        assert!(rows.seat.contains(&0) && rows.seat.contains(&1));
        assert_eq!(rows.ply.len(), rows.game.len());
    }

    #[test]
    fn elite_plays_whole_games_on_given_weights_with_its_parameters() {
        let net = super::super::learned::builtin();
        let Player::Elite(_, settings) = Player::elite("budget=0.25", net.clone()).unwrap() else {
            panic!("an elite seat")
        };
        assert_eq!((settings.samples, settings.candidates), (1, 4));
        assert!(Player::elite("budget=x", net.clone()).is_err());
        assert!(Player::elite("depth=2", net.clone()).is_err());
        let mut p = plan(7);
        p.lineup[0] = Player::elite("budget=0.25", net).unwrap();
        p.afterstates = true;
        p.keep = 1.0;
        let rows = play(&p, |_| {}).unwrap();
        assert_eq!(rows, play(&p, |_| {}).unwrap());
        assert_eq!(rows.outcomes.len(), 2);
        assert!(rows.seat.contains(&0) && rows.seat.contains(&1));
    }

    #[test]
    fn distilling_records_the_searches_and_changes_nothing_else() {
        let net = super::super::learned::builtin();
        let mut p = plan(9);
        p.lineup[0] = Player::elite("budget=0.25", net).unwrap();
        p.afterstates = true;
        p.keep = 1.0;
        let plain = play(&p, |_| {}).unwrap();
        p.distill = true;
        let mut rows = play(&p, |_| {}).unwrap();
        let e = std::mem::take(&mut rows.estimates);
        assert_eq!(rows, plain);
        assert!(plain.estimates.game.is_empty());
        let n = e.game.len();
        assert!(n > 20, "{n} estimates");
        assert_eq!(e.features.len(), n * FEATURES);
        assert_eq!(
            (e.seat.len(), e.ply.len(), e.mean.len(), e.samples.len()),
            (n, n, n, n)
        );
        assert!(e.mean.iter().all(|m| (0.0..=1.0).contains(m)));
        assert!(e.samples.iter().all(|&k| k == 1));
        // Only the elite seat searches: seat 0 in game 0, seat 1 in game 1 (paired).
        for i in 0..n {
            assert_eq!(e.seat[i] as u32, e.game[i]);
        }
    }

    #[test]
    fn outcomes_share_one_win_per_game() {
        let rows = play(&plan(5), |_| {}).unwrap();
        for o in &rows.outcomes {
            let total: f32 = o.iter().sum();
            assert!((total - 1.0).abs() < 1e-6 || total == 0.0, "{o:?}");
        }
    }
}
