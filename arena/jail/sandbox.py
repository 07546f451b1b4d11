"""Untrusted bots in processes of their own, in jails, as cutechess and fastchess run engines.

A bot that runs in the worker's process can reach everything there: ``gc`` leads from its
view to the game (opponents' hands, deck orders), and it could write the watchdog's status,
the worker's result pipe or the shared rule options.  So an isolated bot runs in a *bot
process* that holds no game state: it is sent a copy of its view and the legal actions, and
it sends back an action; nothing else crosses.  The worker (the referee, which holds the
game) validates the reply and decides faults, timeouts and results itself.  And the bot
process runs in a *jail* (``jail.py``: a user of its own, namespaces of its own, a
read-only view of the interpreter, the arena and its module, limits, a system-call filter),
so that it cannot reach the referee, the run's files or the machine either.

Processes:

- a *host* per untrusted participant and worker: a jail whose first process drops to the
  jail's user, imports the bot class once, then forks one bot process per game on request.
  One per participant, so that one bot module cannot patch another's class.  The host takes
  the bot processes' limits (``RLIMIT_AS``, ``RLIMIT_CPU``) on itself before it imports the
  bot, so that code run at import, which may patch everything of the host, cannot lift them.
  The jail is kept for the participant's next games (``Isolation.fresh`` makes one per game)
  but never for two games of one deal: the seat rotations of a deal would hand a bot that
  remembers its opponent's hidden cards (``GamePlayer`` keeps a jail per participant, seat
  rotation and copy at the table; ``BotHost`` makes a new jail should a deal come again).
  Before each game the *referee* kills every process of the jail but bwrap's and the host
  (``Jail.reset``, from the jail's cgroup; where no cgroup can be made, the jail is made
  afresh), so nothing but the host lives from one game into the next; the host empties its
  ``/tmp`` and ``/dev/shm`` too, as a courtesy a patched host may skip.
- a *bot process* per game and seat, forked by its host: its own process group, the host's
  address space limit (``RLIMIT_AS``, ``--bot-memory``) and CPU limit (``--bot-cpu``), stdout and
  stderr into a pipe that the referee drains into ``arena.log`` (at most ``OUTPUT_LIMIT``
  bytes per game), and the kernel's ``SIGKILL`` should its host die.  Its replies come over
  a socket on which the kernel tells the referee the sender's process ID (``SO_PASSCRED``:
  the host's namespace numbers its processes otherwise), which the referee kills when the
  game ends.  Between its replies the whole jail is frozen where a cgroup v2 can be made
  (``jail.Cgroups.freeze``), else the bot's process group is stopped.

Messages are frames (4-byte length, then the payload).  Towards the bot they are pickles
(the bot may trust the referee); from the bot they are JSON, at most ``REPLY_LIMIT`` bytes,
read by ``orjson`` (a pickle from a bot would run its code in the referee).  A reply is
``{"a": action}``, ``{"ok": 1}`` or ``{"e": "what went wrong"}``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
import pickle
import random
import select
import signal
import socket
import struct
import sys
import threading
import time
import types
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from arena.engine import Event, GameResult, RuleOptions
from arena.jail.bwrap import Jail, JailError, JailLimits, View, jail_problem, jail_uid, make_view
from arena.jail.privileges import drop
from arena.play.bot import Bot, BotConfigError, Param
from arena.play.faults import no_decision, printable
from arena.play.limits import START_TIME
from arena.play.match import BotFault, describe_exception, returned_text
from arena.play.registry import BotSpec, available, runs_only_ours, split_spec

log = logging.getLogger("arena.tournament")

#: Which participants run isolated: ``untrusted`` (every bot not shipped with the arena),
#: ``all``, or ``none``.
ISOLATE_MODES = ("untrusted", "all", "none")
#: Default memory limit of a jail (and address-space limit of a bot process), in MB.
DEFAULT_BOT_MEMORY = 2048
#: Default CPU seconds a bot process may use in one game (0: no limit).
DEFAULT_BOT_CPU = 600
#: The smallest limit accepted: Python with the engine and a bot maps about 110 MB.
MIN_BOT_MEMORY = 256
#: Bytes of a bot's output kept per game for ``arena.log``.
OUTPUT_LIMIT = 8192
#: Largest reply a bot process may send (an action is a few bytes).
REPLY_LIMIT = 1 << 16
#: ``prctl`` option: a signal for this process when its parent thread dies (Linux).
PR_SET_PDEATHSIG = 1
#: Seconds between an orphan's looks at its parent.
ORPHAN_POLL = 0.5
#: Bytes of output kept per host (a participant in one worker) over a whole run.
HOST_OUTPUT_LIMIT = 256 * 1024
_HEADER = struct.Struct(">I")
#: ``struct ucred``: pid, uid, gid.
_CREDENTIALS = struct.Struct("=iII")


@dataclass(frozen=True)
class Isolation:
    """Which participants run in bot processes, and their limits (never changes a game)."""

    mode: str = "untrusted"
    #: Participant names (or bot names/targets) run in-process whatever ``mode`` says.
    trusted: frozenset[str] = field(default_factory=frozenset)
    #: Memory limit of a jail and address-space limit per bot process in MB (0: none).
    memory: int = DEFAULT_BOT_MEMORY
    #: CPU seconds per bot process and game (0: none).
    cpu: int = DEFAULT_BOT_CPU
    #: More read-only paths the jails show (``--bot-path``: data, a policy's package).
    paths: tuple[str, ...] = ()
    #: A fresh jail for every game instead of one kept per participant and worker.
    fresh: bool = False

    def limits(self) -> JailLimits:
        """The jails' limits."""
        return JailLimits(memory=self.memory, cpu=self.cpu)

    def view(self, modules: Sequence[str]) -> View:
        """What a jail for bots of these modules shows."""
        return make_view(modules, self.paths)

    def isolates(self, spec: BotSpec) -> bool:
        """Whether ``spec``'s bot runs in a process of its own."""
        if getattr(type(spec), "JAILS_ITSELF", False):
            return False  # engine protocol hook: its seat is ours, the engine always jailed
        if isinstance(spec, ForeignSpec):
            return True  # checked away from us: its class must never be imported here
        if self.mode == "none" or spec.name in self.trusted or spec.target in self.trusted:
            return False
        return self.mode == "all" or not runs_only_ours(spec.target)

    def trusts_text(self, text: str) -> bool:
        """Whether a spec's text may be parsed (its module imported) in this process: a bot
        of the arena's own files (``runs_only_ours``), a trusted one, or any with
        ``--isolate none``.

        Read with the spec parser itself (``split_spec``), before anything is imported; a
        text that is no spec raises its BotConfigError here.
        """
        parts = split_spec(text)
        names = {parts.text, parts.target} | ({parts.name} if parts.name else set())
        if self.mode == "none" or names & self.trusted:
            return True
        return runs_only_ours(parts.target)

    def problem(self, specs: Sequence[BotSpec]) -> str | None:
        """Why the bots it isolates among ``specs`` cannot be jailed here (None: they can,
        or none is isolated): one sentence naming what to install."""
        if not any(self.isolates(spec) for spec in specs):
            return None
        return jail_problem()


