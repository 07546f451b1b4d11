"""The tournament runner: a schedule computed up front, played on worker processes or Dask.

``arena tournament`` is :data:`arena.commands.tournament.tournament`; from Python::

    from arena.tournament import RunSettings, TournamentConfig, run_tournament
"""

from arena.tournament.runner import RunResult, RunSettings, run_tournament
from arena.tournament.schedule import (
    Schedule,
    ScheduledGame,
    SprtParams,
    TournamentConfig,
    make_schedule,
)

__all__ = [
    "RunResult",
    "RunSettings",
    "Schedule",
    "ScheduledGame",
    "SprtParams",
    "TournamentConfig",
    "make_schedule",
    "run_tournament",
]
