"""What a card is worth, measured by intervention on the deal: the analysis of a card study.

A study (``arena/tournament/experiment.py``) plays each deal once per card of a category, a
subject seat holding that card in place of the one it was dealt, everything else the seed's;
and, for the cards whose fair points are measured, again with the card at other prices.  The
deal is the unit: its games share the luck of the seed, so every figure here is a mean over
deals of a per-deal quantity, and every interval is computed from the spread of those
per-deal quantities (clustered by deal, never by game).

Per card, within one skill level:

- ``effect``: the subject's win share holding the card minus its mean win share holding
  each other card of the category in the same deal (the category's average card), averaged
  over the deals; a paired t interval over deals (n - 1 degrees of freedom).  The effects of
  one category sum to 0.
- ``p_value``/``q_value``: the t test of effect = 0 and its Benjamini–Hochberg adjustment
  across every card of the level; ``too strong`` (holding it beats the average card: its
  fair points are below its points) or ``too weak`` when q <= ``FDR``.  A card whose effect
  is 0 is worth its points in the sense below, so this is the test of "fair points =
  points".
- ``fair_points``: the price at which holding the card is worth the same as holding the
  category's average card of the set studied.  Per deal, the contrasts at the card's points
  (its block games) and at its price arms are taken against the other cards' win shares in
  the block games where no other seat holds the card: in those that it does, a rival faces
  the card at its points, so that baseline would move with the card's own price and the
  break-even price with it.  The root lies on the segment from the card's points to its
  nearest price arm on the side the contrast points to (below the points when the card
  beats the average card); per deal that segment's intercept a and slope b, their means over
  deals and the deals' covariance give the root ``points - a / b`` and Fieller's interval for
  it (a ratio of two estimates whose denominator may be near 0: the interval is then
  unbounded, and the figure is not shown).  Interpolating on that segment, not along the
  tangent at the points, keeps a curved response from biasing the root (calibrated in
  docs/balance.md).  In 2-player blocks with both seats observed that baseline is exactly
  1/2 (a win and a loss between two other cards per game) and the intercept exactly the
  effect × (m - 1) / m, m the category's cards: the interval leaves the points out exactly
  when the effect's t test rejects; with more players, or the subject alone observed, nearly
  so.  With three prices a per-deal quadratic term tests the curve's curvature
  (``curvature_p``); ``slope`` is the central difference over the arms (the card's price
  sensitivity), ``break_slope`` the segment's.
- ``points_per_action``: the card's points earned (when completed) over the subject's turn
  actions until its completion (or the end), summed over deals; ``efficiency`` is that over
  the same figure of the rest of its category on the same deals, with a bootstrap interval
  over deals.  The flag tests a margin a designer cares about: ``efficient`` when the test
  of efficiency <= 1 + ``MARGIN`` rejects, ``inefficient`` when that of >= 1 - ``MARGIN``
  does (one-sided, normal with the bootstrap error, Benjamini–Hochberg across cards).

Below ``MIN_DEALS`` complete blocks a card's figures are not shown ("not enough games: about
N needed"), nor is a fair point whose Fieller interval is unbounded.  Across skill levels
(played on the same deals), a card's per-deal effects are compared by Hotelling's T² on
their differences (the paired t test for two levels), Benjamini–Hochberg across cards;
between neighbouring levels, by the paired t test of their difference, copies pooled
(``neighbour_table``); and whether a category's prices converge as skill grows, by the
noise-corrected spread of its effects per level and its change between neighbours, with
a bootstrap over deals (``convergence_table``).

Calibration of these figures by simulation is ``scripts/balance_calibration.py``
(docs/balance.md, "Calibration").
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats as sps

from arena.runs.moves import turn_actions
from arena.runs.reader import RunError, open_run, sentence
from arena.runs.segments import has_games

from .balance import bh
from .loader import ReportError, Tables, _lines, card_catalog
from .loader import load as loader_load

FDR = 0.05
#: Complete blocks (deals) below which a card's figures are not shown.
MIN_DEALS = 10
#: The efficiency flag's margin: a card is flagged beyond ±20% of its category.
MARGIN = 0.2
REPLICATES = 1000
POWER_Z = 0.8416212335729143  # 80% power
CATEGORIES = ("plot", "gardener", "panda")


@dataclass
class Experiment:
    """A study's games reduced to one row per game (``arms``), with what the manifest says."""

    source: Path
    manifest: dict[str, Any]
    design: dict[str, Any]
    #: Per level, the subject's participant name (the level's spec or name=).
    levels: list[str]
    catalog: pd.DataFrame
    arms: pd.DataFrame
    warnings: list[str] = field(default_factory=list)
    #: ``analysed``'s results by bootstrap size: computed once, whoever asks.
    analyses: dict[int, dict[str, Any]] = field(default_factory=dict, repr=False)

    @property
    def label(self) -> str:
        return self.source.name or str(self.source)

    @property
    def depth(self) -> int | None:
        return self.design.get("depth")


def is_experiment(manifest: dict[str, Any]) -> bool:
    """Whether a run's manifest describes a card study."""
    design = manifest.get("experiment")
    return isinstance(design, dict) and design.get("kind") == "card-value"


def _holders(rec: dict[str, Any], after_draw: bool, observed: str) -> list[tuple[int, str]]:
    """The (seat, card) observations of a game: every seat that holds a placed card (only
    the subject's when the other seats are another bot); with ``depth``, the seat that drew
    the placed card (-1: nobody did)."""
    placed = str(rec["placed"])
    if after_draw:
        seat = next((int(c["seat"]) for c in rec.get("cards", ())
                     if c.get("card") == placed and c.get("drawn_round", 0) > 0), -1)
        return [(seat, placed)]
    subject = int(rec["subject"])
    out = [(int(p["seat"]), str(p["card"])) for p in rec["intervention"]]
    if observed == "subject" or rec["arm"] != "block":
        out = [(s, c) for s, c in out if s == subject]
    return out


_ARM_COLUMNS = ("level", "category", "deal", "card", "price", "arm", "seat", "y", "done",
                "pts", "acts", "error", "game", "rivals", "line")


class _Arms:
    """A study's rows (``Experiment.arms``), gathered record by record as a run is read."""

    def __init__(self, source: Path, manifest: dict[str, Any], strict: bool) -> None:
        if not is_experiment(manifest):
            raise ReportError(f"{source} is not a card study (its manifest has no experiment); "
                              "`arena balance study` makes one.")
        self.source, self.manifest, self.strict = source, manifest, strict
        self.design = manifest["experiment"]
        names = [p["name"] for p in manifest["participants"]]
        try:
            self.levels = [names[int(lineup[0])] for lineup in self.design["levels"]]
        except (KeyError, IndexError, TypeError, ValueError):
            raise ReportError(f"{source}/manifest.json: its experiment's levels do not name "
                              "its participants.") from None
        self.catalog = card_catalog(manifest)
        self.after_draw = self.design.get("depth") is not None
        self.observed = str(self.design.get("observed", "all"))
        self.points = dict(zip(self.catalog["card"], self.catalog["points"], strict=True))
        self.warnings: list[str] = []
        self.rows: dict[str, list[Any]] = {k: [] for k in _ARM_COLUMNS}

    def add(self, number: int, rec: Any) -> None:
        """One record's rows (none for a record that is not a study's game)."""
        if not isinstance(rec, dict) or "arm" not in rec:
            return
        try:
            rows = [self._row(number, rec, seat, card)
                    for seat, card in _holders(rec, self.after_draw, self.observed)]
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            if self.strict:
                raise ReportError(f"{self.source / 'games.jsonl'}: game {rec.get('game')!r} is "
                                  f"not a record of a card study ({exc!r}).") from None
            self.warnings.append(f"skipped game {rec.get('game')!r}: not a study record")
            return
        for row in rows:
            for name, value in zip(_ARM_COLUMNS, row, strict=True):
                self.rows[name].append(value)

    def _row(self, number: int, rec: dict[str, Any], seat: int, card: str) -> tuple[Any, ...]:
        price = float(rec["price"]) if card == rec["placed"] else \
            float(self.points.get(card, math.nan))
        winners = list(rec["winners"])
        if seat >= 0:
            y = 1.0 / len(winners) if seat in winners else 0.0
            done = card in rec["completed"][seat]
            acts = turn_actions(rec["moves"], seat, card, self.after_draw)
        else:  # depth: nobody drew it
            y, done, acts = math.nan, False, 0
        # The cards placed with the other seats of the game (block games).
        rivals = ",".join(str(q["card"]) for q in rec["intervention"]
                          if "seat" in q and int(q["seat"]) != seat)
        return (int(rec["level"]), str(rec["category"]), int(rec["deal"]), card, price,
                str(rec["arm"]), seat, y, bool(done), price if done else 0.0, acts,
                rec.get("error") is not None, str(rec.get("game", "")), rivals, number)

    def experiment(self, warnings: list[str]) -> Experiment:
        arms = pd.DataFrame(self.rows, columns=list(_ARM_COLUMNS))
        # A game recorded twice (a resumed study) counts once: its last record.
        arms = arms[arms["line"] == arms.groupby("game")["line"].transform("max")]
        arms = arms.drop(columns="line").reset_index(drop=True)
        return Experiment(self.source, self.manifest, self.design, self.levels, self.catalog,
                          arms, [*warnings, *self.warnings])


