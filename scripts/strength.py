"""Strength benchmark: a seat-rotated match of SPEC_A against copies of SPEC_B, with 95% CIs.

Usage::

    python scripts/strength.py greedy random --games 400 --seed 1 --workers 2
    python scripts/strength.py mcts objective --players 4 --games 400 --out runs/mcts-4p
    python scripts/strength.py mcts objective --players 4 --games 400 --out runs/mcts-4p --resume
    python scripts/strength.py mcts greedy --games 4000 --scheduler tcp://10.0.0.5:8786

With N players, SPEC_A plays against N-1 copies of SPEC_B; each deal (one game seed) is
played once per seat rotation, so SPEC_A sits in every seat and the luck of the deal cancels.
The match is an ordinary tournament (one pairing of SPEC_A and the renamed copies of SPEC_B)
played by ``arena.tournament``: the same worker processes, fault isolation and files, so the
games can be re-played with ``arena replay`` and studied with ``arena report DIR``.

A shared victory between k seats counts 1/k of a win; the interval is Wilson's.  A
benchmark, not a test: the long matches of the strength targets are run by hand.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from _args import add_match_options, match_config, positive_float, script_parser

from arena.commands.executor_options import add_executor_arguments, executor_settings
from arena.commands.user_error import UserError
from arena.runs.store import StoreError
from arena.stats.intervals import wilson
from arena.tournament import run_tournament


def main(argv: list[str] | None = None) -> int:
    ap = script_parser(
        __doc__,
        "python scripts/strength.py greedy random --games 400 --seed 1",
        "python scripts/strength.py mcts objective --players 4 --games 120 --seed 13 "
        "--out runs/m4p13",
        "python scripts/strength.py mcts objective --players 4 --games 120 --seed 13 "
        "--out runs/m4p13 --resume   (after a stop)",
        "python scripts/strength.py greedy random --games 400 --executor dask --workers 2",
    )
    add_match_options(ap, games=400)
    add_executor_arguments(ap)
    ap.add_argument("--move-time", type=positive_float, default=None,
                    help="hard limit per decision, in seconds")
    ap.add_argument("--out", type=Path, default=None,
                    help="where to keep the games (default: a new temporary directory)")
    ap.add_argument("--resume", action="store_true",
                    help="go on with a stopped match in --out (give the same arguments)")
    args = ap.parse_args(argv)
    if args.resume and args.out is None:
        ap.error("--resume needs --out, the directory of the match to go on with")
    try:
        settings = executor_settings(args.workers, args.executor, args.scheduler)
    except UserError as exc:
        ap.error(str(exc))
    config = match_config(ap, args, move_time=args.move_time)
    a, *copies = config.participants  # a renamed "NAME (A)" when both specs are one
    b = args.spec_b
    out = args.out or Path(tempfile.mkdtemp(prefix="strength-"))
    try:
        result = run_tournament(config, out, resume=args.resume,
                                settings=settings)
    except (StoreError, OSError) as exc:
        print(f"strength.py: error: {exc}", file=sys.stderr)
        return 2

    lines = result.standings.lines
    n = lines[a.name].games
    a_share = lines[a.name].share
    b_share = sum(lines[c.name].share for c in copies)
    print(f"\n{a.name} vs {b.name}: {n} games, {args.players} players, seed {args.seed}, "
          f"rules {config.options.to_dict(only_changed=True) or 'default'}"
          + (f", card set {config.card_set()['hash']}" if not config.cards.is_default() else ""))
    print(f"{'spec':<32} {'wins':>7} {'win rate':>9} {'95% CI':>17} {'score':>6} {'errors':>6}")
    for label, share, group in ((a.name, a_share, [a]),
                                (f"{b.name} x{len(copies)}", b_share, copies)):
        lo, hi = wilson(share, n)
        score = sum(lines[p.name].score_total for p in group) / max(1, n * len(group))
        errors = sum(lines[p.name].errors for p in group)
        print(f"{label:<32} {share:>7.1f} {share / max(n, 1):>8.1%}   [{lo:6.1%}, {hi:6.1%}] "
              f"{score:>6.2f} {errors:>6}")
    # A resumed match counts only the games this run played in its speed.
    where = (f"on the Dask scheduler {settings.scheduler}" if settings.scheduler
             else f"{args.workers} {settings.executor} workers")
    speed = result.played / result.elapsed if result.elapsed > 0 else 0.0
    print(f"{speed:.2f} games/s ({result.played} games played in {result.elapsed:.0f} s, "
          f"{where}); games in {out} (arena report {out})")
    if result.interrupted:
        print(f"stopped: go on with the same command and --resume --out {out}")
    return 130 if result.interrupted else 0


if __name__ == "__main__":
    sys.exit(main())
