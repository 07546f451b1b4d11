"""What every command shares: the group class that turns bad input into one sentence,
and the options several commands take (rule options, card files, output paths)."""

from __future__ import annotations

import os
import sys
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from arena.commands.user_error import UserError
from arena.engine import (
    ArenaError,
    GameState,
    RuleOptions,
    from_position,
)
from arena.engine.card_files import CardChoice
from arena.play.bot import BotConfigError
from arena.runs.records import json_problem

USER_ERRORS: tuple[type[BaseException], ...] = (ArenaError, BotConfigError)


def _debugging(ctx: click.Context) -> bool:
    """Whether ``arena --debug`` was given (the root context holds it for every command)."""
    obj = ctx.find_root().obj
    return bool(obj and obj.get("debug"))


def usage_sentence(exc: click.UsageError) -> UserError:
    """click's own usage error (``--workers 0``, ``--seed abc``, a missing option) in the
    arena's form: one sentence naming the option, exit status 2, no usage block, so that
    every kind of bad input reads alike whichever layer caught it."""
    message = exc.format_message().strip().rstrip(".").replace(". (Did you", " (did you")
    if message[:1].isupper() and message[1:2].islower():
        message = message[0].lower() + message[1:]
    where = exc.ctx.command_path if exc.ctx is not None else "arena"
    return UserError(f"{message} (see `{where} --help`)")


class ArenaGroup(click.Group):
    """A group whose commands report bad input in one sentence, with exit status 2.

    Done here, once, for every command and subgroup: the arena's own errors
    (``USER_ERRORS``, ``UserError``) and click's usage errors alike become ``Error:
    <sentence>``; ``arena --debug`` prints the traceback of any of them first.
    """

    def make_context(self, info_name: str | None, args: list[str],
                     parent: click.Context | None = None, **extra: Any) -> click.Context:
        try:
            return super().make_context(info_name, args, parent=parent, **extra)
        except click.exceptions.NoArgsIsHelpError:
            raise
        except click.UsageError as exc:
            raise usage_sentence(exc) from None

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except USER_ERRORS as exc:
            if _debugging(ctx):
                traceback.print_exc()
            raise UserError(str(exc)) from None
        except click.exceptions.NoArgsIsHelpError:
            raise
        except click.UsageError as exc:
            if _debugging(ctx):
                traceback.print_exc()
            raise usage_sentence(exc) from None
        except click.ClickException:
            if _debugging(ctx):
                traceback.print_exc()
            raise
        except (click.exceptions.Exit, click.Abort, KeyboardInterrupt):
            raise
        except BrokenPipeError:
            # The reader went away (``arena legal ... | head``): not an error of ours.
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            sys.exit(0)
        except Exception as exc:
            if _debugging(ctx):
                raise
            click.echo(
                f"Error: internal error: {type(exc).__name__}: {exc} "
                "(run `arena --debug ...` for the traceback, and please report it)",
                err=True,
            )
            sys.exit(1)


def warning_as_note(message: Warning | str, category: type[Warning], filename: str,
                     lineno: int, file: Any = None, line: str | None = None) -> None:
    """A Python warning that reaches a command becomes the command's own one-line note: users
    read sentences, not a module's path and line (``--debug`` keeps Python's form)."""
    click.echo(f"note: {message}", err=True)


# ------------------------------------------------------------------ shared option parsing


def rule_options(pairs: Sequence[str]) -> RuleOptions:
    """``--rule K=V`` options into RuleOptions (OptionError names the bad one)."""
    return RuleOptions.from_pairs(list(pairs))


def rule_given(pairs: Sequence[str], name: str) -> bool:
    """Whether ``--rule`` set the option ``name`` (a card file must then agree with it)."""
    return any(pair.partition("=")[0].strip() == name for pair in pairs)


CARDS_HELP = ("A card-set file (JSON: name, emperor, points, remove), e.g. from "
              "`arena cards --template`.")


def read_position(path: str) -> GameState:
    """A position file (``-`` for stdin) into a state."""
    try:
        text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise UserError(f"cannot read position {path}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise UserError(f"position {path} is not text (not UTF-8)") from None
    data, problem = json_problem(text)
    if problem:
        raise UserError(f"position {path} is {problem}")
    if isinstance(data, dict) and "format" not in data and "seats" in data:
        # A record read as a position would fail on its missing format, which says nothing
        # of what the file is or which command reads it.
        raise UserError(f"{path} is a game record, not a position: `arena replay {path}` "
                        f"re-plays it (`--step N --position` writes the position at step N)")
    try:
        return from_position(data)
    except ArenaError as exc:
        # The field alone ("hands: is missing") does not say which file holds it.
        raise UserError(f"position {path}: {exc}") from exc


# ------------------------------------------------------------------ legal / apply


def force_option(command: Any) -> Any:
    """``--force``: the one way, on every command that writes a file, to replace a file that
    exists (without it the command refuses, before any work)."""
    return click.option("--force", is_flag=True, is_eager=True,
                        help="Replace the files this command writes if they exist.")(command)


def check_out_path(ctx: click.Context, param: click.Parameter,
                   value: str | None) -> str | None:
    """An output file that cannot be written, or that exists (without ``--force``), is said
    before any work: a finished game or page is never lost to a typo, nor an old file to a
    repeated command."""
    from arena.runs.records import write_problem

    if value in (None, "-"):
        return value
    if os.path.lexists(value) and not ctx.params.get("force"):
        forcible = any(param.name == "force" for param in ctx.command.params)
        raise click.BadParameter(f"{value} exists; " + ("give --force to replace it" if forcible
                                                         else "choose another file name"))
    problem = write_problem(value)
    if problem:
        raise click.BadParameter(problem)
    return value


def plural(count: int, noun: str) -> str:
    """``1 round``, ``2 rounds``."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def print_result(record: dict[str, Any]) -> None:
    """The result table of one game."""
    names = record["seats"]
    winners = set(record["winners"])
    click.echo("")
    flags = []
    if record["tiebreak"] != "none":
        flags.append({"panda": "decided by panda points", "shared": "shared victory"}[
            record["tiebreak"]])
    if record["capped"]:
        flags.append(f"capped at round {record['rounds']}")
    header = f"Game over after {plural(record['rounds'], 'round')}" + (f" ({'; '.join(flags)})"
                                                             if flags else "")
    click.echo(header)
    width = max(len(name) for name in names)
    for seat, name in enumerate(names):
        crown = " Emperor" if record["emperor"] == seat else ""
        mark = "  winner" if seat in winners else ""
        done = plural(len(record["completed"][seat]), "objective")
        click.echo(
            f"  seat {seat}  {name:<{width}} {record['scores'][seat]:>3} pts "
            f"(panda {record['panda_points'][seat]:>2}, {done}"
            f"{',' + crown if crown else ''}){mark}"
        )
    if record.get("error"):
        err = record["error"]
        click.echo(
            f"  stopped: seat {err['seat']} ({names[err['seat']]}) {err['kind']}: "
            f"{err['message']}"
        )


#: The former name of ``check_out_path`` (``--record``), kept for commands that use it.


def changed_text(choice: CardChoice, options: RuleOptions) -> str:
    """``3 cards changed, 1 removed, Emperor 3``: what a card set changes, in a few words."""
    from arena.engine.card_files import changes

    diff = changes(choice.cards, options.emperor_points)
    parts = [f"{len(diff.get('points', {}))} card(s) changed",
             f"{len(diff.get('remove', []))} removed",
             f"Emperor {options.emperor_points}"]
    return ", ".join(parts)

