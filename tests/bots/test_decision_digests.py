"""The built-in bots' decisions, held by digests of seeded games.

Why: every strength figure of record was measured on the bots as they play now.  Work that
only makes a bot faster (caches, incremental costs, lazy sampling) must leave every decision
as it was, and these digests say whether it did: a game's full event list (moves and chance,
in notation) is hashed, for each built-in bot with default parameters, with 2 and 4 players.
A change that is meant to alter play (a rule fix, a new default) re-makes the digests in its
own commit and says why (``python -m tests.bots.test_decision_digests`` prints them).

The digests hold for both implementations of the bots: on the native engine (the default)
``greedy``, ``objective`` and ``mcts`` made from their specs are native seats whose
Rust twins decide (``arena.play.seat``), and
``test_decisions_are_unchanged_on_the_reference_engine`` plays the same games again with
``ARENA_ENGINE=reference``, where every bot is pure Python on the Python engine.  The
native-only bots (``learned``, ``elite``) have no Python twin: their digests are in their own
test files (``tests/bots/test_learned.py``, ``tests/bots/test_elite.py``).

The games go through ``arena.play.match.play_game``, the loop every command uses, with the bots
made as ``arena play`` and the tournaments make them (``arena.play.registry.make_bot``).  ``mcts``
is slow, so the short form digests the first decisions of its games;
``ARENA_LONG=1`` plays them to the end as well.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from arena.engine import ENGINE
from arena.play.match import play_game
from arena.play.registry import BotSpec, make_bot

LONG = os.environ.get("ARENA_LONG") == "1"


class _Enough(Exception):
    """Stops a game once the decisions asked for are made."""


def game_digest(spec: str, players: int, seed: int, decisions: int | None = None) -> str:
    """The sha256 (first 16 hex digits) of a game's events, seats all played by ``spec``.

    ``decisions`` stops the game after that many decisions (None: to the end).
    """
    parsed = BotSpec.parse(spec)
    bots = [make_bot(parsed, seed, seat) for seat in range(players)]  # as `arena play` does
    events: list[str] = []
    made = 0

    def on_decision(seat: int) -> None:
        nonlocal made
        if decisions is not None and made >= decisions:
            raise _Enough
        made += 1

    try:
        outcome = play_game(
            bots, seed, on_event=lambda event, _state: events.append(str(event)),
            on_decision=on_decision,
        )
        assert outcome.error is None, outcome.error
        events.append(f"scores {outcome.record['scores']} winners {outcome.record['winners']}")
    except _Enough:
        events.append(f"stopped after {made} decisions")
    return hashlib.sha256("\n".join(events).encode()).hexdigest()[:16]


#: (bot spec, players, seed, decisions or None for a whole game) -> digest.
CASES: dict[tuple[str, int, int, int | None], str] = {
    ("random", 2, 1, None): "4072493cb4686f6f",
    ("random:complete=true", 4, 2, None): "96353b43f5e35889",
    ("greedy", 2, 1, None): "681b096b436474d0",
    ("greedy", 2, 2, None): "1c07a9097faad9dd",
    ("greedy", 4, 3, None): "168896e9e916b4bc",
    ("objective", 2, 1, None): "a29176757cbc6fbe",
    ("objective", 2, 2, None): "2c0c3e69e952b5bc",
    ("objective", 4, 3, None): "b3927e15aa7efd9a",
    ("mcts", 2, 1, 40): "873d8c8c9dda8468",
    ("mcts", 4, 3, 30): "475be0816efec0bc",
}

#: Whole mcts games, for the long form only (about a minute each before the speed work).
LONG_CASES: dict[tuple[str, int, int, int | None], str] = {
    ("mcts", 2, 1, None): "9e1475de58e90297",
    ("mcts", 4, 3, None): "510b092c9d2a2c34",
}


@pytest.mark.parametrize("case", list(CASES), ids=lambda c: f"{c[0]}-{c[1]}p-seed{c[2]}")
def test_decisions_are_unchanged(case: tuple[str, int, int, int | None]) -> None:
    assert game_digest(*case) == CASES[case]


@pytest.mark.long
@pytest.mark.skipif(not LONG, reason="whole mcts games: set ARENA_LONG=1")
@pytest.mark.parametrize("case", list(LONG_CASES), ids=lambda c: f"{c[0]}-{c[1]}p-seed{c[2]}")
def test_whole_mcts_games_are_unchanged(case: tuple[str, int, int, int | None]) -> None:
    assert game_digest(*case) == LONG_CASES[case]


@pytest.mark.skipif(ENGINE == "reference", reason="the suite runs on the reference already")
@pytest.mark.timeout(3600)
def test_decisions_are_unchanged_on_the_reference_engine() -> None:
    """The same digests from the Python bots on the Python engine, in a subprocess (the
    whole mcts games too under ``ARENA_LONG=1``)."""
    root = Path(__file__).resolve().parents[2]
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", __file__,
         "-k", "not reference_engine and not different_decision"],
        cwd=root, env={**os.environ, "ARENA_ENGINE": "reference"}, capture_output=True,
        text=True, timeout=3600, check=False,
    )
    tail = run.stdout[-3000:]
    assert run.returncode == 0, tail + run.stderr[-2000:]
    passed = re.search(r"(\d+) passed", tail)
    assert passed and int(passed[1]) >= len(CASES) + (len(LONG_CASES) if LONG else 0), tail


def test_a_different_decision_changes_the_digest() -> None:
    """The digest sees play: another bot seed (so other tie-breaks) gives another digest."""
    assert game_digest("greedy", 2, 1) != game_digest("greedy", 2, 4)
    assert game_digest("greedy", 2, 1, decisions=10) != game_digest("greedy", 2, 1, decisions=11)


if __name__ == "__main__":  # pragma: no cover - prints the table to paste above
    table = LONG_CASES if "--long" in sys.argv else CASES
    for key in table:
        print(f"    {key!r}: {game_digest(*key)!r},")
