"""The one verdict engine: one rule for intervals, perfect records and games that would tell."""

from __future__ import annotations

import math

import pytest

from arena.stats import verdict
from arena.stats.intervals import carried


def test_games_to_settle_is_the_textbook_power_calculation() -> None:
    # (1.96 + 0.84)^2 * 0.5^2 / 0.05^2 = 785: a 5-point gap of a coin-flip's spread.
    assert verdict.games_to_settle(0.05, 0.5) == pytest.approx(784.9, abs=0.1)
    assert verdict.games_to_settle(0.0, 0.5) == math.inf
    assert math.isnan(verdict.games_to_settle(0.05, math.nan))


def test_thin_is_the_tables_rule_in_games_in_all() -> None:
    v = verdict.win_rate(16, 16, 8)
    assert v.state == "thin" and v.interval() == "needs ~20 games"
    assert carried(8, 16) == "needs ~20 games"
    assert "about 20 games would carry one" in v.text()


def test_a_settled_rate_and_an_open_one_say_what_would_tell() -> None:
    assert verdict.win_rate(16, 20, 10).state == "settled"
    v = verdict.win_rate(11, 20, 10)
    assert v.state == "open"
    assert v.more_games is not None and v.more_games > 0
    assert "more games would tell a 5-point gap at 95%" in v.text()
    assert "from the observed spread" in v.text()


def test_perfect_only_when_the_record_is() -> None:
    assert verdict.elo_gap(20, 0, 20, 10).state == "perfect"
    beaten = verdict.elo_gap(15, 5, 20, 10)
    assert beaten.state == "settled"
    assert "perfect" not in beaten.text() and "too large" not in beaten.text()
    assert verdict.elo_gap(15, 5, 20, 10).estimate == pytest.approx(190.8, abs=0.1)


def test_paired_difference_from_the_deals_spread() -> None:
    diffs = [0.1, -0.2, 0.3, 0.0, 0.5, -0.1, 0.2, 0.0, 0.1, -0.3]
    v = verdict.paired(diffs, games_per_unit=2)
    assert v.state == "open" and v.games == 20 and v.units == 10
    assert v.text().startswith("+6.0 [")
    assert verdict.paired(diffs[:5], 2).state == "thin"
