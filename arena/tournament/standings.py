"""The standings the runner keeps while it plays and prints at the end.

Counted per seat, as ``reports`` counts them: a participant filling two seats of a game (a
2-participant, 4-seat tournament) has two results in it.  A shared victory between ``k``
seats counts ``1/k`` of a win in the rate (the raw counts of outright and shared wins are
shown beside it), the interval is Wilson's, and a seat that faulted counts an error and no
win.

The Wilson interval is ``arena.stats.intervals.wilson``, the formula the reports use too.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field

from arena.stats.intervals import carried, wilson
from arena.tournament.worker import Summary


@dataclass
class Line:
    """One participant's figures."""

    name: str
    games: int = 0
    wins: int = 0
    shared: int = 0
    share: float = 0.0
    score_total: float = 0.0
    errors: int = 0
    #: The deals it played (the independent units of its win rate), when the caller says: a
    #: deal is one pairing's seed, so the runner's key is ``(pairing, deal)``.
    deals: set[Hashable] = field(default_factory=set)

    @property
    def rate(self) -> float:
        return self.share / self.games if self.games else math.nan

    @property
    def mean_score(self) -> float:
        return self.score_total / self.games if self.games else math.nan


class Standings:
    """Running totals per participant, updated from game summaries."""

    def __init__(self, names: Sequence[str]) -> None:
        self.lines = {name: Line(name) for name in names}
        self.games = 0
        self.errors = 0

    def add(self, seats: Sequence[str], summary: Summary, deal: Hashable | None = None) -> None:
        """Count one game (``seats``: participant names in seat order; ``deal``: its deal,
        so that an interval is shown only once enough deals carry it)."""
        self.games += 1
        if summary.error_seat is not None:
            self.errors += 1
        winners = summary.winners
        for seat, name in enumerate(seats):
            line = self.lines[name]
            line.games += 1
            if deal is not None:
                line.deals.add(deal)
            line.score_total += summary.scores[seat]
            if seat == summary.error_seat:
                line.errors += 1
            if seat in winners:
                if len(winners) > 1:
                    line.shared += 1
                else:
                    line.wins += 1
                line.share += 1.0 / len(winners)

    def ranked(self) -> list[Line]:
        """Best win rate first (participants without games last, in their order)."""
        return sorted(self.lines.values(),
                      key=lambda line: -line.rate if line.games else math.inf)

    def leader(self) -> str:
        """``name 71.3%`` for the progress line, or an empty string before any game."""
        top = self.ranked()[0]
        return f"{top.name} {100 * top.rate:.1f}%" if top.games else ""

    def table(self) -> str:
        """The standings as a small fixed-width table."""
        header = ("participant", "games", "wins", "shared", "win rate", "95% CI",
                  "mean score", "errors")
        rows = []
        for line in self.ranked():
            if line.games:
                lo, hi = wilson(line.share, line.games)
                rate, ci = f"{100 * line.rate:.1f}%", f"[{100 * lo:.1f}%, {100 * hi:.1f}%]"
                if line.deals:
                    ci = carried(len(line.deals), line.games) or ci
                mean = f"{line.mean_score:.2f}"
            else:
                rate, ci, mean = "-", "-", "-"
            rows.append((line.name, str(line.games), str(line.wins), str(line.shared), rate,
                         ci, mean, str(line.errors)))
        widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
        out = []
        for r in [header, *rows]:
            cells = [r[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(r[1:], widths[1:])]
            out.append("  ".join(cells).rstrip())
        return "\n".join(out)
