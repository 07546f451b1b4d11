"""The first process of an engine's jail: drop to the jail's user, take the jail's limits,
put the pipes in place and become the engine (``exec``).

Why a step of its own: bwrap starts its command as root when the arena runs as root (with
just the capabilities needed to drop them), and nothing of the engine may run as root; the
bot hosts drop the same way (``arena.tournament.sandbox.enter_jail``) before any bot code
is read.  Usage (inside the jail): ``python -I -m arena.protocol.launch UID IN OUT ERR
FOLDER -- COMMAND...``; UID ``-`` when bwrap already mapped an unprivileged user.
"""

from __future__ import annotations

import os
import sys

from arena.tournament.jail import JailLimits
from arena.tournament.sandbox import enter_jail


def main(argv: list[str]) -> None:
    """Become the engine ``argv[6:]`` in ``argv[4]`` with the pipes ``argv[1:4]``."""
    uid, fds, folder, command = argv[0], argv[1:4], argv[4], argv[6:]
    enter_jail(None if uid == "-" else int(uid), JailLimits())
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
