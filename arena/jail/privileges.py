"""The first step of every jail's first process: become the jail's user with no capability,
and take the limits that user cannot raise again.

bubblewrap starts its command as root when the arena runs as root (with just the
capabilities needed to drop them), and nothing of a bot or an engine may run as root.  Two
processes take this step: a bot host (``arena.jail.sandbox.enter_jail``, before it
imports the bot) and an engine's launcher (``arena.protocol.launch``, before it ``exec``s the
engine).  Standard library only: the launcher starts once per engine process, and importing
the tournament package would cost it most of a second.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import resource

#: ``prctl`` option: drop a capability from the bounding set.
PR_CAPBSET_DROP = 24


def drop(uid: int | None, processes: int, files: int, file_mb: int) -> None:
    """Become ``uid`` (None: bubblewrap already mapped an unprivileged user) with no
    capability left even in the bounding set and no supplementary group, then take the
    jail's process, file, file-size and core limits.  Ends the process (status 71) if the
    drop fails."""
    if uid is not None:
        libc = ctypes.CDLL(None, use_errno=True)
        try:
            for cap in range(64):
                if libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
                    break
            os.setgroups([])
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)
        except OSError:
            os._exit(71)
        if os.getuid() != uid or os.geteuid() != uid:
            os._exit(71)
    for which, value in ((resource.RLIMIT_NPROC, processes), (resource.RLIMIT_NOFILE, files),
                         (resource.RLIMIT_FSIZE, file_mb * 1024 * 1024),
                         (resource.RLIMIT_CORE, 0)):
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(which, (value, value))
