"""R13: the end of the game, scoring and results."""

from __future__ import annotations

from typing import Any

import pytest

from arena.engine import GameResult, GameState, PositionError
from tests.engine.helpers import (
    completed_ids,
    finish_turn,
    hand,
    legal,
    load,
    play,
    tile,
)

PANDAS = [f"panda-{i:02d}" for i in range(1, 16)]
GARDENERS = [f"gardener-{i:02d}" for i in range(1, 16)]


def near_end(
    players: int = 2, current: int = 0, needed: int | None = None, **kwargs: Any
) -> GameState:
    """Seat ``current`` holds ``needed - 1`` completed panda cards and gardener-04, which the
    board satisfies (a green 4 at 1,0); every turn from now rolls sun."""
    needed = needed or {2: 9, 3: 8, 4: 7}[players]
    hands = [hand() for _ in range(players)]
    hands[current] = hand(["gardener-04", "gardener-12"], completed=PANDAS[: needed - 1])
    return load(
        players=players,
        current=current,
        tiles=[tile("1,0", "green", 4), tile("1,-1", "pink", 3)],
        weather="rain",
        hands=hands,
        dice=["sun"] * 8,
        **kwargs,
    )


@pytest.mark.parametrize("players", [2, 3, 4])
def test_R13_1_the_emperor_goes_to_the_first_to_reach_the_count(players: int) -> None:
    """R13.1: completing the 9th / 8th / 7th objective takes the Emperor card."""
    s = near_end(players)
    assert s.emperor == -1
    play(s, "complete gardener-04")
    assert s.emperor == 0 and s.last_turns == players - 1
    assert s.history_text()[-1] == "* emperor 0"
    assert s.scores()[0] == sum(3 if i < 5 else 4 for i in range(len(s.completed[0]) - 1)) + 5 + 2


def test_R13_1_only_the_first_takes_the_emperor() -> None:
    """R13.1: a second player reaching the count later does not take the Emperor."""
    done0 = PANDAS[:9]
    done1 = GARDENERS[4:12]  # 8 completed
    s = load(
        tiles=[tile("1,0", "green", 4)],
        weather="rain",
        current=1,
        emperor=0,
        last_turns=1,
        hands=[hand(completed=done0), hand(["gardener-04"], completed=done1)],
    )
    play(s, "complete gardener-04")
    assert len(s.completed[1]) == 9 and s.emperor == 0
    assert "* emperor 1" not in s.history_text()


def test_R13_2_the_emperor_finishes_the_turn_and_may_complete_more() -> None:
    """R13.2: after the Emperor the player goes on: more completions, more actions."""
    s = near_end(2)
    play(s, "complete gardener-04")
    assert s.current == 0 and not s.ended
    play(s, "gardener 1,-1")  # pink 3 -> 4: gardener-12 now holds
    assert "complete gardener-12" in legal(s)
    play(s, "complete gardener-12")
    assert completed_ids(s, 0)[-2:] == ["gardener-04", "gardener-12"]
    assert s.emperor == 0


@pytest.mark.parametrize(("players", "emperor"), [(2, 0), (2, 1), (3, 1), (4, 2), (4, 0)])
def test_R13_2_each_other_player_has_exactly_one_more_turn(players: int, emperor: int) -> None:
    """R13.2: then each other player has one more turn, in seat order; then the game ends."""
    s = near_end(players, current=emperor)
    play(s, "complete gardener-04")
    finish_turn(s)
    turns = []
    while not s.ended:
        turns.append(s.current)
        finish_turn(s)
    expected = [(emperor + k) % players for k in range(1, players)]
    assert turns == expected
    assert s.ended and not s.capped
    assert s.history_text()[-1] == "* game over"
    assert s.legal_actions() == []


def test_R13_2_last_turns_in_a_position() -> None:
    """R13.2: a position may stand in the last turns; ``last_turns`` counts what remains."""
    s = load(
        players=3,
        current=2,
        emperor=1,
        last_turns=2,
        weather="rain",
        hands=[hand(), hand(completed=PANDAS[:8]), hand()],
        dice=["sun"],
    )
    finish_turn(s)
    assert (s.current, s.last_turns, s.ended) == (0, 1, False)
    finish_turn(s)
    assert s.ended
    with pytest.raises(PositionError, match="last_turns"):
        load(players=3, emperor=1, last_turns=3, hands=[hand(), hand(completed=PANDAS[:8]), hand()])


