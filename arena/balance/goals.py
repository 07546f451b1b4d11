"""Goals files (``arena balance design GOALS``): what a designer wants of the whole game, and
what the search may change to get it.

A goals file is a JSON object (docs/balance.md, "Design goals"); every goal is a band on a
figure the arena measures, and the search space names the parameters a candidate may move::

    {"name": "three planted cards back to fair",
     "bot": "greedy", "players": 2, "cards": "planted3.json",
     "goals": [{"figure": "card_spread", "at_most": 0.5},
               {"figure": "first_seat_win_rate", "target": 0.5, "tolerance": 0.02},
               {"figure": "skill", "winner": "greedy", "loser": "random", "at_least": 0.9},
               {"figure": "rounds", "between": [8, 14]},
               {"figure": "emperor_gap", "between": [-1, 1]}],
     "space": {"points": {"panda-06": [1, 8]}, "emperor": [1, 4],
               "rules": {"gardener_on_shoot": [true, false]}},
     "study": {"deals": 400, "offsets": [-3, 3]},
     "match_games": 400}

Everything is checked here, before a game is played, and a bad field is one sentence naming
it (:class:`GoalsError`, exit 2): a design run that silently dropped a misspelt goal would
report the others as "every goal met".
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from arena.engine import CATEGORIES, ArenaError, OptionError, RuleOptions
from arena.engine import card_files as card_files
from arena.jail.sandbox import Isolation, parse_participant
from arena.play.bot import BotConfigError
from arena.play.registry import BotSpec

#: The figures a goal may name, the range their values can take (a band outside it is
#: refused), and the scale of a miss: the loss counts a miss in these units, so one point of
#: win rate, a tenth of a point of spread and half a round weigh alike.
FIGURES: dict[str, tuple[float, float, float, str]] = {
    "first_seat_win_rate": (0.0, 1.0, 0.01,
                            "the first seat's win rate, the bot against copies of itself"),
    "skill": (0.0, 1.0, 0.01, "the win rate of `winner` against copies of `loser`"),
    "card_spread": (0.0, math.inf, 0.1,
                    "fair points - points over the priced cards (the card study's spread)"),
    "emperor_fair_value": (-math.inf, math.inf, 0.1,
                           "the Emperor's fair value in points (the balance regression on "
                           "the card study's games)"),
    "emperor_gap": (-math.inf, math.inf, 0.1,
                    "the Emperor's fair value - its points (0: worth what it scores)"),
    "rounds": (1.0, math.inf, 0.5, "the mean game length in rounds"),
}
#: The figures read from the candidate's card study: a goal on any of them plays it.
STUDY_FIGURES = ("card_spread", "emperor_fair_value", "emperor_gap")
#: The Emperor's figures: the tournament's card regression (``reports/balance.py``) run on
#: the study's games, so they cost no game of their own.
EMPEROR_FIGURES = ("emperor_fair_value", "emperor_gap")
BAND_FIELDS = ("at_least", "at_most", "between", "target", "tolerance")
FILE_FIELDS = ("name", "bot", "players", "cards", "rules", "goals", "space", "study",
               "match_games", "seed")
SPACE_FIELDS = ("points", "emperor", "rules", "decks")
STUDY_FIELDS = ("deals", "offsets", "categories")


class GoalsError(ArenaError):
    """A goals file that cannot be used: one sentence naming the field."""


@dataclass(frozen=True)
class Goal:
    """A band ``[low, high]`` on one figure (``skill``: of ``winner`` against ``loser``)."""

    figure: str
    low: float
    high: float
    winner: str = ""
    loser: str = ""

    @property
    def key(self) -> str:
        """The figure's name in tables and files (``skill greedy>random``)."""
        return f"skill {self.winner}>{self.loser}" if self.figure == "skill" else self.figure

    @property
    def scale(self) -> float:
        return FIGURES[self.figure][2]

    def miss(self, value: float) -> float:
        """How far ``value`` lies outside the band, in the figure's units (0: met); an
        unmeasured figure counts as a miss of 100 units."""
        if value is None or not math.isfinite(value):
            return 100.0
        return max(0.0, self.low - value, value - self.high) / self.scale

    def met(self, value: float | None) -> bool:
        return value is not None and math.isfinite(value) and self.low <= value <= self.high

    def band(self) -> str:
        """The band in words (``>= 90%``, ``50% ± 2``, ``8 to 14``)."""
        pct = self.figure in ("first_seat_win_rate", "skill")

        def v(x: float) -> str:
            whole = abs(x * 100 - round(x * 100)) < 1e-9
            return f"{x:.0%}" if pct and whole else (f"{x:.1%}" if pct else f"{x:g}")

        if self.low <= FIGURES[self.figure][0] and math.isfinite(self.high):
            return f"<= {v(self.high)}"
        if not math.isfinite(self.high) or self.high >= FIGURES[self.figure][1]:
            return f">= {v(self.low)}"
        return f"{v(self.low)} to {v(self.high)}"


