"""``arena ladder``: the Bradley–Terry fit on games of known odds, and a tiny run end to end."""

from __future__ import annotations

import csv
import json
import math
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from click.testing import CliRunner

from arena.cli import main
from arena.ladder.ladder import default_specs, fit, rate


def synthetic(elos: list[float], deals: int, seed: int) -> list[dict[str, object]]:
    """Records of a round robin whose winners are drawn from Bradley–Terry odds."""
    rng = np.random.default_rng(seed)
    names = [f"b{k}" for k in range(len(elos))]
    records = []
    pairing = 0
    for i in range(len(elos)):
        for j in range(i + 1, len(elos)):
            p = 1 / (1 + 10 ** ((elos[j] - elos[i]) / 400))
            for deal in range(deals):
                for rotation, seats in enumerate(((i, j), (j, i))):
                    first = rng.random() < p
                    winner = seats.index(i if first else j)
                    records.append({"pairing": pairing, "deal": deal, "rotation": rotation,
                                    "seats": [names[s] for s in seats], "winners": [winner],
                                    "error": None})
            pairing += 1
    return records


def test_the_fit_recovers_known_ratings_within_its_intervals() -> None:
    truth = [0.0, 150.0, 300.0, 320.0]
    rows = rate(synthetic(truth, deals=300, seed=3), [f"b{k}" for k in range(4)], seed=1,
                bootstrap=200)
    by_spec = {r["spec"]: r for r in rows}
    for k, elo in enumerate(truth):
        r = by_spec[f"b{k}"]
        assert abs(r["elo"] - elo) < 45, (k, r)
        if k:
            assert r["elo_lo"] <= elo <= r["elo_hi"] or abs(r["elo"] - elo) < 30
    assert [r["spec"] for r in rows][-1] == "b0"


def test_a_winless_spec_stays_finite_and_even_games_rate_even() -> None:
    deals = [(0, 1, 0), (0, 1, 0)]
    elo = fit(2, deals, np.array([[0.0, 2.0], [0.0, 2.0]]))
    assert math.isfinite(elo[1]) and elo[1] > 300
    even = fit(2, deals, np.array([[1.0, 1.0], [1.0, 1.0]]))
    assert abs(even[1]) < 1e-6


def test_default_specs_are_the_skill_ladder_with_elites_budgets() -> None:
    assert default_specs() == ["random", "greedy", "objective", "mcts", "learned",
                               "elite:budget=0.25", "elite", "elite:budget=4"]


def test_a_tiny_ladder_writes_its_table(tmp_path: Path) -> None:
    out = tmp_path / "ladder"
    result = CliRunner().invoke(main, ["ladder", "--specs", "random,greedy,objective",
                                       "--games", "4", "--workers", "1", "--out", str(out)])
    assert result.exit_code == 0, result.stderr
    assert "Elo" in result.stdout
    rows = list(csv.DictReader((out / "ladder.csv").open()))
    assert {r["spec"] for r in rows} == {"random", "greedy", "objective"}
    random_row = next(r for r in rows if r["spec"] == "random")
    assert float(random_row["elo"]) == 0.0
    assert rows[-1]["spec"] == "random"  # greedy and objective beat random
    for r in rows:
        # 2 deals a pairing carry no interval (the reports' rule): none is written or shown
        assert r["elo_lo"] in ("", "nan") and r["elo_hi"] in ("", "nan")
        assert int(r["games"]) == 8
    assert "needs ~20 games" in result.stdout and "[" not in result.stdout.split("Elo")[1]
    assert json.loads((out / "ladder.json").read_text())["anchor"] == "random"
    assert (out / "ladder.png").stat().st_size > 1000
    assert "needs ~20 games" in (out / "ladder.html").read_text()
    again = CliRunner().invoke(main, ["ladder", "--bot", "random", "--bot", "greedy",
                                      "--out", str(out)])
    assert again.exit_code == 2 and "--resume" in again.stderr


def test_a_bad_spec_is_one_sentence(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["ladder", "--specs", "random,nosuch",
                                       "--out", str(tmp_path / "x")])
    assert result.exit_code == 2 and "nosuch" in result.stderr
    assert "Traceback" not in result.stderr


def test_ctrl_c_keeps_the_games_and_resume_finishes(tmp_path: Path) -> None:
    out = tmp_path / "ladder"
    args = [sys.executable, "-c", "from arena.cli import main; main()", "ladder", "--specs",
            "random,greedy", "--games", "300", "--workers", "1", "--out", str(out)]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    games = out / "games" / "games.jsonl"
    # A limit, not a timing: four games take a second idle; 600 s is margin for a machine
    # whose cores are taken by other processes.
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline and proc.poll() is None:
        if games.exists() and games.read_text().count("\n") >= 4:
            break
        time.sleep(0.1)
    assert proc.poll() is None, "the ladder stopped before four games were written"
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=600)
    assert proc.returncode == 130, err
    assert "--resume" in err and "Traceback" not in err
    kept = games.read_text().count("\n")
    assert 4 <= kept < 300
    done = subprocess.run([*args, "--resume"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    rows = list(csv.DictReader((out / "ladder.csv").open()))
    assert [int(r["games"]) for r in rows] == [300, 300]


def test_a_perfect_record_is_shown_as_set_by_the_prior() -> None:
    """20-0 over 10 deals: the report prints no measured rating ('> +999', no interval), and
    the ladder must not print '603 [548, 700]' as if it had one: it says its prior shaped it."""
    from arena.ladder.ladder import elo_text, interval_text, prior_note

    records = synthetic([0.0, 3000.0], deals=10, seed=1)
    assert all(r["winners"] == [r["seats"].index("b1")] for r in records)
    rows = {r["spec"]: r for r in rate(records, ["b0", "b1"], seed=1, bootstrap=50)}
    top = rows["b1"]
    assert top["perfect"] and math.isnan(top["elo_lo"]) and math.isnan(top["elo_hi"])
    assert elo_text(top, "b0").startswith("> ")
    assert interval_text(top, "b0") == "perfect record: set by the prior"
    note = prior_note(list(rows.values()), "b0")
    assert note is not None and "prior" in note and "virtual drawn game" in note


def test_a_spec_carries_an_interval_by_its_own_deals() -> None:
    """The report's rule: 8 deals of a spec's own give no interval, and the cell says how
    many games would (16 games at 2 a deal: ~20)."""
    from arena.ladder.ladder import interval_text

    rows = {r["spec"]: r for r in rate(synthetic([0.0, 50.0], deals=8, seed=2),
                                        ["b0", "b1"], seed=1, bootstrap=50)}
    assert interval_text(rows["b1"], "b0") == "needs ~20 games"
