"""Every long command on Dask (``--executor``, ``--scheduler``): ``arena balance study``,
``arena balance tune``, ``scripts/strength.py`` and ``scripts/balance_calibration.py`` give
the same records on the local pool, a local cluster and a real scheduler, started here as
``dask scheduler`` and ``dask worker`` processes on the loopback, as on a cluster of
machines; a study resumes there and stops on Ctrl-C as locally; a jailed bot stays jailed
on the workers."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.show.replay import read_records
from tests.scripts import load_script
from tests.unsigned import resign

distributed = pytest.importorskip("distributed")

#: A hung cluster fails its test instead of holding CI (thread: SIGALRM is the games').
pytestmark = pytest.mark.timeout(300, method="thread")

ROOT = Path(__file__).resolve().parents[2]
BOT = "random:complete=true"
#: A small study: one category, one priced card (2 deals x 17 arms = 34 games).
STUDY = ["balance", "study", "--bot", BOT, "--deals", "2", "--category", "panda",
         "--price-cards", "panda-03", "--rule", "max_rounds=8", "--quiet", "--no-report",
         "--seed", "0"]
START = 90.0  # seconds for the scheduler and its workers to come up on a loaded machine


def content(directory: Path) -> dict[str, bytes]:
    """Each game's record as bytes, without what may differ between two runs of the same
    seed: the thinking times and the signature and chain link (each run's own)."""
    out = {}
    for record in read_records(directory):
        assert record["game"] not in out, f"game {record['game']} recorded twice"
        out[record["game"]] = orjson.dumps(
            {k: v for k, v in record.items() if k not in ("seconds", "mac", "prev", "sig")})
    return out


def finished_games(directory: Path) -> int:
    """Games on disk so far (0 before the run's files are there)."""
    try:
        return sum(1 for _ in read_records(directory))
    except Exception:  # not yet written, or a line being written
        return 0


def _stop(process: subprocess.Popen[bytes]) -> None:
    """End a process group started here: politely, then for good."""
    for sig, wait in ((signal.SIGTERM, 10.0), (signal.SIGKILL, 5.0)):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, sig)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(wait)
            return


