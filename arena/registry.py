"""Bot specs (``mcts:iterations=2000,c=0.7``), where bot classes are found, and which are ours.

Names come from the entry-point group ``takenoko_arena.bots``: the arena's own bots are
registered there by its distribution (``takenoko-arena``'s ``pyproject.toml``) exactly as a
plugin registers its bots, so the arena must be installed (``pip install -e .``) for them to
have names; a source tree that is not installed can still name them by dotted path
(``bots.greedy.GreedyBot``).  Anything else with a dot in it is imported as
``package.module.Class``.

A spec is parsed and validated once, in the parent process, so that a typo is reported
before a tournament starts rather than in a thousand worker tracebacks; what crosses to the
workers is the picklable ``BotSpec`` (target and parameters), never a class object.

A bot is made by ``make_bot(spec, game_seed, seat)``, its generator seeded from the game, the
seat and the participant's name (``arena.seeds.bot_seed``).

Trust follows the registration: a bot class is *ours* (runs in the worker's process in a
tournament, ``--isolate untrusted``) exactly when the arena's own distribution registers it.
No list is kept by hand beside the entry points, so a new built-in bot that is registered is
trusted, and one that is not has no name either.
"""

from __future__ import annotations

import functools
import importlib
import os
import random
import re
import sys
import traceback
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from typing import Any, NamedTuple

from .bot import Bot, BotConfigError
from .seeds import bot_seed

ENTRY_POINT_GROUP = "takenoko_arena.bots"
#: The distribution whose entry points are the arena's own bots (``pyproject.toml``'s name).
DISTRIBUTION = "takenoko-arena"


#: Spec forms that are not a bot class, by their prefix, and the ``module:Class`` (a
#: ``BotSpec`` subclass) that parses them: found by name, as bot classes are, so that the
#: registry imports none of the packages above it.
SPEC_FORMS = {"engine:": "arena.protocol.spec:EngineSpec"}  # engine protocol hook


def load_form(path: str) -> Any:
    """The spec class of a ``SPEC_FORMS`` entry."""
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


def _normalized(name: str) -> str:
    """A distribution name as PEP 503 compares them (``Takenoko_Arena`` is ``takenoko-arena``)."""
    return re.sub(r"[-_.]+", "-", name).lower()


class Registered(NamedTuple):
    """One entry point of the group: the bot's name, its ``module:Class``, and the
    distribution that registers it (normalized; ``""`` when unknown)."""

    name: str
    target: str
    distribution: str


@functools.cache
def registered() -> tuple[Registered, ...]:
    """The installed entry points of the group, the arena's own first; read once per process
    (a scan of the installed distributions costs milliseconds)."""
    found = [
        Registered(ep.name, ep.value, _normalized(ep.dist.name) if ep.dist is not None else "")
        for ep in entry_points(group=ENTRY_POINT_GROUP)
    ]
    ours = _normalized(DISTRIBUTION)
    return tuple(sorted(found, key=lambda r: r.distribution != ours))


def available() -> dict[str, str]:
    """Registered bot names and their ``module:Class`` targets.

    The arena's own registrations come first and win: a plugin cannot take the name
    ``random`` from the built-in bot.
    """
    found: dict[str, str] = {}
    for entry in registered():
        found.setdefault(entry.name, entry.target)
    return found


def _dotted(path: str) -> str:
    """``module:Class`` and ``module.Class`` as one text (``module.Class``)."""
    return path.replace(":", ".")


def builtin_paths() -> frozenset[str]:
    """``module.Class`` of every bot the arena's own distribution registers."""
    ours = _normalized(DISTRIBUTION)
    return frozenset(_dotted(r.target) for r in registered() if r.distribution == ours)


def is_builtin(path: str) -> bool:
    """Whether ``module:Class`` or ``module.Class`` is a bot of the arena's own distribution
    that runs only the arena's code (the trust decision of ``--isolate untrusted``): a
    shipped bot that loads a module its spec names (``Bot.LOADS_USER_CODE``) is not."""
    return _dotted(path) in builtin_paths() and not load_class(path).LOADS_USER_CODE


