"""Comparing tournaments: two card sets, two rule options, two bots, side by side.

The question is whether a change (a card set, ``--rule redraw_satisfied=all``, a bot) moves
the balance, so every figure is shown per run and as a difference from the first run (the
baseline) with a 95% interval for the difference.

Paired or independent.  Two runs that share a schedule (same master seed, participants,
player count and format, so the same deals in the same seat rotations; rule options and card
sets may differ) are compared *paired*: the deals both played are resampled together, with
the same bootstrap weights in both runs, so the luck of a deal cancels out of every
difference (:func:`paired_sections`).  Runs that cannot be paired are compared as
independent samples and the report says why: differences of proportions use Newcombe's
interval built from the two Wilson intervals; other differences the normal approximation
with each run's standard error recovered from its own interval, ``se = (hi - lo) / (2 *
1.96)``.  Per-card differences are tested together: the cards listed as differing are those
whose Benjamini–Hochberg q-value is at most 5%, not one test at 5% per card.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from . import balance, stats
from .loader import Tables, card_set_hash


def run_labels(runs: Sequence[Tables]) -> list[str]:
    """Short, distinct names for the runs: the directory names, numbered when they clash."""
    names = [t.label for t in runs]
    if len(set(names)) == len(names):
        return names
    return [f"{n}#{i + 1}" for i, n in enumerate(names)]


def side_by_side(
    frames: Sequence[pd.DataFrame], labels: Sequence[str], keys: list[str], metric: str,
    counts: tuple[str, str] | None = None,
) -> pd.DataFrame:
    """``metric`` per run (with its interval), then each run's difference from the first.

    ``counts`` names the (successes, trials) columns when ``metric`` is a proportion, so the
    difference gets Newcombe's interval; otherwise the interval columns give the standard
    errors.  Rows are the union of the runs' keys.
    """
    merged: pd.DataFrame | None = None
    for frame, lab in zip(frames, labels, strict=True):
        cols = [metric, f"{metric}_lo", f"{metric}_hi"]
        extra = list(counts) if counts else []
        sub = frame.reindex(columns=[*keys, *cols, *extra]).copy()
        sub.columns = [*keys, *(f"{c.replace(metric, f'{metric}[{lab}]', 1)}" for c in cols),
                       *(f"{c}[{lab}]" for c in extra)]
        merged = sub if merged is None else merged.merge(sub, on=keys, how="outer", sort=False)
    assert merged is not None
    # An outer merge sorts its keys; keep the baseline's row order (standings, deck order).
    merged = _in_order([f.reindex(columns=keys) for f in frames], keys).merge(
        merged, on=keys, how="left")
    base = labels[0]
    for lab in labels[1:]:
        name = f"Δ{metric}[{lab}]"
        if counts:
            x, n = counts
            d, lo, hi = stats.newcombe(merged[f"{x}[{base}]"], merged[f"{n}[{base}]"],
                                       merged[f"{x}[{lab}]"], merged[f"{n}[{lab}]"])
        else:
            v1, v2 = merged[f"{metric}[{base}]"], merged[f"{metric}[{lab}]"]
            se1 = (merged[f"{metric}[{base}]_hi"] - merged[f"{metric}[{base}]_lo"]) / (2 * stats.Z)
            se2 = (merged[f"{metric}[{lab}]_hi"] - merged[f"{metric}[{lab}]_lo"]) / (2 * stats.Z)
            d = (v2 - v1).to_numpy(dtype=float)
            half = stats.Z * np.sqrt(se1.to_numpy(dtype=float) ** 2
                                     + se2.to_numpy(dtype=float) ** 2)
            lo, hi = d - half, d + half
        merged[name], merged[f"{name}_lo"], merged[f"{name}_hi"] = d, lo, hi
    if counts:
        merged = merged.drop(columns=[f"{c}[{lab}]" for c in counts for lab in labels])
    return merged.reset_index(drop=True)


def _in_order(frames: Sequence[pd.DataFrame], keys: list[str]) -> pd.DataFrame:
    """The distinct keys of the frames, in order of first appearance."""
    return pd.concat([f[keys] for f in frames], ignore_index=True).drop_duplicates(
        ignore_index=True)


def join(parts: list[pd.DataFrame], keys: list[str]) -> pd.DataFrame:
    """Tables sharing ``keys`` side by side, rows in order of first appearance."""
    out = _in_order(parts, keys)
    for p in parts:
        out = out.merge(p, on=keys, how="left")
    return out


class Found(list[str]):
    """The rows :func:`significant` found, and how many rows had a difference to test (an
    interval the report shows): none tested is not the same as none found."""

    tested: int = 0


def significant(frame: pd.DataFrame, key: str, metric: str, labels: Sequence[str],
                fdr: float | None = None) -> Found:
    """Rows whose difference from the baseline has an interval that excludes zero; with
    ``fdr``, rows whose Benjamini–Hochberg q-value (from the interval's normal z) is at most
    ``fdr`` across the rows (what the per-card lists use)."""
    found = Found()
    for lab in labels[1:]:
        name = f"Δ{metric}[{lab}]"
        if name not in frame:
            continue
        found.tested += int((frame[f"{name}_lo"].notna() & frame[f"{name}_hi"].notna()).sum())
        if fdr is None:
            mask = (frame[f"{name}_lo"] > 0) | (frame[f"{name}_hi"] < 0)
        else:
            se = (frame[f"{name}_hi"] - frame[f"{name}_lo"]).to_numpy(dtype=float) / (2 * stats.Z)
            with np.errstate(divide="ignore", invalid="ignore"):
                q = balance.bh(balance.two_sided(frame[name].to_numpy(dtype=float) / se))
            mask = pd.Series(q <= fdr, index=frame.index)
        for _, r in frame[mask].iterrows():
            found.append(f"{r[key]} ({lab}: {r[name]:+.3f})")
    return found


def significance_text(what: str, rows: list[str], fdr: float | None = None) -> str:
    """The sentence listing the rows found by :func:`significant`, naming the test used."""
    test = ("95% interval excludes 0" if fdr is None else
            f"Benjamini–Hochberg q ≤ {fdr:.0%} across the rows")
    if not rows and isinstance(rows, Found) and rows.tested == 0:
        return (f"No {what} difference is tested: too few deals carry an interval (see the "
                "games each cell needs).")
    if not rows:
        return f"No {what} differs significantly from the baseline ({test})."
    return f"Significant differences in {what} ({test}): " + ", ".join(rows) + "."


def _flat(options: Any, prefix: str = "") -> dict[str, str]:
    if isinstance(options, dict):
        out: dict[str, str] = {}
        for k, v in options.items():
            out.update(_flat(v, f"{prefix}{k}." if isinstance(v, dict) else f"{prefix}{k}"))
        return out
    return {prefix.rstrip("."): json.dumps(options)}


def runs_table(runs: Sequence[Tables], labels: Sequence[str]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """One row per run, and the rule options and card points that differ between the runs."""
    rows = []
    for t, lab in zip(runs, labels, strict=True):
        g = t.games
        rows.append({"run": lab, "directory": str(t.source), "players": t.players,
                     "participants": ", ".join(t.participants), "games": len(g),
                     "errors": int(g["error"].sum()) if len(g) else 0,
                     "capped": int(g["capped"].sum()) if len(g) else 0,
                     "deals": int(g["deal_key"].nunique()) if len(g) else 0,
                     "seed": t.manifest.get("seed", ""), "card_set": card_set_hash(t.manifest),
                     "warnings": len(t.warnings)})
    flat = [_flat(t.manifest.get("options", {})) for t in runs]
    keys = sorted({k for f in flat for k in f})
    diff = [k for k in keys if len({f.get(k, "(unset)") for f in flat}) > 1]
    options = pd.DataFrame({"option": diff})
    for f, lab in zip(flat, labels, strict=True):
        options[lab] = [f.get(k, "(unset)") for k in diff]
    cards = card_differences(runs, labels)
    if not cards.empty:
        extra = pd.DataFrame({"option": "card " + cards["card"]})
        for lab in labels:
            extra[lab] = cards[lab].to_numpy()
        options = pd.concat([options, extra], ignore_index=True)
    return pd.DataFrame(rows), options


def card_differences(runs: Sequence[Tables], labels: Sequence[str]) -> pd.DataFrame:
    """Cards whose points (or presence) differ between the runs' card sets."""
    def value(t: Tables) -> dict[str, str]:
        c = t.catalog
        return {card: ("removed" if removed else "unknown" if pts != pts else f"{pts:g}")
                for card, pts, removed in zip(c["card"], c["points"], c["removed"],
                                              strict=True)}

    values = [value(t) for t in runs]
    cards = list(dict.fromkeys(c for v in values for c in v))
    differ = [c for c in cards if len({v.get(c, "absent") for v in values}) > 1]
    out = pd.DataFrame({"card": differ})
    for v, lab in zip(values, labels, strict=True):
        out[lab] = [v.get(c, "absent") for c in differ]
    return out


def interval_text(values: dict[str, Any], key: str, spec: str = ".2f") -> str:
    """``x [lo, hi]``, or "not estimated" when there were too few games for it."""
    v, lo, hi = (values.get(k, float("nan")) for k in (key, f"{key}_lo", f"{key}_hi"))
    if math.isnan(v):
        return "not estimated (too few completed cards)"
    if math.isnan(lo) or math.isnan(hi):
        return f"{v:{spec}} (no interval: too few deals)"
    return f"{v:{spec}} [{lo:{spec}}, {hi:{spec}}]"


def specs(t: Tables) -> dict[str, str]:
    """Each participant's bot spec, by name (the name itself where the manifest has none):
    what makes two runs' participants the same bot, whatever their names."""
    out = {str(p.get("name")): str(p.get("spec") or p.get("name"))
           for p in t.manifest.get("participants", []) if isinstance(p, dict)}
    return {name: out.get(name, name) for name in t.participants}


def common_participants(a: Tables, b: Tables) -> list[str]:
    """The participants of ``a`` that ``b`` has too, as the same bot (name and spec)."""
    sa, sb = specs(a), specs(b)
    return [name for name, spec in sa.items() if sb.get(name) == spec]


def comparison_problem(a: Tables, b: Tables) -> str | None:
    """Why ``b`` cannot be compared with ``a`` at all, as the one sentence ``arena report``
    prints (exit 2); None when it can.  A card study measures cards, a tournament bots: a
    difference between the two is not a change of anything.  Runs with no bot in common
    (by name and spec) have no figure to take a difference of."""
    from .experiment import is_experiment

    la, lb = a.label, b.label
    study_a, study_b = is_experiment(a.manifest), is_experiment(b.manifest)
    if study_a != study_b:
        study, other = (la, lb) if study_a else (lb, la)
        return (f"cannot compare {study} with {other}: {study} is a card study and {other} a "
                "tournament; a report compares runs of one kind.")
    if not common_participants(a, b):
        return (f"cannot compare {lb} with {la}: they have no bot in common (by name and "
                f"spec: {', '.join(sorted(set(specs(a).values())))} against "
                f"{', '.join(sorted(set(specs(b).values())))}).")
    return None


def pairing_problem(a: Tables, b: Tables) -> str | None:
    """Why two runs cannot be compared game by game (None when they share a schedule)."""
    la, lb = a.label, b.label
    if a.players != b.players:
        return (f"{lb} cannot be paired with {la}: {la} has {a.players} players per game and "
                f"{lb} has {b.players}, so they are compared as independent samples.")
    ma, mb = a.manifest, b.manifest
    for field, what in (("seed", "master seed"), ("format", "format")):
        if ma.get(field) != mb.get(field):
            return (f"{lb} is compared with {la} as an independent sample: their {what}s "
                    f"differ ({ma.get(field)} and {mb.get(field)}), so they played different "
                    "deals.")
    if a.participants != b.participants:
        return (f"{lb} is compared with {la} as an independent sample: their participants "
                "differ, so their games do not correspond.")
    common = set(balance._deal_keys(a)).intersection(balance._deal_keys(b))
    if not common:
        return (f"{lb} is compared with {la} as an independent sample: they share no deal "
                "(no game with the same pairing, deal and seed).")
    return None


def _participant_sums(t: Tables, deals: pd.Index) -> tuple[np.ndarray, np.ndarray]:
    """Per deal (in ``deals`` order) and participant: win shares and seats held."""
    keys = balance._deal_keys(t).to_numpy()
    s = t.seats
    d = deals.get_indexer(keys[s["gi"].to_numpy()])
    who = s["participant"].cat.codes.to_numpy().astype(np.int64)
    k = len(t.participants)
    keep = d >= 0
    share = np.zeros((len(deals), k))
    seats = np.zeros((len(deals), k))
    np.add.at(share, (d[keep], who[keep]), s["share"].to_numpy()[keep])
    np.add.at(seats, (d[keep], who[keep]), 1.0)
    return share, seats


def paired_sections(
    a: Tables, b: Tables, la: str, lb: str, replicates: int, seed: int = 0,
) -> tuple[pd.DataFrame, pd.DataFrame, dict[str, Any]]:
    """Win rates and card figures of ``b`` minus ``a`` over the deals both played, with
    intervals from one bootstrap over those deals applied to both runs (paired)."""
    sa, sb = balance.sample(a), balance.sample(b)
    ja, jb = balance.joint_samples(sa, sb)
    strata = ja.strata

    def weights() -> Any:
        return balance.deal_weights(strata, replicates, np.random.default_rng(seed))

    fa, ba = balance.bootstrap(ja, weights=weights())
    fb, bb = balance.bootstrap(jb, weights=weights())
    # Win rates, all games of the common deals (errors included, as in the standings).
    deals = ja.deals
    xa, ma = _participant_sums(a, deals)
    xb, mb = _participant_sums(b, deals)
    reps = []
    for w in weights():
        with np.errstate(divide="ignore", invalid="ignore"):
            reps.append((w @ xb) / (w @ mb) - (w @ xa) / (w @ ma))
    boot = np.concatenate(reps) if reps else np.full((0, len(a.participants)), np.nan)
    with np.errstate(divide="ignore", invalid="ignore"):
        ra, rb = xa.sum(0) / ma.sum(0), xb.sum(0) / mb.sum(0)
    lo, hi = balance._interval(boot)
    win = pd.DataFrame({"participant": a.participants, "deals": len(deals),
                        f"win_rate[{la}]": ra, f"win_rate[{lb}]": rb,
                        f"Δwin_rate[{lb}]": rb - ra, f"Δwin_rate[{lb}]_lo": lo,
                        f"Δwin_rate[{lb}]_hi": hi})
    # Games whose winners changed, matched by game id and seed.
    def winners(t: Tables) -> pd.Series:
        s = t.seats[t.seats["win"]]
        names = s.groupby("gi")["participant"].agg(lambda x: "|".join(sorted(map(str, x))))
        g = t.games
        return pd.Series(names.reindex(range(len(g))).fillna("").to_numpy(),
                         index=g["game"] + "@" + g["seed"].astype(str))
    wa, wb = winners(a), winners(b)
    both = wa.index.intersection(wb.index)
    changed = int((wa.reindex(both) != wb.reindex(both)).sum())

    cards = ja.cards[["card", "category"]].copy()
    cards[f"points[{la}]"] = ja.cards["points"].to_numpy()
    cards[f"points[{lb}]"] = jb.cards.set_index("card")["points"].reindex(
        ja.cards["card"]).to_numpy()
    for name in ("completion_rate", "points_per_turn", "fair_value"):
        with np.errstate(invalid="ignore"):  # inf - inf: a card never held in a replicate
            d = fb[name][0] - fa[name][0]
            db = bb[name] - ba[name]
        cards[f"{name}[{la}]"] = fa[name][0]
        cards[f"{name}[{lb}]"] = fb[name][0]
        cards[f"Δ{name}"] = d
        cards[f"Δ{name}_lo"], cards[f"Δ{name}_hi"] = balance._interval(db)
        with np.errstate(divide="ignore", invalid="ignore"):
            cards[f"q_{name}"] = balance.bh(balance.two_sided(d / balance._scale(db)))
    # The set's balance: spread of fair value minus points, and its change.
    pa = ja.cards["points"].to_numpy(dtype=float)
    pb = jb.cards["points"].to_numpy(dtype=float)
    spa = balance.spread_of(fa["fair_value"][0], ba["fair_value"], pa)
    spb = balance.spread_of(fb["fair_value"][0], bb["fair_value"], pb)
    m = ~np.isnan(fa["fair_value"][0]) & ~np.isnan(fb["fair_value"][0])

    def rms(f: np.ndarray, pts: np.ndarray) -> np.ndarray:
        with balance._quiet():
            return np.sqrt(np.nanmean((f[..., m] - pts[m]) ** 2, axis=-1))

    d_rep = rms(bb["fair_value"], pb) - rms(ba["fair_value"], pa)
    d_hat = float(rms(fb["fair_value"][0], pb) - rms(fa["fair_value"][0], pa))
    with balance._quiet():
        dlo, dhi = balance._interval(d_rep - (np.nanmean(d_rep) - d_hat))
    info = {"deals": len(deals), "games_compared": len(both), "winner_changed": changed,
            "spread_a": spa, "spread_b": spb, "spread_change": d_hat,
            "spread_change_lo": float(dlo), "spread_change_hi": float(dhi)}
    return win, cards, info
