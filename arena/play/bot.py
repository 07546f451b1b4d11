"""The bot protocol: what a bot is given, what it returns, and how it declares its parameters.

The arena owns it (the game loop, the tournament workers and the bot sandbox all speak it),
so it lives here rather than beside the bots; ``bots.base`` re-exports it under the name the
README and existing bots import (``from bots.base import Bot, Param``).

A bot sees the game only through a ``PlayerView`` (``arena.engine.view``): the board, the
public stocks, its own hand, and the sizes of what it cannot see.  It never receives the game
state, so an honest bot needs no discipline to stay honest; a bot that wants to search calls
``view.determinize(self.rng)`` to get full states consistent with what it knows.

Writing a bot (the README's example, which a test runs)::

    from bots.base import Bot, Param
    from arena.engine.actions import COMPLETE, kind_of

    class Eager(Bot):
        '''Completes an objective once it could have for `patience` decisions; else random.'''

        PARAMS = (Param("patience", int, 0, "decisions to wait before completing", minimum=0),)
        patience: int  # set from the spec, checked against PARAMS

        def start(self, seat, players, options):
            super().start(seat, players, options)
            self.waited = 0

        def choose(self, view, legal):
            completing = [a for a in legal if kind_of(a) == COMPLETE]
            if completing and self.waited >= self.patience:
                self.waited = 0
                return completing[0]
            self.waited += bool(completing)
            others = [a for a in legal if kind_of(a) != COMPLETE]
            return self.rng.choice(others or legal)

Register it in your package's ``pyproject.toml``::

    [project.entry-points."takenoko_arena.bots"]
    eager = "mypkg.mybots:Eager"

or name it by dotted path: ``arena play --bot mypkg.mybots.Eager:patience=2 --bot random``.
How a spec names a bot and how the arena seeds it: ``arena.play.registry``.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from arena import data
from arena.engine import Action, ArenaError, Event, GameResult, PlayerView, RuleOptions
from arena.engine.options import parse_bool


class BotConfigError(ArenaError, ValueError):
    """A bot spec that names no bot, or parameters the bot does not take."""


@dataclass(frozen=True)
class Param:
    """A bot parameter: declared so specs can be validated and ``arena bots`` can list it."""

    name: str
    type: type
    default: Any
    help: str
    #: For text parameters, the values allowed (empty: any).
    choices: tuple[str, ...] = ()
    #: For numbers, the smallest value allowed.
    minimum: float | None = None
    #: For numbers, the largest value allowed: where more only makes a decision take
    #: minutes (a mistyped budget should be refused, not discovered an hour into a run).
    maximum: float | None = None

    def convert(self, value: Any) -> Any:
        """The value as this parameter's type; raises BotConfigError on a bad value."""
        try:
            if self.type is bool:
                if not isinstance(value, bool):
                    # A spec reads ``1`` as an integer before the parameter sees it.
                    text = str(value) if isinstance(value, (str, int)) else ""
                    flag = parse_bool(text)
                    if flag is None:
                        raise ValueError
                    value = flag
            elif self.type is int:
                if isinstance(value, bool) or (isinstance(value, float) and not value.is_integer()):
                    raise ValueError
                value = int(value)
            elif self.type is float:
                if isinstance(value, bool):
                    raise ValueError
                value = float(value)
                if not math.isfinite(value):  # a NaN passes every comparison with a minimum
                    raise ValueError
            else:
                value = str(value)
        except (TypeError, ValueError):
            raise BotConfigError(
                f"parameter {self.name} must be {self.type_name()}, not {value!r}"
            ) from None
        if self.choices and value not in self.choices:
            raise BotConfigError(
                f"parameter {self.name} cannot be {value!r} (valid: {', '.join(self.choices)})"
            )
        if self.minimum is not None and value < self.minimum:
            raise BotConfigError(
                f"parameter {self.name} must be at least {_number(self.minimum)}")
        if self.maximum is not None and value > self.maximum:
            raise BotConfigError(
                f"parameter {self.name} must be at most {_number(self.maximum)}")
        return value

    def range_text(self) -> str:
        """The allowed range for ``arena bots``, e.g. ``1..50`` or ``>= 0``."""
        if self.minimum is not None and self.maximum is not None:
            return f"{_number(self.minimum)}..{_number(self.maximum)}"
        if self.minimum is not None:
            return f">= {_number(self.minimum)}"
        if self.maximum is not None:
            return f"<= {_number(self.maximum)}"
        return ""

    def type_name(self) -> str:
        if self.choices:
            return "|".join(self.choices)
        return {bool: "true|false", int: "an integer", float: "a finite number"}.get(
            self.type, "text")


def _number(value: float) -> str:
    """A bound as a person writes it: 1000000, not 1e+06 or 1000000.0."""
    return str(int(value)) if float(value).is_integer() else str(value)


#: The types a row of ``arena/data/bot_params.json`` names.
_TYPES: dict[str, type] = {"bool": bool, "int": int, "float": float, "str": str}


