"""Points from a card study, and the loop that re-plays the study until the set is balanced.

``suggest``: a card moves on evidence, by either of two tests of "worth its points",
each with Benjamini–Hochberg across the cards: the study's flag (too strong or too weak: the
test of its effect at its points) or, for a card played at other prices, the test of its
fair points against its points (``(fair − points) / se``; the price line, which uses the
price arms' games too and so can see a gap the effect test at one price misses).  A card
that moves goes to its fair points, rounded, never below 0 and no further than the prices
played.  A card moves only as far as its measured price line says: one flagged without
resolved fair points (no price arms, or a line too flat to place its root) is not moved,
since the flag says which way, not how far (stepped one point a round, such cards went
5→4→3→4 in the loop).  A dead card (``reports/experiment.py``: its value does not respond
to its price) is never re-priced, whatever its tests; its suggestion says "dead: change
what it asks, not its points".  Either test may move a card, so the rate of cards moved by
chance is up to twice the FDR; the loop's stopping rule and its choice of the round of
least spread are what keep such a move from sticking.  Any other card keeps its points;
copies of one card (the same condition and points) share one suggestion, their fair points
pooled by precision, so identical cards stay identical (and a copy of a priced card shares
its price line).  The cards the loop may move (``movable``) are the priced ones and their
copies, less the dead.

``tune``: round 0 is the study given; each round plays the same study (same seed, levels,
deals, arms) with the previous round's suggestion (each card's fair points pooled over the
rounds played so far), until no card moves, the measured spread
(``reports.experiment.spread``: fair points − points, noise-corrected) over the cards the
loop may move no longer shrinks (over those resolved in both rounds), or the rounds run
out.  Every round's set and suggestion (``round-N.json``, ``round-N-cards.csv``) is
written, the spread by round is a chart, and the final set is compared with round 0 on the
same deals (paired).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats as sps

from arena.balance.study import run_study
from arena.engine import card_files as card_files
from arena.runs.store import read_manifest
from arena.tournament import RunSettings
from arena.tournament.runner import config_from_manifest
from reports import charts, experiment
from reports.balance import bh, copy_groups
from reports.experiment import FDR
from reports.loader import emperor_points

#: What a dead card's suggestion says (``reports/experiment.py``: its value does not
#: respond to its price, so no price makes it the average card).
DEAD = "dead: change what it asks, not its points"


def suggest(exp: experiment.Experiment, level: int = 0,
            analysis: dict[str, Any] | None = None, method: str = "fair-value",
            earlier: list[pd.DataFrame] | None = None) -> pd.DataFrame:
    """Per card of the study: its points, its fair points, the suggestion and why.

    ``earlier``: the card tables of the loop's earlier rounds.  A card's fair price does
    not depend on its own points (the price arms play it at absolute prices, against the
    games where no rival holds it: ``reports/experiment.py``), so its fair points are
    pooled over the rounds (precision-weighted; an estimate beyond the prices
    its round played is left out, being an extrapolation).  Without it a card whose fair
    price lies between two whole points goes back and forth with the noise of one round.

    ``method="efficiency"`` instead moves each card flagged efficient or inefficient (beyond
    the margin) to the points at which its points per action would equal its category's:
    parity of effort, not of value (a card can be efficient and still not win more).
    """
    analysis = analysis or experiment.analyse(exp)
    table = analysis["levels"][level].copy()
    table["group"] = copy_groups(table.assign(category=table["category"].astype(str)))
    design = getattr(exp, "design", None) or {}
    offsets = [int(o) for o in design.get("offsets") or ()]
    low, high = (min(*offsets, 0), max(*offsets, 0)) if offsets else (-math.inf, math.inf)
    if method == "efficiency":
        # The value evidence, as `tune` reads it, beside the effort one: the two methods
        # say the same thing about what a card's games support.
        value = suggest(exp, level, analysis, "fair-value", earlier)
        return _measured(_by_efficiency(table, value), table, low, high)
    if method != "fair-value":
        raise ValueError(f"unknown method {method!r}")
    rounds = pd.Series(1, index=table.index)
    if earlier:
        table, rounds = _pool_rounds(table, earlier, low, high)
    t = _group_tests(table, earlier)
    # The price line is measured between the prices played (the card's points plus each
    # offset): a root beyond them is an extrapolation (the line bends where a card's points
    # stop mattering), so a move goes no further than the prices played.
    beyond = t.move & ((t.pooled < low - 0.5) | (t.pooled > high + 0.5))
    pooled = t.pooled.clip(lower=low, upper=high)
    target = np.where(t.move, np.maximum(0.0, np.round(table["points"] + pooled)),
                      table["points"])
    table["suggested"] = target.astype(int)
    table["change"] = table["suggested"] - table["points"].astype(int)
    table["why"] = _why_lines(table, t, rounds, beyond, low, high)
    table["q_fair_points"] = t.q_fair
    table["dead"] = t.dead
    # The cards the loop may move: measured at other prices (itself or a copy), not dead.
    table["movable"] = t.priced & ~t.dead
    return _measured(table[["card", "category", "points", "fair_points", "fair_points_lo",
                            "fair_points_hi", "q_fair_points", "suggested", "change",
                            "dead", "movable", "why"]],
                     table, low, high)


@dataclass
class _GroupTests:
    """Per card (the same for each copy of a copy group at the same points): the group's
    key, its pooled gap from fair points to points, whether that is measured, the card's
    own flag and whether a copy is flagged, whether the group is dead or priced, the
    q-value of the fair-points test, and whether the group moves."""

    key: pd.Series
    pooled: pd.Series
    known: pd.Series
    flag: pd.Series
    flagged: pd.Series
    dead: pd.Series
    priced: pd.Series
    q_fair: pd.Series
    move: pd.Series


def _group_tests(table: pd.DataFrame, earlier: list[pd.DataFrame] | None) -> _GroupTests:
    """The two tests that move a copy group, and what keeps one from moving.

    A copy group is tested when one of its copies is flagged too strong or too weak (the
    study's test, Benjamini–Hochberg across the cards) and moves to its pooled fair points
    when they are measured; without them it is not moved: the flag says which way, only a
    price line says how far (one point a round the flag's way went back and forth).  The
    second test: the pooled fair points against the points, z on the pooled error, BH
    across the copy groups that have one (a group is one test, as it is one move).  A dead
    card (its value does not respond to its price) is never re-priced, whatever its flags:
    no price makes it the average card; found dead in any round, it stays dead."""
    resolved = table["fair_points"].notna() & (table["fair_points_se"] > 0)
    gap = (table["fair_points"] - table["points"]).where(resolved)
    w = (1.0 / table["fair_points_se"] ** 2).where(resolved, 0.0)
    key = table["group"] + "@" + table["points"].astype(str)
    sum_w = w.groupby(key).transform("sum")
    with np.errstate(invalid="ignore", divide="ignore"):
        pooled = (gap.fillna(0.0) * w).groupby(key).transform("sum") / sum_w
    flag = table.get("flag", pd.Series("", index=table.index)).astype(str)
    flagged = flag.str.contains("too strong|too weak").groupby(key).transform("any")
    known = sum_w > 0
    dead = table.get("dead", pd.Series(False, index=table.index)).fillna(False).astype(bool)
    for t in earlier or ():
        if "dead" in t:
            dead |= table["card"].isin(set(t.loc[t["dead"].fillna(False).astype(bool), "card"]))
    dead = dead.groupby(key).transform("any")
    priced = table.get("priced", pd.Series(False, index=table.index)).fillna(False)
    priced = priced.astype(bool).groupby(key).transform("any")
    with np.errstate(invalid="ignore", divide="ignore"):
        z = (pooled * np.sqrt(sum_w)).where(known)
    first = ~key.duplicated()
    q_fair = pd.Series(np.nan, index=table.index)
    tested = first & z.notna() & ~dead
    if tested.any():
        q_fair[tested] = bh(2.0 * sps.norm.sf(np.abs(z[tested].to_numpy(float))))
    q_fair = q_fair.groupby(key).transform("max")
    fair_flagged = known & q_fair.le(FDR)
    move = ((flagged & known) | fair_flagged) & ~dead
    return _GroupTests(key, pooled, known, flag, flagged, dead, priced, q_fair, move)


def _why_lines(table: pd.DataFrame, t: _GroupTests, rounds: pd.Series, beyond: pd.Series,
               low: float, high: float) -> list[str]:
    """Per card, why it moves or stays: dead, the test that moved it (and how far), not
    flagged, not played at other prices, or its fair points not resolved."""
    copies = t.key.map(t.key.value_counts())
    dead_why = table.get("dead_why", pd.Series("", index=table.index)).fillna("").astype(str)
    why = []
    for r, m, n, c, far, fl, qf, k, dd, dw in zip(
            table.itertuples(), t.move, copies, table["change"], beyond, t.flagged & t.known,
            t.q_fair, rounds, t.dead, dead_why, strict=True):
        own = t.flag.loc[r.Index]
        test = (f"{'too strong' if 'too strong' in own else 'too weak'} "
                f"(q = {r.q_value:.3f})") if "too " in own else "flagged with a copy"
        if dd:
            why.append(f"{DEAD}" + (f" ({dw})" if dw else " (so is a copy of it)"))
        elif m:
            test = test if fl else f"fair points away from its points (q = {qf:.3f})"
            why.append(f"{test}: fair points {r.fair_points:.1f} [{r.fair_points_lo:.1f}, "
                       f"{r.fair_points_hi:.1f}]" + (f" over {k} rounds" if k > 1 else "")
                       + (f", pooled over its {n} copies" if n > 1 else "")
                       + ("" if c else ", rounds to it")
                       + (f"; beyond the prices played ({low:+d}, {high:+d}): moved as far "
                          "as they go" if far else ""))
        elif np.isfinite(r.fair_points):
            why.append(f"not flagged (q = {r.q_value:.2f}; fair points against its points: "
                       f"q = {qf:.2f}): fair points {r.fair_points:.1f} "
                       f"[{r.fair_points_lo:.1f}, {r.fair_points_hi:.1f}]")
        elif not t.priced.loc[r.Index]:
            why.append(f"{test}, not played at other prices: not moved (the flag says which "
                       "way, not how far; --price-cards measures it)" if "too " in own else
                       "not flagged, not played at other prices (--price-cards)")
        else:
            needed = r.fair_points_games_needed
            why.append((f"{test}, " if "too " in own else "not flagged, ")
                       + "fair points not resolved: not moved" + (
                f" (about {int(needed)} games needed)" if np.isfinite(needed) else ""))
    return why


def _measured(out: pd.DataFrame, table: pd.DataFrame, low: float, high: float) -> pd.DataFrame:
    """``out`` with ``measured_low``/``measured_high`` (the prices the card's arms played:
    its points plus the offsets when it was priced, its points alone when not) and
    ``extrapolated``: a suggestion outside them stands on no game at that price, so its
    ``why`` says "extrapolated" (and :func:`card_file` names it in the set's name)."""
    out = out.copy()
    points = table["points"].astype(float)
    priced = table.get("priced", pd.Series(False, index=table.index)).fillna(False).astype(bool)
    # A priced card of a study whose offsets are unknown: its range is unknown, not narrow.
    lo = points + np.where(priced, low, 0.0)
    hi = points + np.where(priced, high, 0.0)
    out["measured_low"], out["measured_high"] = lo.to_numpy(), hi.to_numpy()
    beyond = (out["change"] != 0) & ((out["suggested"] < lo) | (out["suggested"] > hi))
    out["extrapolated"] = beyond.to_numpy()
    out["why"] = [w + (f"; extrapolated: {s} is outside the prices its games measured "
                       f"({a:g} to {b:g})" if e else "")
                  for w, s, a, b, e in zip(out["why"], out["suggested"], lo, hi, beyond,
                                           strict=True)]
    return out


def _pool_rounds(table: pd.DataFrame, earlier: list[pd.DataFrame], low: float,
                 high: float) -> tuple[pd.DataFrame, pd.Series]:
    """The table with each card's fair points (and their error and interval) pooled over
    this round and ``earlier`` ones, and the number of rounds pooled per card."""
    frames = [table, *earlier]
    rows = []
    for t in frames:
        ok = t["fair_points"].notna() & (t["fair_points_se"] > 0)
        gap = t["fair_points"] - t["points"]
        ok &= (gap >= low - 0.5) & (gap <= high + 0.5)
        rows.append(pd.DataFrame({"card": t.loc[ok, "card"],
                                  "fp": t.loc[ok, "fair_points"].astype(float),
                                  "w": 1.0 / t.loc[ok, "fair_points_se"].astype(float) ** 2}))
    est = pd.concat(rows, ignore_index=True)
    if est.empty:
        return table, pd.Series(1, index=table.index)
    est["wfp"] = est["w"] * est["fp"]
    g = est.groupby("card").agg(w=("w", "sum"), wfp=("wfp", "sum"), n=("w", "size"))
    out = table.copy()
    card = out["card"]
    has = card.isin(g.index)
    fp = (card.map(g["wfp"]) / card.map(g["w"])).where(has)
    se = (1.0 / np.sqrt(card.map(g["w"]))).where(has)
    out["fair_points"] = fp.where(has, out["fair_points"])
    out["fair_points_se"] = se.where(has, out["fair_points_se"])
    half = 1.959964 * out["fair_points_se"]
    out["fair_points_lo"] = (fp - half).where(has, out["fair_points_lo"])
    out["fair_points_hi"] = (fp + half).where(has, out["fair_points_hi"])
    return out, card.map(g["n"]).fillna(1).astype(int)


def _by_efficiency(table: pd.DataFrame, value: pd.DataFrame) -> pd.DataFrame:
    """The efficiency method of :func:`suggest`; copies move together (their mean target).

    Parity of effort, not of value: each card's ``why`` also says what its value evidence
    (``value``, the fair-value method ``tune`` uses) supports, so the two never disagree
    silently about the same games."""
    key = table["group"] + "@" + table["points"].astype(str)
    # Copies move together, and only when the evidence names them all: the study decides
    # copies' flags on the copies pooled (``reports.experiment.pooled``), so a group whose
    # copies disagree (one flagged on its own noise) moves none of them.
    flagged = table["flag"].astype(str).str.contains("efficient")
    flagged = flagged.groupby(key).transform("all")
    with np.errstate(divide="ignore", invalid="ignore"):
        target = (table["points"] / table["efficiency"]).where(flagged)
    pooled = target.groupby(key).transform("mean")
    move = pooled.notna() & np.isfinite(pooled)
    needed = table.get("efficiency_games_needed", pd.Series(np.nan, index=table.index))
    table["suggested"] = np.where(move, np.maximum(0.0, np.round(pooled.fillna(0.0))),
                                  table["points"]).astype(int)
    table["change"] = table["suggested"] - table["points"].astype(int)
    table["why"] = [
        f"points per action {r.efficiency:.2f}x its category's [{r.efficiency_lo:.2f}, "
        f"{r.efficiency_hi:.2f}]: parity at about {r.points / r.efficiency:.1f}"
        + (f" (its {n} copies, flagged together, move together)" if n > 1 else "")
        if m and np.isfinite(r.efficiency) and r.efficiency > 0 else
        f"not enough deals: its points per action are not measured (about {int(ng)} games "
        "needed)" if not m and np.isfinite(ng) else
        "points per action within ±20% of its category's (or not resolved): not moved"
        if not m else
        "earns no points per action: parity needs its points measured at other prices"
        for r, m, ng, n in zip(table.itertuples(), move, needed, key.map(key.value_counts()),
                               strict=True)]
    verdict = value.set_index("card")
    # The value evidence beside the effort one, worded as what it is: a second opinion on
    # the same games, not the suggestion (which is parity of effort).
    table["why"] = [
        w + ("" if c == 0 else
             "; by value (the fair-value method `tune` uses) "
             + (f"it would stay at {p:g}" if verdict.at[card, "change"] == 0 else
                f"it would go to {int(verdict.at[card, 'suggested'])}")
             + f" ({verdict.at[card, 'why']}): this move is parity of effort only")
        for w, c, card, p in zip(table["why"], table["change"], table["card"], table["points"],
                                 strict=True)]
    return table[["card", "category", "points", "fair_points", "fair_points_lo",
                  "fair_points_hi", "suggested", "change", "why"]]


def card_file(exp: experiment.Experiment, table: pd.DataFrame, name: str) -> dict[str, Any]:
    """The ``--cards`` file of a suggestion: every card in play with its points (the
    study's for the cards not in the table), the study's removed cards and Emperor."""
    catalog = exp.catalog
    points = {c: int(p) for c, p, removed in
              zip(catalog["card"], catalog["points"], catalog["removed"], strict=True)
              if not removed}
    points.update({c: int(s) for c, s in zip(table["card"], table["suggested"], strict=True)})
    if "extrapolated" in table and table["extrapolated"].any():
        # The file's own words (the only free text a card file has): a set that moves a
        # card past the prices its games measured says so wherever it is used.
        far = table[table["extrapolated"]]
        name += "; extrapolated beyond the prices measured: " + ", ".join(
            f"{c} {p:g}->{s}" for c, p, s in zip(far["card"], far["points"], far["suggested"],
                                                 strict=True))
    if "dead" in table and table["dead"].any():
        name += f"; {DEAD}: " + ", ".join(sorted(table.loc[table["dead"], "card"]))
    out: dict[str, Any] = {"name": name, "emperor": emperor_points(exp.manifest),
                           "points": points}
    removed = sorted(catalog.loc[catalog["removed"], "card"])
    if removed:
        out["remove"] = removed
    return out


class TuneInterrupted(Exception):
    """A round stopped before its last game (Ctrl-C): its games are kept, and the same
    command goes on from there."""

    def __init__(self, round_: int, folder: Path, done: int, total: int) -> None:
        super().__init__(f"interrupted in round {round_} ({done} of {total} games kept in "
                         f"{folder}); run the same command again to go on")


def tune(directory: Path, out: Path, rounds: int = 3, level: int = 0,
         settings: RunSettings | None = None,
         say: Callable[[str], None] = print) -> pd.DataFrame:
    """The loop of the module docstring; returns one row per round (spread, cards moved)."""
    out.mkdir(parents=True, exist_ok=True)
    base = config_from_manifest(read_manifest(directory))
    current = experiment.load(directory)
    analysis = experiment.analyse(current)
    # The cards the loop may move (priced, not dead) are fixed by round 0's study: every
    # round plays the same arms, and a card found dead there is never re-priced.
    first = suggest(current, level, analysis, earlier=[])  # round 1's suggestion too
    movable = set(first.loc[first["movable"], "card"])
    rows = [_round_row(0, directory, analysis, level, moved=0, movable=movable)]
    say(f"round 0 ({directory}): spread {_spread_text(rows[-1])}")
    _say_dead(first, set(), say)
    studies = [current]
    tables: list[pd.DataFrame] = []  # the earlier rounds' card tables, pooled by suggest
    for r in range(1, rounds + 1):
        table = first if r == 1 else suggest(current, level, analysis, earlier=tables)
        tables.append(analysis["levels"][level])
        table.to_csv(out / f"round-{r}-cards.csv", index=False)
        if r > 1:
            _say_dead(table, set(first.loc[first["dead"], "card"]), say)
        movable -= set(table.loc[table["dead"], "card"])
        moved = table[table["change"] != 0]
        if moved.empty:
            waiting = _unresolved(table, analysis["levels"][level])
            for line in waiting:
                say(f"round {r}: {line}")
            say(f"round {r}: no card moves; " + (
                "the study says which way but not how far: play it with more deals"
                if waiting else "the set is as balanced as the study can tell"))
            break
        name = f"tuned round {r} from {directory.name}"
        data = card_file(current, table, name)
        path = out / f"round-{r}.json"
        path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
        say(f"round {r}: " + ", ".join(
            f"{c} {p:g}→{s}" + (" (extrapolated: beyond the prices measured)" if e else "")
            for c, p, s, e in zip(moved["card"], moved["points"], moved["suggested"],
                                  moved["extrapolated"], strict=True)) + f" ({path})")
        choice = card_files.parse(data, f"round {r}'s set")
        config = replace(base, cards=replace(choice.cards, name=name))
        folder = out / f"round-{r}"
        run = run_study(config, folder, resume=(folder / "manifest.json").exists(),
                        settings=settings)
        if not run.finished:  # Ctrl-C: the round's games are kept, not analysed
            raise TuneInterrupted(r, folder, run.done, run.total)
        current = experiment.load(folder)
        analysis = experiment.analyse(current)
        studies.append(current)
        rows.append(_round_row(r, folder, analysis, level, moved=len(moved), movable=movable))
        say(f"round {r}: spread {_spread_text(rows[-1])}")
        if _no_longer_shrinks(tables[-1], analysis["levels"][level], movable):
            say(f"round {r}: the spread no longer shrinks; stopping")
            break
    frame = pd.DataFrame(rows)
    best = int(frame.loc[frame["spread"].fillna(math.inf).idxmin(), "round"]) \
        if frame["spread"].notna().any() else 0
    frame["final"] = frame["round"] == best
    if best > 0:
        paired = experiment.paired_spread(studies[0], studies[best], level, cards=movable)
        frame.loc[frame["round"] == best, ["change", "change_lo", "change_hi"]] = (
            paired["change"], paired["change_lo"], paired["change_hi"])
        final = json.loads((out / f"round-{best}.json").read_text())
    else:
        final = card_file(studies[0], suggest(studies[0], level).assign(
            suggested=lambda f: f["points"].astype(int), extrapolated=False),
            f"{directory.name} (unchanged)")
    (out / "final.json").write_text(json.dumps(final, indent=2) + "\n", encoding="utf-8")
    frame.to_csv(out / "rounds.csv", index=False)
    charts.spread_by_round(frame, out / "spread.png")
    return frame


def _unresolved(suggestion: pd.DataFrame, table: pd.DataFrame) -> list[str]:
    """A line per card the study flags too strong or too weak that does not move (its fair
    points not resolved, or not played at other prices): "no card moves" alone read as "the
    set is balanced" while the study said panda-07 was too strong."""
    flags = dict(zip(table["card"], table["flag"].astype(str), strict=True))
    rows = table.set_index("card")
    lines = []
    for card, change, why in zip(suggestion["card"], suggestion["change"], suggestion["why"],
                                 strict=True):
        flag = flags.get(card, "")
        if change != 0 or not ("too strong" in flag or "too weak" in flag) or \
                why.startswith(DEAD):
            continue
        r = rows.loc[card]
        word = "too strong" if "too strong" in flag else "too weak"
        needed = r.get("fair_points_games_needed", math.nan)
        how = ("its fair points are not resolved: not enough deals (about "
               f"{int(needed):,} games would resolve them)" if np.isfinite(needed) else
               "it was not played at other prices (--price-cards), so how far is unknown"
               if not bool(r.get("priced", False)) else
               "its fair points are not resolved: not enough deals")
        lines.append(f"{card} is {word} (effect {r['effect']:+.3f} [{r['effect_lo']:+.3f}, "
                     f"{r['effect_hi']:+.3f}]) but not moved: {how}")
    return lines


def _say_dead(table: pd.DataFrame, known: set[str], say: Callable[[str], None]) -> None:
    """One line per card found dead (and not said before): never re-priced, and why."""
    for c, w in zip(table["card"], table["why"], strict=True):
        if w.startswith(DEAD) and c not in known:
            say(f"{c}: {w}")


def _round_row(r: int, folder: Path, analysis: dict[str, Any], level: int,
               moved: int, movable: set[str]) -> dict[str, Any]:
    """A round's spread over every card the loop may move (``movable``; ``cards`` of them
    resolved), not over whichever cards happen to have fair points."""
    table = analysis["levels"][level]
    s = experiment.spread(table[table["card"].isin(movable)])
    return {"round": r, "study": str(folder), "moved": moved, **s, "movable": len(movable)}


def _no_longer_shrinks(before: pd.DataFrame, now: pd.DataFrame, movable: set[str]) -> bool:
    """The stop rule: the spread over the movable cards resolved in both rounds (the same
    cards on both sides, so a card resolved in one round only cannot make it look better
    or worse) is not smaller than the round before's; undecided (False) when none is."""
    def resolved(t: pd.DataFrame) -> set[str]:
        return set(t.loc[t["fair_points"].notna() & t["fair_points_se"].notna(), "card"])

    both = movable & resolved(before) & resolved(now)
    if not both:
        return False
    new = experiment.spread(now[now["card"].isin(both)])["spread"]
    old = experiment.spread(before[before["card"].isin(both)])["spread"]
    return math.isfinite(new) and math.isfinite(old) and not new < old


def _spread_text(row: dict[str, Any]) -> str:
    if not np.isfinite(row["spread"]):
        return (f"not resolved (none of the {row['movable']} cards the loop may move has "
                "its fair points)")
    return (f"{row['spread']:.2f} points [{row['spread_lo']:.2f}, {row['spread_hi']:.2f}] "
            f"over {row['cards']} of the {row['movable']} cards the loop may move")
