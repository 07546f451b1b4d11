"""The report's sections, as a registry: one entry per section, read by both kinds of report.

A :class:`Section` says, for a one-tournament report and for a comparison of runs, what the
section computes, which CSV files and charts it writes and what its text says; ``analyse``
and ``compare`` (``report.py``) are loops over :data:`SECTIONS`, and the report's file list
is read from it.  A new section is one entry here, with the functions it names: no other
list has to learn about it (docs/reports.md says how one is added).

The text is part of each section on purpose: a number whose method is not written beside it
gets misread (a win rate with shared wins, an interval that ignores the duplicate deals), so
each section says how its figures were computed and which games it counts.  The text is a
function of the section's results, so it can quote the run's own figures, or say that there
were not enough games for one.

Sections share results (the standings show the ratings' Elo, the head-to-head chart is in
the standings' order), so a section asks for another's through :meth:`Run.get`, which computes a
result once and keeps it: no section depends on which ran before it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, Literal, TypeVar

import numpy as np
import pandas as pd

from arena.stats import verdict

from . import balance, charts, compare, experiment, stats, tables, watch
from .compare import interval_text, join, side_by_side, significance_text, significant
from .loader import Tables
from .render import MAX_ROWS, Part, Table

#: What a section computes: its tables by name, and any figure its text quotes.
Result = dict[str, Any]
R = TypeVar("R")


class _Results:
    """Results computed on first use and kept, keyed by the function that computes them."""

    def __init__(self) -> None:
        self._done: dict[Callable[[Any], Any], Any] = {}

    def get(self, compute: Callable[[Any], R]) -> R:
        """``compute(self)``, computed once: what a section uses to read another's result."""
        if compute not in self._done:
            self._done[compute] = compute(self)
        return self._done[compute]


class Run(_Results):
    """One tournament being reported: its tables, the bootstrap size, and its results."""

    def __init__(self, t: Tables, replicates: int) -> None:
        super().__init__()
        self.tables = t
        self.replicates = replicates


class Runs(_Results):
    """Several tournaments being compared: each as a :class:`Run` (whose results are those of
    its own report, computed the same way), their short labels, and the comparison's
    results.  The first run is the baseline."""

    def __init__(self, runs: Sequence[Tables], replicates: int) -> None:
        super().__init__()
        self.runs = [Run(t, replicates) for t in runs]
        self.tables = list(runs)
        self.labels = compare.run_labels(runs)
        self.base = self.labels[0]
        self.replicates = replicates

    def each(self, compute: Callable[[Run], R]) -> list[R]:
        """``compute``'s result for every run, in order."""
        return [run.get(compute) for run in self.runs]


C = TypeVar("C", Run, Runs)


@dataclass(frozen=True)
class Csv:
    """A table of a section: the result's frame ``key``, written as ``stem.csv``."""

    key: str
    stem: str
    caption: str
    max_rows: int = MAX_ROWS
    #: The columns the page shows (an interval's ``_lo``/``_hi`` and a figure's
    #: ``_games_needed`` go with their column); None: every column.  The CSV keeps all, and
    #: the HTML shows the rest in a details view.
    shown: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Chart(Generic[C]):
    """A chart of a section: ``draw(context, result, path)`` writes the PNG ``file``."""

    file: str
    caption: str
    draw: Callable[[C, Result, Path], object]


@dataclass(frozen=True)
class Form(Generic[C]):
    """A section as one kind of report shows it: what it computes, tables, charts and text.

    ``text`` is a string or a function of the context and the result.  ``title`` replaces
    the section's own.  With ``repeat``, ``compute`` returns a list of results, one part of
    the report each (a comparison's paired sections, one per run paired with the baseline);
    the title and the file names are then templates filled from each result (``{run}``).
    """

    compute: Callable[[C], Any]
    tables: tuple[Csv, ...] = ()
    charts: tuple[Chart[C], ...] = ()
    text: str | Callable[[C, Result], str] = ""
    title: str = ""
    repeat: bool = False
    #: Whether the section applies to this context (a card study's section, only for one);
    #: None: always.  A form that may not apply writes no file in the others' reports.
    when: Callable[[C], bool] | None = None
    #: Whether a card study's report shows it.  A study's participants are a level and its
    #: own copies and its cards were placed by the experiment, so the standings between
    #: them and the descriptive card table are artefacts of the design, not results.
    in_study: bool = True

    def files(self) -> list[str]:
        """The CSV and PNG files this form writes (templates when it repeats)."""
        return [f"{c.stem}.csv" for c in self.tables] + [c.file for c in self.charts]

    def parts(self, context: C, title: str, out: Path) -> list[Part]:
        """The report's parts for this form: computed (once: another section may have
        asked for the same result already), charts drawn into ``out``."""
        if self.when is not None and not self.when(context):
            return []
        if not self.in_study and isinstance(context, Run) and is_study(context):
            return []
        computed = guarded(context, self.compute)
        made = []
        for result in computed if self.repeat else [computed]:
            def name(text: str, result: Result = result) -> str:
                return text.format_map(result) if self.repeat else text

            for chart in self.charts:
                chart.draw(context, result, out / name(chart.file))
            text = self.text(context, result) if callable(self.text) else self.text
            made.append(Part(
                name(self.title or title), text,
                [Table(name(c.stem), c.caption, result[c.key], c.max_rows, c.shown)
                 for c in self.tables if result.get(c.key) is not None],
                [(name(c.file), c.caption) for c in self.charts]))
        return made


def units(context: Run | Runs) -> tuple[float, float]:
    """The independent units (deals) a context's figures stand on, and its games: a run's
    own; for runs compared, the run with the fewest deals (every difference needs both)."""
    frames = [context.tables] if isinstance(context, Run) else context.tables
    counts = [(float(t.games["deal_key"].nunique()) if len(t.games) else 0.0,
               float(len(t.games))) for t in frames]
    return min(counts) if counts else (0.0, 0.0)


def withheld(context: Run | Runs, result: Any) -> Any:
    """``result`` with :func:`reports.stats.withhold` applied to each of its tables (a
    paired result stands on the deals its runs share, its ``info`` says how many)."""
    if isinstance(result, list):
        return [withheld(context, r) for r in result]
    if not isinstance(result, dict):
        return result
    deals, games = units(context)
    info = result.get("info")
    if isinstance(info, dict) and "deals" in info and "games_compared" in info:
        deals, games = float(info["deals"]), float(info["games_compared"])
    out = {k: stats.withhold(v, deals, games) if isinstance(v, pd.DataFrame) else v
           for k, v in result.items()}
    if isinstance(info, dict) and deals < stats.MIN_UNITS:
        out["info"] = _blank_bounds(info)
    return out


def _blank_bounds(values: dict[str, Any]) -> dict[str, Any]:
    """A figure's dictionary (``spread``, ``spread_lo``, ...) with every bound blanked."""
    return {k: (_blank_bounds(v) if isinstance(v, dict) else
                math.nan if k.endswith(("_lo", "_hi")) else v) for k, v in values.items()}


def guarded(context: Any, compute: Callable[[Any], R]) -> R:
    """``compute``'s result as every report shows it: computed once (``context.get``), then
    every interval too few deals carry withheld, with its tests and flags (one rule for every
    table, ``reports.stats.withhold``).  Texts and lists of findings read this, never the raw
    result, so a test the tables do not show cannot reach a sentence either."""
    return withheld(context, context.get(compute))


#: The two kinds of report: one tournament's, and the comparison of several.
Kind = Literal["report", "compare"]


