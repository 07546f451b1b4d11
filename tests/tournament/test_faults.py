"""A broken bot costs its games only: each kind of fault, with a deliberately broken bot.

These bots run in the worker's process (``--isolate none``, as trusted bots do), where the
alarm and the parent's watchdog catch them; ``test_attacks`` plays them isolated.  Every
test plays the broken bot against two sound ones (round-robin, 2 seats, 2 games per
pairing): the broken bot's 4 games must carry ``error`` against its seat with the right
kind, the sound bots' game must be complete and clean, and the tournament must finish.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .conftest import BROKEN, FAST, assert_blamed, read_records, run_cli, timeless

#: A hung run fails its test instead of holding CI (thread method: SIGALRM is the games').
pytestmark = pytest.mark.timeout(180, method="thread")



def play(tmp_path: Path, broken: str, *extra: str, workers: int = 2,
         name: str = "run") -> list[dict[str, Any]]:
    out = tmp_path / name
    result = run_cli(["--bot", BROKEN + broken + ("," if ":" in broken else ":") + "name=X",
                      "--bot", "random:name=A", "--bot", "random:name=B", "--games", "2",
                      "--seed", "21", "--workers", str(workers), "--out", str(out), "--quiet",
                      "--isolate", "none", *FAST, *extra])
    assert result.exit_code == 0, result.output
    assert "Standings after 6 of 6 games (complete)" in result.stdout
    return read_records(out)


def check(records: list[dict[str, Any]], kind: str, message: str) -> None:
    assert len(records) == 6
    for record in records:
        if "X" in record["seats"]:
            seat = assert_blamed(record, "X", kind, message)
            # The game stopped at the faulty decision: the seat had decided twice before.
            assert sum(m.startswith(f"{seat} ") for m in record["moves"]) == 2
        else:
            assert record["error"] is None
            assert record["capped"] or record["completed"]
            assert record["winners"] and len(record["moves"]) > 20


def test_a_bot_that_raises(tmp_path: Path) -> None:
    check(play(tmp_path, "Crasher"), "crash", "RuntimeError: deliberate crash")


@pytest.mark.parametrize("bot", ["Illegal", "NotInList"])
def test_a_bot_that_returns_an_illegal_action(tmp_path: Path, bot: str) -> None:
    check(play(tmp_path, bot), "illegal", "not a legal action")


def test_a_bot_that_sleeps_past_the_move_time(tmp_path: Path) -> None:
    # Pure Python sleep: SIGALRM in the worker stops it at the limit.
    records = play(tmp_path, "Sleeper", "--move-time", "0.2")
    check(records, "timeout", "no decision within the 0.2 s move time")
    for record in records:
        if record["error"]:
            assert record["seconds"][record["error"]["seat"]] >= 0.2
            assert "killed" not in record["error"]["message"]  # the alarm, not the watchdog


def test_a_bot_that_blocks_the_alarm_and_hangs(tmp_path: Path) -> None:
    # SIGALRM blocked: the parent's watchdog kills the worker past move_time + grace.
    records = play(tmp_path, "Hanger", "--move-time", "0.2")
    check(records, "timeout", "its process was killed after 1.2 s")
    for record in records:
        if record["error"]:
            assert record["seconds"][record["error"]["seat"]] >= 1.2


def test_a_bot_that_hangs_in_a_hook(tmp_path: Path) -> None:
    records = play(tmp_path, "Lurker", "--move-time", "0.2")
    for record in records:
        if "X" in record["seats"]:
            error = record["error"]
            assert error["seat"] == record["seats"].index("X") and error["kind"] == "timeout"
            assert "bot hook" in error["message"] and error["seat"] not in record["winners"]
        else:
            assert record["error"] is None


def test_a_bot_that_exits_its_process(tmp_path: Path) -> None:
    check(play(tmp_path, "Exiter"), "crash", "the bot's process died (exit code 3)")


def test_a_bot_that_kills_its_process(tmp_path: Path) -> None:
    records = play(tmp_path, "Killer", workers=1)
    check(records, "crash", "the bot's process died (exit code -9)")


def test_a_bot_that_cannot_be_created(tmp_path: Path) -> None:
    records = play(tmp_path, "BadInit")
    for record in records:
        if "X" in record["seats"]:
            assert record["error"]["kind"] == "crash" and "could not be created" in \
                record["error"]["message"]
            assert record["moves"][0].startswith("*") and record["error"]["seat"] not in \
                record["winners"]


def test_a_dead_process_is_recorded_as_the_same_game_as_an_exception(tmp_path: Path) -> None:
    # Same name, so same bot seeds: the game rebuilt by the parent from the dead worker's
    # actions is the game a bot raising at the same decision leaves, fault aside.
    died = {g: r for g, r in timeless_records(play(tmp_path, "Killer", name="k")).items()}
    raised = {g: r for g, r in timeless_records(play(tmp_path, "Crasher", name="c")).items()}
    assert died.keys() == raised.keys()
    for game, record in died.items():
        other = raised[game]
        assert (record.pop("error") is None) == (other.pop("error") is None)
        assert record == other


def test_fault_records_do_not_depend_on_the_number_of_workers(tmp_path: Path) -> None:
    play(tmp_path, "Exiter", workers=1, name="one")
    play(tmp_path, "Exiter", workers=2, name="two")
    assert timeless(tmp_path / "one") == timeless(tmp_path / "two")


def timeless_records(records: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    out = {}
    for record in records:
        record.pop("seconds")
        for name in ("mac", "prev", "sig"):
            record.pop(name, None)
        out[record["game"]] = record
    return out


def test_a_bot_that_starts_slowly_is_not_held_to_the_move_time(tmp_path: Path) -> None:
    # 1.5 s in its start hook (an interpreter or a library loading on a busy machine) against
    # a 0.2 s move time, whose watchdog kills after 1.2 s: start-up has its own budget
    # (arena.play.limits.START_TIME, 10 s; the watchdog's 15 s), ten times what the bot sleeps.
    for record in play(tmp_path, "SlowStarter:seconds=1.5", "--move-time", "0.2"):
        assert record["error"] is None, record["error"]


def test_the_monitor_tells_start_up_from_other_hooks() -> None:
    from arena.tournament.worker import HOOK, STARTING, THINKING, doing

    assert doing(3.0) == (THINKING, 2)
    assert doing(-3.0) == (HOOK, 2)
    assert doing(-3.5) == (STARTING, 2)
    assert doing(-1.5) == (STARTING, 0)