def load_class(target: str) -> type[Bot]:
    """The bot class of a registered name, ``module:Class`` or ``module.Class``."""
    names = available()
    path = names.get(target, target)
    if ":" in path:
        module_name, _, attr = path.partition(":")
    elif "." in path:
        module_name, _, attr = path.rpartition(".")
    else:
        known = ", ".join(sorted(names)) if names else (
            f"none: is {DISTRIBUTION} installed? pip install -e . registers its bots")
        raise BotConfigError(
            f"unknown bot {target!r} (registered bots: {known}; "
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
        raise BotConfigError(f"{path!r} is not a bot class (a subclass of arena.bot.Bot)")
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
    """A spec value as int, float, true/false, or text (docs/bots.md)."""
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


class SpecText(NamedTuple):
    """A spec's text split into its parts, nothing imported: ``TARGET[:key=value,...]``."""

    text: str
    target: str
    #: The values as written (``parse_value``), the reserved key ``name`` left out.
    params: dict[str, Any]
    #: ``name=``, or ``""`` when not given.
    name: str


def split_spec(text: str) -> SpecText:
    """The parts of ``TARGET[:key=value,...]``; BotConfigError with one sentence when the
    text is not a spec.  The one reader of the syntax: parsing a spec and deciding whether
    it may be imported here (``arena.tournament.sandbox``) both start from it."""
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
                raise BotConfigError(f"in bot spec {text!r}: {pair.strip()!r} is not key=value")
            if key in raw or (key == "name" and name):
                raise BotConfigError(f"in bot spec {text!r}: {key} is given twice")
            if key == "name":
                name = value
            else:
                raw[key] = parse_value(value)
    return SpecText(text, target, raw, name)


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
        for prefix, form in SPEC_FORMS.items():
            if text.strip().startswith(prefix):
                return load_form(form).parse(text)  # type: ignore[no-any-return]
        parts = split_spec(text)
        bot_cls = load_class(parts.target)
        try:
            checked = bot_cls.check_params(parts.params)
        except BotConfigError as exc:
            raise BotConfigError(f"in bot spec {parts.text!r}: {exc}") from None
        return cls(
            text=parts.text,
            target=parts.target,
            params={k: checked[k] for k in parts.params},
            name=parts.name or parts.text,
            class_path=f"{bot_cls.__module__}.{bot_cls.__qualname__}",
        )

    def full_params(self) -> dict[str, Any]:
        """Every parameter of the bot, defaults filled in (what a manifest records)."""
        return self.bot_class().check_params(self.params)

    def bot_class(self) -> type[Bot]:
        return load_class(self.class_path if self.class_path else self.target)

    def create(self, rng: random.Random) -> Bot:
        """A new bot of this spec with the generator given (a test's, or ``make_bot``'s)."""
        return self.bot_class()(rng, **self.params)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "spec": self.text,
            "class": self.class_path,
            "params": self.full_params(),
        }


def make_bot(spec: BotSpec, game_seed: int, seat: int) -> Bot:
    """The bot of ``spec`` at ``seat`` of the game seeded ``game_seed``: the one way the
    arena makes a bot (``arena play``, the tournament workers, the scripts).

    Its generator is ``random.Random(bot_seed(game_seed, seat, spec.name))``
    (``arena.seeds``), so a game plays the same wherever it is played: a tournament's game is
    ``arena play`` with its seed and its seats' specs.  An isolated bot is made in its own
    process from that same seed (``arena.tournament.sandbox``), never from the game seed.
    """
    seed = bot_seed(game_seed, seat, spec.name)
    seeded = getattr(spec, "create_seeded", None)  # engine protocol hook: told the seed
    if seeded is not None:
        return seeded(seed)  # type: ignore[no-any-return]
    return spec.create(random.Random(seed))


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
