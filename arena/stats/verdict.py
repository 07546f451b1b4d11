"""One verdict engine: every "how sure" and "enough games?" the arena prints comes from here.

Why one module: the tournament's standings, its live table, the reports, the ladder, ``bots
tune`` and the balance lab each used to decide for themselves when a figure carries an
interval and how many games would settle it, and on the same games they disagreed ("needs
~40 games" beside "[80.6%, 100.0%]" beside "about 20 games needed").  The rule, written once:

1. **Units.**  A figure stands on its independent units, the deals it was measured on (the
   rotations of one deal share its luck).  Below :data:`MIN_UNITS` deals no interval is
   shown and no test is made; the cell says how many games, at the games per deal already
   played, would carry one (:func:`games_to_carry`).
2. **Interval.**  With enough deals the 95% interval is shown (Wilson for a rate; the
   caller's bootstrap or a normal interval from the deals' spread for a difference).
3. **Verdict.**  A figure whose interval excludes the null ("no difference", "an even
   game") is *settled*.  One that does not is *open*, and its line says how many more games
   would tell a gap of the observed size (at least :data:`FLOOR` points) at 95% with 80%
   power, a power calculation from the observed spread (:func:`games_to_settle`), stated as
   such.  A *perfect* record (every decisive result one way) is printed as one only when the
   record is perfect; its Elo gap is then too large to measure.

Like :mod:`arena.stats.intervals` it imports nothing of ours but that module and nothing outside
the standard library, so the tournament, the ladder and the reports can all use it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Literal

from arena.stats.intervals import MIN_UNITS, Z, games_to_carry, wilson

__all__ = ["FLOOR", "MIN_UNITS", "Verdict", "elo_gap", "from_interval", "games_to_carry",
           "games_to_settle", "paired", "win_rate"]

#: The smallest gap (in win-rate units, 0.05 = 5 points) the power calculation is made for:
#: a gap observed at 0.3 points would otherwise ask for millions of games.
FLOOR = 0.05
#: Elo per unit of the logistic's log-odds: 400 / ln 10.
ELO_PER_NAT = 400.0 / math.log(10.0)

State = Literal["empty", "thin", "perfect", "settled", "open"]


def games_to_settle(effect: float, sd: float, alpha: float = 0.05,
                    power: float = 0.8) -> float:
    """Independent units (deals, or games when they are the units) that a two-sided test at
    ``alpha`` needs to tell a true gap of ``effect`` with probability ``power``, when one
    unit's figure has standard deviation ``sd``: ``((z₁₋α/₂ + z_power)·sd / effect)²``.

    Why the normal approximation: the figures are means over deals, and the answer is a
    planning figure ("about 140 games"), not a test.  ``inf`` for a zero effect, NaN when
    ``sd`` is unknown; 1 at least.
    """
    if math.isnan(sd) or math.isnan(effect):
        return math.nan
    if effect == 0:
        return math.inf
    normal = NormalDist()
    z = normal.inv_cdf(1.0 - alpha / 2.0) + normal.inv_cdf(power)
    return max(1.0, (z * sd / abs(effect)) ** 2)


def _sd(values: Sequence[float]) -> float:
    """The sample standard deviation, NaN below two values."""
    if len(values) < 2:
        return math.nan
    mean = sum(values) / len(values)
    return math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1))


@dataclass(frozen=True)
class Verdict:
    """How sure one figure is, and how many games would make it surer.

    ``lo``/``hi`` are NaN when the figure does not carry an interval (``state`` "thin").
    ``more_games`` is, for "thin", the games more that would carry an interval; for "open",
    the games more that would tell a gap of ``effect`` (power calculation); else None.
    ``kind`` says how to print it: "rate" (a percentage), "points" (a difference of rates,
    in percentage points) or "elo".
    """

    estimate: float
    lo: float
    hi: float
    null: float
    games: int
    units: int
    state: State
    kind: Literal["rate", "points", "elo"] = "rate"
    more_games: int | None = None
    effect: float = math.nan
    record: tuple[int, int] | None = None

    @property
    def shown(self) -> bool:
        """Whether the interval is printed (enough deals, and a finite interval)."""
        return not (math.isnan(self.lo) or math.isnan(self.hi))

    def value(self, x: float | None = None) -> str:
        """``x`` (the estimate by default) in the figure's unit: 71.3%, +4.2 points, +35 Elo."""
        x = self.estimate if x is None else x
        if math.isnan(x):
            return "-"
        if self.kind == "rate":
            return f"{x:.1%}"
        if self.kind == "points":
            return f"{100 * x:+.1f}"
        return f"{x:+.0f}"

    def interval(self) -> str:
        """``[58.4%, 91.9%]``, or the cell's text in its place: ``needs ~40 games``."""
        if self.state == "empty":
            return "-"
        if self.state == "thin":
            total = self.games + (self.more_games or 0)
            return f"needs ~{total} games" if self.games else "not enough games"
        if self.state == "perfect" and self.kind == "elo":
            return "too large to measure"
        return f"[{self.value(self.lo)}, {self.value(self.hi)}]"

    def _gap(self) -> str:
        """The gap the power calculation is for, in the figure's unit."""
        if self.kind == "elo":
            return f"{abs(self.effect):.0f}-Elo gap"
        return f"{100 * abs(self.effect):.0f}-point gap"

    def settle(self) -> str:
        """What would settle the figure, or why it is settled, as a clause."""
        if self.state == "empty":
            return "no games yet"
        if self.state == "thin":
            total = self.games + (self.more_games or 0)
            return (f"not yet: {self.units} deals, fewer than the {MIN_UNITS} an interval "
                    f"needs (about {total} games would carry one)")
        if self.state == "perfect":
            won, lost = self.record or (0, 0)
            return f"a perfect record ({won}–{lost}): the gap is too large to measure"
        if self.state == "settled":
            return "the 95% interval excludes " + (
                "no difference" if self.kind != "rate" else f"{self.null:.0%}")
        if self.more_games is None:
            return "undecided: the interval holds no difference, and the spread is unknown"
        return (f"undecided: about {self.more_games:,} more games would tell a {self._gap()} "
                "at 95% (80% power), from the observed spread")

    def text(self) -> str:
        """One line: the figure, its interval or what it needs, and the verdict."""
        if self.state in ("empty", "thin"):
            return f"{self.value()} ({self.settle()})"
        if self.state == "perfect":
            return self.settle()
        return f"{self.value()} {self.interval()}, {self.settle()}"


