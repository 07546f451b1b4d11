"""Rule options (docs/rules.md, R12): the points where published summaries disagree, as parameters.

Options are one frozen object so a tournament can compare rule sets and a game record can say
exactly what was played.  Parsing is strict: an unknown option or value is an error that names
it and lists what is valid, because a typo silently falling back to a default would corrupt a
balance study.

Every option is one entry of ``arena/data/options.json``: its name, type, default, valid values,
the rule IDs it changes and what it changes.  The file is data, not Python, because the
native core reads the very same file: both sides build their parsing, their checks and their
error sentences from it.  An entry's ``type`` is one of

``bool``         ``true`` or ``false`` (on a command line also ``yes``/``no``, ``1``/``0``);
``choice``       one of the texts of ``values``;
``int``          a whole number at least ``minimum``;
``per_players``  a whole number at least ``minimum`` for each player count of ``players``:
                 JSON ``{"2": 9, "3": 8, "4": 7}`` (every count), text ``N`` (all counts
                 alike) or ``2:N,4:N`` (the counts not named keep their default).

Every refusal is one of the file's ``errors`` templates with its fields filled in: ``name``
(the option), ``given`` (what was written: a command-line text quoted as Python's ``repr``
quotes a string, a JSON value as compact JSON), ``values`` and ``names`` (joined with
``", "``), ``minimum``, ``players`` (``2, 3 and 4``), ``pattern`` (``2:N,3:N,4:N``) and
``example`` (the default as compact JSON).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

from arena import data as data_files
from arena.engine.components import COUNT_MAX
from arena.engine.errors import OptionError, quote_json

#: The option types, and the annotation a ``RuleOptions`` field of that type carries.
TYPES: dict[str, str] = {
    "bool": "bool",
    "choice": "str",
    "int": "int",
    "per_players": "tuple[tuple[int, int], ...]",
}

_WHOLE = re.compile(r"[+-]?[0-9]+")


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


def quote_text(text: str) -> str:
    """A command-line text as an error sentence shows it (Python's ``repr`` of a string)."""
    return repr(text)


def _whole(text: str) -> int | None:
    """The whole number a text spells (digits with an optional sign), or None."""
    return int(text) if _WHOLE.fullmatch(text) else None


def _is_whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True, slots=True)
class OptionSpec:
    """One entry of the option table: what an option takes, its default and what it changes.

    ``default`` is the typed value (``per_players``: sorted ``(players, number)`` pairs).
    """

    name: str
    type: str
    default: Any
    rules: tuple[str, ...]
    help: str
    values: tuple[str, ...] = ()
    minimum: int = 0
    players: tuple[int, ...] = ()

    def error(self, key: str, given: str) -> OptionError:
        """The error of template ``key`` for this option, ``given`` being what was written."""
        return OptionError(ERRORS[key].format(
            name=self.name, given=given, values=", ".join(self.values), minimum=self.minimum,
            maximum=COUNT_MAX,
            players=_and(str(p) for p in self.players), pattern=self.pattern(),
            example=quote_json(self.to_json(self.default)),
        ))

    def pattern(self) -> str:
        """``2:N,3:N,4:N``: a ``per_players`` value in full, as text."""
        return ",".join(f"{p}:N" for p in self.players)

    def parse(self, text: str) -> Any:
        """The typed value of a command-line text (``--rule NAME=TEXT``)."""
        if self.type == "bool":
            flag = parse_bool(text)
            if flag is None:
                raise self.error("bool", quote_text(text))
            return flag
        if self.type == "choice":
            if text not in self.values:
                raise self.error("choice", quote_text(text))
            return text
        if self.type == "int":
            number = _whole(text)
            if number is None or number < self.minimum:
                raise self.error("int", quote_text(text))
            if number > COUNT_MAX:
                raise self.error("too_big", quote_text(text))
            return number
        # per_players: N for every count, or P:N pairs over the default.
        counts = dict(self.default)
        whole = _whole(text)
        if whole is not None:
            counts = dict.fromkeys(self.players, whole)
        else:
            named: set[int] = set()
            for part in text.split(","):
                players_text, _, number_text = part.partition(":")
                players, number = _whole(players_text), _whole(number_text)
                if players not in counts or players in named or number is None:
                    raise self.error("per_players_text", quote_text(text))
                named.add(players)
                counts[players] = number
        if any(n < self.minimum for n in counts.values()):
            raise self.error("per_players_text", quote_text(text))
        if any(n > COUNT_MAX for n in counts.values()):
            raise self.error("too_big", quote_text(text))
        return tuple(sorted(counts.items()))

    def from_json(self, value: object) -> Any:
        """The typed value of a JSON value (a position's or a manifest's ``options``)."""
        if self.type == "bool":
            if not isinstance(value, bool):
                raise self.error("bool", quote_json(value))
            return value
        if self.type == "choice":
            if not isinstance(value, str) or value not in self.values:
                raise self.error("choice", quote_json(value))
            return value
        if self.type == "int":
            if not _is_whole(value) or value < self.minimum:  # type: ignore[operator]
                raise self.error("int", quote_json(value))
            if value > COUNT_MAX:  # type: ignore[operator]
                raise self.error("too_big", quote_json(value))
            return value
        keys = [str(p) for p in self.players]
        if (not isinstance(value, dict) or sorted(value) != sorted(keys)
                or not all(_is_whole(n) and n >= self.minimum for n in value.values())):
            raise self.error("per_players", quote_json(value))
        if any(n > COUNT_MAX for n in value.values()):
            raise self.error("too_big", quote_json(value))
        return tuple((p, value[str(p)]) for p in self.players)

    def to_json(self, value: Any) -> Any:
        """A typed value as JSON (``per_players``: an object keyed by the player count)."""
        if self.type == "per_players":
            return {str(p): n for p, n in value}
        return value

    def check(self, value: Any) -> None:
        """Refuse a typed value the option does not take (``RuleOptions(max_rounds=0)``)."""
        try:
            as_json = self.to_json(value)
        except (TypeError, ValueError):
            raise self.error(self.type, quote_json(value)) from None
        if self.from_json(as_json) != value:  # e.g. per-player pairs out of order
            raise self.error(self.type, quote_json(value))

    def text(self, value: Any) -> str:
        """A typed value as it is written on a command line (``true``, ``2:9,3:8,4:7``)."""
        if self.type == "bool":
            return "true" if value else "false"
        if self.type == "per_players":
            return ",".join(f"{p}:{n}" for p, n in value)
        return str(value)

    def values_text(self, code: str = "{}") -> str:
        """What the option takes, for ``arena rules`` and the docs; ``code`` wraps a literal."""
        if self.type == "bool":
            return ", ".join(code.format(v) for v in ("true", "false"))
        if self.type == "choice":
            return ", ".join(code.format(v) for v in self.values)
        if self.type == "int":
            return f"a whole number >= {self.minimum}"
        return f"{code.format('N')}, or {code.format(self.pattern())}"


