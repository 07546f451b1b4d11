"""Untrusted bots in processes of their own, as cutechess and fastchess run engines.

A bot that runs in the worker's process can reach everything there: ``gc`` leads from its
view to the game (opponents' hands, deck orders), and it could write the watchdog's status,
the worker's result pipe or the shared rule options.  So an isolated bot runs in a *bot
process* that holds no game state: it is sent a copy of its view and the legal actions, and
it sends back an action; nothing else crosses.  The worker (the referee, which holds the
game) validates the reply and decides faults, timeouts and results itself.

Processes:

- a *host* per untrusted participant and worker, started by ``exec`` (a fork of the worker
  would inherit the schedule, whose seeds give every deck away): it imports the bot class
  once, then forks one bot process per game on request.  One per participant, so that one
  bot module cannot patch another's class.
- a *bot process* per game and seat, forked by its host: its own process group, an address
  space limit (``RLIMIT_AS``, ``--bot-memory``), stdout and stderr into a pipe that the
  referee drains into ``arena.log`` (at most ``OUTPUT_LIMIT`` bytes per game), and the
  kernel's ``SIGKILL`` should its host die.  The referee kills its process group when the
  game ends.

Messages are frames (4-byte length, then the payload).  Towards the bot they are pickles
(the bot may trust the referee); from the bot they are JSON, at most ``REPLY_LIMIT`` bytes,
read by ``orjson`` (a pickle from a bot would run its code in the referee).  A reply is
``{"a": action}``, ``{"ok": 1}`` or ``{"e": "what went wrong"}``.
"""

from __future__ import annotations

import contextlib
import logging
import os
import pickle
import random
import select
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
import types
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from arena.bot import Bot, BotConfigError
from arena.engine import Event, GameResult, RuleOptions
from arena.match import BotFault, describe_exception, returned_text
from arena.registry import BotSpec, available, is_builtin, split_spec

log = logging.getLogger("arena.tournament")

#: Which participants run isolated: ``untrusted`` (every bot not shipped with the arena),
#: ``all``, or ``none``.
ISOLATE_MODES = ("untrusted", "all", "none")
#: Default address-space limit of a bot process, in MB.
DEFAULT_BOT_MEMORY = 2048
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
_HEADER = struct.Struct(">I")


@dataclass(frozen=True)
class Isolation:
    """Which participants run in bot processes, and their limits (never changes a game)."""

    mode: str = "untrusted"
    #: Participant names (or bot names/targets) run in-process whatever ``mode`` says.
    trusted: frozenset[str] = field(default_factory=frozenset)
    #: Address-space limit per bot process in MB (0: none).
    memory: int = DEFAULT_BOT_MEMORY

    def isolates(self, spec: BotSpec) -> bool:
        """Whether ``spec``'s bot runs in a process of its own."""
        if isinstance(spec, ForeignSpec):
            return True  # checked away from us: its class must never be imported here
        if self.mode == "none" or spec.name in self.trusted or spec.target in self.trusted:
            return False
        return self.mode == "all" or not shipped(spec)

    def trusts_text(self, text: str) -> bool:
        """Whether a spec's text may be parsed (its module imported) in this process: a bot
        shipped with the arena, a trusted one, or any with ``--isolate none``.

        Read with the spec parser itself (``split_spec``), before anything is imported; a
        text that is no spec raises its BotConfigError here.
        """
        parts = split_spec(text)
        names = {parts.text, parts.target} | ({parts.name} if parts.name else set())
        if self.mode == "none" or names & self.trusted:
            return True
        return is_builtin(available().get(parts.target, parts.target))


def shipped(spec: BotSpec) -> bool:
    """Whether the spec names a bot that comes with the arena: one that the arena's own
    distribution registers (``arena.registry.is_builtin``)."""
    return is_builtin(spec.class_path)


