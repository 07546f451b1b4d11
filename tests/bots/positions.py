"""Crafted positions shared by the bot tests (``arena.engine.from_position``)."""

from __future__ import annotations

import random
from typing import Any

from arena.engine import GameState, PlayerView, RuleOptions, action_text, from_position
from arena.engine.components import CARD_CATEGORY, DEFAULT_CARD_SET
from arena.play.registry import BotSpec

#: Short complete games for unit tests: three objectives take the Emperor (R13.1).
SHORT = RuleOptions(objectives_to_end=((2, 3), (3, 3), (4, 3)), max_rounds=12)


def position(
    hands: list[dict[str, Any]],
    tiles: list[dict[str, Any]],
    *,
    step: str = "actions",
    weather: str | None = None,
    round: int = 2,
    **extra: Any,
) -> GameState:
    """A two-player position, seat 0 to play, from the parts a test cares about."""
    data: dict[str, Any] = {
        "format": "takenoko-position/1",
        "players": len(hands),
        "round": round,
        "current": 0,
        "turn": {"step": step, "weather": weather, "actions": [], "drawn": []},
        "tiles": tiles,
        "hands": hands,
    }
    data.update(extra)
    return from_position(data)


def decide(spec: str, state: GameState, seed: int = 0) -> str:
    """The decision of a fresh bot of ``spec`` for the seat to play, as notation."""
    bot = BotSpec.parse(spec).create(random.Random(seed))
    bot.start(state.current, state.players, state.options)
    action = bot.choose(PlayerView.of(state, state.current), list(state.legal_actions()))
    assert action in state.legal_actions()
    return action_text(action, DEFAULT_CARD_SET)


#: One gardener move (to 1,0) completes gardener-04 (green, 4 sections, no improvement).
ONE_GROWTH_TO_GO = dict(
    hands=[{"objectives": ["gardener-04", "panda-11"]}, {"objectives": ["panda-01"]}],
    tiles=[
        {"at": "1,0", "tile": "green", "bamboo": 3},
        {"at": "1,-1", "tile": "yellow", "bamboo": 1},
        {"at": "0,-1", "tile": "green", "bamboo": 1},
    ],
)


def _shuffle_unknown(cards: tuple[int, ...], known: tuple[int, ...], bit: int,
                     rng: random.Random) -> tuple[int, ...]:
    """The deck with the cards at places ``bit`` does not know shuffled among themselves."""
    free = [i for i, mask in enumerate(known) if not mask & bit]
    moved = [cards[i] for i in free]
    rng.shuffle(moved)
    out = list(cards)
    for i, card in zip(free, moved):
        out[i] = card
    return tuple(out)


def hidden_twin(state: GameState, seat: int, rng: random.Random) -> GameState:
    """A copy that differs from ``state`` only in what ``seat`` cannot see."""
    bit = 1 << seat
    decks = [list(d) for d in state.objective_decks]
    hands = [list(h) for h in state.hands]
    for other in range(state.players):
        if other == seat:
            continue
        for j, card in enumerate(hands[other]):
            category = CARD_CATEGORY[card]
            places = [i for i, m in enumerate(state.objective_known[category]) if not m & bit]
            if places:
                i = rng.choice(places)
                hands[other][j], decks[category][i] = decks[category][i], card
    objective_decks = [
        _shuffle_unknown(tuple(d), known, bit, rng)
        for d, known in zip(decks, state.objective_known)
    ]
    plot_deck = _shuffle_unknown(state.plot_deck, state.plot_known, bit, rng)
    return state.with_hidden(hands=hands, objective_decks=objective_decks, plot_deck=plot_deck,
                             rng=rng.getrandbits(64), seed=rng.getrandbits(63))
