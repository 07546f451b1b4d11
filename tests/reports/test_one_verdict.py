"""Issue 52: the tournament, the report and the ladder give one verdict on the same games."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

import reports
from arena.cli import main
from reports import sections, tables

from .report_helpers import record, write_run


def _three_way(directory: Path) -> Path:
    """A round robin of three (2 seats), 4 deals a pairing: W wins every game it plays, the
    other two split theirs.  W has 16 games over 8 deals (its two pairings'), the run 12."""
    names = ["W", "X", "Y"]
    games = []
    for pairing, (a, b) in enumerate([(0, 1), (0, 2), (1, 2)]):
        for deal in range(4):
            for rotation in range(2):
                seats = [names[a], names[b]] if rotation == 0 else [names[b], names[a]]
                winner = seats.index("W") if "W" in seats else rotation
                games.append(record(pairing, deal, rotation, seats, [20, 10], [winner]))
    return write_run(directory, games, names)


def test_a_participant_carries_an_interval_by_its_own_deals(tmp_path: Path) -> None:
    """8 deals of W's own: no interval, and the same 'needs ~20 games' as the tournament
    prints (16 games at 2 a deal), for its win rate and its Elo alike.  The report used to
    show [80.6%, 100.0%] (the run's 12 deals) and ask for 20 games of Elo by another count."""
    run = sections.Run(reports.load(_three_way(tmp_path / "run")), replicates=40)
    st = sections.guarded(run, sections.standings)["standings"]
    text = "\n".join([*sections.headline(run), tables.summary_text(st)])
    assert "[80.6%, 100.0%]" not in text
    w = next(line for line in text.splitlines() if line.startswith("W "))
    assert "needs ~20 games" in w
    assert "How sure: not yet: 8 deals" in text


def test_the_tournament_counts_a_pairings_deal_as_its_own(tmp_path: Path) -> None:
    """Deal 0 of two pairings is two deals: greedy's 16 games over 8 deals need ~20 games,
    the report's count (it used to print ~40, taking the deals for 4)."""
    result = CliRunner().invoke(main, [
        "tournament", "--bot", "greedy", "--bot", "random", "--bot", "random:name=r2",
        "--games", "8", "--seed", "1", "--workers", "1", "--out", str(tmp_path / "t")])
    assert result.exit_code == 0, result.output
    line = next(x for x in result.output.splitlines() if x.startswith("greedy "))
    assert "needs ~20 games" in line


def test_a_perfect_record_only_when_the_record_is(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """15-5 over 10 deals is +191 Elo, never 'too large to measure (a perfect record)', even
    when a rating beside it is flagged as clipped: the headline reads the pair's record."""
    games = []
    for deal in range(10):
        for rotation in range(2):
            seats = ["objective", "greedy"] if rotation == 0 else ["greedy", "objective"]
            lost = deal < 5 and rotation == 0
            winner = seats.index("greedy" if lost else "objective")
            games.append(record(0, deal, rotation, seats, [20, 10], [winner]))
    run = write_run(tmp_path / "run", games, ["objective", "greedy"])
    real = tables.ratings

    def flagged(*args: object, **kwargs: object) -> dict[str, object]:
        out = real(*args, **kwargs)  # type: ignore[arg-type]
        out["ratings"]["elo_clipped"] = True
        return out

    monkeypatch.setattr(tables, "ratings", flagged)
    lines = sections.headline(sections.Run(reports.load(run), replicates=40))
    text = "\n".join(lines)
    assert "+191 Elo" in text
    assert "perfect record" not in text and "too large" not in text
