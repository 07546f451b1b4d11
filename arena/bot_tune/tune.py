"""Tune a bot's declared parameters by playing games: ``arena bots tune``.

The search is optuna's TPE sampler (a well-kept library): it takes integer, float and
categorical dimensions alike, copes with a noisy objective (it models where good trials
cluster rather than trusting one score), and its RDB storage — a SQLite file in the run's
folder — keeps every finished trial, so a stopped run goes on where it stopped.

Every candidate plays the same games: the same deal seeds against the same opponents, each
deal once per seat rotation (common random numbers), so two candidates differ by their play
and not by their luck.  A candidate's games are kept in a folder named after its spec, so a
trial stopped by Ctrl-C keeps its finished games and the resumed run plays only the rest;
the trial itself is queued again.  The best trial's score is biased upward (it is the
maximum of noisy scores), so it is confirmed by a match against the starting spec on fresh
deals, whose win rate comes with its Wilson interval.

Files in the run's folder: ``tune.json`` (the settings), ``study.db`` (optuna's trials),
``games/`` (each candidate's tournaments), ``confirm/`` (the confirmation match),
``best.json`` and ``tune.html`` with ``tune.png``.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from arena.jail.sandbox import Isolation, parse_participant
from arena.play.bot import BotConfigError, Param
from arena.play.registry import BotSpec
from arena.play.seeds import derive_seed
from arena.runs.outputs import interrupts_held, write_text_whole
from arena.runs.store import MANIFEST
from arena.stats.intervals import carried, wilson
from arena.tournament import run_tournament
from arena.tournament.runner import RunSettings
from arena.tournament.schedule import against_copies

SETTINGS = "tune.json"
STUDY = "study.db"
BEST = "best.json"


class TuneError(Exception):
    """Bad input or an unusable folder: one sentence, said before any game is played."""


class TuneInterrupted(Exception):
    """Ctrl-C: the finished trials are kept; the message says how to go on."""


@dataclass(frozen=True)
class Dimension:
    """One ``--space``: a parameter and the values the search may give it."""

    name: str
    #: ``int``, ``float`` or ``choice``.
    kind: str
    low: float | None = None
    high: float | None = None
    choices: tuple[Any, ...] = ()

    def suggest(self, trial: Any) -> Any:
        """The trial's value (optuna's ``suggest_*``)."""
        if self.kind == "int":
            return trial.suggest_int(self.name, int(self.low), int(self.high))
        if self.kind == "float":
            value = trial.suggest_float(self.name, float(self.low), float(self.high))
            # Four significant digits, so the spec reads as a person would write it.
            return min(float(self.high), max(float(self.low), float(f"{value:.4g}")))
        return trial.suggest_categorical(self.name, list(self.choices))

    def holds(self, value: Any) -> bool:
        """Whether ``value`` lies in this dimension (the starting spec's value is tried first
        when it does)."""
        if self.kind == "choice":
            return value in self.choices
        return (isinstance(value, (int, float)) and not isinstance(value, bool)
                and self.low <= value <= self.high)

    def text(self) -> str:
        if self.kind == "choice":
            return f"{self.name}={','.join(spec_value(c) for c in self.choices)}"
        return f"{self.name}={spec_value(self.low)}..{spec_value(self.high)}"


def spec_value(value: Any) -> str:
    """A value as a spec writes it (``true``, ``0.25``, ``300``)."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


def parse_space(params: Sequence[Param], texts: Sequence[str], spec_text: str) -> tuple[
        Dimension, ...]:
    """The dimensions of ``--space NAME=LO..HI`` and ``--space NAME=A,B,C``, each checked
    against the bot's declared ``Param`` (its type and bounds, ``BotSpec.declared``: for a bot
    that is not ours, as its jail's check sent them); TuneError names the bad one."""
    declared = {p.name: p for p in params}
    dims: list[Dimension] = []
    if not texts:
        raise TuneError("give at least one --space NAME=LO..HI or NAME=A,B,C")
    for text in texts:
        name, sep, values = (part.strip() for part in text.partition("="))
        if not sep or not name or not values:
            raise TuneError(f"--space {text!r} is not NAME=LO..HI or NAME=A,B,C")
        param = declared.get(name)
        if param is None:
            known = ", ".join(declared) or "none"
            raise TuneError(f"--space {text!r}: {spec_text!r} declares no parameter {name!r} "
                            f"(its parameters: {known})")
        if any(d.name == name for d in dims):
            raise TuneError(f"--space {name} is given twice")
        dims.append(_dimension(param, text, values))
    return tuple(dims)