def module_of(target: str) -> str:
    """The module a bot target (a registered name, ``module:Class``, ``module.Class``)
    lives in, read from the text alone: nothing is imported."""
    path = available().get(target, target)
    if ":" in path:
        return path.partition(":")[0]
    return path.rpartition(".")[0] or path


@dataclass(frozen=True)
class ForeignSpec(BotSpec):
    """A spec checked in a process of its own (``parse_participant``): its module was never
    imported here, and its parameters with defaults filled in came back as data."""

    checked: dict[str, Any] = field(default_factory=dict)
    #: The class's declared parameters and description, as its check reported them.
    params_declared: tuple[Param, ...] = ()
    about: str = ""
    #: ``module.Class`` its jail loads: a registered name resolved where the distributions are.
    loads: str = ""

    def full_params(self) -> dict[str, Any]:
        return dict(self.checked)

    def declared(self) -> tuple[Param, ...]:
        return self.params_declared

    def description(self) -> str:
        return self.about

    def bot_class(self) -> type[Bot]:
        """Never here: the class of a bot that is not ours is loaded only in its jail."""
        raise BotConfigError(f"bot {self.name!r} is not one of the arena's own and plays only "
                             "in a jail")

    def plain(self) -> BotSpec:
        """The spec as its jail parses it: by the text the user gave."""
        return BotSpec(text=self.text, target=self.loads or self.target,
                       params=dict(self.params), name=self.name)


def _as_sent(spec: BotSpec) -> BotSpec:
    """The spec a host is sent: a plain ``BotSpec`` (the host runs as ``__main__``, where a
    ``ForeignSpec`` would be another module's class)."""
    return spec.plain() if isinstance(spec, ForeignSpec) else spec


#: ``Param.type`` by the name a check sends it by.
_PARAM_TYPES: dict[str, type] = {"bool": bool, "int": int, "float": float, "str": str}


def _param_fields(param: Param) -> dict[str, Any]:
    """A declared parameter as JSON data (``_check_main``)."""
    # Any other type converts values as text (``Param.convert``); a default goes as its text.
    kind = param.type.__name__ if param.type in (bool, int, float) else "str"
    default = param.default
    if default is not None and not isinstance(default, (bool, int, float, str)):
        default = str(default)
    return {"name": param.name, "type": kind, "default": default,
            "help": param.help, "choices": list(param.choices), "minimum": param.minimum,
            "maximum": param.maximum}


