"""Records that prove themselves (``arena.replay.verify_records``): a game whose MAC cannot be
checked (its folder copied without ``run.key``) is re-played, and a forged one refused with exit 2
naming the game; ``arena report --verify`` re-plays even the games the key vouches for."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.integrity import read_keys, sign_line

from .conftest import FAST, run_cli


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("proven") / "run"
    result = run_cli(["--bot", "random:name=A", "--bot", "greedy:name=B", "--games", "4",
                      "--seed", "5", "--workers", "1", "--quiet", "--out", str(out), *FAST])
    assert result.exit_code == 0, result.output
    return out


def forged(played: Path, tmp_path: Path, *, keep_key: bool, resign: bool = False
           ) -> tuple[Path, str]:
    """A copy of the run whose second game's winner and scores are flipped (the id of the
    game returned); without its key, or re-signed with it (``resign``)."""
    out = tmp_path / "copy"
    shutil.copytree(played, out)
    if not keep_key:
        (out / "run.key").unlink()
    lines = (out / "games.jsonl").read_text().splitlines()
    record = json.loads(lines[1])
    record.pop("mac", None)
    record["scores"] = record["scores"][::-1]
    record["panda_points"] = record["panda_points"][::-1]
    record["winners"] = [1 - w for w in record["winners"]]
    line = json.dumps(record, separators=(",", ":"))
    if resign:
        keys = read_keys(out)
        assert keys is not None
        line = sign_line(keys, line)
    lines[1] = line
    (out / "games.jsonl").write_text("\n".join(lines) + "\n")
    return out, record["game"]


def refused(result: object, game: str) -> None:
    assert result.exit_code == 2, result.output  # type: ignore[attr-defined]
    last = result.output.strip().splitlines()[-1]  # type: ignore[attr-defined]
    assert last.startswith("Error: ") and "internal error" not in last, last
    assert game in last and "games.jsonl" in last and "does not re-play" in last, last
    assert "Traceback" not in result.output  # type: ignore[attr-defined]


def test_report_refuses_a_forged_game_in_a_folder_without_its_key(played: Path,
                                                                  tmp_path: Path) -> None:
    folder, game = forged(played, tmp_path, keep_key=False)
    result = CliRunner().invoke(main, ["report", str(folder), "--out", str(tmp_path / "r")])
    refused(result, game)


def test_replay_refuses_a_forged_game_in_a_folder_without_its_key(played: Path,
                                                                  tmp_path: Path) -> None:
    folder, game = forged(played, tmp_path, keep_key=False)
    other = json.loads((folder / "games.jsonl").read_text().splitlines()[0])["game"]
    # Even asking for another game of the folder: every record there must prove itself.
    result = CliRunner().invoke(main, ["replay", str(folder), "--game", other])
    refused(result, game)


def test_resume_refuses_a_folder_without_its_key(played: Path, tmp_path: Path) -> None:
    folder, _ = forged(played, tmp_path, keep_key=False)
    result = run_cli(["--bot", "random:name=A", "--bot", "greedy:name=B", "--games", "4",
                      "--seed", "5", "--workers", "1", "--quiet", "--out", str(folder),
                      "--resume", *FAST])
    assert result.exit_code == 2, result.output
    assert "run.key" in result.output


def test_an_honest_copy_without_its_key_reports_with_notes_not_python_warnings(
        played: Path, tmp_path: Path) -> None:
    folder = tmp_path / "copy"
    shutil.copytree(played, folder)
    (folder / "run.key").unlink()
    result = CliRunner().invoke(main, ["report", str(folder), "--out", str(tmp_path / "r")])
    assert result.exit_code == 0, result.output
    assert "run.key" in result.output  # said once, as the command's own note
    assert "Warning:" not in result.output and ".py:" not in result.output, result.output


def test_verify_catches_a_forgery_signed_with_the_key(played: Path, tmp_path: Path) -> None:
    """A line re-signed by whoever holds run.key passes its MAC: only re-playing it shows
    that its result does not follow from its seed and moves."""
    folder, game = forged(played, tmp_path, keep_key=True, resign=True)
    plain = CliRunner().invoke(main, ["report", str(folder), "--out", str(tmp_path / "a")])
    assert plain.exit_code == 0, plain.output
    result = CliRunner().invoke(main, ["report", str(folder), "--verify",
                                       "--out", str(tmp_path / "b")])
    refused(result, game)


def test_python_warnings_reaching_a_command_become_notes(
        capsys: pytest.CaptureFixture[str]) -> None:
    import warnings

    from arena.cli import _warning_as_note

    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.showwarning = _warning_as_note
        warnings.warn("a thing the user should know", UserWarning, stacklevel=1)
    assert capsys.readouterr().err == "note: a thing the user should know\n"