@dataclass(frozen=True)
class Space:
    """What a candidate may change: points per card id (inclusive ranges), the Emperor's
    points, rule options (the values each may take), and which cards are in their decks."""

    points: dict[str, tuple[int, int]] = field(default_factory=dict)
    emperor: tuple[int, int] | None = None
    rules: dict[str, tuple[Any, ...]] = field(default_factory=dict)
    decks: tuple[str, ...] = ()

    def names(self) -> list[str]:
        """The search's dimensions: ``points.ID``, ``emperor``, ``rules.NAME``, ``in.ID``."""
        return ([f"points.{c}" for c in self.points] + (["emperor"] if self.emperor else [])
                + [f"rules.{r}" for r in self.rules] + [f"in.{c}" for c in self.decks])


@dataclass(frozen=True)
class Goals:
    """A checked goals file; ``data`` is the file as read (a resumed run compares it)."""

    name: str
    bot: BotSpec
    players: int
    start: card_files.CardChoice
    options: RuleOptions
    goals: tuple[Goal, ...]
    space: Space
    deals: int
    offsets: tuple[int, ...]
    categories: tuple[str, ...]
    match_games: int
    seed: int
    data: dict[str, Any] = field(compare=False, default_factory=dict)
    #: Where a relative ``cards`` path is read from (the goals file's folder).
    base: Path = field(compare=False, default=Path("."))

    def index(self, card: str) -> int:
        """A card's index in the starting set (printed or added; checked by ``parse``)."""
        found = self.start.cards.index_of(card)
        assert found is not None, card
        return found

    @property
    def needs_study(self) -> bool:
        """Whether a candidate's card study is played: a goal reads a figure from it."""
        return any(g.figure in STUDY_FIGURES for g in self.goals)

    @property
    def needs_prices(self) -> bool:
        """Whether the study prices the space's cards (price arms, dead cards, the price
        line's proposals): only a spread goal asks for those games; an Emperor goal alone
        reads the study's block games and pays for no arm."""
        return any(g.figure == "card_spread" for g in self.goals)

    @property
    def needs_emperor(self) -> bool:
        return any(g.figure in EMPEROR_FIGURES for g in self.goals)

    @property
    def needs_seats(self) -> bool:
        return any(g.figure in ("first_seat_win_rate", "rounds") for g in self.goals)


def load(path: Path) -> Goals:
    """Read and check a goals file (GoalsError names the field at fault)."""
    where = f"goals file {path}"
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise GoalsError(f"{where} does not exist") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise GoalsError(f"{where} cannot be read: {exc}") from None
    except json.JSONDecodeError as exc:
        raise GoalsError(f"{where} is not JSON: {exc.msg} at line {exc.lineno}") from None
    return parse(data, where, Path(path).parent)


def _object(raw: Any, name: str, fields: tuple[str, ...], where: str) -> dict[str, Any]:
    """A field that is an object of known fields (left out: empty); GoalsError names an
    unknown field (``space.point``) or a value that is no object."""
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise GoalsError(f"{where}: {name} must be an object with {', '.join(fields)}")
    for key in raw:
        if key not in fields:
            raise GoalsError(f"{where}: unknown field {name}.{key} "
                             f"(valid: {', '.join(fields)})")
    return raw


