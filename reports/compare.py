"""Comparing tournaments run under different rule options, side by side.

The question is whether a rule change (``--rule redraw_satisfied=all`` against the default,
say) moves the balance, so every figure is shown per run and as a difference from the first
run (the baseline) with a 95% interval for the difference.  The runs are independent samples:
differences of proportions use Newcombe's interval built from the two Wilson intervals;
differences of other estimates use the normal approximation with each run's standard error
recovered from its own interval, ``se = (hi - lo) / (2 * 1.96)``, which for bootstrap Elo
intervals is an approximation.  Each section lists the rows whose difference is significant
at the 5% level, one test per row: with 45 cards, two or so will be flagged by chance alone.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from . import charts, stats, tables
from .loader import Tables
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


def significant(frame: pd.DataFrame, key: str, metric: str, labels: Sequence[str]) -> list[str]:
    """Rows whose difference from the baseline has an interval that excludes zero."""
    found = []
    for lab in labels[1:]:
        name = f"Δ{metric}[{lab}]"
        mask = (frame[f"{name}_lo"] > 0) | (frame[f"{name}_hi"] < 0)
        for _, r in frame[mask].iterrows():
            found.append(f"{r[key]} ({lab}: {r[name]:+.3f})")
    return found


def _sig_text(what: str, rows: list[str]) -> str:
    if not rows:
        return f"No {what} differs significantly from the baseline at the 5% level."
    return f"Significant differences in {what} (95% interval excludes 0): " + ", ".join(rows) + "."


def _flat(options: Any, prefix: str = "") -> dict[str, str]:
    if isinstance(options, dict):
        out: dict[str, str] = {}
        for k, v in options.items():
            out.update(_flat(v, f"{prefix}{k}." if isinstance(v, dict) else f"{prefix}{k}"))
        return out
    return {prefix.rstrip("."): json.dumps(options)}


def runs_table(runs: Sequence[Tables], labels: Sequence[str]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """One row per run, and the rule options that differ between the runs."""
    rows = []
    for t, lab in zip(runs, labels, strict=True):
        g = t.games
        rows.append({"run": lab, "directory": str(t.source), "players": t.players,
                     "participants": ", ".join(t.participants), "games": len(g),
                     "errors": int(g["error"].sum()) if len(g) else 0,
                     "capped": int(g["capped"].sum()) if len(g) else 0,
                     "deals": int(g["deal_key"].nunique()) if len(g) else 0,
                     "warnings": len(t.warnings)})
    flat = [_flat(t.manifest.get("options", {})) for t in runs]
    keys = sorted({k for f in flat for k in f})
    diff = [k for k in keys if len({f.get(k, "(unset)") for f in flat}) > 1]
    options = pd.DataFrame({"option": diff})
    for f, lab in zip(flat, labels, strict=True):
        options[lab] = [f.get(k, "(unset)") for k in diff]
    return pd.DataFrame(rows), options


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

    card_frames = []
    for c in cb:
        f = c["cards"].copy()
        f["won"] = f["completer_won"] * f["completed"]
        card_frames.append(f)
    ident = card_frames[0][["card", "category", "points"]]
    cards = _join([
        ident,
        side_by_side(card_frames, labels, ["card"], "completion_rate", ("completed", "drawn")),
        side_by_side(card_frames, labels, ["card"], "rounds_to_complete"),
        side_by_side(card_frames, labels, ["card"], "completer_won", ("won", "completed")),
        side_by_side(card_frames, labels, ["card"], "fair_value"),
    ], ["card"])
    for c, lab in zip(cb, labels, strict=True):
        cards[f"flag[{lab}]"] = cards["card"].map(c["cards"].set_index("card")["flag"])
    categories = _join([
        side_by_side([c["categories"] for c in cb], labels, ["category"], "winners_share"),
        side_by_side([c["categories"] for c in cb], labels, ["category"], "completion_rate",
                     ("completed", "drawn")),
    ], ["category"])
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
    intro = (
        f"{len(runs)} runs compared; the first, **{base}**, is the baseline: each `Δ` column is "
        "a run's figure minus the baseline's, with a 95% interval for the difference "
        "(Newcombe's for proportions; normal, from each run's own interval, otherwise). The "
        "runs are independent samples. Each list of significant differences makes one test "
        "per row, so about 1 row in 20 is listed by chance when nothing changed."
    )
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
                "Completion rate, rounds to complete, how often the completer won and the "
                "estimated fair value per card and run (methods as in the single report). "
                + _sig_text("completion rate", significant(cards, "card", "completion_rate",
                                                           labels))
                + " " + _sig_text("fair value", significant(cards, "card", "fair_value",
                                                             labels)),
                [Table("compare_cards", "Cards", cards),
                 Table("compare_card_categories", "Categories", categories)],
                [("compare_cards.png", "Change in completion rate per card")]),
        Section("Game shape",
                "Mean rounds per game (normal interval), capped games and the Emperor "
                "holder's win rate per run. "
                + _sig_text("mean game length", significant(shape, "players", "rounds_mean",
                                                            labels)),
                [Table("compare_game_shape", "Game shape", shape)],
                [("compare_rounds.png", "Game length per run")]),
    ]

