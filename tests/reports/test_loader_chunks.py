"""The loader moves its column lists into arrays as it reads (cards every 2**18 rows, the
float columns of games and seats every 2**15 games), to keep a million games' parse from
fragmenting the heap: the tables must not depend on where those moves fall, and a record
refused halfway must leave every column as it was, spilled or not."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

import reports
from reports import loader
from reports import synthetic as sy


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("chunks") / "run"
    sy.write_tournament(out, games=300, seed=3, error_rate=0.02)
    return out


def frames(t: reports.Tables) -> list[pd.DataFrame]:
    return [t.games, t.seats, t.cards, t.catalog]


def test_the_tables_do_not_depend_on_the_spills(folder: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    whole = reports.load(folder)
    assert whole.games["error"].any()  # the error games' rows are in the spilled columns too
    monkeypatch.setattr(loader, "_SPILL", 50)
    monkeypatch.setattr(loader, "_SPILL_GAMES", 7)
    spilled = reports.load(folder)
    for a, b in zip(frames(whole), frames(spilled), strict=True):
        pd.testing.assert_frame_equal(a, b)


def test_a_record_refused_halfway_leaves_no_partial_row(
        folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lines = (folder / "games.jsonl").read_bytes().splitlines()
    bad = json.loads(lines[20])
    # The games and seats columns are filled before the action counts are read.
    bad["actions"] = [{"plot": "many"} for _ in bad["seats"]]
    bad["game"] = "broken"
    damaged = tmp_path / "run"
    damaged.mkdir()
    (damaged / "manifest.json").write_bytes((folder / "manifest.json").read_bytes())
    (damaged / "games.jsonl").write_bytes(
        b"\n".join([*lines[:21], json.dumps(bad).encode(), *lines[21:]]) + b"\n")
    monkeypatch.setattr(loader, "_SPILL", 50)
    monkeypatch.setattr(loader, "_SPILL_GAMES", 7)
    t = reports.load(damaged, strict=False)
    assert any("malformed" in w for w in t.warnings)
    clean = reports.load(folder)
    assert len(t.games) == len(clean.games)
    for a, b in zip(frames(clean), frames(t), strict=True):
        pd.testing.assert_frame_equal(a.drop(columns=["line"], errors="ignore"),
                                      b.drop(columns=["line"], errors="ignore"))