def _dimension(param: Param, text: str, values: str) -> Dimension:
    from arena.play.registry import parse_value

    def convert(raw: str) -> Any:
        try:
            return param.convert(parse_value(raw.strip()))
        except BotConfigError as exc:
            raise TuneError(f"--space {text!r}: {exc}") from None

    if ".." in values:
        if param.type not in (int, float) or param.choices:
            raise TuneError(f"--space {text!r}: {param.name} is {param.type_name()}, so it "
                            "takes a list A,B,C, not a range")
        lo_text, _, hi_text = values.partition("..")
        low, high = convert(lo_text), convert(hi_text)
        if low > high:
            raise TuneError(f"--space {text!r}: the range's low end is above its high end")
        return Dimension(param.name, "int" if param.type is int else "float", low, high)
    choices = tuple(dict.fromkeys(convert(v) for v in values.split(",")))
    return Dimension(param.name, "choice", choices=choices)


@dataclass(frozen=True)
class TuneSettings:
    """What decides the games and the search (``tune.json``): a resumed run reads it back."""

    spec: str
    space: tuple[str, ...]
    against: tuple[str, ...]
    games: int
    seed: int
    trials: int
    confirm_games: int
    players: int = 2

    def to_dict(self) -> dict[str, Any]:
        return {"spec": self.spec, "space": list(self.space), "against": list(self.against),
                "games": self.games, "seed": self.seed, "trials": self.trials,
                "confirm_games": self.confirm_games, "players": self.players}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TuneSettings:
        return cls(spec=data["spec"], space=tuple(data["space"]),
                   against=tuple(data["against"]), games=int(data["games"]),
                   seed=int(data["seed"]), trials=int(data["trials"]),
                   confirm_games=int(data["confirm_games"]),
                   players=int(data.get("players", 2)))


@dataclass(frozen=True)
class Plan:
    """The checked settings: the parsed specs and dimensions."""

    settings: TuneSettings
    start: BotSpec
    opponents: tuple[BotSpec, ...]
    dims: tuple[Dimension, ...]


def check(settings: TuneSettings) -> Plan:
    """Parse and check everything before a game is played (TuneError, one sentence)."""
    try:
        start = read_spec(settings.spec)
        opponents = tuple(read_spec(text) for text in settings.against)
    except BotConfigError as exc:
        raise TuneError(str(exc)) from None
    if not opponents:
        raise TuneError("give at least one --against SPEC (the opponents every candidate "
                        "plays)")
    dims = parse_space(start.declared(), settings.space, settings.spec)
    # A match is whole deals, one game per seat rotation: the games asked for are rounded
    # down to them (never up: --games is never exceeded), and fewer than one deal is refused.
    for name, games in (("--games", settings.games), ("--confirm-games", settings.confirm_games)):
        if games < settings.players:
            raise TuneError(f"{name} {games} is less than one deal: with {settings.players} "
                            f"players a deal is {settings.players} games (one per seat "
                            f"rotation); give {name} {settings.players} or more")
    return Plan(settings, start, opponents, dims)


def whole_deals(games: int, players: int) -> int:
    """``games`` rounded down to whole deals (a deal: one game per seat rotation)."""
    return games - games % players


def read_settings(directory: Path) -> TuneSettings:
    """The settings of the run in ``directory`` (for ``--resume``)."""
    path = directory / SETTINGS
    try:
        return TuneSettings.from_dict(json.loads(path.read_text(encoding="utf-8")))
    except FileNotFoundError:
        raise TuneError(f"--resume {directory}: no {SETTINGS} there (not a tuner run's "
                        "folder)") from None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise TuneError(f"--resume {directory}: cannot read {SETTINGS}: {exc}") from None


def candidate(start: BotSpec, values: dict[str, Any]) -> BotSpec:
    """The starting spec with ``values`` in place of its own: the spec a trial plays."""
    params = {**start.params, **values}
    text = start.target + (":" + ",".join(f"{k}={spec_value(v)}" for k, v in params.items())
                           if params else "")
    return read_spec(text)


