"""``arena balance study`` and ``arena balance tune``: click commands over ``study.py`` and
``tune.py`` (``arena balance suggest`` is in ``arena/cli.py``, beside the report).

Like every command they parse, call and print: a bad option is one sentence and exit status
2, Ctrl-C keeps every finished game and says how to resume.
"""

from __future__ import annotations

import logging
import math
import sys
from pathlib import Path
from typing import Any

import click

from arena.balance.study import deals_for, run_study, study_config
from arena.commands.executor_options import (
    executor_flags,
    executor_options,
    executor_settings,
    executor_text,
    shared_cluster,
)
from arena.commands.tournament import Interrupted
from arena.commands.user_error import UserError
from arena.engine import CATEGORIES, ArenaError, RuleOptions
from arena.engine.card_files import card_choice
from arena.play.bot import BotConfigError
from arena.play.seeds import draw_seed
from arena.runs.integrity import IntegrityError, read_keys
from arena.runs.store import StoreError, read_manifest
from arena.tournament.experiment import games_per_deal
from arena.tournament.runner import config_from_manifest
from arena.tournament.schedule import ScheduleError

STUDY_EPILOG = """\b
Examples:
  arena balance study --bot greedy --games 2700 --out runs/study
  arena balance study --bot greedy --bot objective --deals 40 --workers 2 --out runs/levels
  arena balance study --bot greedy --deals 60 --category panda --price-cards panda-07 \\
      --cards planted.json --out runs/panda
  arena balance study --resume runs/study
  arena balance study --bot greedy --deals 500 --scheduler tcp://10.0.0.5:8786 --out runs/big
"""


def _offsets(text: str) -> tuple[int, ...]:
    try:
        values = tuple(int(v) for v in text.split(","))
    except ValueError:
        raise UserError(f"--offsets {text!r}: give whole numbers separated by commas, "
                        "e.g. -3,3") from None
    return values


def table_text(table: Any, limit: int = 12) -> str:
    """The card table's essential columns for the console, strongest evidence first."""
    from reports.render import display

    if table is None or len(table) == 0:
        return "(no complete deal yet)"
    cols = ["card", "points", "effect", "effect_lo", "effect_hi", "effect_games_needed",
            "fair_points", "fair_points_lo", "fair_points_hi", "fair_points_games_needed",
            "flag"]
    shown = display(table[cols].head(limit))
    widths = [max(len(str(c)), *(len(str(v)) for v in shown[c])) for c in shown.columns]
    lines = ["  ".join(f"{c:<{w}}" for c, w in zip(shown.columns, widths, strict=True))]
    for row in shown.itertuples(index=False):
        lines.append("  ".join(f"{v!s:<{w}}" for v, w in zip(row, widths, strict=True)))
    if len(table) > limit:
        lines.append(f"... {len(table) - limit} more cards in the report")
    return "\n".join(lines)


@click.command("study", epilog=STUDY_EPILOG)
@click.option("--bot", "bots", multiple=True, metavar="SPEC",
              help="A skill level (repeat): the bot in the subject seat, against copies of "
                   "itself (or --opponent).")
@click.option("--opponent", metavar="SPEC", default=None,
              help="The bot in the other seats at every level (default: the level's own).")
@click.option("--players", type=click.IntRange(2, 4), default=2, show_default=True,
              help="Seats per game.")
@click.option("--games", type=click.IntRange(min=1), default=None,
              help="Games per skill level, rounded down to whole deals (every arm of a deal).")
@click.option("--deals", type=click.IntRange(min=1), default=None,
              help="Deals per category and level (instead of --games).")
@click.option("--seed", type=int, default=None,
              help="Master seed: the deals; the same seed gives the same deals [default: "
                   "random, printed and recorded in the manifest, as on every command].")
@click.option("--cards", "cards_path", metavar="FILE", default=None,
              help="The card set studied (see `arena cards`); default the printed one.")
@click.option("--rule", "rules", multiple=True, metavar="K=V", help="A rule option (repeat).")
@click.option("--category", "categories", multiple=True, type=click.Choice(CATEGORIES),
              help="Study only this category (repeat); default all three.")
@click.option("--price-cards", metavar="IDS", default=None,
              help="Measure fair points only for these cards (comma-separated ids); default "
                   "every card studied. Effects and flags are measured for every card.")
@click.option("--offsets", default="-3,3", show_default=True, metavar="LIST",
              help="The fair-points arms: the card at its points plus each offset.")
