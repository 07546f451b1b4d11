"""``arena bots tune``: the click command over ``tune.py`` (it parses, calls and prints)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from arena.commands.executor_options import (
    executor_flags,
    executor_options,
    executor_settings,
    shared_cluster,
)
from arena.commands.user_error import UserError
from arena.play.bot import BotConfigError
from arena.play.seeds import draw_seed
from arena.runs.store import StoreError
from arena.tournament.schedule import ScheduleError

TUNE_EPILOG = """\b
Examples:
  arena bots tune greedy --space decay=0.2..1.5 --space samples=1..4 \\
      --against objective --games 40 --trials 30 --workers 2 --out runs/tune-greedy
  arena bots tune mybots.Eager --space patience=0..20 --against greedy --out runs/eager
  arena bots tune --resume runs/tune-greedy          (after Ctrl-C)
  arena bots tune --resume runs/tune-greedy --trials 60   (more trials)
"""


@click.command("tune", epilog=TUNE_EPILOG)
@click.argument("spec", required=False, metavar="SPEC")
@click.option("--space", "space", multiple=True, metavar="NAME=LO..HI|NAME=A,B,C",
              help="A parameter to search and its values (repeat).")
@click.option("--against", "against", multiple=True, metavar="SPEC",
              help="An opponent every candidate plays (repeat).")
@click.option("--games", type=click.IntRange(min=1), default=40, show_default=True,
              help="Games per candidate and opponent (rounded down to whole deals: never "
                   "exceeded).")
@click.option("--trials", type=click.IntRange(min=1), default=30, show_default=True,
              help="Candidates to try (with --resume: the new total).")
@click.option("--confirm-games", type=click.IntRange(min=1), default=200, show_default=True,
              help="Games of the best candidate against SPEC, on fresh deals.")
@click.option("--players", type=click.IntRange(2, 4), default=2, show_default=True,
              help="Players per game (SPEC against copies of the opponent).")
@click.option("--seed", type=int, default=None,
              help="Master seed of the deals; the same seed gives the same deals "
                   "[default: random, printed].")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="The run's folder (new).")
@click.option("--resume", is_flag=False, flag_value="", default=None, metavar="[DIR]",
              help="Go on with the stopped run in DIR (or in --out), with its own settings.")
@executor_options
@click.option("--quiet", is_flag=True, help="No progress output.")
@click.pass_context
def tune_command(ctx: click.Context, spec: str | None, space: tuple[str, ...],
                 against: tuple[str, ...], games: int, trials: int, confirm_games: int,
                 players: int, seed: int | None, out: Path | None, resume: str | None,
                 workers: int | None, executor: str, scheduler: str | None,
                 quiet: bool) -> None:
    """Search SPEC's declared parameters for the setting that wins most.

    Every candidate plays the same deals (seeds from --seed) against every --against
    opponent, seats rotated, so candidates differ by their play, not their luck.  The
    search is optuna's TPE sampler; the best candidate is then confirmed against SPEC on
    --confirm-games fresh deals, with a 95% interval.  Writes DIR/best.json (the best spec,
    its confirmed win rate and interval, every trial), DIR/tune.html and DIR/tune.png.
    Ctrl-C keeps the finished trials (and games); --resume DIR goes on.
    """
    from arena.bot_tune.tune import TuneError, TuneInterrupted, TuneSettings, read_settings, tune

    try:
        if resume is not None:
            if not resume and out is None:
                raise UserError("--resume needs the run's folder: --resume DIR, or --out DIR")
            folder = Path(resume) if resume else out
            given = [f"--{name.replace('_', '-')}" for name in
                     ("space", "against", "games", "confirm_games", "players", "seed")
                     + (("out",) if resume else ())
                     if ctx.get_parameter_source(name) == click.core.ParameterSource.COMMANDLINE]
            if spec or given:
                raise UserError(f"--resume takes the run's settings from {folder}; give only "
                                f"--trials and where to run ({', '.join(given) or 'SPEC'} "
                                "given)")
            saved = read_settings(folder)
            if ctx.get_parameter_source("trials") != click.core.ParameterSource.COMMANDLINE:
                trials = saved.trials
            settings = TuneSettings(**{**saved.to_dict(), "space": saved.space,
                                       "against": saved.against, "trials": trials})
            directory = folder
        else:
            if not spec:
                raise UserError("give the SPEC to tune (or --resume DIR)")
            if out is None:
                raise UserError("give --out DIR, the run's folder")
            drawn = seed is None
            if seed is None:
                seed = draw_seed()
            settings = TuneSettings(spec=spec, space=space, against=against, games=games,
                                    seed=seed, trials=trials, confirm_games=confirm_games,
                                    players=players)
            directory = out
        from arena.bot_tune.tune import check

        check(settings)  # every sentence before a cluster is started
        if resume is None and drawn:
            click.echo(f"seed {seed} (drawn: give --seed {seed} to play the same deals)",
                       err=True)
        run = executor_settings(workers, executor, scheduler,
                                progress="auto" if not quiet and sys.stderr.isatty()
                                else "none")
        say = (lambda _text: None) if quiet else (lambda text: click.echo(text, err=True))
        with shared_cluster(run) as playing:
            data = tune(directory, settings, playing, resume=resume is not None, say=say)
    except TuneInterrupted as stop:
        # The options given, not the local cluster's address (closed by now).
        click.echo(str(stop) + executor_flags(run), err=True)
        sys.exit(130)
    except (TuneError, ScheduleError, StoreError, BotConfigError) as exc:
        raise UserError(str(exc)) from None
    confirm = data["confirmation"]
    click.echo(f"best: {data['spec']} (trial {data['trial']}, {data['search_win_rate']:.1%} "
               "in the search)")
    if confirm["win_rate"] is None:
        click.echo(f"confirmation {confirm['verdict']}")
    else:
        interval = ("[{:.1%}, {:.1%}]".format(*confirm["interval"]) if confirm["interval"]
                    else "(no interval)")
        click.echo(f"confirmed against {confirm['against']}: {confirm['win_rate']:.1%} "
                   f"{interval} in {confirm['games']} fresh games: {confirm['verdict']}")
    click.echo(f"written: {directory / 'best.json'}, {directory / 'tune.html'}")
