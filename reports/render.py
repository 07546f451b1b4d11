"""Writing a report: CSV per table, Markdown, and an HTML file with its charts embedded.

A report is a list of :class:`Part` objects, made by the sections of ``sections.py`` for one
tournament or for a comparison of several; this module only turns them into files, so the two
kinds of report look alike and the statistics never depend on presentation.  CSV files keep
every column at full precision (an interval is two columns, ``x_lo`` and ``x_hi``); Markdown
and HTML show ``x [lo, hi]`` rounded for reading.  The HTML has no external reference
(images are base64 ``data:`` URIs, the style sheet is inline), so it can be mailed or archived
as one file.
"""

from __future__ import annotations

import base64
import html
import math
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pandas as pd

MAX_ROWS = 60


@dataclass
class Table:
    """One table of a section: its CSV file stem, a caption, and the data."""

    stem: str
    caption: str
    frame: pd.DataFrame
    max_rows: int = MAX_ROWS
    #: The columns shown on the page (None: all); see ``sections.Csv.shown``.
    shown: tuple[str, ...] | None = None

    def page_frame(self) -> pd.DataFrame:
        """The frame with only its shown columns and those that go with them (an interval's
        bounds, a figure's games needed)."""
        if self.shown is None:
            return self.frame
        # A shown name ending in "*" is a prefix: columns named per level or per run
        # (``effect[greedy]``), with their intervals' bounds.
        prefixes = tuple(s[:-1] for s in self.shown if s.endswith("*"))
        keep = [c for c in self.frame.columns
                if c in self.shown or (prefixes and str(c).startswith(prefixes))
                or any(c in (f"{s}_lo", f"{s}_hi", f"{s}_games_needed",
                             f"{s}_clipped") for s in self.shown)]
        # A study of one skill level: its level column says nothing on the page (the CSV
        # keeps it), and the columns that do speak fit an 800 px page without it.
        if "level" in keep and self.frame["level"].nunique() <= 1 and len(keep) > 2:
            keep.remove("level")
        return self.frame[keep]


@dataclass
class Part:
    """A titled part of the report: explanation, tables and charts (PNG files in the output)."""

    title: str
    text: str = ""
    tables: list[Table] = field(default_factory=list)
    charts: list[tuple[str, str]] = field(default_factory=list)
    #: A lead part (the headline) is shown first, before the contents, unnumbered.
    lead: bool = False


def _unsigned_zero(text: str) -> str:
    """A formatted number that rounds to zero reads without a sign ("-0.000" is "0.000")."""
    if text.startswith(("-", "+")) and not text.strip("+-0.").strip():
        return text[1:]
    return text


def signed(value: float, digits: int = 0) -> str:
    """``+12``, ``-3``, ``0``: a difference with its sign, never "-0" or "+0"."""
    return _unsigned_zero(f"{value:+.{digits}f}")


#: Below this a float is arithmetic noise (5.6e-17 where 0 was meant), shown as 0.
NOISE = 1e-12


def fmt(value: object) -> str:
    """A number as a reader wants it: integers whole, rates to 3 decimals, NaN as a dash,
    arithmetic noise as 0 and never a "-0"."""
    if value is None:
        return "–"
    if isinstance(value, bool | np.bool_):
        return "yes" if value else ""
    if isinstance(value, int | np.integer):
        return str(int(value))
    if isinstance(value, float | np.floating):
        v = float(value)
        if math.isnan(v):
            return "–"
        if math.isinf(v):
            return "∞" if v > 0 else "−∞"
        if v == int(v) and abs(v) >= 1000:
            return str(int(v))
        a = abs(v)
        if a < NOISE:
            return "0"
        if a >= 100:
            return _unsigned_zero(f"{v:.1f}")
        if a >= 10:
            return _unsigned_zero(f"{v:.2f}")
        if a >= 0.001:
            return _unsigned_zero(f"{v:.3f}")
        return f"{v:.1e}"
    return str(value)


