"""A tournament's directory: ``manifest.json`` and ``games.jsonl`` (see ``arena/runs/records.py``).

Only the parent process writes here.  ``games.jsonl`` is opened for appending; each game is
one ``write`` of a whole line followed by a flush, and the file is fsync'd every few seconds
and at the end, so a killed run loses at most the line being written.  Reading it back for
``--resume``, a last line without its newline (cut short by the kill) is dropped from the
file and its game is played again; any other damaged line stops the resume with its line
number, since silently replaying a game in the middle of the file would hide a real problem.
The manifest is replaced atomically (write a temporary file, then rename).

Compact segments.  ``games.jsonl`` is the open end of the store, a journal: once it holds
``SEGMENT_BYTES`` of lines (and when the run ends) its bytes are compressed with zstd into
the next sealed segment ``games/NNNNNN.jsonl.zst`` (one frame with its checksum, written to a
temporary file, fsync'd and renamed), and only then is the journal emptied.  A segment holds
the journal's lines byte for byte, so a record read back is exactly the line the runner
wrote and signed: every MAC and duplicate check reads as before.  A kill between the rename
and the emptying leaves the journal equal to the newest segment; readers skip it and the next
writer empties it.  A run of an earlier version is a journal without segments.  zstd rather
than Parquet: the lines must stay exactly the signed bytes (a columnar re-encoding would
need a canonical form to MAC), a segment is appended whole, and a cut frame still yields the
games before the cut.

Both files are signed with the author's key (``arena/runs/integrity.py``, ``arena/runs/keys.py``):
each line in a chain as it is written, the manifest (with the seal of the lines so far) each
time it is; reading them back for ``--resume`` refuses a line or a manifest that fails its
signature, or a line deleted, moved, cut or recorded twice, naming it.  The files here are
opened without following links (``O_NOFOLLOW``), and a folder holding one is refused before
anything is opened (``arena.runs.segments.refuse_links``).

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
import logging
import os
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from arena.runs import reader
from arena.runs.integrity import (
    ChainCheck,
    RecordCheck,
    RunKeys,
    damaged_line,
    sign_chained_manifest,
    sign_manifest,
)
from arena.runs.reader import GAMES, MANIFEST, RunError
from arena.runs.segments import (
    SEGMENT_BYTES,
    DamagedSegment,
    SegmentError,
    Source,
    has_games,
    is_record,
    iter_lines,
    iter_records,
    read_segment,
    seal_bytes,
    segment_paths,
    stale_journal,
    write_segment,
)

#: The reading API, for the users of this module: see ``arena/runs/segments.py``.
__all__ = ["DamagedSegment", "SegmentError", "Source", "has_games", "iter_lines",
           "iter_records", "read_segment"]


LOG = "arena.log"
LOCK = "run.lock"
FILE_FORMAT = "takenoko-arena-manifest/1"
#: Seconds between fsyncs of games.jsonl while a run goes on.
FSYNC_EVERY = 5.0
log = logging.getLogger("arena")


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
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o644)
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
    """The manifest of ``directory`` (``arena.runs.reader.read_manifest``: its form and its
    signature checked); StoreError when missing or unreadable."""
    if not (directory / MANIFEST).is_file():
        raise StoreError(f"{directory} holds no tournament to resume (no {MANIFEST})")
    try:
        # The fields are the runner's to check (config_from_manifest names them its way).
        return reader.read_manifest(directory, bounds=False)
    except RunError as exc:
        raise StoreError(str(exc)) from None


def write_manifest(directory: Path, manifest: dict[str, Any],
                   keys: RunKeys | None = None, key: Any = None) -> None:
    """Replace the manifest atomically: signed with ``key`` (your Ed25519 key: format 3),
    else with a MAC given an older run's ``keys``, else as it is."""
    if key is not None:
        manifest = sign_chained_manifest(key, manifest)
    elif keys is not None and keys.secret:
        manifest = sign_manifest(keys, manifest)
    path = directory / MANIFEST
    tmp = path.with_suffix(".json.tmp")
    with contextlib.suppress(FileNotFoundError):
        tmp.unlink()
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                 0o644)
    with os.fdopen(fd, "w") as f:
        json.dump(manifest, f, indent=2)
        f.write("\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def read_games(directory: Path, check: RecordCheck | ChainCheck | None = None
               ) -> tuple[list[dict[str, Any]], bool]:
    """The records of the run (segments, then ``games.jsonl``) and whether games were lost
    (a cut-short last line, or a damaged segment) and must be played again.

    This is ``--resume``'s reader, and it repairs (``_repair``) before it reads through the
    one verified reader (``arena.runs.reader``): the cut journal line is removed (the file
    truncated at its last newline) so that appending can go on after it; a damaged segment
    is renamed ``*.damaged`` and the whole lines before the damage sealed in its place; a
    journal left equal to the newest segment is emptied.  ``check``: the run's check of its
    lines (``folder_check``; opened here from the folder when not given).  A format-2 run's
    MACs are checked and a game recorded twice must be recorded the same (a repeat is
    dropped); a chained run's chain and signatures, and a damaged segment also sets aside
    every later line (``*.unchained``): a chain broken there cannot vouch for them, so their
    games are played again.  StoreError naming a line that fails.
    """
    try:
        run = reader.open_run(directory)
    except RunError as exc:
        raise StoreError(str(exc)) from None
    if check is not None:
        run.check = check
    cut = _repair(directory, run.check if isinstance(run.check, ChainCheck) else None)
    records: list[dict[str, Any]] = []
    for line in run_lines(run):
        why = f"is {line.problem}" if line.problem is not None else None
        if why is None and not (isinstance(line.record, dict)
                                and isinstance(line.record.get("game"), str)):
            why = "is not a game record"
        if why is not None:
            raise StoreError(f"{damaged_line(line.source.path, line.source.line, why)} "
                             "(--resume then plays that game again)")
        records.append(line.record)
    return records, cut


