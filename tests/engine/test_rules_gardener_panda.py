"""R7 (gardener), R8 (panda) and R9 (free moves)."""

from __future__ import annotations

from typing import Any

import pytest

from arena.engine import GameState, grid
from tests.engine.helpers import (
    assert_illegal,
    assert_legal,
    completed_ids,
    eaten,
    finish_turn,
    hand,
    hand_ids,
    height,
    heights,
    legal,
    load,
    play,
    tile,
)

# Straight lines from 1,0: a gap at 2,0 hides 3,0; the pond is crossed towards -2,0.
LINES = [
    tile("1,0", "green", 1),
    tile("1,-1", "green", 1),
    tile("2,-1", "yellow", 0),
    tile("3,-1", "yellow", 0),
    tile("3,0", "pink", 0),
    tile("-1,0", "pink", 1),
    tile("-2,0", "green", 0),
    tile("0,1", "yellow", 1),
]
FROM_1_0 = {"2,-1", "1,-1", "0,0", "-1,0", "-2,0", "0,1"}

# Growth around 1,0 (green): 1,-1 green, 2,0 green/fertilizer (watered by channels),
# 1,1 green at 4, 2,-1 green but dry, 0,1 yellow, -1,0 green but not adjacent.
GROWTH = [
    tile("1,0", "green", 1),
    tile("1,-1", "green", 2),
    tile("0,1", "yellow", 1),
    tile("1,1", "green", 4),
    tile("2,0", "green/fertilizer", 1),
    tile("2,-1", "green", 0),
    tile("-1,0", "green", 1),
]
GROWTH_CHANNELS = ["0,1|1,0", "1,0|1,1", "1,0|2,0"]


def growth(**kwargs: Any) -> GameState:
    kwargs.setdefault("weather", "rain")
    return load(tiles=GROWTH, channels=GROWTH_CHANNELS, **kwargs)


# --------------------------------------------------------------------------- R7


def test_R7_1_gardener_moves_in_straight_lines_over_tiles() -> None:
    """R7.1: straight lines, crossing the pond, never over an empty space, never staying."""
    s = load(tiles=LINES, gardener="1,0", weather="rain")
    moves = {a.split()[1] for a in legal(s) if a.startswith("gardener")}
    assert moves == FROM_1_0
    assert_illegal(s, "gardener 1,0", "gardener 3,0", "gardener 3,-1", "gardener 2,0")


def test_R7_1_gardener_may_stop_on_the_pond() -> None:
    """R7.1: the pond is a tile the gardener may stop on."""
    s = load(tiles=LINES, gardener="1,0", weather="rain")
    play(s, "gardener 0,0")
    assert s.gardener == grid.POND


def test_R7_2_gardener_grows_same_colour_neighbours() -> None:
    """R7.2: +1 where it stops and on each adjacent irrigated plot of the same colour."""
    s = growth()
    play(s, "gardener 1,0")
    assert heights(s, "1,0", "1,-1", "2,0", "1,1", "2,-1", "0,1", "-1,0") == {
        "1,0": 2,
        "1,-1": 3,
        "2,0": 3,  # fertilizer: +2
        "1,1": 4,  # never above 4
        "2,-1": 0,  # dry: nothing
        "0,1": 1,  # another colour
        "-1,0": 1,  # same colour but not adjacent
    }


def test_R7_2_gardener_on_a_dry_plot_still_grows_its_neighbours() -> None:
    """R7.2: if the tile where it stops is dry, the same-colour irrigated neighbours grow."""
    s = growth(gardener="1,-1")
    play(s, "gardener 2,-1")
    assert heights(s, "2,-1", "1,-1", "1,0", "2,0") == {
        "2,-1": 0,
        "1,-1": 3,
        "1,0": 2,
        "2,0": 3,
    }


def test_R7_2_gardener_on_the_pond_grows_nothing() -> None:
    """R7.2: stopping on the pond grows nothing, not even the plots around it."""
    s = growth(gardener="1,0")
    before = dict(s.bamboo)
    play(s, "gardener 0,0")
    assert s.bamboo == before


def test_R7_2_fertilizer_on_gardener_growth_stops_at_four() -> None:
    """R7.2, R11.4: +2 with fertilizer, but never beyond 4."""
    board = [tile("1,0", "green/fertilizer", 3), tile("1,-1", "green", 1)]
    s = load(tiles=board, weather="rain")
    play(s, "gardener 1,0")
    assert heights(s, "1,0", "1,-1") == {"1,0": 4, "1,-1": 2}


def test_R7_3_no_bamboo_above_four() -> None:
    """R7.3: a plot at 4 stays at 4 by gardener and rain."""
    board = [tile("1,0", "green", 4), tile("1,-1", "green", 4)]
    s = load(tiles=board, weather="wind")
    play(s, "gardener 1,0", "gardener 1,-1")
    assert heights(s, "1,0", "1,-1") == {"1,0": 4, "1,-1": 4}
    assert_illegal(load(tiles=board, step="rain", weather="rain"), "rain 1,0")


# --------------------------------------------------------------------------- R8


def test_R8_1_panda_moves_like_the_gardener() -> None:
    """R8.1: the panda has the same straight-line moves as the gardener."""
    s = load(tiles=LINES, panda="1,0", gardener="1,0", weather="rain")
    pandas = {a.split()[1] for a in legal(s) if a.startswith("panda")}
    gardeners = {a.split()[1] for a in legal(s) if a.startswith("gardener")}
    assert pandas == gardeners == FROM_1_0


