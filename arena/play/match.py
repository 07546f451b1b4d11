"""One game between bots: the loop every command and the tournament runner share.

The loop treats bots as untrusted: it hands each one a view and a copy of the legal list,
times it, and turns an exception, an action that is not in the list, or a decision that runs
past ``move_time`` into a recorded fault that ends the game (the faulty seat cannot win, the
others are scored as the game stood).  A hard time limit is enforced with ``SIGALRM`` when
the loop runs in a process's main thread; elsewhere (a Dask worker thread) the limit is
checked when the bot returns and the runner's watchdog handles a bot that never does.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Sequence
from typing import Any

from arena.engine import DEFAULT_CARD_SET, CardSet, GameState, PlayerView, RuleOptions, new_game
from arena.engine.history import DEALT, MOVE, PRIVATE_TAGS, Event
from arena.play.bot import Bot
from arena.play.faults import (
    FAULTS,
    Alarm,
    BotFault,
    MoveTimeout,
    decision_fault,
    describe_exception,
    game_error,
    illegal,
    not_legal,
    over_time,
    returned_text,
    start_fault,
)
from arena.play.intervention import Intervention
from arena.play.intervention import apply as apply_intervention
from arena.play.limits import move_time_problem
from arena.play.outcome import GameOutcome
from arena.play.seat import CALLBACK, LOOP, Game, native_seat, referee_for
from arena.runs.records import GameError, make_record

__all__ = ["BotFault", "GameOutcome", "MoveTimeout", "describe_exception", "play_game",
           "returned_text"]


#: The default rules, one object (frozen): the native referee reads an object once.
_DEFAULT_OPTIONS = RuleOptions()


def _decisions(
    state: GameState,
    bots: Sequence[Bot],
    alarm: Alarm,
    move_time: float | None,
    seconds: list[float],
    publish: Callable[[], None],
    on_decision: Callable[[int], None] | None,
) -> GameError | None:
    """Ask the bots for decisions until the game ends; the first fault stops it."""
    while not state.ended:
        seat = state.current
        legal = state.legal_actions()
        view = PlayerView.of(state, seat)
        if on_decision is not None:
            on_decision(seat)
        start = time.perf_counter()
        try:
            with alarm:
                action = bots[seat].choose(view, list(legal))
        except FAULTS as exc:  # untrusted code: any exception is the bot's fault
            seconds[seat] += time.perf_counter() - start
            return game_error(seat, decision_fault(exc, move_time))
        elapsed = time.perf_counter() - start
        seconds[seat] += elapsed
        late = over_time(elapsed, move_time)
        if late is not None:
            return game_error(seat, late)
        if not_legal(action, legal):
            return game_error(seat, illegal(action, state.round, state.step_name,
                                            state.card_set))
        state.apply(action)
        publish()
    return None


def play_game(
    bots: Sequence[Bot],
    seed: int,
    options: RuleOptions | None = None,
    *,
    names: Sequence[str] | None = None,
    move_time: float | None = None,
    on_event: Callable[[Event, GameState], None] | None = None,
    dice: Sequence[int] = (),
    meta: dict[str, Any] | None = None,
    on_decision: Callable[[int], None] | None = None,
    cards: CardSet | None = None,
    intervention: Intervention = (),
) -> GameOutcome:
    """Play one game, bot ``i`` in seat ``i``; returns the final state and the game record.

    The referee is ``arena.play.seat``'s choice: the native referee (``arena.play.referee``), its
    native seats in Rust and any other seat called back, unless a row of
    ``arena.play.seat.LOOP_REASONS`` (the reference engine first) sends the game to the loop
    below: the same decisions, faults and record either way.

    ``on_event`` receives every event as it happens, whole (hidden parts shown: it is for
    the one who runs the game, not for a seat), with the state already past it;
    ``on_decision`` is told which seat is about to think (the tournament's watchdog uses it
    to know whom to blame if the process dies).  ``meta`` is merged into the record (game id,
    pairing, deal, rotation).  ``cards`` is the objective card set (default: the printed one).
    ``intervention`` places cards in the deal before the bots are told of it (an
    experiment's arm, ``arena.play.intervention``); the record keeps it.
    """
    problem = move_time_problem(move_time)
    if problem:
        raise ValueError(f"move_time {problem}")
    options = options or _DEFAULT_OPTIONS
    names = list(names) if names is not None else [type(b).__name__ for b in bots]
    meta = meta or {}
    game = Game(seed, len(bots), names, dice, intervention, cards or DEFAULT_CARD_SET)
    seats = [native_seat(bot) for bot in bots]
    referee, _why = referee_for(game, seats, on_event is not None)
    if referee != LOOP:
        from arena.play.referee import play_native

        return play_native(bots, seats, game, options, move_time, on_event, meta, on_decision,
                           callback=referee == CALLBACK)
    return python_loop(bots, seed, options, names, move_time, on_event, dice, meta,
                       on_decision, cards, intervention)


def python_loop(
    bots: Sequence[Bot],
    seed: int,
    options: RuleOptions,
    names: list[str],
    move_time: float | None,
    on_event: Callable[[Event, GameState], None] | None,
    dice: Sequence[int],
    meta: dict[str, Any],
    on_decision: Callable[[int], None] | None,
    cards: CardSet | None,
    intervention: Intervention = (),
) -> GameOutcome:
    """The game loop in Python (the reference's, and the native engine's for a game the
    native referee does not take): ``play_game`` with its arguments checked."""
    players = len(bots)
    state = new_game(players, seed, options, dice=tuple(dice), cards=cards)
    apply_intervention(state, intervention)
    game_cards = state.card_set  # the events' cards (the printed set when none was given)
    seconds = [0.0] * players
    error: GameError | None = None
    history = state.history
    assert history is not None
    seen = 0
    actor = 0

    # Only bots that override the hook are told events: making them costs time.
    observers = [
        (seat, b) for seat, b in enumerate(bots)
        if getattr(b.observe, "__func__", None) is not Bot.observe
    ]

    def publish() -> None:
        nonlocal seen, actor
        while seen < len(history):
            entry = history[seen]
            seen += 1
            tag = entry[0]
            if tag in (MOVE, DEALT):
                actor = entry[2]
            # Most events are the same for every seat: one (immutable) Event serves them all.
            shared = Event.of(entry, actor, cards=game_cards) \
                if observers and tag not in PRIVATE_TAGS else None
            for seat, bot in observers:
                event = shared if shared is not None else Event.of(entry, actor, seat,
                                                                   cards=game_cards)
                # A failing hook is not worth the game: the bot only loses what it observes.
                with contextlib.suppress(Exception):
                    bot.observe(event)
            if on_event is not None:
                on_event(Event.of(entry, actor, cards=game_cards), state)

    for seat, bot in enumerate(bots):
        try:
            bot.start(seat, players, options)
        except Exception as exc:
            error = game_error(seat, start_fault(exc))
            break
    if error is None:
        publish()
    if error is None:
        alarm = Alarm(move_time)
        alarm.install()
        try:
            error = _decisions(state, bots, alarm, move_time, seconds, publish, on_decision)
        finally:
            alarm.restore()
    if error is None:
        result = state.result()
        for bot in bots:
            with contextlib.suppress(Exception):  # the game is already decided
                bot.finish(result)
    record = make_record(state, names, seconds, error, meta, intervention)
    return GameOutcome(state, record, error, seconds)


