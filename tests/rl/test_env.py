"""The PettingZoo environment: PettingZoo's own api_test and seed_test for 2-4 players, an
observation that holds only what the seat may know, an action space that names every legal
action exactly once, and a policy that plays as a bot."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from pettingzoo.test import api_test, seed_test

from arena.cli import main
from arena.engine import PlayerView, RuleOptions, new_game
from arena.play.match import play_game
from arena.rl import ActionTable, Observation, RadiusError, layout
from arena.rl.env import TakenokoEnv
from arena.rl.policy import PolicyBot, random_policy
from bots.random_bot import RandomBot
from bots.registry import BotSpec
from tests.test_script_args import run_script

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_pettingzoos_api_test(players: int) -> None:
    api_test(TakenokoEnv(players=players), num_cycles=300)


def test_pettingzoos_seed_test() -> None:
    seed_test(lambda: TakenokoEnv(players=3), num_cycles=200)


def test_a_whole_game_ends_with_rewards_that_sum_to_zero() -> None:
    env = TakenokoEnv(players=4)
    env.reset(seed=3)
    rng = random.Random(3)
    total = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        observation, reward, termination, truncation, _info = env.last()
        total[agent] += reward
        env.step(None if termination or truncation else random_policy(observation, rng))
    assert env.game.ended and not env.agents
    assert abs(sum(total.values())) < 1e-9
    winners = env.game.result().winners
    assert all((total[f"player_{s}"] > 0) == (s in winners) for s in range(4))


def random_states(players: int, seed: int, count: int) -> list:
    rng = random.Random(seed)
    state = new_game(players, seed)
    out = []
    while not state.ended:
        out.append(state.copy())
        state.apply(rng.choice(state.legal_actions()))
    return out[:: max(1, len(out) // count)]


@pytest.mark.parametrize("players", [2, 4])
def test_the_observation_holds_only_what_the_seat_may_know(players: int) -> None:
    """A full state re-dealt from the seat's view (other hands, the decks, the generator)
    gives the same observation: nothing hidden reaches the vector."""
    encoder = Observation()
    rng = random.Random(players)
    for state in random_states(players, players, 40):
        for seat in range(players):
            view = PlayerView.of(state, seat)
            twin = view.determinize(rng)
            assert np.array_equal(encoder.encode(view),
                                  encoder.encode(PlayerView.of(twin, seat)))


def test_the_observation_is_within_its_space_and_tells_seats_apart() -> None:
    encoder = Observation()
    for state in random_states(3, 9, 30):
        vectors = [encoder.encode(PlayerView.of(state, s)) for s in range(3)]
        for v in vectors:
            assert v.dtype == np.float32 and (v >= 0).all() and (v <= encoder.high).all()
        hand = encoder.part(vectors[0], "hand")
        assert {int(i) for i in np.flatnonzero(hand)} == set(state.hands[0])
        scores = encoder.part(vectors[1], "scores")
        assert list(scores[:3]) == [state.scores()[(1 + k) % 3] for k in range(3)]


def test_every_legal_action_has_one_index() -> None:
    table = ActionTable()
    assert len(set(table.actions)) == len(table.actions)
    moved = ActionTable(options=RuleOptions(cloud_when_empty="move_improvement"))
    assert len(moved) > len(table)
    for players in (2, 3, 4):
        for state in random_states(players, players + 20, 200):
            legal = state.legal_actions()
            mask = table.mask(legal)
            assert mask.sum() == len(legal)
            assert sorted(table.actions[i] for i in np.flatnonzero(mask)) == sorted(legal)


def test_a_board_beyond_the_radius_is_an_error_not_a_wrong_move() -> None:
    table = ActionTable(radius=1)
    for state in random_states(2, 4, 400):
        legal = state.legal_actions()
        if legal and all(a not in table.index for a in legal):
            with pytest.raises(RadiusError, match="larger radius"):
                table.mask(legal)
            return
    pytest.fail("no position with every legal action beyond distance 1")


def test_the_layout_is_documented() -> None:
    text = (ROOT / "docs" / "rl.md").read_text()
    for segment in layout():
        shape = " × ".join(str(n) for n in segment.shape)
        assert re.search(rf"`{segment.name}`\s*\|\s*{re.escape(shape)}\b", text), segment.name


def first_legal(observation: dict) -> int:
    """A policy for the test: the first action of the mask."""
    return int(np.flatnonzero(observation["action_mask"])[0])


def test_a_policy_plays_as_a_bot() -> None:
    bots = [PolicyBot(random.Random(1), policy="tests.rl.test_env:first_legal"),
            PolicyBot(random.Random(2))]
    outcome = play_game(bots, 11, names=["first", "random"])
    assert outcome.error is None and outcome.state.ended
    again = play_game([PolicyBot(random.Random(1), policy="tests.rl.test_env:first_legal"),
                       PolicyBot(random.Random(2))], 11, names=["first", "random"])
    assert again.record["moves"] == outcome.record["moves"]
    versus = play_game([PolicyBot(random.Random(3)), RandomBot(random.Random(4))], 12)
    assert versus.error is None


def test_a_bad_policy_path_is_one_sentence() -> None:
    result = CliRunner().invoke(main, ["play", "--bot", "policy:policy=no.such:thing",
                                       "--bot", "random"])
    assert result.exit_code == 2
    assert "cannot import policy module 'no.such'" in result.stderr


def test_the_example_plays_games() -> None:
    run = run_script("rl_random", "--games", "3", "--players", "3", timeout=120)
    assert run.returncode == 0, run.stderr
    assert "3 games of 3 players" in run.stdout


def test_a_tournament_runs_a_policy_in_a_process_of_its_own() -> None:
    """The policy module is the user's code: never imported in the arena's process."""
    from arena.jail.sandbox import Isolation

    isolation = Isolation()
    assert not isolation.trusts_text("policy:policy=mypkg.agents:act")
    assert isolation.isolates(BotSpec.parse("policy"))


def test_a_card_file_is_taken_as_the_commands_take_it(tmp_path: Path) -> None:
    """``cards=`` a file: re-priced cards and the Emperor's points play (a file that adds
    cards: test_env_added_cards.py)."""
    from arena.engine.card_files import CardFileError
    from arena.engine.components import CARD_INDEX

    path = tmp_path / "set.json"
    path.write_text(json.dumps({"emperor": 3, "points": {"plot-15": 5}}))
    env = TakenokoEnv(players=2, cards=path)
    assert env.cards is not None and env.cards.points[CARD_INDEX["plot-15"]] == 5
    assert env.options.emperor_points == 3
    env.reset(seed=1)
    assert env.game.card_set == env.cards and env.game.options.emperor_points == 3
    with pytest.raises(CardFileError, match="emperor is 3 but the rule option"):
        TakenokoEnv(players=2, options={"emperor_points": 4}, cards=str(path))

