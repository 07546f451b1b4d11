"""The engine API (``arena.engine.api``): both engines satisfy it, and the named edits give
the same values on both (positions, legal lists, scores), the edited copy alone changed."""

from __future__ import annotations

import random
from typing import Any

import pytest

from arena.engine import native
from arena.engine.api import GameStateAPI, PlayerViewAPI

pytestmark = pytest.mark.skipif(not native.available(), reason="the native engine is not built")

ENGINES = ("native", "reference")


def played(name: str, seed: int = 4, moves: int = 30) -> Any:
    """A game of engine ``name`` after ``moves`` seeded random moves."""
    e = native.engine(name)
    state = e.new_game(3, seed)
    rng = random.Random(seed)
    for _ in range(moves):
        state.apply(rng.choice(state.legal_actions()))
    return state


def both(edit: Any, seed: int = 4) -> tuple[Any, Any]:
    """``edit`` applied to the same game on each engine: (native, reference) results."""
    return edit(played("native", seed)), edit(played("reference", seed))


def same_position(a: Any, b: Any) -> None:
    """The two engines' states hold the same position and offer the same actions."""
    assert native.engine("native").to_position(a) == native.engine("reference").to_position(b)
    assert a.legal_actions() == b.legal_actions()


@pytest.mark.parametrize("name", ENGINES)
def test_both_engines_satisfy_the_protocols(name: str) -> None:
    state = played(name)
    view = native.engine(name).PlayerView.of(state, 1)
    assert isinstance(state, GameStateAPI) and isinstance(view, PlayerViewAPI)
    assert isinstance(view.determinize(random.Random(1)), GameStateAPI)


def test_with_hand_changes_the_copy_alone_and_the_same_on_both() -> None:
    def edit(s: Any) -> tuple[Any, Any]:
        return s, s.with_hand(1, s.hands[1][:-1])

    (nat, nat_edit), (ref, ref_edit) = both(edit)
    same_position(nat_edit, ref_edit)
    assert nat_edit.hands[1] == nat.hands[1][:-1] and nat.hands == ref.hands
    with pytest.raises(IndexError):
        nat.with_hand(3, ())


def test_with_hidden_and_with_step_give_the_same_values_on_both() -> None:
    def edit(s: Any) -> Any:
        hands = [tuple(reversed(h)) for h in s.hands]
        decks = [tuple(reversed(d)) for d in s.objective_decks]
        twin = s.with_hidden(hands=hands, objective_decks=decks,
                             plot_deck=tuple(reversed(s.plot_deck)), rng=5, seed=6)
        assert twin.hands == hands and twin.rng == 5 and twin.seed == 6
        assert s.hands != hands  # the original is untouched
        return twin, s.with_step(5, -1)

    (nat_twin, nat_step), (ref_twin, ref_step) = both(edit)
    same_position(nat_twin, ref_twin)
    same_position(nat_step, ref_step)
    assert nat_step.weather == -1 and nat_step.step_name == "actions"


def test_with_card_points_weights_the_scores_of_a_copy() -> None:
    def edit(s: Any) -> tuple[list[int], list[int]]:
        weighted = s.with_card_points(tuple(3 * p for p in s.card_points))
        return s.scores(), weighted.scores()

    (nat_plain, nat_weighted), (ref_plain, ref_weighted) = both(edit, seed=9)
    assert (nat_plain, nat_weighted) == (ref_plain, ref_weighted)


def test_share_layout_hands_out_the_other_state_s_objects() -> None:
    state = played("native")
    again = native.from_position(native.to_position(state))
    assert again.tiles is not state.tiles
    again.share_layout(state)
    assert again.tiles is state.tiles and again.channels is state.channels
    same_position(again, played("reference"))
    with pytest.raises(ValueError, match="layouts differ"):
        native.new_game(3, 4).share_layout(state)
