"""Bot specs (``mcts:iterations=2000,c=0.7``) and where bot classes are found.

Names come from the entry-point group ``takenoko_arena.bots`` (ours and any installed
package's); anything else with a dot in it is imported as ``package.module.Class``.  A spec is
parsed and validated once, in the parent process, so that a typo is reported before a
tournament starts rather than in a thousand worker tracebacks; what crosses to the workers is
the picklable ``BotSpec`` (target and parameters), never a class object.
"""

from __future__ import annotations

import functools
import importlib
import os
import random
import sys
import traceback
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from typing import Any

from .base import Bot, BotConfigError

ENTRY_POINT_GROUP = "takenoko_arena.bots"

#: Our own bots, so they are found even when the package is not installed (a source tree).
#: ``policy`` (``arena.rl.policy:PolicyBot``) is registered by entry point only: it loads a
#: user's policy module, so a tournament must treat it as a bot not shipped with the arena
#: (``sandbox.shipped`` reads this table) and run it in a process of its own.
BUILTIN: dict[str, str] = {
    "random": "bots.random_bot:RandomBot",
    "greedy": "bots.greedy:GreedyBot",
    "objective": "bots.objective:ObjectiveBot",
    "mcts": "bots.mcts:MctsBot",
    "human": "arena.human:HumanBot",
}


@functools.cache
def _entry_points() -> tuple[tuple[str, str], ...]:
    """The installed entry points, read once per process (a scan costs milliseconds)."""
    return tuple((ep.name, ep.value) for ep in entry_points(group=ENTRY_POINT_GROUP))


def available() -> dict[str, str]:
    """Registered bot names and their ``module:Class`` targets, built-ins first."""
    found = dict(BUILTIN)
    for name, value in _entry_points():
        found.setdefault(name, value)
    return found


def load_class(target: str) -> type[Bot]:
    """The bot class of a registered name, ``module:Class`` or ``module.Class``."""
    registered = available()
    path = registered.get(target, target)
    if ":" in path:
        module_name, _, attr = path.partition(":")
    elif "." in path:
        module_name, _, attr = path.rpartition(".")
    else:
        raise BotConfigError(
            f"unknown bot {target!r} (registered bots: {', '.join(sorted(registered))}; "
            "or give a dotted path package.module.Class)"
        )
    try:
        module = _import(module_name)
    except ImportError as exc:
        raise BotConfigError(f"cannot import bot module {module_name!r}: {exc}") from None
    except Exception as exc:  # the user's module is broken: say where, not a traceback
        where = ""  # a SyntaxError names its file and line itself
        frames = traceback.extract_tb(exc.__traceback__)
        if frames and not isinstance(exc, SyntaxError):
            where = f" ({frames[-1].filename}, line {frames[-1].lineno})"
        raise BotConfigError(f"bot module {module_name!r} failed to import: "
                             f"{type(exc).__name__}: {exc}{where}") from None
    if not hasattr(module, attr):
        raise BotConfigError(f"bot module {module_name!r} has no {attr!r}")
    cls = getattr(module, attr)
    if not (isinstance(cls, type) and issubclass(cls, Bot)) or cls is Bot:
        raise BotConfigError(f"{path!r} is not a bot class (a subclass of bots.base.Bot)")
    return cls


def _import(module_name: str) -> Any:
    """Import a bot module; a module in the current directory is found too.

    ``python -m arena`` finds it anyway; the ``arena`` console script does not, so the
    directory is appended (last, so it never shadows an installed package) and the import
    tried again.
    """
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        here = os.getcwd()
        if exc.name is None or not module_name.startswith(exc.name) or here in sys.path:
            raise
        sys.path.append(here)
        return importlib.import_module(module_name)


def parse_value(text: str) -> Any:
    """A spec value as int, float, true/false, or text (CLI.md)."""
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


@dataclass(frozen=True)
class BotSpec:
    """A parsed, validated bot spec: what a participant is."""

    text: str
    target: str
    params: dict[str, Any] = field(default_factory=dict)
    name: str = ""
    #: ``module.Class`` of the resolved class (for manifests).
    class_path: str = ""

    @classmethod
    def parse(cls, text: str) -> BotSpec:
        """Parse ``TARGET[:key=value,...]``; raises BotConfigError with one sentence."""
        text = text.strip()
        target, _, rest = text.partition(":")
        target = target.strip()
        if not target:
            raise BotConfigError(f"bot spec {text!r} names no bot")
        raw: dict[str, Any] = {}
        name = ""
        if rest.strip():
            for pair in rest.split(","):
                key, sep, value = pair.partition("=")
                key, value = key.strip(), value.strip()
                if not sep or not key:
                    raise BotConfigError(
                        f"in bot spec {text!r}: {pair.strip()!r} is not key=value"
                    )
                if key in raw or (key == "name" and name):
                    raise BotConfigError(f"in bot spec {text!r}: {key} is given twice")
                if key == "name":
                    name = value
                else:
                    raw[key] = parse_value(value)
        bot_cls = load_class(target)
        try:
            checked = bot_cls.check_params(raw)
        except BotConfigError as exc:
            raise BotConfigError(f"in bot spec {text!r}: {exc}") from None
        return cls(
            text=text,
            target=target,
            params={k: checked[k] for k in raw},
            name=name or text,
            class_path=f"{bot_cls.__module__}.{bot_cls.__qualname__}",
        )

    def full_params(self) -> dict[str, Any]:
        """Every parameter of the bot, defaults filled in (what a manifest records)."""
        return self.bot_class().check_params(self.params)

    def bot_class(self) -> type[Bot]:
        return load_class(self.class_path if self.class_path else self.target)

    def create(self, rng: random.Random) -> Bot:
        """A new bot of this spec with its own generator."""
        return self.bot_class()(rng, **self.params)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "spec": self.text,
            "class": self.class_path,
            "params": self.full_params(),
        }


def describe_all() -> list[tuple[str, type[Bot] | None, str]]:
    """``(name, class or None, description or the import error)`` for ``arena bots``."""
    out: list[tuple[str, type[Bot] | None, str]] = []
    for name in sorted(available()):
        try:
            bot_cls = load_class(name)
        except BotConfigError as exc:
            out.append((name, None, str(exc)))
            continue
        out.append((name, bot_cls, bot_cls.describe()))
    return out