def _param_from(fields: Any) -> Param | None:
    """A declared parameter from a check's reply; None when it is not one."""
    number = (int, float)
    if not (isinstance(fields, dict) and isinstance(fields.get("name"), str)
            and fields.get("type") in _PARAM_TYPES and isinstance(fields.get("help"), str)
            and isinstance(fields.get("default"), (int, float, str, bool, type(None)))
            and isinstance(fields.get("choices"), list)
            and all(isinstance(c, str) for c in fields["choices"])
            and all(fields.get(k) is None or (isinstance(fields[k], number)
                                              and not isinstance(fields[k], bool))
                    for k in ("minimum", "maximum"))):
        return None
    default = fields["default"]
    return Param(printable(fields["name"]), _PARAM_TYPES[fields["type"]],
                 printable(default) if isinstance(default, str) else default,
                 printable(fields["help"])[:500], tuple(printable(c) for c in fields["choices"]),
                 fields.get("minimum"), fields.get("maximum"))


#: Seconds a bot module may take to import when its spec is checked.
CHECK_TIME = 60.0


def parse_participant(text: str, isolation: Isolation | None) -> BotSpec:
    """``BotSpec.parse(text)``, except that an untrusted bot's module is imported only in a
    short-lived process of its own.

    Importing a module runs its code: in the arena's process, code run at import (a
    ``gc`` callback, a patched engine function) would reach every game whatever the bots do
    later.  So an untrusted spec is checked by a child, which sends back the spec's fields as
    JSON; BotConfigError with one sentence when it is bad.  ``isolation`` None: the default
    (``--isolate untrusted``), never "trust everything".
    """
    if text.strip().startswith("engine:"):  # engine protocol hook: its handshake, jailed
        from arena.protocol.spec import EngineSpec

        if isolation is None:
            return EngineSpec.parse(text)
        return EngineSpec.parse(text, isolation.memory, isolation.paths)
    isolation = isolation or Isolation()
    if isolation.trusts_text(text):
        return BotSpec.parse(text)
    parts = split_spec(text)
    stripped, target = parts.text, parts.target
    # A registered name is resolved here: the jail shows none of the distributions.
    loads = available().get(target, target).replace(":", ".")
    rest = stripped.partition(":")[2]
    sent = loads + (":" + rest if rest else "")
    reply = _check_elsewhere(sent, isolation)
    if isinstance(reply.get("error"), str):
        raise BotConfigError(printable(reply["error"])[:300])
    fields = reply.get("spec")
    scalar = (int, float, str, bool)
    # What the text itself says (its name, which parameters it sets) is read here: the child
    # only adds what needs the module (the class, the values converted, the defaults).
    if not (isinstance(fields, dict) and fields.get("text") == sent
            and fields.get("target") == loads
            and fields.get("name") == (parts.name or sent)
            and isinstance(fields.get("params"), dict)
            and set(fields["params"]) == set(parts.params)
            and isinstance(fields.get("class_path"), str)
            and all(isinstance(fields.get(k), dict) and all(
                isinstance(v, scalar) for v in fields[k].values()) for k in ("params", "full"))
            and isinstance(fields.get("about"), str)
            and isinstance(fields.get("declared"), list)):
        raise BotConfigError(f"bot spec {stripped!r} could not be checked (its process "
                             "answered nonsense)")
    read = [_param_from(p) for p in fields["declared"]]
    declared = tuple(p for p in read if p is not None)
    if len(declared) != len(read):
        raise BotConfigError(f"bot spec {stripped!r} could not be checked (its process "
                             "answered nonsense)")
    return ForeignSpec(text=stripped, target=target, params=fields["params"],
                       name=parts.name or stripped, class_path=printable(fields["class_path"]),
                       loads=loads, params_declared=declared,
                       checked={printable(k): printable(v) if isinstance(v, str) else v
                                for k, v in fields["full"].items()},
                       about=printable(fields["about"])[:500])


