"""``arena balance design``: a search for the card set and rule options that meet a designer's
goals for the whole game (``goals.py``), each candidate measured by the arena's experiments.

The search is optuna's TPE sampler, as ``arena bots tune`` uses (a well-kept library: it takes
integer and categorical dimensions alike, models where good candidates cluster rather than
trusting one noisy score, and its SQLite storage makes the run resumable).  A candidate's
*loss* is the sum over the goals of how far each figure lies outside its band, in the
figure's units (``goals.FIGURES``: a point of win rate, a tenth of a point of spread or of
the Emperor's value, half a round): 0 when every goal is met.

Card prices are not left to a blind search: each card study measures every priced card's
price line, and the line says where a card's fair points are.  So after each trial the price
line's proposal (``tune.suggest`` on the best candidate's study, its fair points pooled over
the trials played under the same Emperor and rules) is queued as the next trial when it has
not been tried; otherwise TPE samples one.  The proposal follows the tuning loop's rules: a
card moves only as far as its measured price line says, no further than the prices played,
and a card found dead (its value does not respond to its price) is never re-priced, by the
proposal or by TPE — it keeps its points and the run says "dead: change what it asks, not its
points".  The spread is taken over the cards the search may move (the space's priced cards
less the dead), as the loop's is.

The Emperor's figures (``emperor_fair_value``, ``emperor_gap`` = fair value − its points)
are read from the same card study, by the tournament's card regression on its games
(:func:`_emperor_figures`): a goal on them plays the study, without price arms unless a
spread goal asks for them, and no game more.

Every trial plays the same deals (the goals file's seed: common random numbers), so two
candidates differ by their set and not by their luck.  The run stops when a trial meets every
goal, when the next trial would pass the ``--games`` budget, or when TPE only proposes
candidates already measured.  The best trials (least loss) are then measured again on fresh
deals, in order, until one meets every goal there (at most ``CONFIRM``, within the budget:
the search stops while the next trial and one confirmation still fit, and a budget too
small for the start's trial and its confirmation is refused before any game), and that
one's figures, with their intervals, are the run's
answer (or the least loss confirmed).  A goal
no candidate met and whose every interval lay outside its band is reported as unreachable in
the space searched, with its closest figure; never as met.

Files in DIR: ``design.json`` (the goals and budget), ``design.db`` (optuna's trials),
``trials/`` (each candidate's games, by its key), ``confirm/``, ``candidates.csv`` (a row
per trial: parameters, figures, intervals, loss), ``best.json``, ``best-cards.json`` (a
``--cards`` file) and ``design.html`` with ``design.png``.
"""

from __future__ import annotations

import hashlib
import json
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from arena.balance.goals import Goal, Goals, GoalsError
from arena.balance.study import run_study, study_config
from arena.bot_tune.tune import open_study
from arena.engine import CardSet, RuleOptions
from arena.jail.sandbox import Isolation, parse_participant
from arena.play.seeds import derive_seed
from arena.runs.outputs import interrupts_held, write_text_whole
from arena.runs.store import MANIFEST
from arena.stats.intervals import MIN_UNITS, Z, carried, wilson
from arena.stats.verdict import games_to_settle
from arena.tournament import RunSettings, run_tournament
from arena.tournament.schedule import TournamentConfig, against_copies, make_schedule

SETTINGS = "design.json"
STUDY_DB = "design.db"
BEST = "best.json"
BEST_CARDS = "best-cards.json"
CANDIDATES = "candidates.csv"
#: TPE asked this many times in a row for candidates already measured: the next candidate
#: is an unmeasured one of the space, nearest the best (when the space can be listed).
NUDGE = 3
#: ... and, in a space too large to list, this many times: the search stops.
REPEATS = 25
#: A space of at most this many candidates is listed to find the unmeasured ones.
LISTABLE = 20_000
#: At most this many of the best candidates are played again on fresh deals.
CONFIRM = 3


class DesignInterrupted(Exception):
    """Ctrl-C: every finished game and trial is kept; the message says how to go on."""


