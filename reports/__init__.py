"""Statistics, tables and charts from a tournament's files (``arena report``).

The reports read ``games.jsonl`` and ``manifest.json`` and nothing else (no engine, no bots),
so a finished tournament can be analysed anywhere, and from a notebook::

    import reports
    t = reports.load("runs/rr")            # Tables: games, seats, cards, manifest
    reports.standings(t)                   # a DataFrame
    reports.card_balance(t)["cards"]       # the per-card balance table
    reports.write_report(["runs/rr"])      # runs/rr/report/: report.md, report.html, CSV, PNG

Layout: ``loader`` (files to DataFrames, the bad-input policy), ``stats`` (intervals,
ratings, regressions), ``balance`` (the card figures), ``tables`` (one function per report
section), ``compare`` (differences between runs), ``charts`` (matplotlib, Agg), ``sections``
(the registry: what each section computes, writes and says, for one run and for several),
``render`` (Markdown, HTML, CSV), ``report`` (the files, as loops over the registry) and
``synthetic`` (made-up tournaments for the benchmark and the tests).

``write_report`` also leaves ``summary.txt`` (the standings :func:`summary_text` prints) in
its folder, so a caller can print it without loading the games a second time.
"""

from __future__ import annotations

from .loader import ReportError, Tables, card_catalog, load
from .report import COMPARE_FILES, FILES, write_report
from .tables import (
    card_balance,
    game_shape,
    head_to_head,
    paired,
    pairwise,
    ratings,
    seat_advantage,
    standings,
    summary_text,
    tiebreaks,
)

__all__ = [
    "COMPARE_FILES",
    "FILES",
    "ReportError",
    "Tables",
    "card_balance",
    "card_catalog",
    "game_shape",
    "head_to_head",
    "load",
    "paired",
    "pairwise",
    "ratings",
    "seat_advantage",
    "standings",
    "summary_text",
    "tiebreaks",
    "write_report",
]