def _check_elsewhere(text: str, isolation: Isolation) -> dict[str, Any]:
    """Run ``BotSpec.parse(text)`` in a jail of its own (``--check``); its reply, or an
    error."""
    problem = jail_problem()
    if problem is not None:
        raise BotConfigError(f"bot spec {text!r}: {problem}")
    view = isolation.view([module_of(split_spec(text).target)])
    theirs_r, theirs_w = os.pipe()
    limits = isolation.limits()
    jail = Jail(view, limits)
    try:
        uid = jail_uid(0)
        jail.start([sys.executable, "-I", "-m", "arena.jail.sandbox", "--check",
                    str(theirs_w), "-" if uid is None else str(uid),
                    f"{limits.memory},{limits.cpu}",
                    orjson.dumps(list(view.sys_path)).decode(), text], pass_fds=(theirs_w,))
    except (OSError, JailError) as exc:
        os.close(theirs_r)
        raise BotConfigError(f"bot spec {text!r}: no jail could be started to check it "
                             f"({exc})") from None
    finally:
        os.close(theirs_w)
    data = bytearray()
    deadline = time.monotonic() + CHECK_TIME
    try:
        while len(data) <= REPLY_LIMIT:
            wait = deadline - time.monotonic()
            if wait <= 0 or not select.select([theirs_r], [], [], wait)[0]:
                return {"error": f"bot spec {text!r}: its module did not finish importing "
                                 f"within {CHECK_TIME:g} s"}
            chunk = os.read(theirs_r, 65536)
            if not chunk:
                break
            data += chunk
    finally:
        os.close(theirs_r)
        jail.close()
    try:
        reply = orjson.loads(bytes(data))
    except orjson.JSONDecodeError:
        reply = None
    if not isinstance(reply, dict):
        return {"error": f"bot spec {text!r} could not be checked (its module ended the "
                         "process that imported it, or the jail could not show it: is its "
                         "file readable by other users?)"}
    return reply


def _check_main(fd: int, uid: int | None, limits: JailLimits, path: list[str],
                text: str) -> None:
    """The child of ``_check_elsewhere``, in its jail: become the jail's user, take the
    bots' limits, parse the spec (importing its module), write the answer to ``fd``."""
    enter_jail(uid, JailLimits())
    take_limits(limits)
    sys.path.extend(path)
    try:
        spec = BotSpec.parse(text)
        out: dict[str, Any] = {"spec": {
            "text": spec.text, "target": spec.target, "params": spec.params,
            "name": spec.name, "class_path": spec.class_path, "full": spec.full_params(),
            "declared": [_param_fields(p) for p in spec.declared()],
            "about": spec.description()}}
    except BotConfigError as exc:
        out = {"error": str(exc)}
    except Exception as exc:
        out = {"error": f"bot spec {text!r} could not be checked: {describe_exception(exc)}"}
    try:
        payload = orjson.dumps(out)
    except TypeError:
        payload = orjson.dumps({"error": f"bot spec {text!r}: a parameter is not a number, "
                                         "text or true/false"})
    view = memoryview(payload)
    while view:
        view = view[os.write(fd, view):]
    os._exit(0)


def die_with_parent(parent: int, *, by_signal: bool,
                    before: Callable[[], None] | None = None) -> None:
    """End this process soon after process ``parent`` dies (an orphan works for nobody).

    ``by_signal``: the kernel kills it at once (``PR_SET_PDEATHSIG``), even while a bot holds
    the interpreter in C code.  The kernel means the death of the parent *thread* that forked
    us, so only a fork from a main thread asks for it.  In every case a thread also polls the
    parent's PID every ``ORPHAN_POLL`` seconds (a worker blocked in ``send`` to a dead parent
    waits for good otherwise) and calls ``before`` before exiting.
    """
    if by_signal:
        with contextlib.suppress(Exception):
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)

    def orphaned() -> bool:
        return os.getppid() != parent

    def watch() -> None:
        while not orphaned():
            time.sleep(ORPHAN_POLL)
        if before is not None:
            with contextlib.suppress(Exception):
                before()
        os._exit(70)

    if orphaned():  # died before the signal was asked for
        os._exit(70)
    threading.Thread(target=watch, name="arena-orphan-watch", daemon=True).start()


