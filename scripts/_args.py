"""argparse types shared by the scripts in this directory.

Why: a count of 0 or a negative time used to pass the parser and fail later, far from its
cause (``statistics.median`` of no runs, a pool of no workers); these types make it a usage
error that names the option, like the ``arena`` commands (``click.IntRange``).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable


def at_least(minimum: int) -> Callable[[str], int]:
    """An int option that must be ``minimum`` or more."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}, not {value}")
        return value

    parse.__name__ = f"int >= {minimum}"
    return parse


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None


def positive_float(text: str) -> float:
    """A float option that must be above 0 (a time, a duration)."""
    value = _number(text)
    if not value > 0:  # also refuses nan
        raise argparse.ArgumentTypeError(f"must be above 0, not {text}")
    return value


def fraction(text: str) -> float:
    """A float option between 0 and 1 (a probability)."""
    value = _number(text)
    if not 0.0 <= value <= 1.0:  # also refuses nan
        raise argparse.ArgumentTypeError(f"must be between 0 and 1, not {text}")
    return value
