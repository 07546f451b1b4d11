"""An environment policy as a bot: what a learner trained in ``TakenokoEnv`` plays in a
tournament.

``policy:policy=mypkg.agents:act`` names a callable by its dotted path; it is given the
observation the environment would give (``{"observation": ..., "action_mask": ...}``, built
from the bot's view by the same encoder) and returns an index of the action table.  A
callable with an ``rng`` parameter is also given the bot's seeded ``random.Random``, so a
stochastic policy replays.  An index outside the mask is returned to the game as the action
it names, and the game loop records it as an illegal move, as for any bot.  The spaces are
the game's own: a card set that adds cards gives the policy the larger spaces an env made
with that set gives (``spaces.card_slots``).

Only numpy is needed here (the encoder and the table), not pettingzoo.
"""

from __future__ import annotations

import importlib
import inspect
import random
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from arena.engine import Action, PlayerView, RuleOptions
from arena.play.bot import Bot, BotConfigError, Param
from arena.rl.spaces import DEFAULT_RADIUS, ActionTable, Observation, card_slots


def random_policy(observation: dict[str, np.ndarray], rng: random.Random) -> int:
    """Uniform over the masked actions: the baseline, and the example's policy."""
    legal = np.flatnonzero(observation["action_mask"])
    return int(legal[rng.randrange(len(legal))])


def load_policy(path: str) -> Callable[..., Any]:
    """The callable at ``module:name`` or ``module.name``; BotConfigError in one sentence."""
    module_name, sep, attr = path.partition(":")
    if not sep:
        module_name, _, attr = path.rpartition(".")
    if not module_name or not attr:
        raise BotConfigError(f"policy {path!r} is not a dotted path module.name")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise BotConfigError(f"cannot import policy module {module_name!r}: {exc}") from None
    policy = getattr(module, attr, None)
    if not callable(policy):
        raise BotConfigError(f"policy {path!r} is not a callable")
    return policy


class PolicyBot(Bot):
    """Plays an environment policy (a callable named by policy=module:name) over its view."""

    LOADS_USER_CODE = True
    PARAMS = (
        Param("policy", str, "arena.rl.policy:random_policy",
              "the policy's dotted path: a callable(observation[, rng]) -> action index"),
        Param("radius", int, DEFAULT_RADIUS, "the action space's radius (as in the env)",
              minimum=1, maximum=14),
    )
    policy: str
    radius: int

    def __init__(self, rng: random.Random | None = None, **params: Any) -> None:
        super().__init__(rng, **params)
        self._call = load_policy(self.policy)
        try:
            self._wants_rng = "rng" in inspect.signature(self._call).parameters
        except (TypeError, ValueError):
            self._wants_rng = False
        self.encoder = Observation(self.radius)
        self.table = ActionTable(self.radius)

    def start(self, seat: int, players: int, options: RuleOptions) -> None:
        super().start(seat, players, options)
        self.encoder = Observation(self.radius)
        self.table = ActionTable(self.radius, options)

    def choose(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        cards = view.card_set
        if card_slots(cards) != self.table.cards:
            # The game's set adds cards (``start`` is not told the set; the view knows it):
            # the spaces an env with this set has, so the policy sees what it was trained on.
            self.encoder = Observation(self.radius, cards)
            self.table = ActionTable(self.radius, self.options, cards)
        observation = {"observation": self.encoder.encode(view),
                       "action_mask": self.table.mask(list(legal))}
        index = (self._call(observation, rng=self.rng) if self._wants_rng
                 else self._call(observation))
        return self.table.actions[int(index)]
