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
seat and the participant's name (``arena.play.seeds.bot_seed``).

Trust follows where the code is, never a name: a bot is *ours* (its spec is read and it plays
in the arena's own processes; every other bot is checked and plays in a jail,
``arena.jail.sandbox``) exactly when ``runs_only_ours`` finds that importing it would run
only files of the arena's installed package folders (``arena`` and ``bots`` beside it).  That
is decided before anything is imported, by finding the files as the import system would,
without running a parent package.  A distribution's name proves nothing (any folder on the
path may claim to be ``takenoko-arena``), so an entry point is trusted for its target's files,
whoever registers it.
"""

from __future__ import annotations

import functools
import importlib
import os
import random
import re
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib.machinery import PathFinder
from importlib.metadata import distributions
from typing import Any, NamedTuple

from arena.play.bot import Bot, BotConfigError, Param
from arena.play.seeds import bot_seed

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
    """The installed entry points of the group, the arena's own first (those whose target's
    files are ours, ``runs_only_ours``); read once per process (a scan of the installed
    distributions costs milliseconds)."""
    # Every distribution's, not ``entry_points()``'s one per name: a folder on the path that
    # calls itself takenoko-arena would hide the arena's own registrations otherwise.
    found = list(dict.fromkeys(
        Registered(ep.name, ep.value, _normalized(dist.name or ""))
        for dist in distributions()
        for ep in dist.entry_points.select(group=ENTRY_POINT_GROUP)
    ))
    return tuple(sorted(found, key=lambda r: not _files_are_ours(_module_name(r.target))))


def available() -> dict[str, str]:
    """Registered bot names and their ``module:Class`` targets.

    The arena's own registrations come first and win: a plugin cannot take the name
    ``random`` from the built-in bot, even by calling its distribution ``takenoko-arena``.
    """
    found: dict[str, str] = {}
    for entry in registered():
        found.setdefault(entry.name, entry.target)
    return found


def _dotted(path: str) -> str:
    """``module:Class`` and ``module.Class`` as one text (``module.Class``)."""
    return path.replace(":", ".")


def _module_name(path: str) -> str:
    """The module of ``module:Class`` or ``module.Class`` (``""`` for a bare name)."""
    if ":" in path:
        return path.partition(":")[0]
    return path.rpartition(".")[0]


@functools.cache
def own_folders() -> tuple[str, ...]:
    """The arena's installed package folders that hold bots, as real paths: ``arena`` (the
    package above this file's ``arena/play``) and ``bots`` beside it (``pyproject.toml``
    installs them together)."""
    arena_folder = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
    return (arena_folder, os.path.realpath(os.path.join(os.path.dirname(arena_folder), "bots")))


def _is_ours(path: str, *, folder: bool) -> bool:
    """Whether a file (with its folder) or a folder lies in one of ``own_folders``: a link
    counts where it leads, and a file linked into a foreign folder is foreign (its package's
    relative imports would be looked up there)."""
    places = [path] if folder else [path, os.path.dirname(path)]
    for place in places:
        real = os.path.realpath(place)
        if not any(real == own or real.startswith(own + os.sep) for own in own_folders()):
            return False
    return True


def module_files(module: str) -> list[tuple[str, bool]] | None:
    """What importing ``module`` would run and search: each package's and the module's file
    and each package's folders, as ``(path, is_folder)``; None when a part is not found.

    Found as the import finds them (a module already imported by what it holds, the others
    by the finders of ``sys.meta_path``, ``PathFinder`` over ``sys.path`` among them, given the
    parent's folders; the current directory last, as ``_import`` adds it), but without
    running anything of theirs: a parent package is looked into, never imported.
    """
    parts = module.split(".")
    if not all(parts):
        return None
    found: list[tuple[str, bool]] = []
    search: list[str] | None = None
    for i in range(len(parts)):
        name = ".".join(parts[:i + 1])
        loaded = sys.modules.get(name)
        if loaded is not None:
            origin = getattr(loaded, "__file__", None)
            locations = getattr(loaded, "__path__", None)
        else:
            spec = _find_spec(name, search)
            if spec is None:
                return None
            origin, locations = spec.origin, spec.submodule_search_locations
        if isinstance(origin, str) and os.path.isabs(origin):
            found.append((origin, False))
        elif origin is not None and locations is None:
            return None  # built into the interpreter, or found by no file: not ours
        if locations is None:
            if i < len(parts) - 1:
                return None  # a module, not a package: the import fails there
            break
        search = [str(p) for p in locations]
        found.extend((p, True) for p in search)
    return found


def _find_spec(name: str, search: list[str] | None) -> Any:
    """The spec the import would use for ``name`` (``search``: its parent's folders, None for
    a top-level name), asked of each finder in turn as the import asks them; None if none
    finds it (or one fails: not ours)."""
    try:
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            spec = find(name, search) if find is not None else None
            if spec is not None:
                return spec
        if search is None:
            return PathFinder.find_spec(name, [os.getcwd()])
    except Exception:
        return None
    return None


def _files_are_ours(module: str) -> bool:
    files = module_files(module) if module else None
    return bool(files) and all(_is_ours(path, folder=folder) for path, folder in files)


def runs_only_ours(target: str) -> bool:
    """Whether loading the bot class of ``target`` (a registered name, ``module:Class`` or
    ``module.Class``) in this process would run only the arena's own code: the one trust
    decision of every command and script (``arena.jail.sandbox.Isolation``).

    True when every file its import would run lies in ``own_folders`` (found by
    ``module_files``, nothing run) and its class does not run code its spec names
    (``Bot.LOADS_USER_CODE``); also for a bare name that is not registered, which imports
    nothing (its error is told where it is parsed).  False for anything not found or not
    ours: such a bot is checked and played in a jail.
    """
    names = available()
    path = names.get(target, target)
    if ":" not in path and "." not in path:
        return True
    if not _files_are_ours(_module_name(path)):
        return False
    try:
        return not load_class(path).LOADS_USER_CODE  # ours: importing it is safe
    except BotConfigError:
        return True  # ours but no bot: the parse here says what is wrong


def builtin_paths() -> frozenset[str]:
    """``module.Class`` of every registered bot that ``runs_only_ours``."""
    return frozenset(_dotted(r.target) for r in registered() if runs_only_ours(r.target))


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
        raise BotConfigError(f"{path!r} is not a bot class (a subclass of arena.play.bot.Bot)")
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
    it may be imported here (``arena.jail.sandbox``) both start from it."""
    text = text.strip()
    target, _, rest = text.partition(":")
    target = target.strip()
    if not target:
        raise BotConfigError(f"bot spec {text!r} names no bot")
    raw, name = split_keys(text, rest)
    return SpecText(text, target, raw, name)


def split_keys(text: str, rest: str, verbatim: frozenset[str] = frozenset()
               ) -> tuple[dict[str, Any], str]:
    """The ``key=value,...`` part ``rest`` of the spec ``text``: the values as written
    (``parse_value``; those of ``verbatim`` keys kept as text), and ``name=`` apart (``""``
    when not given).  BotConfigError with one sentence for a pair that is not key=value or a
    key given twice.  A bot's spec and an engine's (``arena.protocol.spec``) share it."""
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
                raw[key] = value if key in verbatim else parse_value(value)
    return raw, name


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

    def declared(self) -> tuple[Param, ...]:
        """The bot's declared parameters (``Bot.PARAMS``): what ``arena bots`` lists and what
        a tuner's ``--space`` is checked against."""
        return self.bot_class().PARAMS

    def description(self) -> str:
        """What ``arena bots`` prints for it (``Bot.describe``)."""
        return self.bot_class().describe()

    def create(self, rng: random.Random) -> Bot:
        """A new bot of this spec with the generator given (a test's, or ``make_bot``'s):
        its seat decided here, once (``arena.play.seat.make``: a built-in bot's Rust twin on the
        native engine, else the class itself)."""
        from arena.play.seat import make

        return make(self.bot_class(), rng, self.params)

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
    (``arena.play.seeds``), so a game plays the same wherever it is played: a tournament's game is
    ``arena play`` with its seed and its seats' specs.  An isolated bot is made in its own
    process from that same seed (``arena.jail.sandbox``), never from the game seed.
    """
    seed = bot_seed(game_seed, seat, spec.name)
    seeded = getattr(spec, "create_seeded", None)  # engine protocol hook: told the seed
    if seeded is not None:
        return seeded(seed, game_seed)  # type: ignore[no-any-return]
    return spec.create(random.Random(seed))


def end_engines() -> None:
    """End the engine processes this process keeps between games (the pool of
    ``arena.protocol.bot``) once a run or a game is over: an engine plays many games in one
    process, but none outlives the run that started it (in a process that lives on: a
    notebook, a Dask worker, a test).  Nothing to do where no engine played."""
    engines = sys.modules.get("arena.protocol.bot")
    if engines is not None:
        engines.close_all()


def describe_all(read: Callable[[str], BotSpec]) -> list[tuple[str, BotSpec | None, str]]:
    """``(name, spec or None, description or the error)`` for ``arena bots``, each registered
    bot read by ``read``: ``arena.jail.sandbox.parse_participant``, which checks a bot
    that is not ours in a jail, so that listing the bots imports no plugin here."""
    out: list[tuple[str, BotSpec | None, str]] = []
    for name in sorted(available()):
        try:
            spec = read(name)
        except BotConfigError as exc:
            out.append((name, None, str(exc)))
            continue
        out.append((name, spec, spec.description()))
    return out