def run_lines(run: reader.RunFolder) -> Iterator[reader.Line]:
    """``run``'s checked lines, a RunError made a StoreError."""
    try:
        yield from run.lines()
    except RunError as exc:
        raise StoreError(str(exc)) from None


def _repair(directory: Path, check: ChainCheck | None) -> bool:
    """Make a killed run's files whole again (see ``read_games``); whether games were lost."""
    cut = False
    segments = segment_paths(directory)
    for index, path in enumerate(segments):
        try:
            read_segment(path)
        except DamagedSegment as exc:
            if check is not None:
                _set_aside(directory, segments[index + 1:])
                check.seal = None  # the games it counts are being played again
            _reseal(path, exc)
            cut = True
            if check is not None:
                break  # the later segments were set aside
    return _repair_journal(directory) or cut


def _reseal(path: Path, exc: DamagedSegment) -> None:
    """Keep a damaged segment aside (``*.damaged``) and seal its whole lines in its place."""
    os.replace(path, path.with_name(path.name + ".damaged"))
    if exc.good:
        frame = seal_bytes(exc.good)
        tmp = path.with_name(path.name + ".tmp")
        with open(tmp, "wb") as f:
            f.write(frame)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    log.warning("%s (kept aside as %s.damaged)", exc, path.name)


def _repair_journal(directory: Path) -> bool:
    """Empty a journal left equal to the newest segment; end a last line that lacks only
    its newline; cut a last line cut short (True: its game is played again)."""
    path = directory / GAMES
    if not path.exists():
        return False
    data = path.read_bytes()
    if stale_journal(data, segment_paths(directory)):
        with open(path, "r+b") as f:
            f.truncate(0)
            os.fsync(f.fileno())
        return False
    end = data.rfind(b"\n") + 1
    if end == len(data):
        return False
    if is_record(data[end:]):
        # Only the newline is missing (a record cut short never parses: it ends in "}"):
        # a finished game, kept.
        with open(path, "ab") as f:
            f.write(b"\n")
            f.flush()
            os.fsync(f.fileno())
        return False
    with open(path, "r+b") as f:
        f.truncate(end)
        f.flush()
        os.fsync(f.fileno())
    return True


def _set_aside(directory: Path, later: list[Path]) -> None:
    """Rename the segments after a damaged one and the journal's lines ``*.unchained``."""
    for path in later:
        os.replace(path, path.with_name(path.name + ".unchained"))
    journal = directory / GAMES
    if journal.exists() and journal.stat().st_size:
        os.replace(journal, journal.with_name(GAMES + ".unchained"))
        journal.touch()
    log.warning("the games after the damaged segment were set aside (*.unchained): the "
                "signed chain breaks there, so they are played again")


class GamesWriter:
    """Appends lines to ``games.jsonl``: flushed at once (or, with ``lazy``, when the run
    says so: once per message of a worker, which may hold many games), fsync'd every few
    seconds, and sealed into a compressed segment every ``segment_bytes`` (at a flush, so
    never in the middle of a message) and at ``close`` (unless the run never filled a
    segment).  A line cut short by a kill is dropped by ``read_games`` either way.
    ``segment_bytes=0`` never seals (the journal alone, as earlier versions wrote)."""

    def __init__(self, directory: Path, *, lazy: bool = False,
                 segment_bytes: int | None = None) -> None:
        self.directory = directory
        self.path = directory / GAMES
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW
                     | os.O_CLOEXEC, 0o644)
        self.file: IO[str] = open(fd, "a", encoding="utf-8")  # noqa: SIM115
        self.synced = time.monotonic()
        self.lazy = lazy
        self.segment_bytes = SEGMENT_BYTES if segment_bytes is None else segment_bytes
        self.pending = self.path.stat().st_size

    def write(self, line: str) -> None:
        self.file.write(line + "\n")
        self.pending += len(line) + 1  # an estimate (non-ASCII text is longer): a trigger
        if not self.lazy:
            self.flush()

    def flush(self) -> None:
        self.file.flush()
        if self.segment_bytes and self.pending >= self.segment_bytes:
            self.seal()
        elif time.monotonic() - self.synced > FSYNC_EVERY:
            self.sync()

    def sync(self) -> None:
        self.file.flush()
        os.fsync(self.file.fileno())
        self.synced = time.monotonic()

    def seal(self) -> None:
        """Compress the journal into the next segment, then empty it (see the module
        docstring for why a kill between the two loses nothing)."""
        self.file.flush()
        data = self.path.read_bytes()
        if data:
            write_segment(self.directory, data)
            self.file.truncate(0)
            os.fsync(self.file.fileno())
            self.synced = time.monotonic()
        self.pending = 0

    def close(self) -> None:
        if not self.file.closed:
            # A run that never filled a segment stays a plain games.jsonl (under a megabyte,
            # read as earlier versions wrote it); a longer one is compressed to its end.
            if self.segment_bytes and self.pending and segment_paths(self.directory):
                self.seal()
            self.sync()
            self.file.close()
