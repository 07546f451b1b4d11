"""The card balance's per-deal sums against a straightforward computation.

``balance.sample`` builds its per-deal sums with grouped reductions (one ``bincount`` per
quantity over integer (deal, card) cells, kept in single precision with float64 totals
aside) so that a million games fit in memory.  Here the same sums are recomputed the plain
way, one card row at a time in Python, from the loaded tables, on a small synthetic run with
shared wins (fractional shares) and errors; every cell must agree, and so must the per-deal
regression scores, computed here with ``np.add.at`` over the seat rows.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

import reports
from reports import balance
from reports import synthetic as sy


def reference_sums(t: reports.Tables, s: balance.Sample) -> np.ndarray:
    """Per deal × (quantity, card) sums in float64, one card row at a time."""
    n = len(s.cards)
    deal_row = {key: i for i, key in enumerate(s.deals)}
    keys = balance._deal_keys(t)
    points = t.catalog["points"].to_numpy(dtype=float)
    col = {q: i * n for i, q in enumerate(balance.QUANTITIES)}
    out = np.zeros((len(s.deals), len(balance.QUANTITIES) * n))
    g = t.games
    for row in t.ok_cards.itertuples(index=False):
        d = deal_row[keys.iloc[row.gi]]
        code = list(t.catalog["card"]).index(row.card)
        end = float(g["rounds"].iloc[row.gi])
        drawn = float(row.drawn_round)
        done = bool(row.completed)
        timed = not math.isnan(drawn) and end >= 0
        held = 0.0
        if timed:
            held = max(0.0, (float(row.completed_round) if done else end) - drawn)
        values = {
            "drawn": 1.0, "completed": float(done), "held": held,
            "earned": (0.0 if math.isnan(points[code]) else points[code]) * (done and timed),
            "to_complete": held if done and timed else 0.0,
            "won_done": float(row.share) * done, "won_miss": float(row.share) * (not done),
            "timed": float(timed), "timed_done": float(timed and done),
        }
        for q, v in values.items():
            out[d, col[q] + code] += v
    return out


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> reports.Tables:
    path = sy.write_tournament(tmp_path_factory.mktemp("ref") / "run",
                               participants=("a", "b", "c"), games=240, players=3, seed=5,
                               play_seed=2, error_rate=0.05)
    t = reports.load(path)
    # Shared wins are rare in a small run: make some cards' win shares thirds, which no
    # binary fraction holds, so that a total kept in single precision would show.
    t.cards.loc[::7, "share"] = 1.0 / 3.0
    return t


def test_per_deal_sums_match_a_plain_loop(run: reports.Tables) -> None:
    s = balance.sample(run)
    ref = reference_sums(run, s)
    assert s.sums.dtype == np.float32
    # The single-precision sums are the float64 sums rounded once (what the bootstrap
    # multiplied before), and the totals are the float64 sums' own.
    np.testing.assert_array_equal(s.sums, ref.astype(np.float32))
    np.testing.assert_allclose(s.totals, ref.sum(axis=0), rtol=1e-12, atol=1e-9)
    # The thirds are there, so a total taken in single precision would fail the test.
    assert (ref != ref.astype(np.float32)).any()


def test_regression_scores_match_add_at(run: reports.Tables) -> None:
    fit = balance.sample(run).fit
    assert "beta" in fit
    # The scores summed per deal add up to the penalty's gradient at the fit (its optimum).
    np.testing.assert_allclose(fit["scores"].sum(axis=0), fit["penalty"] * fit["beta"],
                               atol=1e-6)
    # The grouped reduction against np.add.at, deals repeated and out of order, one empty.
    rng = np.random.default_rng(4)
    x = rng.normal(size=(500, 7))
    x[:, 2] = rng.integers(0, 2, 500)
    resid = rng.normal(size=500)
    deal = rng.integers(0, 60, 500)
    deal[deal == 13] = 14
    ref = np.zeros((60, 7))
    np.add.at(ref, deal, x * resid[:, None])
    np.testing.assert_array_equal(balance.scores_by_deal(x, resid, deal, 60), ref)


def test_figures_unchanged_by_the_storage(run: reports.Tables) -> None:
    """The bootstrap on the new sample equals one on the reference sums, figure by figure."""
    s = balance.sample(run)
    ref = reference_sums(run, s)
    r = balance.Sample(s.deals, s.strata, ref.astype(np.float32), s.cards, s.games, s.fit,
                       ref.sum(axis=0))
    full, boot = balance.bootstrap(s, replicates=50, seed=1)
    full_r, boot_r = balance.bootstrap(r, replicates=50, seed=1)
    for k in full:
        np.testing.assert_allclose(full[k], full_r[k], rtol=1e-9, atol=1e-12, equal_nan=True)
        np.testing.assert_array_equal(boot[k], boot_r[k])


def test_sparse_scores_by_deal_match_the_dense_ones() -> None:
    from scipy import sparse

    rng = np.random.default_rng(5)
    x = (rng.random((500, 7)) < 0.4) * 1.0
    resid = rng.normal(size=500)
    deal = rng.integers(0, 60, 500)
    np.testing.assert_array_equal(
        balance.scores_by_deal(sparse.csr_array(x), resid, deal, 60),
        balance.scores_by_deal(x, resid, deal, 60))


def test_one_card_column_of_the_games_without_error(run: reports.Tables) -> None:
    """``ok_card_column`` is the column of ``ok_cards``, without copying the frame."""
    cards = run.cards.copy()
    cards["error"] = cards["gi"].to_numpy() % 5 == 0  # the cards of some games with an error
    t = dataclasses.replace(run, cards=cards)
    assert 0 < t.cards["error"].sum() < len(t.cards)
    ok = t.ok_cards
    np.testing.assert_array_equal(t.ok_column("cards", "drawn_round"), ok["drawn_round"].to_numpy())
    np.testing.assert_array_equal(t.ok_column("cards", "card"), ok["card"].cat.codes.to_numpy())
    np.testing.assert_array_equal(t.ok_column("cards", "share", float), ok["share"].to_numpy())


def test_per_deal_sums_in_slices_of_card_rows(run: reports.Tables,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Sums taken a few card rows at a time are the whole's: exact for the whole numbers,
    to the last bits of a float64 for the win shares (the thirds)."""
    whole = balance.sample(run)
    monkeypatch.setattr(balance, "ROWS", 37)
    sliced = balance.sample(run)
    np.testing.assert_allclose(sliced.sums, whole.sums, rtol=1e-6)
    np.testing.assert_allclose(sliced.totals, whole.totals, rtol=1e-12)
    ref = reference_sums(run, whole)
    n = len(run.catalog)
    exact = [i for i, q in enumerate(balance.QUANTITIES) if not q.startswith("won_")]
    cols = np.concatenate([np.arange(i * n, (i + 1) * n) for i in exact])
    np.testing.assert_array_equal(sliced.sums[:, cols], ref[:, cols].astype(np.float32))
