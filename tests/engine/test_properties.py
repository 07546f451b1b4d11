"""Properties over thousands of random games (hypothesis picks seeds, seats and options).

Random legal choices are driven by a hypothesis-provided seed, so a failing game is reported
as a few integers that replay it exactly.  The CI form plays about 950 games on the native
engine and 1,250 on the reference; the tests marked ``long`` read ``ARENA_LONG=1`` from the
environment for their full size (about 7,700 on either).  Every field beyond the engine API
costs a native state a conversion to the reference's object (about a millisecond), so the
checks that read them all play fewer games in CI on the native engine than on the reference
(``test_reference_engine.py`` runs this file again there): the same properties, most of the
games where a field costs nothing more than the game.  The differential tests hold the two
engines to each other step by step.
"""

from __future__ import annotations

import os
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.engine import (
    ENGINE,
    GameState,
    PlayerView,
    RuleOptions,
    action_text,
    new_game,
    parse_action,
    to_position,
)
from arena.engine import actions as act
from arena.engine.components import DEFAULT_CARD_SET
from arena.engine.state import new_game as reference_game
from tests.engine.helpers import check_board, check_components, check_state, replay_choices

LONG = os.environ.get("ARENA_LONG") == "1"

OPTIONS = [
    RuleOptions(),
    RuleOptions(cloud_keep=False),
    RuleOptions(cloud_when_empty="move_improvement"),
    RuleOptions(redraw_satisfied="plot_gardener"),
    RuleOptions(redraw_satisfied="all", gardener_on_shoot=True),
    RuleOptions(bamboo_supply="limited"),
    RuleOptions(objectives_to_end=((2, 3), (3, 3), (4, 2)), emperor_points=3),
    RuleOptions(max_rounds=6),
    RuleOptions(
        cloud_keep=False,
        cloud_when_empty="move_improvement",
        bamboo_supply="limited",
        redraw_satisfied="all",
    ),
]

games = st.tuples(
    st.integers(min_value=0, max_value=2**32 - 1),  # deal seed
    st.integers(min_value=0, max_value=2**32 - 1),  # choice seed
    st.sampled_from([2, 3, 4]),
    st.sampled_from(range(len(OPTIONS))),
)


def property_settings(examples: int) -> settings:
    return settings(
        deadline=None,
        max_examples=examples,
        suppress_health_check=[HealthCheck.too_slow],
        print_blob=True,
    )


def check_end(state: GameState) -> None:
    """The game ended by the Emperor and the last turns, or by the ``max_rounds`` cap."""
    assert state.ended and state.legal_actions() == []
    if state.capped:
        assert state.round == state.options.max_rounds
    else:
        assert state.emperor >= 0, "a game that is not capped ends with the Emperor"
        assert state.last_turns <= 0
        needed = state.options.objectives_needed(state.players)
        assert len(state.completed[state.emperor]) >= needed
    result = state.result()
    assert result.capped == state.capped
    assert list(result.scores) == state.scores()
    assert result.winners and set(result.winners) <= set(range(state.players))


def play_checked(
    players: int, seed: int, choice_seed: int, options: RuleOptions, every_step,
    new: Any = new_game,
) -> tuple[GameState, list[int]]:
    """A random game from ``new`` (the selected engine's ``new_game`` unless given), with
    ``every_step`` called at each decision."""
    rng = random.Random(choice_seed)
    state = new(players, seed=seed, options=options)
    chosen: list[int] = []
    irrigated = state.irrigated
    completed = [()] * players
    while not state.ended:
        every_step(state, rng)
        legal = state.legal_actions()
        action = rng.choice(legal)
        chosen.append(action)
        state.play(action)
        assert state.round <= options.max_rounds
        if len(chosen) % MONOTONE_STRIDE and not state.ended:
            continue
        # Monotone facts: irrigation and completed objectives are never lost (R6.4, R9.3);
        # held between the steps checked, so a loss shows at the next of them.
        assert irrigated <= state.irrigated
        irrigated = state.irrigated
        for seat in range(players):
            assert state.completed[seat][: len(completed[seat])] == completed[seat]
        completed = list(state.completed)
    return state, chosen


