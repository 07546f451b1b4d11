"""``arena tournament``: the click command over :func:`arena.tournament.runner.run_tournament`.

Like every command, it only parses, calls and prints.  Bad input of any kind (an unknown bot
or rule, a bad ``--sprt``, a directory that holds another tournament) is one sentence on
stderr with exit status 2; an interrupted run exits with 130 after saying how to resume it.

``--resume`` takes an optional directory: ``arena tournament --resume DIR`` re-reads the
whole command from ``DIR/manifest.json``; ``--resume`` with ``--out DIR`` and the full
command checks the command against the manifest.  Either way, any option given on the command
line that decides the games must match the manifest (the error names the field).
"""

from __future__ import annotations

import sys
import time
import traceback
from dataclasses import replace
from pathlib import Path
from typing import Any

import click
from click.core import ParameterSource

from arena.commands.executor_options import executor_flags, executor_options, executor_settings
from arena.commands.user_error import UserError
from arena.engine import ArenaError, RuleOptions
from arena.engine.card_files import card_choice
from arena.jail.sandbox import (
    DEFAULT_BOT_CPU,
    DEFAULT_BOT_MEMORY,
    ISOLATE_MODES,
    MIN_BOT_MEMORY,
    Isolation,
    parse_participant,
)
from arena.play.bot import BotConfigError
from arena.play.seeds import draw_seed
from arena.runs.integrity import IntegrityError, read_deal_key, read_keys
from arena.runs.store import StoreError, read_manifest
from arena.tournament.runner import RunResult, check_out, config_from_manifest, run_tournament
from arena.tournament.schedule import FORMATS, ScheduleError, SprtParams, TournamentConfig


class Interrupted(click.ClickException):
    """Ctrl-C: the message says how to resume; exit status 130 (the shell's for SIGINT)."""

    exit_code = 130

    def format_message(self) -> str:
        return self.message

    def show(self, file: Any = None) -> None:
        click.echo(self.message, err=True)


def _given(ctx: click.Context, name: str) -> bool:
    source = ctx.get_parameter_source(name)
    return source in (ParameterSource.COMMANDLINE, ParameterSource.ENVIRONMENT)


def build_config(ctx: click.Context, params: dict[str, Any],
                 base: TournamentConfig | None, isolation: Isolation) -> TournamentConfig:
    """The configuration from the options; with ``base`` (a manifest's), only the options
    given on the command line replace its fields.  Untrusted bots' specs are checked in a
    process of their own (``parse_participant``)."""
    def pick(name: str) -> bool:
        return base is None or _given(ctx, name)

    fields: dict[str, Any] = {}
    if pick("bots"):
        fields["participants"] = tuple(parse_participant(text, isolation)
                                       for text in params["bots"])
    if pick("players"):
        fields["players"] = params["players"]
    if pick("games"):
        fields["games"] = params["games"]
    if pick("fmt"):
        fields["format"] = params["fmt"]
    if pick("seed"):
        seed = params["seed"]
        fields["seed"] = seed if seed is not None else draw_seed()
    if pick("rules"):
        fields["options"] = RuleOptions.from_pairs(list(params["rules"]))
    if base is None or params["cards"] is not None:
        # The file's Emperor is the rule option emperor_points (one place for it).
        choice = card_choice(params["cards"])
        options = fields.get("options", base.options if base is not None else RuleOptions())
        rule_given = _given(ctx, "rules") and any(
            pair.partition("=")[0].strip() == "emperor_points" for pair in params["rules"])
        fields["options"] = choice.options(options, rule_given=rule_given)
        fields["cards"] = choice.cards
    if pick("move_time"):
        fields["move_time"] = params["move_time"]
    if pick("sprt"):
        fields["sprt"] = SprtParams.parse(params["sprt"]) if params["sprt"] else None
    if params["deal_key"] is not None:
        fields["deal_key"] = deal_key_option(params["deal_key"], create=base is None)
        fields["shared_deals"] = params["deal_key"] != "public"
    if base is not None:
        return replace(base, **fields)
    if len(fields["participants"]) < 2:
        raise UserError("a tournament needs at least two --bot options")
    return TournamentConfig(**fields)


