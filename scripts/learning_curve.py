"""Draw the learned value's learning curve (issue 51) from docs/learning-curve.json.

Usage::

    python scripts/learning_curve.py [--data docs/learning-curve.json]
        [--out docs/learning-curve.png]

Two panels of the same generations: the win rate of ``learned`` (one sample) against
``objective`` with its 95% interval, by generation in the order they were made, and by the
training games played up to each generation.  Why a chart: the question the issue asks when
a target is missed is where the curve flattens, and whether more games or another method
moved it; the figures are those recorded in docs/experiments.md (the JSON lists each one),
so the chart is redrawn, never re-measured, by this script.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import matplotlib
from _args import output_file, script_parser

ROOT = Path(__file__).resolve().parents[1]
#: How each family is drawn: its label, colour and marker.
FAMILIES = {
    "mc-mlp": ("MLP, Monte Carlo returns", "tab:red", "v"),
    "mc-linear": ("linear, Monte Carlo returns", "tab:blue", "s"),
    "td": ("TD(0.7) on afterstates (linear, then 95-32-1)", "tab:green", "o"),
    "expit": ("the search's games (expert iteration; ei1c: λ = 1)", "tab:purple", "D"),
}


def load(path: Path) -> list[dict[str, Any]]:
    """The generations of the data file, in the order they were made."""
    return list(json.loads(path.read_text())["generations"])


def draw(ax: Any, gens: Sequence[dict[str, Any]], xs: Sequence[float], labels: bool) -> None:
    """One panel: each family's points with their intervals, kept ones filled and joined."""
    for family, (label, colour, marker) in FAMILIES.items():
        mine = [(x, g) for x, g in zip(xs, gens) if g["family"] == family]
        for kept in (True, False):
            pts = [(x, g) for x, g in mine if g["kept"] == kept]
            if not pts:
                continue
            ax.errorbar([x for x, _ in pts], [g["vs_objective"] for _, g in pts],
                        yerr=[g["half"] for _, g in pts], fmt=marker, color=colour,
                        mfc=colour if kept else "white", capsize=3, ms=6,
                        label=f"{label}{'' if kept else ', not kept'}")
        line = [(x, g["vs_objective"]) for x, g in mine if g["kept"]]
        ax.plot([x for x, _ in line], [y for _, y in line], color=colour, lw=1, alpha=0.6)
        if labels:
            for x, g in mine:
                ax.annotate(g["name"], (x, g["vs_objective"]), fontsize=7, ha="left",
                            va="center", xytext=(6, 0), textcoords="offset points")
    ax.axhline(50, color="grey", ls="--", lw=0.8)
    ax.set_ylim(0, 70)
    ax.grid(alpha=0.3)


def chart(gens: Sequence[dict[str, Any]], out: Path) -> None:
    """Both panels into ``out`` (a small PNG)."""
    matplotlib.use("Agg")  # no display needed: a file is drawn
    import matplotlib.pyplot as plt
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.6), dpi=80)
    order = list(range(len(gens)))
    draw(left, gens, order, labels=False)
    left.set_xticks(order, [g["name"] for g in gens], rotation=45, ha="right", fontsize=8)
    left.set_title("by generation (in the order made)", fontsize=10)
    left.set_ylabel("learned vs objective, % won (95% CI)")
    draw(right, gens, [g["games"] / 1000 for g in gens], labels=True)
    right.set_xlim(-0.5, max(g["games"] for g in gens) / 1000 * 1.12)  # room for the names
    right.set_xlabel("training games up to the generation (thousands)")
    right.set_title("by training games", fontsize=10)
    handles, names = left.get_legend_handles_labels()
    fig.legend(handles, names, loc="lower center", ncol=3, fontsize=8, frameon=False)
    fig.suptitle("The learned value's learning curve (issue 51; dashed: even with objective)",
                 fontsize=11)
    fig.tight_layout(rect=(0, 0.1, 1, 1))
    fig.savefig(out)
    plt.close(fig)


def main(argv: Sequence[str] | None = None) -> int:
    ap = script_parser(__doc__, "python scripts/learning_curve.py --out docs/learning-curve.png")
    ap.add_argument("--data", type=Path, default=ROOT / "docs" / "learning-curve.json")
    ap.add_argument("--out", type=output_file, default=ROOT / "docs" / "learning-curve.png")
    a = ap.parse_args(argv)
    chart(load(a.data), a.out)
    print(f"wrote {a.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
