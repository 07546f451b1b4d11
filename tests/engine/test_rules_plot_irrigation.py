"""R5 (plot action) and R6 (irrigation)."""

from __future__ import annotations

from typing import Any

import pytest

from arena.engine import GameState, from_position, grid, to_position
from arena.engine import actions as act
from arena.engine import components as comp
from arena.engine.components import DEFAULT_CARD_SET
from tests.engine.helpers import (
    all_plots_on_board,
    assert_illegal,
    assert_legal,
    hand,
    height,
    heights,
    irrigated,
    legal,
    load,
    make_position,
    play,
    plot_deck,
    spiral,
    tile,
)

TWO = [tile("1,0", "green", 1), tile("1,-1", "yellow", 1)]


def deck_names(state: GameState) -> list[str]:
    return [comp.tile_name(t) for t in state.plot_deck]


def with_deck(top: list[str], board: list | None = None, **kwargs: Any) -> GameState:
    board = TWO if board is None else board
    return load(
        tiles=board,
        decks={"plots": plot_deck(top, board)},
        weather=kwargs.pop("weather", "rain"),
        **kwargs,
    )


# --------------------------------------------------------------------------- R5


def test_R5_1_plot_action_draws_the_top_three() -> None:
    """R5.1: the plot action draws the three top plots, in deck order."""
    s = with_deck(["pink", "yellow", "green/fertilizer"])
    play(s, "plot")
    assert s.step_name == "place"
    assert [comp.tile_name(t) for t in s.drawn] == ["pink", "yellow", "green/fertilizer"]
    assert len(s.plot_deck) == 27 - 2 - 3
    assert s.history_text()[-1] == "* drew plots pink yellow green/fertilizer"


def test_R5_1_the_others_go_under_the_deck_in_draw_order() -> None:
    """R5.1: ``place K`` puts the two others at the bottom, in draw order."""
    s = with_deck(["pink", "yellow", "green/fertilizer"])
    play(s, "plot", "place 1 0,-1")
    assert s.colour(grid.parse_cell("0,-1")) == comp.YELLOW
    assert deck_names(s)[-2:] == ["pink", "green/fertilizer"]
    assert len(s.plot_deck) == 27 - 3
    assert s.step_name == "actions" and s.drawn == ()


def test_R5_1_swap_puts_them_under_in_reverse_order() -> None:
    """R5.1: ``swap`` returns the two others in the reverse order (the last one at the bottom)."""
    s = with_deck(["pink", "yellow", "green/fertilizer"])
    play(s, "plot", "place 1 0,-1 swap")
    assert deck_names(s)[-2:] == ["green/fertilizer", "pink"]
    t = with_deck(["pink", "yellow", "green/fertilizer"])
    play(t, "plot", "place 0 0,-1 swap")
    assert deck_names(t)[-2:] == ["green/fertilizer", "yellow"]
    # The rest of the deck is untouched.
    assert deck_names(s)[:-2] == deck_names(t)[:-2]


@pytest.mark.parametrize("left", [1, 2])
def test_R5_1_fewer_than_three_plots_left(left: int) -> None:
    """R5.1: with fewer than three plots in the deck, all of them are drawn."""
    board = all_plots_on_board()[: 27 - left]
    names = [t["tile"] for t in all_plots_on_board()[27 - left :]]
    s = load(tiles=board, decks={"plots": names}, weather="rain")
    play(s, "plot")
    assert [comp.tile_name(t) for t in s.drawn] == names
    assert s.plot_deck == ()
    assert not any(a.endswith("swap") for a in legal(s)), "swap needs two plots to return"
    s.play(s.legal_actions()[0])
    assert len(s.plot_deck) == left - 1


