"""Reading a tournament's files into three flat tables.

A tournament writes one JSON object per game (``games.jsonl``, schema in ``arena/runs/records.py``)
and a ``manifest.json``.  Every statistic is a group-by over one of three tables built here
in a single streaming pass, so that 100,000 games (half a gigabyte of JSON with their move
histories) never sit in memory as Python objects:

- ``games``: one row per game (ids, deal, tie-break, Emperor, cap, rounds, error, weather);
- ``seats``: one row per (game, seat): participant, score, win share, finishing rank, actions;
- ``cards``: one row per objective card a seat drew, with the rounds it was drawn and
  completed in.

What each card is (category, condition, points in the run, printed points) is the manifest's
``catalog``, never the engine's data: a report reads nothing but the run's folder, so a run
played with another version of the game, or of its cards, still reports what it played.

Bad input policy.  A missing directory or manifest, or a manifest that is not a JSON object,
raises :class:`ReportError`.  A missing ``games.jsonl`` is a tournament that has not finished
a game yet: a warning, and empty tables.  The last line of ``games.jsonl`` is the one a crash or
a running tournament may have cut short, so a last line that does not parse is skipped with a
warning.  Any other line that is not a game record means the file is damaged, and numbers
computed while silently leaving games out would be wrong without anyone knowing: by default it
raises :class:`ReportError` naming the line; ``strict=False`` skips it with a warning instead.
Games recorded twice (a resumed run) keep their last record, with a warning; records of single
games (id ``play``) are all kept.

Authentication (``arena/runs/integrity.py``).  A signed run (manifest format 3) is read only if its
manifest and every line pass their signatures, in an unbroken chain, with as many games as its
seal counts: otherwise :class:`ReportError` naming the line or the missing game, whatever
``strict`` says (a forged win must never be counted).  A run signed by a key that is neither
yours nor one you trust, a format-2 run (MACs under a ``run.key`` that travels with it) and a
run without either are re-played, given ``replay``; ``Tables.provenance`` says which, first.
A folder holding a symbolic link is refused (``arena.runs.segments.refuse_links``).
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import logging
import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from arena.runs.integrity import (
    ChainCheck,
    IntegrityError,
    RecordCheck,
    believed,
    damaged_line,
    provenance,
)
from arena.runs.moves import TURN_ACTIONS
from arena.runs.reader import GAMES, RunError, RunFolder, open_run, sentence
from arena.runs.reader import read_manifest as read_run_manifest
from arena.runs.segments import has_games

try:  # orjson parses games.jsonl about twice as fast; the standard library is the fallback.
    import orjson

    _loads: Callable[[bytes], Any] = orjson.loads
    _JSONError: tuple[type[Exception], ...] = (orjson.JSONDecodeError, UnicodeDecodeError)
except ImportError:  # pragma: no cover - depends on the environment
    _loads = json.loads
    _JSONError = (json.JSONDecodeError, UnicodeDecodeError)

log = logging.getLogger("reports")

CATEGORIES = ("plot", "gardener", "panda")
#: A record's ``actions`` kinds (``arena.runs.moves``: the schema's one list).
ACTION_KINDS = TURN_ACTIONS
WEATHER_FACES = ("sun", "rain", "wind", "storm", "clouds", "choice")
TIEBREAKS = ("none", "panda", "shared")
_GAME_ID = re.compile(r"^(\d+)-(\d+)-(\d+)$")


class ReportError(Exception):
    """Input the reports cannot read; the message is one sentence meant for the user."""


@dataclass
class Tables:
    """A tournament as DataFrames, ready for the table functions or for a notebook."""

    games: pd.DataFrame
    seats: pd.DataFrame
    cards: pd.DataFrame
    manifest: dict[str, Any]
    catalog: pd.DataFrame
    source: Path
    warnings: list[str] = field(default_factory=list)
    #: Who signed the run and whether games are missing: the report's first lines.
    provenance: list[str] = field(default_factory=list)
    #: What was checked, in one line (``arena report --verify`` prints it).
    verified: str = ""
    #: A card study's games as ``reports.experiment`` reads them, gathered in the same pass
    #: (``experiment.load_tables``); None when not asked for, or not a study.
    experiment: Any = None

    @property
    def participants(self) -> list[str]:
        """Participant names in manifest order (names seen only in the games come last)."""
        return list(self.seats["participant"].cat.categories)

    @property
    def players(self) -> int:
        """Seats per game: the manifest's figure, else the most common one in the games."""
        value = self.manifest.get("players")
        if isinstance(value, int) and value > 0:
            return value
        if len(self.games):
            return int(self.games["players"].mode().iloc[0])
        return 2

    @property
    def label(self) -> str:
        """A short name for the run, used as a column header when runs are compared."""
        return self.source.name or str(self.source)

    # The three ``ok_`` frames are made when asked for and not kept: when some game has an
    # error each is a copy of every column (0.4 GB for the games and seats of a million
    # games, 1 GB for their cards), which a cached property kept for the report's life, and
    # the report's tables ask for them a few times each (about 0.1 s a copy at that size).

    @property
    def ok_games(self) -> pd.DataFrame:
        """Games that ended by the rules (no error), the ones that describe the game itself."""
        return _without_errors(self.games)

    @property
    def ok_seats(self) -> pd.DataFrame:
        """The seats of :attr:`ok_games`."""
        return _without_errors(self.seats)

    @property
    def ok_cards(self) -> pd.DataFrame:
        """The cards drawn in :attr:`ok_games` (the report itself reads single columns with
        :meth:`ok_column`)."""
        return _without_errors(self.cards)

    def ok_rows(self, table: str) -> np.ndarray | slice:
        """Which rows of ``table`` ("games", "seats" or "cards") are of games without error:
        a mask, or every row as a slice (indexing with it copies nothing)."""
        rows = self._ok_rows.get(table)
        if rows is None:
            mask = getattr(self, table)["error"].to_numpy()
            rows = self._ok_rows[table] = ~mask if mask.any() else slice(None)
        return rows

    def ok_column(self, table: str, name: str, dtype: Any = None) -> np.ndarray:
        """One column of :attr:`ok_seats` or :attr:`ok_cards` (``table``: "seats" or
        "cards"; a categorical gives its codes) as an array, without copying the others: the
        card frame is ten rows a game, a gigabyte at a million games, and a filtered copy of
        all of it, kept for the report's life, was a quarter of the report's peak memory."""
        column = getattr(self, table)[name]
        values = column.cat.codes.to_numpy() if isinstance(column.dtype, pd.CategoricalDtype) \
            else column.to_numpy(dtype=dtype)
        return values[self.ok_rows(table)]

    @cached_property
    def _ok_rows(self) -> dict[str, np.ndarray | slice]:
        return {}


