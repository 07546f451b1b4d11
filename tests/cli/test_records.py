"""Game records: every field computed from the game that was played (arena/runs/records.py)."""

from __future__ import annotations

import random

from arena.engine import RuleOptions
from arena.engine.components import CARDS
from arena.play.bot import Bot
from arena.play.match import play_game
from arena.runs.records import ACTION_KINDS
from arena.show.replay import replay_record
from bots.random_bot import RandomBot


def _game(seed: int, players: int = 2, **options: object):
    bots = [RandomBot(random.Random(seed + i), complete=True) for i in range(players)]
    return play_game(bots, seed, RuleOptions(**options), names=[f"r{i}" for i in range(players)])


def test_record_matches_the_final_state() -> None:
    outcome = _game(21, players=3)
    record, state = outcome.record, outcome.state
    result = state.result()
    assert record["scores"] == list(result.scores) == state.scores()
    assert record["winners"] == list(result.winners)
    assert record["rounds"] == state.round
    assert record["completed"] == [[CARDS[c].id for c in done] for done in state.completed]
    # Every card a seat ever held was drawn (the deal first), and completions are a subset.
    for seat in range(3):
        held = {CARDS[c].id for c in state.hands[seat]} | set(record["completed"][seat])
        assert held == set(record["drawn"][seat])
        assert record["drawn"][seat][:3] == [c["card"] for c in record["cards"]
                                             if c["seat"] == seat][:3]


def test_card_rounds_and_action_counts_come_from_the_history() -> None:
    record = _game(5).record
    for card in record["cards"]:
        assert 0 <= card["drawn_round"] <= record["rounds"]
        if card["card"] in record["completed"][card["seat"]]:
            assert card["drawn_round"] <= card["completed_round"] <= record["rounds"]
        else:
            assert card["completed_round"] is None
    moves = [m.split(" ", 1) for m in record["moves"] if not m.startswith("*")]
    for seat in range(2):
        taken = [text for s, text in moves if s == str(seat)]
        for kind in ACTION_KINDS:
            expected = sum(1 for t in taken if t.split(" ")[0] == kind)
            assert record["actions"][seat][kind] == expected, (seat, kind)
    rolls = [m for m in record["moves"] if m.startswith("* roll ")]
    assert sum(record["weather"].values()) == len(rolls)


def test_a_crashing_bot_costs_the_game_and_cannot_win() -> None:
    class Crashes(Bot):
        """Crashes on its third decision."""

        def choose(self, view, legal):  # type: ignore[no-untyped-def]
            self.calls = getattr(self, "calls", 0) + 1
            if self.calls == 3:
                raise RuntimeError("boom")
            return legal[0]

    outcome = play_game([Crashes(random.Random(1)), RandomBot(random.Random(2))], 3)
    error = outcome.record["error"]
    assert error is not None and error["seat"] == 0 and error["kind"] == "crash"
    assert "RuntimeError: boom" in error["message"]
    assert outcome.record["winners"] == [1]
    # The stopped game still replays up to where it stopped, and its result matches.
    assert replay_record(dict(outcome.record)).ok


def test_an_illegal_action_is_recorded_with_the_seat() -> None:
    class Cheats(Bot):
        """Returns something that is not in the legal list."""

        def choose(self, view, legal):  # type: ignore[no-untyped-def]
            return max(legal) + 1

    outcome = play_game([RandomBot(random.Random(1)), Cheats(random.Random(2))], 8)
    assert outcome.record["error"]["kind"] == "illegal"
    assert outcome.record["error"]["seat"] == 1
    assert 1 not in outcome.record["winners"]


def test_move_time_is_a_hard_limit() -> None:
    import time

    class Sleeps(Bot):
        """Never answers in time."""

        def choose(self, view, legal):  # type: ignore[no-untyped-def]
            time.sleep(60)
            return legal[0]

    start = time.perf_counter()
    outcome = play_game([Sleeps(random.Random(1)), RandomBot(random.Random(2))], 8,
                        move_time=0.2)
    # A bot waited for would take 60 s; 30 s is margin for a loaded machine, not a speed test.
    assert time.perf_counter() - start < 30
    assert outcome.record["error"]["kind"] == "timeout"
    assert outcome.record["error"]["seat"] == 0