def _whole(value: Any, name: str, where: str, low: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise GoalsError(f"{where}: {name} must be a whole number >= {low}, not {value!r}")
    return value


def _number(value: Any, name: str, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(
            value):
        raise GoalsError(f"{where}: {name} must be a number, not {value!r}")
    return float(value)


def parse(data: Any, where: str = "goals file", base: Path = Path(".")) -> Goals:
    """Check a goals file's JSON; ``base``: where a relative ``cards`` path is read from."""
    if not isinstance(data, dict):
        raise GoalsError(f"{where} must be a JSON object with the fields "
                         f"{', '.join(FILE_FIELDS)}")
    for key in data:
        if key not in FILE_FIELDS:
            raise GoalsError(f"{where}: unknown field {key!r} (valid: {', '.join(FILE_FIELDS)})")
    try:
        bot = parse_participant(str(data.get("bot", "greedy")), Isolation())
    except BotConfigError as exc:
        raise GoalsError(f"{where}: bot: {exc}") from None
    players = _whole(data.get("players", 2), "players", where, 2)
    if players > 4:
        raise GoalsError(f"{where}: players must be 2 to 4, not {players}")
    start = card_files.DEFAULT_CHOICE
    if data.get("cards") is not None:
        if not isinstance(data["cards"], str):
            raise GoalsError(f"{where}: cards must be the path of a card-set file")
        cards_path = Path(data["cards"])
        start = card_files.load(cards_path if cards_path.is_absolute() else base / cards_path)
        start.check_deal(players)
    rules = data.get("rules") or {}
    if not isinstance(rules, dict):
        raise GoalsError(f"{where}: rules must be an object of rule options, e.g. "
                         '{"max_rounds": 30}')
    try:
        options = RuleOptions.from_dict(dict(rules))
    except (OptionError, TypeError, ValueError) as exc:
        raise GoalsError(f"{where}: rules: {exc}") from None
    options = start.options(options, rule_given="emperor_points" in rules)
    goals = _goals(data.get("goals"), where)
    space = _space(data.get("space"), where, options, start, players)
    study = _object(data.get("study"), "study", STUDY_FIELDS, where)
    deals = _whole(study.get("deals", 200), "study.deals", where, 1)
    offsets = study.get("offsets", [-3, 3])
    if (not isinstance(offsets, list) or not offsets
            or any(isinstance(o, bool) or not isinstance(o, int) or o == 0 for o in offsets)):
        raise GoalsError(f"{where}: study.offsets must be a list of non-zero whole numbers, "
                         "e.g. [-3, 3]")
    categories = study.get("categories")
    if categories is None:
        categories = sorted({CATEGORIES[start.cards.card(start.cards.index_of(c)).category]  # type: ignore[arg-type]
                             for c in space.points},
                            key=CATEGORIES.index) or list(CATEGORIES)
    if (not isinstance(categories, list)
            or any(c not in CATEGORIES for c in categories) or not categories):
        raise GoalsError(f"{where}: study.categories must be a list of "
                         f"{', '.join(CATEGORIES)}")
    if any(g.figure == "card_spread" for g in goals) and not space.points:
        raise GoalsError(f"{where}: a card_spread goal needs space.points (the cards the "
                         "study prices and the search may move)")
    match_games = _whole(data.get("match_games", 200), "match_games", where, 1)
    seed = _whole(data.get("seed", 1), "seed", where, 0)
    return Goals(name=str(data.get("name", "")), bot=bot, players=players, start=start,
                 options=options, goals=goals, space=space, deals=deals,
                 offsets=tuple(offsets), categories=tuple(categories),
                 match_games=match_games, seed=seed, data=data, base=base.resolve())


def _goals(raw: Any, where: str) -> tuple[Goal, ...]:
    if not isinstance(raw, list) or not raw:
        raise GoalsError(f"{where}: goals must be a non-empty list of goals, e.g. "
                         '[{"figure": "card_spread", "at_most": 0.5}]')
    out: list[Goal] = []
    for i, g in enumerate(raw):
        at = f"goals[{i}]"
        if not isinstance(g, dict):
            raise GoalsError(f"{where}: {at} must be an object with a figure and a band")
        figure = g.get("figure")
        if figure not in FIGURES:
            raise GoalsError(f"{where}: {at}.figure {figure!r} is not a figure the arena "
                             f"measures (known: {', '.join(FIGURES)})")
        allowed = {"figure", *BAND_FIELDS} | ({"winner", "loser"} if figure == "skill"
                                                else set())
        for key in g:
            if key not in allowed:
                raise GoalsError(f"{where}: unknown field {at}.{key} "
                                 f"(valid: {', '.join(sorted(allowed))})")
        low, high = _band(g, at, where, figure)
        winner = loser = ""
        if figure == "skill":
            for role in ("winner", "loser"):
                try:
                    parse_participant(str(g.get(role, "")), Isolation())
                except BotConfigError as exc:
                    raise GoalsError(f"{where}: {at}.{role}: {exc}") from None
            winner, loser = str(g["winner"]), str(g["loser"])
        goal = Goal(figure, low, high, winner, loser)
        if any(o.key == goal.key for o in out):
            raise GoalsError(f"{where}: {at} states a second goal on {goal.key}")
        out.append(goal)
    return tuple(out)


def _band(g: Mapping[str, Any], at: str, where: str, figure: str) -> tuple[float, float]:
    """``[low, high]`` from exactly one of at_least, at_most, between, target ± tolerance,
    inside the figure's range."""
    lo_range, hi_range, _scale, _what = FIGURES[figure]
    given = [k for k in ("at_least", "at_most", "between", "target") if k in g]
    if len(given) != 1:
        raise GoalsError(f"{where}: {at} must give exactly one of at_least, at_most, between "
                         "or target (with tolerance)")
    kind = given[0]
    if ("tolerance" in g) != (kind == "target"):
        raise GoalsError(f"{where}: {at}: tolerance goes with target, and target needs one")
    if kind == "between":
        pair = g["between"]
        if not isinstance(pair, list) or len(pair) != 2:
            raise GoalsError(f"{where}: {at}.between must be [low, high]")
        low, high = (_number(x, f"{at}.between", where) for x in pair)
        if low > high:
            raise GoalsError(f"{where}: {at}.between's low end {low:g} is above its high end")
    elif kind == "target":
        target = _number(g["target"], f"{at}.target", where)
        tol = _number(g["tolerance"], f"{at}.tolerance", where)
        if tol < 0:
            raise GoalsError(f"{where}: {at}.tolerance must be >= 0")
        low, high = target - tol, target + tol
    elif kind == "at_least":
        low, high = _number(g["at_least"], f"{at}.at_least", where), hi_range
    else:
        low, high = lo_range, _number(g["at_most"], f"{at}.at_most", where)
    for value in (low, high):
        if value < lo_range or value > hi_range:
            hint = ", a win rate is a fraction: 0.5 for 50%" if hi_range == 1 else ""
            raise GoalsError(f"{where}: {at}: {value:g} is outside the range of {figure} "
                             f"({lo_range:g} to {hi_range:g}{hint})")
    return low, high


def _space(raw: Any, where: str, options: RuleOptions,
           start: card_files.CardChoice, players: int) -> Space:
    raw = _object(raw, "space", SPACE_FIELDS, where)
    points: dict[str, tuple[int, int]] = {}
    for card, pair in (raw.get("points") or {}).items():
        at = f"space.points.{card}"
        if start.cards.index_of(card) is None:
            raise GoalsError(f"{where}: {at}: {card!r} is not an objective card "
                             "(`arena cards` lists them)")
        if start.cards.index_of(card) in start.cards.removed:
            raise GoalsError(f"{where}: {at}: {card} is removed by the starting card set")
        points[card] = _range(pair, at, where)
    emperor = None
    if raw.get("emperor") is not None:
        emperor = _range(raw["emperor"], "space.emperor", where)
    rules: dict[str, tuple[Any, ...]] = {}
    for name, values in (raw.get("rules") or {}).items():
        at = f"space.rules.{name}"
        if name == "emperor_points":
            raise GoalsError(f"{where}: {at}: give the Emperor's points as space.emperor")
        if not isinstance(values, list) or not values:
            raise GoalsError(f"{where}: {at} must be a list of the values to try")
        for value in values:
            try:
                RuleOptions.from_dict({**options.to_dict(), name: value})
            except (OptionError, TypeError, ValueError, KeyError) as exc:
                raise GoalsError(f"{where}: {at}: {exc}") from None
        rules[name] = tuple(dict.fromkeys(values))
    decks = raw.get("decks") or []
    if not isinstance(decks, list):
        raise GoalsError(f"{where}: space.decks must be a list of card ids (each may be taken "
                         "out of its deck, or put back)")
    for i, card in enumerate(decks):
        at = f"space.decks[{i}]"
        if not isinstance(card, str) or start.cards.index_of(card) is None:
            raise GoalsError(f"{where}: {at}: {card!r} is not an objective card "
                             "(`arena cards` lists them)")
        if card in points:
            raise GoalsError(f"{where}: {at}: {card} is in space.points too (a card out of "
                             "its deck has no price to measure)")
        if decks.index(card) != i:
            raise GoalsError(f"{where}: {at}: {card} is named twice")
    # Every candidate must deal: the set with all of them out is the smallest.
    out = {start.cards.index_of(c) for c in decks}
    fewest = replace(start.cards, removed=start.cards.removed | out)  # type: ignore[operator]
    problem = fewest.deal_problem(players)
    if problem:
        raise GoalsError(f"{where}: space.decks: with every card named out, {problem}")
    if not (points or emperor or rules or decks):
        raise GoalsError(f"{where}: space names nothing to change (give space.points, "
                         "space.emperor, space.rules or space.decks)")
    return Space(points, emperor, rules, tuple(decks))


def _range(pair: Any, at: str, where: str) -> tuple[int, int]:
    if (not isinstance(pair, list) or len(pair) != 2
            or any(isinstance(x, bool) or not isinstance(x, int) for x in pair)):
        raise GoalsError(f"{where}: {at} must be [low, high], whole numbers")
    low, high = pair
    if low < 0 or low > high:
        raise GoalsError(f"{where}: {at}: [{low}, {high}] is not a range of points "
                         "(0 <= low <= high)")
    return low, high