def _without_errors(frame: pd.DataFrame) -> pd.DataFrame:
    """Rows of games without error; the frame itself when there are none (no copy of 3M rows)."""
    mask = frame["error"].to_numpy()
    return frame[~mask] if mask.any() else frame


#: The Emperor's points when a manifest says nothing of them (R12's default); a tournament's
#: manifest always does, in its rule options.
DEFAULT_EMPEROR = 2
_CATALOG_COLUMNS = ("card", "category", "asks", "points", "printed", "removed")


def card_catalog(manifest: dict[str, Any] | None = None) -> pd.DataFrame:
    """The objective cards of the run in deck order: ``card``, ``category``, ``asks`` (its
    condition in words), ``points`` (the run's), ``printed``, ``removed``.

    They are the manifest's ``catalog``: the reports read the run's files, never the engine,
    so a run describes its own cards.  A manifest written before the catalog has none, and
    the catalog is rebuilt from what it does hold (:func:`catalog_missing` says what is then
    unknown): the card set's points of every card in play and its removed cards, each card's
    category from its id, no printed points and no conditions.  Older still, without a card
    set, the cards are known only from the games (the loader adds them, as it adds any card a
    catalog lacks) and have no points.
    """
    manifest = manifest or {}
    entries = manifest.get("catalog")
    if isinstance(entries, list):
        return pd.DataFrame({
            "card": [str(e["id"]) for e in entries],
            "category": [str(e["category"]) for e in entries],
            "asks": [str(e.get("asks") or "") for e in entries],
            "points": [_number(e.get("points")) for e in entries],
            "printed": [_number(e.get("printed")) for e in entries],
            "removed": [bool(e.get("removed", False)) for e in entries],
        }, columns=list(_CATALOG_COLUMNS))
    card_set = manifest.get("card_set")
    points: dict[str, Any] = {}
    removed: list[str] = []
    if isinstance(card_set, dict):
        points = card_set.get("points") or {}
        removed = [c for c in card_set.get("removed") or [] if c not in points]
    cards = [*points, *removed]
    return pd.DataFrame({
        "card": cards,
        "category": [_category_of(c) for c in cards],
        "asks": "",
        "points": [_number(points.get(c)) for c in cards],
        "printed": math.nan,
        "removed": [c in removed for c in cards],
    }, columns=list(_CATALOG_COLUMNS))


def catalog_missing(manifest: dict[str, Any]) -> str | None:
    """What a report on this run cannot know for want of the manifest's catalog, or None."""
    if isinstance(manifest.get("catalog"), list):
        return None
    fix = "`arena tournament --resume DIR` adds the catalog"
    if isinstance(manifest.get("card_set"), dict):
        return ("manifest.json has no card catalog (it was written before manifests carried "
                "one): the card points are its card_set's; printed points and what each card "
                f"asks are unknown, so copies of a card are not pooled in suggested points; {fix}")
    return ("manifest.json has neither card catalog nor card set (it was written before "
            "either): the card points are unknown, so the card tables give counts, completion "
            f"rates and turns held but no points, fair values or points per turn; {fix}")


def _number(value: Any) -> float:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) \
        else math.nan


def emperor_points(manifest: dict[str, Any] | None = None) -> int:
    """The Emperor card's points in the run: the manifest's card set, then its rule option
    ``emperor_points``, then R12's default."""
    manifest = manifest or {}
    card_set = manifest.get("card_set")
    if isinstance(card_set, dict) and isinstance(card_set.get("emperor"), int):
        return int(card_set["emperor"])
    options = manifest.get("options")
    rule = options.get("emperor_points") if isinstance(options, dict) else None
    if isinstance(rule, int) and not isinstance(rule, bool):
        return rule
    return DEFAULT_EMPEROR


def card_set_hash(manifest: dict[str, Any]) -> str:
    """The short hash of the run's card set ("printed" for the printed set)."""
    card_set = manifest.get("card_set")
    if isinstance(card_set, dict) and card_set.get("hash"):
        return str(card_set["hash"])
    return "printed"


def _category_of(card: str) -> str:
    head = card.split("-", 1)[0]
    return head if head in CATEGORIES else "other"


def read_manifest(directory: Path) -> dict[str, Any]:
    """The manifest as a dict, its form, bounds and signature checked by the one reader of
    a run (``arena.runs.reader``); :class:`ReportError` when it is missing or not one."""
    try:
        return read_run_manifest(Path(directory))
    except RunError as exc:
        raise ReportError(sentence(exc)) from None


_MOVES = b',"moves":['
_AFTER = b'],"'