class Shown:
    """What a bot process returned that is not an action, as the bot process showed it: the
    game loop finds it illegal and names it by this text."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


# ----------------------------------------------------------------- frames


def _send(fd: int, payload: bytes) -> None:
    data = memoryview(_HEADER.pack(len(payload)) + payload)
    while data:
        data = data[os.write(fd, data):]


def _read_exact(fd: int, n: int) -> bytes:
    """``n`` bytes from a blocking descriptor (the bot's side); EOFError at the end."""
    chunks = []
    while n:
        chunk = os.read(fd, n)
        if not chunk:
            raise EOFError
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


# ----------------------------------------------------------------- the referee's side


class BotHost:
    """The referee's handle on one participant's host process, in its jail (see the module
    docstring)."""

    def __init__(self, spec: BotSpec, isolation: Isolation, slot: int = 0) -> None:
        self.spec = spec
        self.isolation = isolation
        self.slot = slot
        self.view = isolation.view([module_of(spec.target)])
        self.jail: Jail | None = None
        self.socket: socket.socket | None = None
        #: The host's process ID here (the kernel tells it with the host's first message).
        self.host_pid: int | None = None
        #: Games spawned in the jail, and their deals (game seeds): a deal played again gets
        #: a new jail.
        self.played = 0
        self.deals: set[int] = set()
        #: Bytes of output kept from this host's bot processes, for ``HOST_OUTPUT_LIMIT``.
        self.printed = 0

    def _start(self) -> socket.socket:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        ours.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
        uid = jail_uid(self.slot)
        jail = Jail(self.view, self.isolation.limits())
        try:
            jail.start([sys.executable, "-I", "-m", "arena.jail.sandbox",
                        str(theirs.fileno()), "-" if uid is None else str(uid)],
                       pass_fds=(theirs.fileno(),))
        except (OSError, JailError) as exc:
            ours.close()
            jail.close()
            raise BotFault("crash", f"the bot could not be created: no jail could be "
                                    f"started ({exc})") from None
        finally:
            theirs.close()
        self.jail = jail
        _send(ours.fileno(), pickle.dumps((_as_sent(self.spec), self.isolation.limits(),
                                           list(self.view.sys_path))))
        self.socket = ours
        return ours

    def spawn(self, seed: int, deal: int | None = None) -> tuple[int, socket.socket, int]:
        """A new bot process for one game of ``deal`` (its game seed; None: not told):
        ``(requests, replies, output)``, ours (the replies a socket that tells its sender).

        The jail is a new one when it has played this deal before, or when its processes
        cannot be killed from here; else every process of it but the host is killed first.
        A host that died (a bot process may kill its parent) is started again once; a second
        failure is the participant's fault."""
        if self.played and (deal in self.deals or not self._reset()):
            self.close()  # a deal this jail has seen, or an earlier game's processes left
        for _attempt in range(2):
            sock = self.socket or self._start()
            if self.host_pid is None:
                # The host's first message, once the bot is imported: who the host is.
                with contextlib.suppress(OSError):
                    self.host_pid = self._answer(sock)
                if self.host_pid is None:
                    self.close()
                    continue
                self._reset()  # what the import started (no other game ran here yet)
            self.played += 1
            if deal is not None:
                self.deals.add(deal)
            to_bot_r, to_bot_w = os.pipe()
            replies, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
            replies.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
            out_r, out_w = os.pipe()
            answer = None
            try:
                socket.send_fds(sock, [struct.pack(">Q", seed)],
                                [to_bot_r, theirs.fileno(), out_w])
                if self._answer(sock) == self.host_pid:
                    answer = b"spawned"
            except OSError:
                pass
            finally:
                for fd in (to_bot_r, out_w):
                    os.close(fd)
                theirs.close()
            if answer is not None:
                return to_bot_w, replies, out_r
            for fd in (to_bot_w, out_r):
                os.close(fd)
            replies.close()
            self.close()
        raise BotFault("crash", "the bot could not be created: its host process ended "
                                "(the bot's module failed to import there?)")

    @staticmethod
    def _answer(sock: socket.socket) -> int | None:
        """The sender's process ID of the host's next 8-byte answer, as the kernel tells it
        (``SO_PASSCRED``: no process can claim another's); None when none came."""
        data = b""
        pid = None
        while len(data) < 8:
            chunk, ancillary, _flags, _addr = sock.recvmsg(
                8 - len(data), socket.CMSG_SPACE(_CREDENTIALS.size))
            if not chunk:
                return None
            for level, kind, payload in ancillary:
                if level == socket.SOL_SOCKET and kind == socket.SCM_CREDENTIALS:
                    sender = _CREDENTIALS.unpack(payload[:_CREDENTIALS.size])[0]
                    if pid is not None and sender != pid:
                        return None
                    pid = sender
            data += chunk
        return pid if pid is not None and pid > 0 else None

    def _reset(self) -> bool:
        """Kill every process of the jail but bwrap's and the host, from here (code in the
        jail may have patched the host); False when it cannot be done (no cgroup lists the
        jail's processes here) or they do not die."""
        return self.jail is not None and self.host_pid is not None \
            and self.jail.reset({self.host_pid})

    def limit_hit(self) -> bool:
        """Whether the jail hit its cgroup's memory or task limit."""
        return self.jail is not None and self.jail.failed()

    def freeze(self, frozen: bool) -> bool:
        """Freeze or thaw the whole jail; False when it cannot be (no freezer)."""
        return self.jail is not None and self.jail.freeze(frozen)

    def game_over(self) -> None:
        """After a game: a fresh jail per game closes this one."""
        if self.isolation.fresh:
            self.close()

    def close(self) -> None:
        """End the jail (the kernel ends every process of its PID namespace)."""
        if self.socket is not None:
            self.socket.close()
            self.socket = None
        if self.jail is not None:
            self.jail.close()
            self.jail = None
        self.host_pid = None
        self.played = 0
        self.deals = set()


class RemoteBot:
    """A bot in a bot process, as the game loop sees it: ``start``, ``choose``, ``observe``,
    ``finish`` become messages.  Events (``Event`` values) are sent with the next decision,
    not one by one.

    Between its replies the whole jail is frozen (its cgroup's ``cgroup.freeze``, where
    cgroup v2 can be written; else the bot's process group gets ``SIGSTOP``, ``SIGCONT``
    with the next request), so that it cannot think, or spend the machine's cores, on the
    other seats' time: a bot's processes run only while the referee waits for it.
    """

    def __init__(self, host: BotHost, seed: int, move_time: float | None,
                 deal: int | None = None) -> None:
        self.host = host
        self.move_time = move_time
        self.events: list[Event] = []
        self.output = bytearray()
        self.dropped = 0
        self.requests, self.channel, self.out = host.spawn(seed, deal)
        self.replies = self.channel.fileno()
        #: The bot process's ID here, as the kernel tells it with its first reply.
        self.pid: int | None = None
        self.closed = False
        self.paused = False
        os.set_blocking(self.out, False)
        self.poller = select.poll()
        self.poller.register(self.replies, select.POLLIN)
        self.poller.register(self.out, select.POLLIN)
        hello = self._reply("the bot could not be created", START_TIME)
        self._pause()
        if not hello.get("observes"):
            # The game loop tells events only to bots whose observe is not Bot's.
            self.observe = types.MethodType(Bot.observe, self)  # type: ignore[method-assign]

    def start(self, seat: int, players: int, options: RuleOptions) -> None:
        self._ask(("start", seat, players, options))
        self._reply("in its start hook", START_TIME)
        self._pause()

    def observe(self, event: Event) -> None:
        self.events.append(event)

    def choose(self, view: Any, legal: Sequence[int]) -> Any:
        events, self.events = self.events, []
        self._ask(("choose", events, view, list(legal)))
        reply = self._reply("while choosing a move")
        self._pause()
        if "a" in reply:
            return reply["a"]
        shown = reply.get("x")
        return Shown(printable(shown)[:80] if isinstance(shown, str) else "no action")

    def finish(self, result: GameResult) -> None:
        events, self.events = self.events, []
        with contextlib.suppress(OSError):
            self._ask(("finish", events, result))

    def _pause(self) -> None:
        if self.host.freeze(True):
            self.paused = True
            return
        if self.pid is None:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pid, signal.SIGSTOP)
            self.paused = True

    def _ask(self, message: tuple[Any, ...]) -> None:
        if self.paused:
            self.paused = False
            if not self.host.freeze(False) and self.pid is not None:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(self.pid, signal.SIGCONT)
        try:
            _send(self.requests, pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL))
        except BrokenPipeError:
            raise BotFault("crash", "the bot's process died") from None

    def _reply(self, doing: str, at_least: float = 0.0) -> dict[str, Any]:
        """The next reply, draining the bot's output meanwhile; faults as BotFault.  The
        reply is due within the move time, or ``at_least`` seconds when that is longer."""
        limit = None if self.move_time is None else max(self.move_time, at_least)
        deadline = None if limit is None else time.monotonic() + limit
        poller = self.poller
        data = bytearray()
        need = _HEADER.size
        header = True
        while True:
            wait = None if deadline is None else max(0.0, deadline - time.monotonic())
            ready = poller.poll(None if wait is None else int(wait * 1000) + 1)
            if not ready and deadline is not None and time.monotonic() >= deadline:
                if doing.startswith("while choosing"):
                    text = no_decision(self.move_time)
                elif limit != self.move_time:
                    text = f"no reply within {limit:g} s to start ({doing})"
                else:
                    text = f"no reply within the {self.move_time:g} s move time ({doing})"
                raise BotFault("timeout", text)
            for fd, _ in ready:
                if fd == self.out:
                    if not self._drain():
                        poller.unregister(self.out)
                    continue
                chunk = self._read(need - len(data))
                if not chunk:
                    died = (f"the bot's process died {doing}" if doing.startswith(("while", "in"))
                            else f"{doing}: its process died")
                    if self.host.limit_hit():
                        died += " (its jail reached its memory or process limit)"
                    raise BotFault("crash", died)
                data += chunk
                if len(data) < need:
                    continue
                if header:
                    (size,) = _HEADER.unpack(data)
                    if size > REPLY_LIMIT:
                        raise BotFault("crash", f"the bot's process sent {size} bytes, "
                                                   f"over the {REPLY_LIMIT} of a reply")
                    header, need, data = False, size, bytearray()
                    if size:
                        continue
                return self._decode(bytes(data), doing)

    def _read(self, size: int) -> bytes:
        """Bytes of the replies; the first read also takes the sender's process ID, which
        the kernel writes beside the data (``SO_PASSCRED``) in our namespace's numbers."""
        if self.pid is not None:
            return os.read(self.replies, size)
        data, ancillary, _flags, _addr = self.channel.recvmsg(
            size, socket.CMSG_SPACE(_CREDENTIALS.size))
        for level, kind, payload in ancillary:
            if level == socket.SOL_SOCKET and kind == socket.SCM_CREDENTIALS:
                pid, _uid, _gid = _CREDENTIALS.unpack(payload[:_CREDENTIALS.size])
                if pid > 0:
                    self.pid = pid
        return data

    def _decode(self, data: bytes, doing: str) -> dict[str, Any]:
        try:
            reply = orjson.loads(data)
        except orjson.JSONDecodeError:
            reply = None
        if not isinstance(reply, dict):
            raise BotFault("crash", "the bot's process sent a reply that is not one")
        error = reply.get("e")
        if error is not None:
            text = printable(error)[:500] if isinstance(error, str) else "an unreadable error"
            prefix = "the bot could not be created: " if doing.startswith("the bot") else ""
            raise BotFault("crash", prefix + text)
        return reply

    def _drain(self) -> bool:
        """Keep the bot's output, up to ``OUTPUT_LIMIT`` bytes, so that it never blocks on
        a full pipe; False once the output is closed."""
        try:
            chunk = os.read(self.out, 65536)
        except BlockingIOError:
            return True
        except OSError:
            return False
        room = max(0, OUTPUT_LIMIT - len(self.output))
        self.output += chunk[:room]
        self.dropped += max(0, len(chunk) - room)
        return bool(chunk)

    def close(self) -> bytes:
        """End the bot's process group; returns what it printed (bounded)."""
        if self.closed:
            return b""
        self.closed = True
        if self.pid is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.pid, signal.SIGKILL)
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(self.pid, signal.SIGKILL)  # should it have joined another group
        with contextlib.suppress(OSError):
            while select.select([self.out], [], [], 0)[0] and self._drain():
                pass
        for fd in (self.requests, self.out):
            with contextlib.suppress(OSError):
                os.close(fd)
        self.channel.close()
        self.host.freeze(False)  # the host works between games
        self.host.game_over()
        room = max(0, HOST_OUTPUT_LIMIT - self.host.printed)
        text = bytes(self.output[:room])
        self.dropped += len(self.output) - len(text)
        self.host.printed += len(text)
        if self.dropped:
            text += f"\n[{self.dropped} more bytes dropped]".encode()
        return text


