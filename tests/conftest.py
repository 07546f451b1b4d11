"""The whole suite's hooks."""

from __future__ import annotations

from typing import Any


def pytest_sessionfinish(session: Any, exitstatus: int) -> None:
    """Remove the jails' cgroups left by runs the tests killed outright (a killed run's
    workers cannot remove theirs; a later run sweeps them, and so does the suite's end)."""
    from arena.tournament.jail import sweep_cgroups

    sweep_cgroups(wait=5.0)