def _without_moves(raw: bytes) -> bytes:
    """The line without its ``moves`` list, which the tables never read and which is most of
    a record (9 of a random game's 11 KB): parsing only the rest is the loader's way of
    reading only the columns it needs.  A list of strings cannot hold ``],"`` before its end
    (a quote inside a string is escaped), so the first one after ``"moves":[`` ends it."""
    start = raw.find(_MOVES)
    if start < 0:
        return raw
    end = raw.find(_AFTER, start + len(_MOVES))
    if end < 0:
        return raw
    return raw[:start] + raw[end + 1:]


#: Records re-played at a time: the moves of a chunk are held, not those of the whole run.
_PROVE_CHUNK = 5_000


def _prove(replay: Any, records: list[dict[str, Any]], path: Path) -> None:
    """Re-play ``records`` (the CLI's verifier) and empty the list; a forged one is refused."""
    try:
        replay(records, path)
    except IntegrityError as exc:
        raise ReportError(f"{exc}.") from None
    records.clear()


def _lines(run: RunFolder, strict: bool, warnings: list[str], *, moves: bool = True
           ) -> Iterator[tuple[int, dict[str, Any]]]:
    """A run's records with their numbers, read through the one verified reader
    (``RunFolder.lines``: signatures, chain, seal, identical repeats dropped), applying the
    bad-line policy of the module docstring to the lines that are not JSON.

    Lines are numbered across the sealed segments and the journal (the messages of a
    failed check name the segment and its own line).  ``moves`` False: the records come
    without their ``moves`` (the signature is still checked over the whole line)."""
    path = run.directory / GAMES
    try:
        for line in run.lines(whole_only=False, parse=_parse if moves else _parse_without_moves):
            if line.problem is None:
                yield line.number, line.record
            elif not line.last:
                _bad_line(path, line.number, line.problem, strict, warnings)
            else:
                msg = f"{path.name}: skipped line {line.number}, the last one, which is cut short"
                warnings.append(msg)
                log.warning(msg)
    except RunError as exc:
        raise ReportError(sentence(exc)) from None


def _parse(raw: bytes) -> tuple[Any, str | None]:
    try:
        return _loads(raw), None
    except _JSONError as exc:
        return None, f"is not JSON ({str(exc).splitlines()[0]})"


def _parse_without_moves(raw: bytes) -> tuple[Any, str | None]:
    try:
        return _loads(_without_moves(raw)), None
    except _JSONError:  # the cut was wrong, or the line is bad: the whole line says which
        return _parse(raw)


def _bad_line(path: Path, number: int, why: str, strict: bool, warnings: list[str]) -> None:
    if strict:
        raise ReportError(
            f"{damaged_line(path, number, why)} (from Python, load(..., strict=False) skips "
            "bad lines with a warning)."
        )
    msg = f"{path.name}: skipped line {number}, which {why}"
    warnings.append(msg)
    log.warning(msg)


def _check(record: Any) -> str | None:
    """Why a parsed line is not a usable game record, or None when it is."""
    if not isinstance(record, dict):
        return "is not a JSON object"
    seats = record.get("seats")
    scores = record.get("scores")
    winners = record.get("winners")
    if not isinstance(seats, list) or not seats or not all(isinstance(s, str) for s in seats):
        return "has no 'seats' list of participant names"
    if not isinstance(scores, list) or len(scores) != len(seats):
        return "has no 'scores' list with one score per seat"
    if not all(isinstance(s, int | float) for s in scores):
        return "has a score that is not a number"
    if not isinstance(winners, list) or not all(
        isinstance(w, int) and 0 <= w < len(seats) for w in winners
    ):
        return "has no 'winners' list of seat numbers"
    players = record.get("players")
    if players is not None and players != len(seats):
        return f"says 'players': {str(players)[:20]} but lists {len(seats)} seats"
    error = record.get("error")
    if error is not None:
        seat = error.get("seat") if isinstance(error, dict) else None
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < len(seats):
            return (f"has an error blaming seat {str(seat)[:20]}, which does not exist in a "
                    f"{len(seats)}-seat game")
    return None


#: Card rows kept in lists before they are moved into arrays.
_SPILL = 1 << 18
#: Games read between two moves of the float columns into arrays (``_spill_floats``).
_SPILL_GAMES = 1 << 15
_FLOATS_G = ("top_score", "margin")
_FLOATS_S = ("score", "panda_points", "share", "seconds")


def _rounds(values: list[Any]) -> np.ndarray:
    """Rounds as float32 (numpy turns None, never completed, into NaN)."""
    return np.array(values, dtype=np.float32)


