"""The tournament runner: a schedule computed up front, played on worker processes or Dask.

``arena tournament`` is :data:`arena.tournament.command.tournament`; from Python::

    from arena.tournament import RunSettings, TournamentConfig, run_tournament
"""

from .runner import RunResult, RunSettings, run_tournament
from .schedule import Schedule, ScheduledGame, SprtParams, TournamentConfig, make_schedule

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