def test_R5_1_identical_drawn_plots_give_no_duplicate_actions() -> None:
    """R5.1, docs/notation.md: identical drawn plots (and swaps of identical plots) are listed
    once."""
    s = with_deck(["green", "green", "yellow"])
    play(s, "plot")
    actions = legal(s)
    assert "place 0 0,-1" in actions and "place 0 0,-1 swap" in actions
    assert not any(a.startswith("place 1 ") for a in actions), "plot 1 is the same as plot 0"
    assert "place 2 0,-1" in actions
    assert "place 2 0,-1 swap" not in actions, "swapping two identical plots changes nothing"
    # Every distinct outcome is reachable, and by exactly one listed action.
    listed = {}
    for a in s.legal_actions():
        t = s.copy()
        t.apply(a)
        key = repr(to_position(t))
        assert key not in listed, f"{act.action_text(a, DEFAULT_CARD_SET)} = {listed.get(key)}"
        listed[key] = act.action_text(a, DEFAULT_CARD_SET)
    every = set()
    for k in range(3):
        for cell in s.placement_spaces():
            for swap in (False, True):
                t = s.copy()
                t.apply(act.place(k, cell, 0, swap))
                every.add(repr(to_position(t)))
    assert every == set(listed)


def test_R5_2_placement_next_to_the_pond_or_two_tiles() -> None:
    """R5.2: an empty space beside the pond, or beside at least two tiles in play."""
    s = with_deck(["pink", "yellow", "green"])
    play(s, "plot")
    spaces = {a.split()[2] for a in legal(s)}
    assert spaces == {"0,-1", "-1,0", "-1,1", "0,1", "2,-1"}
    # 2,0 touches only 1,0; 2,-2 touches only 1,-1; 1,0 is taken.
    assert_illegal(s, "place 0 2,0", "place 0 2,-2", "place 0 1,0", "place 0 0,0")


def test_R5_2_the_pond_counts_as_a_tile() -> None:
    """R5.2: beside the pond is always a legal space, and the pond counts among the two."""
    s = load(decks={"plots": plot_deck(["pink", "yellow", "green"])}, weather="rain")
    play(s, "plot")
    assert {a.split()[2] for a in legal(s)} == {"1,0", "1,-1", "0,-1", "-1,0", "-1,1", "0,1"}


@pytest.mark.parametrize(
    ("kind", "at", "bamboo", "is_irrigated"),
    [
        ("pink", "0,-1", 1, True),  # beside the pond
        ("pink/fertilizer", "0,-1", 2, True),  # fertilizer: two sections
        ("green/watershed", "2,-1", 1, True),  # a watershed irrigates itself
        ("green", "2,-1", 0, False),  # dry: no bamboo
        ("yellow/enclosure", "2,-1", 0, False),
    ],
)
def test_R5_3_a_new_irrigated_plot_gets_its_first_section(
    kind: str, at: str, bamboo: int, is_irrigated: bool
) -> None:
    """R5.3: an irrigated new plot gets its first section (two with fertilizer) at once."""
    s = with_deck([kind, "pink", "yellow"])
    play(s, "plot", f"place 0 {at}")
    assert height(s, at) == bamboo
    assert irrigated(s, at) is is_irrigated


def test_R5_4_a_stored_improvement_on_the_new_plot() -> None:
    """R5.4: ``+IMPROVEMENT`` puts a stored token on the new plot before its bamboo grows."""
    s = with_deck(
        ["green", "pink/watershed", "yellow"],
        hands=[hand(improvements=["fertilizer", "enclosure"]), hand()],
    )
    play(s, "plot")
    assert_legal(s, "place 0 0,-1 +fertilizer", "place 0 2,-1 +enclosure swap")
    assert_illegal(s, "place 0 0,-1 +watershed")  # not in the stock
    assert not any(a.startswith("place 1 ") and "+" in a for a in legal(s)), (
        "a plot with a printed improvement takes no other"
    )
    play(s, "place 0 0,-1 +fertilizer")
    assert height(s, "0,-1") == 2, "fertilizer is there before the first growth"
    assert s.improvement[grid.parse_cell("0,-1")] == comp.FERTILIZER
    assert s.stored_improvements[0] == (0, 0, 1, 0)
    assert s.reserve_improvements == (0, 3, 2, 2)


def test_R5_4_stored_watershed_irrigates_the_new_plot() -> None:
    """R5.4, R11.2: a stored watershed on a new plot far from water irrigates it."""
    s = with_deck(["green", "pink", "yellow"], hands=[hand(improvements=["watershed"]), hand()])
    play(s, "plot", "place 2 2,-1 +watershed")
    assert irrigated(s, "2,-1") and height(s, "2,-1") == 1


