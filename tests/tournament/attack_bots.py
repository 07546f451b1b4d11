"""Bots that attack the arena rather than play, one per attack an untrusted bot may try.

Each plays like ``random`` until its decision number ``at`` (counted from 1 in each game),
then attacks.  Loaded by dotted path: ``--bot tests.tournament.attack_bots.TileEditor``.
An attack that fails must cost the attacker its own game (an error blamed on its seat) or
gain it nothing (no hidden information, no changed record); it must never touch another
seat's blame, another game, the rules or the tournament.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from arena.engine import PlayerView
from bots.base import Param

from .broken_bots import _Broken


class TileEditor(_Broken):
    """Deletes a plot from its view's board and lays a new one (a careless simulation)."""

    def misbehave(self, view: PlayerView, legal: Sequence[int]) -> Any:
        cell = next(c for c in view.tiles if c != 0) if len(view.tiles) > 1 else 5
        view.tiles[cell + 1000] = view.tiles.get(cell, 0)  # type: ignore[index]
        del view.tiles[cell]  # type: ignore[attr-defined]
        return legal[0]


class ImprovementEditor(_Broken):
    """Puts an improvement on every plot of its view."""

    def misbehave(self, view: PlayerView, legal: Sequence[int]) -> Any:
        for cell in list(view.tiles):
            view.improvement[cell] = 1  # type: ignore[index]
        return legal[0]


class StockEditor(_Broken):
    """Edits the containers the view holds as copies (bamboo, stores, eaten, completed):
    only its own view changes, so the game goes on as if nothing happened."""

    def misbehave(self, view: PlayerView, legal: Sequence[int]) -> Any:
        for cell in view.bamboo:
            view.bamboo[cell] = 4
        view.stored_channels[:] = [9] * len(view.stored_channels)
        view.eaten[view.seat] = (9, 9, 9)
        view.completed.clear()
        view.shoots.append(123)
        return super().choose(view, legal)


class _Liar(int):
    """An int that equals everything: membership in any list says yes."""

    def __eq__(self, other: object) -> bool:
        return True

    def __hash__(self) -> int:
        return 0

    def __repr__(self) -> str:
        raise RuntimeError("no repr for you")


class EqualsAll(_Broken):
    """Returns an int subclass equal to every action."""

    def misbehave(self, view: PlayerView, legal: Sequence[int]) -> Any:
        return _Liar(123456)


class _Mute(Exception):
    def __str__(self) -> str:
        raise RuntimeError("no str for you")


class MuteError(_Broken):
    """Raises an exception whose ``__str__`` raises."""

    def misbehave(self, view: PlayerView, legal: Sequence[int]) -> Any:
        raise _Mute()


class _Faceless:
    def __repr__(self) -> str:
        raise RuntimeError("no repr for you")


class Faceless(_Broken):
    """Returns an object whose ``__repr__`` raises."""

    def misbehave(self, view: PlayerView, legal: Sequence[int]) -> Any:
        return _Faceless()


class Huge(_Broken):
    """Returns 10**30, whose low bits read as an action."""

    PARAMS = (*_Broken.PARAMS, Param("digits", int, 30, "the power of ten returned"))
    digits: int

    def misbehave(self, view: PlayerView, legal: Sequence[int]) -> Any:
        return 10**self.digits