# ----------------------------------------------------------------- the bot's side


#: ``prctl`` options.
PR_SET_DUMPABLE = 4


def enter_jail(uid: int | None, limits: JailLimits) -> None:
    """The first thing a jail's process does: become the jail's user (when started as
    root), with no capability left even in its bounding set, then take the jail's limits
    (which that user cannot raise again) and become non-dumpable, so that the bot processes
    it forks (the same user) cannot open its memory.  Ends the process if the drop fails:
    nothing of the bot may run as root."""
    import ctypes

    drop(uid, limits.processes, limits.files, limits.file_size)
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)


def take_limits(limits: JailLimits) -> None:
    """Take the bot processes' limits on this process, which they inherit: address space
    (``RLIMIT_AS``) and CPU seconds (``RLIMIT_CPU``: ``SIGXCPU`` at ``limits.cpu``, the
    kernel's ``SIGKILL`` a second later).  A hard limit is the jail's user's to lower only,
    so code of the bot run later, even at import in this process, cannot lift them."""
    import resource

    if limits.memory:
        limit = limits.memory * 1024 * 1024
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    if limits.cpu:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu, limits.cpu + 1))


def _empty_tmp() -> None:
    """Before a game: the jail's ``/tmp`` and ``/dev/shm`` are emptied.  A courtesy, not a
    defence: a host patched by its bot's import may skip it, and a kept jail never plays two
    games of one deal (the processes of an earlier game the referee kills, ``Jail.reset``)."""
    for folder in ("/tmp", "/dev/shm"):
        with contextlib.suppress(OSError):
            for entry in os.scandir(folder):
                if not os.path.ismount(entry.path):  # a --bot-path bound there stays
                    _remove(entry.path)


