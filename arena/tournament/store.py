"""A tournament's directory: ``manifest.json`` and ``games.jsonl`` (see ``arena/records.py``).

Only the parent process writes here.  ``games.jsonl`` is opened for appending; each game is
one ``write`` of a whole line followed by a flush, and the file is fsync'd every few seconds
and at the end, so a killed run loses at most the line being written.  Reading it back for
``--resume``, a last line without its newline (cut short by the kill) is dropped from the
file and its game is played again; any other damaged line stops the resume with its line
number, since silently replaying a game in the middle of the file would hide a real problem.
The manifest is replaced atomically (write a temporary file, then rename).

Both files carry MACs keyed by the run's secret in ``run.key`` (``arena/integrity.py``):
each line as it is written, the manifest each time it is; reading them back for
``--resume`` refuses a line or a manifest that fails its MAC, or a game recorded twice with
different contents, naming the line.

A run holds ``run.lock`` (an OS lock, ``flock``) for as long as it plays, so that two runs
cannot append to one directory (two ``--resume`` at once duplicated hundreds of games) or
race on its manifest.  The lock belongs to the open file, not to the file on disk: a run
killed outright releases it with its last process, and a ``run.lock`` left behind blocks
nothing.  The file holds the PID of the run, for the message that refuses a second one.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from arena.integrity import (
    IntegrityError,
    RecordCheck,
    RunKeys,
    damaged_line,
    manifest_problem,
    read_keys,
    sign_manifest,
)
from arena.records import json_problem

MANIFEST = "manifest.json"
GAMES = "games.jsonl"
LOG = "arena.log"
LOCK = "run.lock"
FILE_FORMAT = "takenoko-arena-manifest/1"
#: Seconds between fsyncs of games.jsonl while a run goes on.
FSYNC_EVERY = 5.0


class StoreError(Exception):
    """A directory that cannot be used as asked (one sentence for the user)."""


def now_iso() -> str:
    return datetime.now(UTC).astimezone().isoformat(timespec="seconds")


def arena_version() -> str:
    try:
        from importlib.metadata import version

        return version("takenoko-arena")
    except Exception:  # a source tree that is not installed
        from arena import __version__

        return __version__


#: Descriptors of the locks this process holds (a forked worker closes its copies).
_held: set[int] = set()


@contextlib.contextmanager
def run_lock(directory: Path) -> Iterator[None]:
    """Hold ``directory``'s lock for the block; StoreError naming the holder if another
    run holds it."""
    path = directory / LOCK
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except OSError as exc:
        raise StoreError(f"cannot lock {path}: {exc.strerror or exc}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "unknown"
        os.close(fd)
        raise StoreError(f"{directory} is in use by another run (process {holder}); wait "
                         "for it to end or stop it, then resume") from None
    _held.add(fd)
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        yield
    finally:
        _held.discard(fd)
        os.close(fd)  # releases the lock


def forget_locks() -> None:
    """Close a forked child's copies of its parent's locks: the run is the parent's, and an
    orphaned child must not keep the directory locked."""
    for fd in list(_held):
        with contextlib.suppress(OSError):
            os.close(fd)
    _held.clear()


def read_manifest(directory: Path) -> dict[str, Any]:
    """The manifest of ``directory``; StoreError when missing or unreadable."""
    path = directory / MANIFEST
    if not path.is_file():
        raise StoreError(f"{directory} holds no tournament to resume (no {MANIFEST})")
    try:
        text = path.read_bytes()
    except OSError as exc:
        raise StoreError(f"cannot read {path}: {exc.strerror or exc}") from None
    data, problem = json_problem(text)
    if problem:
        raise StoreError(f"cannot read {path}: {problem}")
    if not isinstance(data, dict) or not str(data.get("file_format", "")).startswith(
        "takenoko-arena-manifest/"
    ):
        raise StoreError(f"{path} is not a takenoko-arena manifest")
    try:
        problem = manifest_problem(read_keys(directory), data)
    except IntegrityError as exc:
        raise StoreError(str(exc)) from None
    if problem:
        raise StoreError(f"{path} {problem}; a run's manifest is written by the arena only")
    return data


def write_manifest(directory: Path, manifest: dict[str, Any],
                   keys: RunKeys | None = None) -> None:
    """Replace the manifest atomically (with its MAC, given the run's keys)."""
    if keys is not None:
        manifest = sign_manifest(keys, manifest)
    path = directory / MANIFEST
    tmp = path.with_suffix(".json.tmp")
    with open(tmp, "w") as f:
        json.dump(manifest, f, indent=2)
        f.write("\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def _is_record(raw: bytes) -> bool:
    record, problem = json_problem(raw)
    return not problem and isinstance(record, dict) and isinstance(record.get("game"), str)


def read_games(directory: Path, keys: RunKeys | None = None, signed: bool = False
               ) -> tuple[list[dict[str, Any]], bool]:
    """The records of ``games.jsonl`` and whether a cut-short last line was dropped.

    The cut line is removed from the file (truncated at the last newline) so that appending
    can go on after it.  ``signed`` (the manifest says the run's files carry MACs): every
    line's MAC is checked with ``keys``, and a game recorded twice must be recorded the same
    (a repeat is dropped); StoreError naming the line otherwise.
    """
    path = directory / GAMES
    if not path.exists():
        return [], False
    data = path.read_bytes()
    cut = False
    end = data.rfind(b"\n") + 1
    if end < len(data) and _is_record(data[end:]):
        # Only the newline is missing (a record cut short never parses: it ends in "}"):
        # a finished game, kept.
        with open(path, "ab") as f:
            f.write(b"\n")
            f.flush()
            os.fsync(f.fileno())
        data += b"\n"
    elif end < len(data):
        cut = True
        with open(path, "r+b") as f:
            f.truncate(end)
            f.flush()
            os.fsync(f.fileno())
        data = data[:end]
    records: list[dict[str, Any]] = []
    checker = RecordCheck(path, keys, signed) if signed else None
    for number, raw in enumerate(data.splitlines(), start=1):
        if not raw.strip():
            continue
        record, problem = json_problem(raw)
        if problem:
            raise StoreError(f"{damaged_line(path, number, 'is ' + problem)} (--resume then "
                             "plays that game again)")
        if not isinstance(record, dict) or not isinstance(record.get("game"), str):
            raise StoreError(f"{damaged_line(path, number, 'is not a game record')} (--resume "
                             "then plays that game again)")
        if checker is not None:
            try:
                if not checker.check(number, raw, record["game"]):
                    continue
            except IntegrityError as exc:
                raise StoreError(str(exc)) from None
        records.append(record)
    return records, cut


class GamesWriter:
    """Appends lines to ``games.jsonl``: flushed at once (or, with ``lazy``, when the run
    says so: once per message of a worker, which may hold many games), fsync'd every few
    seconds.  A line cut short by a kill is dropped by ``read_games`` either way."""

    def __init__(self, directory: Path, *, lazy: bool = False) -> None:
        self.path = directory / GAMES
        self.file: IO[str] = open(self.path, "a", encoding="utf-8")  # noqa: SIM115
        self.synced = time.monotonic()
        self.lazy = lazy

    def write(self, line: str) -> None:
        self.file.write(line + "\n")
        if not self.lazy:
            self.flush()

    def flush(self) -> None:
        self.file.flush()
        if time.monotonic() - self.synced > FSYNC_EVERY:
            self.sync()

    def sync(self) -> None:
        self.file.flush()
        os.fsync(self.file.fileno())
        self.synced = time.monotonic()

    def close(self) -> None:
        if not self.file.closed:
            self.sync()
            self.file.close()