@click.option("--depth", type=click.IntRange(min=0), default=None,
              help="Put the card at this depth of its deck (0: the next drawn) instead of "
                   "in the subject's hand; the outcome is then the drawer's.")
@executor_options
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Directory of the study [default: runs/study-<seed>].")
@click.option("--resume", is_flag=False, flag_value="", default=None, metavar="[DIR]",
              help="Play the games missing from DIR (or from --out); its manifest says the "
                   "rest (as `arena tournament --resume`).")
@click.option("--no-report", is_flag=True, help="Only play the games.")
@click.option("--quiet", is_flag=True, help="No progress output.")
def study_command(**params: Any) -> None:
    """Measure what each objective card is worth by intervention on the deal.

    Every deal is played once per card of a category, a subject seat holding that card in
    place of the one it was dealt, everything else equal (the seed's die, plots, other
    cards and the bots' random streams).  Per card: the win-rate effect of holding it
    against the category's average card, paired by deal, with an interval; the
    Benjamini-Hochberg flag across cards; its fair points, from the same deals re-played
    with the card at other prices (--offsets); its points per action against its category.
    Each --bot is a skill level, played on the same deals.  The report goes to DIR/report.
    """
    logging.getLogger("reports").addHandler(logging.NullHandler())
    try:
        _study(params)
    except (ScheduleError, StoreError, ArenaError, BotConfigError) as exc:
        raise UserError(str(exc)) from None


def _resume_folder(resume: str | None, out: Path | None) -> Path | None:
    """``--resume DIR``, or ``--resume`` with ``--out DIR``: the same meaning as in ``arena
    tournament``, so that one habit works on every long command."""
    if resume is None:
        return None
    if resume == "":
        if out is None:
            raise UserError("--resume needs a directory: --resume DIR, or --out DIR")
        return out
    if out is not None and Path(resume).resolve() != out.resolve():
        raise UserError(f"--resume {resume} and --out {out} name different directories")
    return Path(resume)


def _study(params: dict[str, Any]) -> None:
    # The executor first: a scheduler that cannot be used is refused before any folder.
    settings = executor_settings(params["workers"], params["executor"], params["scheduler"],
                                 progress="none" if params["quiet"] else "auto")
    resume: Path | None = _resume_folder(params["resume"], params["out"])
    if resume is not None:
        # A study with a jailed level has keyed deals: the key of a run not yet finished is
        # its run.key (without it, such a study could not be resumed at all).
        try:
            keys = read_keys(resume)
        except IntegrityError as exc:
            raise UserError(str(exc)) from None
        config = config_from_manifest(read_manifest(resume), settings.isolation, keys)
        directory = resume
    else:
        if not params["bots"]:
            raise UserError("a study needs at least one --bot (a skill level)")
        if params["games"] is not None and params["deals"] is not None:
            raise UserError("give --games or --deals, not both")
        choice = card_choice(params["cards_path"], params["players"])
        options = choice.options(RuleOptions.from_pairs(list(params["rules"])))
        priced = (None if params["price_cards"] is None else
                  tuple(c.strip() for c in params["price_cards"].split(",") if c.strip()))
        if params["seed"] is None:
            params["seed"] = draw_seed()
        common = {"players": params["players"], "seed": params["seed"], "cards": choice.cards,
                  "options": options, "categories": params["categories"] or CATEGORIES,
                  "priced": priced, "offsets": _offsets(params["offsets"]),
                  "depth": params["depth"], "opponent": params["opponent"]}
        config = study_config(params["bots"], deals=1, **common)
        if params["deals"] is not None:
            deals = params["deals"]
        elif params["games"] is not None:
            deals = deals_for(params["games"], config)
        else:
            deals = 10
        config = study_config(params["bots"], deals=deals, **common)
        directory = params["out"] or Path("runs") / f"study-{params['seed']}"
    design = config.experiment
    assert design is not None
    per_level = games_per_deal(config, design) // len(design.levels) * design.deals
    if not params["quiet"]:
        click.echo(f"Study: {', '.join(config.names[i[0]] for i in design.levels)}; "
                   f"{design.deals} deals x {', '.join(CATEGORIES[k] for k in design.categories)}"
                   f": {per_level} games per level; {config.players} players, seed "
                   f"{config.seed}; {executor_text(settings)}; "
                   f"files in {directory}", err=True)
    result = run_study(config, directory, resume=resume is not None, settings=settings)
    if result.played:
        rate = result.played / result.elapsed if result.elapsed > 0 else math.nan
        click.echo(f"{result.played} games played in {result.elapsed:.1f} s ({rate:.1f} "
                   f"games/s); {result.done} of {result.total} in {directory}.")
    if result.interrupted:
        raise Interrupted(f"Interrupted: the {result.done} finished games (of {result.total}) "
                          f"are kept.\nResume with: arena balance study --resume {directory}"
                          f"{executor_flags(settings)}")
    if params["no_report"]:
        return
    summarize(directory)


