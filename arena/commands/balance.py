"""``arena balance``: the group, and ``suggest`` (study, tune and design live in
``arena.commands.balance_lab``)."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import click

from arena.commands.balance_lab import design_command, study_command, tune_command
from arena.commands.common import (
    ArenaGroup,
    force_option,
)
from arena.commands.user_error import UserError


@click.group(cls=ArenaGroup)
def balance() -> None:
    """Card balance: experiments on the deal (study), suggested points, the tuning loop."""


@balance.command("suggest")
@click.argument("directory", type=click.Path(exists=True, file_okay=False), metavar="DIR")
@click.option("--out", "out", type=click.Path(dir_okay=False), default=None,
              help="Write the suggested set as a --cards file here (default: only print it).")
@click.option("--method", type=click.Choice(["fair-value", "efficiency"]), default="fair-value",
              show_default=True,
              help="fair-value: a study's cards move to their fair points (a tournament's "
                   "towards their observed fair values, as far as the evidence goes); "
                   "efficiency: a study's cards beyond ±20% of their category's points per "
                   "action move to parity (a tournament's categories are scaled to the deck's "
                   "points per turn held).")
@click.option("--level", default=None, metavar="NAME",
              help="For a study with several skill levels: the level to suggest for "
                   "(default: the first).")
@click.option("--name", default=None, help="The card set's name in the file.")
@force_option
def balance_suggest(directory: str, out: str | None, method: str, level: str | None,
                    name: str | None, force: bool) -> None:
    """Propose integer points per card, as a --cards file.

    From a study (`arena balance study`): each card whose fair-points interval leaves its
    points out moves to its fair points, rounded; one without measured fair points is not
    moved, and a dead card (its value does not respond to its price) is never re-priced but
    printed as dead.  From a tournament: the observational
    fair values of `arena report` (a description, not a measure of value).  Prints each card
    whose points change (old, new, why).  Then re-play with the suggestion, paired.

    \b
    Examples:
      arena balance suggest runs/study --out suggested.json
      arena balance study --bot greedy --deals 40 --cards suggested.json --out runs/study2
      arena balance suggest runs/base --out suggested.json   # a tournament: observational
    """
    import json

    import reports
    from reports import experiment
    from reports.balance import suggest_card_set

    logging.getLogger("reports").addHandler(logging.NullHandler())
    target = Path(out) if out else None
    if target is not None:
        problem = None
        if target.exists() and not target.is_file():
            problem = "is not a file"
        elif target.exists() and not force:
            problem = "exists; give --force to replace it"
        elif not target.parent.is_dir():
            problem = "is in a folder that does not exist"
        elif not os.access(target.parent, os.W_OK):
            problem = "cannot be written"
        if problem:
            raise UserError(f"--out {target} {problem}.")
    try:
        click.echo(f"reading {directory} ...", err=True)
        manifest = reports.loader.read_manifest(Path(directory))
        if experiment.is_experiment(manifest):
            from arena.balance.tune import card_file, suggest

            exp = experiment.load(Path(directory))
            if level is not None and level not in exp.levels:
                raise UserError(f"--level {level!r} is not a level of the study "
                                f"({', '.join(exp.levels)})")
            index = exp.levels.index(level) if level is not None else 0
            click.echo(f"measuring fair points ({exp.levels[index]}) ...", err=True)
            table = suggest(exp, index, method=method)
            card_set = card_file(exp, table, name or f"suggested from {exp.label} (study, "
                                                     f"{exp.levels[index]}, {method})")
        else:
            if level is not None:
                raise UserError("--level is for a study; this is a tournament")
            tables = reports.load(Path(directory))
            for warning in tables.warnings:
                click.echo(f"warning: {warning}", err=True)
            click.echo("estimating fair values ...", err=True)
            table, card_set = suggest_card_set(tables, method, name=name)
    except reports.ReportError as exc:
        raise UserError(str(exc)) from None
    changed = table[table["change"] != 0]
    if changed.empty:
        click.echo("No card's points change: the games give no evidence of an imbalance "
                   "large enough to move a card by a whole point.")
    else:
        width = max(len(c) for c in changed["card"])
        click.echo(f"{'card':<{width}}  points  suggested  why")
        for _, r in changed.iterrows():
            click.echo(f"{r['card']:<{width}}  {r['points']:>6g}  {r['suggested']:>9d}  "
                       f"{r['why']}")
    if "dead" in table:  # never re-priced, but said: what it asks must change
        for _, r in table[table["dead"]].iterrows():
            click.echo(f"{r['card']}: {r['why']}")
    if target is not None:
        target.write_text(json.dumps(card_set, indent=2) + "\n", encoding="utf-8")
        click.echo(f"card set written to {target}")


balance.add_command(study_command)
balance.add_command(tune_command)
balance.add_command(design_command)
