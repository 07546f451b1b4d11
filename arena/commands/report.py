"""``arena report`` and ``arena export``: a run folder read, checked and summed up."""

from __future__ import annotations

import logging
from pathlib import Path

import click

from arena.commands.common import plural
from arena.commands.user_error import UserError


@click.command()
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
    from arena.show.replay import verify_records
    from reports import experiment

    # The loader logs its warnings too; here they are printed once, below, as warnings.
    logging.getLogger("reports").addHandler(logging.NullHandler())
    started = time.perf_counter()
    try:
        loaded = []
        for d in dirs:
            click.echo(f"reading {d} ...", err=True)
            # A card study's rows come in the same read, for its section.
            tables = experiment.load_tables(Path(d), replay=verify_records, verify=verify)
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
        from arena.show.viewer import write_replays

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


@click.command("export")
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