def summarize(directory: Path) -> None:
    """Analyse the study, print each level's strongest cards, write the report."""
    import reports
    from reports import experiment

    try:
        # The games read once, for this summary and the report alike; analysed once too.
        tables = experiment.load_tables(directory)
        exp = tables.experiment
        if exp is None:
            raise UserError(f"{directory} is not a card study")
        analysis = experiment.analysed(exp)
    except reports.ReportError as exc:
        raise UserError(str(exc)) from None
    for name, table in zip(exp.levels, analysis["levels"], strict=True):
        # The cards the designer named (--price-cards, added cards) come first: they are
        # the question the study was run to answer.
        mine = experiment.designer_lines(exp, table)
        if mine:
            click.echo(f"\n{name}: your cards (fair points, verdict, what would settle it):")
            for line in mine:
                click.echo(f"  {line}")
        click.echo(f"\n{name}: the cards with the strongest evidence (effect: win share "
                   "against the category's average card, 95% CI):")
        click.echo(table_text(table))
    click.echo("computing the report ...", err=True)
    try:
        folder = reports.write_report([tables])
    except reports.ReportError as exc:
        raise UserError(str(exc)) from None
    # The report links its games to watch to replay pages: drawn here, as `arena report`
    # draws them, or every link of a study's report would be dead.
    from arena.show.viewer import write_replays

    _count, problems = write_replays(directory, folder)
    for problem in problems:
        click.echo(f"warning: {problem}", err=True)
    click.echo(f"report written to {folder}")


TUNE_EPILOG = """\b
Examples:
  arena balance tune runs/study --rounds 3 --out runs/tuned
  arena balance tune runs/study --executor dask --workers 2 --out runs/tuned
  arena tournament --bot greedy --bot objective --cards runs/tuned/final.json --out runs/t
"""


@click.command("tune", epilog=TUNE_EPILOG)
@click.argument("directory", metavar="DIR",
                type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--rounds", type=click.IntRange(min=1), default=3, show_default=True,
              help="At most this many rounds after the study given.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Where the rounds go [default: DIR-tuned].")
@click.option("--level", default=None, metavar="NAME",
              help="The skill level whose fair points set the points (default: the first).")
@executor_options
@click.option("--quiet", is_flag=True, help="No progress output.")
def tune_command(directory: Path, rounds: int, out: Path | None, level: str | None,
                 workers: int | None, executor: str, scheduler: str | None,
                 quiet: bool) -> None:
    """Repeat study -> suggest until the measured spread stops shrinking.

    DIR is a study (`arena balance study`): round 0.  Each round moves the cards
    found mispriced (the study's flag, or their fair points against their points;
    Benjamini-Hochberg across the cards) to their fair points pooled over the rounds
    so far, then plays the same study (same deals, levels and arms) with that set.
    Only cards with price arms (--price-cards of the study, or a copy's) move, no
    further than their price line says; a dead card (its value does not respond to
    its price) is never re-priced but printed as dead.  The loop stops when no card
    moves, when the spread (fair points - points across the cards it may move,
    corrected for noise) is no smaller than the round before, or after --rounds.
    Writes round-R.json (each round's set), round-R-cards.csv (its suggestion),
    round-R/ (its study), rounds.csv, spread.png and final.json (the set with the
    smallest spread), and prints the final set's paired change of spread against
    round 0.
    """
    from arena.balance.tune import TuneInterrupted, tune
    from reports import ReportError, experiment

    logging.getLogger("reports").addHandler(logging.NullHandler())
    target = out or directory.with_name(directory.name + "-tuned")
    settings = executor_settings(workers, executor, scheduler,
                                 progress="none" if quiet else "auto")
    try:
        exp = experiment.load(directory)
        if level is not None and level not in exp.levels:
            raise UserError(f"--level {level!r} is not a level of the study "
                            f"({', '.join(exp.levels)})")
        index = exp.levels.index(level) if level is not None else 0
        # One local cluster for every round, when --executor dask names no scheduler.
        with shared_cluster(settings) as playing:
            frame = tune(directory, target, rounds, index, playing, say=click.echo)
    except TuneInterrupted as stop:
        click.echo(str(stop), err=True)
        sys.exit(130)
    except ReportError as exc:
        raise UserError(str(exc)) from None
    except (ScheduleError, StoreError, ArenaError, BotConfigError) as exc:
        raise UserError(str(exc)) from None
    final = frame[frame["final"]].iloc[0]
    click.echo(f"final set: round {int(final['round'])} ({target / 'final.json'})")
    if int(final["round"]) > 0 and math.isfinite(final.get("change", math.nan)):
        click.echo(f"paired change of the spread against round 0, on the same deals: "
                   f"{final['change']:+.2f} points [{final['change_lo']:+.2f}, "
                   f"{final['change_hi']:+.2f}]")
    click.echo(f"rounds in {target / 'rounds.csv'}, chart {target / 'spread.png'}")


