"""No function over 80 lines in the arena's Python (arena/, bots/, reports/) and its Rust
core and module (arena/native/core/src, arena/native/py/src).

A long function is one a reader must hold whole to change a line of; the project keeps
each under ``LIMIT`` lines.  ``ALLOWED`` names those still being shortened, with their
length now: one may not grow, and one that is gone or short must leave the list, so the
list only shrinks.  Python is measured by ``ast`` (the ``def`` line to the last line of the
body, docstring included); Rust by a scan of each ``fn`` item's braces, with comments,
strings and char literals blanked first, ``#[cfg(test)]`` modules and ``tests/`` folders
left out (tests are not held to it).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LIMIT = 80
PYTHON = ("arena", "bots", "reports")
RUST = ("arena/native/core/src", "arena/native/py/src")

#: Functions still over the limit, by "path::name" (Python: the qualified name), with
#: their length in lines today.  Remove an entry when its function is shortened.
ALLOWED: dict[str, int] = {
}


def python_functions(path: Path, text: str | None = None) -> Iterator[tuple[str, int]]:
    """Each function of a Python file as (qualified name, lines)."""
    tree = ast.parse(path.read_text(encoding="utf-8") if text is None else text)

    def walk(node: ast.AST, prefix: str) -> Iterator[tuple[str, int]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = prefix + child.name
                yield name, child.end_lineno - child.lineno + 1  # type: ignore[operator]
                yield from walk(child, name + ".")
            elif isinstance(child, ast.ClassDef):
                yield from walk(child, prefix + child.name + ".")
            else:
                yield from walk(child, prefix)

    yield from walk(tree, "")


def _blanked(text: str) -> str:
    """Rust source with comments, string and char literals as spaces (newlines kept), so
    that the braces left are the code's own."""
    out: list[str] = []
    i, n = 0, len(text)

    def blank(j: int) -> int:
        out.append(re.sub(r"[^\n]", " ", text[i:j]))
        return j

    while i < n:
        c, two = text[i], text[i:i + 2]
        ident_before = i > 0 and (text[i - 1].isalnum() or text[i - 1] == "_")
        raw = re.match(r'b?r(#*)"', text[i:i + 300]) if c in "rb" and not ident_before \
            else None
        if two == "//":
            j = text.find("\n", i)
            i = blank(n if j < 0 else j)
        elif two == "/*":
            depth, j = 1, i + 2
            while j < n and depth:
                step = text[j:j + 2]
                depth += (step == "/*") - (step == "*/")
                j += 2 if step in ("/*", "*/") else 1
            i = blank(j)
        elif raw:
            end = text.find('"' + raw.group(1), i + raw.end())
            i = blank(n if end < 0 else end + 1 + len(raw.group(1)))
        elif c == '"' or (two == 'b"' and not ident_before):
            j = i + (2 if c == "b" else 1)
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            i = blank(j + 1)
        elif c == "'" and text[i + 1:i + 2] == "\\":
            i = blank(text.find("'", i + 3) + 1)
        elif c == "'" and text[i + 2:i + 3] == "'":
            i = blank(i + 3)
        else:  # code, or a lifetime's quote
            out.append(c)
            i += 1
    return "".join(out)


def _closing(text: str, at: int) -> int:
    """The index of the brace that closes the one at ``at``."""
    depth = 0
    for j in range(at, len(text)):
        depth += (text[j] == "{") - (text[j] == "}")
        if depth == 0:
            return j
    raise AssertionError("unbalanced braces")


_FN = re.compile(r"\bfn\s+([A-Za-z_]\w*)")
_TEST_MODULE = re.compile(r"#\[cfg\(test\)\]\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+\w+\s*\{")


def rust_functions(text: str) -> Iterator[tuple[str, int]]:
    """Each ``fn`` item with a body as (name, lines), outside ``#[cfg(test)]`` modules.
    The body is the first brace after the parameters at bracket depth 0 (a parameter
    ``[f32; N]`` holds a semicolon); a declaration ends at ``;`` and has none."""
    code = _blanked(text)
    tests = [(m.start(), _closing(code, m.end() - 1)) for m in _TEST_MODULE.finditer(code)]
    for m in _FN.finditer(code):
        if any(a <= m.start() <= b for a, b in tests):
            continue
        j, depth = m.end(), 0
        while j < len(code) and (depth or code[j] not in "{;"):
            depth += (code[j] in "([") - (code[j] in ")]")
            j += 1
        if j < len(code) and code[j] == "{":
            end = _closing(code, j)
            yield m.group(1), code.count("\n", m.start(), end) + 1


@cache
def lengths() -> dict[str, int]:
    """Every function's length by "path::name" (a name met twice in a file: the longer)."""
    found: dict[str, int] = {}

    def add(path: Path, name: str, lines: int) -> None:
        key = f"{path.relative_to(ROOT).as_posix()}::{name}"
        found[key] = max(found.get(key, 0), lines)

    for package in PYTHON:
        for path in sorted((ROOT / package).rglob("*.py")):
            for name, lines in python_functions(path):
                add(path, name, lines)
    for folder in RUST:
        for path in sorted((ROOT / folder).rglob("*.rs")):
            if "tests" in path.relative_to(ROOT / folder).parts:
                continue
            for name, lines in rust_functions(path.read_text(encoding="utf-8")):
                add(path, name, lines)
    return found


def test_no_function_is_over_the_limit_but_the_allowed_ones_and_none_grows() -> None:
    found = lengths()
    long = {key: n for key, n in found.items() if n > LIMIT}
    new = sorted(f"{key} ({n} lines)" for key, n in long.items() if key not in ALLOWED)
    assert not new, f"over {LIMIT} lines: {', '.join(new)}; split them"
    grown = sorted(f"{key} ({long[key]} lines, allowed {n})" for key, n in ALLOWED.items()
                   if key in long and long[key] > n)
    assert not grown, f"an allowed long function grew: {', '.join(grown)}"


def test_the_allowed_list_only_shrinks() -> None:
    found = lengths()
    gone = sorted(key for key in ALLOWED if key not in found)
    assert not gone, f"no longer there (remove from ALLOWED): {', '.join(gone)}"
    short = sorted(f"{key} ({found[key]} lines)" for key in ALLOWED
                   if key in found and found[key] <= LIMIT)
    assert not short, f"now {LIMIT} lines or fewer (remove from ALLOWED): {', '.join(short)}"


def test_the_rust_scan_reads_braces_of_code_only() -> None:
    source = '''
/// fn not_a_function() { in a doc comment }
pub fn outer(out: &mut [f32; 4], s: &str) -> usize {
    let a = "}}} fn fake() {";
    let b = r#"{ "quoted" }"#;
    let c = '{';
    let d = '\\'';
    fn inner<'a>(x: &'a str) -> &'a str {
        x
    }
    /* { nested /* } */ } */
    a.len() + b.len() + inner(s).len()
}

trait T {
    fn declared(&self) -> u8;
}

#[cfg(test)]
mod tests {
    fn helper() {}
}
'''
    assert dict(rust_functions(source)) == {"outer": 11, "inner": 3}


def test_python_functions_are_named_with_their_class() -> None:
    source = "class A:\n    def f(self):\n        def g():\n            pass\n        return g\n"
    assert dict(python_functions(Path("x.py"), source)) == {"A.f": 4, "A.f.g": 2}
