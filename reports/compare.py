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
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from . import balance, charts, stats, tables
from .loader import Tables, card_set_hash
from .render import Section, Table


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


def _join(parts: list[pd.DataFrame], keys: list[str]) -> pd.DataFrame:
    """Tables sharing ``keys`` side by side, rows in order of first appearance."""
    out = _in_order(parts, keys)
    for p in parts:
        out = out.merge(p, on=keys, how="left")
    return out


def significant(frame: pd.DataFrame, key: str, metric: str, labels: Sequence[str],
                fdr: float | None = None) -> list[str]:
    """Rows whose difference from the baseline has an interval that excludes zero; with
    ``fdr``, rows whose Benjamini–Hochberg q-value (from the interval's normal z) is at most
    ``fdr`` across the rows (what the per-card lists use)."""
    found = []
    for lab in labels[1:]:
        name = f"Δ{metric}[{lab}]"
        if name not in frame:
            continue
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


def _sig_text(what: str, rows: list[str], fdr: float | None = None) -> str:
    test = ("95% interval excludes 0" if fdr is None else
            f"Benjamini–Hochberg q ≤ {fdr:.0%} across the rows")
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


def _interval_text(values: dict[str, Any], key: str, spec: str = ".2f") -> str:
    """``x [lo, hi]``, or "not estimated" when there were too few games for it."""
    v, lo, hi = (values.get(k, float("nan")) for k in (key, f"{key}_lo", f"{key}_hi"))
    if math.isnan(v):
        return "not estimated (too few completed cards)"
    return f"{v:{spec}} [{lo:{spec}}, {hi:{spec}}]"


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