#: Steps between two checks of the monotone facts: every step where reading a field is free
#: (the reference), every fourth on the native engine (a conversion a read).
MONOTONE_STRIDE = 1 if ENGINE == "reference" else 4


def size(native: int, reference: int, long: int) -> int:
    """Hypothesis examples: the CI form on the selected engine, or the long form under
    ``ARENA_LONG=1`` (either engine)."""
    return long if LONG else reference if ENGINE == "reference" else native


@pytest.mark.long
@property_settings(size(100, 200, 1000))
@given(games)
def test_invariants_hold_at_every_step(game: tuple[int, int, int, int]) -> None:
    """Bamboo 0-4, components conserved, network joined to the pond, no duplicate actions,
    hands <= 5, actions within the turn's limit; the game ends or is capped."""
    seed, choice_seed, players, k = game

    def every_step(state: GameState, rng: random.Random) -> None:
        check_state(state)
        assert len(state.taken) <= (3 if state.weather == 0 else 2)

    state, _ = play_checked(players, seed, choice_seed, OPTIONS[k], every_step)
    check_components(state)
    check_board(state)
    check_end(state)


@pytest.mark.long
@property_settings(size(70, 150, 600))
@given(games)
def test_every_listed_action_applies(game: tuple[int, int, int, int]) -> None:
    """Every action in the legal list applies (on a copy) without error and keeps the
    components (checked on a fifth of the copies, drawn at random: each check reads a whole
    state); the copies leave the original untouched; no two listed actions have the same
    effect."""
    seed, choice_seed, players, k = game

    def every_step(state: GameState, rng: random.Random) -> None:
        if rng.random() > 0.3:
            return
        before = to_position(state)
        distinct = rng.random() < 0.2
        outcomes: dict[str, str] = {}
        for action in state.legal_actions():
            copy = state.copy()
            copy.apply(action)
            if rng.random() < 0.2:
                check_components(copy)
            if distinct:
                key = repr(to_position(copy))
                assert key not in outcomes, (
                    f"{action_text(action, DEFAULT_CARD_SET)} has the effect of {outcomes[key]}"
                )
                outcomes[key] = action_text(action, DEFAULT_CARD_SET)
        assert to_position(state) == before, "applying to a copy changed the original"

    state, _ = play_checked(players, seed, choice_seed, OPTIONS[k], every_step)
    check_end(state)


@property_settings(250)
@given(games)
def test_replay_from_seed_and_choices_is_identical(game: tuple[int, int, int, int]) -> None:
    """R2.5: the seed, the options and the choices reproduce the game bit for bit."""
    seed, choice_seed, players, k = game
    options = OPTIONS[k]
    rng = random.Random(choice_seed)
    state = new_game(players, seed=seed, options=options)
    chosen = []
    while not state.ended:
        action = rng.choice(state.legal_actions())
        chosen.append(action)
        state.apply(action)
    again = replay_choices(players, seed, options, chosen)
    assert to_position(again) == to_position(state)
    assert again.history_text() == state.history_text()
    assert again.result() == state.result()


@pytest.mark.long
@property_settings(size(50, 100, 400))
@given(games)
def test_determinized_views_are_consistent(game: tuple[int, int, int, int]) -> None:
    """R2.6: ``view(s).determinize(rng)`` conserves the components, shows seat s the same
    view, gives the current seat the same legal actions, and can be played on."""
    seed, choice_seed, players, k = game

    def every_step(state: GameState, rng: random.Random) -> None:
        if rng.random() > 0.15:
            return
        seat = rng.randrange(state.players) if rng.random() < 0.5 else state.current
        view = PlayerView.of(state, seat)
        sample = view.determinize(random.Random(rng.random()))
        check_components(sample)
        check_board(sample)
        assert PlayerView.of(sample, seat).to_json() == view.to_json()
        if seat == state.current:
            assert sample.legal_actions() == state.legal_actions()
        # A sampled state is a real game: it plays on.
        for _ in range(5):
            if sample.ended:
                break
            sample.play(rng.choice(sample.legal_actions()))
        check_components(sample)

    state, _ = play_checked(players, seed, choice_seed, OPTIONS[k], every_step)
    check_end(state)


