"""Where the games of a long command run: ``--workers``, ``--executor`` and ``--scheduler``,
defined once for every command that plays games through the tournament runner.

Why one place: ``arena tournament``, ``arena balance study``, ``arena balance tune`` and the
scripts (``strength.py``, ``balance_calibration.py``) must take the same options with the
same meaning and the same checks, so that a user who learned them once can send any of them
to a cluster.  A command uses it so (click)::

    from arena.commands.executor_options import (
        executor_flags, executor_options, executor_settings, shared_cluster)

    @click.command()
    @executor_options
    def mine(workers, executor, scheduler, **rest):
        settings = executor_settings(workers, executor, scheduler, progress="auto")
        with shared_cluster(settings) as playing:   # only when it plays many runs
            result = run_tournament(config, out, settings=playing)
        if result.interrupted:   # the options given, not the cluster closed by now:
            ...  # "Resume with: ... --resume OUT" + executor_flags(settings)

or so (argparse)::

    add_executor_arguments(ap)                  # beside its own --workers
    settings = executor_settings(args.workers, args.executor, args.scheduler)

``executor_settings`` raises ``UserError`` (one sentence, exit 2) for a Dask run without
dask installed or with a scheduler that cannot be used, before anything is written.  The
executor never changes a record: the same seed gives the same games on the local pool, a
local Dask cluster and a remote scheduler.
"""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any, TypeVar

import click

from arena.commands.user_error import UserError
from arena.tournament.runner import RunSettings, default_workers

EXECUTORS = ("local", "dask")

WORKERS_HELP = "Worker processes (Dask workers of a local cluster) [default: CPU count]."
EXECUTOR_HELP = "Local worker processes, or a Dask cluster."
SCHEDULER_HELP = ("Dask scheduler address (implies --executor dask; without it a local "
                  "cluster of --workers processes is started).")

F = TypeVar("F", bound=Callable[..., Any])


def executor_options(command: F) -> F:
    """The click options ``--workers``, ``--executor`` and ``--scheduler`` (parameters
    ``workers``, ``executor``, ``scheduler``), as ``arena tournament`` has them."""
    for option in reversed((
        click.option("--workers", type=click.IntRange(min=1), default=None,
                     help=WORKERS_HELP),
        click.option("--executor", type=click.Choice(EXECUTORS), default="local",
                     show_default=True, help=EXECUTOR_HELP),
        click.option("--scheduler", metavar="ADDR", default=None, help=SCHEDULER_HELP),
    )):
        command = option(command)
    return command


def add_executor_arguments(ap: argparse.ArgumentParser) -> None:
    """``--executor`` and ``--scheduler`` for a script's parser (it has its own
    ``--workers``, whose default may differ)."""
    ap.add_argument("--executor", choices=EXECUTORS, default="local",
                    help="local worker processes, or a Dask cluster (default: local)")
    ap.add_argument("--scheduler", metavar="ADDR", default=None,
                    help="Dask scheduler address (implies --executor dask; without it a "
                         "local cluster of --workers processes is started)")


def executor_problem(executor: str, scheduler: str | None) -> str | None:
    """Why this executor cannot be used here, or None (asked before a folder is written)."""
    if scheduler:
        executor = "dask"
    if executor not in EXECUTORS:
        return f"--executor {executor!r} is not one of {', '.join(EXECUTORS)}"
    if executor != "dask":
        return None
    try:
        import distributed  # noqa: F401
    except ImportError:
        return ("--executor dask needs dask.distributed: pip install "
                "'takenoko-arena[dask]'")
    if scheduler:
        from arena.tournament import (
            dask_runner,  # looked up here, so a test may shorten its timeout
        )

        return dask_runner.scheduler_problem(scheduler)
    return None


def executor_settings(workers: int | None, executor: str, scheduler: str | None,
                      **fields: Any) -> RunSettings:
    """The ``RunSettings`` of these options (``fields``: its other fields, e.g. progress);
    ``UserError`` when they cannot be used."""
    problem = executor_problem(executor, scheduler)
    if problem:
        raise UserError(problem)
    return RunSettings(workers=workers or default_workers(),
                       executor="dask" if scheduler else executor,
                       scheduler=scheduler or None, **fields)


def executor_text(settings: RunSettings) -> str:
    """Where the games run, for a command's first line (a scheduler's cluster has the
    workers it has, whatever --workers says)."""
    if settings.scheduler:
        return f"on the Dask scheduler {settings.scheduler}"
    return f"{settings.workers} {settings.executor} worker(s)"


def executor_flags(settings: RunSettings) -> str:
    """The options that send a resumed run where this one ran (for "Resume with: ...")."""
    if settings.executor != "dask":
        return ""
    if settings.scheduler:
        return f" --scheduler {settings.scheduler}"
    return f" --executor dask --workers {settings.workers}"


@contextlib.contextmanager
def shared_cluster(settings: RunSettings) -> Iterator[RunSettings]:
    """Settings for a command that plays many runs in a row (tune's rounds, a calibration's
    repetitions): with ``--executor dask`` and no scheduler, one local cluster of
    ``settings.workers`` started here and named as the scheduler of every run, rather than
    a cluster started and stopped per run (a few seconds each); else ``settings`` as they
    are.  The cluster is closed on the way out, Ctrl-C included."""
    if settings.executor != "dask" or settings.scheduler:
        yield settings
        return
    from arena.tournament.dask_runner import local_cluster, quiet_dask

    quiet_dask()
    cluster = local_cluster(settings.workers)
    try:
        yield replace(settings, scheduler=cluster.scheduler_address)
    finally:
        with contextlib.suppress(Exception):
            cluster.close()
