"""What crosses from a worker to the run's main process: JSON with a schema, never a pickle.

A pickle runs code when it is read: were anything a bot controls ever to reach the main
process as one (a worker's pipe, a Dask result), the bot would run in the process that holds
the run's keys and writes its files.  So workers and Dask tasks send JSON, and the main
process checks each message before it believes it: the game is one it handed out, the
record is a JSON object whose id, seed, seats and intervention (an experiment's cards
placed in the deal) are the schedule's and whose result fields are sound
(``arena.runs.records.result_problem``), and the standings' summary is computed here from
the record, not taken from the worker.

A worker's message is one of::

    {"game": INDEX, "line": "<the record, one JSON line>", "printed": "<bot output>"}
    {"games": [game, ...]}      (a chunk of a native batch: several game messages)
    {"failed": INDEX, "traceback": "<the runner's own error>"}

and a Dask task's result is ``{"worker": ADDRESS, "isolating": BOOL, "games": [game...]}``.
"""

from __future__ import annotations

from typing import Any

import orjson

from arena.engine import native as _engine
from arena.runs.records import result_problem
from arena.tournament.schedule import Schedule
from arena.tournament.worker import Finished, summarize

_native = _engine._native if _engine.selected() == "native" else None

#: The largest message accepted from a worker: a record is a few kB, its bots' output at
#: most a few times ``OUTPUT_LIMIT``.
MESSAGE_LIMIT = 16 << 20


class MessageError(Exception):
    """A message from a worker that is not one (the run stops: a worker is the arena's)."""


class WorkerFailed(Exception):
    """A worker's report that the runner itself failed on a game."""

    def __init__(self, index: int, text: str) -> None:
        super().__init__(text)
        self.index = index
        self.text = text


def encode_finished(item: Finished) -> dict[str, Any]:
    return {"game": item.index, "line": item.line, "printed": item.printed}


def encode(item: Finished) -> bytes:
    """A worker's message for a game played."""
    return orjson.dumps(encode_finished(item))


def encode_many(items: list[Finished]) -> bytes:
    """A worker's message for the games of a list (one game's message when it is one)."""
    if len(items) == 1:
        return encode(items[0])
    return orjson.dumps({"games": [encode_finished(item) for item in items]})


def encode_failure(index: int, text: str) -> bytes:
    return orjson.dumps({"failed": index, "traceback": text})


#: The record's fields the parent checks and counts (``_fields``).
CHECKED = ("game", "seed", "seats", "scores", "winners", "tiebreak", "error", "intervention")


def _fields(line: str) -> Any:
    """The record's fields the parent checks, the whole line checked to be JSON: natively
    when the extension is there (a fifth of the time of ``orjson.loads``, which builds the
    11 kB of moves too), else by ``orjson``."""
    if _native is None:
        return orjson.loads(line)
    return _native.record_fields(line, CHECKED)


def _int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def decode_game(message: Any, schedule: Schedule) -> Finished:
    """A game message (already parsed) as a ``Finished``; MessageError when it is not
    one the schedule can believe."""
    if not isinstance(message, dict) or set(message) - {"game", "line", "printed"}:
        raise MessageError("a worker sent a message that is not a game")
    index, line, printed = message.get("game"), message.get("line"), message.get("printed", "")
    if not _int(index) or not 0 <= index < schedule.total:
        raise MessageError(f"a worker sent game index {index!r}, which is not in the schedule")
    if not isinstance(line, str) or not isinstance(printed, str):
        raise MessageError(f"a worker's message for game index {index} is not text")
    try:
        record = _fields(line)
    except ValueError:  # orjson.JSONDecodeError is one
        raise MessageError(f"a worker's record of game index {index} is not JSON") from None
    game = schedule.games[index]
    if not isinstance(record, dict) or record.get("game") != game.id \
            or record.get("seed") != game.seed or record.get("seats") != schedule.names(game) \
            or record.get("intervention") != game.recorded_intervention():
        raise MessageError(f"a worker's record of game index {index} is not that game of the "
                           "schedule (its id, seed, seats or intervention differ)")
    problem = result_problem(record, schedule.config.players)
    if problem:
        raise MessageError(f"a worker's record of game {game.id}: {problem}")
    return Finished(index, line, summarize(record), printed)


def decode(data: bytes, schedule: Schedule) -> Finished:
    """A worker's message (bytes) as a ``Finished``; WorkerFailed for a failure report,
    MessageError for anything else."""
    try:
        message = orjson.loads(data)
    except orjson.JSONDecodeError:
        raise MessageError("a worker sent a message that is not JSON") from None
    if isinstance(message, dict) and "failed" in message:
        index, text = message.get("failed"), message.get("traceback")
        raise WorkerFailed(index if _int(index) else -1,
                           text if isinstance(text, str) else "(no traceback)")
    return decode_game(message, schedule)


def decode_many(data: bytes, schedule: Schedule) -> list[Finished]:
    """A worker's message (bytes) as its games: one, or a chunk's (``encode_many``);
    WorkerFailed for a failure report, MessageError for anything else."""
    try:
        message = orjson.loads(data)
    except orjson.JSONDecodeError:
        raise MessageError("a worker sent a message that is not JSON") from None
    if isinstance(message, dict) and "failed" in message:
        index, text = message.get("failed"), message.get("traceback")
        raise WorkerFailed(index if _int(index) else -1,
                           text if isinstance(text, str) else "(no traceback)")
    if isinstance(message, dict) and set(message) == {"games"}:
        games = message["games"]
        if not isinstance(games, list) or not games:
            raise MessageError("a worker sent a chunk of games that holds none")
        return [decode_game(game, schedule) for game in games]
    return [decode_game(message, schedule)]


def encode_task(worker: str, isolating: bool, items: list[Finished]) -> bytes:
    """A Dask task's result."""
    return orjson.dumps({"worker": worker, "isolating": isolating,
                         "games": [encode_finished(item) for item in items]})


def decode_task(data: Any, schedule: Schedule) -> tuple[str, bool, list[Finished]]:
    """A Dask task's result: ``(worker, isolating, games)``; MessageError if malformed."""
    if not isinstance(data, bytes | bytearray) or len(data) > MESSAGE_LIMIT * 64:
        raise MessageError("a Dask task returned something that is not its JSON result")
    try:
        message = orjson.loads(data)
    except orjson.JSONDecodeError:
        raise MessageError("a Dask task returned a result that is not JSON") from None
    if not isinstance(message, dict) or not isinstance(message.get("worker"), str) \
            or not isinstance(message.get("isolating"), bool) \
            or not isinstance(message.get("games"), list):
        raise MessageError("a Dask task returned a result without worker, isolating, games")
    return (message["worker"], message["isolating"],
            [decode_game(game, schedule) for game in message["games"]])