@dataclass(frozen=True)
class ForeignSpec(BotSpec):
    """A spec checked in a process of its own (``parse_participant``): its module was never
    imported here, and its parameters with defaults filled in came back as data."""

    checked: dict[str, Any] = field(default_factory=dict)

    def full_params(self) -> dict[str, Any]:
        return dict(self.checked)


#: Seconds a bot module may take to import when its spec is checked.
CHECK_TIME = 60.0


def parse_participant(text: str, isolation: Isolation | None) -> BotSpec:
    """``BotSpec.parse(text)``, except that an untrusted bot's module is imported only in a
    short-lived process of its own.

    Importing a module runs its code: in the arena's process, code run at import (a
    ``gc`` callback, a patched engine function) would reach every game whatever the bots do
    later.  So an untrusted spec is checked by a child, which sends back the spec's fields as
    JSON; BotConfigError with one sentence when it is bad.
    """
    if isolation is None or isolation.trusts_text(text):
        return BotSpec.parse(text)
    parts = split_spec(text)
    stripped, target = parts.text, parts.target
    reply = _check_elsewhere(stripped)
    if isinstance(reply.get("error"), str):
        raise BotConfigError(reply["error"][:300])
    fields = reply.get("spec")
    scalar = (int, float, str, bool)
    # What the text itself says (its name, which parameters it sets) is read here: the child
    # only adds what needs the module (the class, the values converted, the defaults).
    if not (isinstance(fields, dict) and fields.get("text") == stripped
            and fields.get("target") == target
            and fields.get("name") == (parts.name or stripped)
            and isinstance(fields.get("params"), dict)
            and set(fields["params"]) == set(parts.params)
            and isinstance(fields.get("class_path"), str)
            and all(isinstance(fields.get(k), dict) and all(
                isinstance(v, scalar) for v in fields[k].values()) for k in ("params", "full"))):
        raise BotConfigError(f"bot spec {stripped!r} could not be checked (its process "
                             "answered nonsense)")
    return ForeignSpec(text=stripped, target=target, params=fields["params"],
                       name=fields["name"], class_path=fields["class_path"],
                       checked=fields["full"])


def _check_elsewhere(text: str) -> dict[str, Any]:
    """Run ``BotSpec.parse(text)`` in a child (``--check``); its reply, or an error."""
    theirs_r, theirs_w = os.pipe()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    try:
        child = subprocess.Popen(
            [sys.executable, "-m", "arena.tournament.sandbox", "--check", str(theirs_w), text],
            pass_fds=(theirs_w,), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, env=env, start_new_session=True,
        )
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
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(child.pid, signal.SIGKILL)
        child.wait()
    try:
        reply = orjson.loads(bytes(data))
    except orjson.JSONDecodeError:
        reply = None
    if not isinstance(reply, dict):
        return {"error": f"bot spec {text!r} could not be checked (its module ended the "
                         "process that imported it)"}
    return reply