@dataclass(frozen=True)
class Section:
    """One section of the reports: its form in a one-tournament report (``report``) and in a
    comparison of runs (``compare``); None where a kind of report leaves it out."""

    name: str
    title: str
    report: Form[Run] | None = None
    compare: Form[Runs] | None = None

    def parts(self, kind: Kind, context: Any, out: Path) -> list[Part]:
        """This section's parts in a ``kind`` of report (none where it is left out), its
        charts drawn into ``out``; ``context`` is the :class:`Run` or the :class:`Runs`."""
        form = getattr(self, kind)
        return [] if form is None else form.parts(context, self.title, out)


# Games to watch ---------------------------------------------------------------------------


def games_to_watch(run: Run) -> Result:
    """The games behind the figures, for a person to replay (``reports.watch``); the card
    table's flagged cards each get one.  In a card study the findings are the study's: its
    flagged cards (or its strongest one), never the descriptive table's, and no upset."""
    if is_study(run):
        found = guarded(run, card_study)["cards"]
        flagged = watch.flagged_cards(found)
        if flagged.empty:
            flagged = found.head(1).assign(flag="study: strongest evidence, not flagged")
        else:
            flagged = flagged.assign(flag="study: " + flagged["flag"].astype(str))
        return {"chosen": watch.games_to_watch(run.tables, flagged, upset=False)}
    flagged = watch.flagged_cards(guarded(run, cards)["cards"])
    return {"chosen": watch.games_to_watch(run.tables, flagged)}


# Overview ----------------------------------------------------------------------------------


def overview(run: Run) -> Result:
    """What was played, from the manifest and the games."""
    return {"overview": tables.overview(run.tables)}


def overview_text(run: Run, result: Result) -> str:
    """How many games the report stands on, and what went wrong reading them."""
    t = run.tables
    if len(t.games) == 0:
        intro = "**No games**: games.jsonl holds no finished game yet, so every table is empty."
    else:
        intro = (f"{len(t.games)} games between {len(t.participants)} participants, "
                 f"{t.players} per game. Every figure below is computed from these game "
                 "records; every rate comes with its 95% confidence interval, written "
                 "`x [lo, hi]`.")
    if t.warnings:
        intro += "\n\nWarnings while reading the files:\n\n" + "\n".join(
            f"- {w}" for w in t.warnings)
    return intro


def runs_overview(runs: Runs) -> Result:
    """One row per run, and the rule options and cards that differ between them."""
    rows, options = compare.runs_table(runs.tables, runs.labels)
    if options.empty:
        options = pd.DataFrame({"option": ["(none: the runs use the same rule options)"]})
    return {"runs": rows, "options": options}


def runs_text(runs: Runs, result: Result) -> str:
    """The comparison's method, whether each run is paired with the baseline, and why not."""
    labels = runs.labels
    notes = [p["note"] for p in runs.get(pairings)]
    intro = (
        f"{len(labels)} runs compared; the first, **{runs.base}**, is the baseline: each `Δ` "
        "column is a run's figure minus the baseline's, with a 95% interval for the "
        "difference. The side-by-side sections treat the runs as independent samples "
        "(Newcombe's interval for proportions; normal, from each run's own interval, "
        "otherwise); the paired sections, where the schedules allow, use the deals both runs "
        "played. Lists of significant differences make one test per row at 5%, except the "
        "per-card lists, which control the false discovery rate at "
        f"{balance.FDR:.0%} (Benjamini–Hochberg)."
        "\n\n" + "\n".join(f"- {n}" for n in notes)
    )
    differing = compare.card_differences(runs.tables, labels)
    if not differing.empty:
        intro += ("\n\nThe card sets differ in " + str(len(differing)) + " cards: "
                  + "; ".join(f"{r['card']} " + " / ".join(str(r[lab]) for lab in labels)
                              for _, r in differing.iterrows()) + ".")
    empty = [lab for t, lab in zip(runs.tables, labels, strict=True) if len(t.games) == 0]
    if empty:
        intro += "\n\n**No games** in: " + ", ".join(empty) + "."
    warnings = [f"- {lab}: {w}" for t, lab in zip(runs.tables, labels, strict=True)
                for w in t.warnings]
    if warnings:
        intro += "\n\nWarnings while reading the files:\n\n" + "\n".join(warnings)
    return intro


# Standings and ratings ---------------------------------------------------------------------


def pairwise(run: Run) -> pd.DataFrame:
    """Who finished ahead of whom, shared by the ratings and the head-to-head table."""
    return tables.pairwise(run.tables)


def ratings(run: Run) -> Result:
    """Elo with its deal bootstrap, LOS and the per-pair results."""
    return tables.ratings(run.tables, replicates=run.replicates, pairs=run.get(pairwise))


def ratings_text(run: Run, result: Result) -> str:
    """How the ratings and their intervals were computed."""
    players = run.tables.players
    rating_text = (
        "Bradley–Terry Elo from every game" if players == 2 else
        "Bradley–Terry Elo from who finished ahead of whom, and openskill's "
        "Plackett–Luce `mu`, `sigma` and `ordinal` = mu − 3 sigma")
    return (
        f"{rating_text}. The ratings are centred so that those shown as numbers average 0. "
        f"The Elo interval is the 2.5–97.5 percentile range over {run.replicates} bootstrap "
        "resamples of whole deals within each pairing: the games of one deal share its seed "
        "and are not independent, so resampling single games would give intervals too "
        f"narrow. A participant with fewer than {tables.MIN_DEALS} deals gets no rating "
        "(\"not enough games\"). One that won (lost) every result has no finite rating: it "
        "is shown as `> +999` (`< -999`), without an interval, and left out of the centring. "
        "LOS, the likelihood of superiority of the row over the "
        "column, is Phi((W − L) / sqrt(W + L)) over their direct decisive results, as "
        "cutechess prints it."
        + ("" if players == 2 else " openskill updates game by game (in game-id order); "
           "its sigma is the filter's uncertainty about mu, not a sampling interval."))


def standings(run: Run) -> Result:
    """The standings, with the ratings' Elo beside them."""
    return {"standings": tables.standings(run.tables, run.get(ratings)["ratings"])}


def standings_text(run: Run, result: Result) -> str:
    """What the standings count, shared wins and faults included."""
    return (
        "A shared victory between k seats counts 1/k of a win in `win_share` and "
        "`win_rate`; `wins` (outright, the panda tie-break included) and `shared_wins` are "
        "the raw counts. The win rate's interval is Wilson's. `errors`: games this "
        "participant lost by a crash, an illegal move or a timeout (counted as losses). "
        "`capped`: games that hit the round cap (kept, scored as they stood). Sorted by "
        "win rate, as `arena tournament` prints them; the Bradley–Terry Elo of the next "
        "section, beside it, accounts for who met whom"
        + ("." if run.tables.players == 2 else " (from who finished ahead of whom; "
           "openskill's `ordinal` is shown too, but its online updates depend on the game "
           "order)."))


def draw_win_rates(run: Run, result: Result, path: Path) -> object:
    """Win rate per participant, with Wilson intervals."""
    return charts.win_rates(result["standings"], run.tables.players, path)


def draw_scores(run: Run, result: Result, path: Path) -> object:
    """Score distribution per participant, in the standings' order."""
    return charts.scores(run.tables.seats, list(result["standings"]["participant"]), path)


def standings_compared(runs: Runs) -> Result:
    """Win rate and Elo per run, and each run's difference from the baseline."""
    st = [r["standings"] for r in runs.each(standings)]
    win = side_by_side(st, runs.labels, ["participant"], "win_rate", ("win_share", "games"))
    elo = side_by_side(st, runs.labels, ["participant"], "elo")
    return {"standings": join([win, elo], ["participant"])}