def deal_key_option(value: str, *, create: bool) -> bytes:
    """``--deal-key``: ``public`` (deals from the master seed alone), or a key file (made
    with a fresh key when missing, for the next run to share)."""
    if value == "public":
        return b""
    try:
        return read_deal_key(Path(value), create=create)
    except (IntegrityError, OSError) as exc:
        raise UserError(str(exc)) from None


def default_out() -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    path = Path("runs") / stamp
    n = 1
    while path.exists():
        n += 1
        path = Path("runs") / f"{stamp}-{n}"
    return path


EPILOG = """\b
Examples:
  arena tournament --bot random --bot random:complete=true --games 200 --workers 2
  arena tournament --bot mcts:iterations=200 --bot greedy --sprt elo0=0,elo1=20 \\
      --games 20000 --out runs/sprt-mcts
  arena tournament --bot random --bot greedy --bot objective --players 3 \\
      --rule max_rounds=30 --move-time 1 --out runs/rr3
  arena tournament --resume runs/rr3        # go on after a Ctrl-C or a crash
  arena tournament --bot objective:prefer=panda --bot objective --games 400 \\
      --cards plot15-at-5.json --out runs/rush    # card set: see `arena cards`
  arena tournament --bot mypkg.bots.Mine --bot greedy --bot-memory 4096 --move-time 2
"""


@click.command(name="tournament", epilog=EPILOG)
@click.option("--bot", "bots", multiple=True, metavar="SPEC",
              help="A participant (repeat; at least 2): a bot name or package.module.Class, "
                   "then :key=value,... (name=... sets the display name).")
@click.option("--players", type=int, default=2, show_default=True,
              help="Seats per game (2-4).")
@click.option("--games", type=int, default=100, show_default=True,
              help="Games per pairing, rounded up to whole seat rotations.")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="round-robin",
              show_default=True, help="round-robin: every combination of participants; "
                                      "gauntlet: the first against each other one.")
@click.option("--seed", type=int, default=None,
              help="Master seed: every game seed derives from it [default: random, recorded "
                   "in the manifest].")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Directory for manifest.json, games.jsonl, arena.log "
                   "[default: runs/<timestamp>].")
@click.option("--rule", "rules", multiple=True, metavar="K=V",
              help="A rule option (repeat), e.g. max_rounds=30.")
@click.option("--cards", metavar="FILE", default=None,
              help="A card-set file (JSON: name, emperor, points, remove; see `arena cards`): "
                   "objective cards' points, cards removed, the Emperor's points.")
@click.option("--move-time", type=float, default=None, metavar="SEC",
              help="Hard limit per decision; a bot over it forfeits the game.")
@click.option("--resume", is_flag=False, flag_value="", default=None, metavar="[DIR]",
              help="Play only the games missing from DIR (or from --out); with just DIR, the "
                   "command is read from its manifest.")
@executor_options
@click.option("--sprt", metavar="elo0=A,elo1=B[,alpha=..,beta=..]", default=None,
              help="Stop a 2-participant match as soon as the SPRT on deal pairs decides.")
@click.option("--isolate", type=click.Choice(ISOLATE_MODES), default="untrusted",
              show_default=True,
              help="Which bots play in a jail of their own (docs/tournaments.md): "
                   "untrusted (every bot not shipped with the arena), all, or none (in the "
                   "worker's process, unjailed). E.g. --isolate all.")
@click.option("--trust", "trusted", multiple=True, metavar="NAME",
              help="Run this participant (its name=, spec or bot name) in-process even if "
                   "untrusted (repeat), e.g. --trust mypkg.bots.Fast.")