@property_settings(120)
@given(games)
def test_actions_round_trip_through_text(game: tuple[int, int, int, int]) -> None:
    """docs/notation.md: every listed action writes as text that parses back to the same int."""
    seed, choice_seed, players, k = game
    rng = random.Random(choice_seed)
    state = new_game(players, seed=seed, options=OPTIONS[k], history=False)
    while not state.ended:
        legal = state.legal_actions()
        for action in legal:
            assert act.kind_of(action) <= act.REDRAW
            assert act.action_text(action, DEFAULT_CARD_SET) and state.legal_actions() is legal
            assert parse_action(action_text(action, DEFAULT_CARD_SET), DEFAULT_CARD_SET) == action
        state.apply(rng.choice(legal))


@pytest.mark.long
@property_settings(size(60, 120, 5000))
@given(games)
def test_long_random_games(game: tuple[int, int, int, int]) -> None:
    """Long form: components, board and end checked on many more games (ARENA_LONG=1)."""
    seed, choice_seed, players, k = game

    def every_step(state: GameState, rng: random.Random) -> None:
        check_components(state)
        for h in state.bamboo.values():
            assert 0 <= h <= 4

    state, chosen = play_checked(players, seed, choice_seed, OPTIONS[k], every_step)
    check_board(state)
    check_end(state)
    if choice_seed % 10 == 0:
        again = replay_choices(players, seed, OPTIONS[k], chosen)
        assert to_position(again) == to_position(state)


@property_settings(150)
@given(games)
def test_the_lazy_forced_end_agrees_with_the_legal_list(game: tuple[int, int, int, int]) -> None:
    """``apply`` no longer builds an action step's legal list to see whether only ``end`` is
    left (search evaluates most children without asking for it): its cheap test
    (``_only_end``) must say what the list says, and no state it leaves at an action step
    offers ``end`` alone.  The reference's private helpers are read here; the core's are
    checked by its own test (``core/tests/lazy_end.rs``)."""
    seed, choice_seed, players, k = game

    def every_step(state: GameState, rng: random.Random) -> None:
        from arena.engine import STEP_ACTIONS

        if state.step == STEP_ACTIONS:
            assert state._only_end() == (state._legal_turn() == [act.END])
        if rng.random() > 0.3:
            return
        for action in state.legal_actions():
            child = state.copy()
            child.apply(action)
            if not child.ended and child.step == STEP_ACTIONS:
                assert not child._only_end()
                assert child.legal_actions() != [act.END]

    state, _ = play_checked(players, seed, choice_seed, OPTIONS[k], every_step, reference_game)
    check_end(state)


@property_settings(150)
@given(games)
def test_R3_1_free_moves_at_every_decision_and_no_forced_one_asked(
    game: tuple[int, int, int, int],
) -> None:
    """R3.1: at every decision of a turn (weather, place and redraw steps included) the
    current seat's free moves are listed first; a step is skipped or drawn for the seat only
    when it has one option and no free move, so one action alone is asked only at ``place``
    (the plot action's own choice).  On the reference (its private ``_free_moves``); the
    core's are checked by ``core/tests/lazy_end.rs``."""
    seed, choice_seed, players, k = game

    def every_step(state: GameState, rng: random.Random) -> None:
        legal = state.legal_actions()
        free = state._free_moves()
        assert legal[: len(free)] == free
        assert not any(act.kind_of(a) in act.FREE_KINDS for a in legal[len(free) :])
        assert len(legal) > 1 or state.step_name == "place", state.step_name

    state, _ = play_checked(players, seed, choice_seed, OPTIONS[k], every_step, reference_game)
    check_end(state)