def read_spec(text: str) -> BotSpec:
    """A spec the tuner plays, read as ``arena tournament`` reads it: a bot that is not ours
    is checked in a jail (and plays in one, ``RunSettings.isolation``), never imported here."""
    return parse_participant(text, Isolation())


def _folder(spec: BotSpec) -> str:
    """A candidate's games folder: named by its spec, so a trial asked again (after Ctrl-C, or
    sampled twice) finds the games already played."""
    digest = hashlib.blake2b(spec.text.encode(), digest_size=6).hexdigest()
    return f"{spec.target.rsplit('.', 1)[-1]}-{digest}"


@dataclass
class MatchScore:
    """A match's outcome for the subject: its win share (a shared win counts 1/k) in games."""

    share: float
    games: int
    interrupted: bool
    errors: int = 0

    @property
    def rate(self) -> float:
        return self.share / self.games if self.games else math.nan


def play_match(subject: BotSpec, opponent: BotSpec, players: int, games: int, seed: int,
               folder: Path, settings: RunSettings) -> MatchScore:
    """``subject`` against copies of ``opponent``, seats rotated, in ``folder`` (resumed when
    it already holds some of these games)."""
    config = against_copies(subject, opponent, players, games=games, seed=seed)
    result = run_tournament(config, folder, resume=(folder / MANIFEST).is_file(),
                            settings=settings)
    line = result.standings.lines[config.participants[0].name]
    return MatchScore(line.share, line.games, result.interrupted, result.errors)


def _trial_record(trial: Any) -> dict[str, Any]:
    attrs = trial.user_attrs
    return {"number": trial.number, "state": trial.state.name, "spec": attrs.get("spec"),
            "params": attrs.get("played", trial.params), "win_rate": trial.value,
            "share": attrs.get("share"), "games": attrs.get("games"),
            "interval": attrs.get("interval"), "seconds": attrs.get("seconds")}


def _clock(seconds: float) -> str:
    whole = round(seconds)
    if whole >= 3600:
        return f"{whole // 3600}h{whole // 60 % 60:02d}m"
    return f"{whole // 60}m{whole % 60:02d}s"


def open_study(path: Path, name: str, direction: str) -> Any:
    """An optuna study kept in the SQLite file ``path`` (created, or opened to go on), with
    optuna's own log quiet: the commands print their progress themselves."""
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    logging.getLogger("optuna").setLevel(logging.WARNING)
    return optuna.create_study(study_name=name, storage=f"sqlite:///{path.resolve()}",
                               direction=direction, load_if_exists=True)


def tune(directory: Path, settings: TuneSettings, run: RunSettings, *, resume: bool = False,
         say: Callable[[str], None] = print) -> dict[str, Any]:
    """Run (or go on with) the search and the confirmation; return what ``best.json`` holds.

    Raises TuneError for bad settings or folder (before any game) and TuneInterrupted on
    Ctrl-C, after the finished trials and the partial ``best.json`` and page are written.
    """
    plan = check(settings)
    directory = Path(directory)
    _open_run(directory, settings, resume)
    study, done = _open_tune_study(directory, settings, plan)
    session = time.monotonic()
    played = 0
    try:
        while len(done) < settings.trials:
            trial = study.ask()
            outcome = _play_trial(study, trial, plan, settings, directory, run)
            line = _tell(study, trial, outcome, done, settings)
            played += 1
            per = (time.monotonic() - session) / played
            say(f"{line}; ETA {_clock(per * (settings.trials - len(done)))}")
            write_outputs(directory, plan, study, None)
    except KeyboardInterrupt:
        write_outputs(directory, plan, study, None)
        raise TuneInterrupted(
            f"stopped: {len(done)} of {settings.trials} trials finished and kept in "
            f"{directory}; go on with: arena bots tune --resume {directory}") from None
    return _confirm(directory, plan, study, settings, run, done, say)


