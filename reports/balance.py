"""Objective-card balance: the figures a designer asks for, each with an honest interval.

Every per-card figure here is a ratio of sums over the games (completions over draws, points
over turns held, win shares over completions...), so each is computed from one matrix of
per-deal sums, ``deal × (quantity, card)``.  The games of one deal share its cards and its
luck (each deal is played in every seat rotation, the same cards dealt to the same seat
position), so they are not independent: the unit that is resampled is the deal, within its
pairing (whose number of deals the schedule fixed).  A bootstrap replicate is then one
matrix product, ``weights (replicates × deals) @ sums (deals × columns)``, whatever the
number of games; two runs played on the same deals are resampled with the same weights,
which is what makes their comparison paired (:func:`joint_samples`).

The fair value's exchange rate (log-odds of winning per point) is re-estimated in every
replicate, so its uncertainty is in the fair value's interval.  Refitting the logistic
regression a thousand times would take minutes on 100,000 games; each replicate instead takes
one Newton step from the full fit with the replicate's deal weights (the estimating-function
bootstrap of Hu & Kalbfleisch 2000), which has the same first-order distribution and costs
one more matrix product.

Cards are tested together: each test's p-value comes from its bootstrap standard error, and
flags are decided by the Benjamini–Hochberg procedure across the cards (false discovery rate
``FDR``), so that among the cards flagged at most about 5% are flagged by chance, however
many cards there are.  ``tests/reports/test_balance.py`` checks that on simulated runs.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import sparse, special

from . import stats
from .loader import CATEGORIES, ReportError, Tables, emperor_points

FDR = 0.05
REPLICATES = 1000
MIN_COMPLETIONS = 10
#: Draws below which a card's tests are not made (its p and q values not shown).
MIN_DRAWN = 10
#: The efficiency flag's margin: a card is flagged only beyond ±20% of its category's points
#: per turn (a designer does not act on a 5% difference, however sure).
MARGIN = 0.2
POWER_Z = 0.8416212335729143  # 80% power
#: Card rows per slice of the per-deal sums (:func:`_card_sums`).
ROWS = 1 << 22
CHUNK = 100  # replicates per weight matrix: 100 x 50,000 deals is 40 MB

# Per-deal sums kept for every card, in this order in the sums matrix.
QUANTITIES = (
    "drawn", "completed", "held", "earned", "to_complete", "won_done", "won_miss",
    "timed", "timed_done",
)


def bh(pvalues: Sequence[float] | np.ndarray) -> np.ndarray:
    """Benjamini–Hochberg adjusted p-values (q-values); NaN stays NaN and is not counted."""
    p = np.asarray(pvalues, dtype=float)
    q = np.full(p.shape, np.nan)
    ok = np.flatnonzero(~np.isnan(p))
    m = len(ok)
    if m == 0:
        return q
    order = ok[np.argsort(p[ok], kind="stable")]
    ranked = p[order] * m / np.arange(1, m + 1)
    q[order] = np.minimum(1.0, np.minimum.accumulate(ranked[::-1])[::-1])
    return q


def two_sided(z: np.ndarray) -> np.ndarray:
    """Two-sided normal p-value of a z statistic (NaN stays NaN)."""
    return 2.0 * special.ndtr(-np.abs(np.asarray(z, dtype=float)))


def deal_weights(
    strata: np.ndarray, replicates: int, rng: np.random.Generator, chunk: int = CHUNK,
) -> Iterator[np.ndarray]:
    """Bootstrap weights per deal, ``chunk`` replicates at a time: each pairing's deals are
    drawn with replacement as many times as it has deals (a multinomial per stratum)."""
    groups = [np.flatnonzero(strata == s) for s in np.unique(strata)]
    done = 0
    while done < replicates:
        size = min(chunk, replicates - done)
        # float32: the counts are small whole numbers, exact, and the products twice as fast.
        w = np.zeros((size, len(strata)), dtype=np.float32)
        for idx in groups:
            # Draw len(idx) deals with replacement per replicate and count them (faster than
            # a multinomial over thousands of equally likely deals).
            n = len(idx)
            picks = rng.integers(0, n, size=(size, n)) + (np.arange(size) * n)[:, None]
            w[:, idx] = np.bincount(picks.ravel(), minlength=size * n).reshape(size, n)
        done += size
        yield w


@dataclass
class Sample:
    """One run's card data reduced to per-deal sums, and the fair-value regression."""

    deals: pd.Index              # a key per deal that two runs on one schedule share
    strata: np.ndarray           # the pairing of each deal
    sums: np.ndarray             # deals × (len(QUANTITIES) · cards), float32
    cards: pd.DataFrame          # card, category, asks, points (the run's), removed
    games: int                   # games without error behind the sums
    fit: dict[str, Any]          # the regression: beta, bread, scores per deal, columns
    totals: np.ndarray           # the sums' column totals, in float64 (the point estimates)


def _deal_keys(t: Tables) -> pd.Series:
    """Per game, the key of its deal: the same text in two runs of one schedule."""
    g = t.games
    has_ids = (g["pairing"] >= 0) & (g["deal"] >= 0)
    key = np.where(has_ids, g["pairing"].astype(str) + "-" + g["deal"].astype(str) + "@"
                   + g["seed"].astype(str), "game-" + g["game"].astype(str))
    return pd.Series(key, index=g.index)


