"""Command-line plumbing shared by the scripts in this directory.

Why: a count of 0 or a negative time used to pass the parser and fail later, far from its
cause (``statistics.median`` of no runs, a pool of no workers); these types make it a usage
error that names the option, like the ``arena`` commands (``click.IntRange``).  ``script_parser``
puts examples under every script's ``--help``, as the ``arena`` commands have; and the
match options live here once because ``strength.py`` and ``clairvoyance.py`` must turn the
same arguments into the same games for ``paired.py`` to compare their runs.  Bot specs, rule
options and output paths are checked here too, while parsing: a script that failed on them
later either died with a traceback or, worse, after its work was done (and lost).
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from arena.engine import ArenaError, CardSet, RuleOptions
from arena.engine.card_files import DEFAULT_CHOICE, CardChoice, load
from arena.jail.sandbox import Isolation, parse_participant
from arena.play.bot import BotConfigError
from arena.play.registry import BotSpec
from arena.runs.records import write_problem
from arena.tournament.schedule import TournamentConfig, against_copies


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
    in_process: bool = False,
) -> None:
    """SPEC_A, SPEC_B and the options of a match of SPEC_A against copies of SPEC_B;
    ``in_process``: the script plays the games itself, so only the arena's own bots."""
    kind = own_bot_spec if in_process else bot_spec
    ap.add_argument("spec_a", type=kind, help=subject)
    ap.add_argument("spec_b", type=kind, help="its opponents: copies named NAME#k")
    ap.add_argument("--games", type=at_least(1), default=games,
                    help="games (rounded up to whole deals)")
    ap.add_argument("--seed", type=int, default=1, help="master seed of the deals")
    ap.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    ap.add_argument("--workers", type=at_least(1), default=2, help="worker processes")
    add_rule_option(ap)
    add_cards_option(ap)


class _Rules(argparse.Action):
    """``--rule``: the pairs so far, checked together each time one is added (a repeated
    option is refused, as ``RuleOptions.from_pairs`` refuses it)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: object, option_string: str | None = None) -> None:
        pairs = [*getattr(namespace, self.dest), str(values)]
        try:
            RuleOptions.from_pairs(pairs)
        except ArenaError as exc:
            raise argparse.ArgumentError(self, str(exc)) from None
        setattr(namespace, self.dest, pairs)


def add_rule_option(ap: argparse.ArgumentParser) -> None:
    """``--rule K=V`` (repeatable), checked as it is parsed."""
    ap.add_argument("--rule", action=_Rules, default=[], metavar="K=V",
                    help="a rule option (repeatable)")


def card_file(text: str) -> CardChoice:
    """``--cards FILE``: a card-set file read and checked while parsing
    (``arena/engine/card_files.py``)."""
    try:
        return load(text)
    except ArenaError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_cards_option(ap: argparse.ArgumentParser) -> None:
    """``--cards FILE``: the objective cards' points, removed cards, the Emperor's points."""
    ap.add_argument("--cards", type=card_file, default=None, metavar="FILE",
                    help="a card-set file (JSON: name, emperor, points, remove; see "
                         "`arena cards --template`)")


def rules_and_cards(args: argparse.Namespace) -> tuple[RuleOptions, CardSet]:
    """The rule options and card set of ``--rule`` and ``--cards``: the file's Emperor is the
    rule option emperor_points (CardFileError when both are given and disagree)."""
    choice: CardChoice = getattr(args, "cards", None) or DEFAULT_CHOICE
    rules = list(args.rule)
    given = any(pair.partition("=")[0].strip() == "emperor_points" for pair in rules)
    return choice.options(RuleOptions.from_pairs(rules), rule_given=given), choice.cards


def match_config(
    ap: argparse.ArgumentParser, args: argparse.Namespace, move_time: float | None = None
) -> TournamentConfig:
    """The match ``add_match_options`` describes; a match the specs and rules (already
    checked) cannot make is a usage error."""
    try:
        options, cards = rules_and_cards(args)
        return against_copies(
            args.spec_a, args.spec_b, args.players,
            games=args.games, seed=args.seed, options=options, move_time=move_time,
            cards=cards,
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
    """A finite float: ``float`` also reads ``inf`` and ``nan``, and a time of ``inf`` made a
    benchmark run forever."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be a finite number, not {text}")
    return value


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


def bot_spec(text: str) -> BotSpec:
    """A bot spec option of a script that plays through ``run_tournament``, read with the
    others as ``arena tournament`` reads it (``parse_participant``): a bot that is not the
    arena's own is checked in a jail, never imported here, and plays in jails.

    Parsed later, a bad spec was a ``BotConfigError`` traceback, in some scripts only after
    positions had been built or games played.
    """
    try:
        return parse_participant(text, Isolation())
    except BotConfigError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def own_bot_spec(text: str) -> BotSpec:
    """A bot spec option of a script that plays its bots in its own process (a benchmark, a
    script that reads the game behind them): one of the arena's own bots, decided before
    anything is imported (``Isolation.trusts_text``); another would run unjailed, as the
    user, so it is refused in one sentence."""
    try:
        ours = Isolation().trusts_text(text)
    except BotConfigError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    if not ours:
        raise argparse.ArgumentTypeError(
            f"{text.strip()!r} is not one of the arena's own bots, and this script plays its "
            "bots in its own process: measure it with scripts/strength.py or arena tournament, "
            "which play it in a jail")
    return bot_spec(text)


def output_file(text: str) -> Path:
    """A file the script writes when its work is done, checked now
    (``arena.runs.records.write_problem``): a path that cannot be written (a directory, a missing
    or read-only directory, ``/proc``) used to fail after the whole run, and the run was lost.
    """
    problem = write_problem(text)
    if problem:
        raise argparse.ArgumentTypeError(problem)
    return Path(text)


def output_dir(text: str) -> Path:
    """A directory the script will create (with its parents) or write in, checked now.

    Nothing is created here, so a later usage error leaves no empty directory behind: the
    nearest part of the path that exists must be a directory where a file can be made.
    """
    path = Path(text)
    try:
        base = path
        while not base.exists():  # Path("x").parent is Path("."), so this ends
            base = base.parent
        if not base.is_dir():
            raise argparse.ArgumentTypeError(f"{base} is not a directory")
        with tempfile.TemporaryFile(dir=base):
            pass
    except OSError as exc:
        raise argparse.ArgumentTypeError(f"cannot write in {base}: {exc.strerror}") from None
    return path


def usage_error(ap: argparse.ArgumentParser, message: str) -> int:
    """Report a usage error as ``ap.error`` does, but return its status (2) rather than exit:
    for a ``main`` whose callers, tests among them, take its return value."""
    ap.print_usage(sys.stderr)
    print(f"{ap.prog}: error: {message}", file=sys.stderr)
    return 2
