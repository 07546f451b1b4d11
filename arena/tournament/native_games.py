"""The runner's native path: a chunk of games between native bots in one call.

A game whose every seat is a participant that plays natively (a native seat,
``arena.play.seat.participant_seats``: a built-in bot with a Rust twin, not isolated) and that
no row of ``arena.play.seat.LOOP_REASONS`` sends elsewhere (the ``batch`` referee of
``arena.play.seat.referee_for``, asked through ``batch_plays``) needs no Python at all: the
native referee makes the bots from their parameters, seeds each as
``arena.play.registry.make_bot`` does (from the game seed, the seat and the participant's
name), plays, and writes the record line, the GIL released. ``_native.play_batch`` plays a run
of such games one after another and hands the finished ones back in chunks (``EMIT_EVERY``
games or ``EMIT_SECONDS``), so the worker sends them on while it plays the rest: progress
stays smooth, Ctrl-C in the main thread is seen between two games, and a worker that dies
loses only games its parent has not been sent, which are played again. The records are the
bytes ``GamePlayer.play`` gives. An experiment's games (``arena balance study``) play here
too: each carries its intervention (the cards placed in the deal) and may have a card set of
its own (a price arm).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

import orjson

from arena.play.seat import Game, batch_plays, core, placement_args
from arena.runs.records import record_head, record_parts
from arena.tournament.schedule import Schedule, ScheduledGame

log = logging.getLogger("arena.tournament")

#: Finished games per message at most, and seconds between messages at most, from a batch.
EMIT_EVERY = 64
EMIT_SECONDS = 0.05


class NativeGames:
    """Plays the schedule's all-native games in batches (one per worker)."""

    def __init__(self, schedule: Schedule, natives: Sequence[tuple[str, dict[str, Any]] | None],
                 *, log_faults: bool = True) -> None:
        self.schedule = schedule
        config = schedule.config
        self.config = config
        self.natives = list(natives)
        self.log_faults = log_faults
        self.participants = [
            (native[0], native[1], spec.name) if native is not None else None
            for native, spec in zip(self.natives, config.participants)
        ]
        self.parts = record_parts(config.options, config.cards)
        self.limit = (config.move_time, f"{config.move_time:g}") if config.move_time else None

    def plays(self, game: ScheduledGame) -> bool:
        """Whether the core plays the game whole: the one table's answer (``batch_plays``),
        not a check of this module's own."""
        config = self.config
        facts = Game(game.seed, len(game.seats), self.schedule.names(game), (),
                     game.intervention, config.cards if game.cards is None else game.cards)
        return batch_plays(facts, [self.natives[p] for p in game.seats])

    def play(self, indices: Sequence[int],
             send: Callable[[list[tuple[int, str, tuple[Any, ...]]]], None]) -> None:
        """Play these games (each ``plays``); ``send`` gets lists of ``(index, line,
        summary fields)``: winners, tiebreak, scores, error seat, error kind."""
        games = [self.schedule.games[i] for i in indices]
        used = sorted({p for g in games for p in g.seats})
        local = {p: k for k, p in enumerate(used)}
        participants = [self.participants[p] for p in used]
        # The batch's card sets: the run's first, then an experiment's games' own (a price
        # arm's), each with its record's ``card_set`` text, made once per set.
        config = self.config
        sets: list[tuple[Any, str]] = [(config.cards, self.parts[1])]
        where: dict[int, int] = {id(config.cards): 0}
        batch = []
        for g in games:
            head = record_head(g.meta())
            if head is None:
                raise ValueError(f"game {g.id}: its meta cannot be written natively")
            cards = config.cards if g.cards is None else g.cards
            placements = placement_args(g.intervention, cards)
            if placements is None:
                raise ValueError(f"game {g.id}: its intervention cannot be made natively")
            k = where.get(id(cards))
            if k is None:
                k = where[id(cards)] = len(sets)
                sets.append((cards, record_parts(config.options, cards)[1]))
            batch.append((g.seed, [local[p] for p in g.seats], head, g.id, k, placements))

        def emit(results: list[tuple[Any, ...]]) -> None:
            out = []
            for k, line, winners, tiebreak, scores, seat, kind, _failure in results:
                game = games[k]
                if seat is not None and self.log_faults:
                    error = orjson.loads(line)["error"]
                    names = self.schedule.names(game)
                    log.warning("game %s: %s (seat %d) %s: %s", game.id, names[seat], seat,
                                kind, error["message"])
                out.append((game.index, line, (tuple(winners), tiebreak, tuple(scores), seat,
                                               kind)))
            send(out)

        core().play_batch(config.players, config.options, sets, self.limit, participants,
                          batch, self.parts[0], emit, EMIT_EVERY, EMIT_SECONDS)
