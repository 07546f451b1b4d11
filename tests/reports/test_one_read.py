"""A card study's games are read once and analysed once, for its summary and its report
alike (they were read three times and bootstrapped twice: the summary's ``experiment.load``
and ``analyse``, the report's ``load``, then its study section's ``load`` and ``analyse``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import arena.viewer
from arena.balance.command import summarize
from arena.cli import main
from arena.runs import reader
from reports import experiment


def test_a_study_reads_its_games_once_and_analyses_them_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "study"
    result = CliRunner().invoke(main, [
        "balance", "study", "--bot", "random:complete=true", "--deals", "10", "--category",
        "panda", "--workers", "1", "--quiet", "--seed", "0", "--out", str(out), "--no-report"])
    assert result.exit_code == 0, result.output
    reads: list[Path] = []
    analyses: list[int] = []
    iter_lines, analyse = reader.iter_lines, experiment.analyse

    def counted_lines(directory: Path, **kwargs: Any) -> Any:
        reads.append(directory)
        return iter_lines(directory, **kwargs)

    def counted_analyse(*args: Any, **kwargs: Any) -> Any:
        analyses.append(1)
        return analyse(*args, **kwargs)

    monkeypatch.setattr(reader, "iter_lines", counted_lines)
    monkeypatch.setattr(experiment, "analyse", counted_analyse)
    # The replay pages re-play each game to watch from its record: their own read, of a few.
    monkeypatch.setattr(arena.viewer, "write_replays", lambda directory, folder: (0, []))
    summarize(out)
    assert (out / "report" / "study_cards.csv").is_file()
    assert reads == [out] and analyses == [1]