def _remove(path: str) -> None:
    """Remove a file or a tree a bot left, whatever modes it set on its own folders."""
    import shutil

    def retry(function: Any, name: str, _exc: Any) -> None:
        with contextlib.suppress(OSError):
            os.chmod(os.path.dirname(name), 0o700)
            os.chmod(name, 0o700)
            function(name)

    if os.path.isdir(path) and not os.path.islink(path):
        with contextlib.suppress(OSError):
            os.chmod(path, 0o700)
        shutil.rmtree(path, onerror=retry)
    else:
        with contextlib.suppress(OSError):
            os.unlink(path)


def _host_main(sock_fd: int, uid: int | None) -> None:
    """A host, in its jail: become the jail's user, load the bot class, then fork a bot
    process per request (the jail dies with the referee: bwrap's ``--die-with-parent``)."""
    enter_jail(uid, JailLimits())
    sock = socket.socket(fileno=sock_fd)
    (size,) = _HEADER.unpack(_read_exact(sock_fd, _HEADER.size))
    spec, limits, path = pickle.loads(_read_exact(sock_fd, size))
    take_limits(limits)  # before the bot's code runs: the import may patch all that follows
    # The class by the name the user gave, whose module the view shows: the class path a
    # check reported is the class's own ``__module__``, which the bot's code chooses.
    spec = dataclasses.replace(spec, class_path="")
    sys.path.extend(path)
    try:
        spec.bot_class()  # imported once here; each bot process inherits the module
    except Exception:
        os._exit(3)  # the referee names it: no reply to its first request
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # bot processes are reaped by the kernel
    sock.sendall(struct.pack(">Q", 0))  # ready: the referee learns who the host is
    while True:
        try:
            message, fds, _flags, _addr = socket.recv_fds(sock, 8, 3)
        except OSError:
            os._exit(0)
        if not message or len(fds) != 3:
            os._exit(0)
        (seed,) = struct.unpack(">Q", message)
        _empty_tmp()
        pid = os.fork()
        if pid == 0:
            try:
                sock.close()
                _bot_main(spec, seed, limits, *fds)
            finally:
                os._exit(0)
        with contextlib.suppress(OSError):
            os.setpgid(pid, pid)
        for fd in fds:
            os.close(fd)
        sock.sendall(struct.pack(">Q", pid))


