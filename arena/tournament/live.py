"""The live standings of a running tournament: the table a terminal shows under its bar.

Per participant: games, win rate with its 95% Wilson interval, an Elo against the field with
its interval, and errors; then the games per pairing.  It is computed from the games played
so far, like the final standings (``standings.py``), and redrawn in place by ``Progress``.

The Elo is the strength that would give this win share against opponents of equal average
strength: under Bradley–Terry (Plackett–Luce for the winner of ``n`` seats), a player of
strength ``g`` among ``n - 1`` of strength 1 wins ``p = g / (g + n - 1)``, so
``Elo = 400·log10(p·(n - 1) / (1 - p))``; with two seats it is the usual Elo from a score.
Its interval is the win rate's interval taken through the same formula.  Games are counted
as independent here, though a deal's seat rotations share its luck: the report's
bootstrap over deals (``arena report``) is the figure to quote.  An end of the interval is 0
or 1 only for a perfect record (every game won, or none): its Elo is unbounded, and the table
says "perfect record" (arena.stats.verdict's rule: said when, and only when, the record is).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Collection

from arena.stats.intervals import carried
from arena.tournament.schedule import Schedule
from arena.tournament.standings import Standings, wilson


def elo_of_share(p: float, players: int) -> float:
    """The Elo against the field of a win share ``p`` in ``players``-seat games."""
    if not 0 < p < 1:
        return math.inf if p >= 1 else -math.inf
    return 400 * math.log10(p * (players - 1) / (1 - p))


def elo_text(share: float, games: int, players: int) -> str:
    """``+123 [+45, +210]``, or ``perfect record`` when every game was won or none was (the
    Elo, and the interval's end, are then unbounded)."""
    if games == 0:
        return "-"
    lo, hi = wilson(share, games)
    if lo <= 0 or hi >= 1:
        return "perfect record"
    centre = elo_of_share(share / games, players)
    return (f"{centre:+.0f} [{elo_of_share(lo, players):+.0f}, "
            f"{elo_of_share(hi, players):+.0f}]")


class LiveTable:
    """The lines of the live standings, from the running totals and the games done."""

    def __init__(self, standings: Standings, schedule: Schedule, done: Collection[int]) -> None:
        self.standings = standings
        self.schedule = schedule
        self.done = done
        self.players = schedule.config.players
        self.per_pairing = Counter(g.pairing for g in schedule.games)

    def lines(self) -> list[str]:
        """The table's lines (a header, a line per participant, the pairings' line)."""
        header = ("participant", "games", "win rate [95% CI]", "Elo vs field [95%]", "errors")
        rows = []
        for line in self.standings.ranked():
            if line.games:
                lo, hi = wilson(line.share, line.games)
                rate = f"{100 * line.rate:5.1f}% [{100 * lo:.1f}, {100 * hi:.1f}]"
                thin = carried(len(line.deals), line.games) if line.deals else None
                if thin:
                    rate = f"{100 * line.rate:5.1f}% ({thin})"
            else:
                rate = "-"
            elo = (elo_text(line.share, line.games, self.players)
                   if not (line.deals and carried(len(line.deals), line.games))
                   else "not enough games")
            rows.append((line.name, str(line.games), rate, elo, str(line.errors)))
        widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
        out = []
        for r in [header, *rows]:
            cells = [r[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(r[1:], widths[1:])]
            out.append("  ".join(cells).rstrip())
        out.append(self.pairings_line())
        return out

    def pairings_line(self) -> str:
        """``games per pairing: 38-40 of 40 (6 pairings)``."""
        played = Counter(self.schedule.games[i].pairing for i in self.done)
        counts = [played.get(p, 0) for p in sorted(self.per_pairing)]
        totals = set(self.per_pairing.values())
        of = f"of {totals.pop()}" if len(totals) == 1 else "of their schedule"
        low, high = min(counts), max(counts)
        spread = str(low) if low == high else f"{low}-{high}"
        errors = self.standings.errors
        return (f"games per pairing: {spread} {of} ({len(counts)} pairing"
                f"{'s' if len(counts) != 1 else ''}); games stopped by an error: {errors}")
