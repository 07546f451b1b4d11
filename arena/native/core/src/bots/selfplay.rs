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

use super::features::{features, FEATURES};
use super::heuristics::{card_points, Cache};
use super::learned::{Learned, LearnedBot, Mlp};
use super::{make_bot, Bot};

/// A seat's bot: a native bot by name with its defaults, or `learned` on given weights.
#[derive(Clone)]
pub enum Player {
    Named(String),
    Learned(Arc<Mlp>, u32),
}

impl Player {
    fn make(&self, rng: PyRandom) -> Result<Box<dyn Bot>, String> {
        match self {
            Player::Named(name) => make_bot(name, &[], rng, false),
            Player::Learned(net, samples) => Ok(Box::new(LearnedBot::new(
                Learned::new(*samples, net.clone()),
                rng,
            ))),
        }
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
}

/// The rows and the results.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Rows {
    /// `FEATURES` values per row.
    pub features: Vec<f32>,
    pub game: Vec<u32>,
    pub seat: Vec<u8>,
    /// 1 won, 0 lost, 1/k a win shared by k.
    pub outcome: Vec<f32>,
    /// The seat's final points less the best of the others'.
    pub margin: Vec<f32>,
    /// Per game: which lineup entry sat at each seat, and each seat's outcome.
    pub lineups: Vec<Vec<u8>>,
    pub outcomes: Vec<Vec<f32>>,
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
    let mut cache = Cache::new();
    let mut x = [0.0f32; FEATURES];
    let mut legal = Legal::new();
    let seed = plan.seed.to_string();
    for g in 0..plan.games {
        let game = g.to_string();
        let deal_key = if plan.paired {
            (g / 2).to_string()
        } else {
            game.clone()
        };
        let deal = derive_seed(&["selfplay-deal", &seed, &deal_key]);
        let mut rng = PyRandom::new(derive_seed(&["selfplay", &seed, &game]) as i128);
        let seats: Vec<u8> = (0..plan.players)
            .map(|s| {
                if plan.paired {
                    (s as u32 + g) as u8 % 2
                } else {
                    rng.randbelow(n as u64) as u8
                }
            })
            .collect();
        let mut bots = Vec::with_capacity(seats.len());
        for (s, &p) in seats.iter().enumerate() {
            let key = derive_seed(&["selfplay-bot", &seed, &game, &s.to_string()]);
            bots.push(plan.lineup[p as usize].make(PyRandom::new(key as i128))?);
        }
        let mut state = State::new(
            plan.players as usize,
            deal as i128,
            Arc::default(),
            &[],
            true,
            Arc::default(),
        )
        .map_err(|e| e.to_string())?;
        let points = card_points(&state.b);
        let options = state.b.options.clone();
        for (s, bot) in bots.iter_mut().enumerate() {
            bot.start(s as u8, plan.players, &options);
        }
        crate::referee::tell(&mut bots, &state, 0);
        let mut seen = history_len(&state);
        let first = rows.game.len();
        while !state.is_terminal() {
            let seat = state.b.current;
            state.legal_into(&mut legal);
            if rng.random() < plan.keep {
                for s in 0..plan.players {
                    features(&state, s, &mut cache, &points, &mut x);
                    rows.features.extend_from_slice(&x);
                    rows.game.push(g);
                    rows.seat.push(s);
                }
            }
            let action: Action = if legal.len() > 1 && rng.random() < plan.explore {
                legal[rng.randbelow(legal.len() as u64) as usize]
            } else {
                let view = View::of(&state, seat as i64).map_err(|e| e.to_string())?;
                bots[seat as usize].choose(&view, &legal)
            };
            state.apply(action).map_err(|e| e.to_string())?;
            crate::referee::tell(&mut bots, &state, seen);
            seen = history_len(&state);
        }
        let result = state.result(&[]);
        let share = 1.0 / result.winners.len().max(1) as f32;
        let outcome: Vec<f32> = (0..plan.players)
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
            let best_other = (0..plan.players as usize)
                .filter(|&o| o != s)
                .map(|o| result.scores[o])
                .max()
                .unwrap_or(0);
            rows.outcome.push(outcome[s]);
            rows.margin.push((result.scores[s] - best_other) as f32);
        }
        rows.lineups.push(seats);
        rows.outcomes.push(outcome);
        progress(g + 1);
    }
    Ok(rows)
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
    fn outcomes_share_one_win_per_game() {
        let rows = play(&plan(5), |_| {}).unwrap();
        for o in &rows.outcomes {
            let total: f32 = o.iter().sum();
            assert!((total - 1.0).abs() < 1e-6 || total == 0.0, "{o:?}");
        }
    }
}
