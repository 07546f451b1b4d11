"""The engine's exceptions: each carries one sentence meant for the person at the terminal."""

from __future__ import annotations

import json
from typing import Any, TypeVar


class ArenaError(Exception):
    """Base class: bad input that the command line reports in one sentence, exit status 2."""


class OptionError(ArenaError, ValueError):
    """An unknown rule option, or a value the option does not take."""


class NotationError(ArenaError, ValueError):
    """Action or event text that does not follow docs/notation.md."""


class IllegalActionError(ArenaError, ValueError):
    """A well-formed action that is not legal at this decision."""


class PositionError(ArenaError, ValueError):
    """A position that is malformed or does not add up; the message names the field."""


class PlacementError(ArenaError, ValueError):
    """A card placement (``GameState.place_card``, an experiment's intervention) that cannot
    be made: the game has begun, the card is not in play, or the seat or depth is out of
    range."""


NO_VALUE: Any = object()
E = TypeVar("E", bound=Exception)

#: The exception of each kind of the Rust core's refusals, by the name the core gives it
#: (``takenoko::error::ErrorKind::name``).
KINDS: dict[str, type[Exception]] = {kind.__name__: kind for kind in (
    OptionError, NotationError, IllegalActionError, PositionError, PlacementError,
    ValueError, IndexError)}


def refusal(kind: type[E], message: str, *, field: str = "", value: Any = NO_VALUE) -> E:
    """The one place a refusal becomes its sentence, on both engines.

    A refusal is data: the exception ``kind``, the ``field`` at fault (``tiles[3].bamboo``),
    a phrase, and the offending ``value``, which the phrase quotes where it says
    ``{value}``. The Rust core hands these over as they are (shakmaty's
    ``PositionErrorKinds`` are data too), so the value is quoted here, as Python writes it
    (``repr``; ``{json}``: as ``quote_json`` does), and the core never imitates ``repr`` to
    give the reference's words.
    """
    if value is not NO_VALUE:
        if "{json}" in message:
            message = message.replace("{json}", quote_json(value), 1)
        else:
            message = message.replace("{value}", repr(value), 1)
    return kind(f"{field}: {message}" if field else message)


def core_refusal(kind: str, message: str, *, field: str = "",
                 value: Any = NO_VALUE) -> Exception:
    """A refusal of the Rust core, its kind by name (``KINDS``), made into its sentence by
    ``refusal`` as the reference's are."""
    return refusal(KINDS[kind], message, field=field, value=value)


def quote_json(value: object) -> str:
    """A JSON value as an error sentence shows it: compact JSON (``repr`` if it is no JSON)."""
    try:
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError):
        return repr(value)
