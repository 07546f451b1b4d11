"""The first process of an engine's jail: drop to the jail's user, take the jail's limits,
put the pipes in place and become the engine (``exec``).

Why a step of its own: bwrap starts its command as root when the arena runs as root (with
just the capabilities needed to drop them), and nothing of the engine may run as root.  The
drop is the bot hosts' (``arena.jail.privileges.drop``: every capability out of the bounding set,
no supplementary group, the jail's uid and gid, ``RLIMIT_NPROC``, ``RLIMIT_NOFILE``,
``RLIMIT_FSIZE``, no core files; the process ends if any of it fails), which imports the
standard library alone: importing the arena's tournament package would cost most of a second
per engine process started; ``tests/protocol`` checks that an engine runs with no capability
as another user.

Usage (inside the jail): ``python -I -m arena.protocol.launch UID PROCESSES FILES FILE_MB IN
OUT ERR FOLDER -- COMMAND...``; UID ``-`` when bwrap already mapped an unprivileged user.
"""

from __future__ import annotations

import os
import sys

from arena.jail.privileges import drop


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
