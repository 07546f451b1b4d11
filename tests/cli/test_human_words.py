"""The human seat says what each legal action does (issue 42): every action of many random
positions gets words, a placement names the drawn plot's tile, and the prompt counts the
actions left of the turn."""

from __future__ import annotations

import random

from arena.engine import PlayerView, action_text, new_game
from arena.engine.components import DEFAULT_CARD_SET, tile_name
from arena.show.human import HumanBot, actions_left, describe


def test_every_legal_action_is_described_in_words() -> None:
    kinds: set[str] = set()
    for seed in range(6):
        state = new_game(2 + seed % 3, seed)
        rng = random.Random(seed)
        bot = HumanBot()
        bot.start(state.current, state.players, state.options)
        while not state.ended and state.round < 30:
            view = PlayerView.of(state, state.current)
            bot.seat = state.current
            for action in state.legal_actions():
                text = action_text(action, DEFAULT_CARD_SET)
                words = describe(text, view)
                assert words, text
                kinds.add(text.split(" ")[0])
                if text.startswith("place "):
                    k = int(text.split(" ")[1])
                    assert f"({tile_name(view.drawn[k])})" in words
                    assert ("reverse order" in words) == text.endswith(" swap")
            prompt = bot.prompt(view)
            if view.step_name == "actions":
                left = actions_left(view)
                assert left == state.actions_left()
                assert (f"{left} action" in prompt) if left > 0 else "free moves only" in prompt
            state.apply(rng.choice(state.legal_actions()))
    assert {"plot", "place", "gardener", "panda", "objective", "end", "weather"} <= kinds

