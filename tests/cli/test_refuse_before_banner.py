"""Issue 52: a refused ``--out`` is said before the tournament's banner, not after it."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from arena.cli import main

TOURNAMENT = ["tournament", "--bot", "random", "--bot", "greedy", "--games", "2",
              "--workers", "1", "--rule", "max_rounds=4"]


def test_an_occupied_out_is_refused_before_the_banner(tmp_path: Path) -> None:
    out = tmp_path / "t"
    first = CliRunner().invoke(main, [*TOURNAMENT, "--out", str(out)])
    assert first.exit_code == 0, first.output
    again = CliRunner().invoke(main, [*TOURNAMENT, "--out", str(out)])
    assert again.exit_code == 2
    assert "already holds a tournament" in again.output
    assert "Tournament:" not in again.output


def test_an_out_that_cannot_be_made_is_refused_before_the_banner(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    result = CliRunner().invoke(main, [*TOURNAMENT, "--out", str(blocker / "t")])
    assert result.exit_code == 2
    assert "cannot write the tournament" in result.output
    assert "Tournament:" not in result.output
