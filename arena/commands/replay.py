"""``arena replay``: a record re-played and checked move by move, or shown at a step."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import click

from arena.commands.common import (
    check_out_path,
    force_option,
    plural,
    print_result,
)
from arena.commands.user_error import UserError
from arena.engine import (
    to_position,
)
from arena.engine.position import FORMAT as POSITION_FORMAT


@click.command()
@click.argument("file", type=click.Path(exists=True))
@click.option("--game", "game_id", default=None,
              help="Game id, for a games.jsonl file or a tournament folder.")
@click.option("--step", type=click.IntRange(min=0), default=None,
              help="Stop after this many choices and show the board there.")
@click.option("--show", is_flag=True, help="Draw the board (at --step, or at the end).")
@click.option("--position", "as_position", is_flag=True,
              help="Print the position JSON there instead (for `arena legal` / `apply`).")
@click.option("--color/--no-color", default=None, help="Colours (default: on a terminal).")
@click.option("--html", "html_path", metavar="OUT", default=None, callback=check_out_path,
              help="Write a self-contained page that steps through the game (a drawn board, "
                   "the events, hands and scores).")
@force_option
def replay_command(file: str, game_id: str | None, step: int | None, show: bool, as_position: bool,
                   color: bool | None, html_path: str | None, force: bool) -> None:
    """Re-play a recorded game: check every move and the result, show any step.

    FILE is a record written by `arena play --record`, a tournament's games.jsonl or its
    folder (then name the game with --game).

    \b
    Examples:
      arena replay game.json
      arena replay runs/m1/games.jsonl --game 000-0003-1 --step 40 --show
      arena replay game.json --step 40 --position > at40.json
      arena replay runs/m1 --game 000-0003-1 --html game.html
    """
    import warnings

    from arena.show import replay as replaying
    from arena.show.board_text import render_state

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        record = replaying.find_record(file, game_id)
    if str(record.get("format", "")).startswith(POSITION_FORMAT.split("/")[0]):
        raise UserError(f"{file} is a position, not a game record: `arena show {file}` draws "
                        f"it, `arena legal {file}` lists its legal actions")
    for warning in caught:
        click.echo(f"warning: {warning.message}", err=True)
    if html_path is not None:
        from arena.show.viewer import write_page

        write_page(record, Path(html_path))
        click.echo(f"replay of game {record.get('game')} written to {html_path}")
        return
    result = replaying.replay_record(record, until=step)
    color = sys.stdout.isatty() and not os.environ.get("NO_COLOR") if color is None else color
    names = list(record.get("seats", []))
    if step is not None and result.moves < step and not result.problems:
        click.echo(f"note: the game has only {result.moves} choices; this is its end, "
                   f"not step {step}", err=True)
    if as_position:
        if result.problems:
            for problem in result.problems:
                click.echo(f"  {problem}", err=True)
            raise UserError(f"game {record.get('game')}: the replay does not match the record")
        click.echo(json.dumps(to_position(result.state), indent=1))
        return
    if show or step is not None:
        click.echo(render_state(result.state, names, color=color))
    if step is not None:
        click.echo(f"after {plural(result.moves, 'choice')} (round {result.state.round})")
        if result.problems:
            for problem in result.problems:
                click.echo(f"  {problem}", err=True)
            sys.exit(1)
        return
    if result.problems:
        click.echo(f"game {record.get('game')}: the replay does not match the record:", err=True)
        for problem in result.problems:
            click.echo(f"  {problem}", err=True)
        sys.exit(1)
    click.echo(
        f"game {record.get('game')}: {plural(result.moves, 'choice')} re-played, every move legal, "
        "history and result match"
    )
    print_result(record)


# ------------------------------------------------------------------ bots
