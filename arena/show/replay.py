"""Re-playing a game record: from its seed and choices, every move checked, every event compared.

A record claims a lot (the moves, the die rolls, the draws, the result); a replay recomputes
all of it from the seed and the choices alone, so a record that went through a text editor, a
different engine version or a faulty worker is caught at the first step where it diverges.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.engine import (
    ArenaError,
    GameState,
    NotationError,
    RuleOptions,
    action_text,
    event_text,
    new_game,
    parse_action,
)
from arena.engine.card_files import from_record
from arena.play.intervention import InterventionError
from arena.play.intervention import apply as apply_intervention
from arena.play.intervention import from_record as intervention_of
from arena.runs.integrity import ChainCheck, IntegrityError, RecordCheck, believed, damaged_line
from arena.runs.reader import RunError, RunFolder, open_run
from arena.runs.records import blamed_seat, json_problem

RESULT_FIELDS = ("scores", "panda_points", "winners", "tiebreak", "emperor", "capped", "rounds",
                 "completed")


#: Parsed notation by text: the texts of moves repeat across games and parsing them in Python
#: is most of a replay's cost (``verify_records`` below re-plays whole runs).  Errors are not
#: cached (each raises again).
_parsed = functools.lru_cache(maxsize=1 << 16)(parse_action)


class RecordError(ArenaError):
    """A record file that cannot be read, or a game id that is not in it."""


@dataclass
class Replay:
    """The outcome of a replay: the state reached, and every disagreement with the record."""

    state: GameState
    moves: int
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def _open(run: Path, note: Callable[[str], None] | None) -> RunFolder:
    """A tournament's folder opened by the one verified reader (``arena.runs.reader``): its
    manifest says how the run is signed (``arena/runs/integrity.py``); what could not be
    checked is said (``note``, or a Python warning)."""
    try:
        folder = open_run(run)
    except RunError as exc:
        raise RecordError(str(exc)) from None
    for warning in folder.warnings:
        if note is None:
            warnings.warn(warning, stacklevel=3)
        else:
            note(warning)
    return folder


def read_records(path: str | Path, *, prove: bool = True,
                 note: Callable[[str], None] | None = None) -> Iterator[dict[str, Any]]:
    """Records of a ``--record`` file (one JSON object), a ``games.jsonl``, or a tournament
    folder (its ``games.jsonl``).  A tournament's records are checked against their signatures
    (``arena/runs/integrity.py``): RecordError naming a line that fails, or a game missing from the
    chain; a run that no key you believe signed reads with a warning (``note`` is given it, a
    Python warning otherwise), and with ``prove`` each of its records must then re-play as
    recorded (``verify_records`` below): RecordError naming the first game that does not."""
    p = Path(path)
    run = p if p.is_dir() else p.parent if p.name == "games.jsonl" else None
    if run is not None and (run / "manifest.json").is_file():
        yield from _run_records(run, prove, note)
        return
    if p.is_dir():
        if not (p / "games.jsonl").is_file():
            raise RecordError(f"{path} is a folder without games.jsonl (not a tournament's "
                              "--out folder)")
        p = path = p / "games.jsonl"
    yield from _file_records(p)


def _file_records(path: Path) -> Iterator[dict[str, Any]]:
    """The records of a file outside a run folder: an ``arena play --record`` file (one
    JSON object) or lines of them, which nothing signs."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise RecordError(f"cannot read {path}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise RecordError(f"{path} is not a text file of game records (not UTF-8)") from None
    stripped = text.strip()
    if not stripped:
        raise RecordError(f"{path} is empty")
    whole, problem = json_problem(stripped)
    if problem is None:
        if not isinstance(whole, dict):
            raise RecordError(f"{path} holds JSON that is not a game record")
        yield whole
        return
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        record, problem = json_problem(line)
        if problem:
            raise RecordError(damaged_line(path, number, f"is {problem}"))
        if not isinstance(record, dict):
            raise RecordError(damaged_line(path, number, "is not a game record"))
        yield record


def _run_records(run: Path, prove: bool, note: Callable[[str], None] | None
                 ) -> Iterator[dict[str, Any]]:
    """The records of a run folder, each line checked by the one verified reader (its
    signature, its place in the chain, the seal); with ``prove``, a run that no key you
    believe signed re-plays each record.  RecordError naming the line or game that fails."""
    folder = _open(run, note)
    unproven = prove and needs_replay(folder.check)
    try:
        for source, record in folder.records(whole_only=False):
            if unproven:
                verify_records([record], source.path)
            yield record
    except RunError as exc:
        raise RecordError(str(exc)) from None
    except IntegrityError as exc:
        raise RecordError(str(exc)) from None


def find_record(path: str | Path, game: str | None) -> dict[str, Any]:
    """The record with id ``game`` (or the only record of the file)."""
    records = list(read_records(path))
    if game is None:
        if len(records) != 1:
            ids = ", ".join(str(r.get("game")) for r in records[:5])
            raise RecordError(
                f"{path} holds {len(records)} games: choose one with --game ID (e.g. {ids})"
            )
        return records[0]
    for record in records:
        if str(record.get("game")) == game:
            return record
    raise RecordError(f"no game {game!r} in {path}")


def _field(record: dict[str, Any], name: str, kind: type) -> Any:
    if name not in record:
        raise RecordError(f"the record has no {name!r} field")
    value = record[name]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise RecordError(f"the record's {name!r} field is not {kind.__name__}")
    return value