class _Builder:
    """Column lists filled record by record; small ints and shared strings keep them compact."""

    def __init__(self, catalog: pd.DataFrame, participants: list[str]) -> None:
        self.card_code: dict[str, int] = {c: i for i, c in enumerate(catalog["card"])}
        self.card_points: list[float] = list(catalog["points"])
        self.card_cat: list[str] = list(catalog["category"])
        self.card_asks: list[str] = list(catalog["asks"])
        self.card_printed: list[float] = list(catalog["printed"])
        self.card_removed: list[bool] = list(catalog["removed"])
        self.names: dict[str, int] = {p: i for i, p in enumerate(participants)}
        self.faces: dict[str, int] = {f: i for i, f in enumerate(WEATHER_FACES)}
        self.g: dict[str, list[Any]] = {k: [] for k in (
            "game", "line", "pairing", "deal", "rotation", "seed", "players", "tiebreak",
            "emperor", "capped", "rounds", "n_winners", "error_seat", "error_kind",
            "error_message", "options", "top_score", "margin")}
        self.weather: list[list[int]] = [[] for _ in WEATHER_FACES]
        self.s: dict[str, list[Any]] = {k: [] for k in (
            "gi", "seat", "participant", "score", "panda_points", "win", "share", "rank",
            "faulty", "seconds")}
        self.acts: list[list[int]] = [[] for _ in ACTION_KINDS]
        self.c: dict[str, list[Any]] = {k: [] for k in (
            "gi", "seat", "card", "drawn_round", "completed_round")}
        #: Card rows already moved into arrays (``_spill_cards``), oldest first.
        self.c_chunks: list[dict[str, np.ndarray]] = []
        #: The float columns of games and seats already moved into arrays (``_spill_floats``).
        self.f_chunks: dict[str, list[np.ndarray]] = {k: [] for k in (*_FLOATS_G, *_FLOATS_S)}

    def _spill_floats(self) -> None:
        """Move the float columns of the games and seats read so far into arrays.  A float in
        a list is an object of its own; millions of them, freed only at the end, leave the
        heap full of holes between the strings kept (game ids), which the process cannot
        give back: 0.4 GB at a million games, on top of the tables."""
        for table, names in ((self.g, _FLOATS_G), (self.s, _FLOATS_S)):
            for name in names:
                self.f_chunks[name].append(np.asarray(table[name], dtype=float))
                table[name].clear()

    def _floats(self, table: dict[str, list[Any]], name: str) -> np.ndarray:
        """A float column whole: its spilled arrays and the rows read since."""
        return np.concatenate([*self.f_chunks[name], np.asarray(table[name], dtype=float)])

    def _spill_cards(self) -> None:
        """Move the card rows read so far into compact arrays: a card row is five Python
        objects in lists (about 40 bytes of pointers, more for the rounds) but 14 bytes in
        arrays, and cards are ten rows a game: at a million games, the difference between
        fitting in memory and not."""
        c_ = self.c
        self.c_chunks.append({
            "gi": np.asarray(c_["gi"], dtype=np.int32),
            "seat": self._narrow(c_["seat"], np.int16, c_["gi"]),
            "card": np.asarray(c_["card"], dtype=np.int32),
            "drawn_round": _rounds(c_["drawn_round"]),
            "completed_round": _rounds(c_["completed_round"]),
        })
        for column in c_.values():
            column.clear()

    def _card(self, card: str) -> int:
        code = self.card_code.get(card)
        if code is None:
            code = len(self.card_points)
            self.card_code[card] = code
            self.card_points.append(math.nan)
            self.card_cat.append(_category_of(card))
            self.card_asks.append("")
            self.card_printed.append(math.nan)
            self.card_removed.append(False)
        return code

    def _name(self, name: str) -> int:
        code = self.names.get(name)
        if code is None:
            code = self.names[name] = len(self.names)
        return code

    def add(self, number: int, rec: dict[str, Any]) -> None:
        """Append one record, or nothing: a field found bad halfway must not leave some
        columns a row longer than the others."""
        if len(self.c["gi"]) >= _SPILL:
            self._spill_cards()
        if len(self.g["top_score"]) >= _SPILL_GAMES:
            self._spill_floats()
        lengths = [(column, len(column)) for column in (
            *self.g.values(), *self.weather, *self.s.values(), *self.acts, *self.c.values())]
        try:
            self._add(number, rec)
        except Exception:
            for column, length in lengths:
                del column[length:]
            raise

    def _add(self, number: int, rec: dict[str, Any]) -> None:
        """Append one checked record; per-seat work is kept to what needs the whole game."""
        g = self.g
        gi = len(g["game"])
        seats: list[str] = rec["seats"]
        n = len(seats)
        scores = [float(x) for x in rec["scores"]]
        winners = set(rec["winners"])
        panda = rec.get("panda_points")
        panda = ([float(x) for x in panda] if isinstance(panda, list) and len(panda) == n
                 else [0.0] * n)
        error = rec.get("error")
        faulty = error.get("seat") if isinstance(error, dict) else None
        game_id = str(rec.get("game", f"line-{number}"))
        pairing, deal, rotation = rec.get("pairing"), rec.get("deal"), rec.get("rotation")
        if pairing is None or deal is None or rotation is None:
            m = _GAME_ID.match(game_id)
            if m:
                pairing, deal, rotation = (int(x) for x in m.groups())
        g["game"].append(game_id)
        g["line"].append(number)
        g["pairing"].append(-1 if pairing is None else int(pairing))
        g["deal"].append(-1 if deal is None else int(deal))
        g["rotation"].append(-1 if rotation is None else int(rotation))
        seed = rec.get("seed")
        g["seed"].append(seed if isinstance(seed, int) and 0 <= seed < 2**63 else -1)
        players = rec.get("players")
        g["players"].append(players if isinstance(players, int) and 2 <= players <= 4 else n)
        tiebreak = rec.get("tiebreak")
        g["tiebreak"].append(tiebreak if tiebreak in TIEBREAKS else "none")
        emperor = rec.get("emperor")
        g["emperor"].append(emperor if isinstance(emperor, int) and 0 <= emperor < n else -1)
        g["capped"].append(bool(rec.get("capped", False)))
        rounds = rec.get("rounds")
        g["rounds"].append(rounds if isinstance(rounds, int) else -1)
        g["n_winners"].append(len(winners))
        if isinstance(faulty, int) and 0 <= faulty < n:
            g["error_seat"].append(faulty)
        else:  # an error without a seat: the game counts as an error game, no seat at fault
            g["error_seat"].append(-1 if error is None else n)
        g["error_kind"].append(str(error.get("kind", "error")) if isinstance(error, dict) else "")
        g["error_message"].append(
            str(error.get("message", "")) if isinstance(error, dict) else "")
        options = rec.get("options")
        g["options"].append(json.dumps(options, sort_keys=True) if options else "{}")
        eligible = sorted((scores[s] for s in range(n) if s != faulty), reverse=True)
        g["top_score"].append(eligible[0] if eligible else math.nan)
        g["margin"].append(eligible[0] - eligible[1] if len(eligible) > 1 else math.nan)
        weather = rec.get("weather")
        if isinstance(weather, dict):
            for face, idx in self.faces.items():
                self.weather[idx].append(int(weather.get(face, 0)))
        else:
            for column in self.weather:
                column.append(0)
        self._add_seats(gi, rec, scores, winners, panda, faulty)
        self._add_cards(gi, rec, n)

    def _add_seats(self, gi: int, rec: dict[str, Any], scores: list[float], winners: set[int],
                   panda: list[float], faulty: Any) -> None:
        """The seat rows of one game: who sat where, their results and their actions."""
        seats: list[str] = rec["seats"]
        n = len(seats)
        # Finishing order: winners first; the others by (not at fault, score, panda points).
        keys = [(s != faulty, scores[s], panda[s]) for s in range(n)]
        share = 1.0 / len(winners) if winners else 0.0
        won = [s in winners for s in range(n)]
        s_ = self.s
        s_["gi"].extend([gi] * n)
        s_["seat"].extend(range(n))
        s_["participant"].extend([self._name(name) for name in seats])
        s_["score"].extend(scores)
        s_["panda_points"].extend(panda)
        s_["win"].extend(won)
        s_["share"].extend([share if w else 0.0 for w in won])
        s_["rank"].extend([1 if won[s] else max(2, 1 + sum(k > keys[s] for k in keys))
                           for s in range(n)])
        s_["faulty"].extend([s == faulty for s in range(n)])
        seconds = rec.get("seconds")
        if isinstance(seconds, list) and len(seconds) == n:
            s_["seconds"].extend([float(x) if isinstance(x, int | float) else math.nan
                                  for x in seconds])
        else:
            s_["seconds"].extend([math.nan] * n)
        actions = rec.get("actions")
        if isinstance(actions, list) and len(actions) == n:
            acts = [a if isinstance(a, dict) else {} for a in actions]
            for idx, kind in enumerate(ACTION_KINDS):
                self.acts[idx].extend([int(a.get(kind, 0)) for a in acts])
        else:
            for column in self.acts:
                column.extend([0] * n)

    def _add_cards(self, gi: int, rec: dict[str, Any], n: int) -> None:
        """The card rows of one game: each card drawn, by whom, when drawn and completed."""
        c_ = self.c
        cards = rec.get("cards")
        if isinstance(cards, list):
            if not cards:
                return
            code = self.card_code
            c_["gi"].extend([gi] * len(cards))
            c_["seat"].extend([int(e["seat"]) for e in cards])
            c_["card"].extend([code.get(e["card"]) or self._card(str(e["card"]))
                               for e in cards])
            c_["drawn_round"].extend([e.get("drawn_round") for e in cards])
            c_["completed_round"].extend([e.get("completed_round") for e in cards])
            return
        completed = rec.get("completed")
        completed = completed if isinstance(completed, list) and len(completed) == n else None
        drawn = rec.get("drawn")
        drawn = drawn if isinstance(drawn, list) and len(drawn) == n else None
        if drawn is None and completed is None:
            return
        # Older records: who drew and completed what, without the rounds.
        for seat in range(n):
            done_set = {str(c) for c in completed[seat]} if completed is not None else set()
            pool = [str(c) for c in drawn[seat]] if drawn is not None else sorted(done_set)
            for card in pool:
                c_["gi"].append(gi)
                c_["seat"].append(seat)
                c_["card"].append(self._card(card))
                c_["drawn_round"].append(None)
                c_["completed_round"].append(0 if card in done_set else None)

    def _narrow(self, values: list[int], dtype: Any,
                games: list[int] | None = None) -> np.ndarray:
        """A column as ``dtype`` (``games``: the game of each row, for a per-seat or per-card
        column).  Numbers are checked here, once per column, rather than value by value as the
        lines are read (a tenth of the load time); one that does not fit names its line, and
        the report stops there even without ``strict``."""
        try:
            return np.asarray(values, dtype=dtype)
        except OverflowError:
            info = np.iinfo(dtype)
            row = next(i for i, v in enumerate(values) if not info.min <= v <= info.max)
            line = self.g["line"][games[row] if games is not None else row]
            raise ReportError(f"Line {line} of games.jsonl has a number out of range "
                              f"({values[row]}); fix or delete that line.") from None

    def frames(self) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, pd.DataFrame]:
        names = sorted(self.names, key=self.names.__getitem__)
        games = pd.DataFrame({
            "game": pd.Series(self.g["game"], dtype=object),
            "line": np.asarray(self.g["line"], dtype=np.int64),
            "pairing": self._narrow(self.g["pairing"], np.int32),
            "deal": self._narrow(self.g["deal"], np.int32),
            "rotation": self._narrow(self.g["rotation"], np.int16),
            "seed": np.asarray(self.g["seed"], dtype=np.int64),
            "players": np.asarray(self.g["players"], dtype=np.int16),
            "tiebreak": pd.Categorical(self.g["tiebreak"], categories=TIEBREAKS),
            "emperor": np.asarray(self.g["emperor"], dtype=np.int16),
            "capped": np.asarray(self.g["capped"], dtype=bool),
            "rounds": self._narrow(self.g["rounds"], np.int32),
            "n_winners": np.asarray(self.g["n_winners"], dtype=np.int16),
            "error_seat": np.asarray(self.g["error_seat"], dtype=np.int16),
            "error_kind": pd.Series(self.g["error_kind"], dtype=object),
            "error_message": pd.Series(self.g["error_message"], dtype=object),
            "options": pd.Series(self.g["options"], dtype=object),
            "top_score": self._floats(self.g, "top_score"),
            "margin": self._floats(self.g, "margin"),
        })
        games["error"] = games["error_seat"] >= 0
        for idx, face in enumerate(WEATHER_FACES):
            games[f"weather_{face}"] = self._narrow(self.weather[idx], np.int32)

        seats = pd.DataFrame({
            "gi": np.asarray(self.s["gi"], dtype=np.int32),
            "seat": np.asarray(self.s["seat"], dtype=np.int16),
            "participant": pd.Categorical.from_codes(
                np.asarray(self.s["participant"], dtype=np.int32), categories=names),
            "score": self._floats(self.s, "score"),
            "panda_points": self._floats(self.s, "panda_points"),
            "win": np.asarray(self.s["win"], dtype=bool),
            "share": self._floats(self.s, "share"),
            "rank": np.asarray(self.s["rank"], dtype=np.int16),
            "faulty": np.asarray(self.s["faulty"], dtype=bool),
            "seconds": self._floats(self.s, "seconds"),
        })
        for idx, kind in enumerate(ACTION_KINDS):
            seats[f"act_{kind}"] = self._narrow(self.acts[idx], np.int32, self.s["gi"])

        catalog = pd.DataFrame({
            "card": sorted(self.card_code, key=self.card_code.__getitem__),
            "category": self.card_cat,
            "asks": self.card_asks,
            "points": self.card_points,
            "printed": self.card_printed,
            "removed": self.card_removed,
        })
        self._spill_cards()
        chunks = self.c_chunks
        self.c_chunks = []

        def column(name: str, dtype: Any) -> np.ndarray:
            return np.concatenate([c[name] for c in chunks]) if chunks else \
                np.zeros(0, dtype=dtype)

        cards = pd.DataFrame({
            "gi": column("gi", np.int32),
            "seat": column("seat", np.int16),
            "card": pd.Categorical.from_codes(column("card", np.int32),
                                              categories=catalog["card"]),
            "drawn_round": column("drawn_round", np.float32),
            "completed_round": column("completed_round", np.float32),
        })
        return games, seats, cards, catalog


