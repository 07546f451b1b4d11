"""The built-in bots' decisions, held by digests of seeded games.

Why: every strength figure of record was measured on the bots as they play now.  Work that
only makes a bot faster (caches, incremental costs, lazy sampling) must leave every decision
as it was, and these digests say whether it did: a game's full event list (moves and chance,
in notation) is hashed, for each built-in bot with default parameters, with 2 and 4 players.
A change that is meant to alter play (a rule fix, a new default) re-makes the digests in its
own commit and says why (``python -m tests.bots.test_decision_digests`` prints them).

The games go through ``arena.match.play_game``, the loop every command uses, with the bots
seeded as ``arena play`` seeds them.  ``mcts`` is slow, so the short form digests the first
decisions of its games; ``ARENA_LONG=1`` plays them to the end as well.
"""

from __future__ import annotations

import hashlib
import os
import random
import sys

import pytest

from arena.match import play_game
from arena.registry import BotSpec

LONG = os.environ.get("ARENA_LONG") == "1"


class _Enough(Exception):
    """Stops a game once the decisions asked for are made."""


def game_digest(spec: str, players: int, seed: int, decisions: int | None = None) -> str:
    """The sha256 (first 16 hex digits) of a game's events, seats all played by ``spec``.

    ``decisions`` stops the game after that many decisions (None: to the end).
    """
    parsed = BotSpec.parse(spec)
    bots = [parsed.create(random.Random(seed * 10 + seat)) for seat in range(players)]
    events: list[str] = []
    made = 0

    def on_decision(seat: int) -> None:
        nonlocal made
        if decisions is not None and made >= decisions:
            raise _Enough
        made += 1

    try:
        outcome = play_game(
            bots, seed, on_event=lambda line, _round, _state: events.append(line),
            on_decision=on_decision,
        )
        assert outcome.error is None, outcome.error
        events.append(f"scores {outcome.record['scores']} winners {outcome.record['winners']}")
    except _Enough:
        events.append(f"stopped after {made} decisions")
    return hashlib.sha256("\n".join(events).encode()).hexdigest()[:16]


#: (bot spec, players, seed, decisions or None for a whole game) -> digest.
CASES: dict[tuple[str, int, int, int | None], str] = {
    ("random", 2, 1, None): "b6f95f2738b8589e",
    ("random:complete=true", 4, 2, None): "4b5639b6ab35faff",
    ("greedy", 2, 1, None): "e4a12c97065e3e33",
    ("greedy", 2, 2, None): "90246536a9a03b76",
    ("greedy", 4, 3, None): "2b4af535a60efa9c",
    ("objective", 2, 1, None): "def3bf7832aa169e",
    ("objective", 2, 2, None): "8fef1e33e60a8ffa",
    ("objective", 4, 3, None): "a578af8c8221df83",
    ("mcts", 2, 1, 40): "a187311653499fee",
    ("mcts", 4, 3, 30): "635acb94361f302e",
}

#: Whole mcts games, for the long form only (about a minute each before the speed work).
LONG_CASES: dict[tuple[str, int, int, int | None], str] = {
    ("mcts", 2, 1, None): "59d30d259abdaf75",
    ("mcts", 4, 3, None): "a49c6ba01579ed70",
}


@pytest.mark.parametrize("case", list(CASES), ids=lambda c: f"{c[0]}-{c[1]}p-seed{c[2]}")
def test_decisions_are_unchanged(case: tuple[str, int, int, int | None]) -> None:
    assert game_digest(*case) == CASES[case]


@pytest.mark.long
@pytest.mark.skipif(not LONG, reason="whole mcts games: set ARENA_LONG=1")
@pytest.mark.parametrize("case", list(LONG_CASES), ids=lambda c: f"{c[0]}-{c[1]}p-seed{c[2]}")
def test_whole_mcts_games_are_unchanged(case: tuple[str, int, int, int | None]) -> None:
    assert game_digest(*case) == LONG_CASES[case]


def test_a_different_decision_changes_the_digest() -> None:
    """The digest sees play: another bot seed (so other tie-breaks) gives another digest."""
    assert game_digest("greedy", 2, 1) != game_digest("greedy", 2, 4)
    assert game_digest("greedy", 2, 1, decisions=10) != game_digest("greedy", 2, 1, decisions=11)


if __name__ == "__main__":  # pragma: no cover - prints the table to paste above
    table = LONG_CASES if "--long" in sys.argv else CASES
    for key in table:
        print(f"    {key!r}: {game_digest(*key)!r},")
