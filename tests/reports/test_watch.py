"""The report links the replays of chosen games: per pairing its typical game, the biggest
upset, the longest game, a game where each flagged card was completed; `arena report`
writes each page beside the report, and each page is that game's replay."""

from __future__ import annotations

import csv
import json
import re
import statistics
from collections import defaultdict
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("watch") / "run"
    result = CliRunner().invoke(main, [
        "tournament", "--bot", "greedy", "--bot", "random:complete=true", "--bot",
        "random:complete=true,name=twin",
        "--games", "6", "--seed", "3", "--quiet", "--rule", "max_rounds=25", "--out", str(out)])
    assert result.exit_code == 0, result.output
    result = CliRunner().invoke(main, ["report", str(out)])
    assert result.exit_code == 0, result.output
    return out


def chosen(run: Path) -> list[dict[str, str]]:
    with open(run / "report" / "games_to_watch.csv", newline="") as f:
        return list(csv.DictReader(f))


def records(run: Path) -> dict[str, dict]:
    lines = (run / "games.jsonl").read_text().splitlines()
    return {r["game"]: r for r in map(json.loads, lines)}


def test_every_link_of_the_report_is_a_replay_of_its_game(run: Path) -> None:
    report = run / "report"
    html = (report / "report.html").read_text()
    links = re.findall(r'<a href="(replays/[^"]+\.html)">([^<]+)</a>', html)
    assert links and {file for file, _ in links} == {row["file"] for row in chosen(run)}
    for file, game in links:
        page = (report / file).read_text()
        assert f"Game {game}:" in page and "const DATA" in page
    assert "](replays/" in (report / "report.md").read_text()


def test_the_choices_follow_from_the_records(run: Path) -> None:
    games = records(run)
    rows = chosen(run)
    why = {row["game"]: row["why"] for row in rows}
    by_pairing = defaultdict(list)
    for r in games.values():
        by_pairing[r["pairing"]].append(r)
    typical = [g for g, w in why.items() if "typical game" in w]
    assert sorted(games[g]["pairing"] for g in typical) == sorted(by_pairing)
    for g in typical:
        median = statistics.median(r["rounds"] for r in by_pairing[games[g]["pairing"]])
        nearest = min(abs(r["rounds"] - median) for r in by_pairing[games[g]["pairing"]])
        assert abs(games[g]["rounds"] - median) == nearest
    longest = [g for g, w in why.items() if "longest game" in w]
    assert len(longest) == 1
    assert games[longest[0]]["rounds"] == max(r["rounds"] for r in games.values())
    share: dict[str, list[float]] = defaultdict(list)
    for r in games.values():
        for seat, name in enumerate(r["seats"]):
            share[name].append(1 / len(r["winners"]) if seat in r["winners"] else 0.0)
    rate = {name: sum(s) / len(s) for name, s in share.items()}
    def gap(r: dict) -> float:
        winner = max((r["seats"][s] for s in r["winners"]), key=rate.__getitem__)
        others = [n for s, n in enumerate(r["seats"]) if s not in r["winners"]]
        return max(rate[n] for n in others) - rate[winner] if others else 0.0

    upsets = [g for g, w in why.items() if "biggest upset" in w]
    biggest = max(gap(r) for r in games.values())
    assert biggest > 0, "the fixture's run should have an upset (a weak check otherwise)"
    assert len(upsets) == 1 and gap(games[upsets[0]]) == pytest.approx(biggest)


def test_a_flagged_card_gets_the_first_game_where_it_was_completed(run: Path) -> None:
    """The card table's flags depend on many games; here two cards are flagged by hand, one
    completed in the run and one never completed."""
    import pandas as pd

    import reports
    from reports.watch import games_to_watch

    games = records(run)
    done = defaultdict(list)
    for game, r in sorted(games.items()):
        for cards in r["completed"]:
            for card in cards:
                done[card].append(game)
    card = sorted(done)[0]
    never = next(c for c in ("panda-15", "plot-20", "gardener-15", "panda-01")
                 if c not in done)
    flagged = pd.DataFrame({"card": [card, never], "flag": ["worth more", "dead"]})
    chosen = games_to_watch(reports.load(run), flagged)
    rows = [row for row in chosen.itertuples() if f"{card} completed" in row.why]
    assert [row.game for row in rows] == [done[card][0]]
    assert "flagged: worth more" in rows[0].why
    assert not any(f"{never} completed" in w for w in chosen["why"])


def test_a_dead_cards_game_does_not_read_as_a_contradiction() -> None:
    """Issue 52: "panda-15 completed (flagged: dead)" said a rarely completed card was
    completed with no word of why that game is worth a look."""
    from reports.watch import completed_why

    why = completed_why("panda-15", "dead")
    assert "(flagged: dead)" not in why and "one of the few games" in why
    assert "rarely completed" in completed_why("plot-02", "dead, inefficient")
    assert completed_why("plot-02", "worth more") == "plot-02 completed (flagged: worth more)"
    study = completed_why("panda-07", "study: too strong")
    assert study == "panda-07 completed (study: too strong)"
