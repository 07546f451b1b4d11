"""A card study's games are read once and analysed once, for its summary and its report
alike (they were read three times and bootstrapped twice: the summary's ``experiment.load``
and ``analyse``, the report's ``load``, then its study section's ``load`` and ``analyse``),
and through the one verified reader of a run (the study's own read once skipped the lines'
signatures)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import arena.show.viewer
from arena.cli import main
from arena.commands.balance_lab import summarize
from arena.runs import reader
from reports import ReportError, experiment


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("study") / "study"
    result = CliRunner().invoke(main, [
        "balance", "study", "--bot", "random:complete=true", "--deals", "10", "--category",
        "panda", "--workers", "1", "--quiet", "--seed", "0", "--out", str(out), "--no-report"])
    assert result.exit_code == 0, result.output
    return out


def test_a_study_reads_its_games_once_and_analyses_them_once(
        played: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "study"
    shutil.copytree(played, out)
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
    monkeypatch.setattr(arena.show.viewer, "write_replays", lambda directory, folder: (0, []))
    summarize(out)
    assert (out / "report" / "study_cards.csv").is_file()
    assert reads == [out] and analyses == [1]


def test_a_studys_edited_line_is_refused_by_its_own_read(played: Path, tmp_path: Path) -> None:
    """``experiment.load`` reads through ``arena.runs.reader``: a line whose winner was
    edited fails its signature, named, as in the report and ``--resume``."""
    out = tmp_path / "study"
    shutil.copytree(played, out)
    assert len(experiment.load(out).arms)
    # The lines as one journal (the same bytes, so the same chain), to edit one.
    lines = [raw for _source, raw in reader.iter_lines(out)]
    shutil.rmtree(out / "games", ignore_errors=True)
    journal = out / "games.jsonl"
    assert b'"winners":[0]' in lines[3] or b'"winners":[1]' in lines[3]
    lines[3] = lines[3].replace(b'"winners":[0]', b'"winners":[9]').replace(
        b'"winners":[1]', b'"winners":[0]').replace(b'"winners":[9]', b'"winners":[1]')
    journal.write_bytes(b"\n".join(lines) + b"\n")
    with pytest.raises(ReportError, match=r"Line 4 of .*games\.jsonl fails its signature"):
        experiment.load(out)