def _and(items: Iterable[str]) -> str:
    """``2, 3 and 4``."""
    words = list(items)
    return ", ".join(words[:-1]) + " and " + words[-1] if len(words) > 1 else "".join(words)


def _load_table(data: Mapping[str, Any]) -> tuple[tuple[OptionSpec, ...], dict[str, str]]:
    """The option entries and the error templates of the table; ValueError names a bad entry.

    The table is the project's own file, so a mistake in it is a bug that must stop the
    import, not a user error."""
    errors = dict(data["errors"])
    needed = {"not_pair", "unknown", "twice", "not_object", "per_players_text", "too_big",
              *TYPES}
    if set(errors) != needed:
        raise ValueError(f"options table: errors must be exactly {sorted(needed)}")
    specs: list[OptionSpec] = []
    for i, entry in enumerate(data["options"]):
        name = entry.get("name")
        where = f"options table: entry {i} ({name})"
        kind = entry.get("type")
        if not isinstance(name, str) or not name.isidentifier():
            raise ValueError(f"{where}: the name must be an identifier")
        if kind not in TYPES:
            raise ValueError(f"{where}: type must be one of {', '.join(TYPES)}")
        allowed = {"name", "type", "default", "rules", "help",
                   *{"choice": ("values",), "int": ("minimum",),
                     "per_players": ("players", "minimum")}.get(kind, ())}
        if set(entry) != allowed:
            raise ValueError(f"{where}: a {kind} entry has exactly {', '.join(sorted(allowed))}")
        rules = entry["rules"]
        if not isinstance(rules, list) or not all(
            isinstance(r, str) and re.fullmatch(r"R\d+(\.\d+)?", r) for r in rules
        ):
            raise ValueError(f"{where}: rules must be a list of rule IDs such as R4.5")
        if not isinstance(entry["help"], str) or not entry["help"]:
            raise ValueError(f"{where}: help must say what the option changes")
        spec = OptionSpec(name, kind, None, tuple(rules), entry["help"],
                          values=tuple(entry.get("values", ())),
                          minimum=entry.get("minimum", 0),
                          players=tuple(entry.get("players", ())))
        if kind == "choice" and not (spec.values and all(
            isinstance(v, str) and v for v in spec.values
        )):
            raise ValueError(f"{where}: values must be texts")
        if kind == "per_players" and not (
            spec.players and all(map(_is_whole, spec.players))
            and list(spec.players) == sorted(set(spec.players))
        ):
            raise ValueError(f"{where}: players must be whole numbers in increasing order")
        if not _is_whole(spec.minimum):
            raise ValueError(f"{where}: minimum must be a whole number")
        try:
            default = spec.from_json(entry["default"])
        except OptionError as exc:
            raise ValueError(f"{where}: its default is refused: {exc}") from None
        specs.append(replace(spec, default=default))
    if len({s.name for s in specs}) != len(specs):
        raise ValueError("options table: an option is named twice")
    return tuple(specs), errors