def fmt_bound(bound: object, estimate: object) -> str:
    """An interval's bound as its estimate reads: a bound near 0 beside an estimate of
    0.114 is "-0.001", not "-7.4e-04"."""
    if isinstance(bound, float | np.floating) and isinstance(estimate, float | np.floating):
        b, e = float(bound), float(estimate)
        if math.isfinite(b) and abs(b) < 0.001 and abs(e) >= 0.001:
            return "0" if abs(b) < NOISE else _unsigned_zero(f"{b:.3f}")
    return fmt(bound)


def display(frame: pd.DataFrame) -> pd.DataFrame:
    """Text version of a table: ``x``, ``x_lo``, ``x_hi`` become one ``x [lo, hi]`` column.

    A figure that too few games resolve is NaN, with ``x_games_needed`` beside it: its cell
    then reads "not enough games: about N needed" (the count stays a column of the CSV), so
    a section says so without writing text into a column of numbers.
    """
    out: dict[str, list[str]] = {}
    cols = list(frame.columns)
    skip = {f"{col}_games_needed" for col in cols} & set(cols)
    for col in cols:
        if col in skip:
            continue
        lo, hi = f"{col}_lo", f"{col}_hi"
        values = frame[col].tolist()
        bound = f"{col}_clipped"
        name = str(col)
        if bound in frame.columns:
            # A value clipped at a bound (a perfect record's Elo) is shown as "< -999".
            skip.update((lo, hi, bound))
            name = f"{col} [95% CI]" if lo in frame.columns else str(col)
            out[name] = [
                ("< " if v < 0 else "> ") + f"{v:+.0f}" if c and not _missing(v) else
                (fmt(v) if _missing(a) else f"{fmt(v)} [{fmt_bound(a, v)}, {fmt_bound(b, v)}]")
                for v, a, b, c in zip(values, frame.get(lo, frame[col]).tolist(),
                                      frame.get(hi, frame[col]).tolist(),
                                      frame[bound].tolist(), strict=True)]
        elif lo in frame.columns and hi in frame.columns:
            skip.update((lo, hi))
            name = f"{col} [95% CI]"
            text = []
            for v, a, b in zip(values, frame[lo].tolist(), frame[hi].tolist(), strict=True):
                if _missing(a) and _missing(b):
                    text.append(fmt(v))
                else:
                    text.append(f"{fmt(v)} [{fmt_bound(a, v)}, {fmt_bound(b, v)}]")
            out[name] = text
        elif _whole(frame[col]):
            out[name] = ["–" if _missing(v) else str(int(v)) for v in values]
        else:
            out[name] = [fmt(v) for v in values]
        needed = f"{col}_games_needed"
        if needed in frame.columns:
            # An estimate whose interval too few deals carry keeps its value, and says so
            # where the interval would be (``reports.stats.withhold``).
            bounds = zip(frame[lo].tolist() if lo in frame.columns else [None] * len(frame),
                         frame[hi].tolist() if hi in frame.columns else [None] * len(frame),
                         strict=True)
            out[name] = [f"not enough games: about {int(n)} needed"
                         if _missing(v) and not _missing(n) else
                         f"{fmt(v)} (CI needs ~{int(n)} games)"
                         if not _missing(n) and lo in frame.columns and _missing(a)
                         and _missing(b) else shown
                         for v, n, shown, (a, b) in zip(values, frame[needed].tolist(),
                                                        out[name], bounds, strict=True)]
    return pd.DataFrame(out, index=range(len(frame)))


def _whole(column: pd.Series) -> bool:
    """A float column holding only whole numbers (points, counts) is shown without decimals."""
    if not pd.api.types.is_float_dtype(column.dtype):
        return False
    values = column.to_numpy(dtype=float)
    values = values[~np.isnan(values)]
    return len(values) > 0 and bool(np.all(values == np.round(values))) and bool(
        np.all(np.abs(values) < 1e15)) and bool(np.any(np.abs(values) > 1))


def _missing(value: object) -> bool:
    return value is None or (isinstance(value, float | np.floating) and math.isnan(value))


