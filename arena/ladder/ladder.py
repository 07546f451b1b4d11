"""The skill ladder: a round robin of bot specs, rated by Bradley–Terry Elo.

Why Bradley–Terry by maximum likelihood rather than a running rating (Elo updates, OpenSkill):
the games are all played before the rating, so the order they finished in must not matter,
and every pairing's games say how far apart two specs are whether or not they are neighbours
on the ladder.  The model: spec i beats spec j with probability ``p_i / (p_i + p_j)``; a
shared win counts half a win each (``arena``'s share).  It is fitted by Hunter's MM
iterations (2004) with a weak prior of one virtual drawn game between every two specs, so a
spec that never won (random against the searches) has a finite rating; Elo is
``400·log10(p)``, anchored at 0 for the first spec.  Intervals: a bootstrap over deals
(each deal is played once per seat rotation, and a deal is resampled whole, within its
pairing), refitted each time; the 2.5 and 97.5 percentiles.

The games are an ordinary tournament in ``DIR/games`` (``arena report`` reads it); the rating
reads its ``games.jsonl``, never live objects.
"""

from __future__ import annotations

import csv
import json
import math
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from arena.jail.sandbox import Isolation, parse_participant
from arena.play.bot import BotConfigError
from arena.play.registry import available
from arena.stats.intervals import MIN_UNITS, games_to_carry

#: Virtual games between every two specs, half won by each: keeps a winless spec finite.
PRIOR_GAMES = 1.0
BOOTSTRAP = 1000


def default_specs() -> list[str]:
    """The skill ladder of issue 51: random, greedy, objective, mcts, learned, and elite at ¼,
    1 and 4× its budget (each only when a bot of that name is registered).

    Why mcts at one budget only: it is flat in its budget (docs/experiments.md), so its three
    budgets cost a third of the ladder's games to show three equal ratings; elite is the bot
    whose thinking is meant to scale, so its budgets are the ones worth rating apart."""
    names = available()
    specs = ["random", "greedy", "objective"]
    specs += [bot for bot in ("mcts", "learned") if bot in names]
    if "elite" in names and "budget" in _declared("elite"):
        specs += ["elite:budget=0.25", "elite", "elite:budget=4"]
    elif "elite" in names:
        specs.append("elite")
    return specs


def _declared(bot: str) -> set[str]:
    """The names of the parameters ``bot`` declares (none when its spec does not load)."""
    try:
        return {p.name for p in parse_participant(bot, Isolation()).declared()}
    except BotConfigError:
        return set()


def outcomes(records: Sequence[dict[str, Any]], names: Sequence[str]) -> tuple[
        np.ndarray, list[tuple[int, int, int]], int]:
    """Per deal ``(i, j, key)`` and its win shares: ``shares[d] = (share of i, share of j)``
    summed over the deal's rotations; the count of games left out for an error."""
    index = {name: k for k, name in enumerate(names)}
    by_deal: dict[tuple[int, int], list[float]] = defaultdict(lambda: [0.0, 0.0])
    pair_of: dict[tuple[int, int], tuple[int, int]] = {}
    errors = 0
    for r in records:
        if r.get("error") or not r.get("winners"):
            errors += 1
            continue
        seats = [index[s] for s in r["seats"]]
        key = (r["pairing"], r["deal"])
        i, j = sorted(set(seats))
        pair_of[key] = (i, j)
        for w in r["winners"]:
            side = 0 if seats[w] == i else 1
            by_deal[key][side] += 1.0 / len(r["winners"])
    keys = sorted(by_deal)
    shares = np.array([by_deal[k] for k in keys], dtype=float).reshape(-1, 2)
    deals = [(*pair_of[k], k[0]) for k in keys]
    return shares, deals, errors


def fit(n: int, deals: Sequence[tuple[int, int, int]], shares: np.ndarray,
        weights: np.ndarray | None = None) -> np.ndarray:
    """Bradley–Terry Elo of ``n`` specs from the deals' shares (``weights``: how often each
    deal counts, the bootstrap's resample), first spec at 0."""
    wins = np.full((n, n), PRIOR_GAMES / 2)
    np.fill_diagonal(wins, 0.0)
    w = np.ones(len(deals)) if weights is None else weights
    for (i, j, _), (si, sj), k in zip(deals, shares, w, strict=True):
        wins[i, j] += k * si
        wins[j, i] += k * sj
    games = wins + wins.T
    total = wins.sum(axis=1)
    p = np.ones(n)
    for _ in range(2000):
        denom = (games / (p[:, None] + p[None, :])).sum(axis=1)
        new = total / denom
        new /= math.exp(np.log(new).mean())
        if np.max(np.abs(new - p) / p) < 1e-10:
            p = new
            break
        p = new
    elo = 400.0 * np.log10(p)
    return elo - elo[0]


#: Deals a spec needs before the ladder shows its interval (the one rule, arena.stats.verdict).
MIN_DEALS = MIN_UNITS


