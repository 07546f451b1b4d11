"""The one verified reader of a run folder: what ``--resume``, ``arena replay``, ``arena
export`` and the reports all read a run through.

Opening a folder (:func:`open_run`) refuses a folder holding a symbolic link, reads the
manifest (JSON, a takenoko-arena manifest, sane fields) and checks its signature or MAC,
and chooses the check of its lines by the manifest's format (``arena/runs/integrity.py``):
a signed, chained run's chain, signatures and seal; an older run's MACs.  Its lines
(:meth:`RunFolder.lines`) come from the sealed segments and the journal
(``arena/runs/segments.py``), each checked as it is read: a line that fails its signature,
or is deleted, moved, duplicated, or missing at the end of a sealed run, stops the read with
:class:`RunError` naming it.  What a reader does with a line that is not JSON (refuse it,
skip a cut-short last line) is its own policy: such a line comes with its problem, unchecked.

Before this module each reader had its own copy of these checks (the store's, the report
loader's, the card study's, replay's, export's), and they had drifted: the card study read
lines without checking their signatures.  A new reader of a run's files goes through here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from arena.runs.integrity import (
    ChainCheck,
    IntegrityError,
    RecordCheck,
    RunKeys,
    damaged_line,
    finish,
    folder_check,
    manifest_problem,
    read_keys,
)
from arena.runs.records import json_problem
from arena.runs.segments import SegmentError, Source, iter_lines, refuse_links

MANIFEST = "manifest.json"
GAMES = "games.jsonl"
MANIFEST_FORMAT = "takenoko-arena-manifest/"


class RunError(Exception):
    """A run folder that cannot be believed or read (one sentence for the user)."""


def sentence(exc: BaseException) -> str:
    """An error's message as a sentence of a report: capitalised, ending with a stop."""
    text = str(exc)
    return f"{text[:1].upper()}{text[1:]}{'' if text.endswith('.') else '.'}"


# ----------------------------------------------------------------- the manifest


def read_manifest(directory: Path, *, bounds: bool = True) -> dict[str, Any]:
    """The manifest of ``directory``, its form checked and its signature or MAC too, then
    (``bounds``) its counts, card set and catalog; RunError naming what is wrong.  A caller
    that has its own words for a folder without a manifest (``--resume``: no tournament to
    resume) says them before calling this; one that checks the fields its own way (the
    runner, rebuilding the configuration) leaves out ``bounds``."""
    directory = Path(directory)
    data = _manifest_fields(directory)
    try:
        problem = manifest_problem(read_keys(directory), data)
    except IntegrityError as exc:
        raise RunError(str(exc)) from None
    if problem:
        raise RunError(f"{directory / MANIFEST} {problem}; a run's manifest is written by the "
                       "arena only")
    if bounds:
        _bounds(directory, data)
    return data


def _manifest_fields(directory: Path) -> dict[str, Any]:
    """The manifest, read and its form checked (before its signature, then its bounds)."""
    if not directory.exists():
        raise RunError(f"{directory} does not exist")
    if not directory.is_dir():
        raise RunError(f"{directory} is not a directory; give the tournament's --out folder")
    path = directory / MANIFEST
    if not path.is_file():
        raise RunError(f"{directory} has no {MANIFEST}, so it is not a tournament directory")
    try:
        text = path.read_bytes()
    except OSError as exc:
        raise RunError(f"cannot read {path}: {exc.strerror or exc}") from None
    data, problem = json_problem(text)
    if problem:
        raise RunError(f"{path} is not valid JSON ({problem})")
    if not isinstance(data, dict):
        raise RunError(f"{path} is not a JSON object, so it is not a tournament manifest")
    fmt = data.get("file_format")
    # None: a manifest older than its format's name, which the reports still read.
    if fmt is not None and not (isinstance(fmt, str) and fmt.startswith(MANIFEST_FORMAT)):
        raise RunError(f"{path} has file_format {str(fmt)[:60]!r}, not {MANIFEST_FORMAT}N: "
                       "it is not a takenoko-arena manifest")
    participants = data.get("participants", [])
    if not isinstance(participants, list) or not all(
            isinstance(p, dict) and isinstance(p.get("name"), str) for p in participants):
        raise RunError(f"{path} has a 'participants' entry that is not a list of names")
    return data


def _bounds(directory: Path, manifest: dict[str, Any]) -> None:
    """RunError when a manifest's fields are absurd (after its signature, whose failure says
    more: a manifest edited by hand)."""
    problem = manifest_problem_of_fields(manifest)
    if problem:
        raise RunError(f"{directory / MANIFEST} {problem}")


# Bounds on the manifest's whole-number fields: far beyond any tournament, yet small enough
# that a table sized by them (the paired counts have 2 * players + 1 columns) cannot exhaust
# memory.
_MANIFEST_INTS = {"players": (2, 4), "games": (0, 10**9), "scheduled": (0, 10**9)}


def manifest_problem_of_fields(manifest: dict[str, Any]) -> str | None:
    """Why a manifest's fields are absurd (its counts, card set, catalog), or None."""
    for name, (low, high) in _MANIFEST_INTS.items():
        value = manifest.get(name)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            return f"has '{name}': {str(value)[:40]}, not a whole number from {low} to {high}"
    return _card_set_problem(manifest.get("card_set")) or _catalog_problem(
        manifest.get("catalog"))