@click.option("--bot-memory", type=click.IntRange(min=0), default=DEFAULT_BOT_MEMORY,
              show_default=True, metavar="MB",
              help=f"Memory of a bot's jail (a cgroup where one can be made) and address "
                   f"space of each of its processes, in MB (0: none; else at least "
                   f"{MIN_BOT_MEMORY}), e.g. --bot-memory 4096.")
@click.option("--bot-cpu", type=click.IntRange(min=0), default=DEFAULT_BOT_CPU,
              show_default=True, metavar="SEC",
              help="CPU seconds a jailed bot's process may use in one game (0: no limit), "
                   "e.g. --bot-cpu 120.")
@click.option("--bot-path", "bot_paths", multiple=True, metavar="PATH",
              type=click.Path(exists=True),
              help="A file or folder the bots' jails show read-only (repeat; a folder goes "
                   "on their import path, a package by its parent), e.g. --bot-path weights/.")
@click.option("--fresh-jail", is_flag=True,
              help="A new jail for every game instead of one kept per participant, seat "
                   "rotation and worker (slower; see docs/tournaments.md).")
@click.option("--deal-key", metavar="FILE|public", default=None,
              help="Key the deals with the key in FILE (created if missing), to play two runs "
                   "on the same deals (the key is never written into the run's folder: give "
                   "the file again to --resume); `public` derives them from --seed alone "
                   "[default: a fresh key when a bot is jailed, public deals otherwise].")
@click.option("--chunk", type=click.IntRange(min=1), default=None,
              help="Games per task sent to a worker [default: automatic].")
@click.option("--quiet", is_flag=True, help="No progress output.")
@click.option("--verbose", is_flag=True, help="Log every game start and end (arena.log, "
                                              "console).")
# `arena --debug tournament ...` is the documented form, as on every command; this one stays
# for the command lines that already use it, out of the help page.
@click.option("--debug", is_flag=True, hidden=True, help="Show tracebacks.")
@click.pass_context
def tournament(ctx: click.Context, **params: Any) -> None:
    """Play a tournament between bots, in parallel, with a progress bar; prints the standings.

    The schedule and every game seed follow from --seed, so the same command gives the same
    games with 1 worker, 8 workers or a Dask cluster.  Each deal is played once per seat
    rotation.  games.jsonl gets one line per finished game; Ctrl-C keeps them and --resume
    plays the rest.

    A bot's random generator is seeded from the game, the seat and the participant's name
    (the spec text, or its name=...): mcts and mcts:iterations=1000 are the same bot but
    play the same deals with different random streams.  For two runs whose bots differ
    only in a parameter to share their streams, give both the same name=.

    Bots not shipped with the arena run in jails of their own (--isolate): a user, process
    namespace and read-only view of their own, no network, under memory and CPU limits
    (--bot-memory, --bot-cpu); they get a copy of their view and return an action, their
    output going to arena.log.  Their games' deals are keyed by a secret of the run
    (--deal-key).  A run locks its directory: a second run on it is refused.
    """
    try:
        _run(ctx, params)
    except (ScheduleError, StoreError, ArenaError, BotConfigError) as exc:
        # --debug here, or before the command (``arena --debug tournament``) as everywhere.
        if params["debug"] or (ctx.find_root().obj or {}).get("debug"):
            traceback.print_exc()
        raise UserError(str(exc)) from None


def _isolation(params: dict[str, Any]) -> Isolation:
    memory = params["bot_memory"]
    if 0 < memory < MIN_BOT_MEMORY:
        # Python and the engine alone take about 110 MB of address space: every game of
        # every isolated bot would be charged to the bot.
        raise UserError(f"--bot-memory must be 0 (no limit) or at least {MIN_BOT_MEMORY} "
                         f"MB, not {memory}")
    return Isolation(params["isolate"], frozenset(params["trusted"]), memory,
                     cpu=params["bot_cpu"], paths=tuple(params["bot_paths"]),
                     fresh=params["fresh_jail"])