class CpuLimit(Exception):
    """Raised in a bot process that used up its CPU seconds (``SIGXCPU``)."""


def _over_cpu(signum: int, frame: Any) -> None:
    raise CpuLimit("the bot's process used up its CPU time limit (--bot-cpu)")


def _bot_main(spec: BotSpec, seed: int, limits: JailLimits, requests: int, replies: int,
              out: int) -> None:
    """A bot process: create the bot, then answer requests until the pipe closes.

    ``seed`` is the bot's own (``arena.play.seeds.bot_seed``, as ``make_bot`` seeds a bot in the
    worker), so the bot plays as it would in-process; the game seed never reaches it.
    """
    with contextlib.suppress(OSError):
        os.setpgid(0, 0)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # the host reaps its own, not the bot's
    die_with_parent(os.getppid(), by_signal=True)
    os.dup2(out, 1)
    os.dup2(out, 2)
    os.close(out)
    import ctypes

    # Dumpable again (the host is not): its own /proc entries are its user's.
    ctypes.CDLL(None).prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)
    if limits.cpu:
        # The limits themselves the host took before the bot was imported (``take_limits``);
        # a fork starts its CPU count at 0.  The handler only names the fault.
        signal.signal(signal.SIGXCPU, _over_cpu)

    def reply(value: dict[str, Any]) -> None:
        # What the bot printed goes out before its reply: the process may be killed once
        # the game ends, with no exit to flush it.
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        _send(replies, orjson.dumps(value))

    try:
        bot = spec.create(random.Random(seed))
    except Exception as exc:
        reply({"e": describe_exception(exc)})
        return
    reply({"ok": 1, "observes": type(bot).observe is not Bot.observe})
    while True:
        try:
            (size,) = _HEADER.unpack(_read_exact(requests, _HEADER.size))
            message = pickle.loads(_read_exact(requests, size))
        except EOFError:
            return
        kind = message[0]
        if kind == "start":
            try:
                bot.start(*message[1:])
            except Exception as exc:
                reply({"e": describe_exception(exc)})
                continue
            reply({"ok": 1})
            continue
        for event in message[1]:
            with contextlib.suppress(Exception):  # as in-process: a failing hook is ignored
                bot.observe(event)
        if kind == "finish":
            with contextlib.suppress(Exception):
                bot.finish(message[2])
            return
        cards = message[2].card_set  # the game's, as sent (the bot may change its view)
        try:
            action = bot.choose(message[2], message[3])
        except Exception as exc:
            reply({"e": describe_exception(exc)})
            continue
        # Only a plain int travels; anything else is shown as the referee would show it.
        if type(action) is int and -(1 << 63) <= action < 1 << 63:
            reply({"a": action})
        else:
            reply({"x": returned_text(action, cards)})


def _uid(text: str) -> int | None:
    return None if text == "-" else int(text)


if __name__ == "__main__":
    if sys.argv[1] == "--check":
        memory, cpu = (int(n) for n in sys.argv[4].split(","))
        _check_main(int(sys.argv[2]), _uid(sys.argv[3]), JailLimits(memory=memory, cpu=cpu),
                    orjson.loads(sys.argv[5]), sys.argv[6])
    else:
        _host_main(int(sys.argv[1]), _uid(sys.argv[2]))