@pytest.fixture(scope="module")
def scheduler(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The address of a ``dask scheduler`` with two ``dask worker`` processes, on
    127.0.0.1 at ports the system picks; every process is ended on the way out.  The
    workers may start processes (``DASK_DISTRIBUTED__WORKER__DAEMON=False``, as
    docs/tournaments.md says to start them), so they jail untrusted bots."""
    dask = Path(sys.executable).with_name("dask")
    if not dask.exists():
        pytest.skip("no dask command next to this Python")
    folder = tmp_path_factory.mktemp("cluster")
    file = folder / "scheduler.json"
    env = {**os.environ, "DASK_DISTRIBUTED__WORKER__DAEMON": "False",
           "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    processes: list[subprocess.Popen[bytes]] = []
    logs = []

    def start(name: str, *args: str) -> None:
        log = open(folder / f"{name}.log", "wb")  # noqa: SIM115 - closed below
        logs.append(log)
        processes.append(subprocess.Popen([str(dask), *args], cwd=ROOT, env=env, stdout=log,
                                          stderr=subprocess.STDOUT, start_new_session=True))

    try:
        start("scheduler", "scheduler", "--host", "127.0.0.1", "--port", "0",
              "--no-dashboard", "--scheduler-file", str(file))
        deadline = time.monotonic() + START
        while not file.exists():
            assert processes[0].poll() is None, (folder / "scheduler.log").read_text()
            assert time.monotonic() < deadline, "the scheduler did not start"
            time.sleep(0.2)
        time.sleep(0.2)  # the file is written whole, but give it a moment
        address = json.loads(file.read_text())["address"]
        assert address.startswith("tcp://127.0.0.1:")
        start("workers", "worker", "--scheduler-file", str(file), "--nworkers", "2",
              "--nthreads", "1", "--host", "127.0.0.1", "--no-dashboard",
              "--death-timeout", "60")
        with distributed.Client(address, timeout=START, set_as_default=False) as client:
            client.wait_for_workers(2, timeout=START)
        yield address
    finally:
        for process in reversed(processes):
            _stop(process)
        for log in logs:
            log.close()


def arena(*args: str) -> Any:
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == 0, result.output
    return result


def test_a_study_gives_the_same_records_on_the_pool_a_local_cluster_and_a_scheduler(
        tmp_path: Path, scheduler: str) -> None:
    runs = {"pool": ["--workers", "2"],
            "local-cluster": ["--executor", "dask", "--workers", "2"],
            "scheduler": ["--scheduler", scheduler]}
    for name, where in runs.items():
        arena(*STUDY, *where, "--out", str(tmp_path / name))
    pool = content(tmp_path / "pool")
    assert len(pool) == 2 * (15 + 2)
    for name in runs:
        assert content(tmp_path / name) == pool, name
    # Resumed on the scheduler after being killed half way, before it sealed its games (a
    # sealed run cut short is refused): the same records again.
    cut = tmp_path / "scheduler" / "games.jsonl"
    lines = cut.read_bytes().splitlines(keepends=True)
    cut.write_bytes(b"".join(lines[:len(lines) // 2]))
    manifest = json.loads((tmp_path / "scheduler" / "manifest.json").read_text())
    manifest["finished"] = None
    del manifest["seal"]
    resign(tmp_path / "scheduler", manifest)
    arena("balance", "study", "--resume", str(tmp_path / "scheduler"), "--quiet",
          "--no-report", "--scheduler", scheduler)
    assert content(tmp_path / "scheduler") == pool


def test_strength_and_calibration_give_the_same_records_on_a_scheduler(
        tmp_path: Path, scheduler: str) -> None:
    strength = load_script("strength")
    match = ["greedy", "random", "--games", "4", "--seed", "3", "--rule", "max_rounds=8",
             "--workers", "2"]
    assert strength.main([*match, "--out", str(tmp_path / "s-pool")]) == 0
    assert strength.main([*match, "--out", str(tmp_path / "s-dask"),
                          "--scheduler", scheduler]) == 0
    assert len(content(tmp_path / "s-pool")) == 4
    assert content(tmp_path / "s-dask") == content(tmp_path / "s-pool")

    cal = load_script("balance_calibration")
    argv = ["--bot", BOT, "--deals", "2", "--reps", "1", "--categories-per-rep", "1",
            "--workers", "2"]
    assert cal.main([*argv, "--out", str(tmp_path / "c-pool")]) == 0
    assert cal.main([*argv, "--out", str(tmp_path / "c-dask"), "--scheduler", scheduler]) == 0
    pool = content(tmp_path / "c-pool" / "rep-0000")
    assert pool and content(tmp_path / "c-dask" / "rep-0000") == pool


def test_a_jailed_bot_stays_jailed_on_the_workers(tmp_path: Path, scheduler: str) -> None:
    """An untrusted level (here a bot that probes what it can reach and says so in its crash
    message) is jailed by the Dask workers as by the local pool."""
    out = tmp_path / "jailed"
    arena("balance", "study", "--bot", f"tests.tournament.jail_bots.Prober:out={out}",
          "--opponent", BOT, "--deals", "1", "--category", "panda", "--price-cards", "",
          "--rule", "max_rounds=8", "--quiet", "--no-report", "--scheduler", scheduler,
          "--out", str(out))
    probes = [r["error"]["message"] for r in read_records(out) if r["error"] is not None]
    assert len(probes) == 15
    for message in probes:
        assert ("probe: mem=0 fds=0 seeds=0 run_dir=False net=blocked write=0 others=2"
                in message), message


def test_tune_plays_its_rounds_where_it_is_told(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch,
                                                scheduler: str) -> None:
    """--scheduler goes to every round; --executor dask starts one local cluster for all of
    them, up while they play and closed after."""
    from arena.balance import tune
    from arena.tournament.dask_runner import scheduler_problem

    arena(*STUDY, "--workers", "1", "--out", str(tmp_path / "study"))
    seen: list[Any] = []

    def fake_tune(directory: Path, out: Path, rounds: int, level: int, settings: Any,
                  say: Any) -> Any:
        seen.append((settings.executor, settings.scheduler,
                     scheduler_problem(settings.scheduler, timeout=5.0)))
        raise tune.TuneInterrupted(1, out, 0, 1)

    monkeypatch.setattr(tune, "tune", fake_tune)
    for where in (["--scheduler", scheduler], ["--executor", "dask", "--workers", "2"]):
        result = CliRunner().invoke(main, ["balance", "tune", str(tmp_path / "study"),
                                           "--quiet", *where])
        assert result.exit_code == 130, result.output
    assert seen[0] == ("dask", scheduler, None)
    executor, own, problem = seen[1]
    assert executor == "dask" and own != scheduler and problem is None
    assert scheduler_problem(own, timeout=2.0) is not None  # closed


def test_ctrl_c_stops_a_study_on_a_local_cluster_as_locally(tmp_path: Path,
                                                            scheduler: str) -> None:
    """Ctrl-C reaches the whole process group, the cluster's workers too: the run stops
    with its games kept, one message and no worker's traceback; it resumes elsewhere."""
    out = tmp_path / "stopped"
    args = [sys.executable, "-m", "arena", "balance", "study", "--bot",
            "tests.tournament.attack_bots.Slow", "--opponent", "random", "--deals", "3",
            "--category", "panda", "--price-cards", "", "--rule", "max_rounds=8",
            "--no-report", "--executor", "dask", "--workers", "2", "--out", str(out)]
    process = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + START
        while not finished_games(out):
            assert process.poll() is None and time.monotonic() < deadline
            time.sleep(0.2)
        os.killpg(process.pid, signal.SIGINT)
        output, _ = process.communicate(timeout=60)
    finally:
        _stop(process)
    text = output.decode()
    assert process.returncode == 130, text
    assert "Interrupted:" in text and "--executor dask --workers 2" in text, text
    assert "Traceback" not in text and "KeyboardInterrupt" not in text, text
    kept = content(out)
    assert 0 < len(kept) < 45
    arena("balance", "study", "--resume", str(out), "--quiet", "--no-report",
          "--scheduler", scheduler)
    assert len(content(out)) == 45


def test_an_unusable_scheduler_is_one_sentence_before_anything_is_written(
        tmp_path: Path) -> None:
    from tests.test_script_args import run_script

    out = tmp_path / "out"
    bad = ["--scheduler", "tcp://nohost", "--out", str(out)]
    for script, argv in (("strength", ["greedy", "random", "--games", "2", *bad]),
                         ("balance_calibration", ["--deals", "2", "--reps", "1", *bad])):
        run = run_script(script, *argv, timeout=60)
        assert run.returncode == 2, run.stderr
        assert "--scheduler tcp://nohost" in run.stderr and "missing port number" in run.stderr
        assert "Traceback" not in run.stderr and not out.exists(), script
    for command in ([*STUDY, "--bot", "greedy"], ["balance", "tune", str(tmp_path)]):
        result = CliRunner().invoke(main, [*command, *bad])
        assert result.exit_code == 2, result.output
        assert "missing port number" in result.output and not out.exists()