def _open_more(effect: float, sd: float, units: int, per_unit: float) -> int | None:
    """Games more than played that :func:`games_to_settle` asks for, None when unknown."""
    need = games_to_settle(effect, sd)
    if not math.isfinite(need):
        return None
    return max(0, math.ceil((need - units) * per_unit))


def _judge(estimate: float, lo: float, hi: float, null: float, games: int, units: int,
           sd: float, per_unit: float, kind: Literal["rate", "points", "elo"],
           effect: float | None, floor: float) -> Verdict:
    """The rule of the module docstring, for a figure whose interval is already known."""
    if games <= 0 or math.isnan(estimate):
        return Verdict(estimate, math.nan, math.nan, null, games, units, "empty", kind)
    carry = games_to_carry(games, units)
    if carry is not None:
        return Verdict(estimate, math.nan, math.nan, null, games, units, "thin", kind,
                       more_games=max(0, carry - games))
    if lo > null or hi < null:
        return Verdict(estimate, lo, hi, null, games, units, "settled", kind)
    gap = abs(estimate - null) if effect is None else abs(effect)
    gap = max(gap, floor)
    return Verdict(estimate, lo, hi, null, games, units, "open", kind,
                   more_games=_open_more(gap, sd, units, per_unit), effect=gap)


def win_rate(share: float, games: int, units: int, null: float = 0.5,
             deal_shares: Sequence[float] | None = None, effect: float | None = None,
             floor: float = FLOOR) -> Verdict:
    """The verdict on a win rate ``share / games`` played over ``units`` deals: Wilson
    interval, settled when it excludes ``null`` (chance: 1/players).

    ``deal_shares`` (each deal's win rate) gives the observed spread for the power
    calculation; without it, the binomial spread of one game, each game a unit.
    """
    p = share / games if games else math.nan
    lo, hi = wilson(share, games) if games else (math.nan, math.nan)
    if deal_shares is not None and len(deal_shares) >= 2:
        sd, per_unit = _sd(deal_shares), games / max(units, 1)
        if sd == 0:
            sd = math.sqrt(null * (1 - null) / per_unit)
        n_units = units
    else:
        q = p if 0 < p < 1 else null
        sd, per_unit, n_units = math.sqrt(q * (1 - q)), 1.0, games
    v = _judge(p, lo, hi, null, games, units, sd, per_unit, "rate", effect, floor)
    if v.state == "open" and n_units != units:
        return Verdict(v.estimate, v.lo, v.hi, null, games, units, "open", "rate",
                       more_games=_open_more(v.effect, sd, n_units, per_unit), effect=v.effect)
    return v


