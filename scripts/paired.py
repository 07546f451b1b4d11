"""Paired comparison of two strength runs on the same deals: the games that changed hands.

Usage::

    python scripts/strength.py mcts objective --games 200 --seed 13 --out runs/base
    python scripts/strength.py mcts:c=0.1 objective --games 200 --seed 13 --out runs/new
    python scripts/paired.py runs/base runs/new
    python scripts/paired.py runs/base runs/new --deals-from 20

Two ``scripts/strength.py --out`` runs with the same ``--seed`` and ``--players`` play the
same deals in the same seat rotations, so most games end the same way under two close
configurations.  The games where they differ (discordant) carry the comparison with the
luck of the deal taken out, and the sign test over them is the test; two win rates with
overlapping intervals are not.  A run that was interrupted is compared on the games both
runs finished.

One bias this project measured: a configuration chosen because it did best on some games
did better on those games than it does elsewhere (the 4-player ``mcts`` default won 36.2% of
the 80 games it was chosen on, and 25.0% of the next 120 deals of the same run), so a
challenger compared on the games that chose the default starts a few points behind.
Compare on deals the default was not chosen on: another ``--seed``, or ``--deals-from``.
And measure the noise with a control: the reference again under another name (a bot's
generator is seeded from its participant's name, which ``scripts/strength.py`` takes from
the spec's text, so ``mcts`` and ``mcts:iterations=1000`` are the same bot with another
random stream).  The 2-player ``mcts`` default and such a control, on the same 100 deals,
differed in 43 games, 30 to 13 (p = 0.014): noise, and the selection of the first run,
chosen for doing best on those deals.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from pathlib import Path

from _args import at_least
from scipy.stats import binomtest

from arena.runs.reader import RunError, open_run
from arena.runs.segments import has_games
from arena.stats.intervals import wilson
from arena.tournament.sprt import game_score

#: ``scripts/strength.py`` names the copies of its second spec ``NAME#1``, ``NAME#2``...
_COPY = re.compile(r"#\d+$")

Game = tuple[float, str, int]  # the subject's share of the win, its name, players


class PairedError(Exception):
    """A run that cannot be read or compared (the message names the file or field)."""


def load(run: Path) -> tuple[dict[tuple[int, int], Game], int]:
    """Per (deal, rotation), the share of the win of the seat that is not a copy, and the
    number of lines that could not be read (an interrupted run may end mid-line).

    Read only, unlike ``arena.runs.store.read_games``, which truncates a cut last
    line so that a resumed run can append: a run compared while it still plays must not
    have its file changed under it.
    """
    if not has_games(run):
        raise PairedError(f"{run}: no games.jsonl (not the --out of scripts/strength.py?)")
    games: dict[tuple[int, int], Game] = {}
    bad = 0
    try:
        # The one verified reader (arena/runs/reader.py): signatures and chain checked, a
        # line that does not parse (a last line cut mid-write) handed back with its problem.
        lines = list(open_run(run).lines(whole_only=False))
    except RunError as exc:
        raise PairedError(str(exc)) from None
    for line in lines:
        path, number = line.source.path, line.source.line
        try:
            if line.problem is not None:
                raise ValueError(line.problem)
            g = line.record
            seats = [str(name) for name in g["seats"]]
            subject = [i for i, name in enumerate(seats) if not _COPY.search(name)]
            if len(subject) != 1:
                raise PairedError(
                    f"{path}:{number}: 'seats' should hold one spec and copies NAME#k of "
                    f"another, got {seats}"
                )
            seat = subject[0]
            winners = g["winners"]
            share = game_score(winners, seat)
            games[(int(g["deal"]), int(g["rotation"]))] = (share, seats[seat], len(seats))
        except (ValueError, KeyError, TypeError):
            bad += 1
    return games, bad


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="example: python scripts/paired.py runs/base runs/new --deals-from 20",
    )
    ap.add_argument("base", type=Path, help="the --out directory of the reference run")
    ap.add_argument("new", type=Path, help="the --out directory of the challenger's run")
    ap.add_argument("--deals-from", type=at_least(0), default=0, metavar="N",
                    help="compare only deals N and later (skip the games a default was "
                         "chosen on)")
    args = ap.parse_args(argv)
    try:
        base, bad_base = load(args.base)
        new, bad_new = load(args.new)
    except PairedError as exc:
        print(f"paired.py: error: {exc}", file=sys.stderr)
        return 2
    keys = sorted(k for k in base.keys() & new.keys() if k[0] >= args.deals_from)
    if not keys:
        print(f"paired.py: error: no game of {args.base} and {args.new} with the same deal "
              f"and rotation (deals from {args.deals_from}): same --seed?", file=sys.stderr)
        return 2
    players = {base[k][2] for k in keys} | {new[k][2] for k in keys}
    if len(players) != 1:
        print(f"paired.py: error: the runs have games of {sorted(players)} players",
              file=sys.stderr)
        return 2
    n = len(keys)
    print(f"{n} games played by both runs ({players.pop()} players, deals "
          f"{keys[0][0]}-{keys[-1][0]})")
    for label, run, games, bad in (("base", args.base, base, bad_base),
                                   ("new", args.new, new, bad_new)):
        wins = sum(games[k][0] for k in keys)
        lo, hi = wilson(wins, n)
        names = sorted({games[k][1] for k in keys})
        skipped = f"  ({bad} unreadable lines skipped)" if bad else ""
        print(f"  {label:<4} {', '.join(names):<40} {wins:6.1f} wins {wins / n:6.1%} "
              f"[{lo:5.1%}, {hi:5.1%}]  {run}{skipped}")
    base_better = sum(1 for k in keys if base[k][0] > new[k][0])
    new_better = sum(1 for k in keys if new[k][0] > base[k][0])
    discordant = base_better + new_better
    p = binomtest(new_better, discordant, 0.5).pvalue if discordant else 1.0
    print(f"discordant games: base better {base_better}, new better {new_better}; "
          f"two-sided sign test p = {p:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