def replay_record(
    record: dict[str, Any], *, until: int | None = None,
    before: Callable[[GameState], None] | None = None,
) -> Replay:
    """Re-play a record; stop after ``until`` choices when given (to show a step).

    Problems are collected, not raised: the first illegal or unparsable move stops the replay
    there, while mismatching events and results are all listed.  ``before`` is shown the
    state before each choice is applied (a legal one), for tools that read the positions a
    recorded game went through.
    """
    seats = _field(record, "seats", list)
    seed = _field(record, "seed", int)
    moves = _field(record, "moves", list)
    try:
        options = RuleOptions.from_dict(record.get("options") or {})
    except ArenaError as exc:
        raise RecordError(f"the record's options: {exc}") from None
    try:
        cards = from_record(record, options)
    except ArenaError as exc:
        raise RecordError(str(exc)) from None
    if len(seats) not in (2, 3, 4):
        raise RecordError(f"the record has {len(seats)} seats; a game has 2 to 4")
    if not all(isinstance(name, str) for name in seats):
        raise RecordError("the record's 'seats' field is not a list of names")
    try:
        state = new_game(len(seats), seed, options, cards=cards)
    except ArenaError as exc:
        raise RecordError(f"the record's card_set: {exc}") from None
    try:
        apply_intervention(state, intervention_of(record, cards))
    except (InterventionError, ArenaError) as exc:
        raise RecordError(f"the record's {exc}" if isinstance(exc, InterventionError)
                          else f"the record's intervention: {exc}") from None
    problems: list[str] = []
    done = 0
    for index, line in enumerate(moves):
        if until is not None and done >= until:
            break
        if not isinstance(line, str):
            problems.append(f"move {index}: {line!r} is not text")
            break
        if line.startswith("*"):
            continue
        seat_text, _, text = line.partition(" ")
        if not seat_text.isdigit() or int(seat_text) != state.current:
            problems.append(
                f"move {index} ({line!r}): it is seat {state.current}'s turn to choose"
                if not state.ended
                else f"move {index} ({line!r}): the game is already over"
            )
            break
        try:
            action = _parsed(text, cards)
        except NotationError as exc:
            problems.append(f"move {index}: {exc}")
            break
        if action not in state.legal_actions():
            problems.append(
                f"move {index}: {action_text(action, cards)!r} is not legal for seat "
                f"{state.current} "
                f"(round {state.round}, step {state.step_name})"
            )
            break
        if before is not None:
            before(state)
        state.apply(action)
        done += 1
    if until is None and not problems:
        problems.extend(_compare(record, state, moves))
    return Replay(state, done, problems)


def _compare(record: dict[str, Any], state: GameState, moves: list[str]) -> list[str]:
    """Differences between the recorded history and result and the re-played ones."""
    problems = []
    replayed = [event_text(e, state.card_set) for e in state.history or ()]
    if replayed != moves:
        for i, (a, b) in enumerate(zip(replayed, moves)):
            if a != b:
                problems.append(f"history entry {i}: recorded {b!r}, re-played {a!r}")
                break
        else:
            problems.append(
                f"the history has {len(moves)} entries; the replay gives {len(replayed)}"
            )
    error = record.get("error")
    excluded: tuple[int, ...] = ()
    if error is not None:
        seat = blamed_seat(error, state.players)
        if seat is None:
            return [*problems, f"error: {error!r} is not a fault of a seat of this game "
                               "(seat, kind, message)"]
        excluded = (seat,)
    if not excluded and not state.ended:
        problems.append("the recorded moves stop before the end of the game")
    result = state.result(excluded=excluded).to_dict()
    for name in RESULT_FIELDS:
        if name not in record:
            problems.append(f"{name}: missing from the record, re-played {result[name]!r}")
        elif record[name] != result[name]:
            problems.append(f"{name}: recorded {record[name]!r}, re-played {result[name]!r}")
    return problems

# Records that prove themselves.
# Records that prove themselves: every game re-played from its seed and moves.
#
# A signature (``arena/runs/integrity.py``) by your key, or one you trust, proves who wrote a line;
# a folder signed by an unknown key, or one of an earlier version (a MAC under a run.key that
# travels with it, or none), has nothing to prove that.  The engine is deterministic, so a
# record can prove its own content: re-played from its seed, rules, card set and recorded
# choices, every move must be legal and the history, result and scores must be the ones
# recorded.  A forged winner, an edited score or an illegal move is then refused, whoever
# wrote the line.
#
# What this cannot catch: a game that was really played, with other choices than the bots
# made (the moves of a game are not tied to the bots that chose them).  Only a signature by
# a key you believe says its author's run played it.
#
# The check takes record dicts (the parsed lines of ``games.jsonl``), whatever the storage
# they were read from, so every reader (``arena report``, ``--resume``, ``arena replay``)
# calls the same function.


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


def needs_replay(check: RecordCheck | ChainCheck, verify: bool = False) -> bool:
    """Whether a reader must re-play a run's records: unless a key you believe signed them
    (yours, or one you trust: ``arena/runs/keys.py``), or when asked to (``--verify``).  A MAC
    under ``run.key`` proves nothing about who wrote a folder, so an older run re-plays too."""
    return verify or not believed(check)
