"""An engine running in its jail, as the arena's side of the protocol sees it: lines out,
lines in with a deadline, the engine's stderr kept, and every way it can go wrong turned
into a ``BotFault`` of the seat it plays (a crash, a hang, a malformed or oversized line).

The jail is the untrusted bots' (``arena.jail.bwrap``: bubblewrap, namespaces, no
network, cgroup limits, the system-call filter) showing the system, the interpreter and the
engine's own folder, read-only; the engine is started by ``launch`` as the jail's user, in
its folder.  Outside its turns the whole jail is frozen (``pause``; the seat decides when)
where the cgroup freezer can be written, so that it thinks only on its own time.
"""

from __future__ import annotations

import contextlib
import os
import select
import sys
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from arena.jail.bwrap import Jail, JailError, JailLimits, jail_problem, jail_uid, make_view
from arena.play.faults import BotFault, printable
from arena.protocol import LINE_LIMIT, STDERR_LIMIT, STDERR_LINES


@dataclass(frozen=True)
class Command:
    """What runs an engine: the program (an absolute path) and its arguments, the folder
    it runs in, and every folder the jail shows it (read-only)."""

    argv: tuple[str, ...]
    folder: str
    #: The folders shown: the working folder, and those of the arguments that name files
    #: or folders (``engine:"python3 my_engine.py"``, ``java -cp classes Main``).
    shown: tuple[str, ...] = ()


class EngineProcess:
    """One engine process in a jail of its own."""

    def __init__(self, command: Command, label: str, memory: int = 2048,
                 slot: int = 0) -> None:
        self.label = label
        self.command = command
        self.buffer = bytearray()
        self.stderr = bytearray()
        self.lines: deque[str] = deque(maxlen=STDERR_LINES)
        self.dropped = 0
        #: True while a request waits for its reply: such a process is never reused.
        self.busy = False
        self.closed = False
        #: The deals this process has played (their seeds): it is never given one again.
        self.deals: set[int] = set()
        problem = jail_problem()
        if problem is not None:
            raise BotFault("crash", f"{label}: {problem}")
        view = make_view([], (command.folder, *command.shown))
        limits = JailLimits(memory=memory)
        self.jail = Jail(view, limits)
        stdin_r, stdin_w = os.pipe()
        stdout_r, stdout_w = os.pipe()
        stderr_r, stderr_w = os.pipe()
        theirs = (stdin_r, stdout_w, stderr_w)
        uid = jail_uid(slot)
        try:
            self.jail.start([sys.executable, "-I", "-m", "arena.protocol.launch",
                             "-" if uid is None else str(uid), str(limits.processes),
                             str(limits.files), str(limits.file_size), *map(str, theirs),
                             command.folder, "--", *command.argv], pass_fds=theirs)
        except (OSError, JailError) as exc:
            for fd in (stdin_r, stdin_w, stdout_r, stdout_w, stderr_r, stderr_w):
                os.close(fd)
            self.jail.close()
            raise BotFault("crash", f"{label}: no jail could be started ({exc})") from None
        for fd in theirs:
            os.close(fd)
        self.stdin, self.stdout, self.err = stdin_w, stdout_r, stderr_r
        os.set_blocking(self.stdout, False)
        os.set_blocking(self.err, False)
        self.poller = select.poll()
        self.poller.register(self.stdout, select.POLLIN)
        self.poller.register(self.err, select.POLLIN)
        self.frozen = False

    # ------------------------------------------------------------- writing

    def send(self, messages: Sequence[dict[str, Any]]) -> None:
        """Write messages, one line each (the jail thawed first)."""
        if self.frozen:
            self.jail.freeze(False)
            self.frozen = False
        data = b"".join(orjson.dumps(m) + b"\n" for m in messages)
        view = memoryview(data)
        try:
            while view:
                view = view[os.write(self.stdin, view):]
        except OSError:
            raise self.fault("crash", "ended before it read its input") from None

    def pause(self) -> None:
        """Freeze the jail until the next message (no-op without a freezer)."""
        if not self.frozen and not self.closed:
            self.frozen = self.jail.freeze(True)

    # ------------------------------------------------------------- reading

    def read(self, deadline: float | None, doing: str) -> dict[str, Any]:
        """The next message of the engine; BotFault if none comes by ``deadline``
        (``time.monotonic``), or the line is too long, not JSON, or not an object."""
        while True:
            end = self.buffer.find(b"\n")
            if end >= 0:
                line = bytes(self.buffer[:end])
                del self.buffer[:end + 1]
                if not line.strip():
                    continue
                return self.decode(line, doing)
            if len(self.buffer) > LINE_LIMIT:
                raise self.fault("crash", f"wrote a line over {LINE_LIMIT} bytes {doing}")
            wait = None if deadline is None else deadline - time.monotonic()
            if wait is not None and wait <= 0:
                raise self.fault("timeout", f"did not answer {doing} in time")
            ready = self.poller.poll(None if wait is None else int(wait * 1000) + 1)
            for fd, _ in ready:
                if fd == self.err:
                    self.drain()
                    continue
                try:
                    chunk = os.read(self.stdout, LINE_LIMIT + 1)
                except BlockingIOError:
                    continue
                if not chunk:
                    raise self.fault("crash", f"ended {doing}{self._status()}")
                self.buffer += chunk

    def decode(self, line: bytes, doing: str) -> dict[str, Any]:
        try:
            message = orjson.loads(line)
        except orjson.JSONDecodeError:
            message = None
        if not isinstance(message, dict) or not isinstance(message.get("type"), str):
            shown = line[:60].decode(errors="replace")
            raise self.fault("crash", f"wrote {shown!r} {doing}, which is not a message "
                                      "(a JSON object with a type)")
        return message

    def drain(self) -> None:
        """Keep the engine's stderr (its last ``STDERR_LIMIT`` bytes' lines)."""
        with contextlib.suppress(OSError):
            while True:
                chunk = os.read(self.err, 65536)
                if not chunk:
                    self.poller.unregister(self.err)
                    return
                self.stderr += chunk
                *done, rest = self.stderr.split(b"\n")
                for line in done:
                    if line.strip():
                        # The engine's text: escaped before any log or terminal
                        self.lines.append(printable(line[:300].decode(errors="replace")))
                self.stderr = bytearray(rest[-STDERR_LIMIT:])

    def _status(self) -> str:
        """How the jail's first process ended, when it has (for a crash's message)."""
        process = self.jail.process
        code = None
        if process is not None:
            with contextlib.suppress(Exception):
                code = process.wait(0.2)
        limit = " (its jail reached its memory or process limit)" if self.jail.failed() else ""
        return (f" (exit status {code})" if code is not None else "") + limit

    def fault(self, kind: str, text: str) -> BotFault:
        """A fault of the engine, its last stderr lines quoted."""
        with contextlib.suppress(Exception):
            if self.err in dict(self.poller.poll(0)):
                self.drain()
        tail = "; its stderr ended: " + " | ".join(self.lines) if self.lines else ""
        return BotFault(kind, f"{self.label} {text}{tail}")

    # ------------------------------------------------------------- the end

    def close(self, quit: bool = True) -> None:
        """Ask the engine to quit (when ``quit``), then end its jail."""
        if self.closed:
            return
        self.closed = True
        if quit and not self.busy:
            with contextlib.suppress(Exception):
                if self.frozen:
                    self.jail.freeze(False)
                os.write(self.stdin, b'{"type":"quit"}\n')
        for fd in (self.stdin, self.stdout, self.err):
            with contextlib.suppress(OSError):
                os.close(fd)
        self.jail.close()
