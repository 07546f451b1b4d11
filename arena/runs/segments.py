"""The sealed segments of a run's records: ``games/NNNNNN.jsonl.zst`` beside ``games.jsonl``.

A segment is one zstd frame (with its checksum and content size) of whole record lines,
byte for byte as the runner wrote and signed them in ``games.jsonl``, the journal that
``arena.runs.store.GamesWriter`` seals into the next segment every megabyte or so.
This module reads them, and nothing else of the arena: the reports read a run through it
(``tests/test_layering.py``), and so do replay, export and ``--resume``.  Reading order is
the segments by number, then the journal; a journal equal to the newest segment (a kill
between sealing and emptying it) is skipped.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.runs.records import json_problem

try:  # the store's compression; a missing package only matters once a segment is met
    import zstandard
except ImportError:  # pragma: no cover - a dependency of the package
    zstandard = None  # type: ignore[assignment]

#: The folder of sealed segments, and their names (``000001.jsonl.zst`` ...).
SEGMENTS = "games"
SEGMENT_SUFFIX = ".jsonl.zst"
GAMES = "games.jsonl"
#: Journal bytes that make a segment: about 150 skilled 2-player games, 90 random ones.
SEGMENT_BYTES = 1 << 20
#: zstd level of a segment: 680 bytes a greedy-vs-objective game (6.4 KB as JSON) at about
#: 70 MB/s on a loaded core; level 3 gives 950 bytes, level 19 490 bytes at 3 MB/s.
ZSTD_LEVEL = 9
#: The most a segment may inflate to.  The runner seals at a megabyte of journal plus one
#: worker message, so a real segment is a few megabytes at most; a frame that would grow past
#: this is not the arena's (a zstd bomb: 10 KB can claim 300 MB) and is refused unread.
SEGMENT_LIMIT = 64 << 20


class SegmentError(Exception):
    """A segment that cannot be read (one sentence for the user)."""


class LinkedFolder(SegmentError):
    """A run folder holding a symbolic link (one sentence naming it)."""


def refuse_links(directory: Path) -> None:
    """LinkedFolder naming the first symbolic link in a run folder or below it.

    The arena writes into a run's folder (the journal, the lock, the log, the report) and
    reads everything in it; a link planted there by whoever sent the folder would make it
    read or overwrite a file elsewhere.  A run folder the arena wrote holds no link, so one
    is refused rather than followed.  The folder itself may be reached through a link (that
    is the user's own path)."""
    pending = [directory]
    while pending:
        folder = pending.pop()
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except (FileNotFoundError, NotADirectoryError):
            continue
        except OSError as exc:
            raise SegmentError(f"cannot read {folder}: {exc.strerror or exc}") from None
        for entry in entries:
            if entry.is_symlink():
                raise LinkedFolder(
                    f"{entry.path} is a symbolic link: a run folder holding links is refused "
                    "(one could make the arena read or write outside it); remove it")
            if entry.is_dir(follow_symlinks=False):
                pending.append(Path(entry.path))


class DamagedSegment(SegmentError):
    """A sealed segment that is cut short or corrupted: ``good`` holds the complete lines
    before the damage (every earlier game is kept), ``last`` the id of the last of them."""

    def __init__(self, path: Path, good: bytes, last: str | None, why: str) -> None:
        self.path = path
        self.good = good
        self.last = last
        where = f"after game {last}" if last else "at its first game"
        super().__init__(f"{path} is damaged ({why}): its games stop {where}; "
                         f"`arena tournament --resume {path.parent.parent}` keeps the games "
                         "before it and plays the rest again")


def is_record(raw: bytes) -> bool:
    """Whether a line is a whole game record (a line cut short never parses)."""
    record, problem = json_problem(raw)
    return not problem and isinstance(record, dict) and isinstance(record.get("game"), str)


def seal_bytes(data: bytes) -> bytes:
    """``data`` (whole lines) as a segment's zstd frame."""
    if zstandard is None:  # pragma: no cover
        raise SegmentError("sealing the games needs the zstandard package")
    return zstandard.ZstdCompressor(level=ZSTD_LEVEL, write_checksum=True,
                                    write_content_size=True).compress(data)


def segment_paths(directory: Path) -> list[Path]:
    """The sealed segments of ``directory``, oldest first."""
    folder = directory / SEGMENTS
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if p.name.endswith(SEGMENT_SUFFIX))


def has_games(directory: Path) -> bool:
    """Whether ``directory`` holds any game file (a journal or a segment)."""
    return (directory / GAMES).exists() or bool(segment_paths(directory))


def _last_game(good: bytes) -> str | None:
    for raw in reversed(good.splitlines()):
        record, problem = json_problem(raw)
        if not problem and isinstance(record, dict) and isinstance(record.get("game"), str):
            return record["game"]
    return None


