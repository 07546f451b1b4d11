//! `elite`: the `mcts` search with defaults chosen so that its strength grows with its
//! budget (`bots/elite.py` is its Python side, the same search in the reference).
//!
//! Why a configuration rather than another search: the default `mcts` leaves every
//! decision outside the action step to the `objective` planner and explores little
//! (`c` 0.03), so a larger budget only confirms what the planner's prior already chose;
//! `docs/experiments.md` ("Why the search is flat in its budget") has the screens.  `elite`
//! searches every decision and explores more, which is what turned extra iterations into
//! wins there.  `budget` scales its iterations (and `time`) as it scales `mcts`'s.

use super::declared;
use super::mcts::from_registry;
use super::registry::BotEntry;

/// `elite` in the native registry: `bot_params.json` declares it `like` mcts, with its own
/// `c` and `delegate` (`bots/elite.py` reads the same).
pub const ENTRY: BotEntry = BotEntry {
    name: "elite",
    class: "EliteBot",
    declared: || declared::of("elite"),
    make: from_registry,
    test_only: false,
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_named_defaults_differ_from_mcts() {
        let mcts = declared::of("mcts");
        let differ: Vec<&str> = ENTRY
            .params()
            .iter()
            .zip(mcts.iter())
            .filter(|(e, m)| e != m)
            .map(|(e, _)| e.name)
            .collect();
        assert_eq!(differ, vec!["c", "delegate"]);
        assert_eq!(ENTRY.params().len(), mcts.len());
    }
}
