"""A card experiment as library calls: the configuration from skill levels, and its run.

Everything ``arena balance study`` does is here::

    from arena.balance.study import study_config, run_study
    config = study_config(["greedy"], deals=40, seed=1)
    run_study(config, Path("runs/study"))

A skill level is a bot spec playing against copies of itself (or of ``opponent``); the
levels' subjects are named after their specs, their opponents ``NAME#1``...  The study's
games are the tournament runner's, so workers, progress, Ctrl-C and ``--resume`` behave as
in ``arena tournament``.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from pathlib import Path

from arena.engine import CATEGORIES, DEFAULT_CARD_SET, CardSet, RuleOptions
from arena.jail.sandbox import Isolation, parse_participant
from arena.play.registry import BotSpec
from arena.tournament import RunResult, RunSettings, run_tournament
from arena.tournament.experiment import OFFSETS, CardExperiment, games_per_deal
from arena.tournament.schedule import ScheduleError, TournamentConfig


def renamed(spec: BotSpec, name: str) -> BotSpec:
    """``spec`` under another participant name, its text saying so (``greedy:name=greedy#1``):
    a manifest keeps the text, and ``--resume`` parses it back to the same participant.  A
    comma in the name would end the spec: it becomes a semicolon.  The same bot with the same
    checked values: nothing is parsed again (a bot not ours keeps its jail's check)."""
    params = ",".join(f"{k}={str(v).lower() if isinstance(v, bool) else v}"
                      for k, v in spec.params.items())
    safe = name.replace(",", ";")
    text = f"{spec.target}:{params + ',' if params else ''}name={safe}"
    return dataclasses.replace(spec, text=text, name=safe)


def participants(levels: Sequence[BotSpec], players: int,
                 opponent: BotSpec | None = None) -> tuple[tuple[BotSpec, ...],
                                                           tuple[tuple[int, ...], ...]]:
    """The study's participants and each level's line-up (subject first)."""
    specs: list[BotSpec] = []
    lineups = []
    seen: set[str] = set()
    for level in levels:
        if level.name in seen:
            raise ScheduleError(f"two skill levels are named {level.name!r}; give one a "
                                "name= (e.g. --bot greedy:name=G2)")
        seen.add(level.name)
        other = opponent or level
        copies = [renamed(other, f"{level.name}#{i}" if opponent is None
                          else f"{other.name}#{i} vs {level.name}") for i in range(1, players)]
        lineups.append(tuple(range(len(specs), len(specs) + players)))
        specs += [level, *copies]
    return tuple(specs), tuple(lineups)


def study_config(
    levels: Sequence[str | BotSpec], *, deals: int, players: int = 2, seed: int = 0,
    cards: CardSet = DEFAULT_CARD_SET, options: RuleOptions | None = None,
    categories: Sequence[str] = CATEGORIES, priced: Sequence[str] | None = None,
    offsets: Sequence[int] = OFFSETS, depth: int | None = None,
    opponent: str | BotSpec | None = None,
) -> TournamentConfig:
    """The configuration of a study (ScheduleError: one sentence on a bad choice)."""
    # Read as ``arena tournament`` reads them: a bot not ours is checked in a jail.
    specs = [s if isinstance(s, BotSpec) else parse_participant(s, Isolation()) for s in levels]
    rival = parse_participant(opponent, Isolation()) if isinstance(opponent, str) else opponent
    people, lineups = participants(specs, players, rival)
    unknown = [c for c in categories if c not in CATEGORIES]
    if unknown:
        raise ScheduleError(f"--category {unknown[0]!r} is not one of {', '.join(CATEGORIES)}")
    design = CardExperiment(
        levels=lineups, deals=deals,
        categories=tuple(sorted(CATEGORIES.index(c) for c in set(categories))),
        priced=None if priced is None else tuple(priced), offsets=tuple(offsets),
        depth=depth, observed="all" if rival is None else "subject")
    return TournamentConfig(participants=people, players=players, games=deals, seed=seed,
                            options=options or RuleOptions(), cards=cards,
                            experiment=design)


def deals_for(games: int, config: TournamentConfig) -> int:
    """Deals that a budget of ``games`` buys (at least 1): whole deals of every arm."""
    assert config.experiment is not None
    per = games_per_deal(config, config.experiment)  # type: ignore[arg-type]
    return max(1, math.floor(games / per))


def run_study(config: TournamentConfig, directory: Path, *, resume: bool = False,
              settings: RunSettings | None = None) -> RunResult:
    """Play (or go on playing) the study into ``directory``."""
    return run_tournament(config, directory, resume=resume, settings=settings)
