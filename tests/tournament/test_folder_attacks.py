"""A folder you are sent (issue 50, items 3 and 4): a line deleted, moved or cut from a signed
run is refused naming the first missing game; a folder holding a symbolic link is refused
naming it, and nothing outside it is written; a segment that inflates past its limit is one
sentence naming the segment, with memory bounded."""

from __future__ import annotations

import shutil
import tracemalloc
from pathlib import Path

import pytest
import zstandard
from click.testing import CliRunner

from arena.cli import main
from arena.runs.segments import SEGMENT_LIMIT, SEGMENTS, SegmentError, iter_lines
from reports.loader import load

from .conftest import FAST, run_cli


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("attacks") / "run"
    result = run_cli(["--bot", "random:name=A", "--bot", "greedy:name=B", "--games", "6",
                      "--seed", "5", "--workers", "1", "--quiet", "--out", str(out), *FAST])
    assert result.exit_code == 0, result.output
    return out


def copy(played: Path, tmp_path: Path) -> Path:
    out = tmp_path / "copy"
    shutil.copytree(played, out)
    return out


def games_of(folder: Path) -> list[str]:
    import json

    return [json.loads(line)["game"] for line in
            (folder / "games.jsonl").read_text().splitlines()]


def rewrite(folder: Path, order: list[int]) -> None:
    lines = (folder / "games.jsonl").read_text().splitlines()
    (folder / "games.jsonl").write_text("".join(lines[i] + "\n" for i in order))


def refused_everywhere(folder: Path, tmp_path: Path, *words: str) -> None:
    """``arena report``, ``arena replay`` and ``--resume`` each refuse, in one sentence."""
    for args in (["report", str(folder), "--out", str(tmp_path / "r")],
                 ["replay", str(folder), "--game", games_of(folder)[0]],
                 ["tournament", "--resume", str(folder), "--quiet"]):
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 2, (args, result.output)
        last = result.output.strip().splitlines()[-1]
        assert last.startswith("Error: ") and "Traceback" not in result.output, last
        for word in words:
            assert word in last, (args, last)
    assert not (tmp_path / "r").exists()


def test_a_deleted_line_is_refused_naming_its_game(played: Path, tmp_path: Path) -> None:
    folder = copy(played, tmp_path)
    ids = games_of(folder)
    rewrite(folder, [0, 1, 3, 4, 5])
    refused_everywhere(folder, tmp_path, f"game {ids[2]} is missing")


def test_a_moved_line_is_refused(played: Path, tmp_path: Path) -> None:
    folder = copy(played, tmp_path)
    rewrite(folder, [0, 2, 1, 3, 4, 5])
    refused_everywhere(folder, tmp_path, f"game {games_of(played)[1]} is missing",
                       "deleted or moved")


def test_a_cut_run_is_refused_naming_the_games_after_its_end(played: Path,
                                                             tmp_path: Path) -> None:
    """The attack: a finished run cut to the games one side won."""
    folder = copy(played, tmp_path)
    ids = games_of(folder)
    rewrite(folder, [0, 1, 2, 3])
    refused_everywhere(folder, tmp_path, "4 of the 6 games", f"after game {ids[3]}")


def test_a_report_of_a_run_with_games_missing_says_so_first(played: Path,
                                                            tmp_path: Path) -> None:
    """A run killed before its seal (no seal to refuse by) still says what it lacks."""
    import json

    from tests.unsigned import resign

    folder = copy(played, tmp_path)
    rewrite(folder, [0, 1, 2, 3])
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["finished"] = None
    del manifest["seal"]
    resign(folder, manifest)
    tables = load(folder)
    assert tables.provenance[1].startswith("Games missing: 4 of the 6 scheduled games")


@pytest.mark.parametrize("name", ["report/report.md", "run.lock", "arena.log",
                                  "games.jsonl"])
def test_a_folder_holding_a_link_is_refused_and_nothing_outside_is_written(
        played: Path, tmp_path: Path, name: str) -> None:
    folder = copy(played, tmp_path)
    outside = tmp_path / "outside.txt"
    outside.write_text("precious\n")
    link = folder / name
    link.parent.mkdir(exist_ok=True)
    if link.exists():
        link.unlink()
    link.symlink_to(outside)
    for args in (["report", str(folder)], ["tournament", "--resume", str(folder), "--quiet"],
                 ["replay", str(folder), "--game", "000-0000-0"],
                 ["export", str(folder), "--format", "jsonl", "--out", str(tmp_path / "x")]):
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 2, (args, result.output)
        last = result.output.strip().splitlines()[-1]
        assert str(link) in last and "symbolic link" in last, (args, last)
        assert outside.read_text() == "precious\n"
    assert not (tmp_path / "x").exists()


def bomb(path: Path, size: int, declared: bool) -> None:
    """A zstd frame of ``size`` zero bytes (a few KB), its size in the header or not."""
    path.parent.mkdir(exist_ok=True)
    chunk = b"\0" * (1 << 20)
    compressor = zstandard.ZstdCompressor(level=3)
    with open(path, "wb") as fh:
        writer = compressor.stream_writer(fh, size=size if declared else -1,
                                          closefd=False)
        for _ in range(size // len(chunk)):
            writer.write(chunk)
        writer.close()


@pytest.mark.parametrize("declared", [True, False])
def test_a_segment_bomb_is_one_sentence_naming_it_with_memory_bounded(
        played: Path, tmp_path: Path, declared: bool) -> None:
    folder = copy(played, tmp_path)
    segment = folder / SEGMENTS / "000001.jsonl.zst"
    bomb(segment, SEGMENT_LIMIT + (16 << 20), declared)
    assert segment.stat().st_size < 100_000
    tracemalloc.start()
    try:
        with pytest.raises(SegmentError) as caught:
            list(iter_lines(folder))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < SEGMENT_LIMIT * 2 + (16 << 20), peak
    assert str(segment) in str(caught.value) and "inflates to more than" in str(caught.value)
    result = CliRunner().invoke(main, ["report", str(folder)])
    assert result.exit_code == 2, result.output
    last = result.output.strip().splitlines()[-1]
    assert str(segment) in last and "games.jsonl" not in last, last