def standings_compared_text(runs: Runs, result: Result) -> str:
    """The participants whose win rate moved."""
    return ("Win rate (shared wins as 1/k) and Bradley–Terry Elo per run. "
            + significance_text("win rate", significant(result["standings"], "participant",
                                                        "win_rate", runs.labels)))


def draw_compared_win_rates(runs: Runs, result: Result, path: Path) -> object:
    """Win rate per participant, one bar per run."""
    return charts.compare_bars(result["standings"], "participant", runs.labels, "win_rate",
                               path, "Win rate per participant and run (95% Wilson interval)",
                               "win rate", reference=1.0 / runs.tables[0].players)


# Head to head and the paired analysis ------------------------------------------------------


def head_to_head(run: Run) -> Result:
    """How often the row finished ahead of the column."""
    return tables.head_to_head(run.tables, pairs=run.get(pairwise))


def draw_head_to_head(run: Run, result: Result, path: Path) -> object:
    """The heat map, rows and columns in the standings' order."""
    matrix = result["matrix"]
    order = [p for p in run.get(standings)["standings"]["participant"]
             if p in set(matrix["participant"])]
    ordered = matrix.set_index("participant").reindex(index=order, columns=order)
    return charts.head_to_head(ordered.reset_index(), path)


def head_to_head_compared(runs: Runs) -> Result:
    """The head-to-head rates per run, and their differences."""
    frames = [r["pairs"] for r in runs.each(head_to_head)]
    return {"pairs": side_by_side(frames, runs.labels, ["row", "column"], "rate",
                                  ("ahead", "games"))}


def head_to_head_compared_text(runs: Runs, result: Result) -> str:
    """The pairs whose head-to-head rate moved."""
    h2h = result["pairs"]
    return ("How often the row finished ahead of the column, per run. "
            + significance_text("head-to-head rate", significant(
                h2h.assign(pair=h2h["row"] + " ahead of " + h2h["column"]), "pair", "rate",
                runs.labels)))


def paired(run: Run) -> Result:
    """Pentanomial-style counts per deal, and how much the pairing narrows the interval."""
    return {"paired": tables.paired(run.tables)}


def paired_text(run: Run, result: Result) -> str:
    """What a deal's counts are for this number of players."""
    players = run.tables.players
    return (
        "A deal is one seed played once in every seat rotation. Per complete deal, the "
        "columns `0` … count the deals by the participant's summed win shares over the "
        + ("two rotations: 0, 0.5, 1, 1.5, 2, fishtest's pentanomial outcomes (the row is "
           "the pairing's first participant; the opponent's counts are the mirror image). "
           if players == 2 else
           f"{players} rotations, in half-point bins: the {players}-player analogue of "
           "fishtest's pentanomial counts (a 1/3 share is rounded to the nearest half). ")
        + "`se_unpaired` treats the games as independent, `se_paired` uses the deal means; "
        "`variance_ratio` = se_unpaired² / se_paired², how many times fewer games the "
        "paired estimate needs for the same precision (above 1 when the deal's luck is "
        "shared by its rotations). `score_lo`/`score_hi` is the paired interval. Pairing "
        "`all` pools a participant's deals against everyone.")


# Tie-breaks and seats ----------------------------------------------------------------------


def tiebreaks(run: Run) -> Result:
    """Ties on points: how they were decided, who gained, the margins."""
    return tables.tiebreaks(run.tables)


def tiebreaks_compared(runs: Runs) -> Result:
    """The rates of ties, panda tie-breaks and shared wins per run."""
    frames = [r["summary"] for r in runs.each(tiebreaks)]
    return {"ties": join([side_by_side(frames, runs.labels, ["players"], f"{name}_rate",
                                       (name, "games"))
                          for name in ("tied", "panda", "shared")], ["players"])}


def tiebreaks_compared_text(runs: Runs, result: Result) -> str:
    """The player counts whose rate of ties moved."""
    return ("Share of games tied on points, decided by panda points, and shared. "
            + significance_text("tie-break rate", significant(result["ties"], "players",
                                                              "tied_rate", runs.labels)))


def seat_advantage(run: Run) -> Result:
    """Win rate per seat, and the test of no seat advantage."""
    return tables.seat_advantage(run.tables)


def seat_advantage_compared(runs: Runs) -> Result:
    """Win rate per seat per run, and each run's test."""
    sa = runs.each(seat_advantage)
    frames = [s["seats"].assign(key=lambda f: f["players"].astype(str) + "p seat "
                                + f["seat"].astype(str)) for s in sa]
    seats = side_by_side(frames, runs.labels, ["key", "players", "seat"], "win_rate",
                         ("wins", "games"))
    tests = join([s["tests"][["players", "p_value"]].rename(columns={"p_value": f"p[{lab}]"})
                  for s, lab in zip(sa, runs.labels, strict=True)], ["players"])
    return {"seats": seats, "tests": tests}


def seat_advantage_compared_text(runs: Runs, result: Result) -> str:
    """The seats whose win rate moved."""
    return ("Win rate per seat per run; `p[run]` is the chi-square test of no seat "
            "advantage within that run. "
            + significance_text("seat win rate", significant(result["seats"], "key",
                                                             "win_rate", runs.labels)))


# Card value by experiment ------------------------------------------------------------------


def is_study(run: Run) -> bool:
    """Whether the run is a card study (``arena balance study``)."""
    return experiment.is_experiment(run.tables.manifest)


#: The card table's columns, in order: the page shows the first ones (``STUDY_SHOWN``).
STUDY_COLUMNS = (
    "level", "card", "points", "effect", "effect_lo", "effect_hi", "effect_games_needed",
    "fair_points", "fair_points_lo", "fair_points_hi", "fair_points_games_needed", "flag",
    "category", "asks", "deals", "effect_se", "p_value", "q_value", "slope", "slope_se",
    "break_slope", "break_slope_se",
    "fair_points_se", "curvature_p", "held_completion", "points_per_action", "efficiency",
    "efficiency_lo", "efficiency_hi", "efficiency_games_needed", "p_efficiency",
    "q_efficiency", "copies", "evidence", "priced")
STUDY_SHOWN = ("level", "card", "points", "effect", "fair_points", "flag")


def card_study(run: Run) -> Result:
    """The interventional card figures of a study, per level, and across levels."""
    # Read with the tables when the caller asked (``experiment.load_tables``: the games read
    # once); analysed once whoever asks first (the study's summary, then this section).
    exp = run.tables.experiment
    if exp is None:
        exp = experiment.load(run.tables.source)
    analysis = experiment.analysed(exp, run.replicates)
    levels = [t for t in analysis["levels"] if len(t)]
    cards_ = (pd.concat(levels, ignore_index=True)[list(STUDY_COLUMNS)] if levels
              else pd.DataFrame(columns=list(STUDY_COLUMNS)))
    # One level has nothing to compare across levels: no table of it (not an empty one).
    skill = analysis["skill"] if len(exp.levels) > 1 else None
    several = len(exp.levels) > 1
    return {"cards": cards_, "skill": skill, "design": analysis["design"],
            "neighbours": analysis["neighbours"] if several else None,
            "convergence": analysis["convergence"] if several else None,
            "copies": analysis["copies"],
            "levels": analysis["levels"], "names": exp.levels, "fdr": analysis["fdr"],
            "margin": analysis["margin"], "exp": exp}


