"""The whole suite's hooks."""

from __future__ import annotations

import signal
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


#: Modules with a test of a minute or more on CI's two cores (beside those with a ``long``
#: test): run first, so that ``pytest -n 2`` hands them out while the short tests are left to
#: fill the gaps, and no worker ends the run alone on one of them.
HEAVY = {"test_reference_engine.py", "test_readme.py", "test_one_door.py", "test_native_bots.py"}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The heavy modules' tests first, each module's tests together and in their order."""
    heavy = {item.path for item in items
             if item.path.name in HEAVY or item.get_closest_marker("long")}
    items.sort(key=lambda item: item.path not in heavy)


def pytest_sessionfinish(session: Any, exitstatus: int) -> None:
    """Remove the jails' cgroups left by runs the tests killed outright (a killed run's
    workers cannot remove theirs; a later run sweeps them, and so does the suite's end)."""
    from arena.jail.bwrap import sweep_cgroups

    sweep_cgroups(wait=5.0)



@pytest.fixture(autouse=True)
def sigint_heard() -> None:
    """Every test starts with Ctrl-C heard, so the commands it starts hear it too.

    A process that inherits SIGINT ignored (a suite started as `pytest &` from a script) passes
    the ignoring on to every command a test starts, and the tests of Ctrl-C (the tuner, the
    human seat, a run's resume) would type ^C at a process deaf to it.  A handler, unlike an
    ignored signal, is reset to the default by exec.  (CI once saw two such tests fail on one
    worker, each command running on as if ^C had not come; no test of the suite was found
    to leave SIGINT ignored, so this guards the start rather than blaming a test.)
    """
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
