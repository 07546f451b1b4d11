"""Bots whose text tries to drive the terminal (issue 50): an exception message and a
returned object's ``repr`` that clear the screen and draw a fake standings table.  Loaded by
dotted path: ``--bot tests.tournament.escape_bots.Clearing``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from arena.engine import PlayerView
from bots.random_bot import RandomBot

#: What each of them writes: clear the screen, home, a fake table, a forged next line.
FAKE = ("\x1b[2J\x1b[H\x9b31mStandings after 6 of 6 games (complete): FAKE wins everything"
        "\r\nFAKE line\u202e")


class Clearing(RandomBot):
    """Raises an exception whose message is the fake table."""

    def choose(self, view: PlayerView, legal: Sequence[int]) -> Any:
        raise RuntimeError(FAKE)


class _Screen:
    def __repr__(self) -> str:
        return FAKE


class ClearingRepr(RandomBot):
    """Returns an object whose ``repr`` is the fake table."""

    def choose(self, view: PlayerView, legal: Sequence[int]) -> Any:
        return _Screen()