def card_study_text(run: Run, result: Result) -> str:
    """How the study was laid out and what each figure means, with its sizes."""
    exp: experiment.Experiment = result["exp"]
    design = result["design"]
    d = exp.design
    fdr, margin = result["fdr"], result["margin"]
    sizes = "; ".join(
        f"{r['level']}: {int(r['games'])} games, {int(r['deals'])} complete deals per "
        f"category" + (f", an effect's error {r['effect_se_median']:.3f} (median), smallest "
                       f"effect found with 80% power {r['mde']:.3f} at 5% per card, "
                       f"{r['mde_bonferroni']:.3f} at the Bonferroni bound"
                       + (f" (about {r['mde_points_bonferroni']:.1f} points)"
                          if r["mde_points_bonferroni"] == r["mde_points_bonferroni"] else "")
                       if r["deals"] >= experiment.MIN_DEALS else ": not enough deals")
        for _, r in design.iterrows())
    where = ("in the seats' hands" if d.get("depth") is None
             else f"at depth {d['depth']} of its deck")
    return (
        "An experiment, not an observation: every deal was played once per card of a "
        f"category, the card placed {where} in place of the one dealt, everything else "
        "the seed's (die, plots, other cards, the bots' random streams), so the games of a "
        "deal differ by the card alone. "
        + ("In a block every seat holds a placed card (each card once per seat, against "
           "opponents' cards shifted at random from deal to deal) and every seat's result "
           "counts. " if d.get("observed", "all") == "all" and d.get("depth") is None else "")
        + f"Levels: {', '.join(exp.levels)}, on the same deals. Sizes: {sizes}."
        "\n\n"
        "- `effect`: the holder's win share (a shared win counts 1/k) minus that of the "
        "holders of the category's other cards in the same deal, averaged over deals; a "
        "paired t interval over deals (the deal is the unit: its games share its luck). "
        "The effects of a category sum to 0.\n"
        "- `flag` `too strong` (holding it beats the average card: lower its points) or "
        "`too weak` (raise them): the t test of effect = 0, Benjamini–Hochberg across the "
        f"cards of a level at a false discovery rate of {fdr:.0%} (`q_value`). Effect 0 "
        "means the card is worth its points: the flag is the test of fair points = "
        "points. `dead`: its value does not respond to its price (its price slope below "
        "half the other priced cards', or completed less than half as often as the rest "
        "of its category; one-sided, Benjamini–Hochberg): re-pricing it cannot help, what "
        "it asks must change.\n"
        + ("- `fair_points`: not measured here: no card was played at other prices "
           "(`--price-cards \"\"`).\n" if d.get("priced") == [] else
           "- `fair_points`: the price at which holding the card is worth as much as "
           "holding the category's average card. The same deals were re-played with the card "
           f"at {', '.join(f'{o:+d}' for o in d.get('offsets', []))} points; per deal the "
           "card's results against those of the games where no rival holds it, a segment "
           "from its points to its nearest price on the side where it breaks even, and "
           "Fieller's interval for the root. Not shown when the slope is not resolved (the "
           "interval would be unbounded). `curvature_p` tests the line with three prices.\n")
        + "- `efficiency`: the card's points per turn action (until completed) over the rest "
        f"of its category's; `efficient`/`inefficient` only beyond ±{margin:.0%} (one-sided "
        "tests at the margin, Benjamini–Hochberg).\n"
        f"- Below {experiment.MIN_DEALS} complete deals a figure reads \"not enough games\". "
        "Rows are sorted by evidence: the distance of the effect's interval from 0.\n"
        + "- Copies of one card (the same condition and points, `copies`) are one card: "
        "their flags are decided together, on the mean of their per-deal contrasts and on "
        "their points per action pooled against the rest of the category, a group counting "
        "once in Benjamini–Hochberg; each copy's own figures are shown beside.\n"
        + ("- Skill: each card's effect at every level and the test that it is the same at "
           "all (Hotelling's T² on the per-deal differences between levels, the paired t "
           "test for two levels), Benjamini–Hochberg across cards (`q_skill`).\n"
           + _neighbours_text(result) if len(exp.levels) > 1 else "")
        + "\nNot in this report, because they are not results of a study: the standings, "
        "ratings and head-to-head between a level and its own copies (who beat whom is the "
        "placed cards' doing) and the descriptive card table of a tournament report (here "
        "the cards were placed, not drawn, and its fair value, a regression of winning on "
        "completed cards, follows the printed points). Their CSV files are not written.")


def _neighbours_text(result: Result) -> str:
    """The methods of the neighbouring-level tables, and what they found."""
    nt, conv, fdr = result["neighbours"], result["convergence"], result["fdr"]
    moved = list(dict.fromkeys(
        f"{r['copies'] or r['card']} {r['flag']} ({r['pooled_change']:+.3f} "
        f"[{r['pooled_change_lo']:+.3f}, {r['pooled_change_hi']:+.3f}], "
        f"q = {r['q_change']:.3f})" for _, r in nt.iterrows() if r["flag"])) if len(nt) else []
    return (
        "- Neighbouring levels: each card's `change` of effect from a level to the next "
        "(`to` minus `from`, in the order of the levels), a paired t interval over the "
        "deals both played; copies of one card tested together on the mean of their "
        "contrasts (`pooled_change`, a group counting once), Benjamini–Hochberg across every "
        f"(card, pair) of the study (`q_change`); `flag` where q <= {fdr:.0%}. Found: "
        + ("; ".join(moved) if moved else "none") + ".\n"
        "- Do prices converge as skill grows? Per level, a category's `spread`: the root "
        "mean square of its cards' effects (their spread about the category's average "
        "card), corrected for their noise, with a percentile bootstrap interval over deals; "
        "`change` from the level before on the same bootstrap draws of the deals. "
        + " ".join(f"{line[0].upper()}{line[1:]}." for line in
                   experiment.convergence_lines(conv)) + "\n")


def draw_study_effects(run: Run, result: Result, path: Path) -> object:
    """The per-card effects with intervals, by skill level."""
    return charts.experiment_effects(result["levels"], result["names"], path)


def draw_study_fair_points(run: Run, result: Result, path: Path) -> object:
    """Fair points − points of the first level."""
    first = result["levels"][0] if result["levels"] else pd.DataFrame()
    return charts.experiment_fair_points(first, path)


# Objective cards ---------------------------------------------------------------------------


def cards(run: Run) -> Result:
    """The card figures, with intervals from the deal bootstrap."""
    return tables.card_balance(run.tables, replicates=run.replicates)


