"""The first process of an engine's jail: drop to the jail's user, take the jail's limits,
put the pipes in place and become the engine (``exec``).

Why a step of its own: bwrap starts its command as root when the arena runs as root (with
just the capabilities needed to drop them), and nothing of the engine may run as root.  The
drop is the bot hosts' (``arena.tournament.sandbox.enter_jail``: every capability out of the
bounding set, no supplementary group, the jail's uid and gid, ``RLIMIT_NPROC``,
``RLIMIT_NOFILE``, ``RLIMIT_FSIZE``, no core files; the process ends if any of it fails),
written here with the standard library alone: importing the arena's tournament package
costs most of a second, once per engine process started; ``tests/protocol`` checks that an
engine runs with no capability as another user.

Usage (inside the jail): ``python -I -m arena.protocol.launch UID PROCESSES FILES FILE_MB IN
OUT ERR FOLDER -- COMMAND...``; UID ``-`` when bwrap already mapped an unprivileged user.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import resource
import sys

#: ``prctl`` option: drop a capability from the bounding set.
PR_CAPBSET_DROP = 24


def drop(uid: int | None, processes: int, files: int, file_mb: int) -> None:
    """Become ``uid`` with no capability and take the limits; end the process if the
    drop fails (nothing of the engine may run as root)."""
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


def main(argv: list[str]) -> None:
    """Become the engine ``argv[9:]`` in ``argv[7]`` with the pipes ``argv[4:7]``."""
    uid, limits, fds, folder, command = argv[0], argv[1:4], argv[4:7], argv[7], argv[9:]
    drop(None if uid == "-" else int(uid), *(int(v) for v in limits))
    for target, fd in enumerate(int(f) for f in fds):
        os.dup2(fd, target)
        os.close(fd)
    try:
        os.chdir(folder)
        os.execv(command[0], command)
    except OSError as exc:
        hint = " (the jail runs it as another user: are it and its folder readable and " \
               "executable by others?)" if isinstance(exc, PermissionError) else ""
        os.write(2, f"cannot start {command[0]}: {exc.strerror}{hint}\n".encode())
        os._exit(127)


if __name__ == "__main__":
    main(sys.argv[1:])
