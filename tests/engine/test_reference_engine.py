"""The engine's rule and property tests on the reference engine too.

The suite runs on the selected engine (native by default); this runs ``tests/engine`` again
in a subprocess with ``ARENA_ENGINE=reference``, so the README's test command checks both
implementations against the same rule tests.  The differential tests (``test_native.py``)
name both engines themselves and are not run twice.  When the suite itself runs on the reference
it is already doing so, and this is skipped.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from arena.engine import ENGINE

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(ENGINE == "reference", reason="the suite runs on the reference already")
@pytest.mark.timeout(1200)
def test_the_engine_tests_pass_on_the_reference_engine() -> None:
    env = {**os.environ, "ARENA_ENGINE": "reference"}
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/engine",
         "--deselect", "tests/engine/test_reference_engine.py",
         # Native against reference by name, whichever engine is selected: run once already.
         "--deselect", "tests/engine/test_native.py"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=1200,
    )
    tail = run.stdout[-3000:]
    assert run.returncode == 0, tail + run.stderr[-2000:]
    passed = re.search(r"(\d+) passed", tail)
    assert passed and int(passed[1]) > 500, tail
