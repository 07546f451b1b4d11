"""The jail's attacks, made by an engine: a compiled program (``attacker.c``, built here with
the C compiler) tries directly what a Python bot reaches only through ``ctypes``, if at all:
raw system calls, ``ptrace``, ``process_vm_readv``, ``clone3``, a 32-bit ``int 0x80``.

The attacker plays through ``arena tournament`` against ``random``; at its first decision it
tries everything, writes what each attempt gave to its stderr (lines ``A {json}``) and
answers an action that is not legal, so that its seat's game faults and the record quotes
that stderr.  Each attempt is a test of its own: a hole found is one failing name.
``attack=recall`` asks what an engine process kept from one game to the next remembers;
``attack=ansi`` what its stderr can do to a terminal.
The foreign ABIs end the process, so they are played last, as variants of their own.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import time
from collections.abc import Collection
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.jail import seccomp
from arena.jail.bwrap import jail_problem, make_view

SOURCE = Path(__file__).with_name("attacker.c")
#: The System V key the attacker's queue is made with (``QUEUE_KEY`` in attacker.c).
QUEUE_KEY = 0x7A6B0054

pytestmark = pytest.mark.skipif(jail_problem() is not None,
                                reason=f"no jail here: {jail_problem()}")

#: What each attempt must give: the errno names a refusal may have (the filter's answer,
#: else the namespaces', the unprivileged user's or the read-only view's).
REFUSED: dict[str, set[str]] = {
    "ptrace_ppid": {"EPERM"},
    "ptrace_1": {"EPERM"},
    "ptrace_child": {"EPERM"},  # its own child, same user: only the filter stops it
    "ptrace_all": {"EPERM"},
    "vm_readv_ppid": {"EPERM"},
    "vm_readv_child": {"EPERM"},
    "vm_readv_all": {"EPERM"},
    "sock_inet": {"EAFNOSUPPORT"},
    "sock_inet6": {"EAFNOSUPPORT"},
    "sock_raw": {"EAFNOSUPPORT"},
    "sock_netlink": {"EAFNOSUPPORT"},
    "sock_packet": {"EAFNOSUPPORT"},
    "unshare_user": {"EPERM"},
    "unshare_mnt": {"EPERM"},
    "clone_newuser": {"EPERM"},
    "clone3": {"ENOSYS"},
    "mount": {"EPERM"},
    "bpf": {"EPERM"},
    "perf": {"EPERM"},
    "userfaultfd": {"EPERM"},
    "io_uring": {"EPERM"},
    "keyctl": {"EPERM"},
    "pidfd_open": {"EPERM"},
    "pair_inet": {"EOPNOTSUPP"},  # socketpair is not filtered: only AF_UNIX makes pairs
    "pair_netlink": {"EOPNOTSUPP"},
    "setuid0": {"EPERM"},
    "proc1_mem": {"EACCES", "EPERM"},
    "proc1_environ": {"EACCES", "EPERM"},
    "proc1_root": {"EACCES", "EPERM"},
    "proc_sys": {"EACCES", "EROFS"},
    "sysrq": {"ENOENT", "EACCES", "EROFS"},
    "cgroup": {"ENOENT", "EACCES", "EROFS"},
    "dev_mem": {"ENOENT"},
    "root_bashrc": {"ENOENT"},
    "shadow": {"ENOENT"},
    "run": {"ENOENT"},
    "run_key": {"ENOENT"},
    "write_own": {"EROFS", "EACCES"},
    "write_usr": {"EROFS", "EACCES"},
    "msg_seen": {"ENOENT"},  # game 2's jail looks for game 1's queue
    "flock": {"EPERM"},
    "fcntl_lock": {"EPERM"},
    "ofd_lock": {"EPERM"},
    "inotify": {"EPERM"},
}

@pytest.fixture(scope="module")
def attacker(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """attacker.c built in a folder of its own, readable by the jails' users."""
    compiler = shutil.which("gcc") or shutil.which("cc")
    if compiler is None:
        pytest.skip("no C compiler (gcc or cc) to build tests/protocol/attacker.c")
    folder = tmp_path_factory.mktemp("attacker")
    for path in (folder, folder.parent):
        path.chmod(0o755)  # the jail's user runs it: the folders pytest makes are private
    out = folder / "attacker"
    subprocess.run([compiler, "-O2", "-o", str(out), str(SOURCE)], check=True, timeout=120)
    return out


def tournament(engine: Path, out: Path, keys: str = "") -> list[dict[str, Any]]:
    """Two games of the engine (with ``keys``) against ``random``; the games' records."""
    spec = f"engine:{engine}" + (f":{keys}" if keys else "")
    result = CliRunner().invoke(main, [
        "tournament", "--bot", spec, "--bot", "random", "--games", "2", "--seed", "11",
        "--workers", "1", "--out", str(out)])
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    assert len(records) == 2
    return records