def load(directory: str | Path, strict: bool = True) -> Experiment:
    """A study's files as an :class:`Experiment`, read through the one verified reader of a
    run (signatures, chain and seal checked); ReportError (one sentence) otherwise."""
    source = Path(directory)
    try:
        run = open_run(source)
    except RunError as exc:
        raise ReportError(sentence(exc)) from None
    arms = _Arms(source, run.manifest, strict)
    warnings = list(run.warnings)
    if has_games(source):
        for number, rec in _lines(run, strict, warnings):
            arms.add(number, rec)
    return arms.experiment(warnings)


def load_tables(directory: str | Path, strict: bool = True, **load_args: Any) -> Tables:
    """A run's :class:`Tables` (``loader.load``, with its ``load_args``), and for a card
    study its :class:`Experiment` too (``Tables.experiment``), from one read of its games:
    a study's report and its summary need both."""
    source = Path(directory)
    gathered: list[_Arms] = []

    def visit(manifest: dict[str, Any]) -> Any:
        if not is_experiment(manifest):
            return None
        gathered.append(_Arms(source, manifest, strict))
        return gathered[0].add

    tables = loader_load(source, strict, visit=visit, **load_args)
    if gathered:
        tables.experiment = gathered[0].experiment(list(tables.warnings))
    return tables


def analysed(exp: Experiment, replicates: int = REPLICATES) -> dict[str, Any]:
    """``analyse(exp, replicates)``, computed once per study and kept with it: the study's
    summary and its report's section ask for the same figures (the bootstrap is most of
    the cost)."""
    if replicates not in exp.analyses:
        exp.analyses[replicates] = analyse(exp, replicates=replicates)
    return exp.analyses[replicates]


# ------------------------------------------------------------------ per-deal matrices


@dataclass
class Block:
    """One level and category: per complete deal and card, the block's results of the
    card's holders (``y``, their mean win share; ``pts`` and ``acts``, their sums; ``done``,
    the share that completed it), and the price arms' win shares by (card, price)."""

    level: int
    category: str
    cards: list[str]
    points: np.ndarray             # each card's points in the set studied
    deals: np.ndarray              # the complete deals, sorted
    y: np.ndarray                  # deals × cards
    pts: np.ndarray
    acts: np.ndarray
    done: np.ndarray
    prices: dict[str, list[float]]          # card -> other prices (complete deals only)
    priced_y: dict[str, np.ndarray]         # card -> deals × prices
    dropped: int                            # deals left out (incomplete, or an error)
    #: card -> per deal, the other cards' mean win share in the block games where no other
    #: seat holds the card (the price arms' baseline); absent: ``contrasts``'s.
    apart: dict[str, np.ndarray] = field(default_factory=dict)

    def contrasts(self, y: np.ndarray | None = None) -> np.ndarray:
        """Per deal and card: its win share minus the mean of the other cards' (deals ×
        cards); ``y`` another matrix of the same shape (the price arms')."""
        m = self.y.shape[1]
        others = (self.y.sum(axis=1, keepdims=True) - self.y) / (m - 1)
        return (self.y if y is None else y) - others


def blocks(exp: Experiment) -> list[Block]:
    """The complete blocks of every level and category."""
    a = exp.arms
    points = dict(zip(exp.catalog["card"], exp.catalog["points"], strict=True))
    out = []
    in_play = exp.catalog[~exp.catalog["removed"]]
    for level in range(len(exp.levels)):
        for category in exp.design.get("categories", CATEGORIES):
            cards = list(in_play.loc[in_play["category"] == category, "card"])
            rows = a[(a["level"] == level) & (a["category"] == category)]
            block = rows[rows["arm"] == "block"]
            bad = set(rows.loc[rows["error"] | rows["y"].isna(), "deal"])
            # Complete deals: every card held as often as the design holds it (once per seat
            # observed), in games without error.
            held = block.groupby(["deal", "card"]).size().unstack().reindex(columns=cards)
            full = held.notna().all(axis=1) & (held.nunique(axis=1) == 1)
            deals = np.array(sorted(set(held.index[full]) - bad), dtype=int)
            priced = rows[rows["arm"] == "price"]
            prices: dict[str, list[float]] = {}
            priced_y: dict[str, np.ndarray] = {}
            if len(priced):
                want = priced.groupby("card")["price"].unique()
                have = priced.groupby("deal").size()
                expected = sum(len(v) for v in want)
                deals = np.array([d for d in deals if have.get(d, 0) == expected], dtype=int)
                for card, ps in want.items():
                    ps = sorted(float(p) for p in ps)
                    prices[str(card)] = ps
                    sub = priced[priced["card"] == card].pivot_table(
                        index="deal", columns="price", values="y", aggfunc="first")
                    priced_y[str(card)] = sub.reindex(index=deals, columns=ps).to_numpy(float)

            apart: dict[str, np.ndarray] = {}
            if prices and block["rivals"].ne("").any():
                inside = block[block["deal"].isin(deals)]
                faced = inside["rivals"].str.split(",").explode()
                for card in prices:
                    against = faced.index[faced == card]
                    rest = inside[(inside["card"] != card) & ~inside.index.isin(against)]
                    # Every observation alike (in 2-player blocks, a win and a loss per
                    # game: 1/2 exactly).
                    apart[card] = (rest.groupby("deal")["y"].mean().reindex(deals)
                                   .to_numpy(float))

            def matrix(col: str, how: str, block: pd.DataFrame = block,
                       deals: np.ndarray = deals, cards: list[str] = cards) -> np.ndarray:
                table = block.pivot_table(index="deal", columns="card", values=col,
                                          aggfunc=how)
                return table.reindex(index=deals, columns=cards).to_numpy(float)

            out.append(Block(level, category, cards,
                             np.array([points.get(c, math.nan) for c in cards], dtype=float),
                             deals, matrix("y", "mean"), matrix("pts", "sum"),
                             matrix("acts", "sum"), matrix("done", "mean"), prices, priced_y,
                             int(rows["deal"].nunique() - len(deals)), apart))
    return out


# ------------------------------------------------------------------ estimators


def median(values: Any) -> float:
    """The median of the values that are not NaN; NaN (and no warning) when none is."""
    v = np.asarray(values, dtype=float)
    v = v[~np.isnan(v)]
    return float(np.median(v)) if len(v) else math.nan


def t_crit(n: int) -> float:
    """Two-sided 95% critical value of Student's t with n - 1 degrees of freedom."""
    return float(sps.t.ppf(0.975, n - 1)) if n >= 2 else math.nan


def fieller(a: float, b: float, vaa: float, vbb: float, vab: float, t: float
            ) -> tuple[float, float]:
    """Fieller's interval for ``-a / b``: the x with (a + b·x)² <= t²·Var(a + b·x).

    Bounded only when b is resolved (b² > t²·Var(b)); otherwise (NaN, NaN): the data do not
    say at which price the card breaks even, whatever the point estimate.
    """
    qa = b * b - t * t * vbb
    qb = 2.0 * (a * b - t * t * vab)
    qc = a * a - t * t * vaa
    if not qa > 0:
        return math.nan, math.nan
    disc = qb * qb - 4.0 * qa * qc
    if disc < 0:  # cannot happen when qa > 0 and the variances are consistent
        return math.nan, math.nan
    root = math.sqrt(disc)
    return (-qb - root) / (2.0 * qa), (-qb + root) / (2.0 * qa)


