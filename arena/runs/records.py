"""The game record: one line of ``games.jsonl``, and the file ``arena play --record`` writes.

The record is the contract between the runner (which writes it), ``arena replay`` (which
checks it) and the reports (which read nothing else), so its fields are spelled out here
once (docs/tournaments.md, "Files", describes them for users).  The ones marked *extra* go
beyond the fields every record has, added so that a report over 100,000 games need not
re-parse every move history.

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
ACTION_KINDS = ("plot", "irrigation", "gardener", "panda", "objective")


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


def make_record(
    state: Any,
    names: list[str],
    seconds: list[float],
    error: GameError | None,
    meta: dict[str, Any],
    intervention: Sequence[Any] = (),
) -> GameRecord:
    """The record of a game from its final state and history (see the module docstring);
    ``intervention`` (``arena.play.intervention``'s placements) is written only when given."""
    from arena.engine.actions import ACTION_NAMES, COMPLETE, TURN_ACTION, card_of, kind_of
    from arena.engine.card_files import record_field
    from arena.engine.components import FACES
    from arena.engine.history import DEALT, DREW, MOVE, ROLLED, event_text

    players = state.players
    result = state.result(excluded=(error["seat"],) if error else ())
    drawn: list[list[str]] = [[] for _ in range(players)]
    cards: list[CardRecord] = []
    where: dict[tuple[int, str], CardRecord] = {}
    actions = [dict.fromkeys(ACTION_NAMES, 0) for _ in range(players)]
    weather = dict.fromkeys(FACES, 0)
    actor = 0
    table = state.card_set.cards

    def drew(seat: int, card: int, round_: int) -> None:
        card_id = table[card].id
        drawn[seat].append(card_id)
        entry: CardRecord = {"card": card_id, "seat": seat, "drawn_round": round_,
                             "completed_round": None}
        cards.append(entry)
        where[(seat, card_id)] = entry

    for entry in state.history or ():
        tag = entry[0]
        if tag == MOVE:
            actor, action = entry[2], entry[3]
            kind = kind_of(action)
            if TURN_ACTION[kind] >= 0:
                actions[actor][ACTION_NAMES[TURN_ACTION[kind]]] += 1
            elif kind == COMPLETE:
                done = where.get((actor, table[card_of(action)].id))
                if done is not None:
                    done["completed_round"] = entry[1]
        elif tag == DEALT:
            for card in entry[3]:
                drew(entry[2], card, 0)
        elif tag == DREW:
            drew(actor, entry[2], entry[1])
        elif tag == ROLLED:
            weather[FACES[entry[2]]] += 1

    record: GameRecord = {
        "game": "play",
        **meta,  # type: ignore[typeddict-item]
        "seed": state.seed,
        "players": players,
        "options": state.options.to_dict(only_changed=True),
        "card_set": record_field(state),
        "seats": list(names),
        "scores": list(result.scores),
        "panda_points": list(result.panda_points),
        "winners": list(result.winners),
        "tiebreak": result.tiebreak,
        "emperor": result.emperor,
        "capped": result.capped,
        "rounds": result.rounds,
        "completed": [list(c) for c in result.completed],
        "drawn": drawn,
        "cards": cards,
        "actions": actions,
        "weather": weather,
        "moves": [event_text(e, state.card_set) for e in state.history or ()],
        "seconds": [round(s, 6) for s in seconds],
        "error": error,
    }
    if intervention:
        record["intervention"] = [p.to_dict() for p in intervention]
    return record


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