def engine_seat(record: dict[str, Any]) -> int:
    """The seat the engine played in a game."""
    return next(i for i, name in enumerate(record["seats"]) if name.startswith("engine:"))


def reported(record: dict[str, Any]) -> dict[str, str]:
    """What the attacker said of its attempts, read back from its seat's fault."""
    error = record["error"]
    assert error is not None and error["seat"] == engine_seat(record), record["error"]
    found: dict[str, str] = {}
    for text in re.findall(r"A (\{[^{}]*\})", error["message"]):
        found.update(json.loads(text))
    return found


@pytest.fixture(scope="module")
def attacked(attacker: Path, tmp_path_factory: pytest.TempPathFactory
             ) -> tuple[list[dict[str, Any]], list[dict[str, str]], Path]:
    """The tournament with every attempt: its records, each game's report, its folder."""
    root = tmp_path_factory.mktemp("attacked")
    out = root / "run"
    records = tournament(attacker, out, f"run={out}")
    return records, [reported(record) for record in records], out


def test_the_attacks_cost_the_engine_its_own_games_only(
        attacked: tuple[list[dict[str, Any]], list[dict[str, str]], Path]) -> None:
    """Each game is recorded, its fault the engine's seat's (the report's illegal action),
    and the attacker got through all its attempts (``done``) in both."""
    records, reports, out = attacked
    for record, report in zip(records, reports, strict=True):
        assert record["error"]["kind"] == "illegal"
        assert report.get("done") == "1", record["error"]["message"]
    log = (out / "arena.log").read_text()
    assert log.count("its stderr ended: A {") == 2


@pytest.mark.parametrize("attempt", list(REFUSED))
def test_an_attempt_of_the_compiled_attacker_is_refused(
        attacked: tuple[list[dict[str, Any]], list[dict[str, str]], Path],
        attempt: str) -> None:
    _records, reports, _out = attacked
    for report in reports:
        assert report.get(attempt) in REFUSED[attempt], f"{attempt}: {report.get(attempt)}"


def test_the_fork_bomb_stops_at_the_jails_process_limit(
        attacked: tuple[list[dict[str, Any]], list[dict[str, str]], Path]) -> None:
    for report in attacked[1]:
        made, _, error = report["forks"].partition(":")
        assert error == "EAGAIN" and 0 < int(made) <= 64, report["forks"]


def test_the_engine_sees_no_process_but_its_jails(
        attacked: tuple[list[dict[str, Any]], list[dict[str, str]], Path]) -> None:
    """Its PID namespace holds bubblewrap's init, the engine and the child it made."""
    for report in attacked[1]:
        assert int(report["pids_seen"]) <= 3, report["pids_seen"]


def test_root_shows_only_the_way_to_the_interpreter(
        attacked: tuple[list[dict[str, Any]], list[dict[str, str]], Path],
        attacker: Path) -> None:
    """``/root`` in the jail holds nothing but the parents of the view's paths there (an
    interpreter installed under root's home), and none of root's own files."""
    shown = {path.split("/")[2] for path in make_view([], (str(attacker.parent),)).paths
             if path.startswith("/root/")}
    for report in attacked[1]:
        names = set(filter(None, report["root_ls"].split(";")))
        assert names <= shown, report["root_ls"]


def test_what_the_engine_wrote_stayed_in_its_jail(
        attacked: tuple[list[dict[str, Any]], list[dict[str, str]], Path],
        attacker: Path) -> None:
    """Its ``/tmp`` was its own (written there, absent here), its folder was not written,
    and the System V queue it made died with its IPC namespace."""
    for report in attacked[1]:
        assert report["write_tmp"].startswith("ok"), report["write_tmp"]
        assert report["msg_make"].startswith("ok"), report["msg_make"]
        assert not Path(f"/tmp/attacker-was-here-{report['uid']}").exists()
    assert not (attacker.parent / "attacker-was-here").exists()
    queues = Path("/proc/sysvipc/msg")
    if queues.exists():
        keys = {int(line.split()[0]) for line in queues.read_text().splitlines()[1:]
                if line.split()}
        assert QUEUE_KEY not in keys


def test_no_process_of_the_engine_outlives_the_tournament(
        attacked: tuple[list[dict[str, Any]], list[dict[str, str]], Path],
        attacker: Path) -> None:
    """Neither the jails' users (reported by the attacker) nor the attacker's program own a
    process once the run is over: the fork bomb's children, in sessions of their own, died
    with their jails."""
    uids = {int(report["uid"]) for report in attacked[1]}
    assert not survivors(attacker, uids), "processes of the engine's jails are left"


def survivors(program: Path, uids: Collection[int] = ()) -> list[int]:
    """The processes still running ``program`` or owned by one of ``uids``, once the kernel
    has had 30 seconds to end a killed jail (it ends a PID namespace's processes one by one,
    slowly on a busy machine); an empty answer comes as soon as they are gone."""
    deadline = time.monotonic() + 30
    while True:
        left = [pid for pid, uid, command in _processes()
                if uid in uids or command == str(program)]
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.1)


