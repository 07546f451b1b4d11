"""The Wilson interval of a win rate, written once for the tournament and the reports.

Why a module of its own, below both: the runner prints standings while it plays and must not
import ``reports`` (whose ``__init__`` loads pandas, scipy and matplotlib: seconds added to
every run), and ``reports`` must not reach into the arena's live objects.  Neither is the
home of a formula both print, so it lives here, where, like ``arena.play.limits``, it imports
nothing of ours and no third-party package (not even numpy, which the tournament does not
otherwise load): anything may import it.  ``reports.stats.wilson`` applies it to arrays.
"""

from __future__ import annotations

import math

#: The two-sided 95% normal quantile, Φ⁻¹(0.975), behind every interval of the project.
Z = 1.959963984540054
#: Independent units (deals) below which no interval is shown and no test is made, in any
#: table the arena prints or writes: the games of one deal share its seed and luck, so an
#: interval over two or three deals is no interval, however many games they hold.
MIN_UNITS = 10


def wilson(successes: float, n: float, z: float = Z) -> tuple[float, float]:
    """Wilson score interval of ``successes / n``.

    It stays inside [0, 1] and behaves with few games and with rates near 0 and 1, where the
    textbook ``p ± z·se`` does not; ``successes`` may be fractional (a shared win counts
    ``1/k``).  NaNs when ``n`` is 0 or either count is NaN; the bound at 0 (at ``n``) is
    exactly 0 (1), where rounding would leave 1e-19.
    """
    if not n > 0 or math.isnan(successes):
        return math.nan, math.nan
    p = successes / n
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2.0 * n)) / denom
    half = z * math.sqrt(max(p * (1.0 - p), 0.0) / n + z * z / (4.0 * n * n)) / denom
    lo = 0.0 if successes <= 0 else min(1.0, max(0.0, centre - half))
    hi = 1.0 if successes >= n else min(1.0, max(0.0, centre + half))
    return lo, hi


def games_to_carry(games: float, units: float, min_units: int = MIN_UNITS) -> int | None:
    """None when ``units`` deals carry an interval; else about how many games in all (at the
    ``games / units`` per deal already played) would give ``min_units`` deals: 0 when none
    were played.  The first step of :mod:`arena.stats.verdict`'s rule, kept here, below it."""
    if units >= min_units:
        return None
    if not units > 0 or not games > 0:
        return 0
    return math.ceil(games * min_units / units)


def carried(units: int, games: int, min_units: int = MIN_UNITS) -> str | None:
    """None when ``units`` deals carry an interval; else the cell's text instead of one:
    about how many games (at this run's games per deal) would carry it."""
    total = games_to_carry(games, units, min_units)
    if total is None:
        return None
    return f"needs ~{total} games" if total else "not enough games"