@dataclass(frozen=True)
class Candidate:
    """A point of the search space: points of the space's cards, the Emperor's points (None:
    the start's) and rule options (the space's names only)."""

    points: dict[str, int] = field(default_factory=dict)
    emperor: int | None = None
    rules: dict[str, Any] = field(default_factory=dict)
    #: Per card of the space's ``decks``: whether it is in its deck.
    decks: dict[str, bool] = field(default_factory=dict)

    def params(self) -> dict[str, Any]:
        """The candidate as optuna's parameters (``points.ID``, ``emperor``, ``rules.NAME``,
        ``in.ID``)."""
        out: dict[str, Any] = {f"points.{c}": p for c, p in self.points.items()}
        out.update({f"in.{c}": v for c, v in self.decks.items()})
        if self.emperor is not None:
            out["emperor"] = self.emperor
        out.update({f"rules.{r}": v for r, v in self.rules.items()})
        return out

    @classmethod
    def from_params(cls, params: dict[str, Any]) -> Candidate:
        points = {k[7:]: int(v) for k, v in params.items() if k.startswith("points.")}
        rules = {k[6:]: v for k, v in params.items() if k.startswith("rules.")}
        decks = {k[3:]: bool(v) for k, v in params.items() if k.startswith("in.")}
        emperor = params.get("emperor")
        return cls(points, None if emperor is None else int(emperor), rules, decks)

    @property
    def key(self) -> str:
        """A short stable name: the folder of the candidate's games."""
        text = json.dumps(self.params(), sort_keys=True)
        return hashlib.blake2b(text.encode(), digest_size=6).hexdigest()

    def card_set(self, goals: Goals, name: str = "") -> CardSet:
        table = list(goals.start.cards.points)
        for card, points in self.points.items():
            table[goals.index(card)] = points
        removed = set(goals.start.cards.removed)
        for card, kept in self.decks.items():
            (removed.discard if kept else removed.add)(goals.index(card))
        return replace(goals.start.cards, points=tuple(table), removed=frozenset(removed),
                       name=name or f"design {self.key}")

    def options(self, goals: Goals) -> RuleOptions:
        data = {**goals.options.to_dict(), **self.rules}
        if self.emperor is not None:
            data["emperor_points"] = self.emperor
        return RuleOptions.from_dict(data)

    def moves(self, start: Candidate) -> list[str]:
        """What differs from ``start``, in words (``panda-06 7→4``, ``emperor 2→3``)."""
        out = [f"{c} {start.points[c]}→{p}" for c, p in self.points.items()
               if p != start.points.get(c)]
        if self.emperor is not None and self.emperor != start.emperor:
            out.append(f"emperor {start.emperor}→{self.emperor}")
        out += [f"{r} {_text(start.rules.get(r))}→{_text(v)}" for r, v in self.rules.items()
                if v != start.rules.get(r)]
        out += [f"{c} {'back in its deck' if v else 'out of its deck'}"
                for c, v in self.decks.items() if v != start.decks.get(c)]
        return out


