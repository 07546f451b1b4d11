"""``arena bots``: the bots, their parameters and defaults (``arena bots tune`` tunes them)."""

from __future__ import annotations

import click

from arena.commands.bot_tune import tune_command as bot_tune_command
from arena.commands.common import (
    ArenaGroup,
)
from arena.play.registry import describe_all


@click.group("bots", cls=ArenaGroup, invoke_without_command=True)
@click.pass_context
def list_bots(ctx: click.Context) -> None:
    """List the bots, with their parameters and defaults (`arena bots tune`: tune them).

    Bots come from the entry-point group takenoko_arena.bots (this package's and any
    installed package's); any bot class can also be named by a dotted path.

    \b
    Example:
      arena bots
      arena play --bot mcts:iterations=2000,c=0.7 --bot mypkg.bots.Cautious
    """
    if ctx.invoked_subcommand is not None:
        return
    from arena.jail.sandbox import Isolation, parse_participant
    from arena.play.faults import printable

    isolation = Isolation()
    for name, spec, text in describe_all(lambda name: parse_participant(name, isolation)):
        name = printable(name)  # a plugin's metadata names it
        if spec is None:
            click.echo(f"{name:<10} (cannot load: {text})")
            continue
        click.echo(f"{name:<10} {text}")
        for p in spec.declared():
            setting = f"{p.name}={str(p.default).lower() if p.type is bool else p.default}"
            kind = f"{p.type_name()} {p.range_text()}".rstrip()
            click.echo(f"    {setting:<24} {kind:<26} {p.help}")


# ------------------------------------------------------------------ keys


list_bots.add_command(bot_tune_command)
