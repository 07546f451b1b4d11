"""The ``arena`` command line: the group, with one command module per group under
``arena/commands/``.

Every command parses, calls one library function and prints.  Errors from bad input (a rule
option, a bot spec, an action, a position, a record) are ``ArenaError``-like exceptions that
carry one sentence; the group turns them into that sentence on stderr and exit status 2, and
``--debug`` shows the traceback instead.  Anything else is a bug and says so.
"""

from __future__ import annotations

import warnings

import click

from arena import __version__
from arena.commands import balance, bots, cards, keys, play, position, replay, report
from arena.commands.common import ArenaGroup, warning_as_note
from arena.commands.engine import engine_check_command, engine_command
from arena.commands.ladder import ladder_command
from arena.commands.tournament import tournament


@click.group(cls=ArenaGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="takenoko-arena")
@click.option("--debug", is_flag=True,
              help="Show the traceback of every error (before the command: arena --debug "
                   "play ...).")
@click.pass_context
def main(ctx: click.Context, debug: bool) -> None:
    """Bots play Takenoko against each other, by the thousands.

    \b
    Examples:
      arena play --bot greedy --bot random --seed 7 --show
      arena tournament --bot mcts --bot objective --games 200 --out runs/m1
      arena report runs/m1
      arena bots
    """
    ctx.ensure_object(dict)
    ctx.obj["debug"] = debug
    if not debug:
        warnings.showwarning = warning_as_note


for command in (position.legal, position.apply, position.show, position.rules,
                position.position, play.play, cards.cards_command, replay.replay_command,
                bots.list_bots, keys.keys_group, report.report, report.export_command,
                balance.balance, tournament, ladder_command, engine_command,
                engine_check_command):
    main.add_command(command)


if __name__ == "__main__":
    main()
