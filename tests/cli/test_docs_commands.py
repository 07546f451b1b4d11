"""docs/ and the README name only what the program accepts (issue 42): every `ARENA_ENGINE=`
value is an engine, every `arena ...` command shown is a real command with real options (its
values parsed by click where they are not placeholders), and the short ones run.

Commands are taken from code blocks (fenced, or indented four spaces) and inline code; a
line of prose that starts with the word "arena" is not one.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.engine.native import ENGINES

ROOT = Path(__file__).resolve().parents[2]
PAGES = [*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md"]
ENV = r"(?:[A-Z_]+=\S+\s+)*"
#: Commands run for real, in a scratch folder, in the order a page shows them: quick, and
#: needing nothing but files the page's earlier commands wrote.
SHORT = {"rules", "bots", "cards", "position", "legal", "apply", "show", "replay", "play"}


def _commands(page: Path) -> Iterator[tuple[int, str, bool]]:
    """``(line number, command text without "arena", whether in a code block)`` of each
    command a page shows: a block's is a whole command, inline code may name a part."""
    lines = page.read_text(encoding="utf-8").splitlines()
    fenced = False
    pending = ""
    start = 0
    for number, line in enumerate(lines, 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if pending:
            pending += " " + line.strip().rstrip("\\")
            if not line.rstrip().endswith("\\"):
                yield start, pending, True
                pending = ""
            continue
        block = fenced or line.startswith("    ")
        if block:
            found = re.match(rf"\s*(?:\$ )?{ENV}arena (.*)$", line)
            if found:
                if line.rstrip().endswith("\\"):
                    pending, start = found[1].rstrip().rstrip("\\"), number
                    continue
                yield number, found[1], True
            continue
        for inline in re.finditer(rf"`{ENV}arena ([^`]*)`", line):
            yield number, inline[1], False


def _split(text: str) -> list[list[str]]:
    """The command's words, cut at a comment, a pipe, a redirection or a `;`: one list per
    `arena` command on the line (``arena report a; arena report b``)."""
    words = shlex.split(text, comments=True)
    out: list[list[str]] = [[]]
    for word in words:
        if word in (";", "&&"):
            out.append([])
            continue
        if word == "arena" and not out[-1]:
            continue
        out[-1].append(word)
    commands = []
    for words in out:
        for stop in ("|", ">", "2>", "<"):
            if stop in words:
                words = words[:words.index(stop)]
        if words:
            commands.append(words)
    return commands


def _resolve(words: list[str]) -> tuple[click.Command, list[str], list[str]]:
    """The command the words name, its path, and the words left for it."""
    command: click.Command = main
    path: list[str] = []
    rest = list(words)
    while isinstance(command, click.Group):
        while rest and rest[0] == "--debug":
            rest.pop(0)
        if not rest or rest[0].startswith("-") or rest[0] == "...":
            break
        sub = command.get_command(click.Context(command), rest[0])
        assert sub is not None, f"`arena {' '.join(path + rest[:1])}` is not a command"
        command, path = sub, [*path, rest.pop(0)]
    return command, path, rest


def _option_names(command: click.Command) -> set[str]:
    names: set[str] = set()
    for param in command.params:
        names.update(param.opts)
        names.update(param.secondary_opts)
    return names | {"-h", "--help"}


def _shown() -> list[tuple[str, int, list[str], bool]]:
    shown = []
    for page in PAGES:
        for number, text, block in _commands(page):
            try:
                commands = _split(text)
            except ValueError:  # an unclosed quote in prose-like inline code
                commands = [text.split()]
            for words in commands:
                shown.append((page.name, number, words, block))
    return shown


SHOWN = _shown()


def test_the_pages_show_commands_at_all() -> None:
    # The extraction itself can fail: the README's quick start must be found.
    readme = [words for page, _n, words, _b in SHOWN if page == "README.md"]
    assert ["rules"] in readme and len(SHOWN) > 100


def test_every_arena_engine_value_in_the_docs_is_an_engine() -> None:
    for page in PAGES:
        for value in re.findall(r"ARENA_ENGINE=(\w+)", page.read_text(encoding="utf-8")):
            assert value in ENGINES, f"{page.name}: ARENA_ENGINE={value} (engines: {ENGINES})"


@pytest.mark.parametrize(("page", "number", "words", "block"), SHOWN,
                         ids=[f"{p}:{n}" for p, n, _w, _b in SHOWN])
def test_every_command_shown_is_a_real_command(page: str, number: int, words: list[str],
                                               block: bool, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    # Parsed in a scratch folder: the files a reader's tour left in the checkout (a
    # game.json that --record would refuse to replace) must not decide the test (issue 52).
    monkeypatch.chdir(tmp_path)
    command, path, rest = _resolve(words)
    known = _option_names(command)
    for word in rest:
        if word.startswith("-") and len(word) > 1 and not re.match(r"-\d", word):
            name = word.split("=", 1)[0]
            assert name in known, f"{page}:{number}: `arena {' '.join(path)}` has no {name}"
    concrete = not any(w == "..." or re.fullmatch(r"[A-Z][A-Z0-9_]*\d?|\S*\[.*", w)
                       or w.endswith("...") for w in rest)
    if block and concrete:
        # click parses the values too (types, choices, ranges), without running anything;
        # only the files a page's earlier commands would have written are missing here
        try:
            command.make_context(" ".join(["arena", *path]), list(rest))
        except click.exceptions.Exit:
            pass
        except click.BadParameter as exc:
            assert "does not exist" in exc.message, f"{page}:{number}: {exc.format_message()}"


@pytest.mark.parametrize("page", [p for p in PAGES if p.name in ("README.md", "viewing.md")],
                         ids=lambda p: p.name)
def test_the_short_commands_of_a_page_run(page: Path, tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NO_COLOR", "1")
    # the example engines a page names by their path from the repository's root
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    ran = 0
    for number, text, block in _commands(page):
        if not block:
            continue
        redirect = re.search(r">\s*(\S+)\s*(?:#.*)?$", text)
        for words in _split(text):
            _command, path, rest = _resolve(words)
            if not path or path[0] not in SHORT or "human" in rest:
                continue
            if any(w.isupper() or "..." in w or "mypkg" in w or "mybots" in w for w in rest):
                continue
            # a command that reads another command's file (a position, a record, a run)
            # runs when the page made that file first
            if path[0] in ("legal", "apply", "show", "replay") and not (
                    rest and Path(rest[0]).exists()):
                continue
            args = [*path, *rest]
            if "play" in path:
                args += ["--rule", "max_rounds=3", "-q"]
            if any(w in rest for w in ("--record", "--template", "--html", "--svg", "--png")):
                args.append("--force")
            if "--png" in rest:
                continue  # needs a browser: tests/sight covers it
            result = CliRunner().invoke(main, args)
            assert result.exit_code == 0, f"{page.name}:{number}: arena {' '.join(args)}\n" \
                                          f"{result.output}"
            if redirect:
                Path(redirect[1]).write_text(result.stdout)
            ran += 1
    assert ran >= 5
