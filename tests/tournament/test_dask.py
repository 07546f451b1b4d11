"""The Dask executor on a LocalCluster of 2 workers: the same records as the local one."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.tournament.dask_runner import local_cluster

from .conftest import BROKEN, FAST, run_cli, timeless

distributed = pytest.importorskip("distributed")

THREE = ["--bot", "random", "--bot", "random:complete=true", "--bot", "random:name=R2"]

#: A hung run fails its test instead of holding CI (thread method: SIGALRM is the games').
pytestmark = pytest.mark.timeout(180, method="thread")



def test_one_worker_two_workers_and_dask_give_the_same_records(tmp_path: Path) -> None:
    args = [*THREE, "--games", "4", "--seed", "17", "--quiet", *FAST]
    for name, extra in (("one", ["--workers", "1"]), ("two", ["--workers", "2"]),
                        ("dask", ["--executor", "dask", "--workers", "2", "--chunk", "3"])):
        result = run_cli([*args, *extra, "--out", str(tmp_path / name)])
        assert result.exit_code == 0, result.output
    one = timeless(tmp_path / "one")
    assert len(one) == 12
    assert timeless(tmp_path / "two") == one
    assert timeless(tmp_path / "dask") == one
    assert "Dask worker died" not in (tmp_path / "dask" / "arena.log").read_text()


@pytest.fixture(scope="module", params=[False, True], ids=["isolating", "daemonic"])
def cluster(request: pytest.FixtureRequest) -> Iterator[tuple[str, bool]]:
    """A cluster of our own making (as ``--scheduler`` would name): workers that may start
    processes, which isolate their games, and daemonic ones (Dask's default), which cannot."""
    daemonic = request.param
    with local_cluster(2, daemonic=daemonic) as local:
        yield local.scheduler_address, daemonic


def broken_match(tmp_path: Path, bot: str, name: str, *extra: str,
                 isolate: str = "none") -> list[str]:
    """The broken bot against random; in the worker's process unless ``isolate`` says."""
    named = bot + ("," if ":" in bot else ":") + "name=X"
    args = ["--bot", BROKEN + named, "--bot", "random:name=A", "--games", "4",
            "--seed", "4", "--quiet", *FAST, "--out", str(tmp_path / name),
            "--isolate", isolate, "--deal-key", str(tmp_path / "deals.key"), *extra]
    result = run_cli(args)
    assert result.exit_code == 0, result.output
    return args


def check_like_local(tmp_path: Path, bot: str, name: str, *move_time: str,
                     isolate: str = "none") -> None:
    broken_match(tmp_path, bot, f"{bot}-local", "--workers", "2", *move_time,
                 isolate=isolate)
    records = timeless(tmp_path / name)
    assert records == timeless(tmp_path / f"{bot}-local")
    assert all(r["error"] and r["error"]["seat"] == r["seats"].index("X")
               for r in records.values())


#: The move time of the tests with a hanging bot: a healthy random bot decides in well
#: under a millisecond of CPU, and a second leaves a thousandfold margin for a machine busy
#: with other work (0.2 s once failed healthy bots under load).
MOVE_TIME = "1"

@pytest.mark.parametrize("bot", ["Crasher", "Exiter", "Hanger"])
def test_faults_on_a_cluster_are_recorded_as_locally(
        tmp_path: Path, cluster: tuple[str, bool], bot: str) -> None:
    # Isolating workers play each task in a process of their own, which a bot may end or
    # the watchdog kill; on daemonic ones a raising bot is caught in the Dask worker, and one
    # that ends its process kills the Dask worker and its task is replayed locally.
    address, daemonic = cluster
    if daemonic and bot == "Hanger":
        a_daemonic_worker_waits_for_a_hung_bot(tmp_path, address)
        return
    move_time = ["--move-time", MOVE_TIME] if bot == "Hanger" else []
    broken_match(tmp_path, bot, f"{bot}-dask", "--scheduler", address, "--chunk", "2",
                 *move_time)
    log = (tmp_path / f"{bot}-dask" / "arena.log").read_text()
    assert ("Dask worker died" in log) == (daemonic and bot == "Exiter")
    # A daemonic worker says so when a task of its returns (the Exiter's never do).
    assert ("is daemonic" in log) == (daemonic and bot != "Exiter")
    check_like_local(tmp_path, bot, f"{bot}-dask", *move_time)


@pytest.mark.parametrize("bot", ["Exiter", "Hanger"])
def test_isolated_bots_on_a_cluster_cost_only_their_games(
        tmp_path: Path, cluster: tuple[str, bool], bot: str) -> None:
    # In a bot process of its own, even on a daemonic worker: a bot that ends its process
    # does not end the Dask worker, and the referee holds a hung bot to the move time.
    address, _daemonic = cluster
    move_time = ["--move-time", MOVE_TIME] if bot == "Hanger" else []
    broken_match(tmp_path, bot, f"{bot}-dask", "--scheduler", address, "--chunk", "2",
                 *move_time, isolate="untrusted")
    log = (tmp_path / f"{bot}-dask" / "arena.log").read_text()
    assert "Dask worker died" not in log
    check_like_local(tmp_path, bot, f"{bot}-dask", *move_time, isolate="untrusted")


def a_daemonic_worker_waits_for_a_hung_bot(tmp_path: Path, address: str) -> None:
    """What the log warns of: the move time is only checked when the bot returns."""
    broken_match(tmp_path, "Hanger:seconds=2.5", "hang", "--scheduler", address,
                 "--move-time", MOVE_TIME)
    assert "is daemonic" in (tmp_path / "hang" / "arena.log").read_text()
    records = timeless(tmp_path / "hang")
    assert len(records) == 4
    for record in records.values():
        assert record["error"]["kind"] == "timeout"
        assert "over the 1 s move time" in record["error"]["message"]


def test_the_executors_own_cluster_stops_a_hung_bot(tmp_path: Path) -> None:
    broken_match(tmp_path, "Hanger", "dask", "--executor", "dask", "--workers", "2",
                 "--move-time", MOVE_TIME)
    log = (tmp_path / "dask" / "arena.log").read_text()
    assert "is daemonic" not in log and "Dask worker died" not in log
    check_like_local(tmp_path, "Hanger", "dask", "--move-time", MOVE_TIME)


def test_an_unusable_scheduler_is_one_sentence_before_the_folder_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A typo in --scheduler is bad input (exit 2), said before anything is written; not
    an exit 1 after a progress bar and an empty games.jsonl."""
    import functools

    from arena.tournament import dask_runner

    quick = functools.partial(dask_runner.scheduler_problem, timeout=1.0)
    monkeypatch.setattr(dask_runner, "scheduler_problem", quick)
    # A server of another kind: it answers bytes that Dask reads as an absurd frame length.
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]

    def babble() -> None:
        with contextlib.suppress(OSError):
            while True:
                conn, _ = server.accept()
                conn.sendall(b"HTTP/1.1 400 Bad Request\r\n\r\n" + b"\xff" * 64)

    threading.Thread(target=babble, daemon=True).start()
    cases = (("tcp://127.0.0.1:1", "cannot reach the Dask scheduler"),
             ("nonsense:://x", "is not a Dask scheduler address"),
             ("tcp://nohost", "missing port number"),
             (f"tcp://127.0.0.1:{port}", "does not answer as a Dask scheduler"))
    for address, needle in cases:
        out = tmp_path / "run"
        result = run_cli(["--bot", "random", "--bot", "greedy", "--games", "2",
                          "--scheduler", address, "--out", str(out)])
        assert result.exit_code == 2, result.output
        assert needle in result.output and "Traceback" not in result.output
        assert not out.exists()
    server.close()


def test_a_bad_scheduler_address_leaves_no_traceback_behind(tmp_path: Path) -> None:
    """A ``Client`` half built around a bad address printed a traceback when collected, 20 s
    after the one-sentence error; nothing of the kind must follow it."""
    out = tmp_path / "run"
    proc = subprocess.run(
        [sys.executable, "-m", "arena", "tournament", "--bot", "random", "--bot", "greedy",
         "--games", "2", "--scheduler", "tcp://nohost", "--out", str(out)],
        capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2, proc.stderr
    assert "missing port number" in proc.stderr and "Traceback" not in proc.stderr
    assert not out.exists()


def test_isolated_bots_output_on_a_cluster_reaches_the_log(
        tmp_path: Path, cluster: tuple[str, bool]) -> None:
    # A Dask task's own log goes nowhere kept: the output comes back with its games.
    address, _daemonic = cluster
    args = ["--bot", "tests.tournament.attack_bots.Printer:name=X", "--bot", "random:name=A",
            "--games", "4", "--seed", "4", "--quiet", *FAST, "--out", str(tmp_path / "p"),
            "--scheduler", address, "--chunk", "2"]
    result = run_cli(args)
    assert result.exit_code == 0, result.output
    log = (tmp_path / "p" / "arena.log").read_text()
    assert log.count("(on Dask) game") == 4 and log.count("X (seat") == 4
    assert "more bytes dropped]" in log
