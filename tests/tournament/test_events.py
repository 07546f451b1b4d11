"""A bot that observes is told ``Event``s, as its seat may see them, in the worker's process
and in a bot process (where they travel as copies): the same events either way."""

from __future__ import annotations

import random
from typing import Any

import pytest

from arena.engine import Event, RuleOptions, events
from arena.jail.sandbox import BotHost, Isolation, RemoteBot
from arena.play.bot import Bot
from arena.play.match import play_game
from arena.play.registry import BotSpec
from bots.random_bot import RandomBot

from .conftest import BROKEN

pytestmark = pytest.mark.timeout(120, method="thread")


class Recorder(RandomBot):
    """Keeps every event it is told."""

    def start(self, seat: int, players: int, options: RuleOptions) -> None:
        super().start(seat, players, options)
        self.told: list[Event] = []

    def observe(self, event: Event) -> None:
        self.told.append(event)


def test_a_bot_that_observes_is_told_every_event_its_seat_may_see() -> None:
    bots: list[Bot] = [Recorder(random.Random(1)), RandomBot(random.Random(2)),
                       Recorder(random.Random(3))]
    out = play_game(bots, 5, RuleOptions(max_rounds=6, redraw_satisfied="all"))
    history = out.state.history or ()
    for seat in (0, 2):
        told = bots[seat].told  # type: ignore[attr-defined]
        assert all(type(e) is Event for e in told)
        assert told == list(events(history, seat, cards=out.state.card_set))
    # Seat 0 sees its own hand and draws, not seat 2's.
    first = bots[0].told  # type: ignore[attr-defined]
    assert first[0].cards == history[0][3] and first[2].cards == (None, None, None)
    drawn = [e for e in first if e.kind == "drew_plots"]
    assert drawn and any(e.seat != 0 for e in drawn)
    for e in drawn:
        assert (None in e.plots) == (e.seat != 0)


@pytest.mark.parametrize("isolated", [False, True])
def test_a_bot_is_told_the_same_events_in_a_bot_process(isolated: bool) -> None:
    spec = BotSpec.parse(BROKEN + "Teller:at=8")
    host = BotHost(spec, Isolation("all")) if isolated else None
    teller: Any = RemoteBot(host, 9, None) if host else spec.create(random.Random(9))
    try:
        out = play_game([RandomBot(random.Random(4)), teller], 11, RuleOptions())
    finally:
        if host is not None:
            teller.close()
            host.close()
    assert out.error is not None and out.error["seat"] == 1, out.error
    message = out.error["message"]
    assert message.startswith("RuntimeError: ") and "(at " in message, message
    told = message.removeprefix("RuntimeError: ").rsplit(" (at ", 1)[0].split("|")
    expected = [e.text for e in events(out.state.history or (), 1, cards=out.state.card_set)
                if e.kind != "move"]
    assert told == expected
    assert "* deal 0 plot ? gardener ? panda ?" in told
