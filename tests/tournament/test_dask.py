"""The Dask executor on a LocalCluster of 2 workers: the same records as the local one."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

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


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    import dask

    with dask.config.set({"distributed.scheduler.allowed-failures": 0}), \
            distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                     dashboard_address=None) as local:
        yield local.scheduler_address


def test_faults_on_a_cluster_are_recorded_as_locally(tmp_path: Path, cluster: str) -> None:
    # A raising bot is caught in the Dask worker; one that ends its process kills the Dask
    # worker, and its task is replayed by the local fault-isolating executor.
    for bot in ("Crasher", "Exiter"):
        args = ["--bot", f"{BROKEN}{bot}:name=X", "--bot", "random:name=A", "--games", "4",
                "--seed", "4", "--quiet", *FAST]
        local = run_cli([*args, "--workers", "2", "--out", str(tmp_path / f"{bot}-local")])
        assert local.exit_code == 0, local.output
        remote = run_cli([*args, "--scheduler", cluster, "--chunk", "2",
                          "--out", str(tmp_path / f"{bot}-dask")])
        assert remote.exit_code == 0, remote.output
        log = (tmp_path / f"{bot}-dask" / "arena.log").read_text()
        assert ("Dask worker died" in log) == (bot == "Exiter")
        records = timeless(tmp_path / f"{bot}-dask")
        assert records == timeless(tmp_path / f"{bot}-local")
        assert all(r["error"] and r["error"]["seat"] == r["seats"].index("X")
                   for r in records.values())