def test_R13_3_score_is_completed_points_plus_emperor() -> None:
    """R13.3: points of completed objectives plus the Emperor; cards in hand are worth 0."""
    s = load(
        emperor=1,
        last_turns=1,
        weather="rain",
        hands=[
            hand(["gardener-12", "plot-15"], completed=["plot-01", "panda-13"]),
            hand(completed=PANDAS[:9]),
        ],
    )
    assert s.scores() == [2 + 6, 5 * 3 + 4 * 4 + 2]
    assert s.result().scores == (8, 33)


def test_R13_4_highest_score_wins() -> None:
    """R13.4: the highest score wins, with no tie-break."""
    s = load(hands=[hand(completed=["plot-03"]), hand(completed=["plot-01"])], weather="rain")
    r = s.result()
    assert r.winners == (0,) and r.tiebreak == "none"
    assert not r.won_by_tiebreak(0) and not r.shared(0)


def test_R13_4_tie_broken_by_panda_points() -> None:
    """R13.4: among tied players, the most points of completed panda objectives wins."""
    s = load(
        players=3,
        weather="rain",
        hands=[
            hand(completed=["plot-12"]),  # 5, no panda
            hand(completed=["panda-10"]),  # 5, panda 5
            hand(completed=["plot-01", "panda-01"]),  # 5, panda 3
        ],
    )
    r = s.result()
    assert r.scores == (5, 5, 5)
    assert r.panda_points == (0, 5, 3)
    assert r.winners == (1,) and r.tiebreak == "panda"
    assert r.won_by_tiebreak(1) and not r.won_by_tiebreak(2)


def test_R13_4_still_tied_the_victory_is_shared() -> None:
    """R13.4: tied on score and panda points: those players share the victory."""
    s = load(
        players=4,
        weather="rain",
        hands=[
            hand(completed=["panda-06", "plot-01"]),  # 6, panda 4
            hand(completed=["panda-07", "plot-04"]),  # 6, panda 4
            hand(completed=["panda-13"]),  # 6, panda 6 ... wins
            hand(completed=["gardener-13"]),  # 8
        ],
    )
    r = s.result()
    assert r.winners == (3,) and r.tiebreak == "none"
    t = load(
        players=4,
        weather="rain",
        hands=[
            hand(completed=["panda-06", "plot-01"]),  # 6, panda 4
            hand(completed=["panda-07", "plot-04"]),  # 6, panda 4
            hand(completed=["plot-13", "plot-07"]),  # 5
            hand(completed=["plot-10", "plot-08"]),  # 6, panda 0
        ],
    )
    r = t.result()
    assert r.scores == (6, 6, 5, 6)
    assert r.winners == (0, 1) and r.tiebreak == "shared"
    assert r.shared(0) and r.shared(1) and not r.shared(3)
    assert t.returns() == [0.5, 0.5, 0.0, 0.0]


def test_R13_5_the_result_keeps_everything_per_player() -> None:
    """R13.5: score, panda points, completed cards, tie-break and shared flags per player."""
    s = near_end(2)
    play(s, "complete gardener-04")
    finish_turn(s)
    finish_turn(s)
    assert s.ended
    r = s.result()
    assert isinstance(r, GameResult)
    data = r.to_dict()
    assert set(data) >= {
        "scores",
        "panda_points",
        "winners",
        "tiebreak",
        "emperor",
        "capped",
        "rounds",
        "completed",
    }
    assert data["completed"][0] == [*PANDAS[:8], "gardener-04"]
    assert data["completed"][1] == []
    assert data["scores"] == [5 * 3 + 3 * 4 + 5 + 2, 0]
    assert data["panda_points"] == [5 * 3 + 3 * 4, 0]
    assert data["winners"] == [0] and data["tiebreak"] == "none" and data["emperor"] == 0
    assert data["capped"] is False and data["rounds"] == s.round
    assert [r.won_by_tiebreak(seat) for seat in (0, 1)] == [False, False]
    assert [r.shared(seat) for seat in (0, 1)] == [False, False]
