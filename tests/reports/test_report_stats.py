"""The statistics of reports/stats.py against published or hand-computed values."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from openskill.models import PlackettLuce

from reports import stats


def test_wilson_matches_the_formula_worked_by_hand() -> None:
    # 4.5 wins in 8 games (a shared win counts half), z = 1.959964:
    # denom = 1 + z²/8 = 1.480182, centre = (0.5625 + z²/16) / denom = 0.542225,
    # half = z * sqrt(0.5625 * 0.4375 / 8 + z² / 256) / denom = 0.283277.
    lo, hi = stats.wilson(4.5, 8)
    assert float(lo) == pytest.approx(0.258948, abs=1e-6)
    assert float(hi) == pytest.approx(0.825501, abs=1e-6)


def test_wilson_edges() -> None:
    # 0 of 10: the lower bound is exactly 0 and the upper bound z²/(n + z²) = 0.27754.
    lo, hi = stats.wilson(0, 10)
    assert float(lo) == 0.0
    assert float(hi) == pytest.approx(0.27754, abs=1e-5)
    lo, hi = stats.wilson(10, 10)
    assert float(hi) == 1.0
    assert float(lo) == pytest.approx(1 - 0.27754, abs=1e-5)
    lo, hi = stats.wilson(0, 0)
    assert math.isnan(float(lo)) and math.isnan(float(hi))


def test_newcombe_reproduces_the_published_example() -> None:
    # Newcombe (1998), Statistics in Medicine 17:873, Table II, example (a): 56/70 vs 48/80,
    # difference 0.2, method 10 (hybrid score) interval 0.0524 to 0.3339.
    d, lo, hi = stats.newcombe(48, 80, 56, 70)
    assert float(d) == pytest.approx(0.2, abs=1e-12)
    assert float(lo) == pytest.approx(0.0524, abs=1e-4)
    assert float(hi) == pytest.approx(0.3339, abs=1e-4)


def test_los_is_phi_of_the_normalised_margin() -> None:
    assert float(stats.los(10, 10)) == 0.5
    # 60 wins, 40 losses: Phi(20 / 10) = Phi(2) = 0.977250.
    assert float(stats.los(60, 40)) == pytest.approx(0.977250, abs=1e-6)
    assert math.isnan(float(stats.los(0, 0)))


def test_elo_from_score() -> None:
    # -400 log10(1/0.75 - 1) = 400 log10(3) = 190.85
    assert float(stats.elo_from_score(0.75)) == pytest.approx(190.848, abs=1e-3)
    assert float(stats.elo_from_score(0.5)) == 0.0
    assert float(stats.elo_from_score(1.0)) == stats.ELO_CLIP


def test_bradley_terry_two_players_is_the_elo_of_the_score() -> None:
    # A scored 6 of 8 against B: the Elo gap is 190.85, split around a mean of 0.
    wins = np.array([[0.0, 6.0], [2.0, 0.0]])
    games = np.array([[0.0, 8.0], [8.0, 0.0]])
    elo = stats.bt_elo(stats.bradley_terry(wins, games))
    assert elo[0] - elo[1] == pytest.approx(190.848, abs=0.1)
    assert elo.sum() == pytest.approx(0.0, abs=1e-9)


def test_bradley_terry_recovers_known_strengths() -> None:
    theta = np.array([-0.5, 0.0, 0.8])
    n = 1_000_000.0
    p = 1 / (1 + np.exp(-(theta[:, None] - theta[None, :])))
    games = np.full((3, 3), n) - np.diag([n] * 3)
    wins = p * games
    fitted = stats.bradley_terry(wins, games)
    assert fitted == pytest.approx(theta - theta.mean(), abs=1e-4)
    # A batch of tables gives one fit per table.
    batch = stats.bradley_terry(np.stack([wins, wins.T]), np.stack([games, games]))
    assert batch.shape == (2, 3)
    assert batch[1] == pytest.approx(-(theta - theta.mean()), abs=1e-4)


def test_bootstrap_sums_resample_within_strata() -> None:
    rows = np.array([[1.0, 2.0], [1.0, 2.0], [0.0, 2.0], [5.0, 1.0]])
    strata = np.array([0, 0, 0, 1])
    sums = stats.bootstrap_sums(rows, strata, 500, np.random.default_rng(1))
    # Stratum 1 has one deal, always drawn once; stratum 0 always has 3 deals of 2 games.
    assert np.all(sums[:, 1] == 3 * 2.0 + 1.0)
    first = sums[:, 0] - 5.0
    assert set(np.unique(first)) <= {0.0, 1.0, 2.0, 3.0}
    # Its mean is 3 * 2/3 = 2 (binomial 3, 2/3 per draw), within sampling error.
    assert first.mean() == pytest.approx(2.0, abs=0.1)


def test_chisquare_uniform() -> None:
    # (4.5 - 4)² / 4 + (3.5 - 4)² / 4 = 0.125, 1 degree of freedom, p = 0.72367.
    chi2, p, dof = stats.chisquare_uniform([4.5, 3.5])
    assert (chi2, dof) == (pytest.approx(0.125), 1)
    assert p == pytest.approx(0.72367, abs=1e-5)


def test_logistic_with_one_binary_covariate_has_closed_form() -> None:
    # x = 0: 30 rows, 10 wins; x = 1: 20 rows, 15 wins.  The maximum likelihood fit is
    # intercept = logit(1/3), slope = logit(3/4) - logit(1/3), and the slope's standard error
    # sqrt(1/(20 * 3/4 * 1/4) + 1/(30 * 1/3 * 2/3)) = sqrt(0.266667 + 0.15) = 0.645497.
    x = np.column_stack([np.ones(50), np.r_[np.zeros(30), np.ones(20)]])
    y = np.r_[np.ones(10), np.zeros(20), np.ones(15), np.zeros(5)]
    beta, se = stats.logistic(x, y)
    logit = lambda p: math.log(p / (1 - p))  # noqa: E731
    assert beta[0] == pytest.approx(logit(1 / 3), abs=1e-6)
    assert beta[1] == pytest.approx(logit(3 / 4) - logit(1 / 3), abs=1e-6)
    assert se[1] == pytest.approx(0.645497, abs=1e-5)


def test_ratio_ci() -> None:
    r, lo, hi = stats.ratio_ci([1, 2, 3], [2, 4, 6])
    assert (r, lo, hi) == (0.5, 0.5, 0.5)  # an exact ratio in every game: no spread
    r, lo, hi = stats.ratio_ci([1, 3], [2, 4])
    assert r == pytest.approx(4 / 6)
    assert lo < r < hi


def test_plackett_luce_matches_openskill_itself() -> None:
    """Our fast update is openskill's PlackettLuce.rate, ties and 2-4 seats included."""
    rng = random.Random(3)
    model = PlackettLuce()
    k = 6
    current = [model.rating() for _ in range(k)]
    games = []
    for _ in range(400):
        n = rng.choice([2, 3, 4])
        who = rng.sample(range(k), n)
        ranks = [rng.randint(1, n) for _ in range(n)]
        games.append((who, ranks))
        result = model.rate([[current[p]] for p in who], ranks=list(ranks))
        for p, team in zip(who, result, strict=True):
            current[p] = team[0]
    mu, sigma = stats.plackett_luce_online(
        games, k, model.mu, model.sigma, model.beta, model.kappa, model.tau)
    assert mu == pytest.approx([r.mu for r in current], abs=1e-9)
    assert sigma == pytest.approx([r.sigma for r in current], abs=1e-9)


def test_logistic_on_a_sparse_design_matches_the_dense_fit() -> None:
    """The card study fits a sparse design (indicators); it must give the dense fit."""
    from scipy import sparse

    rng = np.random.default_rng(7)
    x = (rng.random((400, 6)) < 0.3).astype(float)
    x[:, 0] = 1.0
    y = (rng.random(400) < 1 / (1 + np.exp(-(x @ np.array([-0.5, 1, -1, 0.5, 0, 2]))))) * 1.0
    pen = np.r_[0.0, np.full(5, 1e-2)]
    dense = stats.logistic(x, y, pen)
    light = stats.logistic(sparse.csr_array(x), y, pen)
    np.testing.assert_allclose(light[0], dense[0], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(light[1], dense[1], rtol=1e-10, atol=1e-12)
    w = rng.random(400)
    np.testing.assert_allclose(stats.information(sparse.csr_array(x), w),
                               (x * w[:, None]).T @ x, rtol=1e-12)
