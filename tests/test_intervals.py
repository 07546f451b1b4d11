"""The Wilson interval both the tournament's standings and the reports print."""

from __future__ import annotations

import math

import numpy as np
import pytest

from arena.stats.intervals import wilson
from reports import stats


def test_the_interval_worked_by_hand() -> None:
    # 4.5 wins in 8 games (a shared win counts half), z = 1.959964:
    # denom = 1 + z²/8 = 1.480182, centre = (0.5625 + z²/16) / denom = 0.542225,
    # half = z * sqrt(0.5625 * 0.4375 / 8 + z² / 256) / denom = 0.283277.
    assert wilson(4.5, 8) == pytest.approx((0.258948, 0.825501), abs=1e-6)


def test_the_edges() -> None:
    # 0 of 10: the lower bound is exactly 0, the upper z²/(n + z²) = 0.27754; 10 of 10 mirrors.
    lo, hi = wilson(0, 10)
    assert lo == 0.0 and hi == pytest.approx(0.27754, abs=1e-5)
    lo, hi = wilson(10, 10)
    assert hi == 1.0 and lo == pytest.approx(1 - 0.27754, abs=1e-5)
    for x, n in ((0, 0), (1, math.nan), (math.nan, 10)):
        assert all(math.isnan(v) for v in wilson(x, n)), (x, n)


def test_the_reports_apply_the_same_formula_to_arrays() -> None:
    x = np.array([[0, 3, 10], [7.5, 480, math.nan]])
    n = np.array([10, 10, 10])  # broadcast against both rows
    lo, hi = stats.wilson(x, n)
    assert lo.shape == hi.shape == (2, 3) and lo.dtype == hi.dtype == np.float64
    for i, j in np.ndindex(x.shape):
        assert (lo[i, j], hi[i, j]) == pytest.approx(wilson(x[i, j], n[j]), nan_ok=True)
    lo, hi = stats.wilson([], [])
    assert lo.shape == hi.shape == (0,)
