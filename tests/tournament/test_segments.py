"""Compact records (``arena/runs/segments.py``): a run sealed into zstd segments holds exactly the
lines a journal-only run holds, and a damaged segment is refused by the readers, naming the
file and the game it stops at, while ``--resume`` keeps every earlier game and plays the rest.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

import arena.runs.store as store
from arena.cli import main
from arena.runs.segments import (
    DamagedSegment,
    iter_lines,
    iter_records,
    read_segment,
    segment_paths,
)
from arena.show.replay import RecordError, read_records
from reports.loader import ReportError, load

from .conftest import FAST, run_cli, timeless

ARGS = ["--bot", "random", "--bot", "random:name=r2", "--games", "24", "--seed", "5",
        "--workers", "2", "--quiet", *FAST]


@pytest.fixture
def small_segments(monkeypatch: pytest.MonkeyPatch) -> None:
    """Segments of a few games each, so that a short run has several."""
    monkeypatch.setattr(store, "SEGMENT_BYTES", 8192)


def _run(out: Path) -> Path:
    result = run_cli([*ARGS, "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out


def test_a_sealed_run_holds_the_lines_of_a_journal_run(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(store, "SEGMENT_BYTES", 0)  # never seal: today's games.jsonl
    plain = _run(tmp_path / "plain")
    assert not segment_paths(plain)
    monkeypatch.setattr(store, "SEGMENT_BYTES", 8192)
    sealed = _run(tmp_path / "sealed")
    assert len(segment_paths(sealed)) >= 3
    assert (sealed / "games.jsonl").stat().st_size == 0
    assert timeless(sealed) == timeless(plain)
    assert len(timeless(sealed)) == 24
    # Every line is the signed bytes the runner wrote: the reports check each MAC.
    assert load(sealed).games["game"].tolist() == load(plain).games["game"].tolist()
    assert len(list(read_records(sealed))) == 24
    # arena replay DIR/games.jsonl reads the whole run too, and replays from a segment.
    assert len(list(read_records(sealed / "games.jsonl"))) == 24
    game = next(iter_records(sealed))["game"]
    replayed = CliRunner().invoke(main, ["replay", str(sealed / "games.jsonl"), "--game", game])
    assert replayed.exit_code == 0, replayed.output


def _damage(run: Path, how: str) -> tuple[Path, list[bytes]]:
    """Damage the second segment; its path and the lines it held."""
    path = segment_paths(run)[1]
    lines = read_segment(path).splitlines()
    data = path.read_bytes()
    if how == "cut":
        path.write_bytes(data[: len(data) * 2 // 3])
    else:
        middle = len(data) // 2
        path.write_bytes(data[:middle] + bytes([data[middle] ^ 0x55]) + data[middle + 1:])
    return path, lines


@pytest.mark.parametrize("how", ["cut", "flipped"])
def test_a_damaged_segment_is_refused_and_resume_plays_what_was_lost(
        tmp_path: Path, small_segments: None, how: str) -> None:
    full = _run(tmp_path / "full")
    reference = timeless(full)
    run = tmp_path / "damaged"
    shutil.copytree(full, run)
    path, lines = _damage(run, how)
    before = sum(1 for source, _ in iter_lines(full)
                 if source.path.parent.name == "games" and source.path.name < path.name)

    with pytest.raises(DamagedSegment) as caught:
        list(iter_lines(run))
    kept = caught.value.good.splitlines()
    assert kept == lines[: len(kept)] and len(kept) < len(lines)
    last = caught.value.last
    sentence = str(caught.value)
    assert str(path) in sentence and "resume" in sentence
    assert (f"after game {last}" in sentence) if kept else ("at its first game" in sentence)

    with pytest.raises(ReportError, match=str(path)):
        load(run)
    with pytest.raises(RecordError, match=str(path)):
        list(read_records(run))

    result = run_cli(["--resume", str(run)])
    assert result.exit_code == 0, result.output
    # A signed chain broken there cannot vouch for the later games: they are played again.
    assert f"{24 - before - len(kept)} games played" in result.stdout
    assert all(p.name.endswith(".unchained") for p in path.parent.iterdir()
               if p.name > path.name and not p.name.endswith((".damaged", ".zst")))
    assert timeless(run) == reference
    assert path.with_name(path.name + ".damaged").is_file()
    # Every earlier game is kept as it was.
    assert [raw for _, raw in iter_lines(run)][: before + len(kept)] == \
        [raw for _, raw in iter_lines(full)][: before + len(kept)]
    assert len(load(run).games) == 24


def test_a_journal_left_equal_to_the_last_segment_is_skipped(tmp_path: Path,
                                                             small_segments: None) -> None:
    """A kill between sealing a segment and emptying the journal loses and doubles
    nothing."""
    run = _run(tmp_path / "run")
    last = segment_paths(run)[-1]
    (run / "games.jsonl").write_bytes(read_segment(last))
    assert len(list(iter_lines(run))) == 24
    assert len(load(run).games) == 24
    result = run_cli(["--resume", str(run)])
    assert result.exit_code == 0 and "Nothing left to play" in result.stdout
    assert (run / "games.jsonl").stat().st_size == 0


def test_export_writes_todays_lines_and_the_report_tables(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    """The same seed gives the same records sealed or not, exported as JSON lines; parquet
    and csv hold the report's rows; an existing file is refused without --force."""
    import pandas as pd
    from click.testing import CliRunner

    from arena.cli import main

    monkeypatch.setattr(store, "SEGMENT_BYTES", 0)
    plain = _run(tmp_path / "plain")
    monkeypatch.setattr(store, "SEGMENT_BYTES", 8192)
    sealed = _run(tmp_path / "sealed")
    runner = CliRunner()

    def export(run: Path, *args: str) -> Path:
        out = tmp_path / f"{run.name}-{'-'.join(a.strip('-') for a in args)}"
        result = runner.invoke(main, ["export", str(run), *args, "--out", str(out)])
        assert result.exit_code == 0, result.output
        return out

    lines = export(sealed, "--format", "jsonl").read_bytes().splitlines()
    assert lines == [raw for _, raw in iter_lines(sealed)]
    assert all(b',"sig":"' in line for line in lines)
    journal = export(plain, "--format", "jsonl").read_bytes()
    assert journal == (plain / "games.jsonl").read_bytes()

    def content(raw: bytes) -> dict:
        import json

        record = json.loads(raw)
        record.pop("sig"), record.pop("prev"), record.pop("seconds")
        return record

    assert sorted(map(content, lines), key=lambda r: r["game"]) == \
        sorted(map(content, journal.splitlines()), key=lambda r: r["game"])

    games = pd.read_parquet(export(sealed, "--format", "parquet"))
    tables = load(sealed)
    assert games["game"].tolist() == tables.games["game"].tolist()
    assert games["seats"].iloc[0] == " vs ".join(tables.seats["participant"][:2].astype(str))
    seats = pd.read_csv(export(sealed, "--format", "csv", "--seats"))
    assert len(seats) == 48 and seats["score"].sum() == tables.seats["score"].sum()

    again = runner.invoke(main, ["export", str(sealed), "--format", "csv", "--out",
                                 str(tmp_path / "sealed-format-csv-seats")])
    assert again.exit_code == 2 and "already exists" in again.output
    assert "Traceback" not in again.output
    forced = runner.invoke(main, ["export", str(sealed), "--format", "csv", "--force", "--out",
                                  str(tmp_path / "sealed-format-csv-seats")])
    assert forced.exit_code == 0, forced.output
    assert len(pd.read_csv(tmp_path / "sealed-format-csv-seats")) == 24


def test_the_loader_parses_records_without_their_moves_the_same() -> None:
    import json

    from reports.loader import _without_moves

    record = {"game": "000-0000-0", "seats": ["a", "b"], "moves": ["0 x],y", '1 "q"],"',
                                                                   "* roll rain"],
              "seconds": [0.1, 0.2], "error": None}
    raw = json.dumps(record, separators=(",", ":")).encode()
    cut = json.loads(_without_moves(raw))
    assert cut == {k: v for k, v in record.items() if k != "moves"}
    last = json.dumps({"game": "g", "moves": ["a"]}, separators=(",", ":")).encode()
    assert _without_moves(last) == last  # no field after it: the whole line is parsed
