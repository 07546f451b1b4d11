//! `elite`: the `mcts` search with defaults chosen so that its strength grows with its
//! budget (`bots/elite.py` is its Python side, the same search in the reference).
//!
//! Why a configuration rather than another search: the default `mcts` leaves every
//! decision outside the action step to the `objective` planner and explores little
//! (`c` 0.03), so a larger budget only confirms what the planner's prior already chose;
//! `docs/experiments.md` ("Why the search is flat in its budget") has the screens.  `elite`
//! searches every decision and explores more, which is what turned extra iterations into
//! wins there.  `budget` scales its iterations (and `time`) as it scales `mcts`'s.

use super::mcts::{from_registry, REGISTRY_PARAMS};
use super::registry::{BotEntry, Default as Given, ParamDecl};

/// Where `elite`'s defaults differ from `mcts`'s, by the parameter's place in
/// [`REGISTRY_PARAMS`].
const C: usize = 2;
const DELEGATE: usize = 13;

/// `mcts`'s declarations with `elite`'s defaults (`bots/elite.py`'s `PARAMS`).
const PARAMS: [ParamDecl; 15] = {
    let mut p = REGISTRY_PARAMS;
    p[C].default = Given::Float(0.1);
    p[DELEGATE].default = Given::Text("none");
    p
};

/// `elite` in the native registry.
pub const ENTRY: BotEntry = BotEntry {
    name: "elite",
    class: "EliteBot",
    params: &PARAMS,
    make: from_registry,
    test_only: false,
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_named_defaults_differ_from_mcts() {
        assert_eq!(REGISTRY_PARAMS[C].name, "c");
        assert_eq!(REGISTRY_PARAMS[DELEGATE].name, "delegate");
        let differ: Vec<&str> = PARAMS
            .iter()
            .zip(REGISTRY_PARAMS.iter())
            .filter(|(e, m)| e != m)
            .map(|(e, _)| e.name)
            .collect();
        assert_eq!(differ, vec!["c", "delegate"]);
    }
}
