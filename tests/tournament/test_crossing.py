"""Nothing crosses between jails, nor between the games of one deal (issue 50).

Each test is an attack that got through before: a lock on a file two jails show, a System V
queue left in a kept jail for the next seat rotation of the deal, a host taken over at import
(its bot processes without limits, its reset a no-op), and a deal key written into the run's
manifest.  Each ends with the attack getting nothing.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from arena.jail.seccomp import AUDIT_ARCH_X86_64, RET_ALLOW, filter_program

from .conftest import FAST, read_records, run_cli
from .test_jail import no_jail_left, run_filter

pytestmark = pytest.mark.timeout(240, method="thread")
JAIL = "tests.tournament.jail_bots."
TAKEOVER = "tests.tournament.takeover_bots."


def messages(out: Path, name: str) -> list[str]:
    """What participant ``name`` told in each of its games (its crash message, without the
    exception's name and place)."""
    found = []
    for record in read_records(out):
        if name in record["seats"]:
            assert record["error"] is not None, record["game"]
            message = record["error"]["message"]
            told = re.fullmatch(r"RuntimeError: (.*) \(at .*\)", message)
            found.append(told.group(1) if told else message)
    assert found
    return found


def played(tmp_path: Path, *args: str) -> Path:
    out = tmp_path / "run"
    result = run_cli([*args, "--seed", "50", "--quiet", "--out", str(out), *FAST])
    assert result.exit_code == 0, result.output
    return out


def test_the_filter_denies_locks_leases_and_notices_but_not_the_rest_of_fcntl() -> None:
    program = filter_program("x86_64")
    assert program is not None
    nr = 72  # fcntl on x86_64
    for command in (5, 6, 7, 36, 37, 38, 1024, 1025, 1026):
        assert run_filter(program, AUDIT_ARCH_X86_64, nr, arg1=command) & 0xFFFF == 1, command
    for command in (0, 1, 2, 3, 4, 1030):  # F_DUPFD, F_GETFD, F_SETFD, F_GETFL, F_SETFL, ..
        assert run_filter(program, AUDIT_ARCH_X86_64, nr, arg1=command) == RET_ALLOW, command
    for call in (73, 253, 254, 294):  # flock, inotify_init, inotify_add_watch, inotify_init1
        assert run_filter(program, AUDIT_ARCH_X86_64, call) & 0xFFFF == 1, call


def test_two_jails_at_one_table_pass_nothing_through_a_lock(tmp_path: Path) -> None:
    # Both bots are untrusted, so each has a jail of its own; both jails show the module.
    out = played(tmp_path, "--bot", JAIL + "LockSender:name=S",
                 "--bot", JAIL + "LockListener:at=6,name=L", "--bot", "random:name=A",
                 "--players", "3", "--games", "3", "--workers", "1")
    assert messages(out, "L") == ["heard=nothing"] * 3
    no_jail_left()


def test_a_kept_jail_remembers_nothing_across_the_seat_rotations_of_a_deal(
        tmp_path: Path) -> None:
    # One deal, both rotations in one worker: before, its kept jail handed the second
    # rotation the first one's hand (the opponent's now) in a message queue.
    out = played(tmp_path, "--bot", JAIL + "QueueKeeper:name=X", "--bot", "random:name=A",
                 "--games", "2", "--workers", "1")
    assert messages(out, "X") == ["remembered=0"] * 2
    no_jail_left()


def test_two_copies_at_one_table_share_no_jail(tmp_path: Path) -> None:
    # Two participants at four seats: each holds two seats of every game.
    out = played(tmp_path, "--bot", JAIL + "QueueKeeper:name=X", "--bot", "random:name=A",
                 "--players", "4", "--games", "4", "--workers", "1")
    for message in messages(out, "X"):
        assert message == "remembered=0"


def test_a_host_taken_over_at_import_keeps_its_bots_limits(tmp_path: Path) -> None:
    out = played(tmp_path, "--bot", TAKEOVER + "CpuBurner:at=2,burn=5,name=X",
                 "--bot", "random:name=A", "--games", "2", "--workers", "1",
                 "--bot-cpu", "2", "--move-time", "120")
    for message in messages(out, "X"):
        assert "unlimited" not in message and "burnt" not in message, message
        assert "CPU time limit" in message or "process died" in message, message
    no_jail_left()


def test_no_process_of_an_earlier_game_lives_into_the_next_even_with_a_patched_host(
        tmp_path: Path) -> None:
    out = played(tmp_path, "--bot", TAKEOVER + "Lingerer:name=X", "--bot", "random:name=A",
                 "--games", "6", "--workers", "1")
    assert messages(out, "X") == ["earlier grandchildren alive=0"] * 6
    no_jail_left()


def test_a_shared_deal_key_is_never_written_into_the_run(tmp_path: Path) -> None:
    key_file = tmp_path / "deals.key"
    out = played(tmp_path, "--bot", "tests.tournament.broken_bots.Crasher:at=99,name=X",
                 "--bot", "random:name=A", "--games", "2", "--workers", "1",
                 "--deal-key", str(key_file))
    key = key_file.read_text().strip()
    for path in out.rglob("*"):
        if path.is_file():
            assert key not in path.read_text(errors="replace"), path
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["deals"]["keyed"] and manifest["deals"]["shared"]
    assert "deal_key" not in manifest and manifest["finished"]
    # Resuming (or any command that needs the deals again) asks for the file.
    again = run_cli(["--resume", str(out), "--quiet"])
    assert again.exit_code == 2 and "--deal-key" in again.stderr, again.output
    other = tmp_path / "other.key"
    other.write_text("ab" * 32 + "\n")
    wrong = run_cli(["--resume", str(out), "--quiet", "--deal-key", str(other)])
    assert wrong.exit_code == 2 and "fingerprint" in wrong.stderr, wrong.output
    assert len(wrong.stderr.strip().splitlines()) == 1
    right = run_cli(["--resume", str(out), "--quiet", "--deal-key", str(key_file)])
    assert right.exit_code == 0 and "Nothing left to play" in right.stdout, right.output
