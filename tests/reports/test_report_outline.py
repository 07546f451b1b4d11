"""The shape of the reports, against a golden file: which files, which CSV columns, which
sections with which tables and charts, in which order.

The golden (``golden/report_outline.json``) was written by the report code as it stood before
its sections became a registry, and is only rewritten on purpose, so a refactoring that
renames a CSV, drops a column, moves a table to another section or loses a chart fails here.
The figures themselves are not in it (the other report tests check those by hand): a change
of method should not have to touch this file, a change of shape should.

To rewrite it after a deliberate change of shape::

    ARENA_UPDATE_GOLDEN=1 python -m pytest tests/reports/test_report_outline.py

(the run then fails, saying so, so that an update never passes for a check).
"""

from __future__ import annotations

import csv
import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

import reports
import reports.report
from reports import sections, synthetic
from tests.reports.report_helpers import duel, write_run

GOLDEN = Path(__file__).parent / "golden" / "report_outline.json"
REPLICATES = 50


def outline(folder: Path) -> dict[str, Any]:
    """What a report folder holds, without its figures: file names, each CSV's header, the
    Markdown's headings, table captions and charts, and the same read back from the HTML."""
    files = sorted(p.name for p in folder.iterdir())
    headers = {}
    for name in files:
        if name.endswith(".csv"):
            with (folder / name).open(newline="", encoding="utf-8") as fh:
                headers[name] = next(csv.reader(fh), [])
    md = (folder / "report.md").read_text(encoding="utf-8").splitlines()
    markdown = [line for line in md
                if line.startswith(("# ", "## ", "![")) or re.match(r"\*\*.+\*\* \(`", line)]
    page = (folder / "report.html").read_text(encoding="utf-8")
    html = re.findall(r"<h2 id=\"s\d+\">([^<]*)</h2>"
                      r"|<p><strong>([^<]*)</strong> <span class=\"caption\">\(([^)]*)\)"
                      r"|<img alt=\"([^\"]*)\"", page)
    return {"files": files, "csv": headers, "markdown": markdown,
            "html": [" | ".join(part for part in m if part) for m in html]}


def build(tmp: Path) -> dict[str, Any]:
    """The reports of a few small fixed tournaments: a 2-player duel, a 4-player run with
    errors, an empty run, and a comparison of three runs (one paired with the baseline, one
    that cannot be)."""
    base = duel(tmp / "base")
    redraw = duel(tmp / "redraw-all")
    manifest = json.loads((redraw / "manifest.json").read_text())
    manifest["options"]["redraw_satisfied"] = "all"
    (redraw / "manifest.json").write_text(json.dumps(manifest))
    four = synthetic.write_tournament(tmp / "four", participants=["w", "x", "y", "z", "v"],
                                      players=4, games=120, seed=3, error_rate=0.05)
    other = synthetic.write_tournament(tmp / "other", participants=["A", "B"], players=2,
                                       games=60, seed=5)
    empty = write_run(tmp / "empty", [], ["A", "B"])
    return {
        "duel": outline(reports.write_report([base], replicates=REPLICATES)),
        "four": outline(reports.write_report([four], replicates=REPLICATES)),
        "empty": outline(reports.write_report([empty], replicates=REPLICATES)),
        "compare": outline(reports.write_report([base, redraw, other], replicates=REPLICATES)),
    }


def test_the_reports_keep_their_shape(tmp_path: Path) -> None:
    found = build(tmp_path)
    if os.environ.get("ARENA_UPDATE_GOLDEN"):
        GOLDEN.parent.mkdir(exist_ok=True)
        GOLDEN.write_text(json.dumps(found, indent=1, ensure_ascii=False) + "\n",
                          encoding="utf-8")
        pytest.fail(f"{GOLDEN} rewritten; unset ARENA_UPDATE_GOLDEN and run again")
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))
    assert set(found) == set(golden)
    for case in golden:
        for part in ("files", "csv", "markdown", "html"):
            assert found[case][part] == golden[case][part], (case, part)
    # ``reports.FILES`` names exactly the files of a one-tournament report, no more;
    # ``COMPARE_FILES`` those of a comparison but the paired sections', named after the runs.
    assert sorted(reports.FILES) == found["duel"]["files"] == found["empty"]["files"]
    paired = ["paired_cards_redraw-all.csv", "paired_win_rates_redraw-all.csv"]
    assert sorted([*reports.COMPARE_FILES, *paired]) == found["compare"]["files"]


def test_no_two_sections_write_one_file() -> None:
    """A name is a section's own: a second section writing ``cards.csv`` would overwrite the
    first's without a word."""
    assert len({s.name for s in sections.SECTIONS}) == len(sections.SECTIONS)
    for kind in ("report", "compare"):
        names = [n for _, form in sections.forms(kind) for n in form.files()]
        assert len(names) == len(set(names)), kind
        assert not set(names) & set(reports.report.DOCUMENT_FILES), kind


def test_each_result_is_computed_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Sections share results through ``Run.get`` (the standings use the ratings, the
    head-to-head the pairwise results): the bootstraps run once per run, not once per
    section that reads them."""
    calls: dict[str, int] = {}

    def counted(name: str) -> None:
        real = getattr(reports.tables, name)

        def wrapper(*args: Any, **kwargs: Any) -> Any:
            calls[name] = calls.get(name, 0) + 1
            return real(*args, **kwargs)
        monkeypatch.setattr(reports.tables, name, wrapper)

    for name in ("pairwise", "ratings", "standings", "card_balance", "game_shape"):
        counted(name)
    base, other = duel(tmp_path / "base"), duel(tmp_path / "other")
    reports.write_report([base], replicates=REPLICATES)
    assert calls == dict.fromkeys(calls, 1) and len(calls) == 5
    calls.clear()
    reports.write_report([base, other], replicates=REPLICATES)
    assert calls == dict.fromkeys(calls, 2) and len(calls) == 5