def cards_text(run: Run, result: Result) -> str:
    """The card section's explanation, with the run's own figures in it."""
    model = result["model"].iloc[0]
    fdr = float(model["fdr"])
    priced = model["log_odds_per_point_lo"] > 0
    needed = model.get("log_odds_per_point_games_needed", math.nan)
    unresolved = ("not enough games: about " + f"{int(needed)} needed" if needed == needed
                  else "not enough games")
    spread = (unresolved if not priced else
              "not estimated (too few cards with a fair value)" if math.isnan(model["spread"])
              else f"{model['spread']:.2f} points [{model['spread_lo']:.2f}, "
                   f"{model['spread_hi']:.2f}]")
    emperor = (f"{model['emperor_fair_value']:.1f} [{model['emperor_fair_value_lo']:.1f}, "
               f"{model['emperor_fair_value_hi']:.1f}] points (it goes to whoever finishes "
               "first, so it also carries the value of finishing first)" if priced
               else unresolved)
    return (
        "A description of the games, not a measure of value: the cards a player drew and "
        "completed are not assigned at random, and a completed card's points are part of "
        "the score that decides the win, so the fair value below follows a card's printed "
        "points whatever they are (a card made 4 points richer shows a fair value near its "
        "new points). What a card is worth is measured by intervention: `arena balance "
        "study` (docs/balance.md); `dealt_win_rate`, the win rate of the seat dealt the "
        "card at the start, is the one figure here that is an experiment (the deal is "
        "random)."
        "\n\n"
        "Per card, over games without error, strongest evidence of an imbalance first (the "
        "distance of the fair value's interval from the card's points, then the p-value). "
        "Every interval is a 95% bootstrap interval over whole deals "
        f"({int(model['replicates'])} replicates, deals drawn within their pairing), because "
        "the rotations of one deal share its cards and luck."
        "\n\n"
        "- `asks`, `points`: what the card asks and its points in this run, from the run's "
        "manifest (its `catalog`).\n"
        "- `completion_rate`: completed / drawn (Wilson interval on the draws discounted by "
        "their design effect); `in_hand_at_end` = 1 − completion rate.\n"
        "- `turns_held`: the holder's turns from drawing the card to completing it.\n"
        "- `points_per_turn`: the card's points earned / turns it was held (to completion, or "
        "to the end when never completed); `efficiency_ratio`: that over the rest of its "
        "category's.\n"
        "- `lift`: win rate of the seats that completed it minus that of the seats that "
        "drew it and did not (association, not cause).\n"
        "- `fair_value`: the points an average card would need to move the odds of winning "
        "as much as completing this one, from a logistic regression of winning on the cards "
        "completed, the Emperor, the player count and the participant; divided by the "
        "exchange rate (log-odds per point: the slope of the cards' coefficients on their "
        "points), re-estimated in every replicate. Shown only when the exchange rate's "
        "interval leaves 0 out (else every fair value is a ratio over something that may be "
        f"0) and the card was completed {int(model['min_completions'])} times or more. "
        "`imbalance` = fair value − points.\n"
        "- `p_value`/`q_value`: the test of fair value = points and its Benjamini–Hochberg "
        f"adjustment across the {int(model['cards_modelled'])} cards with an estimate; not "
        f"made for a card drawn fewer than {balance.MIN_DRAWN} times.\n"
        "- `games_needed`: about how many games (of this kind) would make the fair value's "
        "error small enough to detect a one-point imbalance (5% two-sided, 80% power).\n"
        f"- `flag`: `worth more`/`worth less` when q ≤ {fdr:.2f}; `dead` when the completion "
        "rate is below half the rest of its category (`category_rate`) and a one-sided test "
        f"says so at q ≤ {fdr:.2f}; `efficient`/`inefficient` when its points per turn are "
        f"beyond ±{balance.MARGIN:.0%} of the rest of its category's (one-sided tests at the "
        f"margin, q ≤ {fdr:.2f}). Each flag kind is decided by the Benjamini–Hochberg "
        f"procedure across the cards, so at most about {fdr:.0%} of the cards flagged are "
        "flagged by chance."
        "\n\n"
        f"The set as a whole: a point is worth {model['log_odds_per_point']:.3f} "
        f"[{model['log_odds_per_point_lo']:.3f}, {model['log_odds_per_point_hi']:.3f}] "
        f"log-odds of winning; the Emperor ({model['emperor_points']:g} points) is worth "
        f"{emperor}; the spread of fair value − points across the cards, corrected for "
        f"noise, is {spread}."
        "\n\n"
        "Per category: the share of the winners' points (shared wins weighted by their "
        "fraction) and of all points that came from each category and from the Emperor, "
        "beside the category's share of the set's points; its completion rate and points per "
        "turn, and `efficiency_ratio`, its points per turn over the deck's (1 = parity)."
    )


def cards_compared(runs: Runs) -> Result:
    """The card and category figures per run, and each set's spread."""
    cb = runs.each(cards)
    labels = runs.labels
    card_frames = [c["cards"] for c in cb]
    ident = card_frames[0][["card", "category", "points"]]
    per_card = join([
        ident,
        side_by_side(card_frames, labels, ["card"], "completion_rate", ("completed", "drawn")),
        side_by_side(card_frames, labels, ["card"], "turns_held"),
        side_by_side(card_frames, labels, ["card"], "points_per_turn"),
        side_by_side(card_frames, labels, ["card"], "fair_value"),
    ], ["card"])
    for c, lab in zip(cb, labels, strict=True):
        per_card[f"flag[{lab}]"] = per_card["card"].map(c["cards"].set_index("card")["flag"])
    category_frames = [c["categories"] for c in cb]
    categories = join([
        side_by_side(category_frames, labels, ["category"], "winners_share"),
        side_by_side(category_frames, labels, ["category"], "completion_rate"),
        side_by_side(category_frames, labels, ["category"], "points_per_turn"),
    ], ["category"])
    spreads = pd.DataFrame([{
        "run": lab, "cards_modelled": int(c["model"]["cards_modelled"].iloc[0]),
        "spread": c["model"]["spread"].iloc[0], "spread_lo": c["model"]["spread_lo"].iloc[0],
        "spread_hi": c["model"]["spread_hi"].iloc[0]}
        for c, lab in zip(cb, labels, strict=True)])
    return {"cards": per_card, "categories": categories, "spreads": spreads}


def cards_compared_text(runs: Runs, result: Result) -> str:
    """The cards whose completion rate or fair value moved, tested together."""
    per_card, labels, fdr = result["cards"], runs.labels, balance.FDR
    return (
        "Completion rate, turns held to completion, points per turn held and the fair value "
        "per card and run (methods as in the single report), compared as independent "
        "samples. "
        + significance_text("completion rate", significant(per_card, "card", "completion_rate",
                                                           labels, fdr), fdr)
        + " " + significance_text("fair value", significant(per_card, "card", "fair_value",
                                                            labels, fdr), fdr)
        + " The spread is the root-mean-square of fair value − points over the cards with an "
        "estimate, corrected for the estimates' noise: smaller is more balanced.")


def draw_compared_cards(runs: Runs, result: Result, path: Path) -> object:
    """Change in completion rate per card, against the baseline."""
    return charts.compare_diffs(result["cards"], "card", runs.base, runs.labels[1:],
                                "completion_rate", path,
                                f"Change in completion rate per card, against {runs.base}",
                                "difference in completion rate")


# Game shape --------------------------------------------------------------------------------


def game_shape(run: Run) -> Result:
    """Game length, capped games, the Emperor, weather, actions and faults."""
    return tables.game_shape(run.tables)


def game_shape_compared(runs: Runs) -> Result:
    """Mean length (with a normal interval), capped games and the Emperor per run."""
    frames = []
    for g in runs.each(game_shape):
        f = g["summary"].copy()
        n = f["games"] - f["errors"]
        half = stats.Z * f["rounds_sd"] / np.sqrt(n.where(n > 0))
        f["rounds_mean_lo"], f["rounds_mean_hi"] = f["rounds_mean"] - half, \
            f["rounds_mean"] + half
        f["ok_games"] = n
        f["emperor_won_n"] = f["emperor_won"] * f["emperor_games"]
        frames.append(f)
    labels = runs.labels
    return {"shape": join([
        side_by_side(frames, labels, ["players"], "rounds_mean"),
        side_by_side(frames, labels, ["players"], "capped_rate", ("capped", "ok_games")),
        side_by_side(frames, labels, ["players"], "emperor_won",
                     ("emperor_won_n", "emperor_games")),
    ], ["players"])}