def _text(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def start_candidate(goals: Goals) -> Candidate:
    """The goals file's starting set and rules, as a candidate: trial 0."""
    space = goals.space
    options = goals.options.to_dict()
    return Candidate(
        {c: goals.start.cards.points[goals.index(c)] for c in space.points},
        goals.options.emperor_points if space.emperor else None,
        {r: options[r] for r in space.rules},
        {c: goals.index(c) not in goals.start.cards.removed for c in space.decks})


# --------------------------------------------------------------------- measuring a candidate


def _unmeasured(goals: Goals, dead: set[str], tried: set[str], near: Candidate,
                start: Candidate) -> Candidate | bool | None:
    """The unmeasured candidate of the space nearest ``near`` (whole-number steps, one per
    changed choice; ties in the space's order); False when every candidate was measured;
    None when the space is too large to list.  TPE asks again for a measured candidate once
    its model has settled, which says nothing of the candidates it never tried: a search
    that stopped there would call a space "spent" with values never played."""
    import itertools
    import math

    import optuna.distributions as od

    dims = _distributions(goals, dead)
    choices = [list(range(d.low, d.high + 1)) if isinstance(d, od.IntDistribution)
               else list(d.choices) for d in dims.values()]
    if math.prod(len(c) for c in choices) > LISTABLE:
        return None
    here = near.params()

    def distance(params: dict[str, Any]) -> float:
        total = 0.0
        for name, value in params.items():
            was = here.get(name)
            if isinstance(value, bool) or not isinstance(value, int) or not isinstance(was, int):
                total += value != was
            else:
                total += abs(value - was)
        return total

    best: tuple[float, Candidate] | None = None
    for values in itertools.product(*choices):
        params = dict(zip(dims, values, strict=True))
        for card in dead:
            params[f"points.{card}"] = near.points[card]
        cand = Candidate.from_params({**start.params(), **params})
        if cand.key in tried:
            continue
        d = distance(params)
        if best is None or d < best[0]:
            best = (d, cand)
    return False if best is None else best[1]


@dataclass
class Measured:
    """A candidate's figures (``{key: {value, lo, hi, games, note}}``), the games played for
    it, and its card study with its analysis (the price lines) when its prices were measured
    (a spread goal)."""

    figures: dict[str, dict[str, Any]]
    games: int
    study: tuple[Any, dict[str, Any]] | None = None
    dead: dict[str, str] = field(default_factory=dict)


def _ran(result: Any, folder: Path) -> int:
    if not result.finished:
        raise DesignInterrupted(f"stopped in {folder} ({result.done} of {result.total} games "
                                "kept)")
    return int(result.total)


def plan(goals: Goals, cand: Candidate, seed: int) -> list[tuple[str, TournamentConfig]]:
    """What ``measure`` plays for ``cand``: ``(sub-folder, configuration)`` per experiment.
    Written once so that the games a trial costs are known before any is played
    (:func:`trial_games`): the budget is checked against them, not against a guess."""
    cards, options = cand.card_set(goals), cand.options(goals)
    out: list[tuple[str, TournamentConfig]] = []
    if goals.needs_study:
        priced = list(goals.space.points) if goals.needs_prices else []
        out.append(("study", study_config([goals.bot], deals=goals.deals,
                                          players=goals.players, seed=seed, cards=cards,
                                          options=options, categories=goals.categories,
                                          priced=priced, offsets=goals.offsets)))
    if goals.needs_seats:
        out.append(("seats", against_copies(goals.bot, goals.bot, goals.players,
                                            games=goals.match_games, seed=seed,
                                            options=options, cards=cards)))
    for k, goal in enumerate(g for g in goals.goals if g.figure == "skill"):
        out.append((f"skill-{k}", against_copies(
            parse_participant(goal.winner, Isolation()), parse_participant(goal.loser, Isolation()),
            goals.players,
            games=goals.match_games, seed=seed, options=options, cards=cards)))
    return out


def trial_games(goals: Goals, cand: Candidate) -> int:
    """The games one measurement of ``cand`` plays (a trial, or a confirmation)."""
    return sum(make_schedule(config).total for _name, config in plan(goals, cand, goals.seed))


def most_games(goals: Goals) -> int:
    """The most games any candidate's measurement plays: the space's deck cards all in
    (a card out of its deck is not studied, so it costs nothing); points, the Emperor and
    rule options do not change how many games are played."""
    start = start_candidate(goals)
    return trial_games(goals, replace(start, decks={c: True for c in start.decks}))


def budget_problem(goals: Goals, budget: int) -> str | None:
    """Why ``budget`` cannot pay for the start's trial and its confirmation on fresh
    deals (the least a run plays), with the least that can; None when it can."""
    least = 2 * trial_games(goals, start_candidate(goals))
    if budget >= least:
        return None
    return (f"--games {budget:,} cannot pay for one trial and its confirmation on fresh "
            f"deals: a trial plays {least // 2:,} games, so the run needs at least "
            f"--games {least:,}")


def measure(goals: Goals, cand: Candidate, folder: Path, seed: int,
            settings: RunSettings) -> Measured:
    """Play what the goals need for ``cand`` into ``folder`` (resumed where games exist)."""
    figures: dict[str, dict[str, Any]] = {}
    games = 0
    study = None
    dead: dict[str, str] = {}
    for name, config in plan(goals, cand, seed):
        where = folder / name
        if name == "study":
            from arena.balance.tune import suggest
            from reports import experiment

            played = _ran(run_study(config, where, resume=(where / MANIFEST).is_file(),
                                    settings=settings), where)
            games += played
            if goals.needs_prices:
                exp = experiment.load(where)
                analysis = experiment.analyse(exp)
                level = analysis["levels"][0]
                # The tuning loop's rules: which cards are dead (never re-priced) and so
                # left out of the spread, as the loop leaves them out of its own.
                verdict = suggest(exp, 0, analysis)
                dead = {c: w for c, w, d in zip(verdict["card"], verdict["why"],
                                                verdict["dead"], strict=True)
                        if d and c in goals.space.points}
                movable = [c for c in goals.space.points if c not in dead]
                s = experiment.spread(level[level["card"].isin(movable)])
                waiting = level[level["card"].isin(movable) & level["fair_points"].isna()]
                needed = waiting["fair_points_games_needed"].max() if len(waiting) else None
                figures["card_spread"] = {
                    "value": s["spread"], "lo": s["spread_lo"], "hi": s["spread_hi"],
                    "games": played, "deals": goals.deals, "cards": int(s["cards"]),
                    "movable": len(movable),
                    "note": f"over {s['cards']} of the {len(movable)} movable cards"
                    + (f"; the others' fair points not resolved: about {int(needed):,} games "
                       "would resolve them" if needed is not None and math.isfinite(needed)
                       else "")
                    + (f"; dead: {', '.join(sorted(dead))}" if dead else "")}
                study = (exp, analysis)
            if goals.needs_emperor:
                figures.update(_emperor_figures(where))
            continue
        result = run_tournament(config, where, resume=(where / MANIFEST).is_file(),
                                settings=settings)
        games += _ran(result, where)
        if name == "seats":
            figures.update(_seat_figures(where, goals.players))
        else:
            goal = [g for g in goals.goals if g.figure == "skill"][int(name[6:])]
            line = result.standings.lines[config.participants[0].name]
            figures[goal.key] = _rate(line.share, line.games, goals.players)
    return Measured(figures, games, study, dead)


def _emperor_figures(folder: Path) -> dict[str, dict[str, Any]]:
    """The Emperor's fair value and its gap to its points, from the card study's games.

    The card study prices objective cards by intervention; the Emperor is never handed out
    at another price, so its figure is the tournament's card regression
    (``reports/balance.py``) run on the study's games: the log-odds of winning that taking
    the Emperor adds, over those a point of completed objective cards adds, with its
    bootstrap interval over deals.  It describes the games rather than measuring a price:
    whoever takes the Emperor finished first, so the figure carries that too (greedy, two
    players: 9.4 [7.9, 11.3] points for the printed 2, and 5.5 at 0 points; docs/balance.md,
    section 8's worked example).

    Unresolved, neither figure has a value, so no goal on it is met by accident: below
    ``MIN_UNITS`` deals, or while a point's worth in log-odds is not known to be positive
    (every fair value is then a ratio over something that may be 0); the note says "not
    enough games" and, when it can, about how many would do."""
    import reports
    from reports import balance

    info = balance.analyse(reports.load(folder))["info"]
    points = float(info["emperor_points"])
    deals, games = int(info["deals"]), int(info["games"])
    value = info.get("emperor_fair_value", math.nan)
    lo, hi = info.get("emperor_fair_value_lo", math.nan), info.get("emperor_fair_value_hi",
                                                                   math.nan)
    if carried(deals, games):
        note = (f"not enough games: {deals} deals of the {MIN_UNITS} an interval needs"
                + (f", about {math.ceil(games * MIN_UNITS / deals):,} games" if deals else ""))
    elif not info.get("priced") or not all(map(math.isfinite, (value, lo, hi))):
        needed = info.get("lambda_games_needed", math.nan)
        note = ("not enough games: a point's worth in log-odds is not resolved"
                + (f" (about {math.ceil(needed):,} games needed)" if math.isfinite(needed)
                   else ""))
    else:
        note = (f"the card regression over {deals} deals; the Emperor at {points:g} "
                f"point{'' if points == 1 else 's'}")
        return {"emperor_fair_value": {"value": value, "lo": lo, "hi": hi, "games": games,
                                       "points": points, "note": note},
                "emperor_gap": {"value": value - points, "lo": lo - points,
                                "hi": hi - points, "games": games, "points": points,
                                "note": note}}
    unresolved = {"value": None, "lo": None, "hi": None, "games": games, "points": points,
                  "note": note}
    return {"emperor_fair_value": dict(unresolved), "emperor_gap": dict(unresolved)}


def _rate(share: float, games: int, players: int) -> dict[str, Any]:
    """A win rate with its Wilson interval; below the reports' size, no interval."""
    thin = carried(int(games) // players, int(games))
    lo, hi = wilson(share, games) if games else (math.nan, math.nan)
    return {"value": share / games if games else math.nan,
            "lo": None if thin else lo, "hi": None if thin else hi, "games": int(games),
            "deals": int(games) // players, "note": thin or ""}


def _seat_figures(folder: Path, players: int) -> dict[str, dict[str, Any]]:
    """The first seat's win rate and the mean game length (interval over deals: the games of
    one deal share its tiles and cards, so they are not independent)."""
    import reports

    tables = reports.load(folder)
    seats = tables.ok_seats
    first = seats[seats["seat"] == 0]
    out = {"first_seat_win_rate": _rate(float(first["share"].sum()), len(first), players)}
    games = tables.ok_games
    games = games[games["rounds"] > 0]
    per_deal = games.groupby("deal")["rounds"].mean().to_numpy(float)
    n = len(per_deal)
    mean = float(games["rounds"].mean()) if len(games) else math.nan
    thin = carried(n, len(games))
    if n > 1 and not thin:
        from scipy import stats as sps

        half = float(sps.t.ppf(0.975, n - 1) * per_deal.std(ddof=1) / math.sqrt(n))
        lo, hi = mean - half, mean + half
    else:
        lo = hi = None
    out["rounds"] = {"value": mean, "lo": lo, "hi": hi, "games": len(games), "deals": n,
                     "note": thin or ""}
    return out


def loss(goals: Goals, figures: dict[str, dict[str, Any]]) -> float:
    return float(sum(g.miss(figures.get(g.key, {}).get("value", math.nan))
                     for g in goals.goals))


def settled(goal: Goal, fig: dict[str, Any] | None) -> bool:
    """Whether a figure meets its goal by its 95% interval, not by its estimate alone: a
    spread of 0.00 [0.00, 0.85] against ``<= 0.5`` is not known to be met (a noise-corrected
    spread's estimate sits at 0 whenever its noise is large), so it stops no search and is
    never printed "met"."""
    if not fig or fig.get("value") is None or not goal.met(fig["value"]):
        return False
    lo, hi = fig.get("lo"), fig.get("hi")
    return lo is not None and hi is not None and goal.low <= lo and hi <= goal.high


def all_met(goals: Goals, figures: dict[str, dict[str, Any]]) -> bool:
    return all(settled(g, figures.get(g.key)) for g in goals.goals)


def to_settle(goal: Goal, fig: dict[str, Any] | None) -> tuple[int, int] | None:
    """``(deals, games)`` of one measurement that would put a figure in the band by its
    interval, where its estimate already is: the power calculation of ``arena.stats.verdict``
    (95%, 80% power) for the gap between the estimate and the band's edge its interval
    crosses, from the observed spread (the interval's half-width on that side, over the
    deals measured).  None when the estimate is outside the band or nothing is known."""
    if not fig or fig.get("value") is None or not goal.met(fig["value"]):
        return None
    v, lo, hi = fig["value"], fig.get("lo"), fig.get("hi")
    deals, games = fig.get("deals"), fig.get("games")
    if lo is None or hi is None or not deals or not games:
        return None
    worst = 0.0
    for half, gap in ((v - lo, v - goal.low), (hi - v, goal.high - v)):
        if half > gap:  # this side of the interval crosses the band's edge
            if gap <= 0:
                return None
            n = games_to_settle(gap, half / Z * math.sqrt(deals))
            worst = max(worst, n)
    if not math.isfinite(worst) or worst <= 0:
        return None
    need = max(int(deals) + 1, math.ceil(worst))
    return need, math.ceil(need * games / deals)


# --------------------------------------------------------------------------- the search


def _distributions(goals: Goals, fixed: set[str]) -> dict[str, Any]:
    import optuna.distributions as od

    out: dict[str, Any] = {}
    for card, (lo, hi) in goals.space.points.items():
        if card not in fixed:
            out[f"points.{card}"] = od.IntDistribution(lo, hi)
    if goals.space.emperor:
        out["emperor"] = od.IntDistribution(*goals.space.emperor)
    for name, values in goals.space.rules.items():
        out[f"rules.{name}"] = od.CategoricalDistribution(list(values))
    for card in goals.space.decks:
        out[f"in.{card}"] = od.CategoricalDistribution([True, False])
    return out


@dataclass
class Trial:
    """A finished trial as ``best.json`` keeps it."""

    number: int
    candidate: Candidate
    source: str
    figures: dict[str, dict[str, Any]]
    loss: float
    games: int
    seconds: float
    dead: dict[str, str] = field(default_factory=dict)

    def record(self, start: Candidate) -> dict[str, Any]:
        return {"number": self.number, "source": self.source,
                "params": self.candidate.params(), "moves": self.candidate.moves(start),
                "figures": self.figures, "loss": self.loss, "games": self.games,
                "seconds": round(self.seconds, 1), "dead": self.dead}


def _trial(t: Any) -> Trial:
    a = t.user_attrs
    return Trial(t.number, Candidate.from_params(a["candidate"]), a.get("source", "TPE"),
                 a["figures"], float(t.value), int(a["games"]), float(a.get("seconds", 0.0)),
                 a.get("dead", {}))


def _json_safe(figures: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """NaN as None (optuna's attributes and best.json are JSON)."""
    def clean(v: Any) -> Any:
        if isinstance(v, float) and not math.isfinite(v):
            return None
        if isinstance(v, (np.floating, np.integer)):
            return clean(v.item())
        return v
    return {k: {f: clean(v) for f, v in d.items()} for k, d in figures.items()}


def saved_goals(directory: Path) -> Goals:
    """The goals of the design run in ``directory`` (``--resume DIR`` without GOALS)."""
    from arena.balance.goals import parse

    try:
        saved = json.loads((Path(directory) / SETTINGS).read_text(encoding="utf-8"))
        data, base = saved["goals"], Path(saved.get("base", "."))
    except FileNotFoundError:
        raise GoalsError(f"--resume {directory}: no {SETTINGS} there (not a design run's "
                         "folder)") from None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise GoalsError(f"--resume {directory}: cannot read {SETTINGS}: {exc}") from None
    return parse(data, f"the goals of {directory / SETTINGS}", base)


def design(goals: Goals, directory: Path, budget: int, settings: RunSettings, *,
           resume: bool = False, say: Callable[[str], None] = print) -> dict[str, Any]:
    """Run (or go on with) the search and its confirmation; return what ``best.json`` holds.

    GoalsError before any game for a bad folder; DesignInterrupted on Ctrl-C, after the
    finished trials, ``best.json`` and the page are written."""
    directory = Path(directory)
    _open_run(goals, directory, budget, resume)
    search = _Search(goals, directory, budget, settings, say)
    try:
        reason = search.run()
    except (KeyboardInterrupt, DesignInterrupted) as stop:
        write_outputs(directory, goals, budget, search.study, None, reason="interrupted")
        where = f" ({stop})" if isinstance(stop, DesignInterrupted) else ""
        raise DesignInterrupted(
            f"stopped{where}; every finished game and trial is kept in {directory}; go on "
            f"with: arena balance design --resume {directory}") from None
    say(f"search stopped: {reason}")
    confirmations = _confirm(search)
    # Ties on fresh deals (two unmeasured confirmations) go to the better search, so the
    # answer is never the start over the trial that stopped the search.
    searched = {t.number: t.loss for t in search.done}
    confirm = min(confirmations, key=lambda c: (c["loss"], searched[c["trial"]], c["trial"]))
    confirm = {**confirm, "confirmed": [c["trial"] for c in confirmations],
               "games": sum(c["games"] for c in confirmations)}
    return write_outputs(directory, goals, budget, search.study, confirm, reason=reason,
                         confirmations=confirmations)


def _open_run(goals: Goals, directory: Path, budget: int, resume: bool) -> None:
    """Check the budget and the folder, and write the run's settings, before any game.

    A budget is a budget: the games a trial plays are known before it is played, so one
    too small for the start's trial and its confirmation is refused here; a folder that
    holds another run (or, with ``resume``, none or one of other goals) is refused too."""
    problem = budget_problem(goals, budget)
    if problem is not None:
        raise GoalsError(problem)
    saved = {"goals": goals.data, "base": str(goals.base), "budget": budget}
    path = directory / SETTINGS
    if path.exists():
        try:
            before = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise GoalsError(f"--out {directory}: cannot read {SETTINGS}: {exc}") from None
        if not resume:
            raise GoalsError(f"--out {directory} already holds a design run (go on with "
                             f"--resume {directory})")
        if before.get("goals") != goals.data:
            raise GoalsError(f"--resume {directory}: the goals file differs from the run's "
                             f"{SETTINGS}")
    elif resume:
        raise GoalsError(f"--resume: {directory} holds no design run ({SETTINGS})")
    try:
        directory.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(saved, indent=1) + "\n", encoding="utf-8")
    except OSError as exc:
        raise GoalsError(f"cannot write the run to {directory}: {exc.strerror or exc}") from None


class _Search:
    """The search's state between trials: the optuna study, the finished trials, each
    trial's study and analysis (the price line reads them) and the asks in a row for
    measured candidates.  A class so that the loop's steps (``_ask``, ``_repeated``,
    ``_play``) read alone; ``design`` runs it once."""

    def __init__(self, goals: Goals, directory: Path, budget: int, settings: RunSettings,
                 say: Callable[[str], None]) -> None:
        import optuna

        self.goals, self.directory, self.budget = goals, directory, budget
        self.settings, self.say = settings, say
        self.most = most_games(goals)
        self.study = open_study(directory / STUDY_DB, "design", "minimize")
        self.study.sampler = optuna.samplers.TPESampler(
            seed=derive_seed("design", goals.seed, len(self.study.trials)) % 2**32,
            n_startup_trials=4)
        self.start = start_candidate(goals)
        self.done = [_trial(t) for t in self.study.get_trials(deepcopy=False)
                     if t.state == optuna.trial.TrialState.COMPLETE]
        if not self.study.trials:
            self.study.enqueue_trial(self.start.params(), user_attrs={"source": "start"})
        self.studies: dict[str, tuple[Any, dict[str, Any]]] = {}
        self.session, self.played_here = time.monotonic(), 0
        self.repeats = 0

    def best(self) -> Trial | None:
        """The trial of the least loss so far (ties: the earlier)."""
        return min(self.done, key=lambda t: (t.loss, t.number)) if self.done else None

    def run(self) -> str:
        """Trials until the search stops; why it stopped."""
        while True:
            best = self.best()
            reason = self._stop(best)
            if reason:
                return reason
            dead = {c: w for t in self.done for c, w in t.dead.items()}
            tried = {t.candidate.key: t for t in self.done}
            trial, params, cand, source = self._ask(best, dead, tried)
            if cand.key in tried:
                reason = self._repeated(trial, cand, tried, best, dead)
                if reason:
                    return reason
                continue
            self.repeats = 0
            self._play(trial, params, cand, source, dead)

    def _stop(self, best: Trial | None) -> str:
        """Why the search stops before another trial, or "" to go on.

        The next trial and the confirmation of the best then (each at most ``most`` games)
        must both fit: the confirmation is paid from the budget too."""
        spent = sum(t.games for t in self.done)
        if best is not None and all_met(self.goals, best.figures):
            return f"trial {best.number} meets every goal"
        if self.done and spent + 2 * self.most > self.budget:
            return (f"the next candidate ({self.most:,} games) and a confirmation would pass "
                    f"the budget ({spent:,} of {self.budget:,} spent)")
        return ""

    def _ask(self, best: Trial | None, dead: dict[str, str], tried: dict[str, Trial]
             ) -> tuple[Any, dict[str, Any], Candidate, str]:
        """The next trial (the price line's candidate first, where prices are searched),
        its parameters, its candidate and where it came from.  A dead card keeps its
        points: it is never re-priced."""
        goals = self.goals
        if best is not None and goals.needs_prices:
            proposal = _propose(goals, best, self.done, self.studies, self.directory, dead)
            if proposal is not None and proposal.key not in tried:
                self.study.enqueue_trial(proposal.params(),
                                         user_attrs={"source": "price line"})
        trial = self.study.ask(_distributions(goals, set(dead)))
        params = dict(trial.params)
        base = best.candidate if best else self.start
        for card in dead:
            params[f"points.{card}"] = base.points[card]
        cand = Candidate.from_params({**self.start.params(), **params})
        return trial, params, cand, trial.user_attrs.get("source", "TPE")

    def _repeated(self, trial: Any, cand: Candidate, tried: dict[str, Trial],
                  best: Trial | None, dead: dict[str, str]) -> str:
        """TPE asked for a measured candidate: tell it the figure it has, and after
        ``NUDGE`` such asks in a row queue an unmeasured one near the best.  Why the search
        stops (the space measured, or ``REPEATS`` asks in a row), or "" to go on."""
        self.study.tell(trial, tried[cand.key].loss)
        self.repeats += 1
        if self.repeats >= NUDGE:
            near = best.candidate if best is not None else self.start
            other = _unmeasured(self.goals, set(dead), set(tried), near, self.start)
            if other is False:
                return "every candidate of the space was measured"
            if other is not None:
                self.study.enqueue_trial(other.params(), user_attrs={"source": "unmeasured"})
                return ""
        if self.repeats >= REPEATS:
            return (f"the search asked {REPEATS} times in a row for candidates "
                    "already measured (the space is too large to list the others)")
        return ""

    def _play(self, trial: Any, params: dict[str, Any], cand: Candidate, source: str,
              dead: dict[str, str]) -> None:
        """Measure a candidate, tell the study its loss and say how the search stands.
        A trial cut short is marked failed and queued again, so ``--resume`` plays it."""
        import optuna

        goals, study = self.goals, self.study
        started = time.monotonic()
        try:
            m = measure(goals, cand, self.directory / "trials" / cand.key, goals.seed,
                        self.settings)
        except BaseException:
            study.tell(trial, state=optuna.trial.TrialState.FAIL)
            study.enqueue_trial(params, user_attrs={"source": source})
            raise
        if m.study is not None:
            self.studies[cand.key] = m.study
        figures = _json_safe(m.figures)
        value = loss(goals, figures)
        for key, v in (("candidate", cand.params()), ("source", source),
                       ("figures", figures), ("games", m.games),
                       ("seconds", time.monotonic() - started), ("dead", m.dead)):
            trial.set_user_attr(key, v)
        study.tell(trial, value)
        spent = sum(t.games for t in self.done) + m.games
        self.done.append(_trial(study.trials[trial.number]))
        self.played_here += 1
        per = (time.monotonic() - self.session) / self.played_here
        left = max(0, self.budget - spent) / max(1, m.games)
        self.say(f"trial {trial.number} ({source}): "
                 f"{', '.join(cand.moves(self.start)) or 'the start'}"
                 f": {_figures_text(goals, figures)}; loss {value:.2f}; {spent:,} of "
                 f"{self.budget:,} games; ETA at most {_clock(per * left)}")
        for card, why in m.dead.items():
            if card not in dead:
                self.say(f"{card}: {why}")
        write_outputs(self.directory, goals, self.budget, study, None, reason="")


def _confirm(search: _Search) -> list[dict[str, Any]]:
    """Play the best candidates again on fresh deals, in order, until one meets every goal
    there (at most ``CONFIRM`` of them, within the budget).

    The best search score is biased (the least of noisy losses), so the answer is the one
    confirmed to meet the goals, or the least loss confirmed."""
    goals, directory, budget, say = search.goals, search.directory, search.budget, search.say
    confirm_seed = derive_seed("design-confirm", goals.seed) % 2**31
    confirmations: list[dict[str, Any]] = []
    spent = sum(t.games for t in search.done)
    for best in sorted(search.done, key=lambda t: (t.loss, t.number))[:CONFIRM]:
        if confirmations and spent + best.games > budget:
            say(f"no further confirmation: trial {best.number}'s {best.games:,} games would "
                f"pass the budget ({spent:,} of {budget:,} spent)")
            break
        say(f"confirming trial {best.number} on fresh deals (seed {confirm_seed}) ...")
        try:
            m = measure(goals, best.candidate, directory / "confirm" / best.candidate.key,
                        confirm_seed, search.settings)
        except (KeyboardInterrupt, DesignInterrupted):
            write_outputs(directory, goals, budget, search.study, None, reason="interrupted")
            raise DesignInterrupted(
                f"stopped during the confirmation; every trial is kept in {directory}; go "
                f"on with: arena balance design --resume {directory}") from None
        figures = _json_safe(m.figures)
        spent += m.games
        confirmations.append({"trial": best.number, "seed": confirm_seed, "figures": figures,
                              "games": m.games, "loss": loss(goals, figures)})
        if all_met(goals, figures):
            break
    return confirmations


def _propose(goals: Goals, best: Trial, done: list[Trial],
             studies: dict[str, tuple[Any, dict[str, Any]]], directory: Path,
             dead: dict[str, str]) -> Candidate | None:
    """The price line's candidate: the best trial's set with each movable space card at its
    fair points pooled over the trials of the same Emperor, rules and decks, within its
    range.  ``studies``: each trial's card study and its analysis, by candidate key (a
    resumed run reads its trials' studies again, once)."""
    from arena.balance.tune import suggest
    from reports import experiment

    for t in done:
        folder = directory / "trials" / t.candidate.key / "study"
        if t.candidate.key not in studies and (folder / MANIFEST).is_file():
            exp = experiment.load(folder)
            studies[t.candidate.key] = (exp, experiment.analyse(exp))
    if best.candidate.key not in studies:
        return None
    same = [t for t in done if t.candidate.emperor == best.candidate.emperor
            and t.candidate.rules == best.candidate.rules
            and t.candidate.decks == best.candidate.decks and t.number != best.number
            and t.candidate.key in studies]
    exp, analysis = studies[best.candidate.key]
    table = suggest(exp, 0, analysis,
                    earlier=[studies[t.candidate.key][1]["levels"][0] for t in same])
    points = dict(best.candidate.points)
    for card, suggested in zip(table["card"], table["suggested"], strict=True):
        if card in points and card not in dead:
            lo, hi = goals.space.points[card]
            points[card] = int(min(hi, max(lo, int(suggested))))
    return replace(best.candidate, points=points)


def _figures_text(goals: Goals, figures: dict[str, dict[str, Any]]) -> str:
    return "; ".join(f"{g.key} {figure_text(g, figures.get(g.key))}" for g in goals.goals)


def figure_text(goal: Goal, fig: dict[str, Any] | None) -> str:
    """``52.0% [48.9, 55.1]``, ``0.41 [0.12, 0.60]``; "not measured" or the thin-sample note."""
    if not fig or fig.get("value") is None:
        return "not measured" + (f" ({fig['note']})" if fig and fig.get("note") else "")
    pct = goal.figure in ("first_seat_win_rate", "skill")

    def f(x: float) -> str:
        return f"{x:.1%}" if pct else f"{x:.2f}"

    if fig.get("lo") is None or fig.get("hi") is None:
        return f"{f(fig['value'])} (no interval: {fig.get('note') or 'not enough games'})"
    return f"{f(fig['value'])} [{f(fig['lo'])}, {f(fig['hi'])}]"


def _clock(seconds: float) -> str:
    whole = round(seconds)
    if whole >= 3600:
        return f"{whole // 3600}h{whole // 60 % 60:02d}m"
    return f"{whole // 60}m{whole % 60:02d}s"


# --------------------------------------------------------------------------- outputs


def verdicts(goals: Goals, trials: list[Trial], confirm: dict[str, Any] | None) -> list[
        dict[str, Any]]:
    """Per goal: ``met`` (the confirmed answer's figure in the band), ``not met``, or
    ``unreachable`` (no trial met it and every trial's interval lay outside the band), with
    the closest trial's figure."""
    out = []
    for g in goals.goals:
        measured = [t for t in trials if (t.figures.get(g.key) or {}).get("value") is not None]
        final = (confirm or {}).get("figures", {}).get(g.key)
        closest = min(measured, key=lambda t: (g.miss(t.figures[g.key]["value"]), t.number),
                      default=None)
        reached = any(g.met(t.figures[g.key]["value"]) for t in measured)

        unreachable = bool(measured) and not reached and all(
            _outside(g, t.figures[g.key]) for t in measured)
        if confirm is None:
            status = "searching"
        elif settled(g, final):
            status = "met"
        elif g.met((final or {}).get("value")):
            status = "not settled"
        elif unreachable:
            status = "unreachable"
        else:
            status = "not met"
        out.append({"goal": g.key, "band": g.band(), "low": g.low, "high": g.high,
                    "status": status, "confirmed": final,
                    "closest_trial": closest.number if closest else None,
                    "closest": closest.figures[g.key] if closest else None,
                    "settle": to_settle(g, final),
                    "text": _verdict_text(g, status, final, closest)})
    return out


def _outside(g: Goal, fig: dict[str, Any]) -> bool:
    """Whether a figure's interval lies wholly outside the goal's band (no interval: no)."""
    lo, hi = fig.get("lo"), fig.get("hi")
    return lo is not None and hi is not None and (hi < g.low or lo > g.high)


def _verdict_text(g: Goal, status: str, final: dict[str, Any] | None,
                  closest: Trial | None) -> str:
    near = (f"closest {figure_text(g, closest.figures[g.key])} (trial {closest.number})"
            if closest else "never measured")
    if status == "met":
        return f"met: {figure_text(g, final)} on fresh deals, its interval inside {g.band()}"
    if status == "not settled":
        need = to_settle(g, final)
        return (f"not settled: {figure_text(g, final)} on fresh deals is in {g.band()} by its "
                "estimate, but its interval reaches outside"
                + (f"; about {need[0]:,} deals ({need[1]:,} games) per measurement would "
                   "settle it (95%, 80% power, from the observed spread)" if need else
                   "; more deals would tell"))
    if status == "unreachable":
        return (f"unreachable in the space searched: every candidate's interval lies outside "
                f"{g.band()}; {near}")
    if status == "not met":
        return (f"not met: {figure_text(g, final)} on fresh deals, target {g.band()}; {near}")
    return f"searching; {near}"


@interrupts_held()
def write_outputs(directory: Path, goals: Goals, budget: int, study: Any,
                  confirm: dict[str, Any] | None, reason: str,
                  confirmations: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """``best.json``, ``best-cards.json``, ``candidates.csv`` and the page; written after every
    trial, so a stopped run has them too; a Ctrl-C meanwhile waits until they are whole."""
    from arena.balance.design_page import write_page

    trials = [_trial(t) for t in study.get_trials(deepcopy=False)
              if t.state.name == "COMPLETE" and "figures" in t.user_attrs]
    start = start_candidate(goals)
    best = min(trials, key=lambda t: (t.loss, t.number), default=None)
    if confirm is not None:  # the answer is the confirmed candidate
        best = next(t for t in trials if t.number == confirm["trial"])
    data: dict[str, Any] = {
        "name": goals.name, "reason": reason, "budget": budget,
        "games": sum(t.games for t in trials) + (confirm or {}).get("games", 0),
        "start": start.params(), "space": goals.space.names(),
        "goals": verdicts(goals, trials, confirm),
        "trial": best.number if best else None,
        "params": best.candidate.params() if best else None,
        "moves": best.candidate.moves(start) if best else [],
        "confirmation": confirm,
        "confirmations": confirmations or [],
        "dead": {c: w for t in trials for c, w in t.dead.items()},
        "trials": [t.record(start) for t in trials],
    }
    if best is not None:
        cards = best.candidate.card_set(goals)
        options = best.candidate.options(goals)
        card_file: dict[str, Any] = {
            "name": f"{goals.name or 'design'}: trial {best.number}"
                    + (f" ({', '.join(data['moves'])})" if data["moves"] else " (the start)"),
            "emperor": options.emperor_points,
            "points": {cards.card(c).id: cards.points[c] for deck in cards.decks for c in deck}}
        if cards.removed:
            card_file["remove"] = [cards.card(c).id for c in sorted(cards.removed)]
        if cards.added_entries:
            card_file["add"] = cards.changes()["add"]
        rules = {k: v for k, v in options.to_dict(only_changed=True).items()
                 if k != "emperor_points"}
        data["cards_file"] = BEST_CARDS
        data["rules"] = rules
        data["rule_flags"] = [f"--rule {k}={_text(v)}" for k, v in rules.items()]
        write_text_whole(directory / BEST_CARDS, json.dumps(card_file, indent=2) + "\n")
    write_text_whole(directory / BEST, json.dumps(data, indent=1) + "\n")
    rows = []
    for t in trials:
        row: dict[str, Any] = {"trial": t.number, "source": t.source, **t.candidate.params()}
        for g in goals.goals:
            fig = t.figures.get(g.key) or {}
            row[g.key] = fig.get("value")
            row[f"{g.key}_lo"], row[f"{g.key}_hi"] = fig.get("lo"), fig.get("hi")
        row.update({"loss": t.loss, "games": t.games})
        rows.append(row)
    pd.DataFrame(rows).to_csv(directory / CANDIDATES, index=False)
    write_page(directory, data, goals)
    return data