def price_coefficients(b: Block, j: int) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Card ``j``'s price line per deal: the prices (as offsets from its points), the
    contrasts at each (deals × prices, its points first), and per deal (deals × 2) the
    intercept and slope of the segment on which the card breaks even; None without price
    arms.

    The contrasts are taken against the other cards' win shares in the block games where no
    other seat holds card ``j`` (``Block.apart``).  Against every game of the other cards,
    those where an opponent holds ``j`` at its points would move the baseline with ``j``'s
    own price (raise it, and every rival facing it loses more), so the measured break-even
    price would depend on the price the card is given; apart from them it does not.

    The intercept is the contrast at the card's points; the slope that of the secant to the
    nearest price arm on the side where the contrast says the root lies (below the points
    when holding the card beats the average card, above otherwise; the other side when no
    arm is there): linear interpolation between the two prices that bracket the root, which
    a curved response does not bias as the tangent at the points does.
    """
    card = b.cards[j]
    n = b.y.shape[0]
    if card not in b.prices or n < 2:
        return None
    ps = np.array(b.prices[card])
    base = b.apart.get(card)
    if base is None:  # no placements recorded: the block's own baseline
        base = b.y[:, j] - b.contrasts()[:, j]
    zz = np.column_stack([b.y[:, j] - base, b.priced_y[card] - base[:, None]])
    x = np.r_[0.0, ps - b.points[j]]
    below = [i for i in range(1, len(x)) if x[i] < 0]
    above = [i for i in range(1, len(x)) if x[i] > 0]
    side = below if (float(zz[:, 0].mean()) > 0 and below) or not above else above
    k = min(side, key=lambda i: abs(x[i]))
    slope = (zz[:, k] - zz[:, 0]) / x[k]
    coef = np.column_stack([zz[:, 0], slope])
    coef[np.abs(coef) < 1e-12] = 0.0  # float noise where 0 was meant
    return x, zz, coef


def card_rows(b: Block, replicates: int = REPLICATES, seed: int = 0,
              margin: float = MARGIN) -> pd.DataFrame:
    """The per-card figures of one block series (see the module docstring)."""
    n, m = b.y.shape
    t = t_crit(n)
    z = b.contrasts() if n else np.zeros((0, m))
    out = pd.DataFrame({"card": b.cards, "category": b.category, "points": b.points})
    out["deals"] = n
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = z.mean(axis=0) if n else np.full(m, np.nan)
        sd = z.std(axis=0, ddof=1) if n >= 2 else np.full(m, np.nan)
        se = sd / math.sqrt(n) if n else np.full(m, np.nan)
        tstat = mean / se
    out["effect"] = mean
    out["effect_se"] = se
    out["effect_lo"], out["effect_hi"] = mean - t * se, mean + t * se
    p = 2.0 * sps.t.sf(np.abs(tstat), max(n - 1, 1))
    out["p_value"] = np.where(np.isfinite(tstat), p, np.where(se == 0, 1.0, np.nan))
    out["held_completion"] = b.done.mean(axis=0) if n else np.nan

    # Fair points from the price arms: per deal, the segment of contrast on price on
    # which the card breaks even (``price_coefficients``), and Fieller's interval.
    fair = np.full(m, np.nan)
    fair_lo, fair_hi = np.full(m, np.nan), np.full(m, np.nan)
    slope, slope_se = np.full(m, np.nan), np.full(m, np.nan)
    seg, seg_se = np.full(m, np.nan), np.full(m, np.nan)
    curve = np.full(m, np.nan)
    fair_se = np.full(m, np.nan)
    for j in range(m):
        found = price_coefficients(b, j)
        if found is None:
            continue
        x, zz, coef = found
        ab = coef.mean(axis=0)
        cov = np.cov(coef, rowvar=False, ddof=1) / n
        seg[j] = ab[1]
        seg_se[j] = math.sqrt(max(cov[1, 1], 0.0))
        # The card's price sensitivity shown (and used for sizes): the central difference
        # over its arms, the least noisy slope they give.
        lo_x, hi_x = int(np.argmin(x)), int(np.argmax(x))
        central = (zz[:, hi_x] - zz[:, lo_x]) / (x[hi_x] - x[lo_x])
        slope[j] = float(central.mean())
        slope_se[j] = float(central.std(ddof=1)) / math.sqrt(n)
        lo, hi = fieller(ab[0], ab[1], cov[0, 0], cov[1, 1], cov[0, 1], t)
        if math.isfinite(lo) and ab[1] > 0:
            theta = -ab[0] / ab[1]
            fair[j] = b.points[j] + theta
            fair_lo[j], fair_hi[j] = b.points[j] + lo, b.points[j] + hi
            fair_se[j] = math.sqrt(max(cov[0, 0] + theta * theta * cov[1, 1]
                                       + 2 * theta * cov[0, 1], 0.0)) / ab[1]
        if len(x) >= 3:
            quad = np.column_stack([np.ones_like(x), x, x * x])
            c = zz @ np.linalg.pinv(quad).T
            cs = c[:, 2]
            with np.errstate(invalid="ignore", divide="ignore"):
                tc = cs.mean() / (cs.std(ddof=1) / math.sqrt(n))
            curve[j] = 2.0 * sps.t.sf(abs(tc), n - 1) if np.isfinite(tc) else math.nan
    out["slope"] = slope
    out["slope_se"] = slope_se
    out["break_slope"], out["break_slope_se"] = seg, seg_se
    out["fair_points"] = fair
    out["fair_points_se"] = fair_se
    out["fair_points_lo"], out["fair_points_hi"] = fair_lo, fair_hi
    out["curvature_p"] = curve
    out["priced"] = [c in b.prices for c in b.cards]

    # Points per action, against the rest of the category on the same deals.
    eff = _efficiency(b, replicates, seed, margin)
    for col in eff.columns:
        out[col] = eff[col].to_numpy()
    return out


def _efficiency(b: Block, replicates: int, seed: int, margin: float) -> pd.DataFrame:
    """Points per action and its ratio to the rest of the category, with the margin test."""
    n, m = b.pts.shape
    out = pd.DataFrame(index=range(m))
    if n == 0:
        for col in ("points_per_action", "efficiency", "efficiency_lo", "efficiency_hi",
                    "p_efficiency"):
            out[col] = math.nan
        return out
    pts, acts = b.pts.sum(axis=0), b.acts.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        own = pts / acts
        rest = (pts.sum() - pts) / (acts.sum() - acts)
        ratio = own / rest
    rng = np.random.default_rng(seed)
    w = np.stack([np.bincount(rng.integers(0, n, n), minlength=n) for _ in range(replicates)]
                 ).astype(float)
    bp, ba = w @ b.pts, w @ b.acts
    with np.errstate(invalid="ignore", divide="ignore"):
        boot = (bp / ba) / ((bp.sum(axis=1, keepdims=True) - bp)
                            / (ba.sum(axis=1, keepdims=True) - ba))
        with warnings.catch_warnings():  # a card never held in a replicate: all NaN
            warnings.simplefilter("ignore", RuntimeWarning)
            se = np.nan_to_num(np.nanstd(boot, axis=0, ddof=1), nan=0.0)
            lo, hi = np.nanpercentile(boot, [2.5, 97.5], axis=0)
        # Each side is a score test: its error is at least the one the card would have at
        # the margin, where its completions (points / its points) would be a Poisson count
        # of mean ``expected``; so a card completed rarely in few deals is not "certainly"
        # off (the bootstrap of a count of 0 has no spread), and one never completed in many
        # holdings is.
        p_side = []
        for bound, upper in ((1.0 + margin, True), (1.0 - margin, False)):
            expected = bound * rest * acts / b.points
            null_se = np.sqrt(expected) * b.points / acts / rest
            side_se = np.fmax(se, np.nan_to_num(null_se, nan=0.0))
            z = (ratio - bound) / side_se
            p_side.append(sps.norm.sf(z) if upper else sps.norm.cdf(z))
        p_high, p_low = p_side
        # A card worth 0 points earns none: certainly below the margin, never above.
        zero = b.points == 0
        p_high = np.where(zero, 1.0, p_high)
        p_low = np.where(zero, 0.0, p_low)
    out["points_per_action"] = own
    out["efficiency"] = ratio
    out["efficiency_lo"], out["efficiency_hi"] = np.minimum(lo, ratio), np.maximum(hi, ratio)
    out["p_efficiency"] = np.fmin(p_high, p_low)
    out["efficiency_side"] = np.where(p_high < p_low, 1, -1)
    return out


# ------------------------------------------------------------------ the analysis


def analyse(exp: Experiment, replicates: int = REPLICATES, seed: int = 0, fdr: float = FDR,
            margin: float = MARGIN) -> dict[str, Any]:
    """Per level: the card table; across levels: the skill table and its tests; the study's
    sizes and detectable effects (``design``)."""
    bl = blocks(exp)
    per_level: list[pd.DataFrame] = []
    games_per_deal = _games_per_deal(exp)
    for level, name in enumerate(exp.levels):
        rows = [card_rows(b, replicates, seed + i, margin)
                for i, b in enumerate(x for x in bl if x.level == level)]
        table = pd.concat(rows, ignore_index=True) if rows else pd.DataFrame()
        if table.empty:
            per_level.append(table)
            continue
        table.insert(0, "level", name)
        _resolve(table, games_per_deal)
        units = _units(exp, [b for b in bl if b.level == level], table, replicates, seed,
                       margin)
        flags = []
        for r in units.itertuples():
            f = []
            if r.q_value <= fdr:
                f.append("too strong" if r.effect > 0 else "too weak")
            if r.q_efficiency <= fdr:
                f.append(("efficient" if r.efficiency_side > 0 else "inefficient")
                         + f" (beyond ±{margin:.0%})")
            flags.append(", ".join(f))
        units["flag"] = flags
        table["q_value"] = units["q_value"].to_numpy()
        table["q_efficiency"] = units["q_efficiency"].to_numpy()
        table["copies"] = units["copies"].to_numpy()
        table["flag"] = units["flag"].to_numpy()
        _dead(table, [b for b in bl if b.level == level], fdr)
        # By evidence: the distance of the effect's interval from 0, then the p-value.
        evidence = np.fmax(0.0, np.fmax(table["effect_lo"], -table["effect_hi"]))
        table["evidence"] = evidence
        table = table.sort_values(["evidence", "p_value"], ascending=[False, True],
                                  na_position="last", kind="stable").reset_index(drop=True)
        asks = dict(zip(exp.catalog["card"], exp.catalog["asks"], strict=True))
        table.insert(3, "asks", table["card"].map(asks))
        per_level.append(table)
    return {"levels": per_level, "skill": skill_table(exp, bl, fdr),
            "neighbours": neighbour_table(exp.levels, bl, fdr, games_per_deal,
                                          _copy_names(exp, bl)),
            "convergence": convergence_table(exp.levels, bl, replicates, seed,
                                             games_per_deal),
            "copies": copies_table(exp, bl, per_level, replicates, seed),
            "design": design_table(exp, bl, per_level, games_per_deal), "blocks": bl,
            "fdr": fdr, "margin": margin, "replicates": replicates}


def _copy_names(exp: Experiment, bl: list[Block]) -> list[list[str]]:
    """The study's copies of one card (``copy_groups``), by name, from its first level."""
    asks = dict(zip(exp.catalog["card"], exp.catalog["asks"], strict=True))
    return [[b.cards[j] for j in js] for b in bl if b.level == 0
            for js in copy_groups(b, asks)]


