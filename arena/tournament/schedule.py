"""The tournament as data: its configuration, and the schedule of games computed up front.

Like cutechess-cli and fastchess, the whole schedule (every pairing, deal, seat rotation and
game seed) is a pure function of the configuration, computed before any game is played.
Workers only play games by index; a game's record therefore depends on nothing but the
configuration (never on which worker played it, nor when), which is what makes 1 worker,
8 workers and a Dask cluster give the same records, and what lets ``--resume`` know exactly
which games are missing.

Game seeds are derived from the master seed and the game's coordinates (``arena.play.seeds``).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from arena.engine import DEFAULT_CARD_SET, CardSet, RuleOptions
from arena.engine.card_files import changes, summary
from arena.play.intervention import Intervention
from arena.play.limits import move_time_problem
from arena.play.registry import BotSpec
from arena.play.seeds import deal_key_check, deal_seed, keyed_deal_seed

FORMATS = ("round-robin", "gauntlet")


class ScheduleError(ValueError):
    """A configuration that cannot make a tournament (one sentence for the user)."""


#: Elo differences an SPRT may test: at 1000 the stronger side scores 99.7%, and much
#: further out the expected score rounds to 1, where the test has no likelihood ratio.
MAX_ELO = 1000.0


@dataclass(frozen=True)
class SprtParams:
    """``--sprt elo0=A,elo1=B[,alpha=..,beta=..]``: the hypotheses and error rates."""

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05

    @classmethod
    def parse(cls, text: str) -> SprtParams:
        """Parse ``elo0=0,elo1=20,alpha=0.05,beta=0.05``; raises ScheduleError."""
        values: dict[str, float] = {}
        for pair in text.split(","):
            key, sep, value = pair.partition("=")
            key = key.strip()
            if not sep or key not in ("elo0", "elo1", "alpha", "beta"):
                raise ScheduleError(
                    f"--sprt {text!r}: {pair.strip()!r} is not one of elo0=, elo1=, alpha=, beta="
                )
            if key in values:
                raise ScheduleError(f"--sprt {text!r}: {key} is given twice")
            try:
                values[key] = float(value)
            except ValueError:
                raise ScheduleError(f"--sprt {text!r}: {key} must be a number") from None
        if "elo0" not in values or "elo1" not in values:
            raise ScheduleError(f"--sprt {text!r} needs both elo0= and elo1=")
        return cls(**values).checked()

    def checked(self) -> SprtParams:
        """Raises ScheduleError unless the test can be run (also on a manifest's values)."""
        for name in ("elo0", "elo1", "alpha", "beta"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ScheduleError(f"--sprt {name} must be a number, not {value!r}")
        for name in ("elo0", "elo1"):
            value = getattr(self, name)
            if not -MAX_ELO <= value <= MAX_ELO:  # also false for NaN
                raise ScheduleError(f"--sprt {name} must be between -{MAX_ELO:g} and "
                                    f"{MAX_ELO:g}, not {value:g}")
        if not self.elo0 < self.elo1:
            raise ScheduleError("--sprt needs elo0 < elo1")
        for name in ("alpha", "beta"):
            value = getattr(self, name)
            if not 0.0 < value < 0.5:
                raise ScheduleError(f"--sprt {name} must be between 0 and 0.5, not {value:g}")
        return self

    def to_dict(self) -> dict[str, float]:
        return {"elo0": self.elo0, "elo1": self.elo1, "alpha": self.alpha, "beta": self.beta}


#: Games per pairing accepted (a schedule of that many is a few hundred MB).
MAX_GAMES = 1_000_000


class GamePlan(Protocol):
    """A schedule other than the tournament's pairings (an experiment's arms): the games
    it makes from a configuration, and its description for the manifest.

    ``TournamentConfig.experiment`` holds one; the runner plays its games as it plays a
    tournament's (workers, resume, Ctrl-C), and each game may carry an intervention and a
    card set of its own (``arena/tournament/experiment.py``).
    """

    def check(self, config: TournamentConfig) -> None: ...

    def lineups(self, config: TournamentConfig) -> tuple[tuple[int, ...], ...]: ...

    def games(self, config: TournamentConfig) -> list[ScheduledGame]: ...

    def to_dict(self) -> dict[str, Any]: ...


#: Bots that read a person's answers (by class path, so that no module is imported to ask).
INTERACTIVE = frozenset({"arena.show.human.HumanBot"})


@dataclass(frozen=True)
class TournamentConfig:
    """Everything that decides the games (and so goes into the manifest).

    How the games are run (workers, executor, chunk size) is deliberately not here: it must
    not change a single record.
    """

    participants: tuple[BotSpec, ...]
    players: int = 2
    games: int = 2
    format: str = "round-robin"
    seed: int = 0
    options: RuleOptions = field(default_factory=RuleOptions)
    move_time: float | None = None
    sprt: SprtParams | None = None
    #: The objective cards (``--cards``); the Emperor's points are ``options.emperor_points``.
    cards: CardSet = DEFAULT_CARD_SET
    #: An experiment's schedule in place of the pairings (``arena balance study``).
    experiment: GamePlan | None = None
    #: The key of keyed deals (``arena.play.seeds.keyed_deal_seed``; docs/tournaments.md, "The
    #: deal key"), or None for public deals (derived from the master seed alone).  Never
    #: written to the manifest while the run is live.
    deal_key: bytes | None = field(default=None, repr=False)
    #: Whether the deal key is a key file's (``--deal-key FILE``), shared with other runs:
    #: then it is never written into the run's folder, not even when the run ends (a later
    #: run with that file would be known in advance); commands that need it ask for the file.
    shared_deals: bool = field(default=False, repr=False)

    def __post_init__(self) -> None:
        if len(self.participants) < 2:
            raise ScheduleError("a tournament needs at least two participants (--bot twice)")
        if self.players not in (2, 3, 4):
            raise ScheduleError(f"--players must be 2, 3 or 4, not {self.players}")
        if self.games < 1:
            raise ScheduleError(f"--games must be at least 1, not {self.games}")
        if self.games > MAX_GAMES:
            # The schedule is made up front: beyond this it would not fit in memory.
            raise ScheduleError(f"--games must be at most {MAX_GAMES:,} per pairing")
        if self.format not in FORMATS:
            raise ScheduleError(f"--format must be round-robin or gauntlet, not {self.format!r}")
        problem = move_time_problem(self.move_time)
        if problem:
            raise ScheduleError(f"--move-time {problem}")
        problem = self.cards.deal_problem(self.players)
        if problem:
            raise ScheduleError(f"--cards: remove: {problem}")
        seen: set[str] = set()
        for spec in self.participants:
            if spec.class_path in INTERACTIVE:
                raise ScheduleError(
                    f"{spec.name!r} is a person at the terminal: a tournament plays in worker "
                    "processes without one (play it with arena play --bot human)")
            if spec.name in seen:
                raise ScheduleError(
                    f"two participants are named {spec.name!r}; give each a different "
                    "name= (e.g. --bot random:name=R1 --bot random:name=R2)"
                )
            seen.add(spec.name)
        if self.experiment is not None:
            if self.sprt is not None:
                raise ScheduleError("an experiment plays every arm: it takes no --sprt")
            self.experiment.check(self)
        if self.sprt is not None:
            self.sprt.checked()  # a manifest's values too, not only the command line's
        if self.sprt is not None and (len(self.participants) != 2 or self.players != 2):
            raise ScheduleError(
                "--sprt needs exactly two participants in 2-player games "
                f"(got {len(self.participants)} participants, --players {self.players})"
            )
        k = len(self.participants)
        if self.format == "round-robin" and k < self.players and self.players % k:
            # 3 participants at 4 seats: one of them would hold two seats in every game and
            # count both in its standings.
            raise ScheduleError(
                f"--players {self.players} with {k} participants would give some of them two "
                f"seats in a game; give at least {self.players} participants (or a number "
                f"that divides {self.players})")

    @property
    def names(self) -> list[str]:
        return [p.name for p in self.participants]

    def manifest_fields(self) -> dict[str, Any]:
        """The configuration as the manifest records it (``arena/runs/records.py``)."""
        return {
            "participants": [p.to_dict() for p in self.participants],
            "players": self.players,
            "games": self.games,
            "format": self.format,
            "seed": self.seed,
            "options": self.options.to_dict(),
            "move_time": self.move_time,
            "sprt": self.sprt.to_dict() if self.sprt else None,
            "card_set": self.card_set(),
            "experiment": self.experiment.to_dict() if self.experiment is not None else None,
            "deals": self.deals(),
        }

    def deals(self) -> dict[str, Any]:
        """The manifest's ``deals``: public, or keyed with the key's fingerprint (and
        ``shared`` for a key file's)."""
        if not self.deal_key:
            return {"keyed": False}
        shared = {"shared": True} if self.shared_deals else {}
        return {"keyed": True, "check": deal_key_check(self.deal_key), **shared}

    def deal_seed(self, pairing: int, deal: int) -> int:
        """The game seed of a deal (``arena.play.seeds``)."""
        if not self.deal_key:
            return deal_seed(self.seed, pairing, deal)
        return keyed_deal_seed(self.deal_key, self.seed, pairing, deal)

    def card_set(self) -> dict[str, Any]:
        """The manifest's ``card_set``: the resolved set and its changes
        (``arena/engine/card_files.py``)."""
        emperor = self.options.emperor_points
        return {**summary(self.cards, emperor), "changes": changes(self.cards, emperor)}


def against_copies(subject: BotSpec, opponent: BotSpec, players: int = 2,
                   **fields: Any) -> TournamentConfig:
    """``subject`` against ``players - 1`` copies of ``opponent``, named ``NAME#1``, ``NAME#2``...

    The match of the strength benchmarks (``scripts/strength.py``, ``scripts/clairvoyance.py``):
    one function builds it so that both play the same games, and the copies' names are what
    ``scripts/paired.py`` tells the subject from its opponents by.  ``fields``: the other
    fields of :class:`TournamentConfig`.
    """
    if subject.name == opponent.name:
        subject = replace(subject, name=f"{subject.name} (A)")
    copies = [replace(opponent, name=f"{opponent.name}#{i}")
              for i in range(1, players)]
    return TournamentConfig(participants=(subject, *copies), players=players, **fields)


@dataclass(frozen=True, slots=True)
class ScheduledGame:
    """One game of the schedule: where it sits, its seed, and who sits where."""

    index: int
    pairing: int
    deal: int
    rotation: int
    seed: int
    #: Participant index per seat.
    seats: tuple[int, ...]
    #: An experiment's game: the cards placed in the deal, the game's own card set (None:
    #: the configuration's), its id and what the record says of its arm.
    intervention: Intervention = ()
    cards: CardSet | None = None
    name: str = ""
    extra: tuple[tuple[str, Any], ...] = ()

    @property
    def id(self) -> str:
        return self.name or game_id(self.pairing, self.deal, self.rotation)

    def recorded_intervention(self) -> list[dict[str, Any]] | None:
        """The ``intervention`` field its record holds (None: a game with none)."""
        return [p.to_dict() for p in self.intervention] if self.intervention else None

    def meta(self) -> dict[str, Any]:
        """What the record gets from the schedule (merged by ``play_game``)."""
        return {"game": self.id, "pairing": self.pairing, "deal": self.deal,
                "rotation": self.rotation, **dict(self.extra)}


def game_id(pairing: int, deal: int, rotation: int) -> str:
    """The stable id of ``arena/runs/records.py``: ``"{pairing:03d}-{deal:04d}-{rotation}"``."""
    return f"{pairing:03d}-{deal:04d}-{rotation}"


def balanced_lineups(members: Sequence[int], seats: int) -> list[tuple[int, ...]]:
    """Line-ups of ``seats`` seats filled from ``members``, each member as often as possible.

    With as many members as seats this is the members themselves.  With fewer (2 bots at a
    4-player table) every member sits ``seats // len`` or one more times, and every such
    line-up is played so that no member is favoured (2 of 3 seats: ``AAB`` and ``ABB``).
    Copies sit side by side, so the rotations of a line-up are all different.
    """
    k = len(members)
    if k >= seats:
        return [tuple(members[:seats])]
    base, extra = divmod(seats, k)
    out = []
    for more in itertools.combinations(range(k), extra):
        counts = [base + (1 if i in more else 0) for i in range(k)]
        out.append(tuple(m for m, c in zip(members, counts) for _ in range(c)))
    return out


def pairings(participants: int, players: int, fmt: str) -> list[tuple[int, ...]]:
    """The line-ups of the tournament (participant indices in seat order before rotation).

    Round-robin: every combination of ``players`` participants (or, with fewer participants
    than seats, the balanced fills of all of them).  Gauntlet: the first participant against
    each other one, alone or with copies to fill the table.
    """
    everyone = list(range(participants))
    if fmt == "round-robin":
        if participants >= players:
            return [tuple(c) for c in itertools.combinations(everyone, players)]
        return balanced_lineups(everyone, players)
    out: list[tuple[int, ...]] = []
    for other in everyone[1:]:
        out.extend(balanced_lineups([0, other], players))
    return out


@dataclass(frozen=True)
class Schedule:
    """Every game of a tournament, in the order they are handed out."""

    config: TournamentConfig
    lineups: tuple[tuple[int, ...], ...]
    deals: int
    games: tuple[ScheduledGame, ...]

    @property
    def total(self) -> int:
        return len(self.games)

    def by_id(self) -> dict[str, ScheduledGame]:
        return {g.id: g for g in self.games}

    def names(self, game: ScheduledGame) -> list[str]:
        return [self.config.participants[p].name for p in game.seats]


def make_schedule(config: TournamentConfig) -> Schedule:
    """The schedule of a configuration (pure: same config, same schedule).

    Each deal is a seed played once per seat rotation (the duplicate format), so ``--games``
    is rounded up to whole rotations.  Index order is deal-major: deal 0 of every pairing,
    then deal 1, which keeps an interrupted round-robin balanced and lets the SPRT read
    complete deal pairs early.
    """
    players = config.players
    if config.experiment is not None:
        games = config.experiment.games(config)
        return Schedule(config, config.experiment.lineups(config),
                        1 + max((g.deal for g in games), default=-1), tuple(games))
    lineups = pairings(len(config.participants), players, config.format)
    deals = math.ceil(config.games / players)
    games: list[ScheduledGame] = []
    for deal in range(deals):
        for pairing, lineup in enumerate(lineups):
            seed = config.deal_seed(pairing, deal)
            for rotation in range(players):
                seats = tuple(lineup[(seat + rotation) % players] for seat in range(players))
                games.append(ScheduledGame(len(games), pairing, deal, rotation, seed, seats))
    return Schedule(config, tuple(lineups), deals, tuple(games))
