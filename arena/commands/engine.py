"""The commands of the engine protocol: ``arena engine`` and ``arena engine-check``."""

from __future__ import annotations

import statistics

import click

from arena.commands.user_error import UserError
from arena.play.bot import BotConfigError
from arena.play.registry import BotSpec
from arena.protocol.spec import PREFIX, resolve, split_engine


@click.command("engine")
@click.argument("spec", metavar="SPEC")
def engine_command(spec: str) -> None:
    """Speak the engine protocol (docs/protocol.md) on stdin/stdout for a built-in bot.

    So other frameworks can play the arena's bots, and a tournament can play one through
    the protocol (the quotes keep the command one word of the spec).

    \b
    Example:
      arena engine objective
      arena tournament --bot 'engine:"arena engine objective":name=E' --bot objective
    """
    from arena.protocol.serve import ServeError, serve

    if spec.strip().startswith(PREFIX):
        raise UserError("arena engine plays a built-in bot, not another engine")
    try:
        parsed = BotSpec.parse(spec)
    except BotConfigError as exc:
        raise UserError(str(exc)) from None
    try:
        serve(parsed)
    except ServeError as exc:
        raise UserError(str(exc)) from None


@click.command("engine-check")
@click.argument("path", metavar="PATH")
def engine_check_command(path: str) -> None:
    """Play scripted positions against an engine; each protocol violation one line.

    PATH is the engine's program, or a quoted command with its arguments.  Exit status 2
    on any violation.

    \b
    Example:
      arena engine-check examples/engines/python/random_engine.py
      arena engine-check '"arena engine objective"'
    """
    from arena.protocol.check import check

    text = PREFIX + path
    try:
        _target, argv, _keys, _name = split_engine(text)
        command = resolve(argv, text)
    except BotConfigError as exc:
        raise UserError(str(exc)) from None
    report = check(command, f"engine {argv[0]!r}")
    for line in report.violations:
        click.echo(line)
    if report.violations:
        raise SystemExit(2)
    median = statistics.median(report.seconds) * 1000 if report.seconds else 0.0
    click.echo(f"{report.engine}: handshake in {report.start * 1000:.0f} ms, "
               f"{report.answered} positions answered with legal actions "
               f"(median reply {median:.1f} ms); no violation")