#: What could start an HTML tag, comment or entity in Markdown: escaped with a backslash, so
#: a participant named ``<script>`` is shown, not run, while "< -999" stays as it reads.
_MD_HTML = re.compile(r"<(?=[A-Za-z/!?])|&(?=#?\w+;)")
#: Lines of report.md are read in a terminal: a table wider than this is a link to its CSV.
MD_WIDTH = 100
#: Text cells longer than this are cut in report.md (the CSV and the HTML keep them whole).
MD_CELL = 40


def md_text(text: str) -> str:
    """Text for Markdown: tags and entities escaped with a backslash (``\\<b>``), nothing
    else changed."""
    return _MD_HTML.sub(lambda m: "\\" + m.group(0), text)


def _cell_md(text: str) -> str:
    """A Markdown cell: HTML (a participant named ``<script>``) is shown, not run."""
    return md_text(text).replace("|", "\\|").replace("\n", " ")


FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_safe(frame: pd.DataFrame) -> pd.DataFrame:
    """The frame with text cells that a spreadsheet would run as a formula (``=``, ``+``,
    ``-``, ``@`` at the start) prefixed by a quote, as OWASP advises; numbers are untouched."""
    out = frame
    for col in frame.columns:
        if pd.api.types.is_numeric_dtype(frame[col].dtype) or pd.api.types.is_bool_dtype(
                frame[col].dtype):
            continue
        values = frame[col].astype(object)
        risky = values.map(lambda v: isinstance(v, str) and v.startswith(FORMULA_START))
        if risky.any():
            if out is frame:
                out = frame.copy()
            out[col] = values.where(~risky, "'" + values.astype(str))
    return out


def markdown_table(frame: pd.DataFrame, max_rows: int = MAX_ROWS, note: str = "") -> str:
    """A GitHub-flavoured Markdown table of the display version of ``frame``."""
    if frame.empty:
        return "_(no rows)_\n"
    shown = display(frame.head(max_rows))
    for col in shown.columns:  # long text (a JSON of options, a reason) is cut; the CSV has it
        source = frame[col] if col in frame.columns else None
        if source is None or not pd.api.types.is_numeric_dtype(source.dtype):
            shown[col] = [v if len(v) <= MD_CELL else v[:MD_CELL - 1] + "…" for v in shown[col]]
    groups = _column_groups(shown)
    blocks = []
    for number, cols in enumerate(groups):
        part = shown[cols]
        lines = ["| " + " | ".join(_cell_md(c) for c in part.columns) + " |",
                 "| " + " | ".join("---" for _ in part.columns) + " |"]
        lines += ["| " + " | ".join(_cell_md(str(v)) for v in row) + " |"
                  for row in part.itertuples(index=False)]
        if len(groups) > 1:
            lines.insert(0, f"_Columns, part {number + 1} of {len(groups)}:_\n")
        blocks.append("\n".join(lines))
    if len(frame) > max_rows:
        blocks.append(f"_{len(frame) - max_rows} more rows in {note}_")
    return "\n\n".join(blocks) + "\n"


def _column_groups(shown: pd.DataFrame) -> list[list[str]]:
    """The columns of a display table cut into groups whose rows fit :data:`MD_WIDTH`, each
    led by the first column (the row's name), so a wide table is split, never dropped: the
    Markdown report carries every figure the HTML shows.  A column too wide on its own still
    gets a group of its own."""
    cols = list(shown.columns)
    if len(cols) <= 1:
        return [cols]

    def width(col: str) -> int:
        cells = [_cell_md(str(col)), *(_cell_md(str(v)) for v in shown[col])]
        return max(len(c) for c in cells) + 3

    key, rest = cols[0], cols[1:]
    base = width(key) + 1
    groups: list[list[str]] = []
    current: list[str] = []
    used = base
    for col in rest:
        w = width(col)
        if current and used + w > MD_WIDTH:
            groups.append([key, *current])
            current, used = [], base
        current.append(col)
        used += w
    groups.append([key, *current])
    return groups