#: A card is dead when its value responds to less than this share of what is typical.
DEAD_SHARE = 0.5


def _dead(table: pd.DataFrame, bl: list[Block], fdr: float = FDR) -> None:
    """``dead`` and ``dead_why``: a card whose value does not respond to its price.

    Re-pricing such a card cannot make it the average card (gardener-13 for greedy:
    completed 11% of the times held, a price slope of 0.003 ± 0.004), so a tuning loop that
    moves it one point a round only drifts.  Two one-sided tests, each Benjamini–Hochberg
    across the cards it applies to, either of which calls a card dead:

    - its price slope (``slope``, win share per point over its arms) is below
      ``DEAD_SHARE`` of the typical slope of the other priced cards (the median |slope| of its
      category's, else of the level's); a card alone in being priced has no reference;
    - its completion when held is below ``DEAD_SHARE`` of the rest of its category's on the
      same deals (paired over deals): a point is scored only when the card is completed, so
      its price moves its value in proportion (the report's ``dead`` flag, by intervention).
    """
    n_cards = len(table)
    p_slope = np.full(n_cards, np.nan)
    p_done = np.full(n_cards, np.nan)
    index = {c: i for i, c in enumerate(table["card"])}
    priced = table["priced"].fillna(False).astype(bool) & table["slope"].notna()
    for i in np.flatnonzero(priced.to_numpy()):
        others = priced & (table.index != table.index[i])
        same = others & (table["category"] == table["category"].iloc[i])
        ref_rows = same if same.any() else others
        if not ref_rows.any():
            continue
        ref = median(np.abs(table.loc[ref_rows, "slope"]))
        se = float(table["slope_se"].iloc[i])
        n = int(table["deals"].iloc[i])
        if not (ref > 0 and se > 0 and n >= MIN_DEALS):
            continue
        tstat = (float(table["slope"].iloc[i]) - DEAD_SHARE * ref) / se
        p_slope[i] = float(sps.t.cdf(tstat, n - 1))
    for b in bl:
        n, m = b.done.shape
        if n < MIN_DEALS or m < 2:
            continue
        rest = (b.done.sum(axis=1, keepdims=True) - b.done) / (m - 1)
        d = b.done - DEAD_SHARE * rest
        with np.errstate(invalid="ignore", divide="ignore"):
            tstat = d.mean(axis=0) / (d.std(axis=0, ddof=1) / math.sqrt(n))
        for j, card in enumerate(b.cards):
            if card in index and np.isfinite(tstat[j]):
                p_done[index[card]] = float(sps.t.cdf(tstat[j], n - 1))
    q_slope, q_done = bh(p_slope), bh(p_done)
    table["q_dead_slope"], table["q_dead_completion"] = q_slope, q_done
    dead_slope, dead_done = q_slope <= fdr, q_done <= fdr
    table["dead"] = dead_slope | dead_done
    why = []
    for r, s_, d_ in zip(table.itertuples(), dead_slope, dead_done, strict=True):
        parts = []
        if s_:
            parts.append(f"its price barely moves its value, slope {r.slope:.3f} ± "
                         f"{r.slope_se:.3f} of win share per point")
        if d_:
            parts.append(f"completed {r.held_completion:.0%} of the times it is held")
        why.append("; ".join(parts))
    table["dead_why"] = why
    table["flag"] = [f + (", " if f else "") + "dead" if d else f
                     for f, d in zip(table["flag"], table["dead"], strict=True)]


def copy_groups(b: Block, asks: dict[str, str]) -> list[list[int]]:
    """The block's copies of one card: columns of cards with the same condition and points
    (panda-01 to -05 all ask "eat 2 green" for 3 points), two or more to a group."""
    groups: dict[tuple[str, float], list[int]] = {}
    for j, card in enumerate(b.cards):
        if asks.get(card):
            groups.setdefault((asks[card], float(b.points[j])), []).append(j)
    return [js for js in groups.values() if len(js) >= 2]


def pooled(b: Block, js: list[int], replicates: int = REPLICATES, seed: int = 0,
           margin: float = MARGIN) -> dict[str, float]:
    """Copies as one card: the mean of their per-deal contrasts (a paired t test over
    deals), and their points per action together against the rest of the category with the
    efficiency test of a single card.  A designer prints one card in several copies, so a
    verdict on one copy alone (flagging panda-04 and not its identical panda-01) is noise."""
    n = len(b.deals)
    g = b.contrasts()[:, js].mean(axis=1) if n else np.zeros(0)
    se = g.std(ddof=1) / math.sqrt(n) if n >= 2 else math.nan
    t = t_crit(n)
    mean = float(g.mean()) if n else math.nan
    with np.errstate(invalid="ignore", divide="ignore"):
        p = (2.0 * sps.t.sf(abs(mean / se), n - 1) if n >= 2 and se > 0
             else 1.0 if n >= 2 and se == 0 else math.nan)
    rest = [j for j in range(len(b.cards)) if j not in js]
    together = dataclasses.replace(
        b, pts=np.column_stack([b.pts[:, js].sum(axis=1), b.pts[:, rest]]),
        acts=np.column_stack([b.acts[:, js].sum(axis=1), b.acts[:, rest]]),
        points=np.r_[b.points[js[0]], b.points[rest]])
    eff = _efficiency(together, replicates, seed, margin).iloc[0]
    thin = n < MIN_DEALS
    nan = math.nan
    return {"deals": n, "effect": nan if thin else mean,
            "effect_lo": nan if thin else mean - t * se,
            "effect_hi": nan if thin else mean + t * se, "p_value": nan if thin else p,
            "efficiency": nan if thin else float(eff["efficiency"]),
            "efficiency_lo": nan if thin else float(eff["efficiency_lo"]),
            "efficiency_hi": nan if thin else float(eff["efficiency_hi"]),
            "p_efficiency": nan if thin else float(eff["p_efficiency"]),
            "efficiency_side": float(eff["efficiency_side"])}