def test_R8_2_panda_eats_one_section() -> None:
    """R8.2: the panda eats one section where it stops; it goes to the mover's stock."""
    board = [tile("1,0", "green", 3), tile("1,-1", "yellow", 1), tile("0,-1", "pink", 2)]
    s = load(tiles=board, weather="wind")
    play(s, "panda 1,0")
    assert height(s, "1,0") == 2 and eaten(s, 0) == (1, 0, 0)
    play(s, "panda 1,-1")
    assert height(s, "1,-1") == 0 and eaten(s, 0) == (1, 1, 0)


def test_R8_2_panda_on_bare_plot_or_pond_eats_nothing() -> None:
    """R8.2: no bamboo, no meal; the pond never has bamboo."""
    board = [tile("1,0", "green", 0), tile("1,-1", "yellow", 1)]
    s = load(tiles=board, weather="wind", panda="1,-1")
    play(s, "panda 1,0")
    assert eaten(s, 0) == (0, 0, 0)
    play(s, "panda 0,0")
    assert eaten(s, 0) == (0, 0, 0) and s.panda == grid.POND


@pytest.mark.parametrize("kind", ["green/enclosure", "green"])
def test_R8_2_panda_does_not_eat_on_an_enclosure(kind: str) -> None:
    """R8.2, R11.3: no eating on an enclosure, printed or token."""
    imp = "enclosure"
    s = load(tiles=[tile("1,0", kind, 2, improvement=imp)], weather="rain")
    play(s, "panda 1,0")
    assert s.panda == grid.parse_cell("1,0")
    assert height(s, "1,0") == 2 and eaten(s, 0) == (0, 0, 0)


def test_R8_3_eaten_sections_belong_to_the_mover() -> None:
    """R8.3: seat 1's panda meal goes to seat 1; the board (and figures) are shared."""
    board = [tile("1,0", "green", 4), tile("1,-1", "green", 2)]
    s = load(tiles=board, weather="rain", current=1, panda="1,-1", gardener="1,-1", dice=["sun"])
    play(s, "panda 1,0")
    assert eaten(s, 1) == (1, 0, 0) and eaten(s, 0) == (0, 0, 0)
    play(s, "gardener 1,0")  # the second action: the turn ends
    # Seat 0 moves the same figures from where seat 1 left them.
    assert s.current == 0
    moves = {a.split()[1] for a in legal(s) if a.startswith("panda")}
    assert moves == {"0,0", "1,-1"}  # from 1,0


def test_R8_3_a_shared_board_serves_every_player() -> None:
    """R8.3: a bamboo grown by one player completes another player's gardener objective."""
    board = [tile("1,0", "green", 3), tile("1,-1", "yellow", 1)]
    s = load(
        tiles=board,
        weather="rain",
        hands=[hand(["gardener-04"]), hand(["gardener-13"])],
    )
    assert "complete gardener-04" not in legal(s)
    play(s, "gardener 1,0")
    assert height(s, "1,0") == 4
    assert "complete gardener-04" in legal(s)


# --------------------------------------------------------------------------- R9


def test_R9_1_complete_any_number_or_wait() -> None:
    """R9.1: every objective that holds may be completed, now or in a later turn."""
    board = [tile("1,0", "green", 4), tile("1,-1", "green", 1), tile("2,-1", "green/watershed", 1)]
    s = load(
        tiles=board,
        weather="rain",
        hands=[hand(["gardener-04", "panda-01", "plot-07", "plot-01"], eaten=(2, 0, 0)), hand()],
        dice=["sun", "sun"],
    )
    assert_legal(s, "complete gardener-04", "complete panda-01")
    # plot-07: a green triangle 1,0 1,-1 2,-1 exists; plot-01 (a line of three) does not.
    assert_legal(s, "complete plot-07")
    assert_illegal(s, "complete plot-01")
    play(s, "complete panda-01")
    finish_turn(s)  # waits with the others
    assert hand_ids(s, 0) == ["gardener-04", "plot-07", "plot-01"]
    finish_turn(s)
    play(s, "complete gardener-04", "complete plot-07")
    assert completed_ids(s, 0) == ["panda-01", "gardener-04", "plot-07"]
    assert s.scores()[0] == 3 + 5 + 2


def test_R9_1_free_moves_only_in_one_s_own_turn() -> None:
    """R9.1: a seat completes its objectives only in its own turn."""
    board = [tile("1,0", "green", 4)]
    s = load(
        tiles=board,
        weather="rain",
        current=0,
        hands=[hand(), hand(["gardener-04"], channels=1, improvements=["enclosure"])],
    )
    assert_illegal(s, "complete gardener-04")
    assert not any(a.split()[0] in ("complete", "channel", "improve") for a in legal(s))


def test_R9_2_stored_channels_and_improvements_are_free() -> None:
    """R9.2: placing a stored channel or improvement spends no action."""
    board = [tile("1,0", "green", 1), tile("1,-1", "green", 1), tile("2,-1", "pink", 0)]
    s = load(
        tiles=board,
        weather="rain",
        hands=[hand(channels=1, improvements=["enclosure"]), hand()],
    )
    play(s, "improve enclosure 2,-1", "channel 1,-1|1,0")
    assert s.taken == () and s.actions_left() == 2
    assert s.improvement[grid.parse_cell("2,-1")] == 3 - 1  # enclosure
    play(s, "gardener 1,0", "panda 1,-1")
    assert s.current == 1


def test_R9_3_completed_objectives_are_never_lost() -> None:
    """R9.3: a completed gardener objective stays when its bamboo is eaten."""
    board = [tile("1,0", "green", 4)]
    s = load(tiles=board, weather="rain", hands=[hand(["gardener-04"]), hand()])
    play(s, "complete gardener-04", "panda 1,0")
    assert height(s, "1,0") == 3
    assert completed_ids(s, 0) == ["gardener-04"] and s.scores()[0] == 5
    finish_turn(s)
    assert completed_ids(s, 0) == ["gardener-04"] and s.scores()[0] == 5