def html_table(frame: pd.DataFrame, max_rows: int = MAX_ROWS, note: str = "") -> str:
    """An HTML table of the display version of ``frame`` (numbers right-aligned)."""
    if frame.empty:
        return "<p><em>(no rows)</em></p>"
    shown = display(frame.head(max_rows))
    numeric = []
    for name in shown.columns:
        source = name.removesuffix(" [95% CI]")
        dtype = frame[source].dtype if source in frame.columns else object
        numeric.append(pd.api.types.is_numeric_dtype(dtype)
                       and not pd.api.types.is_bool_dtype(dtype))
    head = "".join(f"<th title=\"click to sort\">{html.escape(str(c))}</th>"
                   for c in shown.columns)
    body = []
    for row in shown.itertuples(index=False):
        cells = []
        for v, is_num in zip(row, numeric, strict=True):
            # Numbers and short text (card ids) stay on one line; long text wraps.
            cls = ' class="n"' if is_num else (' class="w"' if len(str(v)) > 40 else "")
            cells.append(f"<td{cls}>{html.escape(str(v))}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    more = (f"<p class=\"more\">{len(frame) - max_rows} more rows in "
            f"{html.escape(note)}</p>" if len(frame) > max_rows else "")
    return (f"<div class=\"scroll\"><table class=\"sortable\"><thead><tr>{head}</tr></thead>"
            "<tbody>"
            + "".join(body) + f"</tbody></table></div>{more}")


def text_to_html(text: str) -> str:
    """The small Markdown subset used in section texts: paragraphs, bullets, code, bold,
    links to pages beside the report."""
    def inline(s: str) -> str:
        s = html.escape(s)
        s = re.sub(r"`([^`]+)`", r"<code>\1</code>", s)
        # [text](a relative page): the links to replays written beside the report
        # (a game id may hold an ``@``: a study's re-priced arm, ``...-panda-06@7``)
        s = re.sub(r"\[([^\]]+)\]\(((?:[\w.@-]+/)*[\w.@-]+\.html)\)", r'<a href="\2">\1</a>', s)
        return re.sub(r"\*\*([^*]+)\*\*", r"<strong>\1</strong>", s)

    parts = []
    for block in re.split(r"\n\s*\n", text.strip()):
        lines = block.strip().splitlines()
        if not lines:
            continue
        if all(line.lstrip().startswith("- ") for line in lines):
            items = "".join(f"<li>{inline(line.lstrip()[2:])}</li>" for line in lines)
            parts.append(f"<ul>{items}</ul>")
        else:
            parts.append(f"<p>{inline(' '.join(line.strip() for line in lines))}</p>")
    return "\n".join(parts)


CSS = """
body{font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;margin:2em auto;
max-width:1200px;color:#222;line-height:1.45;padding:0 1em}
h1{border-bottom:2px solid #ddd}h2{border-bottom:1px solid #eee;margin-top:2em}
table{border-collapse:collapse;font-size:13px;margin:.5em 0 1em}
th,td{border:1px solid #ddd;padding:3px 7px;white-space:nowrap}
th{background:#f4f4f4;position:sticky;top:0;cursor:pointer;white-space:normal;
min-width:4em;vertical-align:bottom}
th.asc::after{content:" \\25B2"}th.desc::after{content:" \\25BC"}
td.w{max-width:36em;min-width:16em;white-space:normal;overflow-wrap:break-word}
td.n{text-align:right;font-variant-numeric:tabular-nums}
tr:nth-child(even) td{background:#fafafa}
.scroll{overflow:auto;max-width:100%;max-height:80vh;border:1px solid #eee}
img{max-width:100%;border:1px solid #eee;margin:.5em 0}code{background:#f4f4f4;padding:0 3px}
.caption{color:#555;font-size:13px;margin:.2em 0}.more{color:#777;font-size:12px}
"""