def _units(exp: Experiment, bl: list[Block], table: pd.DataFrame, replicates: int,
           seed: int, margin: float) -> pd.DataFrame:
    """Per row of a level's card table, the unit its flags are decided on: the card, or
    its copies pooled (``pooled``), with the unit's q-values (Benjamini–Hochberg across the
    units, a group of copies counting once), aligned with ``table``."""
    asks = dict(zip(exp.catalog["card"], exp.catalog["asks"], strict=True))
    unit_of: dict[str, int] = {}
    units: list[dict[str, Any]] = []
    for i, b in enumerate(bl):
        for js in copy_groups(b, asks):
            figures = pooled(b, js, replicates, seed + 7919 + i, margin)
            names = [b.cards[j] for j in js]
            for card in names:
                unit_of[card] = len(units)
            units.append({**figures, "copies": ", ".join(names)})
    for r in table.itertuples():
        if r.card not in unit_of:
            unit_of[r.card] = len(units)
            units.append({"effect": r.effect, "p_value": r.p_value,
                          "p_efficiency": r.p_efficiency,
                          "efficiency_side": r.efficiency_side, "copies": ""})
    frame = pd.DataFrame(units)
    frame["q_value"] = bh(frame["p_value"].to_numpy(float))
    frame["q_efficiency"] = bh(frame["p_efficiency"].to_numpy(float))
    return frame.iloc[[unit_of[c] for c in table["card"]]].reset_index(drop=True)


COPIES_COLUMNS = ["level", "category", "asks", "points", "cards", "deals", "effect",
                  "effect_lo", "effect_hi", "p_value", "efficiency", "efficiency_lo",
                  "efficiency_hi", "p_efficiency"]


def copies_table(exp: Experiment, bl: list[Block], levels: Sequence[pd.DataFrame] = (),
                 replicates: int = REPLICATES, seed: int = 0) -> pd.DataFrame:
    """Copies of one card (the same condition and points) are one card to a designer: per
    level, their effect and efficiency pooled (``pooled``), with the flag and q-values the
    level's card table gives each copy (the same for all of them: Benjamini–Hochberg
    across the level's units, a group counting once).  Pooling gives the group the
    precision of all its copies' games."""
    asks = dict(zip(exp.catalog["card"], exp.catalog["asks"], strict=True))
    rows = []
    for i, b in enumerate(bl):
        for js in copy_groups(b, asks):
            figures = pooled(b, js, replicates, seed + 7919 + i, MARGIN)
            rows.append({"level": exp.levels[b.level], "category": b.category,
                         "asks": asks[b.cards[js[0]]], "points": float(b.points[js[0]]),
                         "cards": ", ".join(b.cards[j] for j in js), **figures})
    table = pd.DataFrame(rows, columns=[*COPIES_COLUMNS, "efficiency_side"])
    table = table.drop(columns="efficiency_side")
    if table.empty:
        return table.assign(q_value=[], q_efficiency=[], flag=[])
    # The card table's verdict, read from its first copy.
    verdict: dict[tuple[str, str], tuple[float, float, str]] = {}
    for level in levels:
        if len(level):
            for r in level.itertuples():
                verdict[(str(r.level), str(r.card))] = (r.q_value, r.q_efficiency,
                                                        ", ".join(
                    f for f in str(r.flag).split(", ") if f and f != "dead"))
    first = [verdict.get((lv, cs.split(", ")[0]), (math.nan, math.nan, ""))
             for lv, cs in zip(table["level"], table["cards"], strict=True)]
    table["q_value"] = [v[0] for v in first]
    table["q_efficiency"] = [v[1] for v in first]
    table["flag"] = [v[2] for v in first]
    return table


def named_cards(exp: Experiment) -> list[str]:
    """The cards the designer named: those given to ``--price-cards`` and those the card
    set adds.  They are the study's question, so its answer opens with them."""
    named = list(exp.design.get("priced") or [])
    changes = (exp.manifest.get("card_set") or {}).get("changes") or {}
    for entry in changes.get("add") or []:
        card = entry.get("id") if isinstance(entry, dict) else None
        if card and card not in named:
            named.append(str(card))
    return named


def designer_lines(exp: Experiment, table: pd.DataFrame) -> list[str]:
    """A line per named card (``named_cards``) of a level's card table: its fair points
    with their interval, the verdict, and the deals that would settle it (a power
    calculation from the observed error, ``arena.stats.verdict.games_to_settle``: a gap of the
    observed size, at least a point, at 95% with 80% power)."""
    from arena.stats.verdict import games_to_settle

    per_deal = _games_per_deal(exp)
    rows = table.set_index("card") if len(table) else table
    out = []
    for card in named_cards(exp):
        if card not in rows.index:
            continue
        r = rows.loc[card]
        head = f"{card} ({r['points']:g} points)"
        n = int(r["deals"])
        effect = ("effect not shown (not enough deals)" if math.isnan(r["effect_lo"]) else
                  f"effect {r['effect']:+.3f} [{r['effect_lo']:+.3f}, {r['effect_hi']:+.3f}]")
        flags = [f for f in str(r["flag"]).split(", ") if f in ("too strong", "too weak")]
        effect += f", {flags[0]}" if flags else ", not flagged"

        def deals_games(games: float) -> str:
            deals = math.ceil(games / per_deal) if per_deal == per_deal and per_deal else 0
            return f"a study of about {deals:,} deals ({math.ceil(games):,} games)"

        if not bool(r.get("priced", False)):
            worth = "fair points not measured (not played at other prices: --price-cards)"
        elif math.isnan(r["fair_points"]) or math.isnan(r["fair_points_lo"]):
            need = r.get("fair_points_games_needed", math.nan)
            worth = ("fair points not resolved" + (
                f": {deals_games(need)} would resolve them" if need == need else ""))
        else:
            fair, lo, hi = r["fair_points"], r["fair_points_lo"], r["fair_points_hi"]
            worth = f"fair points {fair:.1f} [{lo:.1f}, {hi:.1f}] against its {r['points']:g}"
            if not lo <= r["points"] <= hi:
                worth += (": worth " + ("more" if fair > r["points"] else "less")
                          + " than its points, settled (95%)")
            else:
                gap = max(abs(fair - r["points"]), 1.0)
                deals = games_to_settle(gap, float(r["fair_points_se"]) * math.sqrt(n))
                worth += ": its points inside the interval, not settled" + (
                    f"; {deals_games(deals * per_deal)} would tell a {gap:.1f}-point gap "
                    "(95%, 80% power)" if math.isfinite(deals) and per_deal == per_deal
                    else "")
        out.append(f"{head}: {worth}; {effect}.")
    return out


def _games_per_deal(exp: Experiment) -> float:
    """Games one deal of the study cost (all levels and arms), from the games played."""
    a = exp.arms
    deals = a["deal"].nunique()
    return a["game"].nunique() / deals if deals else math.nan