def rate(records: Sequence[dict[str, Any]], names: Sequence[str], seed: int,
         bootstrap: int = BOOTSTRAP) -> list[dict[str, Any]]:
    """The ladder's rows, strongest first: Elo, its bootstrap interval, games and score."""
    shares, deals, _ = outcomes(records, names)
    n = len(names)
    elo = fit(n, deals, shares)
    rng = np.random.default_rng(seed)
    by_pairing: dict[int, list[int]] = defaultdict(list)
    for d, (_, _, pairing) in enumerate(deals):
        by_pairing[pairing].append(d)
    samples = np.empty((bootstrap, n))
    for b in range(bootstrap):
        weights = np.zeros(len(deals))
        for members in by_pairing.values():
            picked = rng.choice(members, size=len(members), replace=True)
            np.add.at(weights, picked, 1.0)
        samples[b] = fit(n, deals, shares, weights)
    lo, hi = np.percentile(samples, [2.5, 97.5], axis=0)
    games = np.zeros(n)
    score = np.zeros(n)
    units = np.zeros(n)
    for (i, j, _), (si, sj) in zip(deals, shares, strict=True):
        played = si + sj
        games[i] += played
        games[j] += played
        score[i] += si
        score[j] += sj
        units[i] += 1
        units[j] += 1
    # The one rule of the arena (arena.stats.verdict), as the report of OUT/games applies it: no
    # interval from fewer than MIN_UNITS deals of the spec's own (the cell says how many games
    # would carry one), and none for a spec that won or lost every game: its rating has no
    # finite estimate, the figure shown is where the prior put it (printed with > or <).
    rows = []
    for k in range(n):
        needed = games_to_carry(games[k], units[k])
        perfect = bool(games[k]) and score[k] in (0.0, games[k])
        shown = needed is None and not perfect and hi[k] > lo[k]
        rows.append({"spec": names[k], "elo": float(elo[k]),
                     "elo_lo": float(lo[k]) if shown else math.nan,
                     "elo_hi": float(hi[k]) if shown else math.nan,
                     "games": round(float(games[k])),
                     "score": float(score[k] / games[k]) if games[k] else math.nan,
                     "deals": int(units[k]),
                     "games_needed": needed if needed else math.nan,
                     "perfect": perfect})
    return sorted(rows, key=lambda r: -r["elo"])


def elo_text(row: dict[str, Any], anchor: str) -> str:
    """A row's Elo as every output prints it: ``> 645`` where only the prior bounds it."""
    if row.get("perfect") and row["spec"] != anchor:
        return f"{'>' if row['score'] >= 1 else '<'} {row['elo']:.0f}"
    return f"{row['elo']:.0f}"


def interval_text(row: dict[str, Any], anchor: str) -> str:
    """A row's interval, or why it has none, by :mod:`arena.stats.verdict`'s rule."""
    if row["spec"] == anchor:
        return "anchor (0 by definition)"
    needed = row.get("games_needed", math.nan)
    if needed == needed and needed:  # too few deals comes first, as in the report
        return f"needs ~{int(needed)} games"
    if row.get("perfect"):
        return "perfect record: set by the prior"
    if math.isnan(row["elo_lo"]):
        return "no interval"
    return f"[{row['elo_lo']:.0f}, {row['elo_hi']:.0f}]"


def prior_note(rows: Sequence[dict[str, Any]], anchor: str) -> str | None:
    """The sentence a ladder prints under its table when the prior shaped a rating shown:
    a spec that won or lost every game has no finite maximum-likelihood rating."""
    perfect = [r["spec"] for r in rows if r.get("perfect")]
    if not perfect:
        return None
    whole = anchor in perfect
    return (f"note: {', '.join(perfect)} won or lost every game, so "
            + ("every rating's distance from the anchor" if whole else "its rating")
            + f" is set by the prior ({PRIOR_GAMES:g} virtual drawn game between every two "
            "specs), not measured: read > N as at least N, < N as at most N")


def write_outputs(directory: Path, rows: list[dict[str, Any]], meta: dict[str, Any]) -> None:
    """``ladder.csv``, ``ladder.json``, ``ladder.png`` and ``ladder.html``."""
    import html

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with open(directory / "ladder.csv", "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    (directory / "ladder.json").write_text(json.dumps({**meta, "ladder": rows}, indent=1)
                                           + "\n", encoding="utf-8")
    shown = rows[::-1]
    fig, ax = plt.subplots(figsize=(7, 0.45 * len(rows) + 1.2))
    y = np.arange(len(shown))
    ax.errorbar([r["elo"] for r in shown], y,
                xerr=[[0.0 if math.isnan(r["elo_lo"]) else r["elo"] - r["elo_lo"]
                       for r in shown],
                      [0.0 if math.isnan(r["elo_hi"]) else r["elo_hi"] - r["elo"]
                       for r in shown]], fmt="o", capsize=3)
    ax.set_yticks(y, [r["spec"] for r in shown])
    ax.set_xlabel(f"Bradley–Terry Elo, {meta['anchor']} = 0 (95% bootstrap interval over "
                  "deals)")
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    fig.savefig(directory / "ladder.png", dpi=90)
    plt.close(fig)
    anchor = meta["anchor"]
    body = "\n".join(
        f"<tr><td>{html.escape(r['spec'])}</td><td>{html.escape(elo_text(r, anchor))}</td>"
        f"<td>{html.escape(interval_text(r, anchor))}</td><td>{r['games']}</td>"
        f"<td>{r['score']:.1%}</td></tr>" for r in rows)
    note = prior_note(rows, anchor)
    note_html = f"<p>{html.escape(note.removeprefix('note: '))}.</p>" if note else ""
    (directory / "ladder.html").write_text(
        f"""<!doctype html><html><head><meta charset="utf-8"><title>Skill ladder</title>
<style>body{{font-family:sans-serif;max-width:60em;margin:1em auto}}
td,th{{padding:2px 8px;text-align:left}}</style></head><body><h1>Skill ladder</h1>
<p>{html.escape(meta['command'])}</p><p>Round robin, {meta['games']} games per pairing, 2
players, each deal once per seat rotation, seed {meta['seed']}. Bradley–Terry Elo by maximum
likelihood (the first spec at 0), 95% intervals by a bootstrap over deals.</p>
<img src="ladder.png" alt="Elo by spec"><table><tr><th>spec</th><th>Elo</th><th>95% CI</th>
<th>games</th><th>score</th></tr>
{body}
</table>{note_html}</body></html>
""", encoding="utf-8")