def test_R5_4_no_plus_actions_without_a_stored_improvement() -> None:
    """R5.4: with an empty stock no ``+IMPROVEMENT`` placement is listed."""
    s = with_deck(["green", "pink", "yellow"])
    play(s, "plot")
    assert not any("+" in a for a in legal(s))


# --------------------------------------------------------------------------- R6

RING = [
    tile("1,0", "green", 1),
    tile("1,-1", "green", 1),
    tile("0,-1", "yellow", 1),
    tile("-1,0", "pink", 1),
    tile("-1,1", "yellow", 1),
    tile("0,1", "pink", 1),
]
RING_EDGES = ["1,-1|1,0", "0,-1|1,-1", "-1,0|0,-1", "-1,0|-1,1", "-1,1|0,1", "0,1|1,0"]


def test_R6_1_irrigation_keep_then_place_it_free() -> None:
    """R6.1: a kept channel goes to the stock; placing it later is free."""
    s = load(tiles=RING, weather="rain")
    play(s, "irrigation keep")
    assert s.reserve_channels == 19 and s.stored_channels[0] == 1
    assert s.taken == (1,)
    assert_legal(s, *(f"channel {e}" for e in RING_EDGES))
    play(s, "channel 1,-1|1,0")
    assert s.stored_channels[0] == 0 and s.taken == (1,), "placing a stored channel is free"
    assert grid.parse_edge("1,-1|1,0") in s.channels


def test_R6_1_irrigation_places_a_channel_at_once() -> None:
    """R6.1: ``irrigation EDGE`` takes a channel from the reserve and places it."""
    s = load(tiles=RING, weather="rain")
    play(s, "irrigation 0,1|1,0")
    assert s.reserve_channels == 19 and s.stored_channels == [0, 0]
    assert s.channels == {grid.parse_edge("0,1|1,0")}


def test_R6_1_stored_channels_only_in_the_owner_s_turn() -> None:
    """R6.1: a stored channel may be placed only during its owner's turn."""
    s = load(tiles=RING, weather="rain", current=1, hands=[hand(channels=2), hand()])
    assert not any(a.startswith("channel") for a in legal(s))


def test_R6_2_channels_between_two_plots_never_on_the_pond() -> None:
    """R6.2: a channel needs plots on both sides; pond edges and taken edges are out."""
    board = [*RING, tile("2,-1", "green", 0)]
    s = load(tiles=board, weather="rain")
    spots = [
        a.split()[1] for a in legal(s) if a.startswith("irrigation ") and a != "irrigation keep"
    ]
    assert sorted(spots) == sorted(RING_EDGES)
    assert not any("0,0" in e for e in spots)
    play(s, "irrigation 1,-1|1,0")
    t = load(tiles=board, weather="rain", channels=["1,-1|1,0"], hands=[hand(channels=1), hand()])
    assert_illegal(t, "channel 1,-1|1,0")  # already holds one
    assert_legal(t, "channel 1,0|2,-1", "channel 1,-1|2,-1")
    # 1,0|2,0 would touch the channel's end, but 2,0 is an empty space.
    assert_illegal(t, "channel 1,0|2,0")


def test_R6_3_a_channel_must_join_the_pond_or_a_channel() -> None:
    """R6.3: a channel touches a pond corner or shares a corner with a channel in play."""
    board = [*RING, tile("2,-1", "green", 0), tile("2,0", "green", 0)]
    s = load(tiles=board, weather="rain", hands=[hand(channels=3), hand()])
    assert_illegal(s, "channel 1,0|2,-1", "channel 2,-1|2,0", "channel 1,0|2,0")
    play(s, "channel 1,-1|1,0")
    assert_legal(s, "channel 1,0|2,-1", "channel 1,-1|2,-1")
    assert_illegal(s, "channel 2,-1|2,0", "channel 1,0|2,0")
    play(s, "channel 1,0|2,-1")
    assert_legal(s, "channel 2,-1|2,0", "channel 1,0|2,0")


