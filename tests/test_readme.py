"""The README runs as written: its set-up commands are CI's, and its command and code blocks,
run in order in a fresh directory as a user would, succeed.

The ``sh`` blocks are run by bash with ``set -e`` (a failing command fails the test, a
pipe's too), the ``python`` blocks by the interpreter, in the same directory so that a block
can read what an earlier one wrote (``runs/t1``); the "Writing a bot" block is saved as
``mybots.py`` first, as the README tells the reader to.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
SETUP = "python -m venv .venv && . .venv/bin/activate && python -m pip install -e '.[test]'"


def blocks(text: str) -> list[tuple[str, str]]:
    """The fenced blocks of a Markdown text: (language, code), in order."""
    return [(m[1], m[2]) for m in re.finditer(r"^```(\w*)\n(.*?)^```$", text, re.M | re.S)]


def setup_commands(text: str) -> list[str]:
    """The indented one-line commands of the README's top (set up and play, and tests)."""
    return re.findall(r"^    (python -m venv .*)$", text, re.M)


def test_the_readme_is_a_short_guide() -> None:
    assert len(README.encode()) <= 10_500
    for name in ("rules", "notation", "bots", "tournaments", "reports", "experiments"):
        assert f"(docs/{name}.md)" in README
        assert (ROOT / "docs" / f"{name}.md").is_file(), name


def test_the_setup_commands_are_what_ci_runs() -> None:
    """CI (``.ci/run``) runs the README's test command from nothing; the first command is
    the same set-up followed by a short tournament, which the next test plays."""
    play, tests = setup_commands(README)
    ci = (ROOT / ".ci" / "run").read_text()
    assert tests in ci.splitlines()
    assert tests == f"{SETUP} && python -m pytest -n 2"
    assert play.startswith(f"{SETUP} && arena tournament ")


def _env(tmp: Path) -> dict[str, str]:
    bin_dir = str(Path(sys.executable).parent)
    return {**os.environ, "PATH": bin_dir + os.pathsep + os.environ.get("PATH", ""),
            "PYTHONPATH": str(tmp), "NO_COLOR": "1", "MPLBACKEND": "Agg"}


@pytest.mark.timeout(900)
def test_every_command_and_code_block_runs(tmp_path: Path) -> None:
    """As a user would, from a directory that has the repository's scripts (the README says
    to run from the repository's root; a copy of the root keeps the test's files apart)."""
    (tmp_path / "scripts").symlink_to(ROOT / "scripts")
    (tmp_path / ".ci").symlink_to(ROOT / ".ci")
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    play, _ = setup_commands(README)
    commands = [("sh", play.removeprefix(f"{SETUP} && "))]
    bot = README[README.index("## Writing a bot"):]
    (tmp_path / "mybots.py").write_text(blocks(bot)[0][1])
    commands += [(lang, code) for lang, code in blocks(README) if lang in ("sh", "python")]
    assert sum(lang == "sh" for lang, _ in commands) >= 6
    for lang, code in commands:
        if lang == "sh":
            args = ["bash", "-e", "-o", "pipefail", "-c", code]
        else:
            args = [sys.executable, "-c", code]
        proc = subprocess.run(args, cwd=tmp_path, env=_env(tmp_path), capture_output=True,
                              text=True, timeout=600)
        assert proc.returncode == 0, f"{code}\n--- stdout\n{proc.stdout[-2000:]}\n--- " \
                                     f"stderr\n{proc.stderr[-2000:]}"
        assert "Traceback" not in proc.stderr, code
        if code == commands[0][1]:
            # The first thing a user sees: who is best, by how much, how sure.
            assert "Standings after 30 of 30 games (complete)" in proc.stdout, proc.stdout
            assert "95% CI" in proc.stdout and "objective" in proc.stdout
    # What the tour says it leaves behind is there.
    assert (tmp_path / "runs" / "t1" / "report" / "report.html").is_file()
    assert (tmp_path / "runs" / "compare").is_dir()
    assert (tmp_path / "next.json").read_text().startswith("{")
    # docs/reports.md's Python block reads the tour's tournament.
    for lang, code in blocks((ROOT / "docs" / "reports.md").read_text(encoding="utf-8")):
        if lang == "python":
            proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path,
                                  env=_env(tmp_path), capture_output=True, text=True,
                                  timeout=300)
            assert proc.returncode == 0, proc.stderr[-2000:]


def test_the_notation_docs_example_is_a_valid_position() -> None:
    from arena.engine import from_position

    text = (ROOT / "docs" / "notation.md").read_text(encoding="utf-8")
    (example,) = [code for lang, code in blocks(text) if lang == "json"]
    state = from_position(json.loads(example))
    assert state.players == 2 and state.legal_actions()


def test_the_rules_docs_option_table_is_the_option_table() -> None:
    """docs/rules.md's option table is the one ``scripts/rules_table.py`` makes from
    options.json, row for row (``--write`` rebuilds it)."""
    from tests.scripts import load_script

    script = load_script("rules_table")
    lines = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8").split("\n")
    start, end = script.table_span(lines)
    assert lines[start:end] == script.markdown_table()


def test_the_bots_docs_observe_example_sees_the_opponents_pandas() -> None:
    """docs/bots.md's ``Watcher`` is told Events and finds the cells of the other seat's
    panda moves in them."""
    import random

    from arena.engine import RuleOptions
    from arena.engine.actions import A_MASK, A_SHIFT, KIND_MASK, PANDA
    from arena.engine.history import MOVE
    from arena.play.match import play_game
    from bots.random_bot import RandomBot

    text = (ROOT / "docs" / "bots.md").read_text(encoding="utf-8")
    (code,) = [code for lang, code in blocks(text) if lang == "python"]
    namespace: dict[str, object] = {}
    exec(code, namespace)
    watcher = namespace["Watcher"](random.Random(1))  # type: ignore[operator]
    out = play_game([watcher, RandomBot(random.Random(2))], 3, RuleOptions(max_rounds=12))
    pandas = {e[3] >> A_SHIFT & A_MASK for e in out.state.history or ()
              if e[0] == MOVE and e[2] == 1 and e[3] & KIND_MASK == PANDA}
    assert pandas and watcher.eaten_at == pandas


def _written(code: str) -> set[str]:
    """The files and folders a block's commands write: ``--out``, ``--record``, ``--template``,
    ``--svg``, ``--html`` values and ``>`` redirections, by their first path part (a folder
    with its ``/``)."""
    found = re.findall(r"(?:--(?:out|record|template|svg|html)\s+|>\s*)([\w.\-/]+)", code)
    return {name.split("/")[0] + ("/" if "/" in name else "") for name in found}


def test_what_the_tour_writes_is_ignored_by_git() -> None:
    """After a reader's tour the checkout stays clean (issue 52): every file the README's
    blocks write in the repository's root is git-ignored, so that ``git status`` shows only
    the reader's own work and nothing of the tour can be committed by mistake."""
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    written = set()
    for lang, code in blocks(README):
        if lang == "sh":
            written |= _written(code)
    assert {"game.json", "start.json", "runs/"} <= written
    proc = subprocess.run(["git", "check-ignore", "--no-index", *sorted(written)], cwd=ROOT,
                          capture_output=True, text=True)
    ignored = set(proc.stdout.split())
    assert written <= ignored, f"not git-ignored: {sorted(written - ignored)}"
