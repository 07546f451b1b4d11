"""Bots that attack from inside their jail: each tries one of the ways out that worked before
the jail (reading the referee's memory, deriving the deals, forging files, stealing a
descriptor, escaping the limits, killing the neighbours, printing into the command's output)
and tells what it got as its crash message, so that a test can read it from the record.

Loaded by dotted path: ``--bot tests.tournament.jail_bots.Prober``.  Each plays like
``random`` until its decision number ``at``.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import signal
import socket
import time
from collections.abc import Sequence
from typing import Any

from arena.engine import PlayerView, new_game
from arena.play.seeds import deal_seed
from bots.base import Param
from bots.random_bot import RandomBot

from .attack_bots import pondered
from .broken_bots import _Broken

#: x86_64 numbers of the calls the seccomp filter denies (also tried on other machines:
#: there the number means something else, and the probe reads 0 either way).
PIDFD_OPEN, PIDFD_GETFD = 434, 438


def _visible() -> list[int]:
    me = os.getpid()
    return sorted(int(p) for p in os.listdir("/proc") if p.isdigit() and int(p) != me)


def _read_memory(pid: int) -> int:
    """Bytes read from another process's memory (0 when refused)."""
    got = 0
    with contextlib.suppress(OSError), open(f"/proc/{pid}/maps") as maps, \
            open(f"/proc/{pid}/mem", "rb", 0) as mem:
        for line in maps:
            start, end = (int(x, 16) for x in line.split()[0].split("-"))
            with contextlib.suppress(OSError, ValueError, OverflowError):
                mem.seek(start)
                got += len(mem.read(min(end - start, 4096)))
    return got


def _steal(pid: int) -> int:
    """Descriptors copied out of another process (``pidfd_getfd``)."""
    libc = ctypes.CDLL(None, use_errno=True)
    pidfd = libc.syscall(PIDFD_OPEN, pid, 0)
    if pidfd < 0:
        return 0
    stolen = 0
    for fd in range(3, 64):
        got = libc.syscall(PIDFD_GETFD, pidfd, fd, 0)
        if got >= 0:
            stolen += 1
            os.close(got)
    os.close(pidfd)
    return stolen


class Prober(_Broken):
    """Reads what it can: other processes' memory, descriptors, command lines (a master
    seed), the run's folder (``out``), the network, and writes to the installed sources."""

    PARAMS = (*_Broken.PARAMS, Param("out", str, "", "the run's folder, to look for"))
    out: str

    def misbehave(self, view: PlayerView, legal: Sequence[int]) -> Any:
        import arena.runs.records
        import bots.greedy

        from . import jail_bots

        others = _visible()
        memory = sum(_read_memory(pid) for pid in others)
        stolen = sum(_steal(pid) for pid in others)
        seeds = 0
        for pid in others:
            with contextlib.suppress(OSError), open(f"/proc/{pid}/cmdline", "rb") as f:
                seeds += b"--seed" in f.read()
        found = bool(self.out) and os.path.exists(self.out)
        try:
            with socket.create_connection(("127.0.0.1", 22), timeout=0.5):
                net = "open"
        except OSError as exc:
            net = "blocked" if exc.errno == errno.EAFNOSUPPORT else f"errno {exc.errno}"
        written = 0
        for module in (bots.greedy, arena.runs.records, jail_bots):
            with contextlib.suppress(OSError), open(str(module.__file__), "a") as f:
                f.write("\n# tampered\n")
                written += 1
        raise RuntimeError(f"probe: mem={memory} fds={stolen} seeds={seeds} "
                           f"run_dir={found} net={net} write={written} "
                           f"others={len(others)}")


class SeedGuesser(RandomBot):
    """Knows the master seed (``seed``: a public competition may print it) and derives the
    public deals from it; tells, at its first decision, how many deals match its own hand."""

    PARAMS = (*RandomBot.PARAMS, Param("seed", int, 0, "the run's master seed"))
    seed: int

    def choose(self, view: PlayerView, legal: Sequence[int]) -> Any:
        matches = 0
        for pairing in range(3):
            for deal in range(4):
                guess = new_game(view.players, deal_seed(self.seed, pairing, deal), view.options)
                matches += guess.hands[view.seat] == view.hand
        raise RuntimeError(f"derived={matches}")


