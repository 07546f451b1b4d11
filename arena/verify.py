"""Records that prove themselves: every game re-played from its seed and moves.

A MAC (``arena/integrity.py``) proves that a line was written by the run that holds the key;
a folder copied without its ``run.key``, or written by an earlier version without MACs, has
nothing to prove that.  The engine is deterministic, so a record can prove its own content:
re-played from its seed, rules, card set and recorded choices, every move must be legal and
the history, result and scores must be the ones recorded.  A forged winner, an edited score
or an illegal move is then refused, whoever wrote the line.

What this cannot catch: a game that was really played, with other choices than the bots
made (the moves of a game are not tied to the bots that chose them).  Only the MAC, with
the key, says the run's own bots played it.

The check takes record dicts (the parsed lines of ``games.jsonl``), whatever the storage
they were read from, so every reader (``arena report``, ``--resume``, ``arena replay``)
calls the same function.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .engine import ArenaError
from .integrity import IntegrityError
from .replay import RecordError, replay_record


def record_problem(record: dict[str, Any]) -> str | None:
    """What is wrong with a record as a game (None: it re-plays exactly as recorded)."""
    try:
        replay = replay_record(record)
    except (RecordError, ArenaError) as exc:
        return str(exc)
    except (TypeError, ValueError, KeyError, AttributeError, OverflowError) as exc:
        return f"it is malformed ({exc!r})"
    if replay.problems:
        return replay.problems[0]
    return None


def game_name(record: dict[str, Any]) -> str:
    """How a sentence names a recorded game: its id and seed."""
    return f"game {record.get('game')!s:.40} (seed {record.get('seed')!s:.24})"


def verify_records(records: Iterable[dict[str, Any]], source: str | Path) -> int:
    """Re-play every record; IntegrityError (one sentence naming the game and ``source``) at
    the first that does not follow from its seed and moves.  Returns how many were checked."""
    checked = 0
    for record in records:
        problem = record_problem(record)
        if problem is not None:
            raise IntegrityError(
                f"{game_name(record)} in {source} does not re-play as recorded ({problem}): "
                "it was edited or forged; delete its line to have it played again (--resume)")
        checked += 1
    return checked


def needs_replay(signed: bool, keys: object | None, verify: bool = False) -> bool:
    """Whether a reader must re-play a run's records: when their MACs cannot be checked (an
    unsigned run, or no ``run.key``), or when asked to (``--verify``)."""
    return verify or not signed or keys is None