def _check_main(fd: int, text: str) -> None:
    """The child of ``_check_elsewhere``: parse the spec, write the answer to ``fd``."""
    try:
        spec = BotSpec.parse(text)
        out: dict[str, Any] = {"spec": {
            "text": spec.text, "target": spec.target, "params": spec.params,
            "name": spec.name, "class_path": spec.class_path, "full": spec.full_params()}}
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
    """The referee's handle on one participant's host process (see the module docstring)."""

    def __init__(self, spec: BotSpec, isolation: Isolation) -> None:
        self.spec = spec
        self.isolation = isolation
        self.process: subprocess.Popen[bytes] | None = None
        self.socket: socket.socket | None = None

    def _start(self) -> socket.socket:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        main = threading.current_thread() is threading.main_thread()
        # The worker's import path (a bot module found in the current directory, say).
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "arena.tournament.sandbox", str(theirs.fileno()),
             str(os.getpid()), "1" if main else "0"],
            pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, close_fds=True, env=env,
        )
        theirs.close()
        _send(ours.fileno(), pickle.dumps((self.spec, self.isolation.memory)))
        self.socket = ours
        return ours

    def spawn(self, seed: int) -> tuple[int, int, int, int]:
        """A new bot process for one game: ``(pid, requests, replies, output)``, the last
        three descriptors ours.  A host that died (a bot process may kill its parent) is
        started again once; a second failure is the participant's fault."""
        for _attempt in range(2):
            sock = self.socket or self._start()
            to_bot_r, to_bot_w = os.pipe()
            from_bot_r, from_bot_w = os.pipe()
            out_r, out_w = os.pipe()
            answer = b""
            try:
                socket.send_fds(sock, [struct.pack(">Q", seed)], [to_bot_r, from_bot_w, out_w])
                answer = sock.recv(8)
            except OSError:
                pass
            finally:
                for fd in (to_bot_r, from_bot_w, out_w):
                    os.close(fd)
            if len(answer) == 8:
                (pid,) = struct.unpack(">Q", answer)
                return pid, to_bot_w, from_bot_r, out_r
            for fd in (to_bot_w, from_bot_r, out_r):
                os.close(fd)
            self.close()
        raise BotFault("crash", "the bot could not be created: its host process ended "
                                "(the bot's module failed to import there?)")

    def close(self) -> None:
        if self.socket is not None:
            self.socket.close()
            self.socket = None
        if self.process is not None:
            with contextlib.suppress(ProcessLookupError):
                self.process.kill()
            self.process.wait()
            self.process = None


class RemoteBot:
    """A bot in a bot process, as the game loop sees it: ``start``, ``choose``, ``observe``,
    ``finish`` become messages.  Events (``Event`` values) are sent with the next decision,
    not one by one.

    Between its replies the bot's process group is stopped (``SIGSTOP``, ``SIGCONT`` with
    the next request), so that it cannot think, or spend the machine's cores, on the other
    seats' time: a bot process runs only while the referee waits for it.
    """

    def __init__(self, host: BotHost, seed: int, move_time: float | None) -> None:
        self.move_time = move_time
        self.events: list[Event] = []
        self.output = bytearray()
        self.dropped = 0
        self.pid, self.requests, self.replies, self.out = host.spawn(seed)
        self.closed = False
        self.paused = False
        os.set_blocking(self.out, False)
        self.poller = select.poll()
        self.poller.register(self.replies, select.POLLIN)
        self.poller.register(self.out, select.POLLIN)
        hello = self._reply("the bot could not be created")
        self._pause()
        if not hello.get("observes"):
            # The game loop tells events only to bots whose observe is not Bot's.
            self.observe = types.MethodType(Bot.observe, self)  # type: ignore[method-assign]

    def start(self, seat: int, players: int, options: RuleOptions) -> None:
        self._ask(("start", seat, players, options))
        self._reply("in its start hook")
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
        return Shown(shown[:80] if isinstance(shown, str) else "no action")

    def finish(self, result: GameResult) -> None:
        events, self.events = self.events, []
        with contextlib.suppress(OSError):
            self._ask(("finish", events, result))

    def _pause(self) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pid, signal.SIGSTOP)
            self.paused = True

    def _ask(self, message: tuple[Any, ...]) -> None:
        if self.paused:
            self.paused = False
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.pid, signal.SIGCONT)
        try:
            _send(self.requests, pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL))
        except BrokenPipeError:
            raise BotFault("crash", "the bot's process died") from None

    def _reply(self, doing: str) -> dict[str, Any]:
        """The next reply, draining the bot's output meanwhile; faults as BotFault."""
        deadline = None if self.move_time is None else time.monotonic() + self.move_time
        poller = self.poller
        data = bytearray()
        need = _HEADER.size
        header = True
        while True:
            wait = None if deadline is None else max(0.0, deadline - time.monotonic())
            ready = poller.poll(None if wait is None else int(wait * 1000) + 1)
            if not ready and deadline is not None and time.monotonic() >= deadline:
                if doing.startswith("while choosing"):
                    text = f"no decision within the {self.move_time:g} s move time"
                else:
                    text = f"no reply within the {self.move_time:g} s move time ({doing})"
                raise BotFault("timeout", text)
            for fd, _ in ready:
                if fd == self.out:
                    if not self._drain():
                        poller.unregister(self.out)
                    continue
                chunk = os.read(self.replies, need - len(data))
                if not chunk:
                    raise BotFault("crash", f"the bot's process died {doing}"
                                      if doing.startswith(("while", "in"))
                                      else f"{doing}: its process died")
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

    def _decode(self, data: bytes, doing: str) -> dict[str, Any]:
        try:
            reply = orjson.loads(data)
        except orjson.JSONDecodeError:
            reply = None
        if not isinstance(reply, dict):
            raise BotFault("crash", "the bot's process sent a reply that is not one")
        error = reply.get("e")
        if error is not None:
            text = error[:500] if isinstance(error, str) else "an unreadable error"
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
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pid, signal.SIGKILL)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(self.pid, signal.SIGKILL)  # should it have joined another group
        with contextlib.suppress(OSError):
            while select.select([self.out], [], [], 0)[0] and self._drain():
                pass
        for fd in (self.requests, self.replies, self.out):
            with contextlib.suppress(OSError):
                os.close(fd)
        text = bytes(self.output)
        if self.dropped:
            text += f"\n[{self.dropped} more bytes dropped]".encode()
        return text