def game_shape_compared_text(runs: Runs, result: Result) -> str:
    """The player counts whose mean game length moved."""
    return ("Mean rounds per game (normal interval), capped games and the Emperor holder's "
            "win rate per run. "
            + significance_text("mean game length", significant(result["shape"], "players",
                                                                "rounds_mean", runs.labels)))


def draw_compared_lengths(runs: Runs, result: Result, path: Path) -> object:
    """Game length per run, games without error."""
    return charts.compare_lengths(
        {lab: t.ok_games["rounds"][t.ok_games["rounds"] >= 0]
         for t, lab in zip(runs.tables, runs.labels, strict=True)}, path)


# Paired comparisons with the baseline ------------------------------------------------------


def pairings(runs: Runs) -> list[Result]:
    """Per run after the baseline: why it cannot be paired with it, or the paired figures;
    with the sentence the comparison's introduction says about it (``note``)."""
    base, first = runs.base, runs.tables[0]
    found = []
    for t, lab in zip(runs.tables[1:], runs.labels[1:], strict=True):
        problem = compare.pairing_problem(first, t)
        if problem:
            found.append({"run": lab, "base": base, "note": problem, "paired": False})
            continue
        win, per_card, info = compare.paired_sections(first, t, base, lab, runs.replicates)
        found.append({
            "run": lab, "base": base, "paired": True, "win": win, "cards": per_card,
            "info": info,
            "note": f"{lab} is paired with {base}: same seed, participants, {t.players} "
                    f"players per game and format, {info['deals']} deals in common; "
                    f"{info['winner_changed']} of the {info['games_compared']} games played "
                    "in both changed winner."})
    return found


def paired_runs(runs: Runs) -> list[Result]:
    """The paired figures of each run that shares its deals with the baseline."""
    return [p for p in runs.get(pairings) if p["paired"]]


def paired_runs_text(runs: Runs, result: Result) -> str:
    """What the deals both runs played say: winners, cards and the set's balance."""
    lab, base, info, per_card = result["run"], result["base"], result["info"], result["cards"]
    changed = {name: [f"{r['card']} ({r[f'Δ{name}']:{spec}})" for _, r in per_card.iterrows()
                      if r[f"q_{name}"] <= balance.FDR]
               for name, spec in (("fair_value", "+.2f"), ("completion_rate", "+.3f"))}
    none = ("none tested (fewer than the "
            f"{stats.MIN_UNITS} deals in common an interval needs)"
            if info["deals"] < stats.MIN_UNITS else "none")
    return (
        f"The {info['deals']} deals both runs played, resampled together (the same "
        f"{runs.replicates} bootstrap draws of deals, within pairings, in both runs), so each "
        "interval is for the difference itself with the deals' luck cancelled. "
        f"{info['winner_changed']} of {info['games_compared']} games changed winner."
        "\n\n"
        "Cards whose fair value changed (Benjamini–Hochberg, false discovery rate "
        f"{balance.FDR:.0%} across the cards): {', '.join(changed['fair_value']) or none}. "
        "Cards whose completion rate changed: "
        f"{', '.join(changed['completion_rate']) or none}."
        "\n\n"
        "Balance of each set (spread of fair value − points over the cards, corrected for "
        f"noise): {base} {interval_text(info['spread_a'], 'spread')}, {lab} "
        f"{interval_text(info['spread_b'], 'spread')}; paired change of the raw spread "
        f"{interval_text(info, 'spread_change', '+.2f')} points (below 0: {lab} is more "
        "balanced).")


# The registry ------------------------------------------------------------------------------

