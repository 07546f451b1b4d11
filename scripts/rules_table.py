"""The rule-option table of docs/rules.md, made from the option table (options.json).

Prints the Markdown table of the rule options (name, default, values, rule IDs, what each
changes) from ``arena/data/options.json``; ``--write`` puts it in place of the table
in ``docs/rules.md``.  tests/test_readme.py holds the two equal, so a new or changed option
is one edit of the JSON file and one run of this script.
"""

from __future__ import annotations

import sys
from pathlib import Path

from _args import script_parser

from arena.engine.options import OPTIONS

DOC = Path(__file__).resolve().parents[1] / "docs" / "rules.md"
HEADER = "| option | default | values | rule | what it changes |"


def markdown_table() -> list[str]:
    """The table's lines, header first."""
    lines = [HEADER, "| --- | --- | --- | --- | --- |"]
    for spec in OPTIONS:
        cells = (f"`{spec.name}`", f"`{spec.text(spec.default)}`", spec.values_text("`{}`"),
                 ", ".join(spec.rules) or "—", spec.help)
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def table_span(lines: list[str]) -> tuple[int, int]:
    """Where the option table stands in the doc's lines: [start, end)."""
    starts = [i for i, line in enumerate(lines) if line.startswith("| option | default |")]
    if len(starts) != 1:
        raise SystemExit(f"{DOC}: expected one option table, found {len(starts)}")
    end = starts[0]
    while end < len(lines) and lines[end].startswith("|"):
        end += 1
    return starts[0], end


def main() -> None:
    parser = script_parser(
        __doc__,
        "python scripts/rules_table.py",
        "python scripts/rules_table.py --write",
    )
    parser.add_argument("--write", action="store_true",
                        help="replace the table in docs/rules.md instead of printing it")
    args = parser.parse_args()
    table = markdown_table()
    if not args.write:
        sys.stdout.write("\n".join(table) + "\n")
        return
    lines = DOC.read_text(encoding="utf-8").split("\n")
    start, end = table_span(lines)
    lines[start:end] = table
    DOC.write_text("\n".join(lines), encoding="utf-8")
    print(f"{DOC}: the option table now has {len(OPTIONS)} rows")


if __name__ == "__main__":
    main()