# ----------------------------------------------------------------- the bot's side


def _host_main(sock_fd: int, parent: int, by_signal: bool) -> None:
    """A host: load the bot class, then fork a bot process per request."""
    die_with_parent(parent, by_signal=by_signal)
    sock = socket.socket(fileno=sock_fd)
    (size,) = _HEADER.unpack(_read_exact(sock_fd, _HEADER.size))
    spec, memory = pickle.loads(_read_exact(sock_fd, size))
    try:
        spec.bot_class()  # imported once here; each bot process inherits the module
    except Exception:
        os._exit(3)  # the referee names it: no reply to its first request
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # bot processes are reaped by the kernel
    while True:
        try:
            message, fds, _flags, _addr = socket.recv_fds(sock, 8, 3)
        except OSError:
            os._exit(0)
        if not message or len(fds) != 3:
            os._exit(0)
        (seed,) = struct.unpack(">Q", message)
        pid = os.fork()
        if pid == 0:
            try:
                sock.close()
                _bot_main(spec, seed, memory, *fds)
            finally:
                os._exit(0)
        with contextlib.suppress(OSError):
            os.setpgid(pid, pid)
        for fd in fds:
            os.close(fd)
        sock.sendall(struct.pack(">Q", pid))


def _bot_main(spec: BotSpec, seed: int, memory: int, requests: int, replies: int,
              out: int) -> None:
    """A bot process: create the bot, then answer requests until the pipe closes.

    ``seed`` is the bot's own (``arena.seeds.bot_seed``, as ``make_bot`` seeds a bot in the
    worker), so the bot plays as it would in-process; the game seed never reaches it.
    """
    with contextlib.suppress(OSError):
        os.setpgid(0, 0)
    die_with_parent(os.getppid(), by_signal=True)
    os.dup2(out, 1)
    os.dup2(out, 2)
    os.close(out)
    if memory:
        import resource

        limit = memory * 1024 * 1024
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    def reply(value: dict[str, Any]) -> None:
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
        try:
            action = bot.choose(message[2], message[3])
        except Exception as exc:
            reply({"e": describe_exception(exc)})
            continue
        # Only a plain int travels; anything else is shown as the referee would show it.
        if type(action) is int and -(1 << 63) <= action < 1 << 63:
            reply({"a": action})
        else:
            reply({"x": returned_text(action)})


if __name__ == "__main__":
    if sys.argv[1] == "--check":
        _check_main(int(sys.argv[2]), sys.argv[3])
    else:
        _host_main(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3] == "1")
