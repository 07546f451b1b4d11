"""The handshake: what the arena says first, what an engine answers (its name, author and
declared options), and every way that answer can break the protocol, each one clause, so
that ``arena engine-check`` lists them all and a spec's parse names the first.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

from arena.play.bot import Param
from arena.protocol import HELLO_TIME, OPTION_TYPES, PROTOCOL, RESERVED_KEYS, VERSION
from arena.protocol.process import EngineProcess


@dataclass(frozen=True)
class Option:
    """An option an engine declares (UCI's ``option name ... type spin default ...``)."""

    name: str
    type: str
    default: Any
    minimum: float | None = None
    maximum: float | None = None
    values: tuple[str, ...] = ()

    def param(self) -> Param:
        """The option as a bot parameter: what checks a spec's value and ``bots tune``
        searches over."""
        kind = {"check": bool, "spin": int, "float": float}.get(self.type, str)
        return Param(self.name, kind, self.default, f"engine option ({self.type})",
                     choices=self.values, minimum=self.minimum, maximum=self.maximum)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "type": self.type, "default": self.default}
        if self.minimum is not None:
            out["min"] = self.minimum
        if self.maximum is not None:
            out["max"] = self.maximum
        if self.values:
            out["values"] = list(self.values)
        return out


@dataclass(frozen=True)
class Hello:
    """What an engine says of itself in its handshake."""

    name: str
    author: str
    options: tuple[Option, ...]


def _number(value: Any, integer: bool) -> bool:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return (isinstance(value, int) or value.is_integer()) if integer else math.isfinite(value)


def option_problems(entry: Any) -> tuple[Option | None, list[str]]:
    """One declared option read, with what is wrong with it (each a clause)."""
    if not isinstance(entry, dict):
        return None, [f"declares an option that is not an object ({str(entry)[:40]})"]
    name, kind = entry.get("name"), entry.get("type")
    if not isinstance(name, str) or not name or any(c in name for c in ",:=\" "):
        return None, [f"declares an option with no usable name ({str(name)[:40]!r})"]
    if name in RESERVED_KEYS:
        return None, [f"declares option {name!r}, a key the arena keeps for itself"]
    if kind not in OPTION_TYPES:
        return None, [f"declares option {name!r} of type {str(kind)[:20]!r} "
                      f"(types: {', '.join(OPTION_TYPES)})"]
    default = entry.get("default")
    low, high = entry.get("min"), entry.get("max")
    values: tuple[str, ...] = ()
    problems: list[str] = []
    if kind in ("spin", "float"):
        integer = kind == "spin"
        for key, value in (("default", default), ("min", low), ("max", high)):
            if (value is not None or key == "default") and not _number(value, integer):
                problems.append(f"declares option {name!r} with a {key} that is not "
                                f"{'an integer' if integer else 'a number'}")
        if not problems and low is not None and high is not None and low > high:
            problems.append(f"declares option {name!r} with min above max")
        if not problems and ((low is not None and default < low)
                             or (high is not None and default > high)):
            problems.append(f"declares option {name!r} with its default out of its range")
        if not problems and integer:
            default = int(default)
            low = None if low is None else int(low)
            high = None if high is None else int(high)
    elif kind == "check" and not isinstance(default, bool):
        problems.append(f"declares check option {name!r} with a default that is not "
                        "true or false")
    elif kind == "combo":
        raw = entry.get("values")
        if not (isinstance(raw, list) and raw and all(isinstance(v, str) for v in raw)):
            problems.append(f"declares combo option {name!r} without a list of values")
        else:
            values = tuple(raw)
            if default not in values:
                problems.append(f"declares combo option {name!r} with a default not "
                                "among its values")
    elif kind == "string" and not isinstance(default, str):
        problems.append(f"declares string option {name!r} with a default that is not text")
    if problems:
        return None, problems
    if kind not in ("spin", "float"):
        low = high = None
    return Option(name, kind, default, low, high, values), []


def hello_problems(message: dict[str, Any]) -> tuple[Hello | None, list[str]]:
    """An engine's handshake read, with every protocol violation in it (each a clause
    that follows the engine's name: "declares option 'x' twice")."""
    problems: list[str] = []
    if message.get("type") != "hello":
        return None, [f"answered the handshake with a {str(message.get('type'))[:20]!r} "
                      "message, not hello"]
    if message.get("protocol") != PROTOCOL:
        problems.append(f"speaks protocol {str(message.get('protocol'))[:30]!r}, not {PROTOCOL!r}")
    if message.get("version") != VERSION:
        problems.append(f"answers protocol version {str(message.get('version'))[:10]}, "
                        f"the arena speaks {VERSION}")
    for key in ("name", "author"):
        if not isinstance(message.get(key), str) or not message[key].strip():
            problems.append(f"gives no {key} in its handshake")
    raw = message.get("options", [])
    if not isinstance(raw, list):
        problems.append("declares options that are not a list")
        raw = []
    options: list[Option] = []
    seen: set[str] = set()
    for entry in raw:
        option, found = option_problems(entry)
        problems.extend(found)
        if option is None:
            continue
        if option.name in seen:
            problems.append(f"declares option {option.name!r} twice")
            continue
        seen.add(option.name)
        options.append(option)
    if problems:
        return None, problems
    return Hello(str(message["name"]), str(message["author"]), tuple(options)), []


def hello_message() -> dict[str, Any]:
    """What the arena says first."""
    return {"type": "hello", "protocol": PROTOCOL, "version": VERSION}


def handshake(process: EngineProcess, limit: float | None = None) -> Hello:
    """Say hello and read the engine's (within ``limit`` seconds, ``HELLO_TIME`` by
    default); BotFault naming what went wrong."""
    limit = HELLO_TIME if limit is None else limit
    process.send([hello_message()])
    process.busy = True
    reply = process.read(time.monotonic() + limit, "the handshake")
    process.busy = False
    hello, problems = hello_problems(reply)
    if hello is None:
        raise process.fault("crash", problems[0])
    return hello
