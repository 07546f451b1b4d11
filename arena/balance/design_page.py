"""The design run's page: ``design.png`` (every goal's figure per trial with its interval,
its target band shaded, the confirmation beside) and ``design.html`` around it (each goal's
verdict, what moved, every trial), drawn from what ``best.json`` holds."""

from __future__ import annotations

import html
import math
from pathlib import Path
from typing import Any

from arena.balance.goals import Goals

CHART = "design.png"
PAGE = "design.html"


def write_page(directory: Path, data: dict[str, Any], goals: Goals) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = len(goals.goals)
    cols = min(panels, 2)
    rows = math.ceil(panels / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(5.6 * cols, 3.3 * rows), squeeze=False)
    trials = data["trials"]
    confirm = data.get("confirmation")
    for i, goal in enumerate(goals.goals):
        ax = axes[i // cols][i % cols]
        xs, ys, lows, highs = [], [], [], []
        for t in trials:
            f = t["figures"].get(goal.key) or {}
            if f.get("value") is None:
                continue
            xs.append(t["number"])
            ys.append(f["value"])
            lows.append(f["value"] - f["lo"] if f.get("lo") is not None else 0.0)
            highs.append(f["hi"] - f["value"] if f.get("hi") is not None else 0.0)
        ax.errorbar(xs, ys, yerr=[lows, highs], fmt="o", ms=4, capsize=2, label="trial")
        if trials and not xs:  # every trial's figure unresolved: say so, not a blank panel
            ax.text(0.5, 0.5, "not enough games in any trial", transform=ax.transAxes,
                    ha="center", va="center", color="#555")
        top = max([*ys, *(y + h for y, h in zip(ys, highs, strict=True)), 0.0], default=1.0)
        bottom = min([*ys, *(y - d for y, d in zip(ys, lows, strict=True)), 0.0],
                     default=0.0)
        # An open end of the band (at_least, at_most; the Emperor's figures have no range)
        # is drawn a little past the figures, never at infinity.
        pad = 0.1 * max(top - bottom, 10 * goal.scale)
        high = goal.high if math.isfinite(goal.high) and goal.high < 1e6 else max(
            top + pad, goal.low + goal.scale)
        low = goal.low if math.isfinite(goal.low) and goal.low > -1e6 else min(
            bottom - pad, high - goal.scale)
        ax.axhspan(low, high, color="tab:green", alpha=0.15, label=f"target {goal.band()}")
        # The axis spans every trial, measured or not, and the confirmation's place after
        # them: one trial alone drew an axis of 0.96 to 1.04 with nothing at the end.
        last = max((t["number"] for t in trials), default=0)
        x = last + 1
        if confirm:
            f = confirm["figures"].get(goal.key) or {}
            if f.get("value") is not None:
                err = ([[f["value"] - f["lo"]], [f["hi"] - f["value"]]]
                       if f.get("lo") is not None and f.get("hi") is not None else None)
                ax.errorbar([x], [f["value"]], yerr=err, fmt="s", ms=6, capsize=3,
                            color="tab:red", label=f"confirmed (trial {confirm['trial']})")
            else:
                ax.plot([x], [(low + high) / 2], marker="x", ms=8, ls="none",
                        color="tab:red",
                        label=f"confirmation (trial {confirm['trial']}): not measured")
        ax.set_title(goal.key)
        ax.set_xlabel("trial (the last: the confirmation on fresh deals)" if confirm
                      else "trial")
        ax.set_xlim(-0.5, (x if confirm else last) + 0.5)
        ax.xaxis.get_major_locator().set_params(integer=True)
        ax.legend(fontsize=7)
    for j in range(panels, rows * cols):
        axes[j // cols][j % cols].set_visible(False)
    fig.tight_layout()
    fig.savefig(directory / CHART, dpi=90)
    plt.close(fig)
    (directory / PAGE).write_text(_html(data), encoding="utf-8")


def _html(data: dict[str, Any]) -> str:
    esc = html.escape
    colour = {"met": "#1a7f37", "not settled": "#7a6000", "not met": "#b35900",
              "unreachable": "#b00020", "searching": "#555"}
    goals = "\n".join(
        f"<tr><td>{esc(g['goal'])}</td><td>{esc(g['band'])}</td>"
        f"<td style='color:{colour.get(g['status'], '#000')};white-space:nowrap'>"
        f"<b>{esc(g['status'])}</b></td>"
        f"<td>{esc(g['text'])}</td></tr>" for g in data["goals"])
    trials = "\n".join(
        f"<tr><td>{t['number']}</td><td>{esc(t['source'])}</td>"
        f"<td>{esc(', '.join(t['moves']) or 'the start')}</td><td>{t['loss']:.2f}</td>"
        f"<td>{t['games']:,}</td></tr>" for t in data["trials"])
    dead = "".join(f"<li>{esc(c)}: {esc(w)}</li>" for c, w in data.get("dead", {}).items())
    confirm = data.get("confirmation")
    moved = ", ".join(data.get("moves") or []) or "nothing (the start is the best)"
    best = (f"<p>Best trial: {data['trial']} — moved {esc(moved)}. Its set: "
            f"<code>{esc(data.get('cards_file', ''))}</code>"
            + (f", with {esc(' '.join(data['rule_flags']))}" if data.get("rule_flags") else "")
            + ".</p>") if data.get("trial") is not None else "<p>No trial finished yet.</p>"
    tried = ", ".join(str(n) for n in (confirm or {}).get("confirmed", []))
    state = (f"Confirmed on fresh deals (seed {confirm['seed']}, {confirm['games']:,} games; "
             f"trials played again: {tried}; the answer: trial {confirm['trial']})."
             if confirm else "Not confirmed yet: the run is not finished.")
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Design run: {esc(data['name'] or 'goals')}</title>
<style>body{{font-family:sans-serif;max-width:72em;margin:1em auto;padding:0 1em}}
table{{border-collapse:collapse;margin:.5em 0}} td,th{{padding:3px 8px;text-align:left;
border-bottom:1px solid #ddd;vertical-align:top}} img{{max-width:100%;height:auto}}</style>
</head><body>
<h1>Design run: {esc(data['name'] or 'goals')}</h1>
<p>{len(data['trials'])} candidates, {data['games']:,} games of a budget of
{data['budget']:,}. {esc(state)} {esc(('Stopped: ' + data['reason'] + '.')
                                        if data.get('reason') else '')}</p>
<h2>Goals</h2>
<table><tr><th>figure</th><th>target</th><th>status</th><th>measured (95% CI)</th></tr>
{goals}
</table>
{best}
{'<h2>Dead cards</h2><ul>' + dead + '</ul>' if dead else ''}
<h2>Every goal by trial</h2>
<img src="{CHART}" alt="each goal's figure by trial with its interval and target band">
<h2>Trials</h2>
<table><tr><th>trial</th><th>proposed by</th><th>what moved from the start</th><th>loss</th>
<th>games</th></tr>
{trials}
</table>
<p>Trial numbers are the search's: a number missing was a candidate already measured,
asked for again and not played again.</p>
</body></html>
"""
