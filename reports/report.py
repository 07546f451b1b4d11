"""One tournament's report, and :func:`write_report`, the entry point of ``arena report``.

The section texts are part of the report on purpose: a number whose method is not written
beside it gets misread (a win rate with shared wins, an interval that ignores the duplicate
deals), so each section says how its figures were computed and which games it counts.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from . import charts, tables, watch
from .loader import ReportError, Tables, card_set_hash, emperor_points, load
from .render import Section, Table, write_document

REPORT_DIR = "report"
COMPARE_DIR = "report-compare"
FILES = (
    "report.md", "report.html", "summary.txt", "overview.csv", "standings.csv", "ratings.csv",
    "los.csv", "rating_pairs.csv", "head_to_head.csv", "head_to_head_pairs.csv", "paired.csv",
    "tiebreaks.csv", "tiebreak_participants.csv", "margins.csv", "seat_advantage.csv",
    "seat_tests.csv", "cards.csv", "card_categories.csv", "card_model.csv", "game_shape.csv",
    "rounds.csv", "weather.csv", "actions.csv", "errors.csv", "win_rates.png",
    "head_to_head.png", "scores.png", "seat_advantage.png", "card_completion.png",
    "card_value.png", "game_length.png", "games_to_watch.csv",
)


def card_set_text(t: Tables) -> str:
    """The run's card set in a line: its hash and the cards whose points are not printed."""
    c = t.catalog
    changed = [f"{card} {printed:g}→{points:g}" for card, points, printed, removed in
               zip(c["card"], c["points"], c["printed"], c["removed"], strict=True)
               if not removed and points == points and printed == printed and points != printed]
    removed = list(c.loc[c["removed"], "card"])
    emperor = emperor_points(t.manifest)
    parts = [card_set_hash(t.manifest), f"Emperor {emperor}"]
    if changed:
        parts.append("points changed: " + ", ".join(changed))
    if removed:
        parts.append("removed: " + ", ".join(removed))
    if c["printed"].isna().all():
        parts.append("printed points not in the manifest")
    elif not changed and not removed:
        parts.append("printed points")
    return "; ".join(parts)


def overview(t: Tables) -> pd.DataFrame:
    """What was played: the manifest's facts beside the counts found in the games."""
    m = t.manifest
    g = t.games
    options = sorted(set(g["options"])) if len(g) else []
    rows: list[tuple[str, Any]] = [
        ("directory", str(t.source)),
        ("participants", ", ".join(t.participants)),
        ("players per game", t.players),
        ("format", m.get("format", "")),
        ("games per pairing asked", m.get("games", "")),
        ("games scheduled", m.get("scheduled", "")),
        ("games in games.jsonl", len(g)),
        ("games stopped by an error", int(g["error"].sum()) if len(g) else 0),
        ("capped games (max_rounds)", int(g["capped"].sum()) if len(g) else 0),
        ("deals (seeds)", int(g["deal_key"].nunique()) if len(g) else 0),
        ("master seed", m.get("seed", "")),
        ("rule options (manifest)", json.dumps(m.get("options", {}), sort_keys=True)),
        ("card set", card_set_text(t)),
        ("options differing from defaults (games)", "; ".join(options)),
        ("move time limit (s)", m.get("move_time", "")),
        ("arena version", m.get("arena_version", "")),
        ("started", m.get("started", "")),
        ("finished", m.get("finished") or "(not finished)"),
    ]
    return pd.DataFrame({"item": [r[0] for r in rows], "value": [str(r[1]) for r in rows]})


