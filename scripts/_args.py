"""Command-line plumbing shared by the scripts in this directory.

Why: a count of 0 or a negative time used to pass the parser and fail later, far from its
cause (``statistics.median`` of no runs, a pool of no workers); these types make it a usage
error that names the option, like the ``arena`` commands (``click.IntRange``).  ``script_parser``
puts examples under every script's ``--help``, as the ``arena`` commands have; and the
match options live here once because ``strength.py`` and ``clairvoyance.py`` must turn the
same arguments into the same games for ``paired.py`` to compare their runs.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from arena.engine import ArenaError, RuleOptions
from arena.tournament.schedule import TournamentConfig, against_copies
from bots.base import BotConfigError
from bots.registry import BotSpec


def script_parser(doc: str | None, *examples: str) -> argparse.ArgumentParser:
    """A script's parser: the first paragraph of its docstring, and its examples."""
    return argparse.ArgumentParser(
        description=(doc or "").split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n" + "\n".join(f"  {e}" for e in examples) if examples else None,
    )


def add_match_options(
    ap: argparse.ArgumentParser,
    games: int,
    subject: str = "the bot measured (a bot spec, e.g. mcts:iterations=300)",
) -> None:
    """SPEC_A, SPEC_B and the options of a match of SPEC_A against copies of SPEC_B."""
    ap.add_argument("spec_a", help=subject)
    ap.add_argument("spec_b", help="its opponents: copies named NAME#k")
    ap.add_argument("--games", type=at_least(1), default=games,
                    help="games (rounded up to whole deals)")
    ap.add_argument("--seed", type=int, default=1, help="master seed of the deals")
    ap.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    ap.add_argument("--workers", type=at_least(1), default=2, help="worker processes")
    ap.add_argument("--rule", action="append", default=[], metavar="K=V",
                    help="a rule option (repeatable)")


def match_config(
    ap: argparse.ArgumentParser, args: argparse.Namespace, move_time: float | None = None
) -> TournamentConfig:
    """The match ``add_match_options`` describes; a bad spec or rule is a usage error."""
    try:
        return against_copies(
            BotSpec.parse(args.spec_a), BotSpec.parse(args.spec_b), args.players,
            games=args.games, seed=args.seed, options=RuleOptions.from_pairs(args.rule),
            move_time=move_time,
        )
    except (ArenaError, BotConfigError, ValueError) as exc:
        ap.error(str(exc))


def at_least(minimum: int) -> Callable[[str], int]:
    """An int option that must be ``minimum`` or more."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}, not {value}")
        return value

    parse.__name__ = f"int >= {minimum}"
    return parse


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None


def positive_float(text: str) -> float:
    """A float option that must be above 0 (a time, a duration)."""
    value = _number(text)
    if not value > 0:  # also refuses nan
        raise argparse.ArgumentTypeError(f"must be above 0, not {text}")
    return value


def fraction(text: str) -> float:
    """A float option between 0 and 1 (a probability)."""
    value = _number(text)
    if not 0.0 <= value <= 1.0:  # also refuses nan
        raise argparse.ArgumentTypeError(f"must be between 0 and 1, not {text}")
    return value
