"""The report's charts, drawn with matplotlib's Agg canvas into PNG files.

Figures are built as ``matplotlib.figure.Figure`` objects on an Agg canvas rather than through
``pyplot``: nothing here touches matplotlib's global backend or figure registry, so the
reports run on a headless machine, in worker threads, and inside a notebook without
switching the analyst's own backend.  Every chart has a title and labelled axes, and draws a
"no data" panel rather than failing when a tournament has no games.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from .render import signed

DPI = 110
CATEGORY_COLOURS = {"plot": "#4c9a2a", "gardener": "#d9a400", "panda": "#c2477d",
                    "other": "#888888", "emperor": "#555555"}
RUN_COLOURS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b"]


def _figure(width: float, height: float) -> Figure:
    fig = Figure(figsize=(width, height), dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _save(fig: Figure, path: Path) -> Path:
    fig.savefig(path, format="png", dpi=DPI)
    return path


def _empty(path: Path, title: str, message: str = "no games") -> Path:
    fig = _figure(6, 2.5)
    ax = fig.add_subplot()
    ax.set_title(title)
    ax.text(0.5, 0.5, message, ha="center", va="center", fontsize=14, color="#666666")
    ax.set_axis_off()
    return _save(fig, path)


def _errors(values: pd.Series, lo: pd.Series, hi: pd.Series) -> np.ndarray:
    """Error-bar lengths from interval bounds (NaN bounds draw no bar)."""
    v = values.to_numpy(dtype=float)
    below = np.nan_to_num(v - lo.to_numpy(dtype=float), nan=0.0)
    above = np.nan_to_num(hi.to_numpy(dtype=float) - v, nan=0.0)
    return np.vstack([np.clip(below, 0, None), np.clip(above, 0, None)])


def win_rates(standings: pd.DataFrame, players: int, path: Path) -> Path:
    """Horizontal bars, best at the top, with the 1/players line a coin would reach."""
    title = "Win rate per participant (95% Wilson interval)"
    data = standings[standings["games"] > 0]
    if data.empty:
        return _empty(path, title)
    fig = _figure(8, 1.2 + 0.45 * len(data))
    ax = fig.add_subplot()
    y = np.arange(len(data))[::-1]
    ax.barh(y, data["win_rate"], xerr=_errors(data["win_rate"], data["win_rate_lo"],
                                               data["win_rate_hi"]),
            color="#4c72b0", capsize=4)
    ax.axvline(1.0 / players, color="#999999", linestyle="--", label=f"1/{players} (chance)")
    ax.set_yticks(y, [str(p) for p in data["participant"]])
    ax.set_xlabel("win rate (shared wins count 1/k)")
    ax.set_ylabel("participant")
    # The interval's top, or the rate where too few deals carry an interval (withheld).
    top = np.fmax(data["win_rate_hi"].to_numpy(dtype=float), data["win_rate"].to_numpy(
        dtype=float))
    highest = float(np.nanmax(top)) if np.isfinite(top).any() else 1.0
    ax.set_xlim(0, min(1.0, max(0.05, highest * 1.15)))
    ax.set_title(title)
    # Beside the axes: inside, it would cover a bar's interval near the chance line.
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False, borderaxespad=0)
    return _save(fig, path)


def head_to_head(matrix: pd.DataFrame, path: Path) -> Path:
    """Heat map of how often the row finished ahead of the column, centred on 0.5."""
    title = "Head to head:\nshare of games the row finished ahead of the column"
    m = matrix.set_index("participant")
    if m.empty or np.isnan(m.to_numpy(dtype=float)).all():
        return _empty(path, title)
    k = len(m)
    labels = [str(c) for c in m.columns]
    # The names take room beside and below the cells (about 0.075 in a character at this
    # size): the figure grows with the longest, so the cells keep theirs and the title its.
    names = 0.075 * max(len(x) for x in labels)
    fig = _figure(max(6.0, 2.5 + 0.8 * k + names), max(4.5, 1.8 + 0.7 * k + 0.6 * names))
    ax = fig.add_subplot()
    values = m.to_numpy(dtype=float)
    image = ax.imshow(values, cmap="RdBu", vmin=0.0, vmax=1.0)
    ax.set_xticks(range(k), labels, rotation=35, ha="right")
    ax.set_yticks(range(k), [str(i) for i in m.index])
    if k <= 15:
        for i in range(k):
            for j in range(k):
                if not math.isnan(values[i, j]):
                    colour = "white" if abs(values[i, j] - 0.5) > 0.3 else "black"
                    ax.text(j, i, f"{values[i, j]:.2f}", ha="center", va="center",
                            fontsize=9, color=colour)
    ax.set_xlabel("column participant")
    ax.set_ylabel("row participant")
    # A figure title, not the axes': centred on the figure and given its room by the layout,
    # where the axes' title, centred over narrow cells, ran past both edges.
    fig.suptitle(title, fontsize=10)
    fig.colorbar(image, ax=ax, label="row ahead (level = half)")
    return _save(fig, path)


def scores(seats: pd.DataFrame, order: Sequence[str], path: Path) -> Path:
    """Box plots of final scores per participant, means marked, in standings order."""
    title = "Final score per participant"
    data = [seats.loc[seats["participant"] == p, "score"].to_numpy(dtype=float) for p in order]
    kept = [(p, d) for p, d in zip(order, data, strict=True) if len(d)]
    if not kept:
        return _empty(path, title)
    fig = _figure(max(6.0, 1.5 + 0.9 * len(kept)), 4.5)
    ax = fig.add_subplot()
    ax.boxplot([d for _, d in kept], showmeans=True, showfliers=False, whis=(5, 95))
    ax.set_xticks(range(1, len(kept) + 1), [str(p) for p, _ in kept], rotation=25, ha="right")
    ax.set_ylabel("points at the end of the game")
    ax.set_xlabel("participant (box: quartiles, whiskers: 5-95%, triangle: mean)")
    ax.set_title(title)
    ax.grid(axis="y", alpha=0.3)
    return _save(fig, path)


def seat_advantage(seats: pd.DataFrame, path: Path) -> Path:
    """Win rate per seat, one panel per player count, with the 1/players line."""
    title = "Win rate per seat (95% Wilson interval)"
    if seats.empty:
        return _empty(path, title)
    groups = list(seats.groupby("players"))
    fig = _figure(4.0 * len(groups) + 1.0, 4.0)
    axes = fig.subplots(1, len(groups), squeeze=False)[0]
    for ax, (players, frame) in zip(axes, groups, strict=True):
        ax.bar(frame["seat"].astype(str), frame["win_rate"],
               yerr=_errors(frame["win_rate"], frame["win_rate_lo"], frame["win_rate_hi"]),
               color="#55a868", capsize=5)
        ax.axhline(1.0 / players, color="#999999", linestyle="--", label="no advantage")
        ax.set_xlabel("seat (0 plays first)")
        ax.set_ylabel("win rate")
        ax.set_title(f"{players} players")
        ax.legend(loc="lower right")
    fig.suptitle(title)
    return _save(fig, path)


def card_completion(cards: pd.DataFrame, path: Path) -> Path:
    """Completion rate of every card once drawn, one labelled row each, grouped by category
    and ordered by rate within it: readable at any width, a label per row."""
    title = "Objective cards: completion rate once drawn (95% Wilson interval)"
    data = cards[cards["drawn"] > 0]
    if data.empty:
        return _empty(path, title)
    rank = {c: i for i, c in enumerate(CATEGORY_COLOURS)}
    data = data.assign(_cat=data["category"].astype(str).map(rank).fillna(len(rank)))
    data = data.sort_values(["_cat", "completion_rate"], ascending=[False, True])
    fig = _figure(7.5, 1.5 + 0.2 * len(data))
    ax = fig.add_subplot()
    y = np.arange(len(data))
    colours = [CATEGORY_COLOURS.get(str(c), "#888888") for c in data["category"]]
    ax.barh(y, data["completion_rate"], color=colours, height=0.7,
            xerr=_errors(data["completion_rate"], data["completion_rate_lo"],
                         data["completion_rate_hi"]), capsize=1.5,
            error_kw={"elinewidth": 0.8})
    ax.set_yticks(y, [f"{c} ({p:g})" for c, p in zip(data["card"], data["points"],
                                                     strict=True)], fontsize=7)
    ax.set_xlim(0, 1.0)
    ax.set_ylim(-0.6, len(data) - 0.4)
    ax.set_xlabel("completed / drawn")
    ax.set_ylabel("card (points)")
    ax.set_title(title, fontsize=10)
    ax.grid(axis="x", alpha=0.3)
    handles = [ax.barh([0], [0], color=colour, label=cat)
               for cat, colour in CATEGORY_COLOURS.items()
               if cat in set(data["category"].astype(str))]
    fig.legend(handles=handles, loc="outside lower center", ncols=len(handles), fontsize=8,
               frameon=False)
    return _save(fig, path)


def card_value(cards: pd.DataFrame, path: Path, limit: float = 10.0) -> Path:
    """Fair value minus points per card, one labelled row each, strongest evidence at the top.

    A forest plot rather than a scatter of fair value against points: every card gets its
    own row and its own label, so no label can overlap another whatever the estimates.  The
    axis stops at ±``limit`` points: an estimate or a bound beyond it is drawn at the edge
    as an arrow with its value written beside, so no point is off the axis unmarked.
    """
    title = "Objective cards: fair value − points (95% bootstrap interval)"
    data = cards[cards["fair_value"].notna()]
    if data.empty:
        return _empty(path, title, "not enough games for a fair value")
    data = data.assign(gap=data["fair_value"] - data["points"],
                       lo=data["fair_value_lo"] - data["points"],
                       hi=data["fair_value_hi"] - data["points"]).iloc[::-1]
    fig = _figure(8.5, 1.4 + 0.24 * len(data))
    ax = fig.add_subplot()
    y = np.arange(len(data))
    seen: set[str] = set()
    for yi, (_, r) in zip(y, data.iterrows(), strict=True):
        cat = str(r["category"])
        colour = CATEGORY_COLOURS.get(cat, "#888888")
        lo, hi = max(r["lo"], -limit), min(r["hi"], limit)
        ax.plot([lo, hi], [yi, yi], color=colour, linewidth=1.2)
        for bound, sign in ((r["lo"], -1), (r["hi"], 1)):
            if bound * sign > limit:
                ax.annotate("", xy=(sign * limit * 1.04, yi), xytext=(sign * limit * 0.9, yi),
                            arrowprops={"arrowstyle": "->", "color": colour})
                ax.text(sign * limit * 1.06, yi, signed(float(bound), 1), va="center",
                        ha="left" if sign > 0 else "right", fontsize=7, color=colour)
        gap = float(np.clip(r["gap"], -limit, limit))
        marker = "o" if abs(r["gap"]) <= limit else (">" if gap > 0 else "<")
        ax.plot([gap], [yi], marker=marker, color=colour, markersize=4, linestyle="none",
                label=cat if cat not in seen else None)
        seen.add(cat)
    flagged = data["flag"].astype(str).str.contains("worth").to_numpy()
    labels = [f"{c} ({p:g})" + (" *" if f else "") for c, p, f in
              zip(data["card"], data["points"], flagged, strict=True)]
    ax.set_yticks(y, labels, fontsize=8)
    ax.axvline(0.0, color="#999999", linestyle="--")
    ax.set_xlim(-limit * 1.35, limit * 1.35)
    ax.set_xlabel("fair value − points (points; > 0: worth more than its points)")
    ax.set_ylabel("card (points); * flagged after Benjamini–Hochberg")
    ax.set_title(title, fontsize=10)
    ax.legend(loc="lower right")
    ax.grid(axis="x", alpha=0.3)
    return _save(fig, path)


def game_length(rounds: pd.DataFrame, path: Path) -> Path:
    """Histogram of rounds per game, per player count, capped games marked."""
    title = "Game length (games without error)"
    columns = [c for c in rounds.columns if c.startswith("games_")]
    if rounds.empty or not columns:
        return _empty(path, title)
    fig = _figure(8, 4.2)
    ax = fig.add_subplot()
    width = 0.8 / len(columns)
    for i, col in enumerate(columns):
        ax.bar(rounds["rounds"] + (i - (len(columns) - 1) / 2) * width, rounds[col],
               width=width, label=col.replace("games_", "").replace("p", " players"),
               color=RUN_COLOURS[i % len(RUN_COLOURS)])
    if rounds["capped"].sum() > 0:
        capped = rounds[rounds["capped"] > 0]
        ax.bar(capped["rounds"], capped["capped"], width=0.8, color="none", edgecolor="red",
               hatch="//", label="capped (max_rounds)")
    ax.set_xlabel("rounds played")
    ax.set_ylabel("games")
    ax.set_title(title)
    ax.legend()
    return _save(fig, path)


def compare_bars(
    frame: pd.DataFrame, key: str, labels: Sequence[str], metric: str, path: Path,
    title: str, xlabel: str, reference: float | None = None,
) -> Path:
    """Grouped horizontal bars of ``metric[label]`` per key, one colour per run."""
    cols = [f"{metric}[{lab}]" for lab in labels]
    if frame.empty or all(frame[c].isna().all() for c in cols if c in frame):
        return _empty(path, title)
    k = len(frame)
    fig = _figure(8, 1.4 + 0.35 * k * len(labels))
    ax = fig.add_subplot()
    height = 0.8 / len(labels)
    y = np.arange(k)[::-1]
    for i, lab in enumerate(labels):
        col = f"{metric}[{lab}]"
        ax.barh(y + (len(labels) - 1 - 2 * i) * height / 2, frame[col], height=height,
                xerr=_errors(frame[col], frame[f"{col}_lo"], frame[f"{col}_hi"]),
                color=RUN_COLOURS[i % len(RUN_COLOURS)], label=lab, capsize=3)
    if reference is not None:
        ax.axvline(reference, color="#999999", linestyle="--")
    ax.set_yticks(y, [str(v) for v in frame[key]])
    ax.set_xlabel(xlabel)
    ax.set_ylabel(key)
    ax.set_title(title, fontsize=10)
    ax.legend(loc="lower right")
    return _save(fig, path)


def compare_diffs(
    frame: pd.DataFrame, key: str, base: str, labels: Sequence[str], metric: str, path: Path,
    title: str, ylabel: str,
) -> Path:
    """Differences from the first run with their intervals, one marker series per run."""
    if frame.empty or len(labels) < 1:
        return _empty(path, title)
    fig = _figure(max(8.0, 0.28 * len(frame) + 2), 4.8)
    ax = fig.add_subplot()
    x = np.arange(len(frame))
    for i, lab in enumerate(labels):
        col = f"Δ{metric}[{lab}]"
        offset = (i - (len(labels) - 1) / 2) * 0.25
        ax.errorbar(x + offset, frame[col], yerr=_errors(frame[col], frame[f"{col}_lo"],
                                                         frame[f"{col}_hi"]),
                    fmt="o", capsize=2, color=RUN_COLOURS[(i + 1) % len(RUN_COLOURS)],
                    label=f"{lab} − {base}")
    ax.axhline(0.0, color="#999999", linestyle="--")
    ax.set_xticks(x, [str(v) for v in frame[key]], rotation=90, fontsize=8)
    ax.set_ylabel(ylabel)
    ax.set_xlabel(key)
    ax.set_title(title, fontsize=10)
    ax.legend()
    return _save(fig, path)


def compare_lengths(rounds: dict[str, pd.Series], path: Path) -> Path:
    """Overlaid step histograms of game length, one per run, as shares of its games."""
    title = "Game length per run (games without error)"
    if not rounds or all(len(r) == 0 for r in rounds.values()):
        return _empty(path, title)
    fig = _figure(8, 4.2)
    ax = fig.add_subplot()
    for i, (lab, r) in enumerate(rounds.items()):
        if len(r):
            counts = r.value_counts().sort_index()
            ax.step(counts.index, counts / counts.sum(), where="mid", label=lab,
                    color=RUN_COLOURS[i % len(RUN_COLOURS)])
    ax.set_xlabel("rounds played")
    ax.set_ylabel("share of games")
    ax.set_title(title)
    ax.legend()
    return _save(fig, path)


LEVEL_MARKERS = ("o", "s", "D", "^", "v", "P")


def experiment_effects(tables: Sequence[pd.DataFrame], names: Sequence[str], path: Path) -> Path:
    """Each card's effect (win share against its category's average card) with its 95%
    interval, one marker per skill level, cards grouped by category: the experiment's
    forest plot.  Filled markers are the cards flagged after Benjamini–Hochberg; the axis
    holds every interval, so no point is off it."""
    title = "Card value by experiment: effect of holding the card (95% interval)"
    data = [t for t in tables if len(t) and t["effect"].notna().any()]
    if not data:
        return _empty(path, title, "not enough games for an effect")
    order = (pd.concat(tables)[["card", "category"]].drop_duplicates("card")
             .assign(rank=lambda f: f["category"].map({c: i for i, c in
                                                       enumerate(CATEGORY_COLOURS)}))
             .sort_values(["rank", "card"], ascending=[False, False]))
    cards = list(order["card"])
    y_of = {c: i for i, c in enumerate(cards)}
    fig = _figure(8.0, 1.6 + 0.22 * len(cards))
    ax = fig.add_subplot()
    k = len(tables)
    lows, highs = [], []
    for i, (table, name) in enumerate(zip(tables, names, strict=True)):
        t = table[table["effect"].notna()]
        if t.empty:
            continue
        y = np.array([y_of[c] for c in t["card"]]) + (i - (k - 1) / 2) * 0.8 / max(k, 1)
        colour = RUN_COLOURS[i % len(RUN_COLOURS)]
        marker = LEVEL_MARKERS[i % len(LEVEL_MARKERS)]
        flagged = t["flag"].astype(str).str.contains("too ").to_numpy()
        err = _errors(t["effect"], t["effect_lo"], t["effect_hi"])
        ax.errorbar(t["effect"], y, xerr=err, fmt="none", ecolor=colour, elinewidth=1,
                    capsize=1.5)
        ax.scatter(t["effect"][~flagged], y[~flagged], marker=marker, facecolors="white",
                   edgecolors=colour, s=18, zorder=3, label=f"{name}")
        if flagged.any():
            ax.scatter(t["effect"][flagged], y[flagged], marker=marker, color=colour, s=22,
                       zorder=3, label=f"{name}, flagged")
        lows.append(float(np.nanmin(t["effect_lo"])))
        highs.append(float(np.nanmax(t["effect_hi"])))
    ax.axvline(0.0, color="#999999", linestyle="--")
    span = max(abs(min(lows)), abs(max(highs)), 0.05) * 1.08
    ax.set_xlim(-span, span)
    ax.set_ylim(-0.7, len(cards) - 0.3)
    ax.set_yticks(range(len(cards)), cards, fontsize=7)
    for label, card in zip(ax.get_yticklabels(), cards, strict=True):
        cat = order.set_index("card").loc[card, "category"]
        label.set_color(CATEGORY_COLOURS.get(str(cat), "#333333"))
    ax.set_xlabel("win share holding the card − holding the category's average card")
    ax.set_title(title, fontsize=10)
    ax.grid(axis="x", alpha=0.3)
    fig.legend(loc="outside lower center", ncols=min(4, 2 * k), fontsize=8, frameon=False)
    return _save(fig, path)


def experiment_fair_points(table: pd.DataFrame, path: Path, limit: float = 8.0) -> Path:
    """Fair points − points per card measured at several prices, with Fieller's 95% interval;
    an interval beyond ±``limit`` points is drawn to the edge with an arrow and its bound
    written there, a card whose break-even price is not resolved is listed in grey."""
    title = "Fair points − points (95% Fieller interval)"
    t = table[table["priced"]] if "priced" in table else table.iloc[0:0]
    if t.empty:
        return _empty(path, title, "no card was played at other prices")
    t = t.assign(gap=t["fair_points"] - t["points"], lo=t["fair_points_lo"] - t["points"],
                 hi=t["fair_points_hi"] - t["points"])
    t = t.sort_values(["category", "card"], ascending=False)
    fig = _figure(8.0, 1.4 + 0.22 * len(t))
    ax = fig.add_subplot()
    y = np.arange(len(t))
    for yi, (_, r) in zip(y, t.iterrows(), strict=True):
        colour = CATEGORY_COLOURS.get(str(r["category"]), "#888888")
        if not np.isfinite(r["gap"]):
            ax.text(0, yi, "not resolved", ha="center", va="center", fontsize=7,
                    color="#888888", zorder=3,  # over the 0 line, which would cross it
                    bbox={"facecolor": "white", "edgecolor": "none", "pad": 0.5})
            continue
        lo, hi = max(r["lo"], -limit), min(r["hi"], limit)
        ax.plot([lo, hi], [yi, yi], color=colour, linewidth=1.2)
        for bound, edge, sign in ((r["lo"], -limit, -1), (r["hi"], limit, 1)):
            if bound * sign > limit:
                ax.annotate("", xy=(edge * 1.04, yi), xytext=(edge * 0.9, yi),
                            arrowprops={"arrowstyle": "->", "color": colour})
                ax.text(edge * 1.06, yi, signed(float(bound), 0), va="center",
                        ha="left" if sign > 0 else "right", fontsize=7, color=colour)
        gap = float(np.clip(r["gap"], -limit, limit))
        ax.plot([gap], [yi], marker="o" if abs(r["gap"]) <= limit else ">" if gap > 0 else "<",
                color=colour, markersize=4)
    ax.axvline(0.0, color="#999999", linestyle="--")
    ax.set_xlim(-limit * 1.3, limit * 1.3)
    ax.set_yticks(y, [f"{c} ({p:g})" for c, p in zip(t["card"], t["points"], strict=True)],
                  fontsize=7)
    ax.set_xlabel("fair points − points (> 0: worth more than its points)")
    ax.set_title(title, fontsize=10)
    ax.grid(axis="x", alpha=0.3)
    return _save(fig, path)


def spread_by_round(rounds: pd.DataFrame, path: Path) -> Path:
    """The tuning loop: the set's noise-corrected spread of fair points − points per round,
    with its 95% interval."""
    title = "Tuning: spread of fair points − points by round (95% interval)"
    data = rounds[rounds["spread"].notna()]
    if data.empty:
        return _empty(path, title, "no round with a resolved spread")
    fig = _figure(6.5, 3.8)
    ax = fig.add_subplot()
    ax.errorbar(data["round"], data["spread"],
                yerr=_errors(data["spread"], data["spread_lo"], data["spread_hi"]),
                fmt="o-", capsize=4, color="#1f77b4")
    ax.set_xticks(list(rounds["round"]))
    ax.set_ylim(0, max(1.0, float(np.nanmax(data["spread_hi"])) * 1.1))
    ax.set_xlabel("round (0: the set given)")
    ax.set_ylabel("spread (points)")
    ax.set_title(title, fontsize=10)
    ax.grid(axis="y", alpha=0.3)
    return _save(fig, path)