def sample(t: Tables, min_completions: int = MIN_COMPLETIONS) -> Sample:
    """The per-deal sums and the regression of one run (games without error)."""
    catalog = t.catalog
    games = t.games
    keys = _deal_keys(t)
    ok = ~games["error"].to_numpy()
    deal_codes, deal_index = pd.factorize(keys[ok])
    deal_of_game = np.full(len(games), -1)
    deal_of_game[np.flatnonzero(ok)] = deal_codes
    n_deals = len(deal_index)
    strata = np.zeros(n_deals, dtype=np.int64)
    strata[deal_codes] = games["stratum"].to_numpy()[ok]

    del keys
    # The regression first: its design matrix (seats × columns, float64, and a weighted copy
    # while fitting) is the largest transient, and is freed before the sums are made.
    fit = _regression(t, deal_of_game, n_deals, min_completions)
    sums, totals = _card_sums(t, deal_of_game, n_deals)
    cards = catalog[["card", "category", "asks", "points", "removed"]].reset_index(drop=True)
    return Sample(pd.Index(deal_index), strata, sums, cards, int(ok.sum()), fit, totals)


def _card_sums(t: Tables, deal_of_game: np.ndarray, n_deals: int
               ) -> tuple[np.ndarray, np.ndarray]:
    """Per deal × (quantity, card) sums in float32 and their float64 column totals (its own
    function so that the card-row temporaries are freed before the regression).

    The card rows are taken :data:`ROWS` at a time, each quantity's sums added up over the
    slices: a million games are 21 million card rows, and the quantities of all of them at
    once took 0.7 GB beside the sums.  One slice (up to four million rows, some 190,000
    games) adds exactly as a single bincount does; over several, the counts, turns and
    points are whole numbers and add exactly in any order, and the win shares (thirds)
    differ in the last bits of a float64 at most.
    """
    catalog = t.catalog
    n_cards = len(catalog)
    rounds_of_game = t.games["rounds"].to_numpy(dtype=np.float32)
    points = np.nan_to_num(catalog["points"].to_numpy(dtype=float))
    cards = t.cards
    ok = t.ok_rows("cards")
    # Cells (deal, card) as int32 when they fit: one integer per card row, whose bincount
    # gives a quantity's per-deal sums (the sequential float64 additions of np.add.at).
    wide = n_deals * n_cards >= 2**31

    def rows(lo: int, hi: int) -> dict[str, np.ndarray]:
        """The card rows lo..hi of games without error, as what the quantities need."""
        take = slice(lo, hi) if isinstance(ok, slice) else np.flatnonzero(ok[lo:hi]) + lo

        def col(name: str, dtype: Any = None) -> np.ndarray:
            column = cards[name]
            values = column.cat.codes.to_numpy() \
                if isinstance(column.dtype, pd.CategoricalDtype) else column.to_numpy(dtype)
            return values[take]

        gi = col("gi")
        code = col("card")
        cell = deal_of_game[gi].astype(np.int64 if wide else np.int32) * n_cards + code
        done = col("completed")
        drawn_round = col("drawn_round", np.float32)
        end = rounds_of_game[gi]
        timed = ~np.isnan(drawn_round) & (end >= 0)
        # Turns held: from the draw to the completion, or to the game's end when never
        # completed (whole numbers below 2**24: exact in float32).
        held = np.where(done, col("completed_round", np.float32), end)
        held -= drawn_round
        np.clip(held, 0.0, None, out=held)
        held[~timed] = 0.0
        return {"cell": cell, "code": code, "done": done, "timed": timed,
                "held": held, "done_timed": done & timed, "share": col("share", float)}

    def column(q: str, r: dict[str, np.ndarray]) -> np.ndarray | None:
        """One quantity per card row of a slice."""
        if q == "drawn":
            return None
        if q == "earned":
            return np.where(r["done_timed"], points[r["code"]], 0.0)
        if q == "to_complete":
            return np.where(r["done_timed"], r["held"], 0.0)
        if q in ("won_done", "won_miss"):
            return r["share"] * (r["done"] if q == "won_done" else ~r["done"])
        return r[{"completed": "done", "timed_done": "done_timed"}.get(q, q)]

    # The bootstrap multiplies the sums in single precision (see :func:`bootstrap`), so that is
    # how they are kept: half the memory of float64 and no second copy.  The point estimates
    # take the column totals of the float64 sums, kept aside (``totals``).
    sums = np.empty((n_deals, len(QUANTITIES) * n_cards), dtype=np.float32)
    totals = np.empty(len(QUANTITIES) * n_cards)
    slices = [(lo, min(lo + ROWS, len(cards))) for lo in range(0, len(cards), ROWS)]
    for i, q in enumerate(QUANTITIES):
        block = np.zeros(n_deals * n_cards)
        for lo, hi in slices:
            r = rows(lo, hi)
            block += np.bincount(r["cell"], weights=column(q, r), minlength=n_deals * n_cards)
            del r
        block = block.reshape(n_deals, n_cards)
        totals[i * n_cards:(i + 1) * n_cards] = block.sum(axis=0)
        sums[:, i * n_cards:(i + 1) * n_cards] = block
        del block
    return sums, totals