SECTIONS: tuple[Section, ...] = (
    Section(
        "overview", "Overview",
        Form(overview, (Csv("overview", "overview", "Tournament", 100),), text=overview_text),
        Form(runs_overview, (Csv("runs", "runs", "Runs"),
                             Csv("options", "options", "Rule options that differ")),
             text=runs_text, title="Runs"),
    ),
    Section(
        "card_study", "Card value by experiment",
        Form(card_study, (Csv("cards", "study_cards", "Cards by intervention, strongest "
                              "evidence first", 150, STUDY_SHOWN),
                          Csv("copies", "study_copies", "Copies of one card, pooled",
                              shown=("level", "asks", "points", "effect", "efficiency",
                                     "flag")),
                          Csv("skill", "study_skill", "Effect by skill level",
                              shown=("card", "effect[*", "q_skill", "depends_on_skill")),
                          Csv("neighbours", "study_skill_neighbours",
                              "Change of effect between neighbouring levels",
                              shown=("card", "from", "to", "change", "pooled_change",
                                     "q_change", "flag")),
                          Csv("convergence", "study_convergence",
                              "Do prices converge? The spread of a category's effects by level",
                              shown=("category", "level", "spread", "change", "verdict")),
                          Csv("design", "study_design", "Sizes and detectable effects",
                              shown=("level", "games", "deals", "mde", "mde_points_bonferroni"))),
             (Chart("study_effects.png", "Effect of holding each card, by skill level",
                    draw_study_effects),
              Chart("study_fair_points.png", "Fair points minus points",
                    draw_study_fair_points)),
             card_study_text, when=is_study),
        None,
    ),
    Section(
        "standings", "Standings",
        Form(standings, (Csv("standings", "standings", "Standings",
                             shown=("participant", "games", "win_rate", "elo")),),
             (Chart("win_rates.png", "Win rate per participant", draw_win_rates),
              Chart("scores.png", "Score distribution per participant", draw_scores)),
             standings_text, in_study=False),
        Form(standings_compared,
             (Csv("standings", "compare_standings", "Standings side by side"),),
             (Chart("compare_win_rates.png", "Win rates per run", draw_compared_win_rates),),
             standings_compared_text),
    ),
    Section(
        "watch", "Games to watch",
        Form(games_to_watch, (Csv("chosen", "games_to_watch", "Games to watch",
                                     shown=("game", "why", "rounds")),),
             text=lambda run, result: watch.watch_text(result["chosen"], is_study(run))),
        None,  # a comparison links no games
    ),
    Section(
        "ratings", "Ratings",
        Form(ratings, (Csv("ratings", "ratings", "Ratings"),
                       Csv("los", "los", "Likelihood of superiority (row over column)"),
                       Csv("pairs", "rating_pairs", "Results per pair")),
             text=ratings_text, in_study=False),
        None,  # the comparison's standings carry each run's Elo
    ),
    Section(
        "head_to_head", "Head to head",
        Form(head_to_head, (Csv("matrix", "head_to_head", "Row ahead of column (rate)"),
                            Csv("pairs", "head_to_head_pairs",
                                "Every ordered pair, with intervals")),
             (Chart("head_to_head.png", "Head-to-head heat map", draw_head_to_head),),
             "How often the row finished ahead of the column in the games where both played "
             "(2 players: the row's win rate; a shared win or equal ranks count half), with "
             "Wilson intervals that treat games as independent; the paired analysis below "
             "shows how much the duplicate deals tighten them.", in_study=False),
        Form(head_to_head_compared,
             (Csv("pairs", "compare_head_to_head", "Row ahead of column"),),
             text=head_to_head_compared_text),
    ),
    Section(
        "paired", "Paired analysis over duplicate deals",
        Form(paired, (Csv("paired", "paired",
                          "Pentanomial-style counts and variance reduction",
                          shown=("participant", "opponents", "deals", "score",
                                 "variance_ratio")),),
             text=paired_text, in_study=False),
        None,  # between runs, the paired sections at the end compare over common deals
    ),
    Section(
        "tiebreaks", "Tie-breaks",
        Form(tiebreaks, (Csv("summary", "tiebreaks", "Tie-breaks per player count",
                             shown=("players", "games", "tied_rate", "panda_rate")),
                         Csv("participants", "tiebreak_participants",
                             "Tie-breaks per participant"),
                         Csv("margins", "margins", "Score margin between first and second")),
             text="R13.4: among seats tied on points, the most panda points wins; still "
             "tied, they share. Games stopped by an error are left out (see "
             "`errors_left_out`). `inconsistent` counts games whose `tiebreak` field "
             "disagrees with their scores (0 unless the engine has a bug). Per participant: "
             "games it was tied at the top of, wins and losses through the panda tie-break, "
             "shared wins. The margin is the top score minus the next one."),
        Form(tiebreaks_compared, (Csv("ties", "compare_tiebreaks", "Tie-break rates"),),
             text=tiebreaks_compared_text),
    ),
    Section(
        "seat_advantage", "Seat advantage",
        Form(seat_advantage, (Csv("seats", "seat_advantage", "Win rate per seat"),
                              Csv("tests", "seat_tests", "Test of no seat advantage")),
             (Chart("seat_advantage.png", "Win rate per seat",
                    lambda run, r, path: charts.seat_advantage(r["seats"], path)),),
             "Win rate per seat (seat 0 plays first), games without error. Each deal is "
             "played in every rotation, so every participant sits in every seat equally "
             "often and a difference between seats is the seat's, not the players'. The "
             "test is a chi-square goodness of fit of wins per seat (shared wins as "
             "fractions) against equal shares."),
        Form(seat_advantage_compared,
             (Csv("seats", "compare_seats", "Seat win rates"),
              Csv("tests", "compare_seat_tests", "Test of no seat advantage per run")),
             (Chart("compare_seats.png", "Seat win rates per run",
                    lambda runs, r, path: charts.compare_bars(
                        r["seats"], "key", runs.labels, "win_rate", path,
                        "Win rate per seat and run (95% Wilson interval)", "win rate")),),
             seat_advantage_compared_text),
    ),
    Section(
        "cards", "Objective-card balance",
        Form(cards, (Csv("cards", "cards", "Cards, strongest evidence first (deck order "
                         "where no card was tested)",
                         shown=("card", "points", "completion_rate", "fair_value", "flag")),
                     Csv("categories", "card_categories", "Categories",
                         shown=("category", "winners_share", "points_share",
                                "efficiency_ratio")),
                     Csv("model", "card_model", "The set as a whole",
                         shown=("games", "log_odds_per_point", "emperor_fair_value", "spread"))),
             (Chart("card_value.png", "Fair value minus points per card",
                    lambda run, r, path: charts.card_value(r["cards"], path)),
              Chart("card_completion.png", "Completion rate per card",
                    lambda run, r, path: charts.card_completion(r["cards"], path))),
             cards_text, in_study=False),
        Form(cards_compared, (Csv("cards", "compare_cards", "Cards"),
                              Csv("categories", "compare_card_categories", "Categories"),
                              Csv("spreads", "compare_spread",
                                  "Spread of fair value − points per run")),
             (Chart("compare_cards.png", "Change in completion rate per card",
                    draw_compared_cards),),
             cards_compared_text),
    ),
    Section(
        "game_shape", "Game shape",
        Form(game_shape, (Csv("summary", "game_shape", "Per player count",
                              shown=("players", "games", "rounds_mean", "capped_rate",
                                     "emperor_won")),
                          Csv("rounds", "rounds", "Games per number of rounds"),
                          Csv("weather", "weather", "Weather faces"),
                          Csv("actions", "actions", "Actions per participant",
                              shown=("participant", "games", "plot_per_game",
                                     "gardener_per_game", "panda_per_game")),
                          Csv("errors", "errors", "Games stopped by an error", 20)),
             (Chart("game_length.png", "Game length histogram",
                    lambda run, r, path: charts.game_length(r["rounds"], path)),),
             "Rounds per game, games that hit the round cap, and the Emperor's effect: how "
             "often the seat that took the Emperor won, against `chance` = 1/players. Error "
             "games are counted in `errors`, then left out. Weather: how often each face "
             "was rolled (a fair die gives 1/6 each). Actions: per participant, the mean "
             "number of each action per game, and its share of all the participant's "
             "actions."),
        Form(game_shape_compared, (Csv("shape", "compare_game_shape", "Game shape"),),
             (Chart("compare_rounds.png", "Game length per run", draw_compared_lengths),),
             game_shape_compared_text),
    ),
    Section(
        "paired_runs", "Paired comparison with the baseline",
        None,  # a single run has no baseline; its duplicate deals are the paired analysis
        Form(paired_runs, (Csv("win", "paired_win_rates_{run}", "Win rate, paired difference"),
                           Csv("cards", "paired_cards_{run}", "Cards, paired differences")),
             text=paired_runs_text, title="Paired: {run} against {base}", repeat=True),
    ),
)


def forms(kind: Kind) -> list[tuple[Section, Form[Any]]]:
    """The sections a kind of report shows, in the registry's order, with their form."""
    return [(s, f) for s in SECTIONS if (f := getattr(s, kind)) is not None]


def files(kind: Kind) -> tuple[str, ...]:
    """The CSV files, then the charts, that a kind of report writes, in section order; the
    files of a repeated section (named after each run paired with the baseline) are left
    out, their names being known only once the runs are."""
    names = [name for _, form in forms(kind) if not form.repeat and form.when is None
             for name in form.files()]
    return tuple(n for n in names if n.endswith(".csv")) + tuple(
        n for n in names if not n.endswith(".csv"))


# The headline ------------------------------------------------------------------------------


def headline(run: Run) -> list[str]:
    """Three lines for the first screen: who is best, by how much, and how sure.

    Read from the same (withheld) tables as the sections below, so the headline never says
    more than they do: with too few deals it says how many games would settle it.  A card
    study's headline is its strongest card, not the standings of a level against its copies.
    """
    t = run.tables
    deals, games = units(run)
    if len(t.games) == 0:
        return ["No games yet: nothing to rank.", "", ""]
    thin = deals < stats.MIN_UNITS
    needed = stats.games_needed(games, deals)
    short = (f"not yet: {int(deals)} deals, fewer than the {stats.MIN_UNITS} an interval "
             f"needs (about {int(needed)} games would carry one)")
    if is_study(run):
        return _study_headline(run, short if thin else "")
    st = guarded(run, standings)["standings"]
    top = st.iloc[0]
    best = (f"Best: {top['participant']}, {top['win_rate']:.1%} of its {int(top['games'])} "
            "games won" + ("" if math.isnan(top["win_rate_lo"]) else
                           f" [{top['win_rate_lo']:.1%}, {top['win_rate_hi']:.1%}]") + ".")
    if len(st) < 2:
        return [best, "By how much: no one else played.", "How sure: no one to compare with."]
    second = st.iloc[1]
    pair = _head_to_head(run, str(top["participant"]), str(second["participant"]))
    gap = (f"By how much: {100 * (top['win_rate'] - second['win_rate']):+.1f} points of win "
           f"rate over {second['participant']} ({second['win_rate']:.1%})")
    if pair.state == "perfect":
        won, lost = pair.record or (0, 0)
        gap += f", an Elo gap too large to measure (a perfect record, {won}–{lost})"
    elif not (math.isnan(top["elo"]) or math.isnan(second["elo"])):
        gap += f", {top['elo'] - second['elo']:+.0f} Elo"
    # The one rule (arena.stats.verdict): the line with fewer deals of the two decides whether
    # there is anything to be sure of, by the count its standings cell shows.
    fewer = min((top, second), key=lambda r: int(r.get("deals", deals)))
    carry = verdict.win_rate(float(fewer["win_share"]), int(fewer["games"]),
                             int(fewer.get("deals", deals)))
    if carry.state == "thin":
        return [best, gap + ".", f"How sure: {carry.settle()}."]
    if pair.state == "thin":
        return [best, gap + ".", f"How sure: between the two, {pair.settle()}."]
    los = guarded(run, ratings)["los"].set_index("participant")
    value = los.at[top["participant"], second["participant"]] if (
        top["participant"] in los.index and second["participant"] in los.columns) else math.nan
    sure = ("How sure: no decisive game between them." if value != value else
            "How sure: " + ("more than 99.9%" if value > 0.999 else f"{value:.1%}")
            + " likely the stronger of the two (LOS, from their decisive games)")
    if pair.state == "open":
        sure += f"; {pair.settle()}"
    return [best, gap + ".", sure.rstrip(".") + "."]


