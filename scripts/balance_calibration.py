"""Calibration of the card study by simulation: false flags with no change, power and
coverage with planted changes, each rate with its interval (docs/balance.md, "Calibration").

Usage::

    python scripts/balance_calibration.py --deals 500 --reps 100 --out runs/calibration
    python scripts/balance_calibration.py --deals 40 --reps 12 --out runs/cal-small  # reduced

Each repetition is a study of its own (``arena balance study``: every card of the three
categories in blocks of one deal, a new seed per repetition) of a *planted* set: one card per
category, drawn at random (a different draw per repetition), moved by -4, -2, +2 or +4
points (the sizes take turns, so each is planted equally often).  The planted cards and one
other card per category are played at other prices, for their fair points.  Then:

- **Power**: a planted card is *found* when the study flags it in the planted direction
  (raised: too strong; lowered: too weak) at the false discovery rate, Benjamini–Hochberg
  across the 45 cards as the study does it.
- **Coverage**: whether the planted card's fair-points interval holds its fair price.  A
  card's fair price does not depend on the price it is given in the set (the price arms play
  it at absolute prices, against the games where no rival holds it), and the published
  card's fair price is not known, so the truth is the pooled estimate of the same card's
  fair points in the *other* repetitions (precision-weighted): where it was planted too (the
  same set but for its own points), and, as a check, every other measurement of it.  A
  reference's own error is reported, and the coverage to expect given it; the same check
  with both errors counted should cover 95%.  ``--with`` pools another calibration's
  repetitions and counts this one's alone too (held out: played after a change of the
  estimator); ``--reanalyse`` re-analyses the kept games.
- **A/A (no change)**: the same games with the cards' labels permuted within each deal (a
  placebo: the "card" is then a random card of the category, so every effect is exactly 0);
  any card flagged is a false flag.  The rate of repetitions with any false flag is what
  Benjamini–Hochberg bounds by the FDR when nothing changed; the efficiency flag is counted
  the same way.

Every study is kept under ``--out`` (``rep-0007/``) with its summary (``rep-0007.json``), so an
interrupted calibration resumes where it stopped; ``summary.json`` and ``summary.md`` are
rewritten after each repetition.  The games run in a pool of ``--workers`` processes, or on
a Dask cluster (``--executor dask``: one local cluster for every repetition;
``--scheduler ADDR``: a cluster of machines); the executor changes no record.
"""

from __future__ import annotations

import contextlib
import json
import math
import random
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from _args import at_least, bot_spec, output_dir, script_parser

from arena.balance.study import run_study, study_config
from arena.commands.executor_options import (
    add_executor_arguments,
    executor_settings,
    shared_cluster,
)
from arena.commands.user_error import UserError
from arena.engine import CATEGORIES, CardSet
from arena.engine.components import CARD_INDEX, CARD_POINTS, CARDS, CATEGORY_CARDS
from arena.play.seeds import derive_seed
from arena.stats.intervals import wilson
from arena.tournament import RunSettings
from arena.tournament.experiment import games_per_deal
from reports import experiment
from reports.balance import bh

PLANTS = (-4, -2, 2, 4)
FDR = experiment.FDR


def plan(seed: int, rep: int, per_rep: int = 3) -> dict[str, Any]:
    """Repetition ``rep``'s seed, categories studied, planted cards and changes, and the
    other cards priced: one card per category studied, drawn among those whose points can
    take the change.  With ``per_rep`` < 3 the categories studied are drawn at random (a
    different draw per repetition; the planted changes still take turns)."""
    rng = random.Random(derive_seed("calibration", seed, rep))
    planted, others = {}, []
    studied = list(range(3)) if per_rep >= 3 else sorted(
        random.Random(derive_seed("calibration-categories", seed, rep)).sample(range(3),
                                                                               per_rep))
    for k in range(3):
        cards = [CARDS[c].id for c in CATEGORY_CARDS[k]]
        delta = PLANTS[(rep + k) % len(PLANTS)]
        # A card that can take the change (points never below 0).
        card = rng.choice([c for c in cards if CARD_POINTS[CARD_INDEX[c]] + delta >= 0])
        other = rng.choice([c for c in cards if c != card])
        if k in studied:
            planted[card] = delta
            others.append(other)
    return {"seed": derive_seed("calibration-deals", seed, rep), "planted": planted,
            "others": others, "categories": [CATEGORIES[k] for k in studied]}


