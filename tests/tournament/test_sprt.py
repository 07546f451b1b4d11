"""The GSPRT on pentanomial deal-pair counts, against cases checkable by hand, and in a run."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from arena.runs.segments import iter_lines
from arena.tournament.schedule import SprtParams
from arena.tournament.sprt import (
    PAIR_SCORES,
    SprtState,
    bounds,
    game_score,
    llr,
    logistic,
    mle_with_mean,
)

from .conftest import FAST, run_cli

#: A hung run fails its test instead of holding CI (thread method: SIGALRM is the games').
pytestmark = pytest.mark.timeout(180, method="thread")



def test_wald_bounds() -> None:
    lower, upper = bounds(0.05, 0.05)
    assert lower == pytest.approx(-math.log(19)) and upper == pytest.approx(math.log(19))
    assert bounds(0.05, 0.1) == pytest.approx((math.log(0.1 / 0.95), math.log(0.9 / 0.05)))


def test_logistic_elo() -> None:
    assert logistic(0) == 0.5
    assert logistic(400) == pytest.approx(10 / 11)
    assert logistic(-20) == pytest.approx(1 - logistic(20))


def test_constrained_mle_has_the_mean_asked_for() -> None:
    probs = [0.1, 0.2, 0.4, 0.2, 0.1]
    for mean in (0.3, 0.5, 0.55, 0.8):
        q = mle_with_mean(probs, PAIR_SCORES, mean)
        assert sum(q) == pytest.approx(1.0)
        assert sum(a * b for a, b in zip(q, PAIR_SCORES)) == pytest.approx(mean)
    # The observed distribution is its own MLE when it already has that mean.
    assert mle_with_mean(probs, PAIR_SCORES, 0.5) == pytest.approx(probs)


def test_llr_is_zero_between_equal_hypotheses_and_without_data() -> None:
    assert llr([3, 5, 9, 5, 3], 10, 10) == pytest.approx(0.0, abs=1e-12)
    assert llr([0, 0, 0, 0, 0], 0, 20) == 0.0


def test_llr_reduces_to_the_bernoulli_ratio_with_only_extreme_pairs() -> None:
    # Pairs scoring 0 or 2 only: the constrained MLE on {0, 1} with mean s is Bernoulli(s),
    # so the LLR is N [p log(s1/s0) + (1-p) log((1-s1)/(1-s0))] (up to the 1e-3 prior).
    wins, losses = 60, 40
    s0, s1 = logistic(0), logistic(20)
    expected = wins * math.log(s1 / s0) + losses * math.log((1 - s1) / (1 - s0))
    assert llr([losses, 0, 0, 0, wins], 0, 20) == pytest.approx(expected, rel=1e-3)


def test_all_draws_and_an_obvious_winner() -> None:
    # All pairs drawn: the mean is 0.5 = L(elo0), evidence for H0 that grows with the pairs.
    values = [llr([0, 0, n, 0, 0], 0, 20) for n in (10, 100, 1000)]
    assert values[0] < 0 and values[1] < values[0] and values[2] < values[1]
    assert values[2] < bounds(0.05, 0.05)[0]
    # Mostly winning pairs: H1 is accepted.
    assert llr([0, 0, 10, 30, 60], 0, 20) > bounds(0.05, 0.05)[1]
    # Symmetry: the mirror of a result is evidence the other way.
    assert llr([5, 10, 20, 30, 35], -10, 10) == pytest.approx(-llr([35, 30, 20, 10, 5], -10, 10))


def test_game_score() -> None:
    assert game_score([0], 0) == 1.0 and game_score([1], 0) == 0.0
    assert game_score([0, 1], 1) == 0.5


def test_state_counts_complete_deals_in_deal_order_only() -> None:
    state = SprtState(SprtParams(0, 20))
    state.add(1, 0, 1.0)
    state.add(1, 1, 1.0)
    assert state.pairs == 0  # deal 0 is not in yet
    state.add(0, 1, 0.5)
    assert state.pairs == 0
    state.add(0, 0, 0.0)
    assert state.counts == [0, 1, 0, 0, 1] and state.next_deal == 2
    assert "no decision yet" in state.describe()
    for deal in range(2, 60):
        state.add(deal, 0, 1.0)
        state.add(deal, 1, 1.0)
    assert state.decision == "H1"
    result = state.result()
    assert result["accepted"] == "H1" and result["llr"] >= result["upper"]
    assert result["pentanomial"] == state.counts and result["elo_model"] == "logistic"


def _sprt_run(tmp_path: Path, name: str, bots: list[str], sprt: str, workers: int,
              games: int = 2000) -> tuple[dict, int, str]:
    out = tmp_path / name
    args = [a for b in bots for a in ("--bot", b)]
    result = run_cli([*args, "--games", str(games), "--seed", "5", "--workers", str(workers),
                      "--out", str(out), "--sprt", sprt, "--quiet", *FAST])
    assert result.exit_code == 0, result.output
    manifest = json.loads((out / "manifest.json").read_text())
    # Every record, sealed segments and journal alike: a run past a megabyte of records
    # (more games in flight on a busy machine) has compressed its journal into a segment.
    lines = sum(1 for _ in iter_lines(out))
    return manifest, lines, result.stdout


def test_sprt_stops_a_lopsided_match_the_same_way_on_one_or_two_workers(tmp_path: Path) -> None:
    bots = ["random:complete=true", "random"]
    two, lines, stdout = _sprt_run(tmp_path, "w2", bots, "elo0=0,elo1=30", workers=2)
    assert "H1 accepted" in stdout and "LLR" in stdout and "[-2.94, 2.94]" in stdout
    result = two["sprt"]["result"]
    assert result["accepted"] == "H1" and result["llr"] >= result["upper"]
    assert two["finished"] is not None
    assert 2 * result["pairs"] <= lines < 2000  # stopped early
    one, _, _ = _sprt_run(tmp_path, "w1", bots, "elo0=0,elo1=30", workers=1)
    assert one["sprt"]["result"] == result  # decided on the same pair, whatever the timing


def test_sprt_between_equals_does_not_accept_h1(tmp_path: Path) -> None:
    manifest, lines, stdout = _sprt_run(tmp_path, "eq", ["random:name=R1", "random:name=R2"],
                                        "elo0=0,elo1=100", workers=2, games=600)
    assert manifest["sprt"]["result"]["accepted"] == "H0", stdout
    assert lines < 600
