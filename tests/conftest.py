"""The whole suite's hooks."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture(autouse=True, scope="session")
def config_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Every test's config directory (your signing key, the keys you trust:
    ``arena/runs/keys.py``) is a temporary folder, never the user's: one for the session, set
    before any fixture plays a run, so that a module's run is signed by the key its tests
    hold.  A test that needs a key or a trust of its own sets ``ARENA_CONFIG_DIR`` itself."""
    folder = tmp_path_factory.mktemp("config")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ARENA_CONFIG_DIR", str(folder))
        yield folder


def pytest_sessionfinish(session: Any, exitstatus: int) -> None:
    """Remove the jails' cgroups left by runs the tests killed outright (a killed run's
    workers cannot remove theirs; a later run sweeps them, and so does the suite's end)."""
    from arena.jail.bwrap import sweep_cgroups

    sweep_cgroups(wait=5.0)
