"""The ``arena`` command line: thin click commands over the library.

Every command parses, calls one library function and prints.  Errors from bad input (a rule
option, a bot spec, an action, a position, a record) are ``ArenaError``-like exceptions that
carry one sentence; the group turns them into that sentence on stderr and exit status 2, and
``--debug`` shows the traceback instead.  Anything else is a bug and says so.
"""

from __future__ import annotations

import json
import logging
import os
import random
import sys
import textwrap
import traceback
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from . import __version__
from .balance.command import design_command, study_command, tune_command
from .bot import BotConfigError
from .bot_tune.command import tune_command as bot_tune_command
from .cards import CardChoice, card_choice
from .engine import (
    ArenaError,
    Event,
    GameState,
    RuleOptions,
    action_text,
    from_position,
    new_game,
    parse_action,
    to_position,
)
from .engine.position import FORMAT as POSITION_FORMAT
from .ladder.command import ladder_command
from .protocol.command import engine_check_command, engine_command
from .records import json_problem
from .registry import BotSpec, describe_all, end_engines, make_bot
from .tournament.command import tournament
from .user_error import UserError

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
        warnings.showwarning = _warning_as_note


def _warning_as_note(message: Warning | str, category: type[Warning], filename: str,
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


@main.command()
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


@main.command()
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
    from .records import write_problem

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


@main.command()
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
    from .board_text import render_state, render_view
    from .engine import PlayerView
    from .svg import board_svg

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
        from .browser import svg_to_png

        used = svg_to_png(picture, Path(png_path))  # type: ignore[arg-type]
        click.echo(f"board written to {png_path} (drawn by {used})")


# ------------------------------------------------------------------ rules / position


@main.command()
def rules() -> None:
    """List the rule options (docs/rules.md, R12): name, default, values, rules, what each changes.

    Set one with --rule NAME=VALUE on play, tournament or position; a default is the
    official rule.

    \b
    Example:
      arena rules
      arena play --bot greedy --bot random --rule cloud_keep=false --rule objectives_to_end=7
    """
    from .engine.options import OPTIONS

    width = max(len(spec.name) for spec in OPTIONS)
    indent = " " * (width + 2)
    for spec in OPTIONS:
        rules = (f"; rule{'s' * (len(spec.rules) > 1)} {', '.join(spec.rules)}"
                 if spec.rules else "")
        click.echo(f"{spec.name:<{width}}  default {spec.text(spec.default)}; "
                   f"values: {spec.values_text()}{rules}")
        click.echo(textwrap.fill(spec.help, 90, initial_indent=indent, subsequent_indent=indent))


@main.command()
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


def _print_event(event: Event, names: list[str]) -> None:
    if event.kind != "move":
        click.echo(click.style(f"      {event.text[2:]}", dim=True))
        return
    assert event.seat is not None
    width = max(len(name) for name in names)
    action = action_text(event.action, event.card_set)  # type: ignore[arg-type]
    click.echo(f"r{event.round:<2} {event.seat} {names[event.seat]:<{width}} {action}")


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
check_record_path = check_out_path


def check_move_time(ctx: click.Context, param: click.Parameter,
                    value: float | None) -> float | None:
    """Refuse a NaN, infinite or absurd limit before the game: in it, the thinking bot
    would be blamed."""
    from .limits import move_time_problem

    problem = move_time_problem(value)
    if problem:
        raise click.BadParameter(problem)
    return value


@main.command()
@click.option("--bot", "bots", multiple=True, required=True, metavar="SPEC",
              help="A bot spec, once per seat in seat order (2 to 4).")
@click.option("--seed", type=int, default=None, help="Game seed (default: random).")
@click.option("--rule", "rules", multiple=True, metavar="K=V", help="A rule option (R12).")
@click.option("--cards", "cards_path", metavar="FILE", default=None, help=CARDS_HELP)
@click.option("--show", is_flag=True, help="Draw the board after every turn.")
@click.option("--record", "record_path", type=click.Path(dir_okay=False, writable=True),
              callback=check_out_path, help="Write the game record (JSON) to this file.")
@click.option("--move-time", type=float, default=None, callback=check_move_time,
              metavar="SEC", help="Hard limit in seconds per decision.")
@click.option("--quiet", "-q", is_flag=True, help="Print only the result.")
@click.option("--color/--no-color", default=None, help="Colours (default: on a terminal).")
@click.option("--frames", "frames_dir", type=click.Path(file_okay=False), default=None,
              metavar="DIR", help="Write the board as an SVG file after every turn "
                                  "(DIR/turn-0001.svg ...).")
@click.option("--isolate", type=click.Choice(("untrusted", "all", "none")), default="untrusted",
              show_default=True,
              help="Which bots play in a jail (docs/tournaments.md): untrusted (every bot not "
                   "shipped with the arena), all, or none (in this process).")
@click.option("--bot-path", "bot_paths", multiple=True, metavar="PATH",
              type=click.Path(exists=True),
              help="A file or folder the jails show read-only (repeat), e.g. a policy's "
                   "package.")
@force_option
def play(bots: tuple[str, ...], seed: int | None, rules: tuple[str, ...],
         cards_path: str | None, show: bool, record_path: str | None, move_time: float | None,
         quiet: bool, color: bool | None, frames_dir: str | None, isolate: str,
         bot_paths: tuple[str, ...], force: bool) -> None:
    """Play one game between bots and print the moves and the result.

    Each bot's random generator is seeded from the game seed, its seat and its name (the
    spec text, or name=), as in a tournament: --seed with a tournament game's seed and its
    seats' specs in seat order plays that game again, move for move.

    A bot not shipped with the arena plays in a jail, as in a tournament (--isolate); what
    it prints is shown after the game, on stderr.

    `--bot human` seats you: at each of your decisions the board, your hand and the legal
    actions, numbered (type a number, an action, `help`, `board`, `hand` or `quit`).  You
    see what your seat may see, and nothing else.

    \b
    Example:
      arena play --bot greedy --bot random --seed 7 --show --record game.json
      arena play --bot mcts:iterations=500 --bot objective --bot random --rule cloud_keep=false
      arena play --bot objective:prefer=panda --bot objective --cards panda-cheap.json
      arena play --bot human --bot objective --seed 3 --record mine.json
      arena play --bot greedy --bot random --seed 7 --frames frames/
    """
    from .board_text import LEGEND, render_state
    from .human import HumanBot
    from .match import play_game

    if not 2 <= len(bots) <= 4:
        raise UserError(f"a game needs 2 to 4 --bot options, not {len(bots)}")
    choice = card_choice(cards_path, len(bots))
    options = choice.options(rule_options(rules), rule_given=rule_given(rules, "emperor_points"))
    from .tournament.sandbox import Isolation, parse_participant

    isolation = Isolation(mode=isolate, paths=bot_paths)
    specs = [parse_participant(text, isolation) for text in bots]
    seed = seed if seed is not None else random.SystemRandom().randrange(2**31)
    names = [spec.name for spec in specs]
    color = sys.stdout.isatty() and not os.environ.get("NO_COLOR") if color is None else color
    jailed = _Jailed(specs, isolation, seed, move_time)
    players = [jailed.bots.get(seat) or make_bot(spec, seed, seat)
               for seat, spec in enumerate(specs)]
    humans = [seat for seat, bot in enumerate(players) if isinstance(bot, HumanBot)]
    if len(humans) > 1:
        raise UserError("one --bot human per game: at one terminal each would see the "
                        "other's hand")
    if humans:
        # The seat prints what it may see; the game's own log would show every hand.
        show = False
    frames = _frames(frames_dir, names, humans[0] if humans else None, force)
    if not quiet:
        click.echo(f"seed {seed}: " + " vs ".join(f"{i} {n}" for i, n in enumerate(names)))
        if cards_path is not None:
            click.echo(f"card set {choice.name or cards_path} ({_changed_text(choice, options)})")
    if show and not quiet:
        click.echo(LEGEND)

    seen = 0
    turn_ended = False

    def on_event(event: Event, state: GameState) -> None:
        nonlocal seen, turn_ended
        seen += 1
        if frames is not None:
            frames(event, state)
        if quiet or humans:
            return
        _print_event(event, names)
        # The state is already past the whole move and the chance it brought (the next
        # turn's roll, a card drawn): when the mover is no longer to play, that move ended
        # the turn, and the board is drawn once those events are printed, as it shows them.
        if event.kind == "move":
            turn_ended = state.ended or state.current != event.seat
        history = state.history
        if show and turn_ended and history is not None and seen == len(history):
            turn_ended = False
            click.echo(render_state(state, names, color=color, legend=False))

    try:
        outcome = play_game(players, seed, options, names=names, move_time=move_time,
                            on_event=on_event, cards=choice.cards)
    except KeyboardInterrupt:
        # Ctrl-C: the game was interrupted, not won; a result table would name a winner.
        click.echo("interrupted: the game was not finished, no winner, nothing recorded",
                   err=True)
        sys.exit(130)
    finally:
        jailed.close(names)
    if show and quiet:
        click.echo(render_state(outcome.state, names, color=color))
    print_result(dict(outcome.record))
    if record_path:
        Path(record_path).write_text(json.dumps(outcome.record) + "\n")
        click.echo(f"record written to {record_path}")
    if frames is not None:
        click.echo(f"{plural(frames.written, 'board')} written to {frames_dir}")
    if outcome.error and outcome.error["kind"] != "abandoned":
        sys.exit(1)


class _Jailed:
    """The bots of ``arena play`` that play in jails (``arena.tournament.sandbox``), this
    process refereeing, as a tournament's worker does."""

    def __init__(self, specs: Sequence[BotSpec], isolation: Any, seed: int,
                 move_time: float | None) -> None:
        from .seeds import bot_seed
        from .tournament.sandbox import BotFault, BotHost, RemoteBot

        self.hosts: list[Any] = []
        self.bots: dict[int, Any] = {}
        for seat, spec in enumerate(specs):
            if not isolation.isolates(spec):
                continue
            host = BotHost(spec, isolation, seat)
            self.hosts.append(host)
            try:
                self.bots[seat] = RemoteBot(host, bot_seed(seed, seat, spec.name), move_time)
            except BotFault as fault:
                self.close([s.name for s in specs])
                raise UserError(f"{spec.name} (seat {seat}): {fault.message}") from None

    def close(self, names: Sequence[str]) -> None:
        """End the jails; what their bots printed goes to stderr (escaped)."""
        from .tournament.worker import shown_output

        for seat, bot in self.bots.items():
            output = bot.close()
            if output:
                click.echo(f"{names[seat]} (seat {seat}) printed:\n{shown_output(output)}",
                           err=True)
        self.bots = {}
        for host in self.hosts:
            host.close()
        self.hosts = []
        end_engines()


class _Frames:
    """``--frames DIR``: the board as SVG at the start and after every turn (as a seat
    sees it when a person plays that seat)."""

    def __init__(self, folder: Path, names: list[str], seat: int | None) -> None:
        self.folder = folder
        self.names = names
        self.seat = seat
        self.written = 0
        self.told = 0
        self.mover: int | None = None

    def __call__(self, event: Event, state: GameState) -> None:
        from .engine import PlayerView
        from .svg import board_svg

        self.told += 1
        if event.kind == "move":
            self.mover = event.seat
        # The state is already past the move and the chance it brought: draw once the last
        # of those events is told, at the start and when the mover's turn is over.
        if self.told != len(state.history or ()):
            return
        if self.mover is None:
            if self.written:
                return
        elif state.ended or state.current != self.mover:
            self.mover = None
        else:
            return
        board = state if self.seat is None else PlayerView.of(state, self.seat)
        title = f"turn {self.written}, round {state.round}"
        path = self.folder / f"turn-{self.written:04d}.svg"
        path.write_text(board_svg(board, self.names, title=title), encoding="utf-8")
        self.written += 1


def _frames(folder: str | None, names: list[str], seat: int | None,
            force: bool) -> _Frames | None:
    if folder is None:
        return None
    path = Path(folder)
    if (path / "turn-0000.svg").exists() and not force:
        raise UserError(f"--frames {folder} holds another game's boards; give --force to "
                        "replace them")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(f"--frames {folder}: {exc.strerror or exc}") from None
    from .records import write_problem

    problem = write_problem(path / "turn-0000.svg")
    if problem:
        raise UserError(f"--frames: {problem}")
    return _Frames(path, names, seat)


def _changed_text(choice: CardChoice, options: RuleOptions) -> str:
    """``3 cards changed, 1 removed, Emperor 3``: what a card set changes, in a few words."""
    from .cards import changes

    diff = changes(choice.cards, options.emperor_points)
    parts = [f"{len(diff.get('points', {}))} card(s) changed",
             f"{len(diff.get('remove', []))} removed",
             f"Emperor {options.emperor_points}"]
    return ", ".join(parts)


# ------------------------------------------------------------------ cards


@main.command("cards")
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
    from .cards import summary, table_rows, template

    choice = card_choice(cards_path, playable=False)
    emperor = choice.emperor if choice.emperor is not None else RuleOptions().emperor_points
    if template_path is not None:
        path = Path(template_path)
        if path.exists() and not force:
            raise UserError(f"--template {path} exists; choose another file name, or give "
                            "--force to replace it")
        from .records import write_problem

        problem = write_problem(path)
        if problem:
            raise UserError(f"--template: {problem}")
        path.write_text(json.dumps(template(choice.cards, emperor), indent=1) + "\n")
        click.echo(f"card set written to {path}: edit it, then use --cards {path}")
        return
    if svg_path is not None:
        from .card_svg import sheet_svg
        from .cards import changes, entries

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


@main.command()
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

    from . import replay as replaying
    from .board_text import render_state

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        record = replaying.find_record(file, game_id)
    if str(record.get("format", "")).startswith(POSITION_FORMAT.split("/")[0]):
        raise UserError(f"{file} is a position, not a game record: `arena show {file}` draws "
                        f"it, `arena legal {file}` lists its legal actions")
    for warning in caught:
        click.echo(f"warning: {warning.message}", err=True)
    if html_path is not None:
        from .viewer import write_page

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


@main.group("bots", cls=ArenaGroup, invoke_without_command=True)
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
    from .faults import printable
    from .tournament.sandbox import Isolation, parse_participant

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


@main.group("keys", cls=ArenaGroup, invoke_without_command=True)
@click.pass_context
def keys_group(ctx: click.Context) -> None:
    """Your signing key and the keys you trust: who wrote a run folder.

    Every run you play is signed with your Ed25519 key, made on first use in your config
    directory ($ARENA_CONFIG_DIR, else $XDG_CONFIG_HOME/takenoko-arena, else
    ~/.config/takenoko-arena; mode 0600).  `arena report` says whose key signed a run:
    yours, one you trust, or an unknown one (whose games it re-plays before counting them).
    With no subcommand: `arena keys show`.

    \b
    Examples:
      arena keys
      arena keys export --out me.pub
      arena keys trust alice.pub
    """
    if ctx.invoked_subcommand is None:
        ctx.invoke(keys_show)


@keys_group.command("show")
def keys_show() -> None:
    """Print your public key and the keys you trust.

    \b
    Example:
      arena keys show
    """
    from .keys import (
        KeyFileError,
        config_dir,
        fingerprint,
        own_key,
        public_bytes,
        public_text,
        trusted_keys,
    )

    try:
        public = public_bytes(own_key(create=True))  # type: ignore[arg-type]
        trusted = trusted_keys()
    except KeyFileError as exc:
        raise UserError(str(exc)) from None
    click.echo(f"your key: {fingerprint(public)} (in {config_dir()})")
    click.echo(public_text(public).rstrip())
    click.echo(f"keys you trust: {len(trusted)}")
    for name in trusted:
        click.echo(f"  {name}")


@keys_group.command("export")
@click.option("--out", "out", type=click.Path(dir_okay=False), default=None, metavar="FILE",
              help="Write your public key to FILE (default: print it).")
def keys_export(out: str | None) -> None:
    """Print or write your public key, for whoever reads your runs to trust.

    \b
    Examples:
      arena keys export
      arena keys export --out me.pub
    """
    from .keys import KeyFileError, own_key, public_bytes, public_text

    try:
        text = public_text(public_bytes(own_key(create=True)),  # type: ignore[arg-type]
                           "takenoko-arena run signer")
    except KeyFileError as exc:
        raise UserError(str(exc)) from None
    if out is None:
        click.echo(text, nl=False)
        return
    try:
        with open(out, "x", encoding="ascii") as fh:
            fh.write(text)
    except FileExistsError:
        raise UserError(f"--out {out} exists; choose another file") from None
    except OSError as exc:
        raise UserError(f"cannot write --out {out}: {exc.strerror or exc}") from None
    click.echo(f"your public key written to {out}")


@keys_group.command("trust")
@click.argument("file", type=click.Path(dir_okay=False), metavar="FILE")
def keys_trust(file: str) -> None:
    """Trust the public key in FILE: runs it signed report as signed by a key you trust.

    \b
    Example:
      arena keys trust alice.pub
    """
    from .keys import KeyFileError, trust

    try:
        name = trust(Path(file))
    except KeyFileError as exc:
        raise UserError(str(exc)) from None
    click.echo(f"trusted key {name}: runs it signed are believed")


# ------------------------------------------------------------------ report


@main.command()
@click.argument("dirs", nargs=-1, required=True, type=click.Path(file_okay=False),
                metavar="DIR...")
@click.option("--out", "out", type=click.Path(file_okay=False), default=None,
              help="Where to write the report (default: DIR/report).")
@click.option("--verify", is_flag=True,
              help="Re-play every game, even those signed by your key or one you trust (a "
                   "run signed by an unknown key is always re-played), and say what was "
                   "verified.")
def report(dirs: tuple[str, ...], out: str | None, verify: bool) -> None:
    """Statistics, tables and charts from tournament files.

    With several DIRs, compares the tournaments side by side (e.g. two rule sets).

    \b
    Examples:
      arena report runs/m1
      arena report runs/default runs/redraw-all --out runs/compare
    """
    import time

    # Said before the imports below (a few seconds): a mistyped folder answers at once.
    for d in dirs:
        if not Path(d).is_dir():
            raise UserError(f"{d} is not a folder" if Path(d).exists() else
                            f"{d} does not exist")
    import reports

    from .replay import verify_records

    # The loader logs its warnings too; here they are printed once, below, as warnings.
    logging.getLogger("reports").addHandler(logging.NullHandler())
    started = time.perf_counter()
    try:
        loaded = []
        for d in dirs:
            click.echo(f"reading {d} ...", err=True)
            tables = reports.load(Path(d), replay=verify_records, verify=verify)
            for warning in tables.warnings:
                click.echo(f"warning: {warning}", err=True)
            for line in tables.provenance:
                click.echo(f"{d}: {line}", err=True)
            if verify:
                click.echo(f"{d}: {tables.verified}")
            if len(tables.games) == 0:
                raise UserError(f"{d} holds no finished game yet, so there is nothing to "
                                "report (play some with arena tournament, or --resume it).")
            loaded.append(tables)
        for other in loaded[1:]:  # refused before the work is announced
            problem = reports.compare.comparison_problem(loaded[0], other)
            if problem:
                raise UserError(problem)
        click.echo("computing tables and charts ...", err=True)
        folder = reports.write_report(loaded, Path(out) if out else None)
    except reports.ReportError as exc:
        raise UserError(str(exc)) from None
    if len(dirs) == 1:
        from .viewer import write_replays

        click.echo("drawing the games to watch ...", err=True)
        count, problems = write_replays(Path(dirs[0]), folder)
        for problem in problems:
            click.echo(f"warning: {problem}", err=True)
        if count:
            click.echo(f"{plural(count, 'replay')} of games to watch in {folder / 'replays'}",
                       err=True)
    click.echo(f"done in {time.perf_counter() - started:.1f} s", err=True)
    summary = folder / "summary.txt"
    if summary.exists():
        click.echo(summary.read_text().rstrip())
    click.echo(f"report written to {folder}")


@main.command("export")
@click.argument("directory", type=click.Path(file_okay=False), metavar="DIR")
@click.option("--format", "fmt", type=click.Choice(["parquet", "csv", "jsonl"]), required=True,
              help="parquet or csv: the report's table of games (one row each); jsonl: the "
                   "records exactly as written, signatures included.")
@click.option("--out", "out", type=click.Path(dir_okay=False), required=True, metavar="FILE",
              help="The file to write (an existing one is refused without --force).")
@click.option("--seats", is_flag=True, help="One row per seat of each game (parquet, csv).")
@click.option("--force", is_flag=True, help="Replace FILE if it exists.")
def export_command(directory: str, fmt: str, out: str, seats: bool, force: bool) -> None:
    """Write a run's games to one file, for pandas, polars or DuckDB.

    \b
    Examples:
      arena export runs/m1 --format parquet --out m1.parquet
      arena export runs/m1 --format csv --seats --out m1-seats.csv
      arena export runs/m1 --format jsonl --out m1.jsonl
    """
    if not Path(directory).is_dir():  # before the imports below: a mistyped folder at once
        raise UserError(f"{directory} is not a folder" if Path(directory).exists() else
                        f"{directory} does not exist")
    from reports.export import export

    logging.getLogger("reports").addHandler(logging.NullHandler())
    click.echo(f"reading {directory} ...", err=True)
    try:
        rows = export(Path(directory), fmt, Path(out), seats=seats, force=force)
    except reports_error() as exc:
        raise UserError(str(exc)) from None
    click.echo(f"{plural(rows, 'row')} written to {out}")


def reports_error() -> type[Exception]:
    """The reports' error class, imported when a command needs it (pandas is slow to
    import)."""
    from reports import ReportError

    return ReportError


@main.group(cls=ArenaGroup)
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
            from .balance.tune import card_file, suggest

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


main.add_command(tournament)
balance.add_command(study_command)
balance.add_command(tune_command)
balance.add_command(design_command)
list_bots.add_command(bot_tune_command)
main.add_command(ladder_command)
main.add_command(engine_command)  # engine protocol (arena.protocol)
main.add_command(engine_check_command)


if __name__ == "__main__":
    main()