def card_text(model: pd.Series, players: int) -> str:
    """The card section's explanation, with the run's own figures in it."""
    fdr = float(model["fdr"])
    spread = ("not estimated (the games do not show that a point helps win)"
              if math.isnan(model["spread"]) else
              f"{model['spread']:.2f} points [{model['spread_lo']:.2f}, "
              f"{model['spread_hi']:.2f}]")
    return (
        "Per card, over games without error, most unbalanced first (largest |fair value − "
        "points|; cards without an estimate last). Every interval is a 95% bootstrap "
        f"interval over whole deals ({int(model['replicates'])} replicates, deals drawn "
        "within their pairing), because the rotations of one deal share its cards and luck."
        "\n\n"
        "- `asks`, `points`: what the card asks and its points in this run, from the run's "
        "manifest (its `catalog`).\n"
        "- `completion_rate`: completed / drawn (Wilson interval on the draws discounted by "
        "their design effect); `in_hand_at_end` = 1 − completion rate.\n"
        "- `turns_held`: the holder's turns from drawing the card to completing it.\n"
        "- `points_per_turn`: the card's points earned / turns it was held (to completion, or "
        "to the end when never completed): its efficiency.\n"
        "- `lift`: win rate of the seats that completed it minus that of the seats that "
        "drew it and did not (association, not cause).\n"
        "- `fair_value`: the points an average card would need to move the odds of winning "
        "as much as completing this one, from a logistic regression of winning on the cards "
        "completed, the Emperor, the player count and the participant (so a strong bot's "
        "favourite cards are not credited with its strength); divided by the exchange rate "
        "(log-odds per point: the slope of the cards' coefficients on their points), which "
        "is re-estimated in every replicate so its uncertainty is in the interval. "
        "`imbalance` = fair value − points.\n"
        "- `p_value`/`q_value`: the test of fair value = points and its Benjamini–Hochberg "
        f"adjustment across the {int(model['cards_modelled'])} cards with an estimate.\n"
        "- `games_needed`: about how many games (of this kind) would make the fair value's "
        "error small enough to detect a one-point imbalance (5% two-sided, 80% power).\n"
        "- `flag`: `worth more`/`worth less` when q ≤ "
        f"{fdr:.2f}; `dead` when the completion rate is below half the rest of its category "
        f"(`category_rate`) and a one-sided test says so at q ≤ {fdr:.2f}; `efficient`/"
        "`inefficient` when its points per turn differ from the rest of its category's at "
        f"q ≤ {fdr:.2f}. Multiple testing: each flag kind is decided by the Benjamini–"
        f"Hochberg procedure across the cards, so at most about {fdr:.0%} of the cards "
        "flagged are flagged by chance."
        "\n\n"
        f"The set as a whole: a point is worth {model['log_odds_per_point']:.3f} "
        f"[{model['log_odds_per_point_lo']:.3f}, {model['log_odds_per_point_hi']:.3f}] "
        f"log-odds of winning; the Emperor ({model['emperor_points']:g} points) is worth "
        f"{model['emperor_fair_value']:.1f} [{model['emperor_fair_value_lo']:.1f}, "
        f"{model['emperor_fair_value_hi']:.1f}] points (it goes to whoever finishes first, "
        "so it also carries the value of finishing first); the spread of fair value − points "
        f"across the cards, corrected for noise, is {spread}: the smaller, the better "
        "balanced the set. Cards completed fewer than "
        f"{int(model['min_completions'])} times get no fair value."
        "\n\n"
        "Per category: the share of the winners' points (shared wins weighted by their "
        "fraction) and of all points that came from each category and from the Emperor, "
        "beside the category's share of the set's points; its completion rate and points per "
        "turn, and `efficiency_ratio`, its points per turn over the deck's (1 = parity)."
    )


