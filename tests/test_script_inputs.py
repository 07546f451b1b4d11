"""The scripts' input that is not a count: bot specs, rule options, and files to read or write.

Each is checked while the arguments are parsed (``scripts/_args.py``), so a bad one is a usage
error naming its option (exit 2), never a traceback; and an output path that cannot be
written is refused before the work, not after it (when the work was lost with it).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from tests.scripts import load_script
from tests.test_script_args import run_script

args = load_script("_args")

UNKNOWN = "unknown bot 'nosuch'"
MAX_ROUNDS = "rule option max_rounds must be a whole number >= 1"


def _assert_usage_error(script: str, argv: list[str], *expected: str) -> str:
    """Run the script; it must stop with a usage error holding every ``expected`` text."""
    run = run_script(script, *argv, timeout=30)
    assert run.returncode == 2, run.stderr
    assert "Traceback" not in run.stderr
    for text in expected:
        assert text in run.stderr
    return run.stderr


@pytest.mark.parametrize(("script", "argv", "message"), [
    ("bench_mcts", ["speed", "--bot", "nosuch"], f"argument --bot: {UNKNOWN}"),
    ("bench_mcts", ["speed", "--policy", "nosuch"], f"argument --policy: {UNKNOWN}"),
    ("bench_mcts", ["game", "--opponent", "nosuch"], f"argument --opponent: {UNKNOWN}"),
    ("bench_mcts", ["match", "--opponent", "nosuch"], f"argument --opponent: {UNKNOWN}"),
    ("bench_mcts", ["match", "--opponent", "random", "--rule", "max_rounds=0"],
     f"argument --rule: {MAX_ROUNDS}"),
    ("bench_tournament", ["--rule", "foo"],
     "argument --rule: rule 'foo' is not of the form NAME=VALUE"),
    ("bench_tournament", ["--rule", "max_rounds=0"], f"argument --rule: {MAX_ROUNDS}"),
    ("strength", ["nosuch", "random"], f"argument spec_a: {UNKNOWN}"),
    ("strength", ["greedy", "random", "--rule", "max_rounds=0"], f"argument --rule: {MAX_ROUNDS}"),
    ("bench_tournament", ["--rule", "max_rounds=8", "--rule", "max_rounds=9"],
     "argument --rule: rule option max_rounds is given twice"),
    ("clairvoyance", ["mcts", "nosuch", "--reveal", "none", "--out", "unused"],
     f"argument spec_b: {UNKNOWN}"),
])
def test_a_bad_spec_or_rule_names_its_option(script: str, argv: list[str], message: str) -> None:
    _assert_usage_error(script, argv, message)


def test_fit_value_names_records_it_cannot_read(tmp_path: Path) -> None:
    not_records = tmp_path / "five.json"
    not_records.write_text("5\n")  # JSON, but not a game record
    binary = tmp_path / "games.jsonl"
    binary.write_bytes(b"\xff\xfe\x00\x81 not text")
    _assert_usage_error("fit_value", ["--records", str(not_records)],
                        "argument --records:", "not a game record")
    _assert_usage_error("fit_value", ["--records", str(binary)],
                        "argument --records:", "not UTF-8")


@pytest.mark.parametrize("where", ["directory", "proc", "missing parent"])
def test_fit_value_refuses_an_out_it_cannot_write_before_playing(
    tmp_path: Path, where: str
) -> None:
    out = {"directory": tmp_path, "proc": Path("/proc/rows.jsonl"),
           "missing parent": tmp_path / "no" / "rows.jsonl"}[where]
    err = _assert_usage_error("fit_value", ["--games", "1", "--workers", "1", "--out", str(out)],
                              f"argument --out: cannot write {out}")
    assert "games," not in err  # the progress line: no game was played


@pytest.mark.parametrize("where", ["proc", "file", "under a file"])
def test_bench_report_refuses_a_dir_it_cannot_write(tmp_path: Path, where: str) -> None:
    a_file = tmp_path / "file"
    a_file.write_text("")
    directory = {"proc": Path("/proc/bench"), "file": a_file, "under a file": a_file / "sub"}[where]
    _assert_usage_error("bench_report", ["--dir", str(directory), "--games", "10"],
                        "argument --dir:")


def test_output_paths_are_checked_without_being_changed(tmp_path: Path) -> None:
    kept = tmp_path / "kept.jsonl"
    kept.write_text("earlier rows\n")
    assert args.output_file(str(kept)) == kept and kept.read_text() == "earlier rows\n"
    new = tmp_path / "new.jsonl"
    assert args.output_file(str(new)) == new and not new.exists()
    nested = tmp_path / "a" / "b"
    assert args.output_dir(str(nested)) == nested and not (tmp_path / "a").exists()
    assert args.output_dir(str(tmp_path)) == tmp_path
    for parse, text in ((args.output_file, str(tmp_path)), (args.output_dir, str(kept)),
                        (args.output_dir, str(kept / "sub"))):
        with pytest.raises(argparse.ArgumentTypeError):
            parse(text)


def test_spec_type_and_rule_option_return_what_the_scripts_use() -> None:
    spec = args.bot_spec("mcts:iterations=50")
    assert spec.target == "mcts" and spec.params == {"iterations": 50}
    for text in ("mcts:iterations=x", "nosuch"):
        with pytest.raises(argparse.ArgumentTypeError):
            args.bot_spec(text)
    ap = argparse.ArgumentParser()
    args.add_rule_option(ap)
    assert ap.parse_args(["--rule", "max_rounds=30", "--rule", "cloud_keep=false"]).rule == [
        "max_rounds=30", "cloud_keep=false"]
    assert ap.parse_args([]).rule == []


@pytest.mark.parametrize("script", ["strength", "fit_value", "bench_tournament"])
def test_a_bad_card_file_names_its_option(script: str, tmp_path: Path) -> None:
    bad = tmp_path / "set.json"
    bad.write_text('{"points": {"plot-99": 1}}')
    argv = ["greedy", "random"] if script == "strength" else []
    _assert_usage_error(script, [*argv, "--cards", str(bad)],
                        "argument --cards: card file", "points.plot-99")


def test_strength_plays_with_the_card_file(tmp_path: Path) -> None:
    """The file reaches the games (records carry it) and its Emperor the rule option."""
    cards = tmp_path / "set.json"
    cards.write_text('{"emperor": 4, "points": {"plot-01": 9}}')
    out = tmp_path / "run"
    run = run_script("strength", "random:complete=true", "random", "--games", "2",
                     "--workers", "1", "--rule", "max_rounds=6", "--cards", str(cards),
                     "--out", str(out), timeout=120)
    assert run.returncode == 0, run.stderr
    records = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    assert records and all(r["card_set"]["changes"] == {"emperor": 4, "points": {"plot-01": 9}}
                           for r in records)
    assert all(r["options"]["emperor_points"] == 4 for r in records)
    _assert_usage_error("strength", ["random", "greedy", "--cards", str(cards),
                                     "--rule", "emperor_points=3"], "in one place")
