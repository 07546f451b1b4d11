"""``arena cards``: the card set a game is played with, as a table, a template or a sheet."""

from __future__ import annotations

import json
from pathlib import Path

import click

from arena.commands.common import (
    check_out_path,
    force_option,
)
from arena.commands.user_error import UserError
from arena.engine import (
    RuleOptions,
)
from arena.engine.card_files import card_choice

# ------------------------------------------------------------------ cards


@click.command("cards")
@click.option("--cards", "cards_path", metavar="FILE", default=None,
              help="Show this card-set file instead of the printed set.")
@click.option("--template", "template_path", metavar="FILE", default=None,
              help="Write the set (every card's points) as a card-set file to edit; an "
                   "existing file is not replaced (unless --force).")
@click.option("--svg", "svg_path", metavar="OUT", default=None, callback=check_out_path,
              help="Draw every card of the set as one SVG sheet (- for standard output): "
                   "patterns as hexes, re-priced and added cards marked.")
@force_option
def cards_command(cards_path: str | None, template_path: str | None, svg_path: str | None,
                  force: bool) -> None:
    """Print the objective cards (id, category, pattern or condition, points), or draw them.

    A card-set file changes cards' points, removes cards from their decks and sets the
    Emperor's points (the rule option emperor_points); `arena play`, `arena tournament`
    and the scripts take it as --cards FILE.  It may add new cards ("add": listed and
    drawn here, played by every command: docs/balance.md).  Every field is optional:

    \b
      {"name": "plot-15 at 5", "emperor": 3,
       "points": {"plot-15": 5, "panda-01": 2}, "remove": ["gardener-13"]}

    \b
    Examples:
      arena cards
      arena cards --template my-set.json      # then edit my-set.json
      arena cards --cards my-set.json
      arena cards --cards my-set.json --svg my-set.svg   # every card drawn
      arena tournament --bot objective:prefer=panda --bot objective --cards my-set.json
    """
    from arena.engine.card_files import summary, table_rows, template

    choice = card_choice(cards_path, playable=False)
    emperor = choice.emperor if choice.emperor is not None else RuleOptions().emperor_points
    if template_path is not None:
        path = Path(template_path)
        if path.exists() and not force:
            raise UserError(f"--template {path} exists; choose another file name, or give "
                            "--force to replace it")
        from arena.runs.records import write_problem

        problem = write_problem(path)
        if problem:
            raise UserError(f"--template: {problem}")
        path.write_text(json.dumps(template(choice.cards, emperor), indent=1) + "\n")
        click.echo(f"card set written to {path}: edit it, then use --cards {path}")
        return
    if svg_path is not None:
        from arena.engine.card_files import changes, entries
        from arena.show.card_svg import sheet_svg

        label = f"card set {choice.name!r}" if choice.name else (
            "card set " + Path(cards_path).name if cards_path else "the printed set")
        sheet = sheet_svg(entries(changes(choice.cards, emperor)),
                          f"Objective cards: {label}", f"Emperor: {emperor} points.")
        if svg_path == "-":
            click.echo(sheet, nl=False)
        else:
            Path(svg_path).write_text(sheet, encoding="utf-8")
            click.echo(f"cards drawn in {svg_path}")
        return
    rows = table_rows(choice.cards)
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    head = ("id", "category", "pattern or condition", "points")
    widths = [max(w, len(h)) for w, h in zip(widths, head)]
    click.echo("  ".join(h.ljust(w) for h, w in zip(head, widths)) + "  " + head[3])
    for row in rows:
        click.echo("  ".join(c.ljust(w) for c, w in zip(row, widths)) + "  " + row[3])
    info = summary(choice.cards, emperor)
    label = f"{choice.name!r}, " if choice.name else ""
    added = choice.added_ids()
    click.echo(f"Emperor: {emperor} points.  Card set {label}hash {info['hash']}: "
               f"{len(info['points'])} cards in play, {len(info['removed'])} removed"
               + (f"; {len(added)} added: {', '.join(added)}." if added else "."))


# ------------------------------------------------------------------ replay