def _resolve(table: pd.DataFrame, games_per_deal: float) -> None:
    """Figures the data cannot carry become NaN, with the games they would need beside."""
    n = table["deals"].to_numpy(dtype=float)
    thin = n < MIN_DEALS
    need_deals = np.where(thin, MIN_DEALS, np.nan)
    for col in ("effect", "fair_points", "efficiency"):
        table[f"{col}_games_needed"] = np.nan
    for col in ("effect", "effect_lo", "effect_hi", "p_value", "efficiency", "efficiency_lo",
                "efficiency_hi", "p_efficiency", "fair_points", "fair_points_lo",
                "fair_points_hi"):
        table.loc[thin, col] = np.nan
    table["effect_games_needed"] = np.ceil(need_deals * games_per_deal)
    table["efficiency_games_needed"] = table["effect_games_needed"]
    # Fair points: unresolved when the slope's t is below the critical value; the deals that
    # would resolve it at 80% power, from its error now.
    t = np.array([t_crit(int(x)) if x >= 2 else math.nan for x in n])
    # A card's own slope may be 0 by noise (or the card nearly dead): the projection takes at
    # least the category's typical slope, the median of its cards' |slope|.
    # The slope that must be resolved is the break-even segment's (``price_coefficients``).
    typical = table.groupby("category")["break_slope"].transform(
        lambda x: median(np.abs(x)))
    slope = np.fmax(np.abs(table["break_slope"]), typical)
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = ((t + POWER_Z) * table["break_slope_se"] / slope) ** 2
    deals_fp = np.ceil(np.fmax(MIN_DEALS, n * ratio))
    missing = table["priced"] & table["fair_points"].isna()
    table["fair_points_games_needed"] = np.where(
        missing & np.isfinite(deals_fp), np.ceil(deals_fp * games_per_deal), np.nan)
    table.loc[thin & table["priced"], "fair_points_games_needed"] = table["effect_games_needed"]


def level_series(k: int, bl: list[Block]
                 ) -> list[tuple[str, np.ndarray, list[np.ndarray], list[str]]]:
    """Per category played at all ``k`` levels: the deals every level completed, each
    level's per-deal contrasts on them (deals × cards, in level order) and the cards.  The
    comparisons across levels pair on these deals: the same seeds, so a deal's luck cancels
    from a difference between levels."""
    out = []
    for category in dict.fromkeys(b.category for b in bl):
        series = sorted((b for b in bl if b.category == category), key=lambda b: b.level)
        if len(series) != k:
            continue
        common = series[0].deals
        for b in series[1:]:
            common = np.intersect1d(common, b.deals)
        zs = [b.contrasts()[np.searchsorted(b.deals, common)] for b in series]
        out.append((category, common, zs, series[0].cards))
    return out


def skill_table(exp: Experiment, bl: list[Block], fdr: float = FDR) -> pd.DataFrame:
    """Each card's effect at every level and the test that it is the same at all of them
    (Hotelling's T² on the per-deal differences between levels, over the deals every level
    played), Benjamini–Hochberg across cards."""
    k = len(exp.levels)
    if k < 2:
        return pd.DataFrame()
    rows = []
    for category, common, zs, cards in level_series(k, bl):
        n = len(common)
        for j, card in enumerate(cards):
            row: dict[str, Any] = {"card": card, "category": category, "deals": n}
            for z, name in zip(zs, exp.levels, strict=True):
                col = z[:, j]
                t = t_crit(n)
                se = col.std(ddof=1) / math.sqrt(n) if n >= 2 else math.nan
                row[f"effect[{name}]"] = col.mean() if n else math.nan
                row[f"effect[{name}]_lo"] = row[f"effect[{name}]"] - t * se
                row[f"effect[{name}]_hi"] = row[f"effect[{name}]"] + t * se
            d = np.column_stack([z[:, j] - zs[0][:, j] for z in zs[1:]])
            row["p_skill"] = hotelling(d)
            rows.append(row)
    table = pd.DataFrame(rows)
    if table.empty:
        return table
    thin = table["deals"] < MIN_DEALS
    table.loc[thin, "p_skill"] = np.nan
    table["q_skill"] = bh(table["p_skill"].to_numpy())
    table["depends_on_skill"] = table["q_skill"] <= fdr
    spread = table.filter(like="effect[").filter(regex=r"\]$")
    table["range"] = spread.max(axis=1) - spread.min(axis=1)
    return table.sort_values(["q_skill", "range"], ascending=[True, False],
                             na_position="last").reset_index(drop=True)


def hotelling(d: np.ndarray) -> float:
    """p-value of Hotelling's one-sample T² test that the mean of the rows of ``d`` is 0
    (deals × differences); the paired t test for one column."""
    n, q = d.shape
    if n <= q + 1:
        return math.nan
    mean = d.mean(axis=0)
    cov = np.cov(d, rowvar=False, ddof=1).reshape(q, q)
    if not np.all(np.isfinite(cov)) or np.linalg.matrix_rank(cov) < q:
        return 1.0 if np.allclose(mean, 0) else math.nan
    t2 = n * float(mean @ np.linalg.solve(cov, mean))
    f = (n - q) / (q * (n - 1)) * t2
    return float(sps.f.sf(f, q, n - q))


# ------------------------------------------------------------------ neighbouring levels

Z95 = 1.959963984540054


def _paired(d: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                     np.ndarray]:
    """Per column of per-deal differences ``d`` (deals × columns): the mean, its error, its
    95% paired t interval and the two-sided p-value (NaN below 2 deals; a difference the
    same on every deal has p 1 when 0, else 0)."""
    n, m = d.shape
    t = t_crit(n)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = d.mean(axis=0) if n else np.full(m, np.nan)
        se = d.std(axis=0, ddof=1) / math.sqrt(n) if n >= 2 else np.full(m, np.nan)
        p = np.where(se > 0, 2.0 * sps.t.sf(np.abs(mean / se), max(n - 1, 1)),
                     np.where(mean == 0, 1.0, 0.0))
    return mean, se, mean - t * se, mean + t * se, np.where(np.isnan(se), np.nan, p)


def neighbour_table(levels: Sequence[str], bl: list[Block], fdr: float = FDR,
                    games_per_deal: float = math.nan,
                    copies: Sequence[Sequence[str]] = ()) -> pd.DataFrame:
    """Per card and pair of neighbouring levels (in the study's order): the change of the
    card's effect from one level to the next, ``change`` = effect at ``to`` − effect at
    ``from``, over the deals every level completed.

    The per-deal difference of the two contrasts is the unit (the same deal played by both
    levels: its luck cancels), so the interval is a paired t interval over deals and
    ``p_change`` the paired t test.  Copies of one card (``copies``: groups of names, the
    study's ``copy_groups``) are one card, as in the per-level flags: a group is tested on
    the mean of its copies' per-deal contrasts (``pooled_change``, ``p_pooled``), and its
    verdict is each copy's; a card without copies is its own unit.  ``q_change``:
    Benjamini–Hochberg across every (unit, pair) test of the study, a group counting once;
    the tests of one category are weakly negatively correlated (its effects sum to 0),
    where BH keeps its rate in practice (the simulated null in
    tests/reports/test_skill_neighbours.py).  ``flag``: ``stronger at TO``/``weaker at TO``
    where q <= ``fdr``.  Below ``MIN_DEALS`` deals the figures are NaN, with the games a
    study of that many deals costs (``change_games_needed``), as ``_resolve`` does.

    Where ``skill_table`` asks "is this card's effect the same at every level?", this asks
    where it moves: between which two neighbouring players a price stops holding.
    """
    k = len(levels)
    if k < 2:
        return pd.DataFrame()
    rows = []
    for category, common, zs, cards in level_series(k, bl):
        col = {c: j for j, c in enumerate(cards)}
        units = [[col[c] for c in g] for g in copies if all(c in col for c in g)]
        grouped = {j for u in units for j in u}
        units += [[j] for j in range(len(cards)) if j not in grouped]
        for i in range(k - 1):
            d = zs[i + 1] - zs[i]
            own = _paired(d)
            pool = _paired(np.column_stack([d[:, u].mean(axis=1) for u in units]))
            for ui, u in enumerate(units):
                for j in u:
                    rows.append({
                        "category": category, "card": cards[j], "from": levels[i],
                        "to": levels[i + 1], "deals": len(common), "change": own[0][j],
                        "change_se": own[1][j], "change_lo": own[2][j],
                        "change_hi": own[3][j], "p_change": own[4][j],
                        "copies": ", ".join(cards[x] for x in u) if len(u) > 1 else "",
                        "pooled_change": pool[0][ui], "pooled_change_lo": pool[2][ui],
                        "pooled_change_hi": pool[3][ui], "p_pooled": pool[4][ui],
                        "unit": f"{category}/{u[0]}/{i}"})
    return _neighbour_verdicts(pd.DataFrame(rows), fdr, games_per_deal)


