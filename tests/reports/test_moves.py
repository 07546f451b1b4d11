"""``arena.runs.moves``: the reports' one reading of a record's ``moves`` (a card's turn
actions, the card study's "actions to complete"), held to the record's writer and to the
engine's own parser on seeded games."""

from __future__ import annotations

import random

from arena.engine import RuleOptions
from arena.engine.actions import COMPLETE, TURN_ACTION, card_of, kind_of
from arena.engine.history import DREW, MOVE
from arena.play.match import python_loop
from arena.play.registry import BotSpec, make_bot
from arena.runs.moves import TURN_ACTIONS, turn_actions
from arena.runs.records import ACTION_KINDS
from tests.engine.test_native import random_cards


def _games() -> list[tuple[dict, object]]:
    out = []
    for seed in range(12):
        rng = random.Random(seed)
        players = rng.choice((2, 3, 4))
        bots = [make_bot(BotSpec.parse(rng.choice(["random", "greedy", "objective"])), seed, s)
                for s in range(players)]
        outcome = python_loop(bots, seed, RuleOptions(), [f"s{s}" for s in range(players)],
                              None, None, (), {}, None, random_cards(rng, players))
        out.append((dict(outcome.record), outcome.state))
    return out


def _engine_count(state: object, seat: int, card: str, after_draw: bool) -> int:
    """The same count from the history's actions, by the engine's kinds (no text)."""
    cards = state.card_set  # type: ignore[attr-defined]
    counting, count = not after_draw, 0
    for entry in state.history:  # type: ignore[attr-defined]
        tag = entry[0]
        if not counting:
            counting = tag == DREW and cards.cards[entry[2]].id == card
            continue
        if tag == MOVE and entry[2] == seat:
            kind = kind_of(entry[3])
            if kind == COMPLETE and cards.cards[card_of(entry[3])].id == card:
                break
            count += TURN_ACTION[kind] >= 0
    return count


def test_the_kinds_are_the_records_own() -> None:
    assert ACTION_KINDS == TURN_ACTIONS


def test_a_seats_turn_actions_are_the_writers_counts_and_the_engines() -> None:
    games = _games()
    checked = completed = 0
    for record, state in games:
        for seat, counts in enumerate(record["actions"]):
            # Counting to a card never completed: the whole game, the writer's total.
            assert turn_actions(record["moves"], seat, "no-such-card", False) \
                == sum(counts.values())
        for entry in record["cards"]:
            seat, card = entry["seat"], entry["card"]
            for after_draw in (False, True):
                got = turn_actions(record["moves"], seat, card, after_draw)
                assert got == _engine_count(state, seat, card, after_draw), (card, after_draw)
                checked += 1
            completed += entry["completed_round"] is not None
    assert checked > 100 and completed > 20
