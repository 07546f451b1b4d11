"""The game record: one line of ``games.jsonl``, and the file ``arena play --record`` writes.

The record is the contract between the runner (which writes it), ``arena replay`` (which
checks it) and the reports (which read nothing else), so its fields are spelled out here
once (docs/tournaments.md, "Files", describes them for users).  Their bytes have one writer,
the Rust core's (``referee::record_of`` in ``arena/native/core/src/referee.rs``): the native
referee writes its games' lines with it, and :func:`make_record` hands it the facts of a game
the Python loop played, on either engine (the extension module is always built).

The fields marked *extra* go beyond the fields every record has, added so that a report over
100,000 games need not re-parse every move history.

Fields
------
``game``        str, stable id: ``"{pairing:03d}-{deal:04d}-{rotation}"`` in a tournament,
                ``"play"`` for a single game.
``pairing``     int, *extra*: index of the set of participants in the schedule.
``deal``        int, *extra*: index of the deal within the pairing; the games of one deal share
                ``seed`` and differ only by the seat rotation (the duplicate format).
``rotation``    int, *extra*: seat rotation of this game (0 .. players-1).
``seed``        int, the game seed (deal luck).
``players``     int, *extra*: seats in the game (2-4).
``options``     dict, *extra*: rule options that differ from the defaults.
``card_set``    dict, *extra*: the objective cards played with (``arena/engine/card_files.py``):
                ``{"hash": 12 hex digits of the resolved set, "changes": what differs from the
                printed set, in the ``--cards`` file format}``; ``{"changes": {}}`` with the
                printed set.  Records written before card sets have none (the printed set).
``seats``       list[str], participant names in seat order.
``scores``      list[int], points per seat (objectives + Emperor).
``panda_points``list[int], points of completed panda objectives per seat (the tie-break).
``winners``     list[int], winning seats (several when the victory is shared).
``tiebreak``    ``"none"`` (one top score), ``"panda"`` (decided by panda points) or
                ``"shared"`` (still tied: the winners share).
``emperor``     int | None, seat that took the Emperor card.
``capped``      bool, the game hit the ``max_rounds`` safety cap.
``rounds``      int, rounds played (the round the game ended in).
``completed``   list[list[str]], card ids completed per seat, in completion order.
``drawn``       list[list[str]], card ids drawn per seat, in draw order (the set-up deal first).
``cards``       list[dict], *extra*: one entry per card a seat drew:
                ``{"card", "seat", "drawn_round", "completed_round"}`` (``drawn_round`` 0 is
                the set-up deal; ``completed_round`` null when never completed).
``actions``     list[dict[str, int]], *extra*: per seat, how many times each action kind was
                taken (``plot``, ``irrigation``, ``gardener``, ``panda``, ``objective``).
``weather``     dict[str, int], *extra*: how often each die face was rolled.
``moves``       list[str], the history in notation: ``"S ACTION"`` for a choice by seat S,
                ``"* EVENT"`` for what chance (or the rules) did: ``"0 gardener 1,0"``,
                ``"* roll rain"``, ``"* drew panda-03"``.
``intervention`` list[dict], only in an experiment's games (``arena balance study``): the
                cards placed in the deal before the first decision, in order, each
                ``{"card", "seat"}`` (that seat holds it in place of its dealt card) or
                ``{"card", "depth"}`` (it sits at that depth of its deck); see
                ``arena/play/intervention.py``.  ``arena replay`` places them again.
``seconds``     list[float], thinking time per seat.
``prev``        str | None, in a tournament's ``games.jsonl``: the game written just before
                this line (null for the first): what names a deleted or moved line.
``sig``         str, in a tournament's ``games.jsonl``: Ed25519 (128 hex digits, always the
                last field) over the run's chain digest up to this line
                (``arena/runs/integrity.py``).  Absent, like ``prev``, in ``arena play --record``
                files; records of format 2 end with ``mac`` (an HMAC-SHA256) instead.
``error``       None, or ``{"seat": int, "kind": "crash" | "illegal" | "timeout" |
                "abandoned", "message": str}``: the game was stopped there; the faulty seat
                (or the person who quit, ``abandoned``) does not win, the others are scored
                as the game stood.

The manifest (``manifest.json`` beside ``games.jsonl``)
------------------------------------------------------
``file_format``   ``"takenoko-arena-manifest/3"`` (``/2``: HMACs under ``run.key``; ``/1``:
                  earlier versions, without either).
``arena_version`` str.
``participants``  list of ``{"name", "spec", "class", "params"}`` (params: the bot's parameters
                  with defaults filled in).
``players``       int, seats per game.
``games``         int, games per pairing asked for; ``scheduled`` the total after rounding up to
                  whole seat rotations.
``format``        ``"round-robin"`` or ``"gauntlet"``.
``seed``          int, the master seed.
``options``       dict, every rule option (defaults included) the games were played with.
``card_set``      ``{"hash", "emperor", "points": {card id: points, every card in play},
                  "removed": [card ids], "changes": what differs from the printed set}``
                  (``arena/engine/card_files.py``); absent in manifests written before card sets.
``catalog``       list, every objective card in deck order (removed ones included):
                  ``{"id", "category", "asks": its condition in words, "printed": points,
                  "points": in this run, "removed": bool}``; what the reports know the cards
                  by.  Absent in manifests written before it (``--resume`` adds it).
``move_time``     float | None, the hard limit per decision in seconds.
``sprt``          None or ``{"elo0", "elo1", "alpha", "beta"}`` (plus ``"result"`` when decided).
``started``, ``finished``  ISO-8601 times (``finished`` null while running or interrupted).
``deals``         ``{"keyed": false}`` (public deals, from the master seed), or ``{"keyed":
                  true, "check": the deal key's fingerprint}``, with ``"shared": true`` when
                  the key is a ``--deal-key FILE``'s; absent before keyed deals.
``deal_key``      hex, the run's own deal key, written when a run with keyed deals ends;
                  never a shared key file's (that one stays in its file).
``signer``        ``{"ed25519": hex public key, "fingerprint": 16 hex digits}``: whose key
                  signed the run (``arena/runs/keys.py``).
``run_id``        hex, random: where the run's chain of line digests starts.
``seal``          ``{"games", "chain", "last"}``: the games signed when the run last ended or
                  stopped, the chain digest after them, and the last of them.
``sig``           hex, Ed25519 over the manifest's canonical form (``arena/runs/integrity.py``);
                  ``mac`` in format 2.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TypedDict

import orjson

from arena.runs.moves import TURN_ACTIONS

#: How a game can stop before its end: a bot's fault, or (``abandoned``) a person at the
#: terminal who quit (``arena play --bot human``; never in a tournament).
ERROR_KINDS = ("crash", "illegal", "timeout", "abandoned")


class GameAbandoned(Exception):
    """Raised by a seat whose player leaves the game: the loop records the game as
    ``abandoned`` by that seat (not as its crash), the others scored as it stood."""


def json_problem(text: str | bytes) -> tuple[Any, str | None]:
    """``(value, None)`` for readable JSON, else ``(None, what is wrong)`` in a few words.

    Records, manifests and positions come from files anyone may have edited: JSON nested
    deeper than the reader's recursion allows (RecursionError) and integers of more than
    4,300 digits (Python's limit on converting them, a ValueError that is no
    JSONDecodeError) are named like any other bad JSON, not left to crash the command.
    """
    try:
        return json.loads(text), None
    except json.JSONDecodeError as exc:
        return None, f"not JSON: {exc.msg} (line {exc.lineno})"
    except RecursionError:
        return None, "JSON nested too deeply to read"
    except ValueError:  # int_max_str_digits, or undecodable bytes
        if isinstance(text, bytes | bytearray):
            try:
                text.decode("utf-8")
            except UnicodeDecodeError:
                return None, "not text (not UTF-8)"
        return None, "JSON with an integer of more than 4300 digits"

TIEBREAKS = ("none", "panda", "shared")
ACTION_KINDS = TURN_ACTIONS  # the record's ``actions`` kinds (arena.runs.moves)


class GameError(TypedDict):
    seat: int
    kind: str
    message: str


class CardRecord(TypedDict):
    card: str
    seat: int
    drawn_round: int
    completed_round: int | None


class GameRecord(TypedDict, total=False):
    game: str
    pairing: int
    deal: int
    rotation: int
    seed: int
    players: int
    options: dict[str, Any]
    card_set: dict[str, Any]
    seats: list[str]
    scores: list[int]
    panda_points: list[int]
    winners: list[int]
    tiebreak: str
    emperor: int | None
    capped: bool
    rounds: int
    completed: list[list[str]]
    drawn: list[list[str]]
    cards: list[CardRecord]
    actions: list[dict[str, int]]
    weather: dict[str, int]
    moves: list[str]
    intervention: list[dict[str, Any]]
    seconds: list[float]
    error: GameError | None


#: The record's fields after the game id and the caller's meta: a meta that names one of
#: them is merged in Python (its place kept, the record's value winning).
RECORD_FIELDS = frozenset(GameRecord.__annotations__) - {"game", "pairing", "deal", "rotation"}

_parts: dict[tuple[int, int], tuple[Any, Any, tuple[str, str]]] = {}


def record_parts(options: Any, cards: Any) -> tuple[str, str]:
    """The record's ``options`` and ``card_set`` as JSON text (one configuration plays
    thousands of games: remembered per pair of objects)."""
    from types import SimpleNamespace

    from arena.engine.card_files import record_field

    key = (id(options), id(cards))
    hit = _parts.get(key)
    if hit is not None and hit[0] is options and hit[1] is cards:
        return hit[2]
    field = record_field(SimpleNamespace(options=options, card_set=cards))
    parts = (orjson.dumps(options.to_dict(only_changed=True)).decode(),
             orjson.dumps(field).decode())
    if len(_parts) > 64:
        _parts.clear()
    _parts[key] = (options, cards, parts)
    return parts


def record_head(meta: dict[str, Any]) -> str | None:
    """``{"game":...`` and the meta fields, as the record starts (None when the meta must
    be merged in Python: it names a later field, or is not JSON orjson writes)."""
    if not meta:
        return '{"game":"play"'
    if not RECORD_FIELDS.isdisjoint(meta):
        return None
    try:
        return orjson.dumps({"game": "play", **meta}).decode()[:-1]
    except TypeError:
        return None


def with_meta(line: str, meta: dict[str, Any], head: str | None) -> GameRecord:
    """The record of a line the writer began with ``head`` (``record_head(meta)``); where
    that was None, the meta merged as a dict's update would: its fields in their place after
    ``game``, the record's values winning.  orjson reads a whole number beyond 64 bits as a
    float: a record with such a seed is read by the standard library."""
    record = orjson.loads(line)
    if type(record.get("seed")) is float:
        record = json.loads(line)
    if head is None:
        rest = {k: v for k, v in record.items() if k != "game"}
        record = {"game": "play", **meta, **rest}
    return record  # type: ignore[no-any-return]


def _text(name: Any) -> str:
    """A seat name as the record holds it: text (``str()`` of anything else), UTF-8 (a lone
    surrogate, which no JSON line can hold, becomes U+FFFD)."""
    text = name if type(name) is str else str(name)
    return text.encode("utf-8", "replace").decode("utf-8") if not text.isascii() else text


def make_record(
    state: Any,
    names: list[str],
    seconds: list[float],
    error: GameError | None,
    meta: dict[str, Any],
    intervention: Sequence[Any] = (),
) -> GameRecord:
    """The record of a game from its final state (see the module docstring), written by the
    one writer of record bytes, the core's (``referee::record_of``, which the native referee
    writes its own games with): this hands it the game's facts (the seed, the result with
    the faulty seat excluded, the history, the card set) from either engine's state.
    ``intervention`` (``arena.play.intervention``'s placements) is written only when given."""
    from arena.engine import native

    cards = state.card_set
    result = state.result(excluded=(error["seat"],) if error else ())
    head = record_head(meta)
    # One JSON text the core reads (``takenoko::facts``): the seed as its digits (any int),
    # the completed cards by their index in the game's set.
    facts = {
        "head": head or '{"game":"play"', "seed": str(state.seed),
        "players": state.players, "history": state.history or (),
        "result": {"scores": result.scores, "panda_points": result.panda_points,
                   "winners": result.winners, "tiebreak": result.tiebreak,
                   "emperor": result.emperor, "capped": result.capped,
                   "rounds": result.rounds,
                   "completed": [[cards.index_of(c) for c in done] for done in result.completed]},
        "names": [_text(n) for n in names], "seconds": list(seconds),
        "error": (error["seat"], error["kind"], error["message"]) if error else None,
        "parts": record_parts(state.options, cards),
        "placements": [(cards.index_of(p.card), p.seat, p.depth) for p in intervention],
    }
    line = native._module().record_line(cards, orjson.dumps(facts).decode())
    return with_meta(line, meta, head)


def blamed_seat(error: Any, players: int) -> int | None:
    """The seat a record's ``error`` blames, or None if it is not a fault of a seat of a
    ``players``-seat game (a hand-edited or damaged record): what ``replay`` and
    ``--resume`` check before they believe it."""
    if not isinstance(error, dict) or not isinstance(error.get("kind"), str):
        return None
    seat = error.get("seat")
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < players:
        return None
    return seat


def result_problem(record: dict[str, Any], players: int) -> str | None:
    """What is wrong with the result fields the standings count (None: nothing): what
    ``--resume`` checks of the records it keeps, and the main process of each record a
    worker sends (``arena.tournament.messages``)."""

    def seat(value: Any) -> bool:
        return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < players

    winners, scores, error = record.get("winners"), record.get("scores"), record.get("error")
    if not isinstance(winners, list) or not all(seat(w) for w in winners) \
            or len(set(winners)) != len(winners):
        return f"winners {winners!r} are not seats of the game"
    if not isinstance(scores, list) or len(scores) != players or not all(
            isinstance(x, int | float) and not isinstance(x, bool) for x in scores):
        return f"scores {scores!r} are not one number per seat"
    if not isinstance(record.get("tiebreak"), str):
        return f"tiebreak {record.get('tiebreak')!r} is not text"
    if error is not None and blamed_seat(error, players) is None:
        return f"error {error!r} is not a fault of a seat (seat, kind)"
    return None


def write_problem(path: str | Path) -> str | None:
    """Why ``path`` cannot be written (None if it can), found by opening it for appending:
    the only test that /proc, quotas and ACLs all answer.  Commands ask before their work,
    so that a bad path does not cost a game or a run.  A file this creates is removed."""
    path = Path(path)
    existed = os.path.lexists(path)
    try:
        with open(path, "a"):
            pass
    except OSError as exc:
        return f"cannot write {path}: {exc.strerror or exc}"
    if not existed:
        path.unlink()
    return None