def _neighbour_verdicts(table: pd.DataFrame, fdr: float, games_per_deal: float
                        ) -> pd.DataFrame:
    """The neighbour table's withheld figures, q-values (one per unit and pair) and flags,
    sorted by q."""
    if table.empty:
        return table
    thin = table["deals"] < MIN_DEALS
    table.loc[thin, ["change", "change_lo", "change_hi", "p_change", "pooled_change",
                     "pooled_change_lo", "pooled_change_hi", "p_pooled"]] = np.nan
    table["change_games_needed"] = np.where(thin, np.ceil(MIN_DEALS * games_per_deal),
                                            np.nan)
    first = table.drop_duplicates("unit")
    q = dict(zip(first["unit"], bh(first["p_pooled"].to_numpy(float)), strict=True))
    table["q_change"] = table["unit"].map(q)
    found = table["q_change"] <= fdr
    table["flag"] = np.where(found, np.where(table["pooled_change"] > 0, "stronger at ",
                                             "weaker at ") + table["to"], "")
    return (table.drop(columns="unit")
            .sort_values(["q_change", "p_pooled", "p_change"], na_position="last",
                         kind="stable").reset_index(drop=True))


def _mean_square(w: np.ndarray, z: np.ndarray) -> np.ndarray:
    """Per row of deal weights ``w`` (draws × deals, counts): the category's noise-corrected
    mean square of its cards' effects, mean over cards of (effect² − the effect's variance),
    the effects and variances weighted by ``w`` (a draw of as many deals as its counts)."""
    size = w.sum(axis=1, keepdims=True)
    mean = w @ z / size
    var = (w @ (z * z) / size - mean * mean) * size / (size - 1)
    return (mean * mean - var / size).mean(axis=1)


def _roots(w: np.ndarray, zs: list[np.ndarray], target: np.ndarray) -> np.ndarray:
    """Per level (rows) and draw of deals (columns of ``w``'s rows): the spread, each
    level's noise-corrected squares shifted to centre on ``target`` (the estimate's).

    The draws' world has the plug-in effects for truth, so their noise-corrected squares
    centre on the uncorrected square, not on the estimate: shifted back by the bootstrap's
    own estimate of that bias, level by level (the noise differs between levels)."""
    square = np.stack([_mean_square(w, z) for z in zs])
    square -= square.mean(axis=1, keepdims=True) - target[:, None]
    return np.sqrt(np.fmax(square, 0.0))


def convergence_table(levels: Sequence[str], bl: list[Block], replicates: int = REPLICATES,
                      seed: int = 0, games_per_deal: float = math.nan) -> pd.DataFrame:
    """Per category and level, how mispriced the category is (``spread``), and its change
    from the level before (``change``, this level's minus the previous one's).

    The spread is the root mean square of the cards' effects, corrected for their noise
    (the mean over cards of effect² − its variance, a method of moments, as
    ``spread`` does for fair points; shown as 0 where that is below 0).  Why the root mean
    square: the effects of a category sum to 0, so it is their spread about the category's
    mean; its square can be freed of noise without bias (E[ē²] = μ² + Var ē), which a mean
    |effect| cannot, and the noise differs between levels (a level's games vary more or
    less), so an uncorrected figure would "converge" with the noise alone; and it weighs a
    badly priced card more than several nearly right, as a designer does.  Copies count
    once each, as they are in the deck (five copies are five draws in fifteen).

    Intervals: the percentile bootstrap over deals, the same draws of the deals every level
    completed for all levels (deals are the unit; a deal's luck then cancels from the
    change), each level's squares shifted by the bootstrap's estimate of their bias
    (``_roots``).  ``resolved``: the change's interval leaves 0 out; ``verdict`` then says
    ``converge`` (the spread shrinks) or ``diverge``.  ``mde``: the change these deals find
    with 80% power at 5% (2.80 bootstrap errors); ``deals_needed``: the deals that would
    resolve a change of the size seen with 80% power (``deals_for``: an upper estimate).
    """
    k = len(levels)
    rows: list[dict[str, Any]] = []
    if k < 2:
        return pd.DataFrame()
    rng = np.random.default_rng(seed)
    for category, common, zs, _cards in level_series(k, bl):
        n = len(common)
        if n < max(MIN_DEALS, 2):
            rows += [{"category": category, "level": name, "deals": n,
                      "spread_games_needed": math.ceil(MIN_DEALS * games_per_deal),
                      "change_games_needed": (math.ceil(MIN_DEALS * games_per_deal)
                                              if i else math.nan)}
                     for i, name in enumerate(levels)]
            continue
        target = np.array([_mean_square(np.ones((1, n)), z)[0] for z in zs])
        draws = rng.multinomial(n, np.full(n, 1.0 / n), size=replicates).astype(float)
        root = _roots(draws, zs, target)
        estimate = np.sqrt(np.fmax(target, 0.0))
        for i, name in enumerate(levels):
            row: dict[str, Any] = {
                "category": category, "level": name, "deals": n, "spread": estimate[i],
                "spread_lo": float(np.percentile(root[i], 2.5)),
                "spread_hi": float(np.percentile(root[i], 97.5)),
                "spread_raw": float(np.sqrt(np.mean(zs[i].mean(axis=0) ** 2)))}
            if i:
                row.update(_change(estimate[i] - estimate[i - 1], root[i] - root[i - 1], n,
                                   levels[i - 1]))
            rows.append(row)
    return pd.DataFrame(rows, columns=list(CONVERGENCE_COLUMNS))


#: The convergence table's columns, in order.
CONVERGENCE_COLUMNS = (
    "category", "level", "deals", "spread", "spread_lo", "spread_hi", "spread_games_needed",
    "spread_raw", "from", "change", "change_lo", "change_hi", "change_games_needed",
    "change_se", "resolved", "verdict", "mde", "deals_needed")


def _change(change: float, draws: np.ndarray, n: int, before: str) -> dict[str, Any]:
    """A change of the spread between neighbours from its bootstrap draws: interval,
    verdict, and the deals it would take."""
    lo, hi = (float(v) for v in np.percentile(draws, [2.5, 97.5]))
    se = float(np.std(draws, ddof=1))
    resolved = lo > 0 or hi < 0
    need = deals_for(abs(change), se, n)
    return {"from": before, "change": change, "change_lo": lo, "change_hi": hi,
            "change_se": se, "resolved": resolved,
            "verdict": ("converge" if change < 0 else "diverge") if resolved else "",
            "mde": (Z95 + POWER_Z) * se,
            "deals_needed": math.ceil(need) if math.isfinite(need) else math.nan}


def deals_for(size: float, se: float, n: int) -> float:
    """The deals at which a change of ``size`` is found with 80% power at 5% (two-sided),
    from the change's bootstrap error ``se`` with ``n`` deals, scaled as 1/√deals.

    An upper estimate: the variance of a noise-corrected square has a term in 1/deals²
    beside the one in 1/deals (the noise's own variance), so more deals shrink the error
    faster than 1/√deals, and the bootstrap's error is itself a little above the true one
    (its world takes the uncorrected effects for truth).  Simulated (tests/reports/
    test_skill_neighbours.py): cards whose noise is as large as their effects, a change
    that about 120 deals find with 80% power; from 30 deals this asks for about 190, from
    120 for about 130.  A bootstrap of half the deals does not fix it: its world has the
    same inflated effects."""
    if not (size > 0 and se > 0):
        return math.nan
    return n * ((Z95 + POWER_Z) * se / size) ** 2


def _span(values: pd.Series) -> str:
    """``0.067 to 0.078``, or one figure where they read the same."""
    lo, hi = f"{values.min():.3f}", f"{values.max():.3f}"
    return lo if lo == hi else f"{lo} to {hi}"


