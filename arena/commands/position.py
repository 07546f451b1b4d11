"""Commands on one position: ``legal``, ``apply``, ``show``, ``position``, ``rules``."""

from __future__ import annotations

import json
import os
import random
import sys
import textwrap
from pathlib import Path

import click

from arena.commands.common import (
    CARDS_HELP,
    check_out_path,
    force_option,
    read_position,
    rule_given,
    rule_options,
)
from arena.commands.user_error import UserError
from arena.engine import (
    action_text,
    new_game,
    parse_action,
    to_position,
)
from arena.engine.card_files import card_choice


@click.command()
@click.argument("position", metavar="POSITION")
def legal(position: str) -> None:
    """Print the legal actions of a position, one per line, sorted.

    POSITION is a position file (docs/notation.md; `arena position --new` writes one), or -
    for standard input.

    \b
    Example:
      arena legal position.json
    """
    state = read_position(position)
    if state.ended:
        click.echo("the game is over: no legal actions", err=True)
        return
    for text in sorted(action_text(a, state.card_set) for a in state.legal_actions()):
        click.echo(text)


@click.command()
@click.argument("position", metavar="POSITION")
@click.argument("actions", nargs=-1, required=True, metavar="ACTION...")
def apply(position: str, actions: tuple[str, ...]) -> None:
    """Apply actions in order and print the resulting position JSON.

    Each ACTION is one argument in notation (quote it): an illegal one is an error that
    names it and the step.

    \b
    Example:
      arena apply position.json "gardener 1,0" "objective panda" > next.json
    """
    state = read_position(position)
    for i, text in enumerate(actions, 1):
        action = parse_action(text, state.card_set)
        if state.ended:
            raise UserError(f"action {i} {text!r}: the game is over")
        if action not in state.legal_actions():
            raise UserError(
                f"action {i} {text!r} is not legal for seat {state.current} at step "
                f"{state.step_name} (round {state.round}); `arena legal` lists the legal ones"
            )
        state.apply(action)
    click.echo(json.dumps(to_position(state), indent=1))


# ------------------------------------------------------------------ show


@click.command()
@click.argument("position", metavar="POSITION")
@click.option("--svg", "svg_path", metavar="FILE", default=None, callback=check_out_path,
              help="Write the picture as SVG (- for standard output).")
@click.option("--png", "png_path", metavar="FILE", default=None, callback=check_out_path,
              help="Write the picture as PNG (through a headless Chromium, or cairosvg).")
@click.option("--seat", type=click.IntRange(0, 3), default=None,
              help="Draw what this seat may see (the others' hands by category only).")
@click.option("--color/--no-color", default=None, help="Colours (default: on a terminal).")
@force_option
def show(position: str, svg_path: str | None, png_path: str | None, seat: int | None,
         color: bool | None, force: bool) -> None:
    """Draw a position: the garden, irrigation, improvements, bamboo, figures, whose turn,
    scores, each seat's stock and hand.

    Without --svg or --png the board is printed as text.  POSITION is a position file
    (`arena position --new`, `arena replay --position`, `arena apply` write one), or -.

    \b
    Examples:
      arena show start.json --svg start.svg
      arena show at40.json --png at40.png --seat 1
    """
    from arena.engine import PlayerView
    from arena.show.board_text import render_state, render_view
    from arena.show.svg import board_svg

    if svg_path and png_path:
        raise UserError("give --svg or --png, not both")
    state = read_position(position)
    if seat is not None and seat >= state.players:
        raise UserError(f"--seat {seat} is not a seat of this {state.players}-player game")
    board = state if seat is None else PlayerView.of(state, seat)
    if not (svg_path or png_path):
        color = sys.stdout.isatty() and not os.environ.get("NO_COLOR") if color is None else color
        click.echo(render_state(state, color=color) if seat is None else
                   render_view(board, color=color))
        return
    title = None if seat is None else f"as seat {seat} sees it"
    picture = board_svg(board, title=title)
    if svg_path == "-":
        click.echo(picture, nl=False)
    elif svg_path:
        Path(svg_path).write_text(picture, encoding="utf-8")
        click.echo(f"board written to {svg_path}")
    else:
        from arena.show.browser import svg_to_png

        used = svg_to_png(picture, Path(png_path))  # type: ignore[arg-type]
        click.echo(f"board written to {png_path} (drawn by {used})")


# ------------------------------------------------------------------ rules / position


@click.command()
def rules() -> None:
    """List the rule options (docs/rules.md, R12): name, default, values, rules, what each changes.

    Set one with --rule NAME=VALUE on play, tournament or position; a default is the
    official rule.

    \b
    Example:
      arena rules
      arena play --bot greedy --bot random --rule cloud_keep=false --rule objectives_to_end=7
    """
    from arena.engine.options import OPTIONS

    width = max(len(spec.name) for spec in OPTIONS)
    indent = " " * (width + 2)
    for spec in OPTIONS:
        rules = (f"; rule{'s' * (len(spec.rules) > 1)} {', '.join(spec.rules)}"
                 if spec.rules else "")
        click.echo(f"{spec.name:<{width}}  default {spec.text(spec.default)}; "
                   f"values: {spec.values_text()}{rules}")
        click.echo(textwrap.fill(spec.help, 90, initial_indent=indent, subsequent_indent=indent))


@click.command()
@click.option("--new", "new", is_flag=True, required=True,
              help="The starting position of a new game (the only kind for now).")
@click.option("--players", type=click.IntRange(2, 4), required=True, help="2 to 4 players.")
@click.option("--seed", type=int, default=None, help="Game seed (default: random).")
@click.option("--rule", "rules", multiple=True, metavar="K=V", help="A rule option (R12).")
@click.option("--cards", "cards_path", metavar="FILE", default=None, help=CARDS_HELP)
def position(new: bool, players: int, seed: int | None, rules: tuple[str, ...],
             cards_path: str | None) -> None:
    """Print the starting position of a game as position JSON (the format `legal` reads).

    The position holds everything, decks and hands included: it is the whole truth of the
    game, for `arena legal` and `arena apply`.

    \b
    Example:
      arena position --new --players 2 --seed 7 > start.json
      arena legal start.json
      arena position --new --players 3 --seed 7 --cards my-set.json > start3.json
    """
    choice = card_choice(cards_path, players)
    options = choice.options(rule_options(rules), rule_given=rule_given(rules, "emperor_points"))
    seed = seed if seed is not None else random.SystemRandom().randrange(2**31)
    state = new_game(players, seed, options, cards=choice.cards)
    click.echo(json.dumps(to_position(state), indent=1))


# ------------------------------------------------------------------ play
