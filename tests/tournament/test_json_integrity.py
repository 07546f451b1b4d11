"""Files anyone may have edited: JSON nested too deeply to read, and integers of more than
4,300 digits (Python's conversion limit) in manifests, records and positions are one
sentence and exit status 2, never an internal error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main

from .conftest import FAST, run_cli

DEEP = "[" * 100_000 + "]" * 100_000
HUGE = "1" * 5000


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("json") / "run"
    result = run_cli(["--bot", "random:name=A", "--bot", "random:name=B", "--games", "2",
                      "--seed", "3", "--workers", "1", "--quiet", "--out", str(out), *FAST])
    assert result.exit_code == 0, result.output
    return out


def copy_run(played: Path, tmp_path: Path, manifest: str | None = None,
             line: str | None = None) -> Path:
    out = tmp_path / "copy"
    out.mkdir()
    (out / "manifest.json").write_text(manifest or (played / "manifest.json").read_text())
    if manifest is None and (played / "run.key").exists():  # the run's deal key with it
        (out / "run.key").write_bytes((played / "run.key").read_bytes())
    games = (played / "games.jsonl").read_text().splitlines()
    if line is not None:
        games[0] = line
    (out / "games.jsonl").write_text("\n".join(games) + "\n")
    return out


def one_sentence(result: object, *words: str) -> None:
    assert result.exit_code == 2, result.output  # type: ignore[attr-defined]
    lines = result.stderr.strip().splitlines()  # type: ignore[attr-defined]
    assert lines[-1].startswith("Error: ") and "internal error" not in lines[-1]
    assert "Traceback" not in result.output and len(lines[-1]) < 300  # type: ignore[attr-defined]
    for word in words:
        assert word in lines[-1], lines[-1]


@pytest.mark.parametrize(("text", "words"), [
    (DEEP, ("nested too deeply",)),
    ('{"file_format": "takenoko-arena-manifest/1", "seed": ' + HUGE + "}",
     ("integer of more than 4300 digits",)),
])
def test_a_manifest_that_cannot_be_read(played: Path, tmp_path: Path, text: str,
                                        words: tuple[str, ...]) -> None:
    out = copy_run(played, tmp_path, manifest=text)
    one_sentence(run_cli(["--resume", str(out), "--quiet"]), "manifest.json", *words)


@pytest.mark.parametrize("field", ["players", "games", "seed"])
def test_a_manifest_number_of_thousands_of_digits(played: Path, tmp_path: Path,
                                                  field: str) -> None:
    manifest = json.loads((played / "manifest.json").read_text())
    manifest[field] = int("9" * 4000)
    out = copy_run(played, tmp_path, manifest=json.dumps(manifest))
    one_sentence(run_cli(["--resume", str(out), "--quiet"]), field, "4000 digits")


@pytest.mark.parametrize(("line", "words"), [
    (DEEP, ("Line 1 of", "nested too deeply")),
    ('{"game": "000-0000-0", "seed": ' + HUGE + "}", ("Line 1 of", "4300 digits")),
])
def test_a_record_that_cannot_be_read(played: Path, tmp_path: Path, line: str,
                                      words: tuple[str, ...]) -> None:
    out = copy_run(played, tmp_path, line=line)
    one_sentence(run_cli(["--resume", str(out), "--quiet"]), *words)
    replayed = CliRunner().invoke(main, ["replay", str(out / "games.jsonl"), "--game",
                                         "000-0000-1"])
    one_sentence(replayed, *words)


@pytest.mark.parametrize(("text", "words"), [
    (DEEP, ("nested too deeply",)),
    ('{"seed": ' + HUGE + "}", ("4300 digits",)),
])
def test_a_position_or_record_file_that_cannot_be_read(tmp_path: Path, text: str,
                                                       words: tuple[str, ...]) -> None:
    path = tmp_path / "bad.json"
    path.write_text(text)
    for command in ("legal", "replay"):
        one_sentence(CliRunner().invoke(main, [command, str(path)]), *words)


def test_more_games_than_a_schedule_can_hold_are_refused(tmp_path: Path) -> None:
    result = run_cli(["--bot", "random", "--bot", "greedy", "--games", "100000000",
                      "--quiet", "--out", str(tmp_path / "big")])
    one_sentence(result, "--games must be at most 1,000,000 per pairing")