def _read_table() -> dict[str, Any]:
    return data_files.load(data_files.OPTIONS)


_SPECS, ERRORS = _load_table(_read_table())
#: The rule options in the table's order (that of ``arena rules`` and of the docs).
OPTIONS: tuple[OptionSpec, ...] = _SPECS
#: An option's entry by name.
OPTION_SPECS: dict[str, OptionSpec] = {spec.name: spec for spec in OPTIONS}
OPTION_NAMES: tuple[str, ...] = tuple(OPTION_SPECS)


def _default(name: str) -> Any:
    return OPTION_SPECS[name].default


@dataclass(frozen=True, slots=True)
class RuleOptions:
    """The rule options of one game; defaults are the official rules.

    The fields are the table's entries, in its order, with its defaults (the import refuses
    a field list that differs from the table); they are written out so that readers and type
    checkers see each option's type.
    """

    cloud_keep: bool = _default("cloud_keep")
    cloud_when_empty: str = _default("cloud_when_empty")
    redraw_satisfied: str = _default("redraw_satisfied")
    gardener_on_shoot: bool = _default("gardener_on_shoot")
    bamboo_supply: str = _default("bamboo_supply")
    objectives_to_end: tuple[tuple[int, int], ...] = _default("objectives_to_end")
    #: The Emperor card's points (R13.1): the one place they live; a card-set file's
    #: ``emperor`` (``--cards``) sets this option.
    emperor_points: int = _default("emperor_points")
    max_rounds: int = _default("max_rounds")

    def __post_init__(self) -> None:
        for spec in OPTIONS:
            spec.check(getattr(self, spec.name))

    def objectives_needed(self, players: int) -> int:
        """Completed objectives that end the game for this player count (R13.1)."""
        return dict(self.objectives_to_end)[players]

    def to_dict(self, *, only_changed: bool = False) -> dict[str, Any]:
        """JSON-ready options; ``only_changed`` keeps those that differ from the defaults."""
        out: dict[str, Any] = {}
        for spec in OPTIONS:
            value = getattr(self, spec.name)
            if not (only_changed and value == spec.default):
                out[spec.name] = spec.to_json(value)
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RuleOptions:
        """Options from JSON (a position's ``options``); unknown names are refused."""
        if not isinstance(data, dict):
            raise OptionError(ERRORS["not_object"])
        kwargs: dict[str, Any] = {}
        for name, value in data.items():
            spec = _spec(name, quote_json(name))
            kwargs[spec.name] = spec.from_json(value)
        return replace(DEFAULTS, **kwargs)

    @classmethod
    def from_pairs(cls, pairs: list[str] | tuple[str, ...]) -> RuleOptions:
        """Options from ``K=V`` texts (``--rule cloud_keep=false``)."""
        kwargs: dict[str, Any] = {}
        for pair in pairs:
            name, sep, text = pair.partition("=")
            name, text = name.strip(), text.strip()
            if not sep or not name:
                raise OptionError(ERRORS["not_pair"].format(given=quote_text(pair)))
            spec = _spec(name, quote_text(name))
            if name in kwargs:  # which one was meant? (a bot spec's repeated key is refused too)
                raise spec.error("twice", "")
            kwargs[name] = spec.parse(text)
        return replace(DEFAULTS, **kwargs)


def _spec(name: object, given: str) -> OptionSpec:
    """The entry of an option name, or the error that lists the valid names."""
    if not isinstance(name, str) or name not in OPTION_SPECS:
        raise OptionError(ERRORS["unknown"].format(given=given, names=", ".join(OPTION_NAMES)))
    return OPTION_SPECS[name]


def _check_fields() -> None:
    """RuleOptions' fields are the table's entries: same names, order and types."""
    found = [(f.name, f.type) for f in fields(RuleOptions)]
    expected = [(spec.name, TYPES[spec.type]) for spec in OPTIONS]
    if found != expected:
        raise TypeError(f"RuleOptions' fields {found} differ from the option table's {expected}")


_check_fields()
DEFAULTS = RuleOptions()


def option_text(name: str, value: Any) -> str:
    """An option's value as it is written on a command line (``true``, ``2:9,3:8,4:7``)."""
    return OPTION_SPECS[name].text(value)