def _points_ok(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and 0 <= value <= 1000


def _card_set_problem(card_set: Any) -> str | None:
    if card_set is None:
        return None
    if not isinstance(card_set, dict):
        return "has a 'card_set' that is not a JSON object"
    points = card_set.get("points", {})
    if not isinstance(points, dict) or not all(
            isinstance(k, str) and _points_ok(v) for k, v in points.items()):
        return "has a 'card_set.points' that is not a map of card ids to points from 0 to 1000"
    emperor = card_set.get("emperor")
    if emperor is not None and (isinstance(emperor, bool) or not isinstance(emperor, int)
                                or not 0 <= emperor <= 1000):
        return "has a 'card_set.emperor' that is not a whole number from 0 to 1000"
    removed = card_set.get("removed", [])
    if not isinstance(removed, list) or not all(isinstance(c, str) for c in removed):
        return "has a 'card_set.removed' that is not a list of card ids"
    return None


def _catalog_problem(catalog: Any) -> str | None:
    if catalog is None:
        return None
    what = ("has a 'catalog' that is not a list of cards, each {\"id\", \"category\", "
            "\"asks\", \"printed\", \"points\", \"removed\"}")
    if not isinstance(catalog, list) or not all(isinstance(e, dict) for e in catalog):
        return what
    for i, e in enumerate(catalog):
        if not isinstance(e.get("id"), str) or not isinstance(e.get("category"), str) \
                or not isinstance(e.get("asks", ""), str | None) \
                or not isinstance(e.get("removed", False), bool):
            return f"{what} (entry {i + 1} is not)"
        for name in ("points", "printed"):
            if e.get(name) is not None and not _points_ok(e[name]):
                return f"has a 'catalog' entry {e['id'][:40]!r} whose {name} is not from 0 to 1000"
    seen: set[str] = set()
    for e in catalog:
        if e["id"] in seen:
            return f"has a 'catalog' that lists a card twice ({e['id'][:40]!r})"
        seen.add(e["id"])
    return None


# ----------------------------------------------------------------- the lines


def parse_line(raw: bytes) -> tuple[Any, str | None]:
    """A line's JSON (orjson, twice as fast as the standard library on a long run), or
    ``json_problem``'s words for what is wrong with it."""
    try:
        return orjson.loads(raw), None
    except orjson.JSONDecodeError:
        return json_problem(raw)


@dataclass(frozen=True)
class Line:
    """A line of a run's records: where it is (``source``: its file and line there;
    ``number``: its place among all the run's lines), its bytes, and its record, or the
    problem that kept it from parsing (then it was not checked)."""

    source: Source
    number: int
    raw: bytes
    record: Any
    problem: str | None
    #: Whether a line that did not parse is the run's last (cut short by a kill, or still
    #: being written) rather than one in the middle (damage).
    last: bool = False


@dataclass
class RunFolder:
    """An opened run: its manifest (checked), its keys, and the check of its lines."""

    directory: Path
    manifest: dict[str, Any]
    keys: RunKeys | None
    check: RecordCheck | ChainCheck

    @property
    def warnings(self) -> list[str]:
        """What could not be checked (an unknown signer, no MACs), once."""
        return self.check.warnings

    def lines(self, *, whole_only: bool = True,
              parse: Callable[[bytes], tuple[Any, str | None]] = parse_line,
              ) -> Iterator[Line]:
        """Every non-blank line of the run, oldest first, checked as it is read (see the
        module docstring); an identical repeat of a format-2 run's game is left out; a line
        that does not parse comes unchecked, with its problem (and ``last``).  After
        the last, the chain's last signatures and the seal: RunError when the run was cut.
        ``whole_only`` False: a last journal line without its newline comes too (it will
        not parse, and its reader says it was cut short).  ``parse`` may read less than the
        whole line (the report leaves out the moves); the check covers the whole line."""
        check = self.check
        number = 0
        # A line that does not parse waits for the next: whether it is the last decides
        # what it is, and it is named before the next line's check (which it would break).
        pending: Line | None = None
        try:
            for source, raw in iter_lines(self.directory, whole_only=whole_only):
                number += 1
                if not raw.strip():
                    continue
                if pending is not None:
                    yield pending
                    pending = None
                record, problem = parse(raw)
                if problem is not None:
                    pending = Line(source, number, raw, None, problem)
                    continue
                check.path = source.path
                game = record.get("game") if isinstance(record, dict) else None
                if check.check(source.line, raw, game):
                    yield Line(source, number, raw, record, None)
            if pending is not None:
                yield Line(pending.source, pending.number, pending.raw, None, pending.problem,
                           last=True)
            finish(check)
        except (IntegrityError, SegmentError) as exc:  # a signature, a damaged segment, a link
            raise RunError(str(exc)) from None

    def records(self, *, whole_only: bool = True
                ) -> Iterator[tuple[Source, dict[str, Any]]]:
        """The run's records, checked; RunError naming a line that is not one (with
        ``whole_only`` False, a last line cut short too)."""
        for line in self.lines(whole_only=whole_only, parse=json_problem):
            if line.problem is not None:
                raise RunError(damaged_line(line.source.path, line.source.line,
                                            f"is {line.problem}"))
            if not isinstance(line.record, dict):
                raise RunError(damaged_line(line.source.path, line.source.line,
                                            "is not a game record"))
            yield line.source, line.record


def open_run(directory: Path, manifest: dict[str, Any] | None = None) -> RunFolder:
    """Open a run folder for reading (see the module docstring); RunError naming what is
    wrong.  ``manifest``: one the caller has already read with :func:`read_manifest`."""
    directory = Path(directory)
    try:
        refuse_links(directory)
    except SegmentError as exc:
        raise RunError(str(exc)) from None
    read = manifest is None
    if manifest is None:
        manifest = _manifest_fields(directory)
    try:
        keys = read_keys(directory)
        check = folder_check(directory / GAMES, manifest, keys)
    except IntegrityError as exc:
        raise RunError(str(exc)) from None
    if read:
        _bounds(directory, manifest)
    return RunFolder(directory, manifest, keys, check)