def convergence_lines(table: pd.DataFrame) -> list[str]:
    """The designer's question, "does this price hold for better players?", one sentence a
    category: what the changes' intervals carry and nothing more."""
    out = []
    if table.empty:
        return out
    for category, t in table.groupby("category", sort=False):
        pairs = t.iloc[1:]
        if pairs["change"].isna().all():
            need = pairs["change_games_needed"].max()
            out.append(f"{category}: not enough deals to compare levels (about {need:.0f} "
                       "games needed)")
            continue
        said = []
        for _, r in pairs[pairs["resolved"].eq(True)].iterrows():
            before = float(t.loc[t["level"] == r["from"], "spread"].iloc[0])
            said.append(f"prices {r['verdict']} from {r['from']} to {r['level']}: the "
                        f"spread goes from {before:.3f} to {r['spread']:.3f} "
                        f"({r['change']:+.3f} [{r['change_lo']:+.3f}, "
                        f"{r['change_hi']:+.3f}])")
        rest = pairs[~pairs["resolved"].eq(True)]
        if len(rest):
            big = rest.loc[rest["change"].abs().idxmax()]
            said.append(
                ("no change resolved between neighbours" if len(rest) == len(pairs) else
                 "no change resolved between the other neighbours")
                + f"; these {int(t['deals'].iloc[0])} deals find a change of "
                + _span(rest["mde"]) + " with 80% power; "
                f"about {big['deals_needed']:.0f} deals would resolve a difference of "
                f"{big['change']:+.3f} (the largest seen, {big['from']} to {big['level']})")
        out.append(f"{category}: " + "; ".join(said))
    return out


def design_table(exp: Experiment, bl: list[Block], levels: list[pd.DataFrame],
                 games_per_deal: float) -> pd.DataFrame:
    """Per level: games, complete deals, the median error of an effect, and the smallest
    effect (win share, and points through the median slope) found with 80% power, per test
    at 5% and at the Bonferroni bound that Benjamini–Hochberg meets with a single true
    change among the cards."""
    rows = []
    for level, name in enumerate(exp.levels):
        table = levels[level]
        mine = [b for b in bl if b.level == level]
        n = min((len(b.deals) for b in mine), default=0)
        games = int(exp.arms.loc[exp.arms["level"] == level, "game"].nunique())
        se = median(table["effect_se"]) if len(table) else math.nan
        cards = len(table)
        slope = median(table["slope"]) if len(table) else math.nan
        t = t_crit(n)
        bonf = float(sps.norm.isf(0.025 / max(cards, 1)))
        mde = (t + POWER_Z) * se
        mde_b = (bonf + POWER_Z) * se
        with np.errstate(invalid="ignore", divide="ignore"):
            rows.append({
                "level": name, "games": games, "deals": n,
                "games_per_deal": games_per_deal / max(len(exp.levels), 1),
                "dropped_deals": sum(b.dropped for b in mine), "cards": cards,
                "effect_se_median": se, "mde": mde, "mde_bonferroni": mde_b,
                "slope_median": slope,
                "mde_points": mde / slope if slope > 0 else math.nan,
                "mde_points_bonferroni": mde_b / slope if slope > 0 else math.nan,
            })
    return pd.DataFrame(rows)


# ------------------------------------------------------------------ spread (for tuning)


def spread(table: pd.DataFrame) -> dict[str, float]:
    """How far the studied set is from its fair points: the root-mean-square of fair points
    − points over the cards with a resolved fair point, corrected for their noise (the mean
    squared error minus the mean variance, a method of moments), with a normal interval on
    the squared figure; squared values below 0 show as 0."""
    ok = table["fair_points"].notna() & table["fair_points_se"].notna()
    d = (table.loc[ok, "fair_points"] - table.loc[ok, "points"]).to_numpy(float)
    v = table.loc[ok, "fair_points_se"].to_numpy(float) ** 2
    k = len(d)
    if k == 0:
        return {"spread": math.nan, "spread_lo": math.nan, "spread_hi": math.nan,
                "spread_raw": math.nan, "cards": 0}
    t2 = float(np.mean(d * d - v))
    var_t2 = float(np.sum(4 * d * d * v + 2 * v * v)) / (k * k)
    half = 1.959963984540054 * math.sqrt(max(var_t2, 0.0))
    return {"spread": math.sqrt(max(0.0, t2)), "spread_lo": math.sqrt(max(0.0, t2 - half)),
            "spread_hi": math.sqrt(max(0.0, t2 + half)),
            "spread_raw": math.sqrt(float(np.mean(d * d))), "cards": k}


def _spread_stat(a: np.ndarray, b: np.ndarray, var: np.ndarray) -> float:
    """The noise-corrected squared spread from intercepts, slopes and the roots' variances."""
    theta = -a / b
    return float(np.mean(theta * theta - var))


def paired_spread(first: Experiment, second: Experiment, level: int = 0,
                  replicates: int = REPLICATES, seed: int = 0,
                  cards: set[str] | None = None) -> dict[str, float]:
    """The change of the spread between two studies of the same deals (``second`` minus
    ``first``), over the cards with a resolved fair point in both, with a bootstrap interval
    over the deals both played (the same draws for both studies, so the deals' luck cancels
    from the difference; the percentile interval).  A spread is made of ratios, roots
    −a/b: where a card's slope is barely resolved, some draws put its root far away, a long
    tail on one side; the percentile interval keeps that tail where it is (it respects
    monotone transforms), where the basic interval, turned around the estimate, would throw
    it to the other side (on the tuning loop's planted set it put the upper end of a change
    whose draws were 97.5% below −2.3 at +2.6).  ``cards``: only these (the tuning loop's
    movable cards), when given."""
    ta = {r["card"]: r for _, r in analyse(first, replicates=10)["levels"][level].iterrows()}
    tb = {r["card"]: r for _, r in analyse(second, replicates=10)["levels"][level].iterrows()}
    series: list[tuple[np.ndarray, np.ndarray, np.ndarray, float, float]] = []
    cards_a = {c: (b, j) for b in blocks(first) if b.level == level
               for j, c in enumerate(b.cards)}
    cards_b = {c: (b, j) for b in blocks(second) if b.level == level
               for j, c in enumerate(b.cards)}
    for card in cards_a:
        if cards is not None and card not in cards:
            continue
        if card not in cards_b or not (np.isfinite(ta[card]["fair_points"])
                                       and np.isfinite(tb[card]["fair_points"])):
            continue
        (ba, ja), (bb, jb) = cards_a[card], cards_b[card]
        common = np.intersect1d(ba.deals, bb.deals)
        ca, cb = price_coefficients(ba, ja), price_coefficients(bb, jb)
        if ca is None or cb is None or len(common) < MIN_DEALS:
            continue
        series.append((common, ca[2][np.searchsorted(ba.deals, common)],
                       cb[2][np.searchsorted(bb.deals, common)],
                       float(ta[card]["fair_points_se"]) ** 2,
                       float(tb[card]["fair_points_se"]) ** 2))
    if not series:
        return {"change": math.nan, "change_lo": math.nan, "change_hi": math.nan,
                "cards": 0}
    deals = np.unique(np.concatenate([s_[0] for s_ in series]))
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, len(deals), size=(replicates, len(deals)))
    weights = np.stack([np.bincount(p, minlength=len(deals)) for p in picks]).astype(float)

    def stats_of(w: np.ndarray | None) -> tuple[float, float]:
        out = []
        for side in (1, 2):
            a, b_, v = [], [], []
            for common, ca, cb, va, vb in series:
                coef = ca if side == 1 else cb
                if w is None:
                    ab = coef.mean(axis=0)
                else:
                    ww = w[np.searchsorted(deals, common)]
                    ab = (ww[:, None] * coef).sum(axis=0) / max(ww.sum(), 1.0)
                a.append(ab[0])
                b_.append(ab[1])
                v.append(va if side == 1 else vb)
            with np.errstate(divide="ignore", invalid="ignore"):
                out.append(_spread_stat(np.array(a), np.array(b_), np.array(v)))
        return out[0], out[1]

    ta2, tb2 = stats_of(None)
    change = math.sqrt(max(tb2, 0.0)) - math.sqrt(max(ta2, 0.0))
    reps = []
    for w in weights:
        ra, rb = stats_of(w)
        if np.isfinite(ra) and np.isfinite(rb):
            reps.append(math.sqrt(max(rb, 0.0)) - math.sqrt(max(ra, 0.0)))
    lo, hi = (float(v) for v in np.percentile(reps, [2.5, 97.5]))
    return {"change": change, "change_lo": lo, "change_hi": hi, "cards": len(series),
            "spread_first": math.sqrt(max(ta2, 0.0)), "spread_second": math.sqrt(max(tb2, 0.0))}