def test_R6_3_a_watershed_does_not_start_a_network() -> None:
    """R6.3, R11.2: edges around a watershed are not channel spots unless a network reaches."""
    board = [
        tile("1,0", "green", 1),
        tile("1,-1", "green", 1),
        tile("2,-1", "yellow/watershed", 1),
        tile("2,-2", "pink", 0),
        tile("3,-2", "green", 0),
    ]
    s = load(tiles=board, weather="rain", hands=[hand(channels=2), hand()])
    assert [a for a in legal(s) if a.startswith("channel")] == ["channel 1,-1|1,0"]
    assert_illegal(s, "channel 2,-1|3,-2", "channel 2,-2|2,-1", "channel 2,-2|3,-2")


def test_R6_3_position_with_a_floating_channel_is_refused() -> None:
    """R6.3: a position whose channel is not joined to the pond is refused."""
    from arena.engine import PositionError

    board = [*RING, tile("2,-1", "green", 0), tile("2,0", "green", 0)]
    with pytest.raises(PositionError, match="channels"):
        from_position(make_position(tiles=board, channels=["2,-1|2,0"]))


def test_R6_4_first_irrigation_grows_one_section_once() -> None:
    """R6.4: a plot reached by a channel gets one section the first time, never again."""
    board = [*RING, tile("2,-1", "green", 0), tile("2,0", "yellow", 0)]
    s = load(tiles=board, weather="wind", channels=["1,-1|1,0"], hands=[hand(channels=2), hand()])
    assert not irrigated(s, "2,-1")
    play(s, "channel 1,0|2,-1")
    assert irrigated(s, "2,-1") and height(s, "2,-1") == 1
    assert height(s, "1,0") == 1, "1,0 was irrigated already: no new section"
    play(s, "channel 1,-1|2,-1")
    assert height(s, "2,-1") == 1, "irrigated again: nothing more"
    assert heights(s, "1,0", "1,-1") == {"1,0": 1, "1,-1": 1}


def test_R6_4_first_irrigation_with_fertilizer_gives_two() -> None:
    """R6.4, R11.4: the first section is two on a fertilized plot."""
    board = [*RING, tile("2,-1", "green", 0, improvement="fertilizer")]
    s = load(tiles=board, weather="rain", channels=["1,-1|1,0"], hands=[hand(channels=1), hand()])
    play(s, "channel 1,0|2,-1")
    assert height(s, "2,-1") == 2


def test_R6_4_a_channel_irrigating_two_plots_grows_both() -> None:
    """R6.4: a channel that irrigates two plots for the first time gives each its section.

    Under R6.3 every legal channel has one side already irrigated (a channel always starts at
    a corner whose plots are watered), so this applies a channel the legal list would not
    offer, to check the growth of R6.4 on its own.
    """
    board = [*RING, tile("2,-1", "green", 0), tile("2,0", "yellow/fertilizer", 0)]
    s = load(tiles=board, weather="rain")
    s.apply(act.make(act.IRRIGATE, grid.parse_edge("2,-1|2,0")))
    assert heights(s, "2,-1", "2,0") == {"2,-1": 1, "2,0": 2}
    assert irrigated(s, "2,-1") and irrigated(s, "2,0")


def test_R6_4_a_plot_beside_the_pond_is_irrigated() -> None:
    """R6.4: plots beside the pond are irrigated with no channel; others are not."""
    board = [*RING, tile("2,-1", "green", 0)]
    s = load(tiles=board)
    assert all(irrigated(s, t["at"]) for t in RING)
    assert not irrigated(s, "2,-1")


def test_R6_4_irrigated_plots_stay_irrigated() -> None:
    """R6.4: once irrigated always: a plot eaten bare keeps growing with the gardener."""
    board = [tile("1,0", "green", 0), tile("2,-1", "green", 0), tile("1,-1", "green", 1)]
    s = load(tiles=board, channels=["1,-1|1,0", "1,0|2,-1"], weather="rain")
    play(s, "gardener 1,0")
    assert heights(s, "1,0", "2,-1", "1,-1") == {"1,0": 1, "2,-1": 1, "1,-1": 2}


def test_R6_2_irrigation_only_beside_plots_in_play() -> None:
    """R6.2: the outer ring has no spot: one side of each of its edges is an empty space."""
    s = load(tiles=[tile(at, "green", 1) for at in spiral(6)], weather="rain")
    spots = [a for a in legal(s) if a.startswith("irrigation ") and a != "irrigation keep"]
    assert len(spots) == 6
