"""The estimators of ``reports/experiment.py`` on simulated blocks whose truth is known:
intervals that cover, tests that hold their level, Fieller's interval, Hotelling's T².

The simulated deals are independent Bernoulli games around known card effects and price
slopes (what a study's games are, less the game), so each check can fail if an estimator,
its interval or its correction is wrong.  Each runs a few hundred simulated studies: their
tolerances are the binomial error of that many repetitions (about 3 standard errors).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from reports.balance import bh
from reports.experiment import Block, card_rows, fieller, hotelling


def simulated_block(rng: np.random.Generator, effects: np.ndarray, slopes: np.ndarray,
                    n: int, offsets: tuple[int, ...] = (-3, 3), holders: int = 2,
                    priced: int | None = None, below: np.ndarray | None = None) -> Block:
    """A block series of ``n`` deals: each card held ``holders`` times per deal, win
    probability 0.5 + its effect (+ a deal effect shared by the deal's games); price arms
    with the card's slope per point for the first ``priced`` cards (``below``: another slope
    under its points, a response with a kink at them)."""
    m = len(effects)
    deal = rng.normal(0, 0.05, size=(n, 1))
    p = np.clip(0.5 + effects[None, :] + deal, 0.02, 0.98)
    y = rng.binomial(holders, np.broadcast_to(p, (n, m))) / holders
    points = np.full(m, 4.0)
    prices, priced_y = {}, {}
    for j in range(m if priced is None else priced):
        ps = [4.0 + o for o in offsets]
        prices[f"c{j}"] = ps
        o = np.array(offsets, dtype=float)
        per_point = np.where(o < 0, slopes[j] if below is None else below[j], slopes[j])
        q = np.clip(0.5 + effects[j] + deal + (per_point * o)[None, :], 0.02, 0.98)
        priced_y[f"c{j}"] = rng.binomial(1, q).astype(float)
    return Block(0, "plot", [f"c{j}" for j in range(m)], points, np.arange(n), y,
                 np.where(y > 0, 4.0, 0.0), np.full((n, m), 6.0), y, prices, priced_y, 0)


def test_fieller_matches_the_quadratic_and_refuses_an_unresolved_slope() -> None:
    lo, hi = fieller(a=-0.1, b=0.05, vaa=0.0004, vbb=0.0001, vab=0.0, t=1.96)
    for x in (lo, hi):  # on the boundary: (a + b x)^2 = t^2 Var(a + b x)
        assert (-0.1 + 0.05 * x) ** 2 == pytest.approx(1.96**2 * (0.0004 + x * x * 0.0001))
    assert lo < 2.0 < hi  # the root, -a/b = 2, is inside
    assert all(math.isnan(v) for v in fieller(-0.1, 0.01, 0.0004, 0.0001, 0.0, 1.96))


def test_effect_intervals_cover_and_the_null_cards_are_not_flagged() -> None:
    """95% paired t intervals cover the true effect of each card in about 95% of studies;
    with every card at effect 0, BH at 5% flags any card in at most about 5% of them."""
    rng = np.random.default_rng(1)
    m, n, studies = 15, 30, 300
    effects = np.linspace(-0.12, 0.12, m)
    effects -= effects.mean()
    covered = 0
    any_flag = 0
    for _ in range(studies):
        t = card_rows(simulated_block(rng, effects, np.zeros(m), n, priced=0), replicates=20)
        # The contrast's truth: the card's effect minus the mean of the others'.
        truth = effects - (effects.sum() - effects) / (m - 1)
        covered += int(((t["effect_lo"] <= truth) & (truth <= t["effect_hi"])).sum())
        null = card_rows(simulated_block(rng, np.zeros(m), np.zeros(m), n, priced=0),
                         replicates=20)
        any_flag += int((bh(null["p_value"].to_numpy()) <= 0.05).any())
    rate = covered / (studies * m)
    assert abs(rate - 0.95) < 3 * math.sqrt(0.95 * 0.05 / (studies * m)) + 0.005, rate
    assert any_flag / studies <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / studies), any_flag


def test_fair_points_interval_covers_the_root() -> None:
    """Fieller's interval for the price at which the card breaks even covers the true root
    (4 - contrast / slope) in about 95% of the studies where it is bounded (most of them:
    the segment to one arm has half the central difference's span, so its slope is the
    noisier)."""
    rng = np.random.default_rng(2)
    m, n, studies = 15, 120, 250
    effects = np.zeros(m)
    effects[0] = 0.1
    effects -= effects.mean()
    slopes = np.full(m, 0.05)
    truth = 4.0 - (effects[0] - (effects.sum() - effects[0]) / (m - 1)) / slopes[0]
    hits = bounded = 0
    for _ in range(studies):
        t = card_rows(simulated_block(rng, effects, slopes, n, priced=1), replicates=20)
        r = t.iloc[0]
        if np.isfinite(r["fair_points_lo"]):
            bounded += 1
            hits += int(r["fair_points_lo"] <= truth <= r["fair_points_hi"])
    assert bounded > 0.7 * studies
    rate = hits / bounded
    assert abs(rate - 0.95) < 3 * math.sqrt(0.95 * 0.05 / bounded) + 0.01, rate


def test_fair_points_interpolate_a_curved_response() -> None:
    """A card whose response flattens below its points (0.02 a point below, 0.08 above): the
    root of a strong card lies below, where the tangent at the points (their central slope,
    0.05) would put it at less than half its distance; the segment to the lower arm finds
    it, and its interval covers the true root in about 95% of the bounded studies."""
    rng = np.random.default_rng(6)
    m, n, studies = 15, 1500, 200
    effects = np.zeros(m)
    effects[0] = 0.05
    effects -= effects.mean()
    contrast = effects[0] - (effects.sum() - effects[0]) / (m - 1)
    truth = 4.0 - contrast / 0.02
    tangent = 4.0 - contrast / 0.05
    assert truth < 2.0 and tangent > 2.9  # far apart: a test that the tangent fails
    hits = bounded = 0
    roots = []
    for _ in range(studies):
        t = card_rows(simulated_block(rng, effects, np.full(m, 0.08), n, priced=1,
                                      below=np.full(m, 0.02)), replicates=10)
        r = t.iloc[0]
        if np.isfinite(r["fair_points_lo"]):
            bounded += 1
            roots.append(r["fair_points"])
            hits += int(r["fair_points_lo"] <= truth <= r["fair_points_hi"])
    assert bounded > 0.7 * studies
    assert abs(np.median(roots) - truth) < 0.3, (np.median(roots), truth)
    rate = hits / bounded
    assert abs(rate - 0.95) < 3 * math.sqrt(0.95 * 0.05 / bounded) + 0.01, rate


def test_the_price_arms_baseline_leaves_out_the_games_against_the_card() -> None:
    """With the block games' placements known (``Block.apart``), the fair points are the
    break-even price against that baseline, not the block's: the same arms against a
    baseline 0.05 lower break even 0.05 / slope points lower."""
    rng = np.random.default_rng(7)
    b = simulated_block(rng, np.zeros(15), np.full(15, 0.05), 300, priced=1)
    base = (b.y.sum(axis=1) - b.y[:, 0]) / 14
    b.apart = {"c0": base}
    same = card_rows(b, replicates=10).iloc[0]
    b.apart = {"c0": base - 0.05}
    lower = card_rows(b, replicates=10).iloc[0]
    assert same["fair_points"] - lower["fair_points"] > 0.5
    assert lower["effect"] == same["effect"]  # the effect (the flag's test) is the block's


def test_hotelling_is_uniform_under_the_null_and_finds_a_difference() -> None:
    rng = np.random.default_rng(3)
    ps = [hotelling(rng.normal(0, 1, size=(40, 2))) for _ in range(2000)]
    assert abs(np.mean(np.array(ps) <= 0.05) - 0.05) < 3 * math.sqrt(0.05 * 0.95 / 2000)
    assert hotelling(rng.normal(0.6, 1, size=(40, 2))) < 0.01
    # One column: the paired t test.
    d = rng.normal(0.2, 1, size=(50, 1))
    from scipy import stats

    assert hotelling(d) == pytest.approx(stats.ttest_1samp(d[:, 0], 0).pvalue)


def test_the_efficiency_margin_does_not_flag_a_card_at_parity() -> None:
    """Cards whose points per action equal the rest's are not flagged beyond ±20%, and a
    card never completed in a few deals is not 'certainly' inefficient."""
    rng = np.random.default_rng(4)
    t = card_rows(simulated_block(rng, np.zeros(15), np.zeros(15), 40, priced=0),
                  replicates=200)
    assert (bh(t["p_efficiency"].to_numpy()) > 0.05).all()
    b = simulated_block(rng, np.zeros(15), np.zeros(15), 3, priced=0)
    b.pts[:, 0] = 0.0
    b.done[:, 0] = 0.0
    row = card_rows(b, replicates=200).iloc[0]
    assert row["efficiency"] == 0.0 and row["p_efficiency"] > 0.001


def test_the_fair_points_interval_agrees_with_the_effect_test() -> None:
    """Against the block's own baseline (no placements recorded) the fair points' intercept
    is the effect itself: when the fair points are resolved, their interval leaves the
    card's points out exactly when the effect's interval leaves 0 out (the same t, the same
    variance).  In a study the baseline leaves out the games against the card, and the two
    agree but at the margin (``reports/experiment.py``)."""
    rng = np.random.default_rng(5)
    effects = np.linspace(-0.15, 0.15, 15)
    checked = 0
    for _ in range(40):
        t = card_rows(simulated_block(rng, effects - effects.mean(), np.full(15, 0.06), 40),
                      replicates=10)
        ok = t[t["fair_points"].notna()]
        points = ok["points"]
        out_of_points = (ok["fair_points_lo"] > points) | (ok["fair_points_hi"] < points)
        off_zero = (ok["effect_lo"] > 0) | (ok["effect_hi"] < 0)
        assert (out_of_points == off_zero).all()
        checked += len(ok)
    assert checked > 300