#: What ``load`` calls with a run's manifest: None, or what to call with every checked
#: record (its line number and the record, moves included), in the same pass.
Visitor = Callable[[dict[str, Any]], Callable[[int, dict[str, Any]], None] | None]


def load(directory: str | Path, strict: bool = True,
         replay: Callable[[list[dict[str, Any]], Path], object] | None = None,
         verify: bool = False, visit: Visitor | None = None) -> Tables:
    """Read ``DIR/manifest.json`` and ``DIR/games.jsonl`` into :class:`Tables`.

    ``strict`` is the policy for a damaged line in the middle of ``games.jsonl`` (see the
    module docstring): raise (the default) or skip it with a warning.  ``replay`` (the
    arena's ``arena.show.replay.verify_records``, given by the caller: reports never import the
    engine) is handed every record that no key you believe signed (``integrity.believed``),
    or every record with ``verify``; an IntegrityError it raises becomes a
    ReportError.  ``visit`` (a card study's rows, ``experiment.load_tables``) is given
    the manifest, and what it returns every record, so that the games are read once.
    """
    directory = Path(directory)
    try:
        run = open_run(directory)
    except RunError as exc:
        raise ReportError(sentence(exc)) from None
    manifest, checker = run.manifest, run.check
    warnings: list[str] = []
    for warning in checker.warnings:
        warnings.append(warning)
        log.warning(warning)
    catalog = card_catalog(manifest)
    missing = catalog_missing(manifest)
    if missing:
        warnings.append(missing)
        log.warning(missing)
    participants = [p["name"] for p in manifest.get("participants", [])]
    builder = _Builder(catalog, participants)
    path = directory / GAMES
    prove = replay if replay is not None and (verify or not believed(checker)) else None
    replayed = 0
    if has_games(directory):
        replayed = _read(run, builder, strict, warnings, prove,
                         visit(manifest) if visit is not None else None)
    else:
        msg = f"{directory} has no games.jsonl yet: no game has finished"
        warnings.append(msg)
        log.warning(msg)
    try:
        games, seats, cards, catalog = builder.frames()
        # The column lists are Python objects, several times the frames' size: freed before
        # the frames are sorted and extended, not when this function returns.
        del builder
    except (TypeError, ValueError) as exc:
        raise ReportError(f"{path} has a card entry whose round is not a number ({exc}).") \
            from exc
    games, seats, cards = _tidy(games, seats, cards, warnings, strict, path)
    _derive(games, seats, cards, catalog)
    _release_freed_memory()
    lines, verified = _provenance(checker, manifest, len(games),
                                  replayed if prove is not None else None)
    return Tables(games, seats, cards, manifest, catalog, directory, warnings, lines, verified)