# Click a column header to sort by it (again: the other way).  Numbers sort as numbers: a
# cell "0.512 [0.47, 0.55]" by its first number, "–" last.  Inline, so the page stays one
# file that works offline.
SORT_SCRIPT = """
document.querySelectorAll('table.sortable').forEach(function (table) {
  table.querySelectorAll('th').forEach(function (th, col) {
    th.addEventListener('click', function () {
      var body = table.tBodies[0], rows = Array.from(body.rows);
      var asc = !th.classList.contains('asc');
      table.querySelectorAll('th').forEach(function (h) { h.classList.remove('asc', 'desc'); });
      th.classList.add(asc ? 'asc' : 'desc');
      function key(row) {
        var text = row.cells[col].textContent.trim().replace('\\u2212', '-');
        var m = text.match(/^[<>]?\\s*[-+]?\\d*\\.?\\d+(e[-+]?\\d+)?/i);
        return m ? parseFloat(m[0].replace(/^[<>]\\s*/, '')) : text;
      }
      rows.sort(function (a, b) {
        var x = key(a), y = key(b);
        if (typeof x === 'number' && typeof y === 'number') return asc ? x - y : y - x;
        if (typeof x === 'number') return -1;
        if (typeof y === 'number') return 1;
        return asc ? x.localeCompare(y) : y.localeCompare(x);
      });
      rows.forEach(function (r) { body.appendChild(r); });
    });
  });
});
"""


def write_document(title: str, parts: list[Part], out: Path) -> Path:
    """Write every table as CSV, then ``report.md`` and a self-contained ``report.html``."""
    out.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    md = [f"# {md_text(title)}\n", f"_Generated {stamp} by `arena report`._\n"]
    body = [f"<h1>{html.escape(title)}</h1>",
            f"<p class=\"caption\">Generated {html.escape(stamp)} by <code>arena report</code>."
            "</p>"]
    lead = [p for p in parts if p.lead]
    parts = [p for p in parts if not p.lead]
    for part in lead:
        md.append(md_text(part.text.strip()) + "\n")
        body.append(text_to_html(part.text))
    toc = []
    for number, section in enumerate(parts, start=1):
        anchor = f"s{number}"
        toc.append(f"<li><a href=\"#{anchor}\">{html.escape(section.title)}</a></li>")
        md.append(f"## {number}. {section.title}\n")
        body.append(f"<h2 id=\"{anchor}\">{number}. {html.escape(section.title)}</h2>")
        if section.text:
            md.append(md_text(section.text.strip()) + "\n")
            body.append(text_to_html(section.text))
        for table in section.tables:
            csv = f"{table.stem}.csv"
            csv_safe(table.frame).to_csv(out / csv, index=False)
            md.append(f"**{table.caption}** (`{csv}`)\n")
            page = table.page_frame()
            md.append(markdown_table(page, table.max_rows, csv))
            body.append(f"<p><strong>{html.escape(table.caption)}</strong> "
                        f"<span class=\"caption\">({html.escape(csv)})</span></p>")
            body.append(html_table(page, table.max_rows, csv))
            if page is not table.frame:
                body.append(f"<details><summary>All {len(table.frame.columns)} columns"
                            "</summary>" + html_table(table.frame, table.max_rows, csv)
                            + "</details>")
        for png, caption in section.charts:
            md.append(f"![{caption}]({png})\n")
            data = base64.b64encode((out / png).read_bytes()).decode("ascii")
            body.append(f"<figure><img alt=\"{html.escape(caption)}\" "
                        f"src=\"data:image/png;base64,{data}\"><figcaption class=\"caption\">"
                        f"{html.escape(caption)} ({html.escape(png)})</figcaption></figure>")
    (out / "report.md").write_text("\n".join(md), encoding="utf-8")
    page = (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f"<title>{html.escape(title)}</title><style>{CSS}</style></head><body>"
        + "".join(body[:2 + len(lead)]) + "<ul>" + "".join(toc) + "</ul>"
        + "\n".join(body[2 + len(lead):])
        + f"<script>{SORT_SCRIPT}</script></body></html>\n"
    )
    (out / "report.html").write_text(page, encoding="utf-8")
    return out