def _head_to_head(run: Run, a: str, b: str) -> verdict.Verdict:
    """The verdict on the Elo gap of ``a`` over ``b`` from their own games (arena.stats.verdict's
    rule): perfect only when their record is, thin below the deals an interval needs."""
    names = list(run.tables.participants)
    if a not in names or b not in names:
        return verdict.elo_gap(0, 0, 0, 0)
    i, j = names.index(a), names.index(b)
    pw = run.get(pairwise)
    mine = pw[((pw["a"] == i) & (pw["b"] == j)) | ((pw["a"] == j) & (pw["b"] == i))]
    if mine.empty:
        return verdict.elo_gap(0, 0, 0, 0)
    first = (mine["a"] == i).to_numpy()
    score = np.where(first, mine["outcome"].to_numpy(dtype=float),
                     1.0 - mine["outcome"].to_numpy(dtype=float))
    wins, losses = float((score == 1.0).sum()), float((score == 0.0).sum())
    return verdict.elo_gap(wins, losses, len(mine), int(mine["deal_key"].nunique()))


def _study_headline(run: Run, short: str) -> list[str]:
    """The study's strongest card, its measured worth, and the test's verdict."""
    result = guarded(run, card_study)
    found = result["cards"]
    if found.empty:
        return ["No complete deal yet: no card measured.", "", ""]
    # The designer's cards first (--price-cards, added cards): the study's question.
    mine = [f"Your card {line}" for line in experiment.designer_lines(
        result["exp"], result["levels"][0])] if result["levels"] else []
    # Several levels: the designer's "does this price hold for better players?".
    better = [f"Better players, {line}." for line in
              experiment.convergence_lines(result["convergence"])
              ] if result["convergence"] is not None and not short else []
    return mine + _strongest(found, short) + better


def _strongest(found: pd.DataFrame, short: str) -> list[str]:
    """The strongest card's three lines: what it does, by how much, how sure."""
    r = found.iloc[0]
    level = f" at level {r['level']}" if found["level"].nunique() > 1 else ""
    effect = (f"{r['effect']:+.3f}" if short or math.isnan(r["effect_lo"]) else
              f"{r['effect']:+.3f} [{r['effect_lo']:+.3f}, {r['effect_hi']:+.3f}]")
    first = (f"Strongest evidence: {r['card']} ({r['points']:g} points){level}; holding it "
             f"moves the win share by {effect} against its category's average card.")
    if not bool(r.get("priced", False)):
        worth = "By how much: its fair points were not measured (not played at other prices)."
    elif math.isnan(r["fair_points"]):
        need = r.get("fair_points_games_needed", math.nan)
        worth = ("By how much: its fair points are not resolved"
                 + (f" (about {int(need)} games needed)." if need == need else "."))
    elif math.isnan(r["fair_points_lo"]):
        worth = f"By how much: fair points {r['fair_points']:.1f} (no interval yet)."
    else:
        worth = (f"By how much: fair points {r['fair_points']:.1f} "
                 f"[{r['fair_points_lo']:.1f}, {r['fair_points_hi']:.1f}] against its "
                 f"{r['points']:g}.")
    if short:
        return [first, worth, f"How sure: {short}."]
    flags = [f.strip() for f in str(r["flag"]).split(",") if f.strip()]
    verdict = [f for f in flags if f in ("too strong", "too weak")]
    other = [f for f in flags if f not in verdict]
    q = "untested" if math.isnan(r["q_value"]) else f"q = {r['q_value']:.3f}"
    sure = (f"How sure: its effect is {'flagged ' + verdict[0] if verdict else 'not flagged'} "
            f"({q}; Benjamini–Hochberg across {len(found)} cards at {balance.FDR:.0%})"
            + (f"; also flagged {', '.join(other)}" if other else "") + ".")
    return [first, worth, sure]


def compare_headline(runs: Runs) -> list[str]:
    """Three lines for a comparison's first screen: who is best in each run, the largest
    change of win rate against the baseline, and how sure (the same withheld tables)."""
    tops = []
    for lab, run in zip(runs.labels, runs.runs, strict=True):
        st = guarded(run, standings)["standings"]
        if len(st):
            tops.append(f"{lab} {st.iloc[0]['participant']} ({st.iloc[0]['win_rate']:.1%})")
    best = "Best: " + "; ".join(tops) + "." if tops else "No games yet: nothing to rank."
    table = guarded(runs, standings_compared)["standings"]
    # Only a bot both runs had (by name and spec) has a change; one run's greedy against
    # another's is no change when their opponents differ, and no difference at all when the
    # two greedys are different bots.
    base = runs.tables[0]
    same = {lab: set(compare.common_participants(base, t))
            for lab, t in zip(runs.labels, runs.tables, strict=True)}
    changes = [(abs(float(r[f"Δwin_rate[{lab}]"])), r["participant"], lab, r)
               for lab in runs.labels[1:] for _, r in table.iterrows()
               if f"Δwin_rate[{lab}]" in table and r[f"Δwin_rate[{lab}]"] == r[f"Δwin_rate[{lab}]"]
               and r["participant"] in same[lab]]
    if not changes:
        return [best, "By how much: no win rate to compare.", "How sure: nothing to test."]
    _, who, lab, r = max(changes, key=lambda c: c[0])
    name = f"Δwin_rate[{lab}]"
    other = runs.tables[runs.labels.index(lab)]
    unpaired = compare.pairing_problem(base, other)
    gap = (f"By how much: the largest change of win rate against {runs.base} is {who}'s in "
           f"{lab}, {100 * r[name]:+.1f} points"
           + (" (unpaired: the deals or the line-ups differ, so the runs are compared as "
              "independent samples, and a change may be the opponents', not the bot's)."
              if unpaired else "."))
    deals, games = units(runs)
    if math.isnan(r[f"{name}_lo"]):
        needed = r.get(f"{name}_games_needed", math.nan)
        sure = (f"How sure: not yet: {int(deals)} deals, fewer than the {stats.MIN_UNITS} an "
                "interval needs" + (f" (about {int(needed)} games per run would carry one)."
                                    if needed == needed else "."))
    else:
        judged = verdict.from_interval(float(r[name]), float(r[f"{name}_lo"]),
                                       float(r[f"{name}_hi"]), int(games), int(deals))
        sure = (f"How sure: 95% interval [{100 * r[f'{name}_lo']:+.1f}, "
                f"{100 * r[f'{name}_hi']:+.1f}] points, "
                + ("which excludes no change." if judged.state == "settled" else
                   f"which includes no change; {judged.settle()} (in each run)."))
    return [best, gap, sure]