def planted_set(planted: dict[str, int]) -> tuple[CardSet, dict[str, int]]:
    """The printed set with the planted changes (never below 0), and the changes made."""
    points = list(CARD_POINTS)
    made = {}
    for card, delta in planted.items():
        i = CARD_INDEX[card]
        points[i] = max(0, CARD_POINTS[i] + delta)
        made[card] = points[i] - CARD_POINTS[i]
    return CardSet(tuple(points), name="planted: " + ", ".join(
        f"{c} {d:+d}" for c, d in made.items())), made


def placebo_table(exp: experiment.Experiment, rng: np.random.Generator) -> pd.DataFrame:
    """The A/A's card table: every block's card labels permuted within each deal (so every
    card's effect is exactly 0), analysed as the study analyses its blocks."""
    rows = []
    for b in experiment.blocks(exp):
        if b.level != 0 or len(b.deals) < 2:
            continue
        perm = np.argsort(rng.random(b.y.shape), axis=1)
        take = np.take_along_axis
        fake = experiment.Block(b.level, b.category, b.cards,
                                np.full(len(b.cards), float(np.mean(b.points))), b.deals,
                                take(b.y, perm, 1), take(b.pts, perm, 1), take(b.acts, perm, 1),
                                take(b.done, perm, 1), {}, {}, 0)
        rows.append(experiment.card_rows(fake, replicates=200))
    return pd.concat(rows, ignore_index=True)


def placebo_flags(exp: experiment.Experiment, rng: np.random.Generator) -> dict[str, int]:
    """The A/A: the placebo table's flags, Benjamini–Hochberg across its cards."""
    table = placebo_table(exp, rng)
    q = bh(table["p_value"].to_numpy())
    qe = bh(table["p_efficiency"].to_numpy())
    return {"cards": len(table), "flags": int((q <= FDR).sum()),
            "efficiency_flags": int((qe <= FDR).sum())}


def analyse_rep(folder: Path, made: dict[str, int], seed: int,
                aa_draws: int = 1) -> dict[str, Any]:
    """One repetition's figures: the planted cards' flags and the priced cards' fair points,
    and ``aa_draws`` placebo draws of the A/A (each its own permutation of the labels)."""
    exp = experiment.load(folder)
    analysis = experiment.analyse(exp, replicates=200)
    table = analysis["levels"][0]
    # A full study's BH with one change among 45 cards is at least as strict as Bonferroni
    # over 45 (the bound a subset of categories is held to as well).
    bonferroni = FDR / len(CARDS)
    cards = []
    for _, r in table[table["priced"]].iterrows():
        card = str(r["card"])
        delta = made.get(card, 0)
        expected = "too strong" if delta > 0 else "too weak"
        right_way = bool(delta) and (float(r["effect"]) > 0) == (delta > 0)
        cards.append({
            "card": card, "planted": delta, "points": float(r["points"]),
            "printed": CARD_POINTS[CARD_INDEX[card]],
            "effect": _num(r["effect"]), "q_value": _num(r["q_value"]),
            "p_value": _num(r["p_value"]),
            "found_bonferroni": right_way and float(r["p_value"]) <= bonferroni,
            "found": bool(delta) and expected in str(r["flag"]),
            "efficient_flag": "efficient" in str(r["flag"]) and "inefficient" not in str(r["flag"]),
            "inefficient_flag": "inefficient" in str(r["flag"]),
            "fair_points": _num(r["fair_points"]), "fair_points_se": _num(r["fair_points_se"]),
            "fair_points_lo": _num(r["fair_points_lo"]),
            "fair_points_hi": _num(r["fair_points_hi"])})
    gen = np.random.default_rng(seed)
    draws = [placebo_flags(exp, gen) for _ in range(aa_draws)]
    return {"deals": int(analysis["design"]["deals"].iloc[0]), "cards": cards,
            "aa": draws[0], "aa_draws": draws,
            "games": len(exp.arms["game"].unique()),
            "flagged": int((table["q_value"] <= FDR).sum())}


