"""R2.5: one seeded generator per game; seed + options + choices reproduce it bit for bit."""

from __future__ import annotations

import random

import pytest

from arena.engine import RuleOptions, new_game, to_position
from tests.engine.helpers import play_random_game, replay_choices


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize(
    "options",
    [RuleOptions(), RuleOptions(redraw_satisfied="all", cloud_when_empty="move_improvement")],
)
def test_R2_5_same_seed_same_choices_same_game(players: int, options: RuleOptions) -> None:
    """R2.5: replaying the choices from the seed gives the same history and positions."""
    for seed in range(5):
        first, chosen = play_random_game(players, seed, options, choice_seed=seed + 100)
        second, again = play_random_game(players, seed, options, choice_seed=seed + 100)
        assert chosen == again
        assert first.history_text() == second.history_text()
        assert to_position(first) == to_position(second)
        replayed = replay_choices(players, seed, options, chosen)
        assert replayed.history_text() == first.history_text()
        assert to_position(replayed) == to_position(first)


def test_R2_5_positions_agree_at_every_step() -> None:
    """R2.5: two games fed the same choices are equal at every decision, not only the end."""
    a, b = new_game(3, seed=42), new_game(3, seed=42)
    rng = random.Random(1)
    while not a.ended:
        assert to_position(a) == to_position(b)
        action = rng.choice(a.legal_actions())
        a.apply(action)
        b.apply(action)
    assert b.ended and a.history_text() == b.history_text()


def test_R2_5_different_seeds_different_deck_orders() -> None:
    """R2.5: different seeds shuffle the decks differently."""
    plot_orders = set()
    card_orders = set()
    for seed in range(60):
        s = new_game(2, seed=seed)
        plot_orders.add(s.plot_deck)
        card_orders.add((s.objective_decks, tuple(s.hands)))
    assert len(plot_orders) == 60 and len(card_orders) == 60
    assert new_game(2, seed=-1).plot_deck != new_game(2, seed=1).plot_deck


def test_R2_5_different_seeds_different_rolls() -> None:
    """R2.5: the die is rolled from the game's generator: same seed, same rolls."""

    def rolls(seed: int) -> list[str]:
        s, _ = play_random_game(2, seed, RuleOptions(max_rounds=12), choice_seed=0)
        return [t for t in s.history_text() if t.startswith("* roll")]

    assert rolls(5) == rolls(5)
    assert len({tuple(rolls(seed)) for seed in range(8)}) == 8


def test_R2_5_options_do_not_change_the_deal() -> None:
    """R2.5: the deal depends on the seed only; options change the rules, not the shuffle."""
    a = new_game(2, seed=9)
    b = new_game(2, seed=9, options=RuleOptions(redraw_satisfied="all", max_rounds=5))
    assert a.plot_deck == b.plot_deck and a.objective_decks == b.objective_decks
    assert a.hands == b.hands


def test_R2_5_history_off_plays_the_same_game() -> None:
    """R2.5: keeping no history changes nothing in the game itself."""
    rng_a, rng_b = random.Random(3), random.Random(3)
    a, b = new_game(4, seed=8), new_game(4, seed=8, history=False)
    while not a.ended:
        a.apply(rng_a.choice(a.legal_actions()))
        b.apply(rng_b.choice(b.legal_actions()))
    assert b.ended
    assert to_position(a) == to_position(b)


def test_R2_5_copies_are_independent_and_replay_the_same() -> None:
    """R2.5: a copy plays exactly like the original and does not disturb it."""
    s = new_game(2, seed=21)
    rng = random.Random(0)
    for _ in range(40):
        s.apply(rng.choice(s.legal_actions()))
    before = to_position(s)
    c = s.copy()
    seq = random.Random(5)
    chosen = []
    while not c.ended:
        action = seq.choice(c.legal_actions())
        chosen.append(action)
        c.apply(action)
    assert to_position(s) == before, "playing a copy changed the original"
    for action in chosen:
        s.play(action)
    assert to_position(s) == to_position(c)
