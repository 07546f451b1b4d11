"""The reports as files: :func:`write_report`, the entry point of ``arena report``.

``analyse`` (one tournament) and ``compare`` (several) are loops over the registry of
sections (``sections.py``), and the file list is read from it, so the two kinds of report
and the list cannot drift apart.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from . import experiment, sections, tables
from .compare import comparison_problem
from .loader import ReportError, Tables
from .render import Part, write_document
from .sections import SECTIONS, Run, Runs

REPORT_DIR = "report"
COMPARE_DIR = "report-compare"
#: The files of every report besides its sections' CSV files and charts.
DOCUMENT_FILES = ("report.md", "report.html", "summary.txt")
#: Every file a one-tournament report writes.
FILES = DOCUMENT_FILES + sections.files("report")
#: Every file a comparison writes, but the paired sections', which are named after the runs
#: (``paired_win_rates_RUN.csv``, ``paired_cards_RUN.csv`` per run paired with the first).
COMPARE_FILES = DOCUMENT_FILES + sections.files("compare")


def analyse(t: Tables, out: Path, replicates: int = tables.REPLICATES) -> list[Part]:
    """Every part of a one-tournament report, section by section, after its headline (who is
    best, by how much, how sure); charts are written into ``out``, and ``summary.txt``, the
    headline and the standings the command line prints."""
    out.mkdir(parents=True, exist_ok=True)
    run = Run(t, replicates)
    made = [p for s in SECTIONS for p in s.parts("report", run, out)]
    lines = [*t.provenance, *sections.headline(run)]  # who signed it comes first
    if sections.is_study(run):
        # A study's standings are a level against its copies: the headline is its summary.
        summary = "\n".join(lines)
    else:
        summary = "\n".join([*lines, "", tables.summary_text(
            sections.guarded(run, sections.standings)["standings"])])
    (out / "summary.txt").write_text(summary + "\n", encoding="utf-8")
    return [Part("Headline", "\n".join(f"- {line}" for line in lines if line), lead=True),
            *made]


def compare(
    runs: Sequence[Tables], out: Path, replicates: int = tables.REPLICATES
) -> list[Part]:
    """Every part of a comparison of runs, section by section, after its headline; charts
    are written into ``out``, and ``summary.txt``, the headline and each run's standings."""
    out.mkdir(parents=True, exist_ok=True)
    context = Runs(runs, replicates)
    made = [p for s in SECTIONS for p in s.parts("compare", context, out)]
    # Who signed each run comes first, as in a one-run report.
    lines = [*(f"{t.label}: {line}" for t in runs for line in t.provenance),
             *sections.compare_headline(context)]
    summary = "\n".join(lines) + "\n\n" + "\n\n".join(
        f"{lab}\n{tables.summary_text(r['standings'])}"
        for lab, r in zip(context.labels,
                          [sections.guarded(r, sections.standings) for r in context.runs],
                          strict=True))
    (out / "summary.txt").write_text(summary + "\n", encoding="utf-8")
    return [Part("Headline", "\n".join(f"- {line}" for line in lines), lead=True), *made]


#: Files that make a folder a run's (a tournament's or a study's): a report written there
#: would mix its files with another run's records.
RUN_FILES = ("manifest.json", "games.jsonl")


def writable(folder: Path) -> Path:
    """The report's folder, made now: a folder that cannot be written, or that is a run's own
    folder (``--out runs/base`` for the report of ``runs/t1``), is said before the analysis
    (minutes on a big tournament) rather than after it."""
    held = [name for name in RUN_FILES if (folder / name).exists()]
    if held:
        raise ReportError(f"--out {folder} is a run's folder (it holds {held[0]}): give a "
                          "folder of its own for the report, such as "
                          f"{folder / REPORT_DIR}.")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ReportError(f"cannot write the report to {folder}: {exc.strerror or exc}") from None
    if not os.access(folder, os.W_OK):
        raise ReportError(f"cannot write the report to {folder}: not writable")
    return folder


def write_report(
    dirs: Sequence[str | Path | Tables], out: str | Path | None = None, strict: bool = True,
    replicates: int = tables.REPLICATES,
) -> Path:
    """Write the report of one tournament, or the comparison of several; return its folder.

    One directory: ``DIR/report/`` by default.  Several: a comparison of the runs side by
    side (the first is the baseline every difference is taken from), in
    ``FIRST_DIR/report-compare/`` by default.  Besides ``report.md``, ``report.html``, CSV
    files and PNG charts, the folder holds ``summary.txt``, the short standings the command
    line prints.  Bad input raises :class:`ReportError`; see ``load`` for ``strict``.
    An item of ``dirs`` may also be :class:`Tables` already loaded (from a notebook, or to
    time loading apart); its ``source`` directory then stands for it.
    """
    if not dirs:
        raise ReportError("No tournament directory given.")
    # A card study's rows are gathered in the same read (its section needs them).
    loaded = [d if isinstance(d, Tables) else experiment.load_tables(d, strict=strict)
              for d in dirs]
    for other in loaded[1:]:
        problem = comparison_problem(loaded[0], other)
        if problem:
            raise ReportError(problem)
    paths = [t.source for t in loaded]
    if len(loaded) == 1:
        t = loaded[0]
        target = writable(Path(out) if out is not None else paths[0] / REPORT_DIR)
        parts = analyse(t, target, replicates)
        kind = "Card study" if sections.is_study(Run(t, replicates)) else "Tournament"
        return write_document(f"{kind} report: {t.label}", parts, target)
    target = writable(Path(out) if out is not None else paths[0] / COMPARE_DIR)
    parts = compare(loaded, target, replicates)
    labels = ", ".join(t.label for t in loaded)
    return write_document(f"Comparison of tournaments: {labels}", parts, target)
