"""The live standings under the progress bar: Elo against the field from the win share (the
usual Elo with two seats), intervals from the games played, "perfect record" where an
interval is unbounded, games per pairing; drawn in place on a terminal, the rate always in
games per second."""

from __future__ import annotations

import io
import math

import pytest
from tqdm import tqdm

from arena.tournament.live import LiveTable, elo_of_share, elo_text
from arena.tournament.progress import BAR_FORMAT, Progress
from arena.tournament.schedule import TournamentConfig, make_schedule
from arena.tournament.standings import Standings
from arena.tournament.worker import Summary
from bots.registry import BotSpec


def test_elo_of_a_share() -> None:
    assert elo_of_share(0.5, 2) == pytest.approx(0.0)
    assert elo_of_share(0.75, 2) == pytest.approx(400 * math.log10(3))  # +190.8
    assert elo_of_share(0.25, 4) == pytest.approx(0.0)  # the fair share of 4 seats
    assert elo_of_share(1 / 3, 4) > 0 > elo_of_share(0.2, 4)
    assert elo_of_share(1.0, 2) == math.inf


def test_an_unbounded_interval_is_a_perfect_record() -> None:
    """Issue 52: a perfect record is named as one, not as a want of games."""
    assert elo_text(5, 5, 2) == "perfect record"
    assert elo_text(0, 5, 2) == "perfect record"
    text = elo_text(60, 100, 2)
    centre, lo, hi = (float(x) for x in text.replace("[", "").replace("]", "")
                      .replace(",", "").split())
    assert lo < centre < hi and centre == pytest.approx(70, abs=1)


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def small_run() -> tuple[LiveTable, Standings, set[int]]:
    config = TournamentConfig((BotSpec.parse("random"), BotSpec.parse("greedy"),
                               BotSpec.parse("random:complete=true")), games=4)
    schedule = make_schedule(config)
    standings = Standings(config.names)
    done: set[int] = set()
    for game in schedule.games[:5]:
        winner = 1 if game.index % 2 else 0
        error = 0 if game.index == 3 else None
        standings.add(schedule.names(game), Summary((winner,), "none", (3, 5), error,
                                                    "crash" if error is not None else None))
        done.add(game.index)
    return LiveTable(standings, schedule, done), standings, done


def test_the_table_has_each_participant_and_the_pairings() -> None:
    table, standings, _done = small_run()
    lines = table.lines()
    assert lines[0].split()[:2] == ["participant", "games"]
    assert {line.split()[0] for line in lines[1:4]} == {"random", "greedy",
                                                         "random:complete=true"}
    assert lines[-1].startswith("games per pairing: ")
    assert "of 4 (3 pairings)" in lines[-1] and "stopped by an error: 1" in lines[-1]
    for line in lines[1:4]:
        name = line.split()[0]
        assert line.split()[1] == str(standings.lines[name].games)


def test_the_table_is_drawn_under_the_bar_on_a_terminal() -> None:
    table, _standings, done = small_run()
    screen = Terminal()
    bar = Progress(12, 0, screen, table=table.lines)
    bar.update(len(done), "", force=True)
    bar.close()
    out = screen.getvalue()
    assert "participant" in out and "Elo vs field" in out and "games per pairing" in out
    plain = io.StringIO()
    lines = Progress(12, 0, plain, table=table.lines, every=3600)
    lines.update(12, "greedy 60.0%", force=True)
    assert "participant" not in plain.getvalue()  # not a terminal: one line, as before
    assert "games/s" in plain.getvalue()


@pytest.mark.parametrize(("n", "elapsed"), [(1, 20.0), (50, 10.0), (3, 0.5)])
def test_the_rate_is_always_games_per_second(n: int, elapsed: float) -> None:
    text = tqdm.format_meter(n, 100, elapsed, bar_format=BAR_FORMAT, unit=" games")
    assert "games/s" in text and "s/ games" not in text and "s/game" not in text


def test_standings_show_no_interval_fewer_than_ten_deals_carry() -> None:
    """The reports' rule (``arena.stats.intervals.MIN_UNITS``) holds in the tournament's own
    standings too: a rate over 4 deals says how many games would carry an interval."""
    won = Summary(winners=(0,), tiebreak="", scores=(10, 5), error_seat=None, error_kind=None)
    lost = Summary(winners=(1,), tiebreak="", scores=(5, 10), error_seat=None, error_kind=None)
    thin = Standings(["a", "b"])
    for deal in range(4):
        thin.add(["a", "b"], won, deal)
        thin.add(["b", "a"], lost, deal)
    table = thin.table()
    assert "needs ~20 games" in table and "%]" not in table
    config = TournamentConfig(participants=(BotSpec.parse("random:name=a"),
                                            BotSpec.parse("random:name=b")), games=8, seed=1)
    live = "\n".join(LiveTable(thin, make_schedule(config), set()).lines())
    rows = live.splitlines()[1:3]
    assert all("needs ~20 games" in r and "not enough games" in r and "[" not in r
               for r in rows), live
    ample = Standings(["a", "b"])
    for deal in range(10):
        ample.add(["a", "b"], won, deal)
        ample.add(["b", "a"], lost, deal)
    assert "%]" in ample.table() and "needs" not in ample.table()