def declared(bot: str) -> tuple[Param, ...]:
    """A built-in bot's parameters as ``arena/data/bot_params.json`` declares them.

    The native core compiles in the same file (``bots/declared.rs``), so a parameter is
    declared once for both sides: a bot's ``PARAMS = declared("greedy")``.  A bot that is
    ``like`` another takes its parameters with some defaults of its own (none does today); a
    default naming no parameter is an error at import, not a default silently ignored.
    """
    bots = _bot_table()
    entry = bots[bot]
    if "like" in entry:
        params = declared(entry["like"])
        defaults = entry.get("defaults", {})
        unknown = set(defaults) - {p.name for p in params}
        if unknown:
            raise ValueError(f"no such parameters of {entry['like']}: {sorted(unknown)}")
        return tuple(
            dataclasses.replace(p, default=p.type(defaults[p.name])) if p.name in defaults
            else p for p in params)
    return tuple(_param(row) for row in entry["params"])


def _param(row: dict[str, Any]) -> Param:
    """One row of the table; a float parameter's numbers are floats even where JSON wrote 0."""
    kind = _TYPES[row["type"]]
    number = float if kind is float else (lambda v: v)
    bound = {k: number(row[k]) for k in ("minimum", "maximum") if k in row}
    return Param(row["name"], kind, number(row["default"]), row["help"],
                 choices=tuple(row.get("choices", ())), **bound)


@functools.cache
def _bot_table() -> dict[str, Any]:
    """The file's bots, read once."""
    return dict(data.load(data.BOT_PARAMS)["bots"])


class Bot:
    """Base class of every bot.

    The arena creates a bot with its parameters and a seeded ``random.Random`` (the only
    randomness a bot should use, so games replay; ``arena.play.registry.make_bot`` seeds it from
    the game, the seat and the participant's name), calls ``start`` once per game, ``choose``
    at each of its decisions, and the optional hooks ``observe`` (each event its seat may
    see, as an ``Event``) and ``finish``.  One instance plays one game at a time; it may be
    reused for the next game after ``start``.
    """

    #: Declared parameters; a spec may set any of them (``mcts:iterations=200``).
    PARAMS: ClassVar[tuple[Param, ...]] = ()
    #: True for a bot that runs code its spec names (a policy module, say): shipped with the
    #: arena or not, it is not trusted, because what it runs is the user's.
    LOADS_USER_CODE: ClassVar[bool] = False
    #: The native bot (``arena/native/core/src/bots``) that makes exactly this class's
    #: decisions, by its registry name: under the native engine the referee plays that one
    #: instead, with the same parameters and generator.  Declared by the class itself: a
    #: subclass (which may choose otherwise) plays in Python unless it declares it again.
    NATIVE: ClassVar[str | None] = None

    def __init__(self, rng: random.Random | None = None, **params: Any) -> None:
        self.rng = rng if rng is not None else random.Random(0)
        self.params = self.check_params(params)
        for name, value in self.params.items():
            setattr(self, name, value)
        self.seat = 0
        self.players = 2
        self.options = RuleOptions()

    @classmethod
    def check_params(cls, params: dict[str, Any]) -> dict[str, Any]:
        """Every declared parameter with its value (defaults filled in), checked."""
        declared = {p.name: p for p in cls.PARAMS}
        for name in params:
            if name not in declared:
                valid = ", ".join(declared) if declared else "none"
                raise BotConfigError(
                    f"{cls.__name__} has no parameter {name!r} (its parameters: {valid})"
                )
        return {
            name: p.convert(params[name]) if name in params else p.default
            for name, p in declared.items()
        }

    def start(self, seat: int, players: int, options: RuleOptions) -> None:
        """A new game: this bot plays ``seat`` of ``players`` under these rules."""
        self.seat = seat
        self.players = players
        self.options = options

    def choose(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        """One of ``legal`` (the actions of ``arena.engine.actions``), chosen from the view."""
        native = type(self).__dict__.get("NATIVE")
        if native:  # a bot with no Python twin (arena.play.seat.native_only)
            raise NotImplementedError(
                f"the {native} bot has no Python twin: its decisions are the native core's; "
                "make it from its spec (arena.play.registry.make_bot or BotSpec.create), "
                "which seats it natively on either engine")
        raise NotImplementedError

    def observe(self, event: Event) -> None:
        """An event this seat may see: a move of anyone, or chance, as data.

        ``event.kind`` says which (``"move"``, ``"roll"``, ``"drew"``...); a move has its
        ``seat`` and ``action``, a roll its ``face``, a draw its ``cards`` (``None`` where
        another seat's card is hidden, its ``categories`` shown).  ``str(event)`` is the
        notation, as game records write it (docs/notation.md).
        """

    def finish(self, result: GameResult) -> None:
        """The game is over."""

    @classmethod
    def describe(cls) -> str:
        """The first line of the class docstring: what ``arena bots`` prints."""
        doc = (cls.__doc__ or "").strip()
        return doc.splitlines()[0] if doc else cls.__name__
