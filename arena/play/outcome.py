"""A finished game as ``arena.play.match.play_game`` returns it, whichever referee played it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from arena.runs.records import GameError, GameRecord


class GameOutcome:
    """A finished (or stopped) game: the final state, its record, and the fault if any.

    The native referee hands back the record as a JSON line and the final state inside
    the core: ``record`` and ``state`` are made from them when first read, so a caller that
    only counts wins pays for neither.
    """

    __slots__ = ("_make_record", "_make_state", "_record", "_state", "error", "line",
                 "seconds")

    def __init__(self, state: Any = None, record: GameRecord | None = None,
                 error: GameError | None = None, seconds: list[float] | None = None, *,
                 make_state: Callable[[], Any] | None = None,
                 make_record: Callable[[], GameRecord] | None = None,
                 line: str | None = None) -> None:
        self._state = state
        self._record = record
        self._make_state = make_state
        self._make_record = make_record
        self.error = error
        self.seconds = seconds if seconds is not None else []
        #: The record as one ``games.jsonl`` line, when the referee wrote it (native).
        self.line = line

    @property
    def state(self) -> Any:
        """The final state (a ``GameState`` with its history)."""
        if self._state is None and self._make_state is not None:
            self._state = self._make_state()
        return self._state

    @property
    def record(self) -> GameRecord:
        """The game record (``arena/runs/records.py``)."""
        if self._record is None and self._make_record is not None:
            self._record = self._make_record()
        assert self._record is not None
        return self._record

    def __repr__(self) -> str:
        return f"GameOutcome(error={self.error!r}, seconds={self.seconds!r})"
