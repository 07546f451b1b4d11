"""``arena export``: a run's games as one file for pandas, polars or DuckDB users.

``jsonl`` writes the records exactly as the runner wrote them (signatures included), from
the sealed segments and the journal alike (``arena/runs/segments.py``): a tool that reads today's
``games.jsonl`` reads it unchanged.  Each line is checked as the report checks it (a signed
run's chain and signatures; a format-2 run's MACs, where an identical repeat is written
once).  ``parquet`` and ``csv`` write the report's own tables (``reports.load``): one
row per game, or with ``seats`` one per (game, seat), so that the numbers a user computes
from the export are the ones the report computed.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

import pandas as pd

from arena.runs.reader import RunError, open_run, sentence

from .loader import ReportError, load

FORMATS = ("parquet", "csv", "jsonl")
#: Columns of the loader's tables that are its own bookkeeping, not the game's.
_INTERNAL = ("line", "gi", "deal_key", "stratum", "srow")


def export(directory: Path, fmt: str, out: Path, *, seats: bool = False,
           force: bool = False) -> int:
    """Write ``directory``'s games to ``out`` in ``fmt``; the number of rows written.
    ReportError (one sentence) for an unreadable run, an existing ``out`` without ``force``,
    or parquet without pyarrow.  The file is written beside ``out`` and renamed at the end:
    an interrupted export leaves no half file under its name."""
    if fmt not in FORMATS:
        raise ReportError(f"--format must be one of {', '.join(FORMATS)}, not {fmt!r}.")
    if out.exists() and not force:
        raise ReportError(f"{out} already exists; choose another --out or add --force.")
    if fmt == "jsonl" and seats:
        raise ReportError("--seats is for parquet and csv; jsonl writes whole records.")
    if fmt == "parquet":
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            raise ReportError("--format parquet needs the pyarrow package (pip install "
                              "'takenoko-arena[parquet]'); csv and jsonl need nothing.") \
                from None
    tmp = out.with_name(f".{out.name}.tmp")
    try:
        if fmt == "jsonl":
            rows = _jsonl(directory, tmp)
        else:
            frame = _frame(directory, seats)
            if fmt == "csv":
                frame.to_csv(tmp, index=False)
            else:
                frame.to_parquet(tmp, index=False)
            rows = len(frame)
        os.replace(tmp, out)
    except OSError as exc:
        raise ReportError(f"cannot write {out}: {exc.strerror or exc}.") from None
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
    return rows


def _jsonl(directory: Path, tmp: Path) -> int:
    """The run's lines, each checked by the one verified reader, written as they are."""
    try:
        run = open_run(directory)
    except RunError as exc:
        raise ReportError(sentence(exc)) from None
    rows = 0
    with open(tmp, "wb") as fh:
        try:
            for line in run.lines():
                if line.problem is not None:
                    raise ReportError(f"Line {line.source.line} of {line.source.path} is not a "
                                      "game record.")
                fh.write(line.raw + b"\n")
                rows += 1
        except RunError as exc:
            raise ReportError(sentence(exc)) from None
    return rows


def _frame(directory: Path, seats: bool) -> pd.DataFrame:
    tables = load(directory)
    games = tables.games
    names = tables.seats.groupby("gi", sort=True)["participant"].agg(
        lambda x: " vs ".join(map(str, x)))
    if seats:
        frame = tables.seats.copy()
        frame.insert(0, "game", games["game"].to_numpy()[frame["gi"].to_numpy()])
    else:
        frame = games.copy()
        frame.insert(1, "seats", names.reindex(range(len(games))).fillna("").to_numpy())
        frame["options"] = [o if isinstance(o, str) else json.dumps(o, sort_keys=True)
                            for o in frame["options"]]
    frame = frame.drop(columns=[c for c in _INTERNAL if c in frame.columns])
    for column in frame.columns:
        if isinstance(frame[column].dtype, pd.CategoricalDtype):
            frame[column] = frame[column].astype(str)
    return frame.reset_index(drop=True)