def _regression(
    t: Tables, deal_of_game: np.ndarray, n_deals: int, min_completions: int
) -> dict[str, Any]:
    """``logit P(seat wins) = a[players] + a[participant] + b_E·Emperor + sum_c b_c·done_c``.

    One row per seat of a game without error (a shared win counts as its fraction).  The
    participant terms take the players' strength out of the cards' coefficients: without
    them, in a run where one bot wins most games, every card that bot completes often would
    look valuable.  Returns the coefficients, the inverse information ("bread"), the score
    vectors summed per deal (from which each bootstrap replicate takes its Newton step) and,
    per coefficient, the factor that keeps the replicates' spread at least the model's own
    standard error: the deal-level (sandwich) variance is too small when one participant wins
    nearly every game and the fitted probabilities sit at 0 and 1.
    """
    n_rows = len(t.ok_column("seats", "gi"))
    catalog = t.catalog
    points = catalog["points"].to_numpy(dtype=float)
    # The completed cards' codes and seat rows only (not a filtered copy of every column).
    completed = t.ok_column("cards", "completed")
    codes = t.ok_column("cards", "card")[completed].astype(np.int64)
    done_srow = t.ok_column("cards", "srow")[completed]
    del completed
    counts = np.bincount(codes, minlength=len(catalog))
    usable = np.flatnonzero((counts >= min_completions) & (n_rows - counts >= min_completions)
                            & ~np.isnan(points))
    fit: dict[str, Any] = {"usable": usable, "rows": n_rows}
    if len(usable) < 2:
        return fit
    players = t.ok_column("seats", "players")
    player_counts = np.unique(players)
    x, n_int = _design(t, n_rows, codes, done_srow, usable, players, player_counts)
    y = t.ok_column("seats", "share", float)
    start = np.zeros(x.shape[1])
    for i, count in enumerate(player_counts):
        rate = float(np.clip(y[players == count].mean(), 0.01, 0.99))
        start[i] = math.log(rate / (1.0 - rate))
    penalty = np.r_[np.zeros(len(player_counts)), np.full(x.shape[1] - len(player_counts),
                                                          1e-2)]
    beta, se = stats.logistic(x, y, penalty, start=start)
    p = special.expit(np.clip(x @ beta, -30.0, 30.0))
    info = stats.information(x, p * (1.0 - p)) + np.diag(penalty)
    bread = np.linalg.pinv(info)
    # Score of each seat row at the fit, summed per deal: sum over deals = penalty * beta.
    per_deal = scores_by_deal(x, y - p, deal_of_game[t.ok_column("seats", "gi")], n_deals)
    sandwich = _sandwich(t, per_deal, bread, deal_of_game, n_deals)
    with np.errstate(divide="ignore", invalid="ignore"):
        inflate = np.where(sandwich > 0, np.maximum(1.0, se / sandwich), 1.0)
    fit.update({"beta": beta, "se": se, "bread": bread, "scores": per_deal,
                "n_int": n_int, "penalty": penalty, "inflate": inflate})
    return fit


def _design(t: Tables, n_rows: int, codes: np.ndarray, done_srow: np.ndarray,
            usable: np.ndarray, players: np.ndarray, player_counts: np.ndarray
            ) -> tuple[sparse.csr_array, int]:
    """The regression's design matrix, one row per seat of a game without error, and its
    number of intercepts (players' counts, then the participants but the first, the
    reference).  The design is indicators (and the Emperor, 0 or 1): a few non-zeros in
    about fifty columns a seat, so it is kept sparse (at a million games a dense one, with
    its weighted copy while fitting, took 1.6 GB of the report's peak)."""
    who = t.ok_column("seats", "participant").astype(np.int64)
    present = np.unique(who)[1:]  # the first participant is the reference
    column = np.full(len(t.catalog), -1)
    column[usable] = np.arange(len(usable))
    n_int = len(player_counts) + len(present)
    entries_r: list[np.ndarray] = []
    entries_c: list[np.ndarray] = []
    plays = np.searchsorted(player_counts, players)
    entries_r.append(np.arange(n_rows))
    entries_c.append(plays)
    where = np.searchsorted(present, who)
    mine = (where < len(present)) & (present[np.minimum(where, len(present) - 1)] == who) \
        if len(present) else np.zeros(n_rows, dtype=bool)
    entries_r.append(np.flatnonzero(mine))
    entries_c.append(len(player_counts) + where[mine])
    emperor = np.flatnonzero(t.ok_column("seats", "emperor"))
    entries_r.append(emperor)
    entries_c.append(np.full(len(emperor), n_int))
    # A card's seat row among the seats of games without error (its games have none).
    ok_seat = t.ok_rows("seats")
    keep = column[codes] >= 0
    entries_r.append(done_srow[keep] if isinstance(ok_seat, slice)
                     else (np.cumsum(ok_seat) - 1)[done_srow[keep]])
    entries_c.append(n_int + 1 + column[codes[keep]])
    x = sparse.coo_array(
        (np.ones(sum(len(r) for r in entries_r)),
         (np.concatenate(entries_r), np.concatenate(entries_c))),
        shape=(n_rows, n_int + 1 + len(usable))).tocsr()
    del entries_r, entries_c
    x.data[:] = 1.0  # an indicator, even where two entries fell in one cell
    return x, n_int


def _sandwich(t: Tables, per_deal: np.ndarray, bread: np.ndarray, deal_of_game: np.ndarray,
              n_deals: int) -> np.ndarray:
    """The bootstrap's standard error of the one-step estimate, worked out: the square
    root of the diagonal of bread · meat · bread, the meat from the deals' scores centred
    within their pairing (a pairing at a time: no centred copy of them all)."""
    strata = t.games["stratum"].to_numpy()[~t.games["error"].to_numpy()]
    stratum_of_deal = np.zeros(n_deals, dtype=np.int64)
    stratum_of_deal[deal_of_game[deal_of_game >= 0]] = strata
    size = per_deal.shape[1]
    meat = np.zeros((size, size))
    for st in np.unique(stratum_of_deal):
        centred = per_deal[stratum_of_deal == st]
        centred -= centred.mean(axis=0)
        meat += centred.T @ centred
    return np.sqrt(np.clip(np.diag(bread @ meat @ bread), 0.0, None))


def scores_by_deal(x: np.ndarray | sparse.csr_array, resid: np.ndarray, deal: np.ndarray,
                   n_deals: int) -> np.ndarray:
    """``x * resid`` summed over the rows of each deal: one bincount per column, the same
    sequential additions as ``np.add.at`` over the rows, without the rows × columns score
    matrix (and many times faster).  A sparse ``x`` is taken column by column from its
    non-zeros (the rows of a column in order, so the additions are the same)."""
    per_deal = np.empty((n_deals, x.shape[1]))
    if sparse.issparse(x):
        by_column = sparse.csc_array(x)
        by_column.sort_indices()
        for j in range(x.shape[1]):
            lo, hi = by_column.indptr[j], by_column.indptr[j + 1]
            rows = by_column.indices[lo:hi]
            per_deal[:, j] = np.bincount(deal[rows], weights=by_column.data[lo:hi] * resid[rows],
                                         minlength=n_deals)
        return per_deal
    for j in range(x.shape[1]):
        per_deal[:, j] = np.bincount(deal, weights=x[:, j] * resid, minlength=n_deals)
    return per_deal


