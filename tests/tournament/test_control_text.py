"""Text a bot controls reaches no terminal, log or record with a control character in it
(issue 50): its exception messages and the ``repr`` of what it returned are escaped by one
function (``arena.play.faults.printable``), in the bot's jail and in the worker's process alike."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.engine.components import DEFAULT_CARD_SET
from arena.play.faults import describe_exception, printable, returned_text, shown_path

from .conftest import FAST, read_records, run_cli
from .escape_bots import FAKE

pytestmark = pytest.mark.timeout(180, method="thread")

ESCAPES = "tests.tournament.escape_bots."


def test_printable_escapes_controls_and_keeps_printable_unicode() -> None:
    assert printable("a\x1b[2J\x9b\x00\x7f\u202e\r\n\tb é 竹") == (
        "a\\x1b[2J\\x9b\\x00\\x7f\\u202e\\x0d\\x0a\\x09b é 竹")
    assert printable("line\n\tnext\x1b", lines=True) == "line\n\tnext\\x1b"


def test_an_exception_and_a_repr_are_told_escaped() -> None:
    try:
        raise RuntimeError(FAKE)
    except RuntimeError as exc:
        told = describe_exception(exc)
    assert told.startswith("RuntimeError: \\x1b[2J\\x1b[H\\x9b31mStandings") and "\x1b" not in told
    shown = returned_text(type("Screen", (), {"__repr__": lambda self: FAKE})(), DEFAULT_CARD_SET)
    assert shown.startswith("\\x1b[2J") and all(c.isprintable() for c in shown)


@pytest.mark.parametrize("isolate", ["none", "untrusted"])
@pytest.mark.parametrize("bot", ["Clearing", "ClearingRepr"])
def test_a_bots_escapes_reach_no_output_log_or_record(
        tmp_path: Path, bot: str, isolate: str) -> None:
    out = tmp_path / "run"
    result = run_cli(["--bot", f"{ESCAPES}{bot}:name=X", "--bot", "random:name=A",
                      "--games", "2", "--seed", "3", "--workers", "1", "--out", str(out),
                      "--isolate", isolate, "--verbose", *FAST])
    assert result.exit_code == 0, result.output
    log = (out / "arena.log").read_text()
    messages = [r["error"]["message"] for r in read_records(out)]
    assert len(messages) == 2 and all("Standings after 6" in m for m in messages)
    for text in (result.output, log, *messages):
        assert "\x1b" not in text and "\x9b" not in text and "\u202e" not in text
        assert "\r" not in text and "\nFAKE line" not in text
    assert "\\x1b[2J" in messages[0]


def test_where_a_bot_raised_is_told_without_the_machines_folders(tmp_path: Path) -> None:
    """A record is shared and compared byte for byte: the bot's file is named relative to the
    run's directory or its import root, never by an absolute path."""
    source = tmp_path / "deep" / "mine.py"
    source.parent.mkdir()
    source.write_text("def boom():\n    raise ValueError('no')\n")
    code = compile(source.read_text(), str(source), "exec")
    space: dict[str, object] = {}
    exec(code, space)
    try:
        space["boom"]()  # type: ignore[operator]
    except ValueError as exc:
        told = describe_exception(exc)
    assert told == "ValueError: no (at mine.py:2)", told
    try:
        raise KeyError("k")
    except KeyError as exc:
        told = describe_exception(exc)
    # The suite runs from the checkout's root: this file by its path in the checkout.
    assert " (at tests/tournament/test_control_text.py:" in told, told


def test_a_bot_running_in_the_filesystem_root_is_not_told_by_its_absolute_path(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A jailed bot runs in "/": its file relative to "/" would be the absolute path."""
    monkeypatch.chdir("/")
    assert shown_path(str(tmp_path / "deep" / "mine.py")) == "mine.py"