def _processes() -> list[tuple[int, int, str]]:
    """(pid, real uid, program) of every process of the machine, zombies aside."""
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            fields = dict(line.split(":", 1)
                          for line in Path(f"/proc/{entry}/status").read_text().splitlines()
                          if ":" in line)
            command = Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")[0]
        except (OSError, ValueError):
            continue
        if fields.get("State", "").strip()[:1] not in ("Z", "X"):
            out.append((int(entry), int(fields["Uid"].split()[0]),
                        command.decode(errors="replace")))
    return out


def test_the_attacker_plays_complete_games_when_it_does_not_attack(
        attacker: Path, tmp_path: Path) -> None:
    """``attack=none``: the engine speaks the protocol well enough to play."""
    for record in tournament(attacker, tmp_path / "run", "attack=none"):
        assert record["error"] is None, record["error"]
    assert not survivors(attacker), "the engine outlived its tournament"


@pytest.fixture(scope="module")
def recalled(attacker: Path, tmp_path_factory: pytest.TempPathFactory
             ) -> list[dict[str, Any]]:
    """The two seat rotations of one deal, the engine with ``attack=recall``: it plays the
    first game out, and says at the second's first decision what it was dealt in the
    first, if the same process plays it."""
    return tournament(attacker, tmp_path_factory.mktemp("recall") / "run", "attack=recall")


def test_an_engine_plays_its_first_game_out_when_it_means_to_recall_it(
        recalled: list[dict[str, Any]]) -> None:
    """The first rotation is a complete game; a later one is either complete (a new
    process, nothing to recall) or the engine's seat's fault with its report."""
    first, second = recalled
    assert first["error"] is None, first["error"]
    assert second["error"] is None or second["error"]["seat"] == engine_seat(second)


def test_an_engine_kept_between_games_does_not_remember_its_opponents_hidden_hand(
        recalled: list[dict[str, Any]]) -> None:
    """In the second rotation the opponent holds the engine's first hand, hidden from it:
    an engine process kept from the first game would say it (``recall``)."""
    for record in recalled:
        if record["error"] is None:
            continue
        said = reported(record).get("recall")
        if said is None:
            continue
        opponent = 1 - engine_seat(record)
        hidden = set(record["drawn"][opponent][:3])  # the deal: one card per category
        assert set(said.split(";")) != hidden, (
            f"game {record['game']}: the engine recalled the opponent's hidden hand {said}")


#: What a terminal obeys: ESC (colours, clearing, a window title), BEL, a carriage return
#: that draws over a line, a right-to-left override.
CONTROLS = ("\x1b", "\x07", "\r", "\u202e")


@pytest.fixture(scope="module")
def shouted(attacker: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """``attack=ansi``: an engine whose stderr would clear the terminal and draw its own
    standings; what the run showed of it, by where it is shown."""
    out = tmp_path_factory.mktemp("ansi") / "run"
    spec = f"engine:{attacker}:attack=ansi"
    result = CliRunner().invoke(main, [
        "tournament", "--bot", spec, "--bot", "random", "--games", "2", "--seed", "11",
        "--workers", "1", "--out", str(out)])
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    assert all(r["error"] and '{"ansi":"1"}' in r["error"]["message"] for r in records)
    return {"console": result.output, "arena.log": (out / "arena.log").read_text(),
            "record": "\n".join(r["error"]["message"] for r in records)}


@pytest.mark.parametrize("where", ["console", "arena.log", "record"])
def test_an_engines_stderr_is_shown_with_its_control_characters_escaped(
        shouted: dict[str, str], where: str) -> None:
    """The docs promise that nothing a bot prints can clear a screen or draw a fake
    standings table; an engine's stderr is quoted in three places."""
    shown = shouted[where]
    if where == "console":  # a progress bar may redraw its line
        shown = shown.replace("\r", "")
    assert not [c for c in CONTROLS if c in shown], repr(shown[-300:])


@pytest.mark.parametrize("abi", ["int80", "x32"])
def test_a_system_call_under_a_foreign_abi_ends_the_engine(
        attacker: Path, tmp_path: Path, abi: str) -> None:
    """A 32-bit ``int 0x80`` or an x32 call is answered by ending the process (the filter
    is for the native ABI only): a crash of its seat's game, and it never wrote that it
    survived.  Last in the file: the jail's filter kills the engine."""
    if seccomp.filter_program() is None or os.uname().machine != "x86_64":
        pytest.skip("the foreign ABIs are x86_64's")
    for record in tournament(attacker, tmp_path / "run", f"attack={abi}"):
        error = record["error"]
        assert error is not None and error["seat"] == engine_seat(record), error
        assert error["kind"] == "crash", error
        assert f'"{abi}":"trying"' in error["message"], error["message"]
        assert "survived" not in error["message"], error["message"]
