"""The tuner's page: ``tune.png`` (each trial's win rate by trial number, and against each
parameter searched) and ``tune.html`` around it, drawn from what ``best.json`` holds (the
page reads the record, never the live study)."""

from __future__ import annotations

import html
import math
from pathlib import Path
from typing import Any

CHART = "tune.png"
PAGE = "tune.html"


def write_page(directory: Path, data: dict[str, Any]) -> None:
    """Write the chart and the page of ``data`` (``best.json``'s content) into ``directory``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    trials = data["trials"]
    names = [text.partition("=")[0] for text in data["space"]]
    panels = 1 + len(names)
    fig, axes = plt.subplots(1, panels, figsize=(4.2 * panels, 3.4), squeeze=False)
    ax = axes[0][0]
    numbers = [t["number"] for t in trials]
    rates = [t["win_rate"] for t in trials]
    errors = _error_bars(trials)
    ax.errorbar(numbers, rates, yerr=errors, fmt="o", ms=4, capsize=2, alpha=0.8)
    running, best = [], -math.inf
    for rate in rates:
        best = max(best, rate)
        running.append(best)
    ax.step(numbers, running, where="post", color="tab:red", label="best so far")
    ax.set_xlabel("trial")
    ax.set_ylabel("win rate (95% CI)")
    ax.set_title("trials")
    if trials:
        ax.legend(fontsize=8)
    for ax, name in zip(axes[0][1:], names, strict=True):
        values = [t["params"].get(name) for t in trials]
        shown = [str(v) if isinstance(v, (str, bool)) else v for v in values]
        ax.errorbar(shown, rates, yerr=errors, fmt="o", ms=4, capsize=2, alpha=0.8)
        ax.set_xlabel(name)
        ax.set_title(f"win rate by {name}")
    fig.tight_layout()
    fig.savefig(directory / CHART, dpi=90)
    plt.close(fig)
    (directory / PAGE).write_text(_html(data), encoding="utf-8")


def _error_bars(trials: list[dict[str, Any]]) -> list[list[float]]:
    lows, highs = [], []
    for t in trials:
        lo, hi = t.get("interval") or (t["win_rate"], t["win_rate"])
        lows.append(max(0.0, t["win_rate"] - lo))
        highs.append(max(0.0, hi - t["win_rate"]))
    return [lows, highs]


def _pct(value: float | None) -> str:
    return "—" if value is None or value != value else f"{value:.1%}"


def _html(data: dict[str, Any]) -> str:
    esc = html.escape
    settings = data["settings"]
    confirm = data.get("confirmation")
    if confirm and confirm.get("win_rate") is None:
        verdict = f"<p>Confirmation {esc(confirm['verdict'])}.</p>"
    elif confirm:
        interval = ("[{}, {}] (95% Wilson)".format(*map(_pct, confirm["interval"]))
                    if confirm.get("interval") else "(no interval: too few deals)")
        verdict = (f"<p>Confirmation on {confirm['games']} fresh games: <b>{esc(confirm['spec'])}"
                   f"</b> against <b>{esc(confirm['against'])}</b> wins "
                   f"{_pct(confirm['win_rate'])} {interval}: "
                   f"{esc(confirm['verdict'])}.</p>")
    else:
        verdict = "<p>No confirmation yet (the run is not finished).</p>"
    rows = "\n".join(
        f"<tr><td>{t['number']}</td><td>{esc(str(t['spec']))}</td>"
        f"<td>{_pct(t['win_rate'])}</td><td>{_pct((t.get('interval') or [None])[0])} – "
        f"{_pct((t.get('interval') or [None, None])[1])}</td><td>{t['games']}</td></tr>"
        for t in sorted(data["trials"], key=lambda t: -t["win_rate"]))
    return f"""<!doctype html>
<html><head><meta charset="utf-8"><title>Tuning {esc(settings['spec'])}</title>
<style>body{{font-family:sans-serif;max-width:70em;margin:1em auto}}
td,th{{padding:2px 8px;text-align:left}} img{{max-width:100%}}</style></head><body>
<h1>Tuning {esc(settings['spec'])}</h1>
<p>Space: {esc(', '.join(data['space']))}. Opponents: {esc(', '.join(settings['against']))}.
{settings['games']} games per opponent and trial, seed {settings['seed']}, the same deals for
every trial, seats rotated. {len(data['trials'])} of {settings['trials']} trials finished.</p>
<p>Best trial: <b>{esc(str(data['spec']))}</b> (trial {data['trial']}, {_pct(
        data['search_win_rate'])} in the search: the best of noisy scores, biased upward).</p>
{verdict}
<img src="{CHART}" alt="win rate by trial and by parameter">
<table><tr><th>trial</th><th>spec</th><th>win rate</th><th>95% CI</th><th>games</th></tr>
{rows}
</table></body></html>
"""
