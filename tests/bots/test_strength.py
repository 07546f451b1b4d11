"""``scripts/strength.py``: a used directory is an error, not a traceback, and ``--resume``
goes on with the match kept there."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.scripts import load_script
from tests.unsigned import resign

strength = load_script("strength")

ARGS = ["greedy", "random", "--games", "4", "--seed", "2", "--workers", "1"]


def test_a_used_out_directory_is_a_clear_error_and_resume_goes_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run"
    assert strength.main([*ARGS, "--out", str(out)]) == 0
    games = out / "games.jsonl"
    # As if the run had been killed after two games, before it sealed them.
    kept = "".join(games.read_text().splitlines(keepends=True)[:2])
    games.write_text(kept)
    manifest = json.loads((out / "manifest.json").read_text())
    manifest["finished"] = None
    del manifest["seal"]
    resign(out, manifest)
    capsys.readouterr()

    assert strength.main([*ARGS, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "already holds a tournament" in err and "--resume" in err
    assert "Traceback" not in err
    assert games.read_text() == kept  # nothing lost

    # Another match in that directory: refused, with the reason.
    assert strength.main([*ARGS, "--games", "6", "--out", str(out), "--resume"]) == 2
    assert "different games (4, not 6)" in capsys.readouterr().err

    # The same match: the two games kept are not played again, the two missing are.
    assert strength.main([*ARGS, "--out", str(out), "--resume"]) == 0
    text = games.read_text()
    assert text.startswith(kept) and len(text.splitlines()) == 4
    out_text = capsys.readouterr().out
    assert "greedy vs random: 4 games" in out_text
    # The speed counts the games this run played, not the two kept from before.
    assert "(2 games played in" in out_text


def test_resume_needs_a_directory(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        strength.main([*ARGS, "--resume"])
    assert exc.value.code == 2
    assert "--resume needs --out" in capsys.readouterr().err
