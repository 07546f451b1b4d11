"""Helpers for the tournament tests: short games, the command through CliRunner, records."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from arena.commands.tournament import tournament
from arena.runs.segments import iter_lines

#: Short games: the random bot plays instantly and 8 rounds cap a game.
FAST = ("--rule", "max_rounds=8")
BROKEN = "tests.tournament.broken_bots."


#: When the running test began (``time.time()``): what its jails left is told from what
#: the tests beside it (``pytest -n``) are making.
TEST_STARTED = [0.0]


@pytest.fixture(autouse=True)
def _note_the_start() -> None:
    TEST_STARTED[0] = time.time()


def run_cli(args: Sequence[str]) -> Result:
    """``arena tournament ARGS`` in this process (quiet progress unless asked)."""
    return CliRunner().invoke(tournament, list(args), catch_exceptions=False)


def read_records(directory: Path) -> list[dict[str, Any]]:
    """The records of a run, from its sealed segments and its ``games.jsonl``."""
    return [json.loads(raw) for _source, raw in iter_lines(directory)]


def timeless(directory: Path) -> dict[str, dict[str, Any]]:
    """The records by game id, without the thinking times (the only field allowed to vary)
    and the MAC or signature and chain link (each run's own)."""
    out = {}
    for record in read_records(directory):
        record.pop("seconds")
        for name in ("mac", "prev", "sig"):
            record.pop(name, None)
        assert record["game"] not in out, f"game {record['game']} recorded twice"
        out[record["game"]] = record
    return out


def assert_blamed(record: dict[str, Any], name: str, kind: str, message: str) -> int:
    """The game of participant ``name`` ended with its fault of ``kind``: it cannot win,
    another seat did.  Returns its seat."""
    seat = record["seats"].index(name)
    error = record["error"]
    assert error is not None, record["game"]
    assert error["seat"] == seat and error["kind"] == kind, error
    assert message in error["message"], error
    assert seat not in record["winners"] and record["winners"], record["game"]
    return seat
