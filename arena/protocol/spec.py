"""The ``engine:`` bot spec: a program speaking the engine protocol, always jailed.

``engine:PATH[:key=value,...]`` names a program file; ``engine:"COMMAND ARG..."[:...]`` a
program with arguments (the quoted part is split as a shell splits words, and the first
word found on ``PATH`` when it has no ``/``).  Why quotes rather than, say, a ``cmd=`` key:
the engine's keys are its own declared options, and a command is what the user types
anyway; a spec stays one word on the command line once quoted for the shell
(``--bot 'engine:"arena engine objective"'``).

The keys are the options the engine declares in its handshake (checked against their
types and ranges as a bot's parameters are), and the arena's own: ``name`` (the
participant's name), ``tc=BASE[+INC]`` (a clock per game: seconds to start with and
seconds added after each move, cutechess's ``tc=``), ``st=SECONDS`` (a fixed time per
move) and ``fresh=true`` (a new process for every game instead of one kept for many).

Parsing a spec starts the engine once, in its jail, for its handshake: an engine that never
answers, speaks another version or declares an option twice is one sentence
(``BotConfigError``) before any game starts.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import random
import shlex
import shutil
from dataclasses import dataclass, field
from typing import Any, ClassVar

from arena.play.bot import Bot, BotConfigError
from arena.play.faults import BotFault
from arena.play.registry import BotSpec, split_keys
from arena.protocol import RESERVED_KEYS
from arena.protocol.bot import EngineBot
from arena.protocol.handshake import Hello, handshake
from arena.protocol.process import Command, EngineProcess

PREFIX = "engine:"


def is_engine_text(text: str) -> bool:
    """Whether a spec text names an engine (``engine:...``)."""
    return text.strip().startswith(PREFIX)


# ----------------------------------------------------------------- the spec text


def split_engine(text: str) -> tuple[str, list[str], dict[str, Any], str]:
    """``(target, argv, keys, name)`` of an engine spec, nothing started; BotConfigError
    with one sentence when it is not one."""
    text = text.strip()
    rest = text[len(PREFIX):]
    if rest.startswith('"'):
        end = rest.find('"', 1)
        if end < 0:
            raise BotConfigError(f"bot spec {text!r}: the engine's command has no closing quote")
        command, tail = rest[1:end], rest[end + 1:]
        if tail and not tail.startswith(":"):
            raise BotConfigError(f"bot spec {text!r}: expected ':' after the quoted command")
        tail = tail[1:]
        try:
            argv = shlex.split(command)
        except ValueError as exc:
            raise BotConfigError(f"bot spec {text!r}: {exc}") from None
        target = f'{PREFIX}"{command}"'
    else:
        command, _, tail = rest.partition(":")
        argv = [command.strip()] if command.strip() else []
        target = PREFIX + command.strip()
    if not argv:
        raise BotConfigError(f"bot spec {text!r} names no engine program")
    keys, name = split_keys(text, tail, frozenset({"tc"}))
    return target, argv, keys, name


def resolve(argv: list[str], text: str) -> Command:
    """The program as an absolute path, the arguments that name existing files or folders
    as absolute paths too (the jail shows them: a script run by an interpreter, a class
    path), and the folder it runs in: the first such file's, else the program's own.
    BotConfigError when there is no such executable file."""
    program = argv[0]
    found = os.path.realpath(program) if "/" in program else shutil.which(program)
    if not found or not os.path.isfile(found) or not os.access(found, os.X_OK):
        raise BotConfigError(f"bot spec {text!r}: no engine program {program!r} (not an "
                             "executable file)")
    found = os.path.realpath(found)
    args, shown = [], []
    for arg in argv[1:]:
        if not arg.startswith("-") and os.path.exists(arg):
            arg = os.path.realpath(arg)
            shown.append(arg if os.path.isdir(arg) else os.path.dirname(arg))
        args.append(arg)
    folder = shown[0] if shown else os.path.dirname(found)
    return Command((found, *args), folder, tuple(shown))


@dataclass(frozen=True)
class Clock:
    """A seat's time control: ``base`` seconds for the game plus ``increment`` after each
    move (cutechess's ``tc=``), and ``move`` seconds at most per move (``st=``)."""

    base: float | None = None
    increment: float = 0.0
    move: float | None = None

    @classmethod
    def of(cls, keys: dict[str, Any], text: str) -> Clock:
        base, increment, move = None, 0.0, None
        if "tc" in keys:
            first, _, second = str(keys["tc"]).partition("+")
            try:
                base, increment = float(first), float(second or 0)
            except ValueError:
                base = -1.0
            if not (0 < base < 1e6 and 0 <= increment < 1e6):
                raise BotConfigError(f"in bot spec {text!r}: tc must be BASE or BASE+INC in "
                                     "seconds (tc=60+0.5)")
        if "st" in keys:
            move = keys["st"]
            if isinstance(move, bool) or not isinstance(move, (int, float)) \
                    or not 0 < move < 1e6:
                raise BotConfigError(f"in bot spec {text!r}: st must be seconds above 0")
            move = float(move)
        return cls(base, increment, move)


#: Handshakes already made in this process, by command.
_HELLOS: dict[Command, Hello] = {}


def engine_hello(command: Command, label: str, memory: int) -> Hello:
    """The engine's handshake, made once per process (a jail started and ended)."""
    hello = _HELLOS.get(command)
    if hello is None:
        process = EngineProcess(command, label, memory)
        try:
            hello = handshake(process)
        finally:
            process.close()
        _HELLOS[command] = hello
    return hello


@functools.cache
def engine_class(hello: Hello) -> type[EngineBot]:
    """``EngineBot`` with the engine's declared options as its ``PARAMS``: what ``arena
    bots tune`` and the spec checks read a bot's parameters from."""
    doc = f"The engine {hello.name!r} by {hello.author} (docs/protocol.md)."
    return type("EngineBot", (EngineBot,), {
        "PARAMS": tuple(o.param() for o in hello.options), "__doc__": doc,
        "__module__": EngineBot.__module__})


@dataclass(frozen=True)
class EngineSpec(BotSpec):
    """A participant that is an engine: its command, its handshake, the arena's keys."""

    #: Read by ``Isolation.isolates`` (a class attribute: no spec a bot's code made has
    #: it): the seat is the arena's own code, and its engine always runs in a jail.
    JAILS_ITSELF: ClassVar[bool] = True

    command: Command = field(default_factory=lambda: Command((), ""))
    hello: Hello = field(default_factory=lambda: Hello("", "", ()))
    clock: Clock = field(default_factory=Clock)
    fresh: bool = False
    #: The values of every declared option (defaults filled in).
    options: dict[str, Any] = field(default_factory=dict)
    #: The jail's memory limit in MB (``--bot-memory``).
    memory: int = 2048

    @classmethod
    def parse(cls, text: str, memory: int = 0,  # type: ignore[override]
              paths: tuple[str, ...] = ()) -> EngineSpec:
        """An engine spec, its engine asked for its handshake; BotConfigError (one
        sentence naming the engine and what it did) when it is bad.  ``memory`` (MB) and
        ``paths`` are a command's ``--bot-memory`` and ``--bot-path``: the jail's limit
        and more read-only paths it shows."""
        target, argv, keys, name = split_engine(text)
        text = text.strip()
        command = resolve(argv, text)
        if paths:
            extra = tuple(os.path.realpath(p) for p in paths)
            command = dataclasses.replace(command, shown=(*command.shown, *extra))
        memory = memory or 2048
        clock = Clock.of(keys, text)
        fresh = keys.get("fresh", False)
        if not isinstance(fresh, bool):
            raise BotConfigError(f"in bot spec {text!r}: fresh must be true or false")
        label = f"engine {argv[0]!r}"
        try:
            hello = engine_hello(command, label, memory)
        except BotFault as fault:
            raise BotConfigError(fault.message) from None
        given = {k: v for k, v in keys.items() if k not in RESERVED_KEYS}
        declared = {o.name: o.param() for o in hello.options}
        options: dict[str, Any] = {}
        for key, value in given.items():
            if key not in declared:
                valid = ", ".join(declared) or "none"
                raise BotConfigError(f"in bot spec {text!r}: engine {hello.name!r} has no "
                                     f"option {key!r} (its options: {valid}; the arena's "
                                     "keys: name, tc, st, fresh)")
            try:
                options[key] = declared[key].convert(value)
            except BotConfigError as exc:
                raise BotConfigError(f"in bot spec {text!r}: {exc}") from None
        full = {o.name: options.get(o.name, o.default) for o in hello.options}
        arena_keys = {k: keys[k] for k in ("tc", "st", "fresh") if k in keys}
        return cls(text=text, target=target, params={**options, **arena_keys},
                   name=name or text, class_path="arena.protocol.bot.EngineBot",
                   command=command, hello=hello, clock=clock, fresh=fresh, options=full,
                   memory=memory)

    def full_params(self) -> dict[str, Any]:
        return {**self.options, **{k: v for k, v in self.params.items()
                                   if k in ("tc", "st", "fresh")}}

    def bot_class(self) -> type[Bot]:
        return engine_class(self.hello)

    def create(self, rng: random.Random) -> Bot:
        return self.create_seeded(rng.getrandbits(63))

    def create_seeded(self, seed: int, deal: int | None = None) -> Bot:
        """The seat of this engine in one game, the engine told ``seed`` for its own
        randomness (``make_bot`` gives the bot seed a built-in bot would get); ``deal``, the
        game's seed, keeps a process from playing one deal twice (``bot.acquire``)."""
        return EngineBot(self, seed, deal)