def _check_trusted(config: TournamentConfig, trusted: tuple[str, ...]) -> None:
    """Each --trust must name a participant (its name, or the bot it runs)."""
    names = {spec.name for spec in config.participants}
    names |= {spec.target for spec in config.participants}
    for name in trusted:
        if name not in names:
            raise UserError(f"--trust {name} names no participant (participants: "
                             f"{', '.join(config.names)})")


def _run(ctx: click.Context, params: dict[str, Any]) -> None:
    isolation = _isolation(params)
    resume = params["resume"]
    out: Path | None = params["out"]
    if resume is not None:
        if resume == "" and out is None:
            raise UserError("--resume needs a directory: --resume DIR, or --out DIR")
        directory = Path(resume) if resume else out
        assert directory is not None
        if resume and out is not None and Path(resume).resolve() != out.resolve():
            raise UserError(f"--resume {resume} and --out {out} name different directories")
        try:
            keys = read_keys(directory)
        except IntegrityError as exc:
            raise UserError(str(exc)) from None
        given = params["deal_key"]
        key = deal_key_option(given, create=False) if given not in (None, "public") else None
        base = config_from_manifest(read_manifest(directory), isolation, keys, key)
        config = build_config(ctx, params, base, isolation)
    else:
        if len(params["bots"]) < 2:
            raise UserError("a tournament needs at least two --bot options")
        config = build_config(ctx, params, None, isolation)
        directory = out if out is not None else default_out()
    _check_trusted(config, params["trusted"])
    settings = executor_settings(
        params["workers"], params["executor"], params["scheduler"],
        chunk=params["chunk"],
        progress="none" if params["quiet"] else "auto",
        verbose=params["verbose"],
        isolation=isolation,
    )
    check_out(directory, resume is not None)  # refused before the banner, not after it
    if not params["quiet"]:
        what = "Resuming" if resume is not None else "Tournament"
        click.echo(f"{what}: {', '.join(config.names)}; {config.players} players, "
                   f"{config.format}, seed {config.seed}, {settings.workers} "
                   f"{settings.executor} worker(s); files in {directory}", err=True)
        if not config.cards.is_default() or config.options.emperor_points != 2:
            label = f"{config.cards.name!r}, " if config.cards.name else ""
            click.echo(f"Card set {label}hash {config.card_set()['hash']} (`arena cards "
                       "--cards FILE` shows it)", err=True)
    try:
        result = run_tournament(config, directory, resume=resume is not None,
                                settings=settings)
    except (ScheduleError, StoreError, ArenaError, BotConfigError):
        raise
    except Exception as exc:
        if params["debug"]:
            raise
        raise click.ClickException(f"{type(exc).__name__}: {exc} (run with --debug for the "
                                   "traceback)") from None
    report(result)
    if result.interrupted:
        raise Interrupted(
            f"Interrupted: the {result.done} finished games (of {result.total}) are kept in "
            f"{directory}/games.jsonl.\nResume with: arena tournament --resume {directory}"
            f"{executor_flags(settings)}"
        )


def report(result: RunResult) -> None:
    """The standings, the SPRT decision and a summary line, on stdout."""
    if result.sprt is not None and result.sprt.decision:
        state = "stopped by the SPRT"
    else:
        state = "complete" if result.finished else "so far"
    click.echo(f"Standings after {result.done} of {result.total} games ({state}), "
               f"{result.directory}:")
    click.echo(result.standings.table())
    if result.sprt is not None:
        click.echo(result.sprt.describe())
    if result.played:
        rate = result.played / result.elapsed if result.elapsed > 0 else 0.0
        click.echo(f"{result.played} games played in {result.elapsed:.1f} s "
                   f"({rate:.1f} games/s), {result.errors} game(s) with a bot fault in all.")
    elif result.finished:
        click.echo("Nothing left to play: the tournament is finished.")


def main() -> None:
    tournament(prog_name="arena tournament")


if __name__ == "__main__":
    sys.exit(main())