def _num(value: Any) -> float | None:
    v = float(value)
    return v if math.isfinite(v) else None


def rate(x: float, n: int) -> dict[str, float]:
    """A proportion with its Wilson interval."""
    lo, hi = wilson(x, n) if n else (math.nan, math.nan)
    return {"x": x, "n": n, "rate": x / n if n else math.nan, "lo": lo, "hi": hi}


def reference_fair_points(folder: Path) -> dict[str, tuple[float, float]]:
    """A study's fair points and their errors per card (``--reference``): a card's fair price
    measured on the printed set, which a planted change of the card's own points leaves as it
    was (its contrast is against the other cards of its category, at their points)."""
    table = experiment.analyse(experiment.load(folder), replicates=50)["levels"][0]
    return {str(r["card"]): (float(r["fair_points"]), float(r["fair_points_se"]))
            for _, r in table.iterrows()
            if math.isfinite(r["fair_points"]) and r["fair_points_se"] > 0}


def summarize(reps: list[dict[str, Any]],
              reference: dict[str, tuple[float, float]] | None = None,
              held_out: set[int] | None = None) -> dict[str, Any]:
    """The rates over the repetitions done (see the module docstring); with ``reference``
    (``reference_fair_points``) also the coverage of the planted cards' fair points
    against that study's; with ``held_out`` (indices in ``reps``) also the coverage of
    those repetitions' planted cards alone (``coverage_held_out``...), against references
    from every other repetition: repetitions played after the estimator was fixed."""
    out: dict[str, Any] = {"repetitions": len(reps),
                           "deals": sorted({r["deals"] for r in reps}),
                           "games": sum(r["games"] for r in reps)}
    # The A/A over every placebo draw; draws of one repetition share its games, so the
    # interval is Wilson's at the number of repetitions (the conservative count) when a
    # repetition holds several.
    aa = [a for r in reps for a in r.get("aa_draws", [r["aa"]])]
    n_eff = min(len(aa), len(reps))

    def aa_rate(x: float, n: int) -> dict[str, float]:
        r = rate(x, n)
        if n > n_eff:  # the interval at the effective count, the rate at all draws
            lo, hi = wilson(r["rate"] * n_eff, n_eff)
            r.update(lo=lo, hi=hi, n_effective=n_eff)
        return r

    out["aa_draws"] = len(aa)
    out["aa_any_flag"] = aa_rate(sum(a["flags"] > 0 for a in aa), len(aa))
    out["aa_flag_share"] = rate(sum(a["flags"] for a in aa), sum(a["cards"] for a in aa))
    out["aa_any_efficiency_flag"] = aa_rate(sum(a["efficiency_flags"] > 0 for a in aa),
                                            len(aa))
    cards = [dict(c, rep=i) for i, r in enumerate(reps) for c in r["cards"]]
    for delta in sorted({c["planted"] for c in cards if c["planted"]}):
        mine = [c for c in cards if c["planted"] == delta]
        out[f"power_{delta:+d}"] = rate(sum(c["found"] for c in mine), len(mine))
        out[f"power_bonferroni_{delta:+d}"] = rate(
            sum(c.get("found_bonferroni", False) for c in mine), len(mine))
    for size in (2, 4):
        mine = [c for c in cards if abs(c["planted"]) == size]
        out[f"power_pm{size}"] = rate(sum(c["found"] for c in mine), len(mine))
        out[f"power_bonferroni_pm{size}"] = rate(
            sum(c.get("found_bonferroni", False) for c in mine), len(mine))
    # Coverage against the leave-one-out pooled fair points of the same card: primarily its
    # measurements where it was the planted card too (the same set but for its own points),
    # and as a check every other measurement of it (where another card of its category may
    # have been planted, which moves the category's average card a little).
    resolved = [0, 0]
    printed = [0, 0]
    for c in cards:
        if not c["planted"]:
            continue
        resolved[1] += 1
        if c["fair_points"] is None:
            continue
        resolved[0] += 1
        printed[1] += 1
        printed[0] += int(c["fair_points_lo"] <= c["printed"] <= c["fair_points_hi"])
    out["fair_points_resolved"] = rate(*resolved)
    out["coverage_printed"] = rate(*printed)
    variants = [("", True, None), ("_any", False, None)]
    if held_out:
        variants += [("_held_out", True, held_out), ("_any_held_out", False, held_out)]
    for suffix, planted_only, counted in variants:
        hits, n, standard, ref_se = 0, 0, 0, []
        for c in cards:
            if not c["planted"] or c["fair_points"] is None:
                continue
            if counted is not None and c["rep"] not in counted:
                continue
            others = [o for o in cards if o["card"] == c["card"] and o["rep"] != c["rep"]
                      and o["fair_points"] is not None and o["fair_points_se"]
                      and (o["planted"] or not planted_only)]
            if len(others) < 2:
                continue
            w = np.array([1 / o["fair_points_se"] ** 2 for o in others])
            ref = float(np.sum(w * [o["fair_points"] for o in others]) / w.sum())
            ref_se.append((1 / math.sqrt(w.sum()), c["fair_points_se"]))
            n += 1
            hits += int(c["fair_points_lo"] <= ref <= c["fair_points_hi"])
            # The same check with the reference's own error counted: if both errors are
            # right, (estimate - reference) / sqrt(se² + se_ref²) is standard normal.
            standard += int(abs(c["fair_points"] - ref)
                            <= 1.959964 * math.sqrt(c["fair_points_se"] ** 2 + 1 / w.sum()))
        out[f"coverage{suffix}"] = rate(hits, n)
        out[f"coverage_standardized{suffix}"] = rate(standard, n)
        if ref_se:
            ratio = float(np.median([r / s for r, s in ref_se]))
            out[f"reference_se_ratio{suffix}"] = ratio
            # With a reference of error r·se, a correct 95% interval covers it with
            # probability P(|Z| < 1.96 / sqrt(1 + r²)).
            out[f"coverage_expected{suffix}"] = float(
                math.erf(1.959964 / math.sqrt(1 + ratio**2) / math.sqrt(2)))
    if reference is not None:
        hits, n, standard, ratios = 0, 0, 0, []
        for c in cards:
            ref = reference.get(c["card"])
            if not c["planted"] or ref is None or c["fair_points"] is None \
                    or not c["fair_points_se"]:
                continue
            n += 1
            hits += int(c["fair_points_lo"] <= ref[0] <= c["fair_points_hi"])
            standard += int(abs(c["fair_points"] - ref[0])
                            <= 1.959964 * math.hypot(c["fair_points_se"], ref[1]))
            ratios.append(ref[1] / c["fair_points_se"])
        out["coverage_reference"] = rate(hits, n)
        out["coverage_reference_standardized"] = rate(standard, n)
        if ratios:
            r = float(np.median(ratios))
            out["reference_study_se_ratio"] = r
            out["coverage_reference_expected"] = float(
                math.erf(1.959964 / math.sqrt(1 + r**2) / math.sqrt(2)))
    raised = [c for c in cards if c["planted"] > 0]
    out["efficient_flag_raised"] = rate(sum(c["efficient_flag"] for c in raised), len(raised))
    return out


