"""Limits shared by the game loop, the tournament schedule, the CLI and the bots.

Why a module of its own: a bot that bounds its own thinking time and a schedule that checks a
tournament's move time before any game starts both need the same bound, and neither should
import the game loop (``arena.play.match``) to get it.  This module imports nothing, so anything may
import it.
"""

from __future__ import annotations

#: The longest move time accepted (a day): beyond it the alarm's timer overflows, and no
#: tournament means it.
MAX_MOVE_TIME = 86400.0


def move_time_problem(seconds: float | None) -> str | None:
    """What is wrong with a move time (None if nothing): checked before any game starts,
    because inside one a bad limit would be charged to the bot that was thinking."""
    if seconds is None:
        return None
    if not 0 < seconds <= MAX_MOVE_TIME:  # also false for NaN
        return f"must be above 0 and at most {MAX_MOVE_TIME:g} seconds, not {seconds:g}"
    return None


#: Seconds a bot has to start (be created, then its start hook), or the move time when that
#: is longer, wherever it plays (in a worker, in a bot process of its own, on a Dask
#: worker): start-up is not a decision, and a bot that loads something, or an interpreter
#: started on a loaded machine, must not forfeit for it; a bot that hangs there still
#: costs only its own game, after this long.
START_TIME = 10.0


def start_time(move_time: float | None) -> float | None:
    """The start-up budget that goes with a move time (None: no limit, as for moves)."""
    return None if move_time is None else max(START_TIME, move_time)
