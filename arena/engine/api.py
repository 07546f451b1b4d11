"""The engine's API: what bots, referees, reports and the RL env may ask of a game.

Two engines implement it: the pure-Python reference (``state.py``, ``view.py``,
``position.py``), the readable specification, and the Rust core behind ``arena._native``
(``native.py``), the fast one.  Both are held to the same values by the differential tests.
The API is methods, not containers: what the Protocols below name, and a state changes
only by playing it (``apply``) or through a *named edit* that returns a changed copy
(``with_hand``, ``with_hidden``, ``with_step``, ``with_hidden_from``,
``with_card_points``).  The native engine makes exactly these; a caller that reads the
reference's other fields (``tiles``, ``bamboo``, ...) off a native state gets them from the
reference's object made from it once (``arena.engine.native.reference_of``), so the
extension never imitates the reference's object model, and a new edit is one method on
each engine, tested by value.

Positions (``to_position`` / ``from_position``) are the way in and out for everything
else: a test that needs an unusual board writes its position.

``GameStateAPI`` and ``PlayerViewAPI`` are Protocols: ``isinstance(x, GameStateAPI)`` is
true of both engines' states (``tests/engine/test_api.py`` checks it).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable


@runtime_checkable
class BoardAPI(Protocol):
    """What a state and a view share: the public game and the rules' questions about it."""

    players: int
    round: int
    current: int
    step: int
    ended: bool

    def scores(self) -> list[int]:
        """Points per seat now (R13.3)."""

    def objective_found(self, seat: int, card: int) -> bool:
        """Whether a card's condition holds now for a seat (R10.3-R10.6)."""

    def with_card_points(self, points: Any) -> Any:
        """A copy whose scores sum ``points`` (an archetype plans with weighted points)."""


@runtime_checkable
class GameStateAPI(BoardAPI, Protocol):
    """The whole truth of a game at a decision point."""

    def legal_actions(self) -> list[int]:
        """The actions the current seat may choose now (empty once the game is over)."""

    def apply(self, action: int) -> None:
        """Apply a legal action of the current seat, then chance and forced steps."""

    def play(self, action: int) -> None:
        """``apply`` after checking the action is legal (IllegalActionError if not)."""

    def copy(self, *, history: bool = False) -> GameStateAPI:
        """A cheap, independent copy; the history is dropped unless asked for."""

    def result(self, excluded: Any = ()) -> Any:
        """Scores and winners (R13.3-R13.5); ``excluded`` seats cannot win."""

    def with_hand(self, seat: int, hand: Sequence[int]) -> GameStateAPI:
        """A copy in which ``seat`` holds ``hand``."""

    def with_hidden(
        self,
        *,
        hands: Sequence[Sequence[int]] | None = None,
        objective_decks: Sequence[Sequence[int]] | None = None,
        plot_deck: Sequence[int] | None = None,
        drawn: Sequence[int] | None = None,
        rng: int | None = None,
        seed: int | None = None,
    ) -> GameStateAPI:
        """A copy (history kept) with the hidden parts given replaced."""

    def with_hidden_from(self, sample: GameStateAPI, seat: int) -> GameStateAPI:
        """A copy holding ``sample``'s hidden parts but ``seat``'s own hand."""

    def with_step(self, step: int, weather: int) -> GameStateAPI:
        """A copy at another step of the turn with another weather."""

    def share_layout(self, other: GameStateAPI) -> None:
        """Take the layout objects of ``other``, a state with the same layout (search
        canonicalises its layouts so that caches keyed by identity find them)."""


@runtime_checkable
class PlayerViewAPI(BoardAPI, Protocol):
    """What one seat may know (R2.6)."""

    seat: int

    def determinize(self, rng: random.Random, legal: list[int] | None = None) -> GameStateAPI:
        """A full state consistent with this view, the hidden parts drawn from ``rng``."""

    def to_dict(self) -> dict[str, Any]:
        """Everything in the view, JSON-ready (equal views give equal dicts)."""
