"""The statistics behind the tables, as small numpy functions testable by hand.

Conventions shared by every table: 95% intervals (``Z`` = 1.96); proportions get Wilson
intervals, which stay inside [0, 1] and behave with few games or rates near 0 and 1 where the
textbook ``p ± z·se`` does not; a shared victory counts as ``1/k`` of a win, and the Wilson
formula is applied to that fractional count unchanged.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray
from scipy import sparse, special, stats

from arena.stats import intervals

Z = intervals.Z
ELO_PER_NAT = 400.0 / math.log(10.0)
ELO_CLIP = 999.0
FloatArray = NDArray[np.float64]


def wilson(successes: ArrayLike, n: ArrayLike, z: float = Z) -> tuple[FloatArray, FloatArray]:
    """:func:`arena.stats.intervals.wilson` element by element (the arrays broadcast); NaN where
    ``n`` is 0.  The formula is the tournament's, so a report and the standings printed
    while the games ran give the same interval.  A NaN count (a participant one of the runs
    compared did not have) gives NaNs, silently: numpy's warning about it is no news to a
    reader of the report."""
    with np.errstate(invalid="ignore", divide="ignore"):
        lo, hi = _wilson(np.asarray(successes, dtype=float), np.asarray(n, dtype=float), z)
    return np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)


_wilson = np.vectorize(intervals.wilson, otypes=[float, float], excluded={2, "z"})


def newcombe(
    x1: ArrayLike, n1: ArrayLike, x2: ArrayLike, n2: ArrayLike, z: float = Z
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Difference ``x2/n2 - x1/n1`` of two independent proportions, Newcombe's hybrid interval.

    Built from the two Wilson intervals, so a comparison of runs inherits their good
    behaviour with small counts (Newcombe 1998, method 10).
    """
    a = np.asarray(x1, dtype=float)
    b = np.asarray(x2, dtype=float)
    na = np.asarray(n1, dtype=float)
    nb = np.asarray(n2, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        p1, p2 = a / na, b / nb
    l1, u1 = wilson(a, na, z)
    l2, u2 = wilson(b, nb, z)
    d = p2 - p1
    lo = d - np.sqrt((p2 - l2) ** 2 + (u1 - p1) ** 2)
    hi = d + np.sqrt((u2 - p2) ** 2 + (p1 - l1) ** 2)
    return d, lo, hi


def los(wins: ArrayLike, losses: ArrayLike) -> FloatArray:
    """Likelihood of superiority, as cutechess and fastchess print it.

    ``Phi((W - L) / sqrt(W + L))``: the probability that the first side is the stronger,
    from decisive games only (draws carry no information about who is stronger).  NaN with no
    decisive game.
    """
    w = np.asarray(wins, dtype=float)
    lo_ = np.asarray(losses, dtype=float)
    n = w + lo_
    with np.errstate(divide="ignore", invalid="ignore"):
        value = special.ndtr((w - lo_) / np.sqrt(n))
    return np.where(n > 0, value, np.nan)


def elo_from_score(score: ArrayLike) -> FloatArray:
    """Elo difference implied by an expected score (``-400 log10(1/s - 1)``), clipped."""
    s = np.asarray(score, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        elo = -400.0 * np.log10(1.0 / s - 1.0)
    return np.clip(elo, -ELO_CLIP, ELO_CLIP)


def bradley_terry(
    wins: ArrayLike, games: ArrayLike, penalty: float = 1e-4, iterations: int = 100
) -> FloatArray:
    """Bradley–Terry log-strengths (natural units, mean 0), for one or a batch of tables.

    ``wins[..., i, j]`` is what ``i`` scored against ``j`` (a draw or a shared win is half a
    point each), ``games[..., i, j]`` how many games they played (symmetric).  Newton's method
    on the log-likelihood, vectorised over the leading batch axis so that a thousand bootstrap
    tables cost one call.  The tiny ridge ``penalty`` only matters when a participant won or
    lost everything (no finite maximum exists); such ratings end up large and are clipped at
    ±999 Elo by :func:`bt_elo`.
    """
    w = np.asarray(wins, dtype=float)
    n = np.asarray(games, dtype=float)
    single = w.ndim == 2
    if single:
        w, n = w[None], n[None]
    batch, k, _ = w.shape
    theta = np.zeros((batch, k))
    scored = w.sum(axis=2)
    eye = np.eye(k)
    for _ in range(iterations):
        diff = theta[:, :, None] - theta[:, None, :]
        p = special.expit(diff)
        grad = scored - (n * p).sum(axis=2) - penalty * theta
        info = n * p * (1.0 - p)
        hess = info - eye * (info.sum(axis=2)[:, :, None] + penalty)
        step = np.linalg.solve(hess, grad[..., None])[..., 0]
        step = np.clip(step, -2.0, 2.0)
        theta = theta - step
        if np.max(np.abs(step)) < 1e-9:
            break
    theta -= theta.mean(axis=1, keepdims=True)
    return theta[0] if single else theta


def bt_elo(theta: ArrayLike) -> FloatArray:
    """Bradley–Terry log-strengths in Elo points, clipped at ±999 (a perfect record)."""
    return np.clip(np.asarray(theta, dtype=float) * ELO_PER_NAT, -ELO_CLIP, ELO_CLIP)


def bootstrap_sums(
    rows: NDArray[np.float64], strata: NDArray[np.int64], replicates: int,
    rng: np.random.Generator,
) -> FloatArray:
    """Column sums of ``rows`` over bootstrap resamples of the rows, within each stratum.

    A row is one deal (the games sharing a seed are correlated, so deals are resampled, not
    games); a stratum is one pairing, whose number of deals the schedule fixed.  Deals take
    few distinct values (in 2-player games a deal is one of five pentanomial outcomes), so each
    stratum is resampled as a multinomial draw over its distinct rows: exact, and independent
    of the number of games.
    """
    total = np.zeros((replicates, rows.shape[1]))
    for stratum in np.unique(strata):
        block = rows[strata == stratum]
        distinct, counts = np.unique(block, axis=0, return_counts=True)
        draws = rng.multinomial(len(block), counts / counts.sum(), size=replicates)
        total += draws @ distinct
    return total


def chisquare_uniform(observed: Sequence[float]) -> tuple[float, float, int]:
    """Chi-square goodness of fit of ``observed`` against equal expected counts."""
    obs = np.asarray(observed, dtype=float)
    if len(obs) < 2 or obs.sum() <= 0:
        return math.nan, math.nan, max(0, len(obs) - 1)
    result = stats.chisquare(obs)
    return float(result.statistic), float(result.pvalue), len(obs) - 1


def logistic(
    x: NDArray[np.float64] | sparse.csr_array, y: NDArray[np.float64],
    penalty: NDArray[np.float64] | float = 0.0, iterations: int = 50,
    start: ArrayLike | None = None,
) -> tuple[FloatArray, FloatArray]:
    """Logistic regression by Newton's method: coefficients and their standard errors.

    ``y`` may be fractional (a shared win is ``1/k``); the fit is then the quasi-likelihood
    one.  ``penalty`` is a ridge term per coefficient, which keeps cards that were never (or
    always) in a winning hand from diverging; with thousands of games it is negligible.
    Standard errors come from the inverse of the penalised information matrix.  ``x`` may be
    a sparse matrix (``scipy.sparse``, CSR): the card study's design is indicators, a few
    non-zeros in fifty columns a row, and at a million games the dense design and its
    weighted copy would take 1.6 GB.
    """
    k = x.shape[1]
    pen = np.broadcast_to(np.asarray(penalty, dtype=float), (k,))
    beta = np.zeros(k) if start is None else np.asarray(start, dtype=float).copy()
    info = np.eye(k)
    is_sparse = sparse.issparse(x)
    # One buffer for the weighted design, reused: a fresh 100+ MB array per iteration costs
    # more in page faults than the matrix product itself.
    xw = None if is_sparse else np.empty_like(x, dtype=float)
    for _ in range(iterations):
        # Clipping the linear predictor keeps p and its weight away from subnormal floats,
        # which make the matrix products below tens of times slower; 30 logits from the
        # boundary changes no estimate.
        eta = np.clip(x @ beta, -30.0, 30.0)
        p = special.expit(eta)
        grad = x.T @ (y - p) - pen * beta
        info = information(x, p * (1.0 - p), out=xw) + np.diag(pen)
        step = np.linalg.lstsq(info, grad, rcond=None)[0]
        beta = beta + step
        if np.max(np.abs(step)) < 1e-7:
            break
    cov = np.linalg.pinv(info)
    se = np.sqrt(np.clip(np.diag(cov), 0.0, None))
    return beta, se


def information(x: NDArray[np.float64] | sparse.csr_array, weight: NDArray[np.float64],
                out: NDArray[np.float64] | None = None) -> FloatArray:
    """``x.T @ diag(weight) @ x`` as a dense matrix, for a dense or a sparse ``x``
    (``out``: a buffer of ``x``'s shape for the dense path's weighted copy)."""
    if sparse.issparse(x):
        # The weighted rows share x's indices (a CSR matrix's rows are runs of its data):
        # one array of its non-zeros is made, not a second matrix.
        x = sparse.csr_array(x)
        rows = np.repeat(np.arange(x.shape[0]), np.diff(x.indptr))
        xw = sparse.csr_array((x.data * weight[rows], x.indices, x.indptr), shape=x.shape)
        return np.asarray((x.T @ xw).toarray())
    xw = np.multiply(x, np.sqrt(weight)[:, None], out=out)
    return xw.T @ xw


def ratio_ci(
    numerator: ArrayLike, denominator: ArrayLike, z: float = Z
) -> tuple[float, float, float]:
    """``sum(a) / sum(b)`` with a linearisation interval, treating each pair as one cluster.

    Used for shares of points, where the unit that is sampled (a game) contributes to both
    sums.
    """
    a = np.asarray(numerator, dtype=float)
    b = np.asarray(denominator, dtype=float)
    n = len(a)
    if n == 0 or b.sum() == 0:
        return math.nan, math.nan, math.nan
    r = a.sum() / b.sum()
    if n < 2:
        return float(r), math.nan, math.nan
    resid = a - r * b
    se = math.sqrt(n / (n - 1) * float((resid**2).sum())) / float(b.sum())
    return float(r), float(r - z * se), float(r + z * se)


def plackett_luce_online(
    games: Sequence[tuple[Sequence[int], Sequence[int]]], k: int, mu: float, sigma: float,
    beta: float, kappa: float, tau: float,
) -> tuple[list[float], list[float]]:
    """openskill's Plackett–Luce update (Weng & Lin 2011, algorithm 4), one-player teams.

    ``games`` is a sequence of (participant indices, ranks) in play order; returns the final
    ``mu`` and ``sigma`` of the ``k`` participants.  The arithmetic is openskill 6's
    ``PlackettLuce.rate`` with its defaults (sigma widened by ``tau`` before each game, the
    default gamma, no margin, no sigma limit), written for one player per team: ``rate``
    deep-copies every rating and stamps it with a fresh UUID, which costs six seconds over
    100,000 games, against one here.  A test checks this against ``openskill`` itself.

    A participant may hold several seats of one game (2 participants, 4 seats): each seat is
    then rated as a team of its own, and the participant moves by the mean of its seats'
    updates, so that two seats do not count as two games.
    """
    mus = [mu] * k
    sigmas = [sigma] * k
    beta2 = beta * beta
    tau2 = tau * tau
    for who, ranks in games:
        n = len(who)
        sig2 = [sigmas[p] ** 2 + tau2 for p in who]
        m = [mus[p] for p in who]
        c = math.sqrt(sum(v + beta2 for v in sig2))
        e = [math.exp(x / c) for x in m]
        sum_q = [sum(e[i] for i in range(n) if ranks[i] >= ranks[q]) for q in range(n)]
        a = [sum(1 for i in range(n) if ranks[i] == ranks[q]) for q in range(n)]
        new_mu = []
        new_sigma = []
        for i in range(n):
            omega = 0.0
            delta = 0.0
            for q in range(n):
                if ranks[q] <= ranks[i]:
                    t = e[i] / sum_q[q]
                    delta += t * (1.0 - t) / a[q]
                    omega += ((1.0 - t) if q == i else -t) / a[q]
            omega *= sig2[i] / c
            delta *= sig2[i] / (c * c) * (math.sqrt(sig2[i]) / c)
            new_mu.append(m[i] + omega)
            new_sigma.append(math.sqrt(sig2[i]) * math.sqrt(max(1.0 - delta, kappa)))
        if len(set(who)) == n:
            for i, p in enumerate(who):
                mus[p], sigmas[p] = new_mu[i], new_sigma[i]
        else:
            for p in set(who):
                mine = [i for i in range(n) if who[i] == p]
                mus[p] = sum(new_mu[i] for i in mine) / len(mine)
                sigmas[p] = sum(new_sigma[i] for i in mine) / len(mine)
    return mus, sigmas


#: Deals below which no interval is shown and no test is made (``arena.stats.intervals``, which the
#: tournament's own standings use too).
MIN_UNITS = intervals.MIN_UNITS
#: An interval narrower than this is zero-width (arithmetic noise, not precision).
FLAT = 1e-12


def games_needed(games: float, units: float, min_units: int = MIN_UNITS) -> float:
    """About how many games would give ``min_units`` deals, at this run's games per deal."""
    if not units > 0 or not games > 0:
        return math.nan
    return float(math.ceil(games * min_units / units))


def _is_test(column: str) -> bool:
    """A test's column: a p- or q-value (``p_value``, ``q_fair_value``, ``p[run]``)."""
    return column in ("p_value", "q_value", "q_skill") or column.startswith(("p_", "q_", "p["))


def _is_flag(column: str) -> bool:
    """A verdict drawn from a test: a flag or a yes/no finding."""
    return column in ("flag", "depends_on_skill") or column.startswith("flag[")


def withhold(frame: Any, units: float, games: float, min_units: int = MIN_UNITS) -> Any:
    """The one rule behind every interval of every report (CSV, Markdown and HTML alike).

    A row whose figures stand on fewer than ``min_units`` independent units (deals: the
    row's own ``deals`` column when the table has one, else ``units``, the deals of the run
    or the runs compared) shows no interval and no test: its ``x_lo``/``x_hi`` are blanked,
    ``x_games_needed`` says how many games (at ``games / units`` per deal) would carry it,
    its p- and q-values are blanked and its flags emptied, so nothing drawn from it can reach
    a flag or a list of significant differences.  Any other interval of zero width (a
    bootstrap over deals that all came out alike, a difference of two such) is blanked too,
    with the tests on its figure: a zero-width interval is printed only for a quantity known
    exactly, and no report has one.  Estimates stay; only what they cannot carry goes.
    """
    if not isinstance(frame, pd.DataFrame) or frame.empty:
        return frame
    out = frame.copy()
    row_units = (pd.to_numeric(out["deals"], errors="coerce").to_numpy(dtype=float)
                 if "deals" in out.columns else np.full(len(out), float(units)))
    row_units = np.fmin(row_units, float(units)) if units == units else row_units
    thin = ~(row_units >= min_units)
    # Games needed at the row's own games per deal where the row says both (a participant's
    # standings line, as the tournament prints it), else at the run's.
    per_deal = np.full(len(out), games / units if units > 0 else math.nan)
    if "deals" in out.columns and "games" in out.columns:
        own = pd.to_numeric(out["games"], errors="coerce").to_numpy(dtype=float)
        with np.errstate(divide="ignore", invalid="ignore"):
            per_deal = np.where(row_units > 0, own / row_units, per_deal)
    needed = np.array([math.nan if not u > 0 or d != d else float(math.ceil(d * min_units))
                       for u, d in zip(row_units, per_deal, strict=True)])
    for col in list(out.columns):
        lo, hi = f"{col}_lo", f"{col}_hi"
        if lo not in out.columns or hi not in out.columns:
            continue
        value = pd.to_numeric(out[col], errors="coerce").to_numpy(dtype=float)
        a = pd.to_numeric(out[lo], errors="coerce").to_numpy(dtype=float)
        b = pd.to_numeric(out[hi], errors="coerce").to_numpy(dtype=float)
        flat = np.isfinite(a) & np.isfinite(b) & (np.abs(b - a) <= FLAT)
        drop = (thin & (np.isfinite(a) | np.isfinite(b))) | flat
        if not drop.any():
            continue
        out[lo] = np.where(drop, np.nan, a)
        out[hi] = np.where(drop, np.nan, b)
        base = col[1:] if col.startswith("Δ") else col
        for test in (f"p_{base}", f"q_{base}"):
            if test in out.columns:
                out[test] = np.where(drop, np.nan, pd.to_numeric(out[test], errors="coerce"))
        gn = f"{col}_games_needed"
        want = thin & np.isfinite(value)
        if want.any():
            old = (pd.to_numeric(out[gn], errors="coerce").to_numpy(dtype=float)
                   if gn in out.columns else np.full(len(out), np.nan))
            out[gn] = np.where(want & np.isnan(old), needed, old)
    if thin.any():
        for col in out.columns:
            if _is_test(str(col)):
                out[col] = np.where(thin, np.nan, pd.to_numeric(out[col], errors="coerce"))
            elif _is_flag(str(col)):
                out[col] = np.where(thin, "", out[col].astype(object))
    return out
