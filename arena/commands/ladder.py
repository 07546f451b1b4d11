"""``arena ladder``: the click command over ``ladder.py`` (it parses, calls and prints)."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

import click

from arena.commands.executor_options import executor_flags, executor_options, executor_settings
from arena.commands.user_error import UserError
from arena.jail.sandbox import parse_participant
from arena.play.bot import BotConfigError
from arena.play.seeds import draw_seed
from arena.runs.store import MANIFEST, StoreError, read_games
from arena.tournament import run_tournament
from arena.tournament.schedule import ScheduleError, TournamentConfig

EPILOG = """\b
Examples:
  arena ladder --games 20 --workers 2 --out runs/ladder
  arena ladder --specs random,greedy,objective,mcts --games 40 --out runs/small
  arena ladder --bot greedy --bot mcts:iterations=250,c=0.7 --games 40 --out runs/two
  arena ladder --games 20 --workers 2 --resume runs/ladder     (after Ctrl-C)
"""


@click.command("ladder", epilog=EPILOG)
@click.option("--specs", default=None, metavar="SPEC,SPEC,...",
              help="The specs on the ladder, separated by commas or semicolons (a spec with "
                   "parameters: mcts:iterations=250;greedy) [default: random, greedy, "
                   "objective, mcts, learned, and elite at 1/4, 1 and 4x its budget].")
@click.option("--bot", "bots", multiple=True, metavar="SPEC",
              help="A spec on the ladder (repeat; instead of --specs).")
@click.option("--games", type=click.IntRange(min=1), default=20, show_default=True,
              help="Games per pairing (rounded up to whole deals).")
@click.option("--seed", type=int, default=None,
              help="Master seed of the deals; the same seed gives the same deals "
                   "[default: random, printed].")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Where the games and the table go (required unless --resume DIR).")
@click.option("--resume", is_flag=False, flag_value="", default=None, metavar="[DIR]",
              help="Go on with the stopped ladder in DIR (or in --out).")
@executor_options
@click.option("--quiet", is_flag=True, help="No progress output.")
def ladder_command(specs: str | None, bots: tuple[str, ...], games: int, seed: int | None,
                   out: Path | None,
                   resume: str | None, workers: int | None, executor: str, scheduler: str | None,
                   quiet: bool) -> None:
    """Rate bot specs on one scale: a round robin, then Bradley-Terry Elo.

    Every two specs play --games games (2 players, each deal once per seat rotation).
    Elo by maximum likelihood, the first spec at 0, with 95% intervals from a bootstrap
    over deals.  Writes OUT/ladder.csv, ladder.json, ladder.png and ladder.html; the
    games are a tournament in OUT/games (arena report OUT/games).
    """
    from arena.ladder.ladder import rate, write_outputs

    if resume:
        out = Path(resume)
    if out is None:
        raise UserError("give --out DIR, where the ladder goes (or --resume DIR)")
    if specs is not None and bots:
        raise UserError("give the specs either with --specs or with --bot, not both")
    joined = _spec_texts(specs, bots)
    settings = executor_settings(workers, executor, scheduler,
                                 progress="none" if quiet else "auto")
    try:
        # A bot that is not ours is checked in a jail and plays in one, as in a tournament.
        parsed = tuple(parse_participant(t, settings.isolation) for t in joined)
        if len(parsed) < 2:
            raise UserError("--specs needs at least two specs")
        manifest = out / "games" / MANIFEST
        if seed is None and resume is not None and manifest.is_file():
            seed = int(json.loads(manifest.read_text())["seed"])  # the run's own deals
        if seed is None:
            seed = draw_seed()
            click.echo(f"seed {seed}", err=True)
        config = TournamentConfig(participants=parsed, players=2, games=games, seed=seed)
        if (out / "games" / MANIFEST).is_file() and resume is None:
            raise UserError(f"--out {out} already holds a ladder (go on with --resume)")
        result = run_tournament(config, out / "games", resume=resume is not None, settings=settings)
    except (BotConfigError, ScheduleError, StoreError) as exc:
        raise UserError(str(exc)) from None
    if result.interrupted:
        click.echo(f"stopped: {result.done} of {result.total} games kept; go on with the same "
                   f"command and --resume --seed {seed}{executor_flags(settings)}", err=True)
        sys.exit(130)
    records, _ = read_games(out / "games")
    names = [p.name for p in parsed]
    rows = rate(records, names, seed)
    command = "arena ladder " + shlex.join(sys.argv[2:]) if len(sys.argv) > 1 else "arena ladder"
    write_outputs(out, rows, {"command": command, "games": games, "seed": seed,
                              "anchor": names[0], "specs": names})
    _print_ladder(rows, names[0])
    click.echo(f"written: {out / 'ladder.csv'}, ladder.json, ladder.png, ladder.html")


def _spec_texts(specs: str | None, bots: tuple[str, ...]) -> list[str]:
    """The specs to rate, from --bot, --specs or the default list.

    "mcts:iterations=250,c=0.7" splits into "c=0.7": a piece with no bot before "=" joins
    the spec before it."""
    from arena.ladder.ladder import default_specs

    texts = list(bots) if bots else default_specs() if specs is None else [
        t.strip() for t in specs.replace(";", ",").split(",") if t.strip()]
    joined: list[str] = []
    for text in texts:
        if joined and "=" in text and ":" not in text.partition("=")[0] and \
                "." not in text.partition("=")[0] and ":" in joined[-1]:
            joined[-1] += "," + text
        else:
            joined.append(text)
    return joined


def _print_ladder(rows: list[dict[str, Any]], anchor: str) -> None:
    """The ladder as a table on stdout (Elo against ``anchor``, its interval, games and
    score), and on stderr the notes on what an interval needs."""
    from arena.ladder.ladder import MIN_DEALS, elo_text, interval_text, prior_note

    width = max(len(r["spec"]) for r in rows)
    cells = [(elo_text(r, anchor), interval_text(r, anchor)) for r in rows]
    ci_width = max(14, *(len(c) for _, c in cells))
    click.echo(f"{'spec':<{width}}  {'Elo':>6}  {'95% CI':>{ci_width}}  {'games':>5}  score")
    for r, (elo, ci) in zip(rows, cells, strict=True):
        click.echo(f"{r['spec']:<{width}}  {elo:>6}  {ci:>{ci_width}}  {r['games']:>5}  "
                   f"{r['score']:.1%}")
    note = prior_note(rows, anchor)
    if note:
        click.echo(note, err=True)
    if any(r["games_needed"] == r["games_needed"] for r in rows):
        click.echo(f"note: an interval needs {MIN_DEALS} deals of the spec's own (the report's "
                   "rule)", err=True)