def _read(run: RunFolder, builder: _Builder, strict: bool, warnings: list[str],
          prove: Callable[[list[dict[str, Any]], Path], object] | None,
          each: Callable[[int, dict[str, Any]], None] | None) -> int:
    """Every record of ``run`` into ``builder`` (and to ``each``); re-played by ``prove``
    when given, in chunks; how many were re-played."""
    path = run.directory / GAMES
    known = {p["name"] for p in run.manifest.get("participants", [])}
    old_format: list[int] = []
    unproven: list[dict[str, Any]] = []
    replayed = 0
    # The re-play and a study's rows need the moves; a report without them reads less.
    moves = prove is not None or each is not None
    for number, record in _lines(run, strict, warnings, moves=moves):
        why = _check(record)
        if why is None and known:
            strangers = [s for s in record["seats"] if s not in known]
            if strangers:
                why = f"names participant {strangers[0][:60]!r}, who is not in manifest.json"
        if why is None and "cards" not in record and "drawn" not in record:
            # An older record format, which listed only the cards completed: every card
            # would show as completed every time it was drawn.  Its cards are left out.
            old_format.append(number)
            record = {k: v for k, v in record.items() if k != "completed"}
        if why is not None:
            _bad_line(path, number, f"{why}, so it is not a game record", strict, warnings)
            continue
        if prove is not None:
            unproven.append(record)
            replayed += 1
            if len(unproven) >= _PROVE_CHUNK:
                _prove(prove, unproven, path)
        if each is not None:
            each(number, record)
        try:
            builder.add(number, record)
        except (TypeError, ValueError, KeyError, AttributeError, OverflowError) as exc:
            _bad_line(path, number, f"has a malformed field ({exc!r})", strict, warnings)
    if unproven:
        _prove(prove, unproven, path)
    if old_format:
        msg = (f"{len(old_format)} records (from line {old_format[0]}) are of an older format "
               "without the cards drawn; their games count everywhere but in the card tables")
        warnings.append(msg)
        log.warning(msg)
    return replayed