def markdown(summary: dict[str, Any], args: Any) -> str:
    """The summary as a table, each rate with its 95% Wilson interval."""
    def row(name: str, key: str) -> str:
        r = summary.get(key)
        if not r or not r["n"]:
            return f"| {name} | – | – |"
        return (f"| {name} | {r['rate']:.3f} [{r['lo']:.3f}, {r['hi']:.3f}] | "
                f"{r['x']:g} of {r['n']} |")

    subset = ("" if args.categories_per_rep >= 3 else
              f" ({args.categories_per_rep} of the 3 categories per repetition, drawn at "
              "random)")
    draws = summary.get("aa_draws", summary["repetitions"])
    lines = [f"Calibration: {summary['repetitions']} repetitions of {args.deals} deals per "
             f"category{subset} ({summary['games']} games), bot {args.bot.name}, FDR "
             f"{FDR:.0%}; {draws} A/A placebo draws.", "",
             "| figure | rate [95% CI] | count |", "| --- | --- | --- |",
             row("A/A: draws with any false flag (BH bounds it by the FDR)",
                 "aa_any_flag"),
             row("A/A: share of cards falsely flagged", "aa_flag_share"),
             row("A/A: draws with any efficiency flag (±20%)", "aa_any_efficiency_flag")]
    for size in (2, 4):
        lines.append(row(f"power, planted ±{size} points (BH as the study flags)",
                         f"power_pm{size}"))
        lines.append(row(f"power, planted ±{size} points (Bonferroni over 45 cards)",
                         f"power_bonferroni_pm{size}"))
    for delta in PLANTS:
        lines.append(row(f"power, planted {delta:+d} points", f"power_{delta:+d}"))
    lines.append(row("fair points resolved (planted cards)", "fair_points_resolved"))
    lines.append(row("fair-points interval covers the card's fair price (measured where it "
                     "was planted in the other repetitions)", "coverage"))
    lines.append(row("… the same, the reference's error counted (95% if the errors are right)",
                     "coverage_standardized"))
    lines.append(row("… covers the card's fair price (every other measurement of it)",
                     "coverage_any"))
    lines.append(row("… the same, the reference's error counted", "coverage_standardized_any"))
    if "coverage_held_out" in summary:
        lines.append(row(f"held out ({args.out}'s repetitions alone): covers the card's fair "
                         "price where it was planted", "coverage_held_out"))
        lines.append(row("… the reference's error counted", "coverage_standardized_held_out"))
        lines.append(row("… every other measurement of it", "coverage_any_held_out"))
        lines.append(row("… the reference's error counted", "coverage_standardized_any_held_out"))
    lines.append(row("… covers the card's printed points (before the change)",
                     "coverage_printed"))
    if "coverage_reference" in summary:
        lines.append(row(f"… covers its fair points in {args.reference} (printed set)",
                         "coverage_reference"))
        lines.append(row("… the same, that study's error counted",
                         "coverage_reference_standardized"))
    lines.append(row("planted raise flagged efficient", "efficient_flag_raised"))
    if "coverage_reference_expected" in summary:
        lines += ["", f"{args.reference}'s fair points have a median error "
                      f"{summary['reference_study_se_ratio']:.2f} times a repetition's: a "
                      "correct 95% interval covers them with probability "
                      f"{summary['coverage_reference_expected']:.3f}."]
    for suffix, which in (("", "where it was planted"), ("_any", "every measurement"),
                          ("_held_out", "held out, where it was planted"),
                          ("_any_held_out", "held out, every measurement")):
        if f"coverage_expected{suffix}" in summary:
            lines += ["", f"The reference ({which}: the same card's fair points pooled over the "
                          "other repetitions) has a median error "
                          f"{summary[f'reference_se_ratio{suffix}']:.2f} times a repetition's: "
                          "a correct 95% interval covers it with probability "
                          f"{summary[f'coverage_expected{suffix}']:.3f}."]
    return "\n".join(lines) + "\n"