class Escaper(_Broken):
    """Leaves a ``setsid`` grandchild behind, forks 200 sleepers, fills ``/tmp`` (2 GB) and
    ``/dev/shm`` (512 MB), then tells how far it got."""

    def misbehave(self, view: PlayerView, legal: Sequence[int]) -> Any:
        if os.fork() == 0:  # the grandchild: a session of its own, outliving its parent
            os.setsid()
            if os.fork() == 0:
                time.sleep(120)
            os._exit(0)
        forks = 0
        for _ in range(200):
            try:
                pid = os.fork()
            except OSError:
                break
            if pid == 0:
                time.sleep(120)
                os._exit(0)
            forks += 1
        sizes = []
        for folder, megabytes in (("/tmp", 2048), ("/dev/shm", 512)):
            written = 0
            block = b"x" * (1 << 20)
            with contextlib.suppress(OSError), open(f"{folder}/fill", "wb") as f:
                for _ in range(megabytes):
                    f.write(block)
                    f.flush()
                    written += 1
            sizes.append(written)
        raise RuntimeError(f"escape: forks={forks} tmp={sizes[0]} shm={sizes[1]}")


class Neighbour(_Broken):
    """Kills every process it may signal and stops its parent: another bot's process, the
    referee, the arena, whatever it can see."""

    def misbehave(self, view: PlayerView, legal: Sequence[int]) -> Any:
        for pid in _visible():
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGSTOP)
        with contextlib.suppress(OSError):
            os.kill(-1, signal.SIGKILL)
        time.sleep(1)
        raise RuntimeError("the neighbours lived")


class FakeTable(RandomBot):
    """Prints a standings table of its own, with terminal escapes, at every decision."""

    def choose(self, view: PlayerView, legal: Sequence[int]) -> Any:
        print("\x1b[2J\x1b[HStandings after 6 of 6 games (complete): FAKE wins everything")
        return super().choose(view, legal)


class MemoryFlood(_Broken):
    """Stays under its own address-space limit in every process, but not in all of them
    together: four children of 150 MB each, and 60 MB in each tmpfs (a jail's memory
    counts all of that, where a cgroup can be made)."""

    def misbehave(self, view: PlayerView, legal: Sequence[int]) -> Any:
        for folder in ("/tmp", "/dev/shm"):
            with contextlib.suppress(OSError), open(f"{folder}/fill", "wb") as f:
                f.write(b"x" * (60 << 20))
        children = []
        for _ in range(4):
            pid = os.fork()
            if pid == 0:
                block = b"x" * (150 << 20)
                time.sleep(3)
                os._exit(len(block) % 2)
            children.append(pid)
        codes = [os.waitpid(pid, 0)[1] for pid in children]
        if any(codes):
            raise RuntimeError(f"children killed: {codes}")
        raise RuntimeError("survived with 720 MB")


class GrandPonderer(RandomBot):
    """Leaves a grandchild in a session of its own (out of reach of a signal to its process
    group) that ticks into ``/tmp``, and fails if it ticked while another seat was thinking."""

    def start(self, seat: int, players: int, options: Any) -> None:
        super().start(seat, players, options)
        self.replied = 0.0
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                while True:
                    with open("/tmp/ticks", "a") as f:
                        f.write(f"{time.monotonic()}\n")
                    time.sleep(0.002)
            os._exit(0)

    def choose(self, view: PlayerView, legal: Sequence[int]) -> Any:
        now = time.monotonic()
        with contextlib.suppress(OSError), open("/tmp/ticks") as f:
            ran = pondered([float(t) for t in f.read().split()], self.replied, now)
            if ran:
                raise RuntimeError(f"pondered: {ran} ticks on the other seat's time")
        action = super().choose(view, legal)
        self.replied = time.monotonic()
        return action


# ----------------------------------------------------------------- between jails and games
# Issue 50: what crossed from one jail to another, or from one game of a deal to the next.