def _betas(fit: dict[str, Any], weights: np.ndarray) -> np.ndarray:
    """One Newton step per replicate from the full fit, with the replicate's deal weights."""
    beta = fit["beta"]
    grad = weights @ fit["scores"] - fit["penalty"] * beta
    return beta + (grad @ fit["bread"].T) * fit["inflate"]


def _lambda(b: np.ndarray, points: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Log-odds per point: slope of the card coefficients on the points, through 0."""
    return (b * w * points).sum(axis=-1) / (w * points * points).sum()


def figures(s: Sample, sums: np.ndarray, betas: np.ndarray | None) -> dict[str, np.ndarray]:
    """Every per-card figure from one or many sums rows (``replicates × columns``)."""
    n = len(s.cards)
    q = {name: sums[:, i * n:(i + 1) * n] for i, name in enumerate(QUANTITIES)}
    cat = s.cards["category"].astype(str).to_numpy()
    out: dict[str, np.ndarray] = {}
    with np.errstate(divide="ignore", invalid="ignore"):
        out["completion_rate"] = q["completed"] / q["drawn"]
        out["in_hand_at_end"] = 1.0 - out["completion_rate"]
        out["turns_held"] = q["to_complete"] / q["timed_done"]
        out["points_per_turn"] = q["earned"] / q["held"]
        out["won_when_completed"] = q["won_done"] / q["completed"]
        out["won_when_missed"] = q["won_miss"] / (q["drawn"] - q["completed"])
        out["lift"] = out["won_when_completed"] - out["won_when_missed"]
        deck = q["earned"].sum(axis=1, keepdims=True) / q["held"].sum(axis=1, keepdims=True)
        out["deck_points_per_turn"] = deck[:, 0]
        out["efficiency_vs_category"] = np.full(out["points_per_turn"].shape, np.nan)
        out["efficiency_ratio"] = np.full(out["points_per_turn"].shape, np.nan)
        for c in CATEGORIES:
            m = cat == c
            # The rest of the category: its points per turn without this card.
            rest = ((q["earned"][:, m].sum(axis=1, keepdims=True) - q["earned"][:, m])
                    / (q["held"][:, m].sum(axis=1, keepdims=True) - q["held"][:, m]))
            out["efficiency_vs_category"][:, m] = out["points_per_turn"][:, m] - rest
            out["efficiency_ratio"][:, m] = out["points_per_turn"][:, m] / rest
            out[f"cat_rate_{c}"] = (q["completed"][:, m].sum(axis=1)
                                    / q["drawn"][:, m].sum(axis=1))
            out[f"cat_ppt_{c}"] = q["earned"][:, m].sum(axis=1) / q["held"][:, m].sum(axis=1)
    fit = s.fit
    fair = np.full(out["completion_rate"].shape, np.nan)
    if betas is not None and "beta" in fit:
        usable = fit["usable"]
        k0 = fit["n_int"] + 1
        b = betas[:, k0:]
        pts = s.cards["points"].to_numpy(dtype=float)[usable]
        w = 1.0 / np.maximum(fit["se"][k0:], 1e-12) ** 2
        lam = _lambda(b, pts, w)
        with np.errstate(divide="ignore", invalid="ignore"):
            fair[:, usable] = b / lam[:, None]
            out["emperor_fair_value"] = betas[:, fit["n_int"]] / lam
        out["lambda"] = lam
    out["fair_value"] = fair
    return out


def bootstrap(
    s: Sample, replicates: int = REPLICATES, seed: int = 0,
    weights: Iterator[np.ndarray] | None = None,
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """The point estimates (one row) and ``replicates`` bootstrap rows of every figure."""
    full = figures(s, s.totals[None],
                   s.fit["beta"][None] if "beta" in s.fit else None)
    if weights is None:
        weights = deal_weights(s.strata, replicates, np.random.default_rng(seed))
    parts: dict[str, list[np.ndarray]] = {}
    # Single precision for the products: per-deal sums are counts, turns and points (exact)
    # and win shares (to 1e-7), and the products take half the time.
    for w in weights:
        rep = figures(s, (w @ s.sums).astype(float),
                      _betas(s.fit, w.astype(float)) if "beta" in s.fit else None)
        for k, v in rep.items():
            parts.setdefault(k, []).append(v)
    boot = {k: np.concatenate(v) for k, v in parts.items()}
    return full, boot


def _interval(boot: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """2.5 and 97.5 percentiles over replicates, ignoring replicates where it is undefined."""
    with np.errstate(invalid="ignore"), _quiet():
        lo, hi = np.nanpercentile(boot, [2.5, 97.5], axis=0)
    return lo, hi


def _scale(boot: np.ndarray) -> np.ndarray:
    """A robust standard error: half the central 68% range (a few wild replicates, where the
    exchange rate came near 0, do not blow it up as they would the standard deviation)."""
    with np.errstate(invalid="ignore"), _quiet():
        lo, hi = np.nanpercentile(boot, [15.865525, 84.134475], axis=0)
    return (hi - lo) / 2.0


class _quiet:
    """Silence numpy's "All-NaN slice" warnings for cards never drawn."""

    def __enter__(self) -> None:
        import warnings

        self._ctx = warnings.catch_warnings()
        self._ctx.__enter__()
        warnings.simplefilter("ignore", RuntimeWarning)

    def __exit__(self, *exc: object) -> None:
        self._ctx.__exit__(*exc)


def _effective_wilson(x: np.ndarray, n: np.ndarray, boot_rate: np.ndarray,
                      category: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Wilson intervals with the draws discounted by their design effect.

    Draws of one card in one deal are correlated (the same card dealt to the same seat
    position in every rotation), so the deal bootstrap's variance of a completion rate is
    larger than the binomial one; their ratio, the design effect (at least 1), divides the
    number of draws.  A card completed never or always has no bootstrap variance; it takes
    the median design effect of its category.
    """
    with np.errstate(divide="ignore", invalid="ignore"), _quiet():
        p = x / n
        binom = p * (1 - p) / n
        deff = np.nanvar(boot_rate, axis=0, ddof=1) / binom
    deff = np.where(np.isfinite(deff), np.maximum(deff, 1.0), np.nan)
    for c in np.unique(category):
        m = category == c
        fill = np.nanmedian(deff[m]) if np.isfinite(deff[m]).any() else 1.0
        deff[m] = np.where(np.isnan(deff[m]), fill, deff[m])
    n_eff = n / deff
    lo, hi = stats.wilson(p * n_eff, n_eff)
    return lo, hi, deff


def card_table(
    s: Sample, full: dict[str, np.ndarray], boot: dict[str, np.ndarray], fdr: float = FDR,
    min_drawn: int = MIN_DRAWN,
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """The per-card table, strongest evidence of imbalance first, and the run-level figures
    beside it; a card drawn fewer than ``min_drawn`` times gets no test and no bootstrap
    figure.

    Three tests flag a card (each across the cards, Benjamini–Hochberg): its fair value
    against its points, dead (completed far less often than its category), and its
    efficiency against its category's; each is a function of its own below."""
    n = len(s.cards)
    q = {name: s.totals[i * n:(i + 1) * n] for i, name in enumerate(QUANTITIES)}
    cat = s.cards["category"].astype(str).to_numpy()
    points = s.cards["points"].to_numpy(dtype=float)
    out, deff = _figure_columns(s, q, full, boot, cat)
    rate = full["completion_rate"][0]
    se_fair = _fair_value_test(out, full, boot, points)
    rest_rate, p_dead = _dead_test(q, cat, deff)
    out["category_rate"] = rest_rate
    few = q["drawn"] < min_drawn
    p_eff, side = _efficiency_test(out, q, full, boot, points, few)
    q_eff = bh(p_eff)
    # Tests of a card drawn a few times are not made: their p-values mean nothing; nor are
    # its bootstrap figures shown (from one deal the interval of its turns held is [0, 0]).
    with np.errstate(divide="ignore", invalid="ignore"):
        draws_needed = np.where(few, np.ceil(s.games * min_drawn / np.maximum(q["drawn"], 1)),
                                np.nan)
    for name in ("turns_held", "points_per_turn", "lift", "efficiency_ratio"):
        out.loc[few, [name, f"{name}_lo", f"{name}_hi"]] = np.nan
        out[f"{name}_games_needed"] = draws_needed
    p_dead = np.where(few, np.nan, p_dead)
    q_dead = bh(p_dead)
    dead = (q_dead <= fdr) & (rate <= 0.5 * rest_rate)
    out.loc[few, ["p_value"]] = np.nan
    out["q_value"] = bh(out["p_value"].to_numpy())
    # Games needed for the fair value's error to resolve one point (5% two-sided, 80% power).
    with np.errstate(divide="ignore", invalid="ignore"):
        out["games_needed"] = np.ceil(s.games * (se_fair * (stats.Z + POWER_Z)) ** 2)
    _fair_value_shown(out, s, full, boot)
    out["flag"] = _flags(out, dead, q_eff, side, fdr)
    out = _by_evidence(out, points)
    return out, _run_info(s, full, boot, out, fdr, points)


def _figure_columns(s: Sample, q: dict[str, np.ndarray], full: dict[str, np.ndarray],
                    boot: dict[str, np.ndarray], cat: np.ndarray
                    ) -> tuple[pd.DataFrame, np.ndarray]:
    """The table's figures and their bootstrap intervals (the completion rate's an
    effective Wilson interval), and each card's design effect (the dead test reads it)."""
    out = s.cards[["card", "category", "asks", "points"]].copy()
    out["drawn"] = q["drawn"].astype(int)
    out["completed"] = q["completed"].astype(int)
    rate = full["completion_rate"][0]
    out["completion_rate"] = rate
    lo, hi, deff = _effective_wilson(q["completed"], q["drawn"], boot["completion_rate"], cat)
    out["completion_rate_lo"], out["completion_rate_hi"] = lo, hi
    out["in_hand_at_end"] = 1.0 - rate
    out["in_hand_at_end_lo"], out["in_hand_at_end_hi"] = 1.0 - hi, 1.0 - lo
    for name in ("turns_held", "points_per_turn", "lift", "fair_value"):
        out[name] = full[name][0]
        out[f"{name}_lo"], out[f"{name}_hi"] = _interval(boot[name])
    out["imbalance"] = out["fair_value"] - s.cards["points"].to_numpy(dtype=float)
    return out, deff


def _fair_value_test(out: pd.DataFrame, full: dict[str, np.ndarray],
                     boot: dict[str, np.ndarray], points: np.ndarray) -> np.ndarray:
    """Fair value against the card's points, tested together (Benjamini–Hochberg): the
    ``p_value`` and ``q_value`` columns; the fair value's bootstrap error."""
    se_fair = _scale(boot["fair_value"])
    with np.errstate(divide="ignore", invalid="ignore"):  # a zero spread: no test (NaN/inf)
        p_fair = two_sided((full["fair_value"][0] - points) / se_fair)
    out["p_value"] = p_fair
    out["q_value"] = bh(p_fair)
    return se_fair


def _dead_test(q: dict[str, np.ndarray], cat: np.ndarray, deff: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray]:
    """Dead cards: completed far less often than the rest of their category.  One-sided
    test of the card's completions against the rest's rate, with the binomial variance
    under that null inflated by the card's design effect; the rest's rate and the p-values."""
    rest_rate = np.full(len(cat), np.nan)
    for c in np.unique(cat):
        m = cat == c
        with np.errstate(divide="ignore", invalid="ignore"):
            rest_rate[m] = ((q["completed"][m].sum() - q["completed"][m])
                            / (q["drawn"][m].sum() - q["drawn"][m]))
    with np.errstate(divide="ignore", invalid="ignore"):
        z_dead = (q["completed"] - q["drawn"] * rest_rate) / np.sqrt(
            q["drawn"] * rest_rate * (1 - rest_rate) * deff)
    return rest_rate, special.ndtr(z_dead)


def _efficiency_test(out: pd.DataFrame, q: dict[str, np.ndarray],
                     full: dict[str, np.ndarray], boot: dict[str, np.ndarray],
                     points: np.ndarray, few: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Efficiency outliers: the p-values and sides (+1 efficient), and the ratio's columns.

    Points per turn held against the rest of the card's category (categories differ as a
    whole; the category table shows that), beyond a margin of ±MARGIN of the rest's:
    one-sided tests at the margin, the error of each at least the one the card would have
    there, its completions a Poisson count (so a card never completed in a few draws is
    not "certain" to be at 0).  A card drawn ``few`` times is not tested."""
    ratio = full["efficiency_ratio"][0]
    with np.errstate(divide="ignore", invalid="ignore"):
        rest_ppt = full["points_per_turn"][0] / ratio
        se_boot = np.nan_to_num(_scale(boot["efficiency_ratio"]), nan=0.0)
        sides = []
        for bound, upper in ((1.0 + MARGIN, True), (1.0 - MARGIN, False)):
            expected = bound * rest_ppt * q["held"] / points
            null_se = np.sqrt(expected) * points / q["held"] / rest_ppt
            z = (ratio - bound) / np.fmax(se_boot, np.nan_to_num(null_se, nan=0.0))
            sides.append(special.ndtr(-z) if upper else special.ndtr(z))
    p_eff = np.fmin(sides[0], sides[1])
    side = np.where(sides[0] < sides[1], 1, -1)
    p_eff = np.where(few | ~np.isfinite(ratio), np.nan, p_eff)
    out["efficiency_ratio"] = ratio
    out["efficiency_ratio_lo"], out["efficiency_ratio_hi"] = _interval(boot["efficiency_ratio"])
    return p_eff, side


def _fair_value_shown(out: pd.DataFrame, s: Sample, full: dict[str, np.ndarray],
                      boot: dict[str, np.ndarray]) -> None:
    """Hide the fair values where a point's worth is not known to be positive: each is a
    ratio over something that may be 0 (-35.6 [-347, 296] points), so none is shown, with
    the games that would resolve the exchange rate beside; else the games a card short of
    completions would need."""
    info_priced = bool(_interval(boot["lambda"])[0] > 0) if "lambda" in boot else False
    if not info_priced:
        out["fair_value_games_needed"] = _lambda_games(s, full, boot)
        for col in ("fair_value", "fair_value_lo", "fair_value_hi", "imbalance", "p_value",
                    "q_value", "games_needed"):
            out[col] = np.nan
    else:
        out["fair_value_games_needed"] = np.where(
            out["fair_value"].isna() & (out["completed"] < MIN_COMPLETIONS),
            np.ceil(s.games * MIN_COMPLETIONS / np.maximum(out["completed"], 1)), np.nan)


def _flags(out: pd.DataFrame, dead: np.ndarray, q_eff: np.ndarray, side: np.ndarray,
           fdr: float) -> list[str]:
    """Per card, the tests that flag it at ``fdr``, as words."""
    flags = []
    for i in range(len(out)):
        f = []
        if out["q_value"].iloc[i] <= fdr:
            f.append("worth more" if out["imbalance"].iloc[i] > 0 else "worth less")
        if dead[i]:
            f.append("dead")
        if q_eff[i] <= fdr:
            f.append("efficient" if side[i] > 0 else "inefficient")
        flags.append(", ".join(f))
    return flags


def _by_evidence(out: pd.DataFrame, points: np.ndarray) -> pd.DataFrame:
    """The table by evidence: how far the fair value's interval is from the points, then
    the p-value; never by the point estimate, which is largest where it is noisiest."""
    evidence = np.fmax(0.0, np.fmax(out["fair_value_lo"] - points, points - out["fair_value_hi"]))
    out["evidence"] = evidence
    order = np.lexsort((np.nan_to_num(out["p_value"].to_numpy(), nan=2.0),
                        -np.nan_to_num(evidence.to_numpy(), nan=-1.0)))
    return out.iloc[order].reset_index(drop=True)


def _run_info(s: Sample, full: dict[str, np.ndarray], boot: dict[str, np.ndarray],
              out: pd.DataFrame, fdr: float, points: np.ndarray) -> dict[str, Any]:
    """The run-level figures beside the card table: games, the exchange rate of a point,
    the emperor's fair value and the spread of the fair values (none where a point's worth
    in log-odds is not known to be positive: every fair value is a ratio over something
    that may be 0, and their spread means nothing)."""
    info: dict[str, Any] = {"games": s.games, "deals": len(s.deals), "fdr": fdr,
                            "cards_modelled": int((~np.isnan(full["fair_value"][0])).sum()),
                            "flagged": int((out["flag"] != "").sum())}
    for name in ("lambda", "emperor_fair_value"):
        if name in full:
            info[name] = float(full[name][0])
            lo_, hi_ = _interval(boot[name])
            info[f"{name}_lo"], info[f"{name}_hi"] = float(lo_), float(hi_)
    info["deck_points_per_turn"] = float(full["deck_points_per_turn"][0])
    info.update(spread_of(full["fair_value"][0], boot["fair_value"], points))
    info["priced"] = bool(info.get("lambda_lo", math.nan) > 0)
    info["lambda_games_needed"] = _lambda_games(s, full, boot)
    if not info["priced"]:
        for name in ("emperor_fair_value", "emperor_fair_value_lo", "emperor_fair_value_hi"):
            info[name] = math.nan
        info.update({"spread": math.nan, "spread_lo": math.nan, "spread_hi": math.nan})
    return info


def _lambda_games(s: Sample, full: dict[str, np.ndarray], boot: dict[str, np.ndarray]) -> float:
    """Games at which the exchange rate's interval would leave 0 out (80% power), from its
    error now; NaN when it cannot be estimated at all."""
    if "lambda" not in full:
        return math.nan
    lam = float(full["lambda"][0])
    se = float(_scale(boot["lambda"]))
    if not (lam > 0 and se > 0):
        return math.nan
    return float(np.ceil(s.games * ((stats.Z + POWER_Z) * se / lam) ** 2))


def spread_of(fair: np.ndarray, boot_fair: np.ndarray, points: np.ndarray) -> dict[str, float]:
    """How unbalanced the set is: the root-mean-square of (fair value − points) over the
    cards with an estimate, corrected for estimation noise, with a bootstrap interval.

    The raw mean of squares is inflated by each estimate's own variance; subtracting the
    mean bootstrap variance makes it an unbiased estimate of the true dispersion (a method
    of moments, as in a random-effects meta-analysis).  The interval is the bootstrap
    distribution of that statistic's error, ``T_r − T`` in the bootstrap world, turned
    around the estimate; squared values below 0 are shown as 0.
    """
    m = ~np.isnan(fair)
    if m.sum() < 2:
        return {"spread": math.nan, "spread_lo": math.nan, "spread_hi": math.nan}
    d = fair[m] - points[m]
    b = boot_fair[:, m] - points[m]
    ok = np.isfinite(b).all(axis=1)
    b = b[ok]
    var = _scale(b) ** 2
    raw = float(np.mean(d * d))
    t_hat = raw - float(var.mean())
    t_rep = np.mean(b * b, axis=1) - float(var.mean())
    err = t_rep - raw  # in the bootstrap world the true value is the sample's raw figure
    lo, hi = t_hat - np.percentile(err, 97.5), t_hat - np.percentile(err, 2.5)

    def root(v: float) -> float:
        return math.sqrt(max(0.0, v))

    return {"spread": root(t_hat), "spread_lo": root(lo), "spread_hi": root(hi),
            "spread_raw": math.sqrt(raw)}


def category_table(s: Sample, full: dict[str, np.ndarray],
                   boot: dict[str, np.ndarray]) -> pd.DataFrame:
    """Per category: completion rate and points per turn held, against the whole deck."""
    rows = []
    for c in CATEGORIES:
        r = {"category": c}
        for name, key in (("completion_rate", f"cat_rate_{c}"),
                          ("points_per_turn", f"cat_ppt_{c}")):
            r[name] = float(full[key][0])
            lo, hi = _interval(boot[key])
            r[f"{name}_lo"], r[f"{name}_hi"] = float(lo), float(hi)
        with np.errstate(divide="ignore", invalid="ignore"):  # no points known: NaN
            ratio = boot[f"cat_ppt_{c}"] / boot["deck_points_per_turn"]
            r["efficiency_ratio"] = float(full[f"cat_ppt_{c}"][0]
                                          / full["deck_points_per_turn"][0])
        lo, hi = _interval(ratio)
        r["efficiency_ratio_lo"], r["efficiency_ratio_hi"] = float(lo), float(hi)
        rows.append(r)
    return pd.DataFrame(rows)


def analyse(t: Tables, replicates: int = REPLICATES, seed: int = 0,
            min_completions: int = MIN_COMPLETIONS, min_drawn: int = MIN_DRAWN
            ) -> dict[str, Any]:
    """The balance of one run: ``cards``, ``categories``, ``info`` (run-level figures)."""
    s = sample(t, min_completions)
    full, boot = bootstrap(s, replicates, seed)
    cards, info = card_table(s, full, boot, min_drawn=min_drawn)
    info["emperor_points"] = float(emperor_points(t.manifest))
    info["min_completions"] = min_completions
    info["replicates"] = replicates
    categories = category_table(s, full, boot)
    # What is kept describes the cards, not the deals: the per-deal sums and scores (0.8 and
    # 0.2 GB at a million games) are the bootstrap's input and are not held by the report
    # for the sections after this one.
    fit = {k: v for k, v in s.fit.items() if k != "scores"}
    kept = Sample(s.deals[:0], s.strata[:0], s.sums[:0], s.cards, s.games, fit, s.totals)
    return {"cards": cards, "categories": categories, "info": info,
            "sample": kept, "full": full, "boot": boot}


def joint_samples(a: Sample, b: Sample) -> tuple[Sample, Sample]:
    """The two runs restricted to the deals both played, in the same order, for resampling
    with the same weights (the paired bootstrap)."""
    common = a.deals.intersection(b.deals, sort=False)
    ia = a.deals.get_indexer(common)
    ib = b.deals.get_indexer(common)

    def take(s: Sample, idx: np.ndarray) -> Sample:
        fit = dict(s.fit)
        if "scores" in fit:
            fit["scores"] = fit["scores"][idx]
        sums = s.sums[idx]
        # The common deals' totals from the single-precision sums: exact for the counts,
        # turns and points (all the comparison shows), to 1e-7 for the win shares.
        return Sample(common, s.strata[idx], sums, s.cards, s.games, fit,
                      sums.sum(axis=0, dtype=np.float64))

    return take(a, ia), take(b, ib)


def suggest(result: dict[str, Any], method: str = "fair-value") -> pd.DataFrame:
    """Integer points per card that would bring it to balance, with the reasons.

    ``fair-value``: each card's points move towards its fair value, shrunk by how sure the
    estimate is (empirical Bayes: the move is ``(fair − points) · τ² / (τ² + se²)``, τ the
    set's noise-corrected spread), so a card measured loosely keeps its points and one
    measured tightly goes most of the way.  ``efficiency``: each category's points are scaled
    so that its points per turn held equals the deck's.  Points are rounded, never below 0.
    """
    cards = result["cards"].set_index("card")
    s: Sample = result["sample"]
    order = s.cards["card"]
    points = s.cards.set_index("card")["points"]
    out = pd.DataFrame({"card": order, "category": s.cards["category"].astype(str),
                        "points": points.reindex(order).to_numpy()})
    if method == "fair-value":
        tau2 = result["info"].get("spread", math.nan) ** 2
        se = pd.Series(_scale(result["boot"]["fair_value"]), index=order)
        fair = cards["fair_value"].reindex(order)
        gap = fair - points.reindex(order)
        # Copies of one card (panda-13, -14 and -15 ask the same) are one card to a designer:
        # their imbalances are pooled (weighted by precision), or the suggestion would give
        # identical cards different points on noise alone.
        copies = pd.Series(copy_groups(s.cards), index=order)
        gap, se = _pool_copies(gap, se, copies)
        shrink = tau2 / (tau2 + se ** 2) if tau2 == tau2 else 0.0 * se
        target = points.reindex(order) + gap * shrink
        out["target"] = target.to_numpy()
        size = copies.map(copies.value_counts())
        why = np.where(fair.isna().to_numpy(), "no estimate (too few completions)",
                       [f"fair value {f:.1f}, shrunk by {k:.2f}"
                        + (f" (imbalance pooled over its {n} copies)" if n > 1 else "")
                        for f, k, n in zip(fair.fillna(0), pd.Series(shrink).fillna(0), size,
                                           strict=True)])
    elif method == "efficiency":
        cats = result["categories"].set_index("category")
        ratio = out["category"].map(cats["efficiency_ratio"])
        out["target"] = out["points"] / ratio
        why = [f"{c} points per turn {r:.2f}× the deck's" for c, r in
               zip(out["category"], ratio.fillna(1.0), strict=True)]
    else:
        raise ValueError(f"unknown method {method!r}")
    suggested = np.where(np.isnan(out["target"].to_numpy(dtype=float)), out["points"],
                         np.round(out["target"].to_numpy(dtype=float)))
    out["suggested"] = np.maximum(suggested, 0).astype(int)
    out["change"] = out["suggested"] - out["points"]
    out["why"] = why
    return out


def copy_groups(cards: pd.DataFrame) -> list[str]:
    """Per card of a catalog, what it asks (category and condition): equal for copies of one
    card; a card whose condition is unknown (a manifest without catalog) is its own group."""
    return [f"{cat}: {asks}" if asks else card for card, cat, asks in
            zip(cards["card"], cards["category"].astype(str), cards["asks"], strict=True)]


def _pool_copies(gap: pd.Series, se: pd.Series, group: pd.Series
                 ) -> tuple[pd.Series, pd.Series]:
    """Per card, the precision-weighted mean imbalance of its copies (``group``: equal for
    copies, indexed like ``gap``) and that mean's error; copies without an estimate take
    their copies' (a card with none keeps NaN)."""
    ok = gap.notna() & se.notna() & (se > 0)
    w = (1.0 / se.where(ok) ** 2).fillna(0.0)
    sum_w = w.groupby(group).transform("sum")
    with np.errstate(divide="ignore", invalid="ignore"):
        pooled = (gap.fillna(0.0) * w).groupby(group).transform("sum") / sum_w
        pooled_se = 1.0 / np.sqrt(sum_w)
    return pooled.where(sum_w > 0), pooled_se.where(sum_w > 0)


def suggest_card_set(
    t: Tables, method: str = "fair-value", replicates: int = REPLICATES, name: str | None = None,
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """The suggestion table (:func:`suggest`) and the ``--cards`` file that carries it.

    The file lists every card in play with its suggested points (a card left as it was is
    listed too, so the file reads as the whole set), keeps the run's Emperor and removed
    cards, and is what ``arena tournament --cards FILE`` reads.
    """
    unknown = t.catalog.loc[~t.catalog["removed"] & t.catalog["points"].isna(), "card"]
    if len(unknown):
        raise ReportError(f"{t.source}: the points of {', '.join(unknown[:3])}"
                          f"{' ...' if len(unknown) > 3 else ''} are not in its manifest.json "
                          "(`arena tournament --resume DIR` adds its card catalog), so no card "
                          "set can be suggested.")
    result = analyse(t, replicates=replicates)
    table = suggest(result, method)
    # A tournament plays each card at its points only: any other price is extrapolated from
    # the regression, and the table and the file's name say so.
    table["extrapolated"] = table["change"] != 0
    table["why"] = [w + (f"; extrapolated: the games played it at {p:g} only" if e else "")
                    for w, p, e in zip(table["why"], table["points"], table["extrapolated"],
                                       strict=True)]
    far = table[table["extrapolated"]]
    label = name or f"suggested from {t.label} ({method})"
    if len(far):
        label += "; extrapolated beyond the prices measured: " + ", ".join(
            f"{c} {p:g}->{v}" for c, p, v in zip(far["card"], far["points"], far["suggested"],
                                                 strict=True))
    removed = set(t.catalog.loc[t.catalog["removed"], "card"])
    kept = table[~table["card"].isin(removed)]
    card_file: dict[str, Any] = {
        "name": label,
        "emperor": int(emperor_points(t.manifest)),
        "points": {c: int(v) for c, v in zip(kept["card"], kept["suggested"], strict=True)},
    }
    if removed:
        card_file["remove"] = sorted(removed)
    return table, card_file