def analyse(t: Tables, out: Path, replicates: int = tables.REPLICATES) -> list[Section]:
    """Every table and chart of a one-tournament report; charts are written into ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    empty = len(t.games) == 0
    pairs = tables.pairwise(t)
    rt = tables.ratings(t, replicates=replicates, pairs=pairs)
    st = tables.standings(t, rt["ratings"])
    h2h = tables.head_to_head(t, pairs=pairs)
    pd_ = tables.paired(t)
    tb = tables.tiebreaks(t)
    sa = tables.seat_advantage(t)
    cb = tables.card_balance(t, replicates=replicates)
    gs = tables.game_shape(t)
    players = t.players

    charts.win_rates(st, players, out / "win_rates.png")
    order = [p for p in st["participant"] if p in set(h2h["matrix"]["participant"])]
    ordered = h2h["matrix"].set_index("participant").reindex(index=order, columns=order)
    charts.head_to_head(ordered.reset_index(), out / "head_to_head.png")
    charts.scores(t.seats, list(st["participant"]), out / "scores.png")
    charts.seat_advantage(sa["seats"], out / "seat_advantage.png")
    charts.card_completion(cb["cards"], out / "card_completion.png")
    charts.card_value(cb["cards"], out / "card_value.png")
    charts.game_length(gs["rounds"], out / "game_length.png")
    (out / "summary.txt").write_text(tables.summary_text(st) + "\n", encoding="utf-8")

    notes = "\n".join(f"- {w}" for w in t.warnings)
    intro = "**No games**: games.jsonl holds no finished game yet, so every table is empty." \
        if empty else (
            f"{len(t.games)} games between {len(t.participants)} participants, "
            f"{players} per game. Every figure below is computed from these game records; "
            "every rate comes with its 95% confidence interval, written `x [lo, hi]`.")
    if notes:
        intro += "\n\nWarnings while reading the files:\n\n" + notes

    rating_text = (
        "Bradley–Terry Elo (mean 0) from every game" if players == 2 else
        "Bradley–Terry Elo (mean 0) from who finished ahead of whom, and openskill's "
        "Plackett–Luce `mu`, `sigma` and `ordinal` = mu − 3 sigma")
    sections = [
        Section("Overview", intro, [Table("overview", "Tournament", overview(t), 100)]),
        Section(
            "Standings",
            "A shared victory between k seats counts 1/k of a win in `win_share` and "
            "`win_rate`; `wins` (outright, the panda tie-break included) and `shared_wins` are "
            "the raw counts. The win rate's interval is Wilson's. `errors`: games this "
            "participant lost by a crash, an illegal move or a timeout (counted as losses). "
            "`capped`: games that hit the round cap (kept, scored as they stood). Sorted by "
            "the Bradley–Terry Elo of the next section"
            + ("." if players == 2 else " (from who finished ahead of whom; openskill's "
               "`ordinal` is shown too, but its online updates depend on the game order)."),
            [Table("standings", "Standings", st)],
            [("win_rates.png", "Win rate per participant"),
             ("scores.png", "Score distribution per participant")],
        ),
        Section(
            "Ratings",
            f"{rating_text}. The Elo interval is the 2.5–97.5 percentile range over "
            f"{replicates} bootstrap resamples of whole deals within each pairing: the games of "
            "one deal share its seed and are not independent, so resampling single games would "
            "give intervals too narrow. Ratings are clipped at ±999 Elo (a perfect record has "
            "no finite estimate). LOS, the likelihood of superiority of the row over the "
            "column, is Phi((W − L) / sqrt(W + L)) over their direct decisive results, as "
            "cutechess prints it."
            + ("" if players == 2 else " openskill updates game by game (in game-id order); "
               "its sigma is the filter's uncertainty about mu, not a sampling interval."),
            [Table("ratings", "Ratings", rt["ratings"]),
             Table("los", "Likelihood of superiority (row over column)", rt["los"]),
             Table("rating_pairs", "Results per pair", rt["pairs"])],
        ),
        Section(
            "Head to head",
            "How often the row finished ahead of the column in the games where both played "
            "(2 players: the row's win rate; a shared win or equal ranks count half), with "
            "Wilson intervals that treat games as independent; the paired analysis below "
            "shows how much the duplicate deals tighten them.",
            [Table("head_to_head", "Row ahead of column (rate)", h2h["matrix"]),
             Table("head_to_head_pairs", "Every ordered pair, with intervals", h2h["pairs"])],
            [("head_to_head.png", "Head-to-head heat map")],
        ),
        Section(
            "Paired analysis over duplicate deals",
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
            "`all` pools a participant's deals against everyone.",
            [Table("paired", "Pentanomial-style counts and variance reduction", pd_)],
        ),
        Section(
            "Tie-breaks",
            "R13.4: among seats tied on points, the most panda points wins; still tied, they "
            "share. Games stopped by an error are left out (see `errors_left_out`). "
            "`inconsistent` counts games whose `tiebreak` field disagrees with their scores "
            "(0 unless the engine has a bug). Per participant: games it was tied at the top "
            "of, wins and losses through the panda tie-break, shared wins. The margin is the "
            "top score minus the next one.",
            [Table("tiebreaks", "Tie-breaks per player count", tb["summary"]),
             Table("tiebreak_participants", "Tie-breaks per participant", tb["participants"]),
             Table("margins", "Score margin between first and second", tb["margins"])],
        ),
        Section(
            "Seat advantage",
            "Win rate per seat (seat 0 plays first), games without error. Each deal is played "
            "in every rotation, so every participant sits in every seat equally often and a "
            "difference between seats is the seat's, not the players'. The test is a "
            "chi-square goodness of fit of wins per seat (shared wins as fractions) against "
            "equal shares.",
            [Table("seat_advantage", "Win rate per seat", sa["seats"]),
             Table("seat_tests", "Test of no seat advantage", sa["tests"])],
            [("seat_advantage.png", "Win rate per seat")],
        ),
        Section(
            "Objective-card balance",
            card_text(cb["model"].iloc[0], players),
            [Table("cards", "Cards, most unbalanced first", cb["cards"]),
             Table("card_categories", "Categories", cb["categories"]),
             Table("card_model", "The set as a whole", cb["model"])],
            [("card_value.png", "Fair value minus points per card"),
             ("card_completion.png", "Completion rate per card")],
        ),
        Section(
            "Game shape",
            "Rounds per game, games that hit the round cap, and the Emperor's effect: how "
            "often the seat that took the Emperor won, against `chance` = 1/players. Error "
            "games are counted in `errors`, then left out. Weather: how often each face was "
            "rolled (a fair die gives 1/6 each). Actions: per participant, the mean number of "
            "each action per game, and its share of all the participant's actions.",
            [Table("game_shape", "Per player count", gs["summary"]),
             Table("rounds", "Games per number of rounds", gs["rounds"]),
             Table("weather", "Weather faces", gs["weather"]),
             Table("actions", "Actions per participant", gs["actions"]),
             Table("errors", "Games stopped by an error", gs["errors"], 20)],
            [("game_length.png", "Game length histogram")],
        ),
    ]
    chosen = watch.games_to_watch(t, watch.flagged_cards(cb["cards"]))
    sections.insert(2, Section("Games to watch", watch.watch_text(chosen),
                               [Table("games_to_watch", "Games to watch", chosen)]))
    return sections


def writable(folder: Path) -> Path:
    """The report's folder, made now: a folder that cannot be written is said before the
    analysis (minutes on a big tournament) rather than after it."""
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
    loaded = [d if isinstance(d, Tables) else load(d, strict=strict) for d in dirs]
    paths = [t.source for t in loaded]
    if len(loaded) == 1:
        t = loaded[0]
        target = writable(Path(out) if out is not None else paths[0] / REPORT_DIR)
        sections = analyse(t, target, replicates)
        return write_document(f"Tournament report: {t.label}", sections, target)
    from .compare import compare

    target = writable(Path(out) if out is not None else paths[0] / COMPARE_DIR)
    sections = compare(loaded, target, replicates)
    labels = ", ".join(t.label for t in loaded)
    return write_document(f"Comparison of tournaments: {labels}", sections, target)