def read_segment(path: Path) -> bytes:
    """The lines of a sealed segment (bytes, each line ending in a newline); DamagedSegment
    when the frame is cut short or fails its checksum, with the whole lines before it."""
    if zstandard is None:  # pragma: no cover
        raise SegmentError(f"{path} is compressed with zstd: install the zstandard package")
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        with os.fdopen(fd, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        raise SegmentError(f"cannot read {path}: {exc.strerror or exc}") from None
    limit = SEGMENT_LIMIT >> 20
    bomb = (f"{path} inflates to more than {limit} MB, the most a segment may hold: it is not "
            "one the arena wrote (a compression bomb?); remove it")
    declared = 0
    with contextlib.suppress(zstandard.ZstdError):
        declared = zstandard.get_frame_parameters(data).content_size
    if SEGMENT_LIMIT < declared < zstandard.CONTENTSIZE_ERROR:  # said up front: unread
        raise SegmentError(bomb)
    out = bytearray()
    why = "" if data else "empty"
    try:
        # Streamed, and stopped at the limit: memory is bounded whatever the frame claims.
        reader = zstandard.ZstdDecompressor().stream_reader(data, read_across_frames=False)
        while chunk := reader.read(1 << 16):
            out += chunk
            if len(out) > SEGMENT_LIMIT:
                raise SegmentError(bomb)
    except zstandard.ZstdError as exc:
        why = f"zstd: {exc}"
    if not why:
        # A frame cut short ends the stream without an error: its declared size tells.
        try:
            params = zstandard.get_frame_parameters(data)
            if params.content_size not in (zstandard.CONTENTSIZE_UNKNOWN, len(out)):
                why = f"cut short: {len(out)} of {params.content_size} bytes"
        except zstandard.ZstdError as exc:
            why = f"zstd: {exc}"
    if not why and not out.endswith(b"\n"):
        why = "its last line is incomplete"
    if why:
        good = bytes(out[:out.rfind(b"\n") + 1])
        # A line cut by the damage can still end in a newline; keep whole records only.
        lines = good.splitlines(keepends=True)
        while lines and not is_record(lines[-1]):
            lines.pop()
        good = b"".join(lines)
        raise DamagedSegment(path, good, _last_game(good), why)
    return bytes(out)


def write_segment(directory: Path, data: bytes) -> Path:
    """Seal ``data`` (whole lines) as the next segment, atomically; its path."""
    if zstandard is None:  # pragma: no cover
        raise SegmentError("sealing the games needs the zstandard package")
    folder = directory / SEGMENTS
    folder.mkdir(exist_ok=True)
    existing = segment_paths(directory)
    number = int(existing[-1].name[: -len(SEGMENT_SUFFIX)]) + 1 if existing else 1
    path = folder / f"{number:06d}{SEGMENT_SUFFIX}"
    tmp = path.with_name(path.name + ".tmp")
    frame = seal_bytes(data)
    with open(tmp, "wb") as f:
        f.write(frame)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    dir_fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)
    return path


def stale_journal(journal: bytes, segments: list[Path]) -> bool:
    """Whether the journal is the newest segment's content (a kill between sealing it and
    emptying the journal)."""
    if not journal or not segments:
        return False
    try:
        return read_segment(segments[-1]) == journal
    except SegmentError:
        return False


@dataclass(frozen=True)
class Source:
    """Where a line is: its file and its line number there (for messages)."""

    path: Path
    line: int


def iter_lines(directory: Path, *, whole_only: bool = True
               ) -> Iterator[tuple[Source, bytes]]:
    """Every record line of a run, oldest first, exactly as the runner wrote it (no
    newline): the segments, then the journal.  Read only: a last journal line without its
    newline (a run still writing it, or killed) is left out with ``whole_only``.  A damaged
    segment raises DamagedSegment after the lines before it.  This is the reading API for
    anything that wants today's records: ``iter_records`` parses them."""
    segments = segment_paths(directory)
    for path in segments:
        try:
            data = read_segment(path)
        except DamagedSegment as exc:
            for number, raw in enumerate(exc.good.splitlines(), start=1):
                yield Source(path, number), raw
            raise
        for number, raw in enumerate(data.splitlines(), start=1):
            yield Source(path, number), raw
    journal_path = directory / GAMES
    try:
        fd = os.open(journal_path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise SegmentError(f"cannot read {journal_path}: {exc.strerror or exc}") from None
    with os.fdopen(fd, "rb") as fh:
        journal = fh.read()
    if stale_journal(journal, segments):
        return
    lines = journal.split(b"\n")
    tail = lines.pop()  # b"" when the file ends in a newline
    if tail and not whole_only:
        lines.append(tail)
    for number, raw in enumerate(lines, start=1):
        yield Source(journal_path, number), raw


def iter_records(directory: Path) -> Iterator[dict[str, Any]]:
    """Today's record dicts of a run, in file order (no MAC check: ``read_games`` and the
    reports check them; blank and unparsable lines are skipped)."""
    for _source, raw in iter_lines(directory):
        record, problem = json_problem(raw)
        if not problem and isinstance(record, dict):
            yield record


def seal_journal(directory: Path) -> int:
    """Seal a whole ``games.jsonl`` (a finished run's, not a running one's) into segments of
    about ``SEGMENT_BYTES``, as the runner would have, then empty it; the segments written.
    For benchmarks and tests, and to compact a run of an earlier version by hand."""
    journal = directory / GAMES
    chunk: list[bytes] = []
    size = written = 0
    with journal.open("rb") as fh:
        for line in fh:
            if not line.endswith(b"\n"):
                break  # a cut-short last line stays out, as every reader leaves it
            chunk.append(line)
            size += len(line)
            if size >= SEGMENT_BYTES:
                write_segment(directory, b"".join(chunk))
                chunk, size, written = [], 0, written + 1
    if chunk:
        write_segment(directory, b"".join(chunk))
        written += 1
    journal.write_bytes(b"")
    return written