def compare(
    runs: Sequence[Tables], out: Path, replicates: int = tables.REPLICATES
) -> list[Section]:
    """The sections of a comparison report; charts are written into ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    labels = run_labels(runs)
    base = labels[0]
    st, sa, tb, cb, gs = [], [], [], [], []
    for t in runs:
        st.append(tables.standings(t, tables.ratings(t, replicates=replicates)["ratings"]))
        sa.append(tables.seat_advantage(t))
        tb.append(tables.tiebreaks(t))
        cb.append(tables.card_balance(t))
        gs.append(tables.game_shape(t))
    run_rows, options = runs_table(runs, labels)

    # Standings: win rate (a proportion of win shares) and Elo.
    win = side_by_side(st, labels, ["participant"], "win_rate", ("win_share", "games"))
    elo = side_by_side(st, labels, ["participant"], "elo")
    standings = _join([win, elo], ["participant"])
    charts.compare_bars(standings, "participant", labels, "win_rate",
                        out / "compare_win_rates.png",
                        "Win rate per participant and run (95% Wilson interval)", "win rate",
                        reference=1.0 / runs[0].players)

    h2h_frames = [tables.head_to_head(t)["pairs"] for t in runs]
    h2h = side_by_side(h2h_frames, labels, ["row", "column"], "rate", ("ahead", "games"))

    seat_frames = [s["seats"].assign(key=lambda f: f["players"].astype(str) + "p seat "
                                     + f["seat"].astype(str)) for s in sa]
    seats = side_by_side(seat_frames, labels, ["key", "players", "seat"], "win_rate",
                         ("wins", "games"))
    tests = _join([s["tests"][["players", "p_value"]].rename(columns={"p_value": f"p[{lab}]"})
                   for s, lab in zip(sa, labels, strict=True)], ["players"])
    charts.compare_bars(seats, "key", labels, "win_rate", out / "compare_seats.png",
                        "Win rate per seat and run (95% Wilson interval)", "win rate")

    tie_parts = []
    for name in ("tied", "panda", "shared"):
        frames = [f["summary"] for f in tb]
        tie_parts.append(side_by_side(frames, labels, ["players"], f"{name}_rate",
                                      (name, "games")))
    ties = _join(tie_parts, ["players"])

    card_frames = [c["cards"] for c in cb]
    ident = card_frames[0][["card", "category", "points"]]
    cards = _join([
        ident,
        side_by_side(card_frames, labels, ["card"], "completion_rate", ("completed", "drawn")),
        side_by_side(card_frames, labels, ["card"], "turns_held"),
        side_by_side(card_frames, labels, ["card"], "points_per_turn"),
        side_by_side(card_frames, labels, ["card"], "fair_value"),
    ], ["card"])
    for c, lab in zip(cb, labels, strict=True):
        cards[f"flag[{lab}]"] = cards["card"].map(c["cards"].set_index("card")["flag"])
    categories = _join([
        side_by_side([c["categories"] for c in cb], labels, ["category"], "winners_share"),
        side_by_side([c["categories"] for c in cb], labels, ["category"], "completion_rate"),
        side_by_side([c["categories"] for c in cb], labels, ["category"], "points_per_turn"),
    ], ["category"])
    spreads = pd.DataFrame([{
        "run": lab, "cards_modelled": int(c["model"]["cards_modelled"].iloc[0]),
        "spread": c["model"]["spread"].iloc[0], "spread_lo": c["model"]["spread_lo"].iloc[0],
        "spread_hi": c["model"]["spread_hi"].iloc[0]} for c, lab in zip(cb, labels,
                                                                        strict=True)])

    # Paired comparisons with the baseline, where the schedules allow.
    pairing_notes: list[str] = []
    paired_parts: list[Section] = []
    for t, lab in zip(runs[1:], labels[1:], strict=True):
        problem = pairing_problem(runs[0], t)
        if problem:
            pairing_notes.append(problem)
            continue
        win, pcards, info = paired_sections(runs[0], t, base, lab, replicates)
        pairing_notes.append(
            f"{lab} is paired with {base}: same seed, participants, {t.players} players per "
            f"game and format, {info['deals']} deals in common; {info['winner_changed']} of "
            f"the {info['games_compared']} games played in both changed winner.")
        listed = [f"{r['card']} ({r['Δfair_value']:+.2f})" for _, r in pcards.iterrows()
                  if r["q_fair_value"] <= balance.FDR]
        listed_rate = [f"{r['card']} ({r['Δcompletion_rate']:+.3f})" for _, r in
                       pcards.iterrows() if r["q_completion_rate"] <= balance.FDR]
        sa_, sb_ = info["spread_a"], info["spread_b"]
        paired_parts.append(Section(
            f"Paired: {lab} against {base}",
            f"The {info['deals']} deals both runs played, resampled together (the same "
            f"{replicates} bootstrap draws of deals, within pairings, in both runs), so each "
            "interval is for the difference itself with the deals' luck cancelled. "
            f"{info['winner_changed']} of {info['games_compared']} games changed winner."
            "\n\n"
            "Cards whose fair value changed (Benjamini–Hochberg, false discovery rate "
            f"{balance.FDR:.0%} across the cards): {', '.join(listed) or 'none'}. Cards whose "
            f"completion rate changed: {', '.join(listed_rate) or 'none'}."
            "\n\n"
            f"Balance of each set (spread of fair value − points over the cards, corrected "
            f"for noise): {base} {_interval_text(sa_, 'spread')}, {lab} "
            f"{_interval_text(sb_, 'spread')}; paired change of the raw spread "
            f"{_interval_text(info, 'spread_change', '+.2f')} points (below 0: {lab} is more "
            "balanced).",
            [Table(f"paired_win_rates_{lab}", "Win rate, paired difference", win),
             Table(f"paired_cards_{lab}", "Cards, paired differences", pcards)]))
    if len(labels) > 1:
        charts.compare_diffs(cards, "card", base, labels[1:], "completion_rate",
                             out / "compare_cards.png",
                             f"Change in completion rate per card, against {base}",
                             "difference in completion rate")
    else:  # pragma: no cover - compare is only called with several runs
        charts.compare_diffs(cards.iloc[:0], "card", base, [], "completion_rate",
                             out / "compare_cards.png", "Change in completion rate", "")

    shape_frames = []
    for g in gs:
        f = g["summary"].copy()
        n = f["games"] - f["errors"]
        half = stats.Z * f["rounds_sd"] / np.sqrt(n.where(n > 0))
        f["rounds_mean_lo"], f["rounds_mean_hi"] = f["rounds_mean"] - half, \
            f["rounds_mean"] + half
        f["ok_games"] = n
        f["emperor_won_n"] = f["emperor_won"] * f["emperor_games"]
        shape_frames.append(f)
    shape = _join([
        side_by_side(shape_frames, labels, ["players"], "rounds_mean"),
        side_by_side(shape_frames, labels, ["players"], "capped_rate", ("capped", "ok_games")),
        side_by_side(shape_frames, labels, ["players"], "emperor_won",
                     ("emperor_won_n", "emperor_games")),
    ], ["players"])
    charts.compare_lengths(
        {lab: t.ok_games["rounds"][t.ok_games["rounds"] >= 0]
         for t, lab in zip(runs, labels, strict=True)},
        out / "compare_rounds.png")

    # The console summary of a comparison: each run's standings, one after the other.
    summary = "\n\n".join(f"{lab}\n{tables.summary_text(s)}"
                          for lab, s in zip(labels, st, strict=True))
    (out / "summary.txt").write_text(summary + "\n", encoding="utf-8")

    warnings = [f"- {lab}: {w}" for t, lab in zip(runs, labels, strict=True)
                for w in t.warnings]
    differing = card_differences(runs, labels)
    intro = (
        f"{len(runs)} runs compared; the first, **{base}**, is the baseline: each `Δ` column is "
        "a run's figure minus the baseline's, with a 95% interval for the difference. "
        "The side-by-side sections treat the runs as independent samples (Newcombe's "
        "interval for proportions; normal, from each run's own interval, otherwise); the "
        "paired sections, where the schedules allow, use the deals both runs played. Lists "
        "of significant differences make one test per row at 5%, except the per-card lists, "
        f"which control the false discovery rate at {balance.FDR:.0%} (Benjamini–Hochberg)."
        "\n\n" + "\n".join(f"- {n}" for n in pairing_notes)
    )
    if not differing.empty:
        intro += ("\n\nThe card sets differ in " + str(len(differing)) + " cards: "
                  + "; ".join(f"{r['card']} " + " / ".join(str(r[lab]) for lab in labels)
                              for _, r in differing.iterrows()) + ".")
    if any(len(t.games) == 0 for t in runs):
        empty = [lab for t, lab in zip(runs, labels, strict=True) if len(t.games) == 0]
        intro += "\n\n**No games** in: " + ", ".join(empty) + "."
    if warnings:
        intro += "\n\nWarnings while reading the files:\n\n" + "\n".join(warnings)
    if options.empty:
        options = pd.DataFrame({"option": ["(none: the runs use the same rule options)"]})

    return [
        Section("Runs", intro, [Table("runs", "Runs", run_rows),
                                Table("options", "Rule options that differ", options)]),
        Section("Standings",
                "Win rate (shared wins as 1/k) and Bradley–Terry Elo per run. "
                + _sig_text("win rate", significant(standings, "participant", "win_rate",
                                                    labels)),
                [Table("compare_standings", "Standings side by side", standings)],
                [("compare_win_rates.png", "Win rates per run")]),
        Section("Head to head",
                "How often the row finished ahead of the column, per run. "
                + _sig_text("head-to-head rate", significant(
                    h2h.assign(pair=h2h["row"] + " ahead of " + h2h["column"]), "pair",
                    "rate", labels)),
                [Table("compare_head_to_head", "Row ahead of column", h2h)]),
        Section("Seat advantage",
                "Win rate per seat per run; `p[run]` is the chi-square test of no seat "
                "advantage within that run. "
                + _sig_text("seat win rate", significant(seats, "key", "win_rate", labels)),
                [Table("compare_seats", "Seat win rates", seats),
                 Table("compare_seat_tests", "Test of no seat advantage per run", tests)],
                [("compare_seats.png", "Seat win rates per run")]),
        Section("Tie-breaks",
                "Share of games tied on points, decided by panda points, and shared. "
                + _sig_text("tie-break rate", significant(ties, "players", "tied_rate",
                                                          labels)),
                [Table("compare_tiebreaks", "Tie-break rates", ties)]),
        Section("Objective-card balance",
                "Completion rate, turns held to completion, points per turn held and the "
                "fair value per card and run (methods as in the single report), compared "
                "as independent samples. "
                + _sig_text("completion rate", significant(cards, "card", "completion_rate",
                                                           labels, balance.FDR), balance.FDR)
                + " " + _sig_text("fair value", significant(cards, "card", "fair_value",
                                                             labels, balance.FDR), balance.FDR)
                + " The spread is the root-mean-square of fair value − points over the cards "
                "with an estimate, corrected for the estimates' noise: smaller is more "
                "balanced.",
                [Table("compare_cards", "Cards", cards),
                 Table("compare_card_categories", "Categories", categories),
                 Table("compare_spread", "Spread of fair value − points per run", spreads)],
                [("compare_cards.png", "Change in completion rate per card")]),
        Section("Game shape",
                "Mean rounds per game (normal interval), capped games and the Emperor "
                "holder's win rate per run. "
                + _sig_text("mean game length", significant(shape, "players", "rounds_mean",
                                                            labels)),
                [Table("compare_game_shape", "Game shape", shape)],
                [("compare_rounds.png", "Game length per run")]),
        *paired_parts,
    ]