def _provenance(checker: RecordCheck | ChainCheck, manifest: dict[str, Any], games: int,
                replayed: int | None) -> tuple[list[str], str]:
    """The report's first lines (who signed the run; games missing) and what was verified.

    A run has games missing when it holds fewer than it scheduled and no SPRT stopped it:
    a run killed and not resumed, or (for a folder of an earlier version, which has no seal
    to refuse it by) one whose records were cut."""
    first = provenance(checker)
    if replayed is not None:
        first += f" Its {replayed} games were re-played from their seeds and moves."
    lines = [first]
    scheduled = manifest.get("scheduled")
    sprt = manifest.get("sprt")
    decided = isinstance(sprt, dict) and sprt.get("result") is not None
    if isinstance(scheduled, int) and not isinstance(scheduled, bool) \
            and games < scheduled and not decided:
        lines.append(f"Games missing: {games} of the {scheduled} scheduled games are here "
                     "(the run was stopped, or its records were cut); every figure below is "
                     "of these alone.")
    if isinstance(checker, ChainCheck):
        signed = checker.describe()
    elif checker.signed:
        signed = "MACs under run.key (which prove no author)"
    else:
        signed = "no signatures (an earlier version's run)"
    done = f"{replayed} games re-played" if replayed is not None else "no game re-played"
    return lines, f"verified: {done}, {signed}"


