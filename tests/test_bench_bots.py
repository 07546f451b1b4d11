"""``scripts/bench_bots.py``: the benchmark measures what it says (games, runs, one worker per
setting) and refuses bad counts; the figures themselves are not tested (a timed test fails on
a loaded machine, not on slow code)."""

from __future__ import annotations

import pytest

from tests.scripts import load_script
from tests.test_script_args import run_script

bench = load_script("bench_bots")


def test_a_setting_gives_one_rate_per_run_and_counts_moves() -> None:
    m = bench.measure(bench.Setting("random", 2, games=2, runs=3, seed=5))
    assert len(m.rates) == 3 and all(r > 0 for r in m.rates)
    seconds, moves = bench.play(bench.BotSpec.parse("random"), 2, 5)
    assert m.decisions > 6 * 10 and moves > 10 and seconds > 0  # hundreds of moves a game
    assert m.peak_mb > 1


def test_the_table_has_a_line_per_bot_and_player_count() -> None:
    run = run_script("bench_bots", "--bot", "random", "--players", "2", "--players", "3",
                     "--games", "1", "--runs", "1")
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    rows = [line for line in lines if line.startswith("random ")]
    assert [r.split()[1] for r in rows] == ["2p", "3p"]


@pytest.mark.parametrize(("argv", "message"), [
    (["--games", "0"], "argument --games: must be at least 1, not 0"),
    (["--mcts-games", "0"], "argument --mcts-games: must be at least 1, not 0"),
    (["--players", "5"], "argument --players: invalid choice: 5"),
    (["--bot", "nosuch"], "argument --bot:"),
])
def test_bad_options_are_named(argv: list[str], message: str,
                               capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        bench.main(argv)
    assert stop.value.code == 2
    assert message in capsys.readouterr().err