def _open_run(directory: Path, settings: TuneSettings, resume: bool) -> None:
    """Check the folder and write the run's settings, before any game: a folder that
    holds another run (or, with ``resume``, one of other settings) is refused."""
    if resume:
        saved = read_settings(directory)
        if replace(saved, trials=settings.trials) != settings:
            raise TuneError(f"--resume {directory}: the settings differ from the run's "
                            f"{SETTINGS}")
    elif (directory / SETTINGS).exists():
        raise TuneError(f"--out {directory} already holds a tuner run (go on with --resume "
                        f"{directory})")
    try:
        directory.mkdir(parents=True, exist_ok=True)
        (directory / SETTINGS).write_text(json.dumps(settings.to_dict(), indent=1) + "\n",
                                          encoding="utf-8")
    except OSError as exc:
        raise TuneError(f"cannot write the run to {directory}: {exc.strerror or exc}") from None


def _open_tune_study(directory: Path, settings: TuneSettings, plan: Plan
                     ) -> tuple[Any, list[Any]]:
    """The run's optuna study, its sampler seeded for this session, and its finished
    trials; a new study's first trial is the starting spec (trial 0: the baseline)."""
    import optuna

    study = open_study(directory / STUDY, "tune", "maximize")
    done = [t for t in study.get_trials(deepcopy=False)
            if t.state == optuna.trial.TrialState.COMPLETE]
    # A fresh seed per session: a resumed sampler must not draw the first session's values
    # again.  Ten random trials (fewer in a short run) before TPE models the good region.
    study.sampler = optuna.samplers.TPESampler(
        seed=derive_seed("tune", settings.seed, len(study.trials)) % 2**32,
        n_startup_trials=max(2, min(10, settings.trials // 3)))
    if not study.trials:
        first = {d.name: plan.start.full_params()[d.name] for d in plan.dims
                 if d.holds(plan.start.full_params()[d.name])}
        if first:
            study.enqueue_trial(first)
    return study, done


@dataclass
class _Outcome:
    """One trial's matches: the candidate and its values, the wins it took (a shared
    victory counted in part) of the games played, and the seconds they took."""

    spec: BotSpec
    values: dict[str, Any]
    share: float
    games: float
    seconds: float


def _play_trial(study: Any, trial: Any, plan: Plan, settings: TuneSettings, directory: Path,
                run: RunSettings) -> _Outcome:
    """Play a trial's candidate against each opponent.  A trial cut short (Ctrl-C, an
    interrupted match) is marked failed and queued again, so ``--resume`` asks it first."""
    import optuna

    try:
        values = {d.name: d.suggest(trial) for d in plan.dims}
        spec = candidate(plan.start, values)
        started = time.monotonic()
        share = games = 0.0
        for k, opponent in enumerate(plan.opponents):
            folder = directory / "games" / _folder(spec) / f"vs-{k}"
            score = play_match(spec, opponent, settings.players,
                               whole_deals(settings.games, settings.players),
                               settings.seed, folder, run)
            share += score.share
            games += score.games
            if score.interrupted:
                raise KeyboardInterrupt
    except BaseException:
        study.tell(trial, state=optuna.trial.TrialState.FAIL)
        study.enqueue_trial(trial.params)
        raise
    return _Outcome(spec, values, share, games, time.monotonic() - started)


def _tell(study: Any, trial: Any, outcome: _Outcome, done: list[Any],
          settings: TuneSettings) -> str:
    """Tell the study a trial's win rate (its figures kept as attributes), add it to
    ``done``, and say how it did beside the best so far.  Trials are named by the search's
    numbers (0: the start), the count beside."""
    share, games = outcome.share, outcome.games
    rate = share / games
    lo, hi = wilson(share, games)
    thin = carried(int(games) // settings.players, int(games))
    for key, value in (("spec", outcome.spec.text), ("played", outcome.values),
                       ("share", share), ("games", int(games)),
                       ("interval", None if thin else [lo, hi]),
                       ("seconds", outcome.seconds)):
        trial.set_user_attr(key, value)
    study.tell(trial, rate)
    done.append(study.trials[trial.number])
    best = max(done, key=lambda t: (t.value, -t.number))
    shown = f"({thin})" if thin else f"[{lo:.1%}, {hi:.1%}]"
    return (f"trial {trial.number} ({len(done)} of {settings.trials}) {outcome.spec.text}: "
            f"{rate:.1%} {shown} in {int(games)} games ({outcome.seconds:.0f} s); best so far "
            f"{best.value:.1%} (trial {best.number})")


def _confirm(directory: Path, plan: Plan, study: Any, settings: TuneSettings,
             run: RunSettings, done: list[Any], say: Callable[[str], None]) -> dict[str, Any]:
    """Play the best trial's spec against the start on fresh deals (the search's best
    score is the greatest of noisy ones) and write the outputs; ``best.json``'s content.

    Confirming the start against itself (or one of many equal scores against the start)
    measures nothing: said so, and no game is played."""
    best = max(done, key=lambda t: (t.value, -t.number))
    best_spec = read_spec(best.user_attrs["spec"])
    pointless = _nothing_to_confirm(plan, best_spec, [t.value for t in done])
    if pointless:
        say(f"no confirmation: {pointless}")
        return write_outputs(directory, plan, study, {
            "spec": best_spec.text, "against": plan.start.text, "games": 0, "share": 0.0,
            "win_rate": None, "interval": None, "seed": None,
            "verdict": f"not played: {pointless}"})
    confirm_games = whole_deals(settings.confirm_games, settings.players)
    say(f"confirming {best_spec.text} (trial {best.number}) against {plan.start.text} on "
        f"{confirm_games} fresh games ...")
    score = play_match(best_spec, plan.start, settings.players, confirm_games,
                       derive_seed("confirm", settings.seed) % 2**31, directory / "confirm", run)
    if score.interrupted:
        write_outputs(directory, plan, study, None)
        raise TuneInterrupted(
            f"stopped during the confirmation match; every trial is kept in {directory}; go "
            f"on with: arena bots tune --resume {directory}")
    lo, hi = wilson(score.share, score.games)
    # Below 10 deals no interval is given and no verdict drawn (the reports' rule).
    thin = carried(int(score.games) // settings.players, int(score.games))
    confirm = {"spec": best_spec.text, "against": plan.start.text, "games": score.games,
               "share": score.share, "win_rate": score.rate,
               "interval": None if thin else [lo, hi],
               "seed": derive_seed("confirm", settings.seed) % 2**31,
               "verdict": (f"not tested: too few deals ({thin})" if thin else
                           "better than the start" if lo > 1 / settings.players else
                           "worse than the start" if hi < 1 / settings.players else
                           "not distinguishable from the start at these games")}
    return write_outputs(directory, plan, study, confirm)


def _nothing_to_confirm(plan: Plan, best: BotSpec, scores: Sequence[float]) -> str | None:
    """Why the confirmation match would measure nothing, or None: the best trial is the
    start itself (ties go to the lowest trial, and trial 0 is the start), so it would play
    the start against itself."""
    if best.full_params() != plan.start.full_params() or best.target != plan.start.target:
        return None
    same = len(scores) > 1 and len(set(scores)) == 1
    return (f"the best trial is the start itself ({plan.start.text})"
            + (f": every trial scored {scores[0]:.1%}, no candidate stood out (other "
               "--against opponents or a wider --space may)" if same else
               ": no candidate beat it in the search"))


@interrupts_held()
def write_outputs(directory: Path, plan: Plan, study: Any,
                  confirm: dict[str, Any] | None) -> dict[str, Any]:
    """``best.json`` (the best trial, its confirmation once played, every trial) and the page
    with its chart; written after every trial, so a stopped run has them too.  A Ctrl-C
    meanwhile waits until they are whole (one inside matplotlib broke the next drawing)."""
    from arena.bot_tune.page import write_page

    trials = [_trial_record(t) for t in study.get_trials(deepcopy=False)
              if t.state.name == "COMPLETE"]
    best = max(trials, key=lambda t: (t["win_rate"], -t["number"]), default=None)
    data = {
        "spec": best["spec"] if best else None,
        "start": plan.start.text,
        "trial": best["number"] if best else None,
        "search_win_rate": best["win_rate"] if best else None,
        "win_rate": confirm["win_rate"] if confirm else None,
        "interval": confirm["interval"] if confirm else None,
        "confirmation": confirm,
        "settings": plan.settings.to_dict(),
        "space": [d.text() for d in plan.dims],
        "trials": trials,
    }
    write_text_whole(directory / BEST, json.dumps(data, indent=1) + "\n")
    write_page(directory, data)
    return data
