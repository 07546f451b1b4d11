"""Rule options (RULES.md R12): the points where published summaries disagree, as parameters.

Options are one frozen object so a tournament can compare rule sets and a game record can say
exactly what was played.  Parsing is strict: an unknown option or value is an error that names
it and lists what is valid, because a typo silently falling back to a default would corrupt a
balance study.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import Any

from .errors import OptionError

CLOUD_WHEN_EMPTY = ("other_weather", "move_improvement")
REDRAW_SATISFIED = ("none", "plot_gardener", "all")
BAMBOO_SUPPLY = ("unlimited", "limited")
DEFAULT_OBJECTIVES_TO_END: dict[int, int] = {2: 9, 3: 8, 4: 7}


@dataclass(frozen=True, slots=True)
class RuleOptions:
    """The rule options of one game; defaults are the official rules."""

    cloud_keep: bool = True
    cloud_when_empty: str = "other_weather"
    redraw_satisfied: str = "none"
    gardener_on_shoot: bool = False
    bamboo_supply: str = "unlimited"
    objectives_to_end: tuple[tuple[int, int], ...] = field(
        default=tuple(sorted(DEFAULT_OBJECTIVES_TO_END.items()))
    )
    #: The Emperor card's points (R13.1): the one place they live; a card-set file's
    #: ``emperor`` (``--cards``) sets this option.
    emperor_points: int = 2
    max_rounds: int = 60

    def __post_init__(self) -> None:
        _check_choice("cloud_when_empty", self.cloud_when_empty, CLOUD_WHEN_EMPTY)
        _check_choice("redraw_satisfied", self.redraw_satisfied, REDRAW_SATISFIED)
        _check_choice("bamboo_supply", self.bamboo_supply, BAMBOO_SUPPLY)
        for name in ("cloud_keep", "gardener_on_shoot"):
            if not isinstance(getattr(self, name), bool):
                raise OptionError(f"rule option {name} must be true or false")
        if not isinstance(self.emperor_points, int) or self.emperor_points < 0:
            raise OptionError("rule option emperor_points must be a whole number >= 0")
        if not isinstance(self.max_rounds, int) or self.max_rounds < 1:
            raise OptionError("rule option max_rounds must be a whole number >= 1")
        ends = dict(self.objectives_to_end)
        if sorted(ends) != [2, 3, 4] or any(
            not isinstance(v, int) or v < 1 for v in ends.values()
        ):
            raise OptionError(
                "rule option objectives_to_end needs a whole number >= 1 for each of 2, 3 "
                "and 4 players, e.g. 2:9,3:8,4:7"
            )

    def objectives_needed(self, players: int) -> int:
        """Completed objectives that end the game for this player count (R13.1)."""
        return dict(self.objectives_to_end)[players]

    def to_dict(self, *, only_changed: bool = False) -> dict[str, Any]:
        """JSON-ready options; ``only_changed`` keeps those that differ from the defaults."""
        default = DEFAULTS
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if only_changed and value == getattr(default, f.name):
                continue
            if f.name == "objectives_to_end":
                value = {str(k): v for k, v in value}
            out[f.name] = value
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RuleOptions:
        """Options from JSON (a position's ``options``); unknown names are refused."""
        if not isinstance(data, dict):
            raise OptionError("options must be an object of rule option names to values")
        kwargs: dict[str, Any] = {}
        for name, value in data.items():
            if name not in OPTION_NAMES:
                raise OptionError(_unknown(name))
            if name == "objectives_to_end":
                if not isinstance(value, dict):
                    raise OptionError(
                        "rule option objectives_to_end must map player counts to numbers"
                    )
                try:
                    value = tuple(sorted((int(k), v) for k, v in value.items()))
                except ValueError:
                    raise OptionError(
                        "rule option objectives_to_end must map player counts 2, 3, 4 to numbers"
                    ) from None
            kwargs[name] = value
        return replace(DEFAULTS, **kwargs)

    @classmethod
    def from_pairs(cls, pairs: list[str] | tuple[str, ...]) -> RuleOptions:
        """Options from ``K=V`` texts (``--rule cloud_keep=false``)."""
        kwargs: dict[str, Any] = {}
        for pair in pairs:
            name, sep, text = pair.partition("=")
            name, text = name.strip(), text.strip()
            if not sep or not name:
                raise OptionError(f"rule {pair!r} is not of the form NAME=VALUE")
            if name not in OPTION_NAMES:
                raise OptionError(_unknown(name))
            if name in kwargs:  # which one was meant? (a bot spec's repeated key is refused too)
                raise OptionError(f"rule option {name} is given twice")
            kwargs[name] = _parse_value(name, text)
        return replace(DEFAULTS, **kwargs)


def _check_choice(name: str, value: object, valid: tuple[str, ...]) -> None:
    if value not in valid:
        raise OptionError(
            f"rule option {name} cannot be {value!r} (valid values: {', '.join(valid)})"
        )


def _unknown(name: str) -> str:
    return f"unknown rule option {name!r} (valid options: {', '.join(OPTION_NAMES)})"


def parse_bool(text: str) -> bool | None:
    """A yes/no written on a command line (rule options and bot parameters alike), or None.

    One spelling for both, so ``--rule cloud_keep=1`` and ``random:complete=1`` agree.
    """
    word = text.lower()
    if word in ("true", "yes", "1"):
        return True
    if word in ("false", "no", "0"):
        return False
    return None


def _parse_value(name: str, text: str) -> Any:
    """Typed value of an option from its text."""
    if name in ("cloud_keep", "gardener_on_shoot"):
        value = parse_bool(text)
        if value is None:
            raise OptionError(f"rule option {name} must be true or false, not {text!r}")
        return value
    if name in ("emperor_points", "max_rounds"):
        try:
            return int(text)
        except ValueError:
            raise OptionError(f"rule option {name} must be a whole number, not {text!r}") from None
    if name == "objectives_to_end":
        ends = dict(DEFAULT_OBJECTIVES_TO_END)
        try:
            if ":" not in text:
                # One number for every player count.
                return tuple((k, int(text)) for k in sorted(ends))
            for part in text.split(","):
                k, _, v = part.partition(":")
                if int(k) not in ends:
                    raise ValueError
                ends[int(k)] = int(v)
        except ValueError:
            raise OptionError(
                f"rule option objectives_to_end must be N or 2:N,3:N,4:N, not {text!r}"
            ) from None
        return tuple(sorted(ends.items()))
    return text


DEFAULTS = RuleOptions()
OPTION_NAMES: tuple[str, ...] = tuple(f.name for f in fields(RuleOptions))


# What each option changes, for ``arena rules`` and the docs: (values, meaning).  Kept here,
# beside the fields, so that a new option cannot be listed without saying what it does.
OPTION_HELP: dict[str, tuple[str, str]] = {
    "cloud_keep": (
        "true, false",
        "clouds: true lets the player keep the improvement token in the stock; false makes "
        "them place it at once (R4.5)",
    ),
    "cloud_when_empty": (
        ", ".join(CLOUD_WHEN_EMPTY),
        "clouds with no token left in the reserve: choose sun, rain, wind or storm instead, "
        "or move a placed token improvement to another plot that can take one (R4.5)",
    ),
    "redraw_satisfied": (
        ", ".join(REDRAW_SATISFIED),
        "a drawn objective that is already satisfied: none keeps it; plot_gardener puts a "
        "plot or gardener card under its deck and draws again from it; all (the published "
        "variant) puts any such card under its deck and lets the player choose the deck of "
        "the replacement, until a card is not satisfied (R10.7)",
    ),
    "gardener_on_shoot": (
        "true, false",
        "true: a gardener objective also needs the gardener standing on a shoot it uses "
        "(R10.4, R10.5)",
    ),
    "bamboo_supply": (
        ", ".join(BAMBOO_SUPPLY),
        "limited: a colour stops growing once its 36/30/24 sections are all on the board or "
        "in stocks (R1.5)",
    ),
    "objectives_to_end": (
        "N, or 2:N,3:N,4:N",
        "completed objectives that take the Emperor and end the game after the others' last "
        "turns, per player count (R13.1)",
    ),
    "emperor_points": ("whole number >= 0", "points of the Emperor card (R13.1)"),
    "max_rounds": (
        "whole number >= 1",
        "a safety cap, not a rule: a game still running after this round ends, is scored "
        "and is flagged capped",
    ),
}


def option_text(name: str, value: Any) -> str:
    """An option's value as it is written on a command line (``true``, ``2:9,3:8,4:7``)."""
    if isinstance(value, bool):
        return str(value).lower()
    if name == "objectives_to_end":
        return ",".join(f"{k}:{v}" for k, v in value)
    return str(value)
