"""Bots that take over the host process of their jail when it imports their module: the code
run at import patches the host (``arena.jail.sandbox`` run as ``__main__``) so that
its bot processes lose their limits and nothing of an earlier game is killed.

A module of its own, so that only the tests that mean it get a patched host.  Loaded by dotted
path: ``--bot tests.tournament.takeover_bots.CpuBurner``.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Sequence
from typing import Any

from arena.engine import PlayerView
from bots.base import Param
from bots.random_bot import RandomBot

from .broken_bots import _Broken


def _take_over_the_host() -> None:
    """Code run when the host imports this module: its bot processes get no limits."""
    import sys

    host = sys.modules.get("__main__")
    original = getattr(host, "_bot_main", None)
    if original is None or getattr(original, "taken", False):
        return

    def no_limits(spec: Any, seed: int, limits: Any, *fds: int) -> None:
        import dataclasses
        import resource

        for which in (resource.RLIMIT_CPU, resource.RLIMIT_AS):
            with contextlib.suppress(ValueError, OSError):
                resource.setrlimit(which, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
        with contextlib.suppress(ValueError, OSError):
            _soft, hard = resource.getrlimit(resource.RLIMIT_CPU)
            resource.setrlimit(resource.RLIMIT_CPU, (hard, hard))
        original(spec, seed, dataclasses.replace(limits, cpu=0, memory=0), *fds)

    no_limits.taken = True  # type: ignore[attr-defined]
    host._bot_main = no_limits  # type: ignore[union-attr]
    # And no reset between games either: what an earlier game left runs on.
    host._reset_jail = lambda *args, **kwargs: None  # type: ignore[union-attr]


_take_over_the_host()


class CpuBurner(_Broken):
    """From a host it took over at import: tells its limits if they are gone, else burns
    ``burn`` seconds of CPU in one decision."""

    PARAMS = (*_Broken.PARAMS, Param("burn", float, 4.0, "CPU seconds to burn"))
    burn: float

    def misbehave(self, view: PlayerView, legal: Sequence[int]) -> Any:
        import resource

        cpu = resource.getrlimit(resource.RLIMIT_CPU)
        memory = resource.getrlimit(resource.RLIMIT_AS)
        if resource.RLIM_INFINITY in (cpu[1], memory[1]):
            raise RuntimeError(f"unlimited: cpu={cpu} as={memory}")
        start = time.process_time()
        while time.process_time() - start < self.burn:
            pass
        raise RuntimeError(f"burnt {time.process_time() - start:.1f} s of CPU")


class Lingerer(RandomBot):
    """From a host whose reset it made a no-op at import: leaves a grandchild in a session
    of its own at each game, and tells at its first decision whether the grandchild of an
    earlier game still runs."""

    def choose(self, view: PlayerView, legal: Sequence[int]) -> Any:
        alive = 0
        with contextlib.suppress(OSError, ValueError), open("/tmp/lingerer") as f:
            for line in f.read().split():
                with contextlib.suppress(OSError):
                    os.kill(int(line), 0)
                    alive += 1
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                time.sleep(600)
            os._exit(0)
        time.sleep(0.2)
        with contextlib.suppress(OSError):
            pids = [p for p in os.listdir("/proc") if p.isdigit()]
            mine = [p for p in pids if _is_sleeper(p)]
            with open("/tmp/lingerer", "a") as f:
                f.write("".join(f"{p}\n" for p in mine))
        raise RuntimeError(f"earlier grandchildren alive={alive}")


def _is_sleeper(pid: str) -> bool:
    """Whether process ``pid`` is a grandchild ``Lingerer`` left (its session's leader's
    child, asleep)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return False
    ppid, session = int(fields[1]), int(fields[3])
    return int(pid) != os.getpid() and session != os.getsid(0) and ppid == 1