def project(folder: Path, sizes: list[int], deltas: tuple[int, ...] = (2, 4)) -> str:
    """The sizes a study needs, projected from a pilot study: per category the variance of a
    card's per-deal contrast, and per card the slope of its effect on its price, modelled as
    ``λ_category × completion when held`` (a weighted fit over the priced cards: a card's
    own slope is too noisy at a pilot's size).  Power of finding a change of δ points on a
    card drawn at random (as the calibration draws them), at 5% per card and at the
    Bonferroni bound that Benjamini–Hochberg meets with one true change among the 45."""
    from scipy import stats as sps

    exp = experiment.load(folder)
    analysis = experiment.analyse(exp, replicates=50)
    table = analysis["levels"][0]
    rows = []
    for b in analysis["blocks"]:
        if b.level != 0 or len(b.deals) < 2:
            continue
        v = float(np.mean(np.var(b.contrasts(), axis=0, ddof=1)))
        t = table[table["category"] == b.category]
        priced = t[t["priced"] & t["slope_se"].gt(0)]
        w = 1.0 / priced["slope_se"] ** 2
        lam = float((w * priced["slope"] * priced["held_completion"]).sum()
                    / (w * priced["held_completion"] ** 2).sum()) if len(priced) else math.nan
        for _, r in t.iterrows():
            rows.append({"category": b.category, "card": r["card"], "points": r["points"],
                         "v": v, "slope": lam * r["held_completion"], "lambda": lam})
    cards = pd.DataFrame(rows)
    z5, zb = 1.959964, float(sps.norm.isf(0.025 / max(len(cards), 1)))
    lines = [f"Projected from {folder} ({int(analysis['design']['deals'].iloc[0])} deals): "
             "variance of a per-deal contrast " + ", ".join(
                 f"{c} {g['v'].iloc[0]:.3f}" for c, g in cards.groupby("category", sort=False))
             + "; slope per point of a card held = λ × its completion when held, λ "
             + ", ".join(f"{c} {g['lambda'].iloc[0]:.3f}"
                         for c, g in cards.groupby("category", sort=False)) + ".", "",
             "| deals per category | effect's error | " + " | ".join(
                 f"power ±{d} (5% / Bonferroni)" for d in deltas) + " |",
             "| --- | --- | " + " | ".join("---" for _ in deltas) + " |"]
    for n in sizes:
        se = np.sqrt(cards["v"] / n)
        cells = []
        for d in deltas:
            can = cards[cards["points"] - d >= 0]  # cards that can take -d (and all take +d)
            power = []
            for zc in (z5, zb):
                both = [sps.norm.cdf(d * cards["slope"] / se - zc).mean(),
                        sps.norm.cdf(d * can["slope"] / np.sqrt(can["v"] / n) - zc).mean()]
                power.append(float(np.mean(both)))
            cells.append(f"{power[0]:.2f} / {power[1]:.2f}")
        lines.append(f"| {n} | {float(se.median()):.3f} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = script_parser(
        __doc__,
        "python scripts/balance_calibration.py --deals 500 --reps 100 --out runs/calibration",
        "python scripts/balance_calibration.py --deals 40 --reps 12 --out runs/cal-small",
        "python scripts/balance_calibration.py --project runs/pilot-greedy",
        "python scripts/balance_calibration.py --deals 800 --reps 100 --out runs/cal "
        "--reanalyse",
        "python scripts/balance_calibration.py --deals 800 --reps 40 --seed 2 --out runs/cal2 "
        "--with runs/cal",
        "python scripts/balance_calibration.py --deals 500 --reps 100 --out runs/calibration "
        "--scheduler tcp://10.0.0.5:8786",
    )
    ap.add_argument("--bot", type=bot_spec, default=bot_spec("greedy"),
                    help="the skill level (a bot spec playing itself)")
    ap.add_argument("--deals", type=at_least(2), default=500,
                    help="deals per category in each repetition (the recommended size)")
    ap.add_argument("--reps", type=at_least(1), default=100, help="repetitions")
    ap.add_argument("--seed", type=int, default=1, help="master seed of the calibration")
    ap.add_argument("--workers", type=at_least(1), default=2, help="worker processes")
    add_executor_arguments(ap)
    ap.add_argument("--rate", type=float, default=4.0, metavar="GAMES_PER_S",
                    help="games per second expected, for the time estimate")
    ap.add_argument("--out", type=output_dir, help="folder of the studies")
    ap.add_argument("--categories-per-rep", type=at_least(1), default=3, metavar="N",
                    help="categories studied per repetition (1-3; fewer: drawn at random "
                    "per repetition, where a full study per repetition takes too long)")
    ap.add_argument("--aa-draws", type=at_least(1), default=1, metavar="N",
                    help="placebo draws (permutations) of the A/A per repetition")
    ap.add_argument("--reference", type=Path, default=None, metavar="STUDY",
                    help="a study of the printed set whose fair points the planted cards' "
                    "intervals are also checked against (coverage)")
    ap.add_argument("--reanalyse", action="store_true",
                    help="play nothing: analyse the kept games of the repetitions done again "
                    "with the current code (after a change of the estimators), rewriting "
                    "their figures and the summary")
    ap.add_argument("--with", dest="pooled", type=Path, action="append", default=[],
                    metavar="CALIBRATION",
                    help="also summarize another calibration folder's repetitions with these "
                    "(summary-pooled.json/.md; this folder's counted as held out too); "
                    "repeatable")
    ap.add_argument("--project", type=Path, default=None, metavar="STUDY",
                    help="instead of playing: the power by size projected from a pilot study")
    args = ap.parse_args(argv)
    if args.project is not None:
        print(project(args.project, [40, 100, 200, 400, 800, 1600, 3200]), end="")
        return 0
    if args.out is None:
        ap.error("--out is required (or --project STUDY)")
    try:
        settings = executor_settings(args.workers, args.executor, args.scheduler,
                                     progress="none")
    except UserError as exc:
        ap.error(str(exc))
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    reps: list[dict[str, Any]] = []
    # --with folders are read before anything is played, so a wrong one costs nothing.
    others: list[dict[str, Any]] = []
    for folder in args.pooled:
        found = sorted(folder.glob("rep-*.json"))
        if not found:
            print(f"--with {folder}: no repetitions there (rep-*.json)", file=sys.stderr)
            return 2
        others += [json.loads(f.read_text()) for f in found]
    reference = reference_fair_points(args.reference) if args.reference else None
    started = time.monotonic()
    # A local Dask cluster (--executor dask, no --scheduler) is started at the first
    # repetition played, and serves every one after it.
    played: RunSettings | None = None
    with contextlib.ExitStack() as stack:
        for rep in range(args.reps):
            p = plan(args.seed, rep, args.categories_per_rep)
            cards, made = planted_set(p["planted"])
            config = study_config([args.bot], deals=args.deals, seed=p["seed"], cards=cards,
                                  categories=p["categories"],
                                  priced=[*p["planted"], *p["others"]])
            if rep == 0:
                total = args.reps * args.deals * games_per_deal(config, config.experiment)  # type: ignore[arg-type]
                print(f"{args.reps} repetitions of {args.deals} deals: {total} games, about "
                      f"{total / args.rate / 3600:.1f} h at {args.rate:g} games/s", flush=True)
            folder = out / f"rep-{rep:04d}"
            done = out / f"rep-{rep:04d}.json"
            if done.exists():
                kept = json.loads(done.read_text())
                if args.reanalyse:
                    kept.update(analyse_rep(folder, kept["made"], rep, args.aa_draws))
                    done.write_text(json.dumps(kept, indent=1) + "\n")
                    print(f"rep {rep}: analysed again", flush=True)
                reps.append(kept)
                continue
            if args.reanalyse:
                break
            if played is None:
                played = stack.enter_context(shared_cluster(settings))
            run = run_study(config, folder, resume=(folder / "manifest.json").exists(),
                            settings=played)
            if not run.finished:  # Ctrl-C: the games are kept, the repetition is not analysed
                print(f"interrupted in repetition {rep} ({run.done} of {run.total} games kept); "
                      "run the same command again to go on", file=sys.stderr)
                return 130
            result = {"rep": rep, **p, "made": made,
                      **analyse_rep(folder, made, rep, args.aa_draws)}
            done.write_text(json.dumps(result, indent=1) + "\n")
            reps.append(result)
            summary = summarize(reps, reference)
            (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
            (out / "summary.md").write_text(markdown(summary, args))
            print(f"rep {rep}: {result['games']} games, planted "
                  + ", ".join(f"{c} {d:+d}" for c, d in made.items())
                  + f"; found {sum(c['found'] for c in result['cards'])}, A/A flags "
                  f"{result['aa']['flags']}; {time.monotonic() - started:.0f} s", flush=True)
    summary = summarize(reps, reference)
    (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    (out / "summary.md").write_text(markdown(summary, args))
    print(markdown(summary, args))
    if args.pooled:
        pooled = summarize(others + reps, reference,
                           held_out=set(range(len(others), len(others) + len(reps))))
        (out / "summary-pooled.json").write_text(json.dumps(pooled, indent=1) + "\n")
        text = markdown(pooled, args)
        (out / "summary-pooled.md").write_text(text)
        print(f"pooled with {', '.join(map(str, args.pooled))}:\n\n{text}", end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