DESIGN_EPILOG = """\b
Examples:
  arena balance design goals.json --games 40000 --workers 2 --out runs/design
  arena balance design --resume runs/design
  arena tournament --bot greedy --bot objective --cards runs/design/best-cards.json
"""


@click.command("design", epilog=DESIGN_EPILOG)
@click.argument("goals_file", metavar="[GOALS]", required=False,
                type=click.Path(dir_okay=False, path_type=Path))
@click.option("--games", "budget", type=click.IntRange(min=1), default=50_000,
              show_default=True,
              help="The budget, confirmation included: never passed (a trial's games are "
                   "known before it is played: each match's rounded up to whole seat "
                   "rotations, a study's to whole deals); one too small for a trial and its "
                   "confirmation is refused with the least that would do.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="The run's folder [default: runs/design-<goals file's name>].")
@click.option("--resume", is_flag=False, flag_value="", default=None, metavar="[DIR]",
              help="Go on with the design run in DIR (or in --out); GOALS, when given, must "
                   "be the run's.")
@executor_options
@click.option("--quiet", is_flag=True, help="No progress output.")
def design_command(goals_file: Path | None, budget: int, out: Path | None,
                   resume: str | None, workers: int | None, executor: str,
                   scheduler: str | None, quiet: bool) -> None:
    """Search card points, decks, the Emperor and rule options to meet goals.

    GOALS is a JSON file (docs/balance.md, "Design goals"): bands on figures the
    arena measures (the first seat's win rate, a bot's win rate against another,
    the card study's spread of fair - printed points, the game length in rounds,
    the Emperor's fair value or its gap to its points) and a space of what may
    change.  Each candidate plays the same deals; card
    prices follow the card study's price lines, the rest is optuna's TPE.  The run
    stops when every goal is met, when the budget would be passed, or when the
    space is spent; the best candidate is then measured again on fresh deals.
    Writes best.json, best-cards.json, candidates.csv and design.html in --out.
    """
    from arena.balance.design import DesignInterrupted, design, saved_goals
    from arena.balance.goals import GoalsError, load

    logging.getLogger("reports").addHandler(logging.NullHandler())
    folder = _resume_folder(resume, out)
    settings = executor_settings(workers, executor, scheduler,
                                 progress="none" if quiet else "auto")
    try:
        if goals_file is None and folder is None:
            raise UserError("give a goals file (arena balance design GOALS), or --resume DIR")
        goals = load(goals_file) if goals_file is not None else saved_goals(folder)
        target = folder or out or Path("runs") / f"design-{goals_file.stem}"  # type: ignore[union-attr]
        with shared_cluster(settings) as playing:
            data = design(goals, target, budget, playing, resume=folder is not None,
                          say=(lambda _text: None) if quiet else click.echo)
    except DesignInterrupted as stop:
        click.echo(str(stop), err=True)
        sys.exit(130)
    except (GoalsError, ScheduleError, StoreError, ArenaError, BotConfigError) as exc:
        raise UserError(str(exc)) from None
    for goal in data["goals"]:
        click.echo(f"{goal['goal']}: {goal['text']}")
    click.echo(f"best set: {target / data.get('cards_file', 'best-cards.json')}"
               + (f" with {' '.join(data['rule_flags'])}" if data.get("rule_flags") else "")
               + f"; page {target / 'design.html'}")
