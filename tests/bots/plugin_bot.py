"""A bot that lives in the tests, loaded by dotted path (``tests.bots.plugin_bot.MyBot``).

It proves that a bot outside ``bots/`` and outside any entry point can be named in a spec:
nothing is installed, the registry imports the module by its path.
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.engine import PlayerView
from bots.base import Bot, Param


class MyBot(Bot):
    """Plays the first legal action after skipping ``x`` of them (a test plug-in)."""

    PARAMS = (
        Param("x", int, 0, "legal actions to skip before choosing", minimum=0),
        Param("style", str, "plain", "a text parameter with choices", choices=("plain", "odd")),
    )
    x: int
    style: str

    def choose(self, view: PlayerView, legal: Sequence[int]) -> int:
        return legal[min(self.x, len(legal) - 1)]


class Lucky(Bot):
    """Plays a legal action drawn from its own generator (a plug-in whose play shows how it
    was seeded)."""

    def choose(self, view: PlayerView, legal: Sequence[int]) -> int:
        return self.rng.choice(legal)
