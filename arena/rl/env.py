"""Takenoko as a PettingZoo AEC environment (2 to 4 players).

Agents are ``player_0`` .. ``player_{n-1}``, one per seat; the agent to act is the seat to
play (chance, the die and the draws, is resolved by the engine between decisions, seeded).
Each agent observes ``{"observation": float32 vector, "action_mask": int8 vector}`` built
from its ``PlayerView`` only (``spaces.Observation``), so what it learns it could have known;
its action is an index of the fixed ``spaces.ActionTable``.  Both spaces have a slot per
objective card of the env's card set (``spaces.card_slots``): the printed 45, then the cards
the set adds, so a set that adds cards gets larger spaces and the printed set's stay as
they always were.

Rewards come at the end: the winners share +1 and the others share -1 (a two-player game is
+1/-1, a shared victory of everyone 0), so the rewards of a game sum to zero.  A game that
hits the ``max_rounds`` cap of the rules ends as the rules end it (terminated, scored as it
stood); nothing is truncated.
"""

from __future__ import annotations

import os
import random
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces as gym_spaces
from pettingzoo import AECEnv
from pettingzoo.utils import AgentSelector

from arena.engine import CardSet, GameState, PlayerView, RuleOptions, new_game
from arena.rl.spaces import DEFAULT_RADIUS, ActionTable, Observation
from arena.show.board_text import render_state


def agent_name(seat: int) -> str:
    return f"player_{seat}"


class TakenokoEnv(AECEnv):
    """Takenoko for ``players`` seats under ``options`` (the rules' options, R12)."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi", "human"], "name": "takenoko_v0",
                "is_parallelizable": False}

    def __init__(self, players: int = 2, options: RuleOptions | dict[str, Any] | None = None,
                 *, radius: int = DEFAULT_RADIUS,
                 cards: CardSet | str | os.PathLike[str] | None = None,
                 render_mode: str | None = None) -> None:
        """``cards``: a card set, or a card-set file as the commands' ``--cards FILE`` reads
        it (its Emperor's points become the rule option).  A set that adds cards sizes the
        spaces by its cards; it must be one the engine in use plays (the native engine's
        arrays hold 64 cards), checked here rather than at the first reset."""
        super().__init__()
        if players not in (2, 3, 4):
            raise ValueError(f"players must be 2, 3 or 4, not {players}")
        if isinstance(options, dict):
            options = RuleOptions.from_dict(options)
        if isinstance(cards, str | os.PathLike):
            from arena.engine.card_files import card_choice

            choice = card_choice(cards, players)
            cards = choice.cards
            options = choice.options(options or RuleOptions(),
                                     rule_given=options is not None)
        if cards is not None and not isinstance(cards, CardSet):
            raise TypeError(f"cards must be a CardSet or a card-set file's path, not "
                            f"{type(cards).__name__}")
        if cards is not None:
            problem = cards.deal_problem(players)
            if problem:
                raise ValueError(f"the card set cannot deal this game: {problem}")
            if cards.added:
                # One game made now: an engine that cannot play the added cards says so
                # in its own sentence before the spaces are handed out, not at reset().
                new_game(players, 0, options, cards=cards)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}")
        self.players = players
        self.options = options or RuleOptions()
        self.cards = cards
        self.render_mode = render_mode
        self.table = ActionTable(radius, self.options, cards)
        self.encoder = Observation(radius, cards)
        self.possible_agents = [agent_name(s) for s in range(players)]
        size = self.encoder.size
        self._observation_spaces = {
            a: gym_spaces.Dict({
                "observation": gym_spaces.Box(0.0, self.encoder.high, (size,), np.float32),
                "action_mask": gym_spaces.Box(0, 1, (len(self.table),), np.int8),
            }) for a in self.possible_agents}
        self._action_spaces = {a: gym_spaces.Discrete(len(self.table))
                               for a in self.possible_agents}
        self._seeds = random.Random()
        self.state_: GameState | None = None

    def observation_space(self, agent: str) -> gym_spaces.Space:
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> gym_spaces.Space:
        return self._action_spaces[agent]

    # ------------------------------------------------------------------ the game

    @property
    def game(self) -> GameState:
        """The game being played (the whole truth: for tools, never for an agent).  Its
        cards are its set's (``game.card_set``), whatever other envs play beside it."""
        if self.state_ is None:
            raise RuntimeError("reset() the environment first")
        return self.state_

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game.  ``seed`` seeds this game and the ones after it (each later reset
        without a seed draws the next game's seed); the same seed, the same games."""
        if seed is not None:
            self._seeds = random.Random(seed)
        game_seed = self._seeds.randrange(2**31)
        self.state_ = new_game(self.players, game_seed, self.options, cards=self.cards)
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {"seed": game_seed} for a in self.agents}
        self._selector = AgentSelector(self.agents)
        self.agent_selection = agent_name(self.state_.current)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self.possible_agents.index(agent)
        state = self.game
        view = PlayerView.of(state, seat)
        if state.ended or state.current != seat:
            mask = np.zeros(len(self.table), dtype=np.int8)
        else:
            mask = self.table.mask(state.legal_actions())
        return {"observation": self.encoder.encode(view), "action_mask": mask}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state = self.game
        index = int(action)  # type: ignore[arg-type]
        if not 0 <= index < len(self.table):
            raise ValueError(f"action {index} is outside the action space 0..{len(self.table) - 1}")
        engine_action = self.table.actions[index]
        if engine_action not in state.legal_actions():
            from arena.engine import action_text

            raise ValueError(f"action {index} ({action_text(engine_action, state.card_set)}) "
                             "is not legal now; "
                             "sample it with the observation's action_mask")
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        state.apply(engine_action)
        if state.ended:
            self._finish(state)
        else:
            self.agent_selection = agent_name(state.current)
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _finish(self, state: GameState) -> None:
        result = state.result()
        winners = set(result.winners)
        losers = self.players - len(winners)
        for seat, agent in enumerate(self.possible_agents):
            if losers == 0:
                self.rewards[agent] = 0.0
            elif seat in winners:
                self.rewards[agent] = 1.0 / len(winners)
            else:
                self.rewards[agent] = -1.0 / losers
            self.terminations[agent] = True
            self.infos[agent] = {**self.infos[agent], "scores": list(result.scores),
                                 "winners": list(result.winners)}

    def render(self) -> str | None:
        text = render_state(self.game, color=False)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass


def env(**kwargs: Any) -> TakenokoEnv:
    """The environment, PettingZoo's usual constructor name."""
    return TakenokoEnv(**kwargs)
