"""The engine's exceptions: each carries one sentence meant for the person at the terminal."""

from __future__ import annotations


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
