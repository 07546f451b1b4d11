"""SplitMix64: the game's seeded generator, as one int of state.

``random.Random`` would do, but its state is a 625-word tuple: copying a game for search would
cost more than the rest of the state together.  SplitMix64 keeps its whole state in one
64-bit int (copied for free, written into positions as a number), is the same on every
platform and Python version, and is plenty for shuffling decks and rolling a die.
"""

from __future__ import annotations

from collections.abc import Sequence

MASK64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15

#: A seed is a whole number of 128 bits (the native engine holds it so), from
#: -SEED_LIMIT to SEED_LIMIT - 1; ``SEED_RANGE`` refuses another (a position's, a new game's).
SEED_LIMIT = 1 << 127
SEED_RANGE = "must be a whole number from -2**127 to 2**127-1, not {value}"


def check_new_game(players: int, seed: int, dice: Sequence[int]) -> None:
    """Refuse (ValueError) what ``new_game`` cannot start from: the one check of both
    engines' ``new_game``, so that they refuse a player count, a seed or a die face with
    the same sentence (the native engine's core takes only what passes)."""
    if isinstance(players, bool) or not isinstance(players, int) or players not in (2, 3, 4):
        raise ValueError(f"a game has 2, 3 or 4 players, not {players}")
    if isinstance(seed, bool) or not isinstance(seed, int) or not (
            -SEED_LIMIT <= seed < SEED_LIMIT):
        raise ValueError("seed: " + SEED_RANGE.replace("{value}", repr(seed)))
    if not all(isinstance(f, int) and 0 <= f <= 5 for f in dice):
        raise ValueError("dice: faces are 0..5")


def seed_state(seed: int) -> int:
    """Initial state for a game seed; any int is accepted (negative ones too)."""
    return seed & MASK64


def next_state(state: int) -> tuple[int, int]:
    """Advance the state: ``(new_state, 64-bit output)``."""
    state = (state + GOLDEN) & MASK64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return state, z ^ (z >> 31)


def below(state: int, n: int) -> tuple[int, int]:
    """``(new_state, x)`` with x uniform in ``range(n)`` (rejection sampling, no bias)."""
    limit = MASK64 + 1 - (MASK64 + 1) % n
    while True:
        state, z = next_state(state)
        if z < limit:
            return state, z % n


def shuffled(state: int, items: tuple | list) -> tuple[int, tuple]:
    """``(new_state, items shuffled)`` by Fisher-Yates."""
    out = list(items)
    for i in range(len(out) - 1, 0, -1):
        state, j = below(state, i + 1)
        out[i], out[j] = out[j], out[i]
    return state, tuple(out)
