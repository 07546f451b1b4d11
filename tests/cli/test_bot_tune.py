"""``arena bots tune``: tiny runs end to end, its refusals, Ctrl-C and --resume."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from tests.cli.test_cli import readme_bot

CLI = [sys.executable, "-c", "from arena.cli import main; main()"]


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def seeds(folder: Path) -> list[tuple[str, int]]:
    """The (game id, seed) of every game recorded under ``folder``."""
    out = []
    for path in folder.rglob("*.jsonl"):
        for line in path.read_text().splitlines():
            record = json.loads(line)
            out.append((record["game"], record["seed"]))
    return sorted(out)


def test_a_tiny_run_writes_best_json_and_the_page_on_paired_deals(tmp_path: Path) -> None:
    out = tmp_path / "run"
    # Against objective the trials' scores differ (against random greedy wins them all, and
    # the best would be the start itself: nothing to confirm).
    code, text, err = run("bots", "tune", "greedy", "--space", "decay=0.2..1.0",
                          "--space", "samples=1,2", "--against", "objective", "--games", "4",
                          "--trials", "3", "--confirm-games", "4", "--workers", "1",
                          "--seed", "5", "--out", str(out))
    assert code == 0, err
    assert "trial 2 (3 of 3)" in err and "ETA" in err
    best = json.loads((out / "best.json").read_text())
    assert len(best["trials"]) == 3
    # Trial 0 is the starting point; the best is one of the trials.
    assert best["trials"][0]["params"] == {"decay": 0.5, "samples": 1}
    assert best["spec"] in {t["spec"] for t in best["trials"]}
    # 2 fresh deals carry no interval (the reports' rule): none is given, no verdict drawn
    assert best["interval"] is None and best["confirmation"]["verdict"].startswith("not tested")
    assert "needs ~" in err and "%]" not in err
    assert best["confirmation"]["games"] == 4 and best["confirmation"]["against"] == "greedy"
    assert "best:" in text and "confirmed against greedy" in text
    assert (out / "tune.png").stat().st_size > 1000
    assert "tune.png" in (out / "tune.html").read_text()
    # Common random numbers: every candidate played the same deals; the confirmation others.
    folders = sorted((out / "games").iterdir())
    played = [seeds(f) for f in folders]
    assert len(played) >= 2 and all(p == played[0] for p in played)
    fresh = {s for _, s in seeds(out / "confirm")}
    assert fresh and not fresh & {s for _, s in played[0]}


def test_a_start_that_stays_best_is_not_confirmed_against_itself(tmp_path: Path) -> None:
    """Issue 52: with every trial at 0% the tuner went on to "confirming X against X", and
    numbered its trials "trial 1/3 ... best so far (trial 0)".  Trials carry the search's
    numbers; a best that is the start plays no confirmation and says why; --games is never
    exceeded (rounded down to whole deals) and less than one deal is refused."""
    out = tmp_path / "run"
    code, text, err = run("bots", "tune", "greedy", "--space", "decay=0.2..1.0",
                          "--against", "random", "--games", "5", "--trials", "3",
                          "--confirm-games", "4", "--workers", "1", "--seed", "5",
                          "--out", str(out))
    assert code == 0, err
    assert "trial 0 (1 of 3)" in err and "trial 2 (3 of 3)" in err
    assert "confirming" not in err and "no confirmation: the best trial is the start" in err
    best = json.loads((out / "best.json").read_text())
    assert best["trial"] == 0 and best["confirmation"]["games"] == 0
    assert not (out / "confirm").exists()
    assert all(t["games"] == 4 for t in best["trials"])  # 5 asked: two whole deals
    assert "confirmation not played" in text
    code, _text, err = run("bots", "tune", "greedy", "--space", "decay=0.2..1.0",
                           "--against", "random", "--games", "1", "--out", str(tmp_path / "b"))
    assert code == 2 and "--games 1 is less than one deal" in err


@pytest.mark.parametrize(("space", "needle"), [
    ("nosuch=1..2", "declares no parameter 'nosuch'"),
    ("samples=3..1", "low end is above its high end"),
    ("samples=0..3", "must be at least 1"),
    ("samples=a..b", "must be an integer"),
    ("decay=0.1,x", "must be a finite number"),
    ("samples", "is not NAME=LO..HI"),
])
def test_a_bad_space_is_one_sentence_before_any_game(tmp_path: Path, space: str,
                                                    needle: str) -> None:
    out = tmp_path / "run"
    code, _, err = run("bots", "tune", "greedy", "--space", space, "--against", "random",
                       "--out", str(out))
    assert code == 2, err
    assert needle in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
    assert not out.exists()


def test_bots_alone_still_lists_the_bots() -> None:
    code, out, _ = run("bots")
    assert code == 0 and "greedy" in out and "samples=1" in out


def test_ctrl_c_keeps_finished_trials_and_resume_goes_on(tmp_path: Path) -> None:
    out = tmp_path / "run"
    args = ["bots", "tune", "greedy", "--space", "decay=0.2..1.0", "--against", "random",
            "--games", "2", "--trials", "40", "--confirm-games", "2", "--workers", "1",
            "--out", str(out)]
    proc = subprocess.Popen([*CLI, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    # Limits, not timings: two trials of 2 games take about 5 s idle; the 600 s margin is for
    # a machine whose other processes take every core (the suite runs beside two hogs).
    deadline = time.monotonic() + 600
    best = out / "best.json"
    started = False
    while time.monotonic() < deadline and proc.poll() is None:
        if best.exists():
            try:
                if len(json.loads(best.read_text())["trials"]) >= 2:
                    started = True
                    break
            except ValueError:  # caught while being written
                pass
        time.sleep(0.2)
    assert started, "the tuner wrote no two trials within 600 s (or stopped early)"
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=600)
    assert proc.returncode == 130, err
    assert "--resume" in err and "Traceback" not in err
    kept = json.loads(best.read_text())["trials"]
    assert 2 <= len(kept) < 40
    assert json.loads(best.read_text())["confirmation"] is None

    # Resume with fewer trials in total than 40 so that the test stays short.
    total = len(kept) + 2
    done = subprocess.run([*CLI, "bots", "tune", "--resume", str(out), "--trials", str(total)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    final = json.loads(best.read_text())
    assert len(final["trials"]) == total
    assert [t["spec"] for t in final["trials"][:len(kept)]] == [t["spec"] for t in kept]
    # The resumed run ends with its confirmation: played, or said why not (greedy beats
    # random at every decay, so the best may score as the start does: nothing to confirm).
    confirmation = final["confirmation"]
    assert confirmation["games"] == 2 or (
        confirmation["games"] == 0 and confirmation["verdict"].startswith("not played"))


def test_a_ctrl_c_while_the_page_is_drawn_waits_for_the_files(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """CI caught a Ctrl-C landing inside matplotlib: the drawing that should have kept the
    results then failed with an internal error.  Now the files are written whole first."""
    import arena.bot_tune.page as page

    drawn = page.write_page
    after_the_signal: list[int] = []

    def interrupted_inside(directory: Path, data: dict) -> None:
        if len(data["trials"]) == 2 and not after_the_signal:
            signal.raise_signal(signal.SIGINT)
            after_the_signal.append(len(data["trials"]))  # reached only if Ctrl-C waits
        drawn(directory, data)

    monkeypatch.setattr(page, "write_page", interrupted_inside)
    out = tmp_path / "run"
    code, _, err = run("bots", "tune", "greedy", "--space", "decay=0.2..1.0", "--against",
                       "random", "--games", "2", "--trials", "5", "--confirm-games", "2",
                       "--workers", "1", "--out", str(out))
    assert code == 130, err
    assert after_the_signal == [2]
    assert "--resume" in err and "internal error" not in err
    assert len(json.loads((out / "best.json").read_text())["trials"]) == 2
    assert (out / "tune.png").read_bytes().startswith(b"\x89PNG")
    assert not list(out.glob("*.tmp"))


def test_resume_refuses_new_settings(tmp_path: Path) -> None:
    code, _, err = run("bots", "tune", "--resume", str(tmp_path), "--games", "9")
    assert code == 2 and "--games" in err


def test_a_users_own_bot_is_tuned_the_same_way(tmp_path: Path) -> None:
    (tmp_path / "mybots.py").write_text(readme_bot() + "\n")
    proc = subprocess.run([*CLI, "bots", "tune", "mybots.Eager", "--space", "patience=0..30",
                           "--against", "greedy", "--games", "2", "--trials", "2",
                           "--confirm-games", "2", "--workers", "1", "--out", "run"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr
    best = json.loads((tmp_path / "run" / "best.json").read_text())
    assert best["spec"].startswith("mybots.Eager:patience=")
    assert len(best["trials"]) == 2
    bad = subprocess.run([*CLI, "bots", "tune", "mybots.Eager", "--space", "patience=-1..3",
                          "--against", "greedy", "--out", "bad"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "at least 0" in bad.stderr


@pytest.mark.parametrize(("space", "needle"), [
    ("delegate=1..2", "takes a list A,B,C, not a range"),
    ("reuse=true,maybe", "must be true|false"),
    ("delegate=none,never", "cannot be 'never'"),
])
def test_a_choice_parameter_takes_a_list_of_its_values(tmp_path: Path, space: str,
                                                       needle: str) -> None:
    code, _, err = run("bots", "tune", "mcts", "--space", space, "--against", "random",
                       "--out", str(tmp_path / "run"))
    assert code == 2 and needle in err, err
    assert not (tmp_path / "run").exists()


def test_a_space_of_choices_is_searched_over_its_values(tmp_path: Path) -> None:
    from arena.bot_tune.tune import parse_space
    from arena.play.registry import load_class

    (dim,) = parse_space(load_class("mcts").PARAMS, ["delegate=none,steps,none"], "mcts")
    assert dim.kind == "choice" and dim.choices == ("none", "steps")
    (num,) = parse_space(load_class("greedy").PARAMS, ["decay=0.1..0.1"], "greedy")
    assert num.kind == "float" and num.low == num.high == 0.1
