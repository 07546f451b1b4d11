"""A bot module whose import leaves a mark: the PID of every process that imports it is
appended to the file named by ``ARENA_IMPORT_SPY`` (code run at import could as well patch
the engine or hook the garbage collector of that process).  Used only isolated, so that no
process of the arena's own ever imports it."""

from __future__ import annotations

import os

from bots.random_bot import RandomBot

_where = os.environ.get("ARENA_IMPORT_SPY")
if _where:
    with open(_where, "a") as _f:
        _f.write(f"{os.getpid()}\n")


class Quiet(RandomBot):
    """Plays random; all the mischief is in the import above."""
