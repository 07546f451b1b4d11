"""The PettingZoo environment with a card set that adds cards: spaces with a slot per card of
the set (45 printed, then the added ones), PettingZoo's api_test, seeded random games that
end, added cards in hands, masks and completions, and one sentence for a bad file.

Each test runs on both engines in this process (``eng``: the env's ``new_game`` and
``PlayerView`` are that engine's, and card files are read as under ``ARENA_ENGINE``), whichever
engine the suite runs on; a set beyond the native engine's arrays is its one sentence."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from pettingzoo.test import api_test

from arena.engine import OptionError, RuleOptions, native
from arena.engine import actions as A
from arena.engine import card_files as card_files
from arena.engine.components import CardSet
from arena.engine.native import engine
from arena.rl import ActionTable, CardSlotError, Observation, card_slots, layout
from arena.rl import env as rl_env
from arena.rl.env import TakenokoEnv
from arena.rl.policy import PolicyBot

#: One card of each category, each easy to complete, so random play completes them too.
ADD = {
    "plot": [{"id": "plot-16", "points": 3, "cells": [
        {"at": "0,0", "colour": "green"}, {"at": "1,0", "colour": "yellow"}]}],
    "gardener": [{"id": "gardener-16", "colour": "green", "shoots": 1, "height": 2,
                  "improvement": "any", "points": 2}],
    "panda": [{"id": "panda-16", "eat": {"green": 1, "pink": 1}, "points": 2}],
}
ADDED = (45, 46, 47)


ENGINES = ["reference", *(["native"] if native.available() else [])]


@pytest.fixture(params=ENGINES)
def eng(request: pytest.FixtureRequest,
        monkeypatch: pytest.MonkeyPatch) -> Iterator[SimpleNamespace]:
    """The env on one engine."""
    chosen = engine(request.param)
    monkeypatch.setattr(rl_env, "new_game", chosen.new_game)
    monkeypatch.setattr(rl_env, "PlayerView", chosen.PlayerView)
    monkeypatch.setattr(card_files, "ENGINE", request.param)
    yield chosen


@pytest.fixture
def card_file(tmp_path: Path) -> Path:
    path = tmp_path / "three.json"
    path.write_text(json.dumps({"name": "three easy cards", "add": ADD}))
    return path


def test_the_spaces_have_a_slot_per_card_of_the_set(eng: SimpleNamespace,
                                                    card_file: Path) -> None:
    env = TakenokoEnv(players=3, cards=card_file)
    assert env.cards is not None and [c.index for c in env.cards.added] == list(ADDED)
    assert card_slots(env.cards) == 45 + 3 == env.encoder.cards == env.table.cards
    printed_obs, printed_actions = Observation().size, len(ActionTable())
    # hand, satisfied and four seats' completed: six more floats per added card
    assert env.observation_space("player_0")["observation"].shape == (printed_obs + 6 * 3,)
    assert env.action_space("player_0").n == printed_actions + 3
    assert env.observation_space("player_0")["action_mask"].shape == (printed_actions + 3,)
    shapes = {s.name: s.shape for s in layout(cards=env.cards)}
    assert shapes["hand"] == shapes["satisfied"] == (48,) and shapes["completed"] == (4, 48)
    blocks = {name: (start, size) for name, start, size in env.table.blocks}
    start, size = blocks["complete"]
    assert size == 48
    assert [A.card_of(a) for a in env.table.actions[start:start + size]] == list(range(48))
    # The printed cards' actions keep their order; the blocks after "complete" move by 3.
    printed = {name: (s, n) for name, s, n in ActionTable().blocks}
    assert blocks["complete"][0] == printed["complete"][0]
    assert blocks["weather"][0] == printed["weather"][0] + 3
    # Sizes come from the set, not from the card tables the engine installed.
    assert len(ActionTable()) == printed_actions and Observation().size == printed_obs


def test_pettingzoos_api_test_with_added_cards(eng: SimpleNamespace,
                                              card_file: Path) -> None:
    api_test(TakenokoEnv(players=2, cards=card_file), num_cycles=300)


def completing_policy(observation: dict[str, np.ndarray], complete: range,
                      rng: random.Random) -> int:
    """Random over the mask, but completing a card whenever it can (random play alone
    rarely completes one, and the added cards' complete actions are what is tested)."""
    legal = np.flatnonzero(observation["action_mask"])
    done = [i for i in legal if i in complete]
    return int(rng.choice(done) if done else legal[rng.randrange(len(legal))])


def test_seeded_random_games_end_and_added_cards_play(eng: SimpleNamespace,
                                                      card_file: Path) -> None:
    envs = {players: TakenokoEnv(players=players, cards=card_file) for players in (2, 3, 4)}
    start, size = next((s, n) for name, s, n in envs[2].table.blocks if name == "complete")
    complete = range(start, start + size)
    in_hand = in_mask = done = 0
    for seed in range(9):
        env = envs[2 + seed % 3]
        env.reset(seed=seed)
        rng = random.Random(seed)
        for agent in env.agent_iter(max_iter=20_000):
            observation, _reward, termination, truncation, _info = env.last()
            if termination or truncation:
                env.step(None)
                continue
            mask, vector = observation["action_mask"], observation["observation"]
            # every legal action has its index, the added cards' completions included
            legal = env.game.legal_actions()
            assert sorted(env.table.actions[i] for i in np.flatnonzero(mask)) == sorted(legal)
            hand = env.encoder.part(vector, "hand")
            seat = env.possible_agents.index(agent)
            assert set(np.flatnonzero(hand)) == set(env.game.hands[seat])
            in_hand += int(hand[45:].any())
            added_done = [complete[c] for c in ADDED if mask[complete[c]]]
            in_mask += bool(added_done)
            action = completing_policy(observation, complete, rng)
            done += action in added_done
            env.step(action)
        assert env.game.ended and not env.agents, seed
    assert in_hand and in_mask and done, (in_hand, in_mask, done)
    # a completed added card shows in the completed segment of every seat's observation
    completed = env.encoder.part(env.observe("player_0")["observation"], "completed")
    assert completed[:, 45:].sum() == sum(c >= 45 for cs in env.game.completed for c in cs)


def test_the_same_seed_gives_the_same_game(eng: SimpleNamespace,
                                           card_file: Path) -> None:
    def game(seed: int) -> list[int]:
        env = TakenokoEnv(players=2, cards=card_file)
        env.reset(seed=seed)
        rng, moves = random.Random(seed), []
        for _agent in env.agent_iter():
            observation, _r, termination, truncation, _i = env.last()
            action = None if termination or truncation else int(
                rng.choice(np.flatnonzero(observation["action_mask"])))
            moves.append(action)
            env.step(action)
        return moves

    assert game(5) == game(5)


def test_an_env_with_added_cards_beside_a_printed_one(eng: SimpleNamespace,
                                                      card_file: Path) -> None:
    """A printed game's reset takes the added cards out of the process's tables; the env of
    the added set puts them back before it reads its game."""
    added, printed = TakenokoEnv(players=2, cards=card_file), TakenokoEnv(players=2)
    added.reset(seed=1)
    rng = random.Random(1)
    for step, agent in enumerate(added.agent_iter()):
        if step % 50 == 0:
            printed.reset(seed=step)
        observation, _r, termination, truncation, _i = added.last()
        added.step(None if termination or truncation
                   else int(rng.choice(np.flatnonzero(observation["action_mask"]))))
        assert agent in added.possible_agents
    assert added.game.ended and printed.observation_space("player_0")["observation"].shape \
        == (Observation().size,)


def test_a_policy_bot_takes_the_games_card_set(eng: SimpleNamespace) -> None:
    cards = CardSet.from_changes(add=ADD)
    bots = [PolicyBot(random.Random(s)) for s in range(2)]
    for seat, bot in enumerate(bots):
        bot.start(seat, 2, RuleOptions())
    state = eng.new_game(2, seed=4, cards=cards)
    while not state.ended:
        legal = state.legal_actions()
        action = bots[state.current].choose(eng.PlayerView.of(state, state.current),
                                            legal)
        assert action in legal
        state.apply(action)
    assert all(b.table.cards == 48 and b.encoder.cards == 48 for b in bots)
    bots[0].start(0, 2, RuleOptions())  # the next game is the printed set's until shown
    assert bots[0].table.cards == 45


def test_an_encoder_of_another_card_set_is_one_sentence(eng: SimpleNamespace) -> None:
    state = eng.new_game(2, seed=2, cards=CardSet.from_changes(add=ADD))
    view = eng.PlayerView.of(state, 0)
    with pytest.raises(CardSlotError, match="has 45 card slots but the game's card set has "
                                            "48 cards: make the encoder with that card set"):
        Observation().encode(view)


def test_a_bad_card_file_is_one_sentence(eng: SimpleNamespace, tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    bad = json.loads(json.dumps(ADD))
    bad["panda"][0]["eat"] = {"blue": 2}
    path.write_text(json.dumps({"add": bad}))
    with pytest.raises(card_files.CardFileError) as caught:
        TakenokoEnv(players=2, cards=path)
    message = str(caught.value)
    assert "panda-16" in message and "blue" in message and "\n" not in message
    with pytest.raises(TypeError, match="cards must be a CardSet or a card-set file's path, "
                                        "not int"):
        TakenokoEnv(players=2, cards=3)  # type: ignore[arg-type]


def test_a_set_that_cannot_deal_the_game_is_one_sentence(eng: SimpleNamespace) -> None:
    cards = CardSet.from_changes(remove=[f"panda-{i:02d}" for i in range(1, 14)], add=ADD)
    with pytest.raises(ValueError, match="the card set cannot deal this game: the panda "
                                         "deck keeps 3 cards, and a 4-player game"):
        TakenokoEnv(players=4, cards=cards)


@pytest.mark.skipif(not native.available(), reason="the native engine is not built")
def test_the_native_engine_refuses_a_set_beyond_its_arrays_when_the_env_is_made(
        monkeypatch: pytest.MonkeyPatch) -> None:
    chosen = engine("native")  # whichever engine the suite runs on
    monkeypatch.setattr(rl_env, "new_game", chosen.new_game)
    monkeypatch.setattr(rl_env, "PlayerView", chosen.PlayerView)
    many = {"panda": [{"id": f"panda-x{i}", "eat": {"green": 1}, "points": 2}
                      for i in range(20)]}
    with pytest.raises(OptionError, match=r"the card set adds 20 cards: the native engine "
                                          r"plays at most 64"):
        TakenokoEnv(players=2, cards=CardSet.from_changes(add=many))
