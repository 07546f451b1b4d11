"""``arena play``: one game between bots (or a human), drawn as it goes."""

from __future__ import annotations

import json
import os
import random
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from arena.commands.common import (
    CARDS_HELP,
    changed_text,
    check_out_path,
    force_option,
    plural,
    print_result,
    rule_given,
    rule_options,
)
from arena.commands.user_error import UserError
from arena.engine import (
    Event,
    GameState,
    action_text,
)
from arena.engine.card_files import card_choice
from arena.play.registry import BotSpec, end_engines, make_bot


def _print_event(event: Event, names: list[str]) -> None:
    if event.kind != "move":
        click.echo(click.style(f"      {event.text[2:]}", dim=True))
        return
    assert event.seat is not None
    width = max(len(name) for name in names)
    action = action_text(event.action, event.card_set)  # type: ignore[arg-type]
    click.echo(f"r{event.round:<2} {event.seat} {names[event.seat]:<{width}} {action}")


check_record_path = check_out_path


def check_move_time(ctx: click.Context, param: click.Parameter,
                    value: float | None) -> float | None:
    """Refuse a NaN, infinite or absurd limit before the game: in it, the thinking bot
    would be blamed."""
    from arena.play.limits import move_time_problem

    problem = move_time_problem(value)
    if problem:
        raise click.BadParameter(problem)
    return value


@click.command()
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
    from arena.play.match import play_game
    from arena.show.board_text import LEGEND, render_state
    from arena.show.human import HumanBot

    if not 2 <= len(bots) <= 4:
        raise UserError(f"a game needs 2 to 4 --bot options, not {len(bots)}")
    choice = card_choice(cards_path, len(bots))
    options = choice.options(rule_options(rules), rule_given=rule_given(rules, "emperor_points"))
    from arena.jail.sandbox import Isolation, parse_participant

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
    # A human's seat prints what it may see; the game's own log would show every hand.
    printer = _Printer(names, _frames(frames_dir, names, humans[0] if humans else None, force),
                       quiet=quiet or bool(humans), show=show and not humans, color=color)
    if not quiet:
        click.echo(f"seed {seed}: " + " vs ".join(f"{i} {n}" for i, n in enumerate(names)))
        if cards_path is not None:
            click.echo(f"card set {choice.name or cards_path} ({changed_text(choice, options)})")
    if printer.show and not quiet:
        click.echo(LEGEND)
    try:
        outcome = play_game(players, seed, options, names=names, move_time=move_time,
                            on_event=printer, cards=choice.cards)
    except KeyboardInterrupt:
        # Ctrl-C: the game was interrupted, not won; a result table would name a winner.
        click.echo("interrupted: the game was not finished, no winner, nothing recorded",
                   err=True)
        sys.exit(130)
    finally:
        jailed.close(names)
    if printer.show and quiet:
        click.echo(render_state(outcome.state, names, color=color))
    print_result(dict(outcome.record))
    if record_path:
        Path(record_path).write_text(json.dumps(outcome.record) + "\n")
        click.echo(f"record written to {record_path}")
    if printer.frames is not None:
        click.echo(f"{plural(printer.frames.written, 'board')} written to {frames_dir}")
    if outcome.error and outcome.error["kind"] != "abandoned":
        sys.exit(1)


class _Printer:
    """What ``arena play`` shows of a game as its events come: each event printed, the board
    drawn once a turn is over (``--show``), the frames saved (``--frames``)."""

    def __init__(self, names: list[str], frames: _Frames | None, *, quiet: bool, show: bool,
                 color: bool) -> None:
        self.names = names
        self.frames = frames
        self.quiet = quiet
        self.show = show
        self.color = color
        self.seen = 0
        self.turn_ended = False

    def __call__(self, event: Event, state: GameState) -> None:
        from arena.show.board_text import render_state

        self.seen += 1
        if self.frames is not None:
            self.frames(event, state)
        if self.quiet:
            return
        _print_event(event, self.names)
        # The state is already past the whole move and the chance it brought (the next
        # turn's roll, a card drawn): when the mover is no longer to play, that move ended
        # the turn, and the board is drawn once those events are printed, as it shows them.
        if event.kind == "move":
            self.turn_ended = state.ended or state.current != event.seat
        history = state.history
        if self.show and self.turn_ended and history is not None and self.seen == len(history):
            self.turn_ended = False
            click.echo(render_state(state, self.names, color=self.color, legend=False))


class _Jailed:
    """The bots of ``arena play`` that play in jails (``arena.jail.sandbox``), this
    process refereeing, as a tournament's worker does."""

    def __init__(self, specs: Sequence[BotSpec], isolation: Any, seed: int,
                 move_time: float | None) -> None:
        from arena.jail.sandbox import BotFault, BotHost, RemoteBot
        from arena.play.seeds import bot_seed

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
        from arena.tournament.worker import shown_output

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
        from arena.engine import PlayerView
        from arena.show.svg import board_svg

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
    from arena.runs.records import write_problem

    problem = write_problem(path / "turn-0000.svg")
    if problem:
        raise UserError(f"--frames: {problem}")
    return _Frames(path, names, seat)