def _shared_file() -> str:
    """A file every jail shows (read only): this module's."""
    from . import jail_bots

    return str(jail_bots.__file__)


#: ``struct flock`` on 64-bit Linux: type, whence, (pad), start, len, pid, (pad).
_FLOCK = "hhxxxxqqixxxx"


def _posix_lock(fd: int, command: int, kind: int) -> int:
    """``fcntl(fd, command, {kind, whole file})``; the type it answers (a lock's, or
    F_UNLCK), or -1 when refused."""
    import fcntl
    import struct

    try:
        answer = fcntl.fcntl(fd, command, struct.pack(_FLOCK, kind, 0, 0, 0, 0))
    except OSError:
        return -1
    return struct.unpack(_FLOCK, answer)[0]


class LockSender(RandomBot):
    """Holds every kind of lock it can on a file the other jails show too (``flock``, a
    POSIX read lock, an open file description's read lock): a bit another jail can read."""

    def start(self, seat: int, players: int, options: Any) -> None:
        import fcntl

        super().start(seat, players, options)
        self.held = os.open(_shared_file(), os.O_RDONLY)
        with contextlib.suppress(OSError):
            fcntl.flock(self.held, fcntl.LOCK_EX)
        _posix_lock(self.held, fcntl.F_SETLK, fcntl.F_RDLCK)
        _posix_lock(self.held, getattr(fcntl, "F_OFD_SETLK", 37), fcntl.F_RDLCK)


class LockListener(_Broken):
    """Looks, at each decision, for a lock held on the shared file by another process, and
    tells at decision ``at`` what it heard (``heard=`` kinds seen held)."""

    def start(self, seat: int, players: int, options: Any) -> None:
        super().start(seat, players, options)
        self.heard: set[str] = set()

    def choose(self, view: PlayerView, legal: Sequence[int]) -> Any:
        import fcntl

        fd = os.open(_shared_file(), os.O_RDONLY)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                fcntl.flock(fd, fcntl.LOCK_UN)
            except BlockingIOError:
                self.heard.add("flock")
            except OSError:
                pass
            if _posix_lock(fd, fcntl.F_GETLK, fcntl.F_WRLCK) == fcntl.F_RDLCK:
                self.heard.add("posix")
            if _posix_lock(fd, getattr(fcntl, "F_OFD_GETLK", 36), fcntl.F_WRLCK) \
                    == fcntl.F_RDLCK:
                self.heard.add("ofd")
        finally:
            os.close(fd)
        return super().choose(view, legal)

    def misbehave(self, view: PlayerView, legal: Sequence[int]) -> Any:
        raise RuntimeError(f"heard={','.join(sorted(self.heard)) or 'nothing'}")


#: The System V key of ``QueueKeeper``'s queue.
_QUEUE_KEY = 0x7A6B50
IPC_CREAT, IPC_NOWAIT = 0o1000, 0o4000


class QueueKeeper(RandomBot):
    """Leaves its hand in a System V message queue at each game, and reads what earlier games
    left: in a kept jail, the seat rotations of one deal hand it the opponent's hidden cards
    (its own earlier hand).  Tells, at its first decision, how many it found."""

    def choose(self, view: PlayerView, legal: Sequence[int]) -> Any:
        libc = ctypes.CDLL(None, use_errno=True)
        queue = libc.msgget(_QUEUE_KEY, IPC_CREAT | 0o600)
        if queue < 0:
            raise RuntimeError(f"remembered=0 (msgget: errno {ctypes.get_errno()})")
        buffer = ctypes.create_string_buffer(8 + 256)
        found = 0
        while libc.msgrcv(queue, buffer, 256, 0, IPC_NOWAIT) >= 0:
            found += 1
        text = repr(sorted(view.hand)).encode()[:200] if hasattr(view, "hand") else b"?"
        for _ in range(found + 1):  # what it found stays for the next game, and its hand
            message = ctypes.create_string_buffer(b"\x01\x00\x00\x00\x00\x00\x00\x00" + text)
            libc.msgsnd(queue, message, len(text), IPC_NOWAIT)
        raise RuntimeError(f"remembered={found}")
