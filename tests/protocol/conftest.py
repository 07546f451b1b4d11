"""Each protocol test ends the engine processes it left in the pool, so that no engine of
one test is counted as a leftover by a jail test beside it in the same worker."""

from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True)
def _end_engines() -> Iterator[None]:
    yield
    from arena.play.registry import end_engines

    end_engines()
