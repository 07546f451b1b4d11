"""Bad input found by an adversarial review: each is refused before any game, exit 2, with a
message naming what is wrong; before, each was a traceback, a game charged to a bot, or a
finished game thrown away."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.play.bot import BotConfigError, Param
from arena.play.registry import BotSpec
from reports import ReportError, load, write_report
from tests.unsigned import unsign

PLAY = ["play", "--bot", "random", "--bot", "random", "-q", "--rule", "max_rounds=3"]
TOURNAMENT = ["tournament", "--bot", "random", "--bot", "greedy", "--games", "2", "--quiet",
              "--rule", "max_rounds=4"]


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    assert "Traceback" not in result.output
    return result.exit_code, result.stderr


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "1e300", "0", "-1"])
def test_a_move_time_that_is_not_a_number_of_seconds_is_refused(tmp_path: Path,
                                                                 value: str) -> None:
    # NaN and infinity used to reach the game and be charged to seat 0 as a crash.
    code, err = run(*PLAY, "--move-time", value)
    assert code == 2 and "--move-time" in err and "at most 86400 seconds" in err
    code, err = run(*TOURNAMENT, "--move-time", value, "--out", str(tmp_path / "t"))
    assert code == 2 and "--move-time" in err
    assert not (tmp_path / "t").exists()


@pytest.mark.parametrize("text", ["mcts:c=nan", "mcts:time=nan", "greedy:decay=inf",
                                  "objective:race=-inf"])
def test_a_float_parameter_must_be_finite(text: str) -> None:
    with pytest.raises(BotConfigError, match="must be a finite number"):
        BotSpec.parse(text)
    code, err = run("play", "--bot", text, "--bot", "random", "-q")
    assert code == 2 and "finite number" in err


def test_a_nan_would_pass_a_minimum_check() -> None:
    assert Param("x", float, 1.0, "", minimum=0.0).convert("2.5") == 2.5
    with pytest.raises(BotConfigError):
        Param("x", float, 1.0, "", minimum=0.0).convert(float("nan"))


def test_the_abstract_base_class_is_not_a_bot() -> None:
    code, err = run("play", "--bot", "bots.base.Bot", "--bot", "random", "-q")
    assert code == 2 and "not a bot class" in err


@pytest.mark.parametrize("target", ["/proc/x/record.json", "/nonexistent-dir/record.json"])
def test_a_record_file_that_cannot_be_written_is_refused_before_the_game(target: str) -> None:
    code, err = run(*PLAY, "--record", target)
    assert code == 2 and "--record" in err and "cannot write" in err


def test_a_record_file_that_can_be_written_is_not_left_behind_by_the_check(
        tmp_path: Path) -> None:
    target = tmp_path / "game.json"
    code, _ = run(*PLAY, "--record", str(target), "--bot", "random")  # 3 bots
    assert code == 0 and json.loads(target.read_text())["seats"]
    failed = tmp_path / "never.json"
    code, _ = run("play", "--bot", "nosuchbot", "--bot", "random", "--record", str(failed))
    assert code == 2 and not failed.exists()


def test_an_output_folder_that_cannot_be_made_is_a_clear_error(tmp_path: Path) -> None:
    code, err = run(*TOURNAMENT, "--out", "/proc/arena-run")
    assert code == 2 and "cannot write the tournament to /proc/arena-run" in err
    assert run(*TOURNAMENT, "--out", str(tmp_path / "run"))[0] == 0
    code, err = run("report", str(tmp_path / "run"), "--out", "/proc/arena-report")
    assert code == 2 and "cannot write the report to /proc/arena-report" in err
    with pytest.raises(ReportError, match="cannot write the report"):
        write_report([tmp_path / "run"], "/proc/arena-report")


@pytest.mark.parametrize("sprt, words", [
    ("elo0=-inf,elo1=inf", "elo0 must be between -1000 and 1000, not -inf"),
    ("elo0=0,elo1=nan", "elo1 must be between -1000 and 1000, not nan"),
    ("elo0=0,elo1=5000", "elo1 must be between"),
])
def test_an_sprt_beyond_any_elo_difference_is_refused(tmp_path: Path, sprt: str,
                                                       words: str) -> None:
    # -inf/inf used to fail inside the test after the manifest was written, so every resume
    # of that folder failed the same way.
    code, err = run(*TOURNAMENT, "--sprt", sprt, "--out", str(tmp_path / "s"))
    assert code == 2 and words in err and not (tmp_path / "s").exists()


def edited(tmp_path: Path, name: str, change: dict[str, object]) -> Path:
    """A copy of a finished 2-game run whose manifest has ``change`` written over it."""
    base = tmp_path / "base"
    if not base.exists():
        assert run(*TOURNAMENT, "--out", str(base))[0] == 0
    copy = tmp_path / name
    copy.mkdir()
    (copy / "games.jsonl").write_text((base / "games.jsonl").read_text())
    manifest = json.loads((base / "manifest.json").read_text())
    for key, value in change.items():
        if key == "params":
            manifest["participants"][0]["params"].update(value)
        else:
            manifest[key] = value
    (copy / "manifest.json").write_text(json.dumps(manifest))
    return unsign(copy)


@pytest.mark.parametrize("change, words", [
    ({"seed": 5.7}, "the manifest's seed must be a whole number, not 5.7"),
    ({"games": "2"}, "the manifest's games must be a whole number"),
    ({"options": {"max_rounds": 0}}, "the manifest does not describe a tournament that can "
                                     "be resumed: rule option max_rounds"),
    ({"sprt": {"elo0": 10, "elo1": 0, "alpha": 0.05, "beta": 0.05}}, "elo0 < elo1"),
    ({"sprt": {"elo0": "0", "elo1": 5, "alpha": 0.05, "beta": 0.05}}, "elo0 must be a number"),
    ({"params": {"complete": True}},
     "participant 1: params: {'complete': True}, not {'complete': False}"),
])
def test_an_edited_manifest_is_named_as_such_on_resume(tmp_path: Path, change: dict[str, object],
                                                       words: str) -> None:
    code, err = run("tournament", "--resume", str(edited(tmp_path, "edited", change)))
    assert code == 2 and words in err, err


def test_a_changed_rule_on_resume_names_the_option_that_differs(tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert run(*TOURNAMENT, "--out", str(out))[0] == 0
    code, err = run(*TOURNAMENT[:-1], "max_rounds=9", "--out", str(out), "--resume")
    assert code == 2 and "different options (max_rounds: 4, not 9)" in err



@pytest.mark.parametrize("damage", [
    lambda r: r.update(pairing=2**40),
    lambda r: r.update(weather={"sun": 1e300}),
    lambda r: r["actions"][0].update(plot=2**40),
    lambda r: r["cards"][0].update(seat=70000),
])
def test_a_number_too_big_for_its_column_names_its_line(tmp_path: Path, damage: object) -> None:
    # It was an OverflowError ("internal error") from the table's integer column.
    run_dir = tmp_path / "run"
    assert run(*TOURNAMENT, "--games", "4", "--out", str(run_dir))[0] == 0
    lines = (unsign(run_dir) / "games.jsonl").read_text().splitlines()
    records = [json.loads(line) for line in lines]
    damage(records[1])  # type: ignore[operator]
    (run_dir / "games.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    code, err = run("report", str(run_dir))
    assert code == 2 and "Line 2 of games.jsonl has a number out of range" in err, err
    with pytest.raises(ReportError, match=r"Line 2 of games\.jsonl"):
        load(run_dir, strict=False)


def test_a_file_joining_two_tournaments_is_reported_as_such(tmp_path: Path) -> None:
    two, three = tmp_path / "two", tmp_path / "three"
    assert run(*TOURNAMENT, "--out", str(two))[0] == 0
    assert run(*TOURNAMENT, "--bot", "random:name=R", "--players", "3",
               "--out", str(three))[0] == 0
    unsign(two)
    unsign(three)
    joined = tmp_path / "joined"
    joined.mkdir()
    (joined / "manifest.json").write_text((two / "manifest.json").read_text())
    (joined / "games.jsonl").write_text((two / "games.jsonl").read_text()
                                        + (three / "games.jsonl").read_text())
    # Issue 21: the other tournament's participant is not in this manifest: refused, naming
    # the first line that names it, rather than pooled with a warning.
    result = CliRunner().invoke(main, ["report", str(joined)])
    assert result.exit_code == 2, result.output
    assert "'R', who is not in manifest.json" in result.stderr
    assert "Traceback" not in result.output
    # Same participants, another seed: the game ids clash, and that is refused too.
    other = tmp_path / "other"
    assert run(*TOURNAMENT, "--seed", "999", "--out", str(other))[0] == 0
    unsign(other)
    (joined / "games.jsonl").write_text((two / "games.jsonl").read_text()
                                        + (other / "games.jsonl").read_text())
    result = CliRunner().invoke(main, ["report", str(joined)])
    assert result.exit_code == 2, result.output
    assert "joins two tournaments" in result.stderr


def damaged_record(tmp_path: Path, change: object) -> Path:
    record = tmp_path / "game.json"
    if not record.exists():
        assert run(*PLAY, "--seed", "3", "--record", str(record))[0] == 0
    data = json.loads(record.read_text())
    if callable(change):
        change(data)
    path = tmp_path / "damaged.json"
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize("change, code, words", [
    (lambda r: r.pop("tiebreak"), 1, "tiebreak: missing from the record"),
    (lambda r: r.update(error="boom"), 1, "is not a fault of a seat of this game"),
    (lambda r: r.update(error={"seat": 9, "kind": "crash", "message": "x"}), 1,
     "is not a fault of a seat of this game"),
    (lambda r: r.update(seats=[1, 2]), 2, "'seats' field is not a list of names"),
])
def test_replay_names_a_damaged_record_field(tmp_path: Path, change: object, code: int,
                                             words: str) -> None:
    got, err = run("replay", str(damaged_record(tmp_path, change)))
    assert got == code and words in err, err


def test_a_file_that_is_not_text_or_not_a_record_is_refused(tmp_path: Path) -> None:
    binary = tmp_path / "bin.json"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    number = tmp_path / "number.json"
    number.write_text("5")
    for command, path, words in (("replay", binary, "not UTF-8"), ("legal", binary, "not UTF-8"),
                                 ("replay", number, "not a game record")):
        code, err = run(command, str(path))
        assert code == 2 and words in err, (command, err)


@pytest.mark.parametrize("field, value, words", [
    ("winners", [7], "winners [7] are not seats of the game"),
    ("winners", "ab", "winners 'ab' are not seats"),
    ("scores", [1], "scores [1] are not one number per seat"),
    ("error", {"seat": "x", "kind": "crash", "message": ""}, "is not a fault of a seat"),
])
def test_resume_refuses_an_edited_result_instead_of_counting_it(
        tmp_path: Path, field: str, value: object, words: str) -> None:
    out = tmp_path / "run"
    assert run(*TOURNAMENT, "--out", str(out))[0] == 0
    lines = (unsign(out) / "games.jsonl").read_text().splitlines()
    record = json.loads(lines[0])
    record[field] = value
    (out / "games.jsonl").write_text("\n".join([json.dumps(record), *lines[1:]]) + "\n")
    code, err = run("tournament", "--resume", str(out))
    assert code == 2 and words in err and "delete it to have the game played again" in err