def paired(diffs: Sequence[float], games_per_unit: float = 1.0, effect: float | None = None,
           lo: float | None = None, hi: float | None = None,
           floor: float = FLOOR) -> Verdict:
    """The verdict on a paired difference of win rates: ``diffs`` holds one difference per
    deal both sides played (B's rate minus A's), ``games_per_unit`` the games behind each.

    The interval is the caller's (a bootstrap over the deals) when given, else the normal
    interval of the mean difference from the deals' spread.
    """
    units = len(diffs)
    games = round(units * games_per_unit)
    if not units:
        return Verdict(math.nan, math.nan, math.nan, 0.0, 0, 0, "empty", "points")
    mean = sum(diffs) / units
    sd = _sd(diffs)
    if lo is None or hi is None:
        half = Z * sd / math.sqrt(units) if units >= 2 else math.nan
        lo, hi = mean - half, mean + half
    return _judge(mean, lo, hi, 0.0, games, units, sd, games_per_unit, "points", effect,
                  floor)


def from_interval(estimate: float, lo: float, hi: float, games: int, units: int,
                  null: float = 0.0, kind: Literal["rate", "points", "elo"] = "points",
                  effect: float | None = None, floor: float = FLOOR) -> Verdict:
    """The verdict on a figure whose 95% interval was computed elsewhere (a bootstrap over
    deals, Newcombe's interval of two runs): the spread of one deal is read back from the
    interval's width, ``sd = (hi - lo) / (2·1.96) · √units``, for the power calculation.
    A NaN interval with enough deals is judged open with an unknown spread."""
    per_unit = games / units if units else math.nan
    sd = (hi - lo) / (2.0 * Z) * math.sqrt(units) if units else math.nan
    return _judge(estimate, lo, hi, null, games, units, sd, per_unit, kind, effect, floor)


def elo_gap(wins: float, losses: float, games: int, units: int,
            lo: float | None = None, hi: float | None = None,
            deal_scores: Sequence[float] | None = None, effect: float | None = None,
            floor: float = 35.0) -> Verdict:
    """The verdict on the Elo gap between two participants from their head-to-head record
    (``wins`` and ``losses`` of the first; level results make up ``games``).

    Perfect (too large to measure) only when the record is: every decisive result one way,
    with at least one.  The interval is the caller's (a bootstrap) when given, else the
    Wilson interval of the score mapped to Elo.  ``floor``: the smallest gap, in Elo, the
    power calculation is made for (35 Elo is about a 5-point gap of win rate at 50%).
    """
    if games <= 0:
        return Verdict(math.nan, math.nan, math.nan, 0.0, 0, units, "empty", "elo")
    score = (wins + (games - wins - losses) / 2.0) / games

    def elo(s: float) -> float:
        if s <= 0:
            return -math.inf
        if s >= 1:
            return math.inf
        return ELO_PER_NAT * math.log(s / (1.0 - s))

    carry = games_to_carry(games, units)
    if carry is not None:
        return Verdict(elo(score), math.nan, math.nan, 0.0, games, units, "thin", "elo",
                       more_games=max(0, carry - games), record=(round(wins), round(losses)))
    if (wins == 0) != (losses == 0):
        return Verdict(elo(score), math.nan, math.nan, 0.0, games, units, "perfect", "elo",
                       record=(round(wins), round(losses)))
    if lo is None or hi is None:
        slo, shi = wilson(score * games, games)
        lo, hi = elo(slo), elo(shi)
    # The spread of a score, in Elo near the estimate (the logistic's slope there).
    q = min(max(score, 0.01), 0.99)
    slope = ELO_PER_NAT / (q * (1 - q))
    if deal_scores is not None and len(deal_scores) >= 2:
        sd, per_unit = _sd(deal_scores) * slope, games / max(units, 1)
        n_units = units
    else:
        sd, per_unit, n_units = math.sqrt(q * (1 - q)) * slope, 1.0, games
    v = _judge(elo(score), lo, hi, 0.0, games, units, sd, per_unit, "elo", effect, floor)
    if v.state == "open":
        return Verdict(v.estimate, v.lo, v.hi, 0.0, games, units, "open", "elo",
                       more_games=_open_more(v.effect, sd, n_units, per_unit), effect=v.effect,
                       record=(round(wins), round(losses)))
    return Verdict(v.estimate, v.lo, v.hi, 0.0, games, units, v.state, "elo",
                   more_games=v.more_games, effect=v.effect,
                   record=(round(wins), round(losses)))