def _tidy(
    games: pd.DataFrame, seats: pd.DataFrame, cards: pd.DataFrame, warnings: list[str],
    strict: bool = True, path: Path | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Drop repeated games (keeping the last record) and sort by game id for determinism.

    A repeat is the same game played again (a resumed run): same id, same seed, same seats.
    An id that comes back with another seed or other seats is a different game, from another
    tournament appended to the file: that is refused, naming both lines (``strict=False``:
    both games are kept, the later one under a new id, with a warning).

    Line order depends on how many workers played, game ids do not; sequential ratings
    (openskill) and the bootstrap's random draws then give the same figures for the same games.
    """
    # "play" is the id of every single game (``arena play --record``): never a repeat.
    ids = games["game"]
    repeated_any = ids.duplicated(keep=False) & (ids != "play")
    if repeated_any.any():
        # Same id, different game: another tournament's records appended to this file.
        who = seats.groupby("gi", sort=True)["participant"].agg(
            lambda x: "|".join(map(str, x)))
        sig = games["seed"].astype(str) + "/" + who.reindex(range(len(games))).fillna("")
        sub = pd.DataFrame({"game": ids, "sig": sig, "line": games["line"]})[repeated_any]
        clash = sub.groupby("game")["sig"].transform("nunique") > 1
        if clash.any():
            first = sub[clash].sort_values("line")
            game_id = first["game"].iloc[0]
            lines = first.loc[first["game"] == game_id, "line"].tolist()
            where = f"{path}" if path is not None else "games.jsonl"
            if strict:
                raise ReportError(
                    f"Lines {lines[0]} and {lines[1]} of {where} both hold game {game_id} but "
                    "with different seeds or seats: the file joins two tournaments; report "
                    "each from its own folder (or load(..., strict=False) keeps both).")
            renamed = games["game"].copy()
            later = sub[clash & sub.duplicated(["game", "sig"], keep="first").eq(False)]
            for game_id, frame in later.groupby("game"):
                for i, idx in enumerate(frame.index[1:], start=2):
                    renamed.iloc[idx] = f"{game_id}#{i}"
            games["game"] = renamed
            msg = (f"{int(clash.sum())} records share a game id with a different game (another "
                   "tournament's records in the same file); kept them all under new ids")
            warnings.append(msg)
            log.warning(msg)
    dup = (games["game"].duplicated(keep="last") & (games["game"] != "play")).to_numpy()
    if dup.any():
        msg = f"{int(dup.sum())} games appear more than once in games.jsonl; kept the last record"
        warnings.append(msg)
        log.warning(msg)
    counts = sorted(int(p) for p in pd.unique(games["players"]))
    if len(counts) > 1:
        msg = (f"games.jsonl mixes games of {', '.join(map(str, counts))} players; the tables "
               "pool them (report each player count from its own tournament folder)")
        warnings.append(msg)
        log.warning(msg)
    order = np.argsort(games["game"].to_numpy(dtype=str), kind="stable")
    order = order[~dup[order]]
    if len(order) == len(games) and np.array_equal(order, np.arange(len(games))):
        return games, seats, cards  # already in id order (one worker): nothing to move
    new_index = np.full(len(games), -1, dtype=np.int32)
    new_index[order] = np.arange(len(order), dtype=np.int32)
    games = games.iloc[order].reset_index(drop=True)
    seats["gi"] = new_index[seats["gi"].to_numpy()]
    cards["gi"] = new_index[cards["gi"].to_numpy()]
    if dup.any():
        seats = seats[seats["gi"].to_numpy() >= 0]
        cards = cards[cards["gi"].to_numpy() >= 0].reset_index(drop=True)
    # A stable sort on the game alone keeps each game's seats in seat order.
    seats = seats.iloc[np.argsort(seats["gi"].to_numpy(), kind="stable")].reset_index(drop=True)
    return games, seats, cards


def _narrow_points(points: np.ndarray) -> np.ndarray:
    """The catalog's points in float32 when every one of them is exactly a float32 (whole
    numbers and halves are): the card rows are ten a game, and the points column is 8 of
    their 47 bytes; a card set priced at 2.1 keeps float64 and its exact points."""
    narrow = points.astype(np.float32)
    same = (narrow.astype(float) == points) | (np.isnan(points) & np.isnan(narrow))
    return narrow if same.all() else points


def _release_freed_memory() -> None:
    """Hand the heap freed by the parse (its column lists) back to the system, where the C
    library allows it (glibc's ``malloc_trim``): what a run's later steps allocate is then
    counted once, not on top of pages the process no longer uses."""
    with contextlib.suppress(OSError, AttributeError):  # not glibc: nothing to do
        ctypes.CDLL("libc.so.6").malloc_trim(0)


def _derive(
    games: pd.DataFrame, seats: pd.DataFrame, cards: pd.DataFrame, catalog: pd.DataFrame
) -> None:
    """Columns every table needs, copied from games to seats and from seats to cards once."""
    # A deal is the group of games sharing a seed and a pairing; with no pairing/deal ids the
    # seed stands in, and with neither each game is its own deal.
    pairing = games["pairing"].to_numpy().astype(np.int64)
    deal = games["deal"].to_numpy().astype(np.int64)
    seed = games["seed"].to_numpy()
    has_ids = (pairing >= 0) & (deal >= 0)
    kind = np.where(has_ids, 0, np.where(seed >= 0, 1, 2))
    value = np.where(has_ids, (pairing << 32) | deal,
                     np.where(seed >= 0, seed, np.arange(len(games), dtype=np.int64)))
    games["deal_key"] = pd.MultiIndex.from_arrays([kind, value]).factorize()[0].astype(np.int32)
    games["stratum"] = pd.factorize(np.where(has_ids, pairing, -1))[0].astype(np.int32)
    gi = seats["gi"].to_numpy()
    for col in ("players", "capped", "rounds", "error", "deal_key", "stratum", "pairing",
                "rotation"):
        seats[col] = games[col].to_numpy()[gi]
    seats["tiebreak"] = games["tiebreak"].to_numpy()[gi]
    seats["shared"] = seats["win"] & (games["n_winners"].to_numpy()[gi] > 1)
    seats["emperor"] = games["emperor"].to_numpy()[gi] == seats["seat"].to_numpy()
    # Seats are sorted by (game, seat) and every game has seats 0..n-1, so a card's seat row
    # is its game's first row plus its seat: no join needed over millions of cards.
    per_game = np.bincount(gi, minlength=len(games))
    first = np.concatenate([[0], np.cumsum(per_game)[:-1]]).astype(np.int64)
    card_gi = cards["gi"].to_numpy()
    card_seat = cards["seat"].to_numpy().astype(np.int64)
    valid = (card_seat >= 0) & (card_seat < per_game[card_gi]) if len(games) else \
        np.zeros(len(cards), dtype=bool)
    pos = first[card_gi] + card_seat if len(games) else np.zeros(len(cards), dtype=np.int64)
    if not valid.all():
        cards.drop(index=cards.index[~valid], inplace=True)
        cards.reset_index(drop=True, inplace=True)
        pos = pos[valid]
    cards["srow"] = pos.astype(np.int32)
    cards["participant"] = pd.Categorical.from_codes(
        seats["participant"].cat.codes.to_numpy()[pos], dtype=seats["participant"].dtype)
    for col in ("share", "win", "players", "error", "capped"):
        cards[col] = seats[col].to_numpy()[pos]
    code = cards["card"].cat.codes.to_numpy()
    kinds = [*CATEGORIES, "other"]
    kind_of_card = np.array([kinds.index(c) if c in kinds else len(CATEGORIES)
                             for c in catalog["category"]], dtype=np.int8)
    cards["category"] = pd.Categorical.from_codes(kind_of_card[code], categories=kinds)
    cards["points"] = _narrow_points(catalog["points"].to_numpy(dtype=float))[code]
    cards["completed"] = ~np.isnan(cards["completed_round"].to_numpy())
    cards["rounds_to_complete"] = cards["completed_round"] - cards["drawn_round"]

    # Per seat, from the cards: how many drawn and completed, points per category.
    srow = cards["srow"].to_numpy()
    done = cards["completed"].to_numpy()
    pts = np.nan_to_num(cards["points"].to_numpy(dtype=float))
    category = kind_of_card[code]
    seats["drawn_n"] = np.bincount(srow, minlength=len(seats)).astype(np.int32)
    seats["completed_n"] = np.bincount(srow, weights=done, minlength=len(seats)).astype(np.int32)
    for i, column in enumerate(("plot_points", "gardener_points", "panda_card_points")):
        seats[column] = np.bincount(srow, weights=pts * (done & (category == i)),
                                    minlength=len(seats))
