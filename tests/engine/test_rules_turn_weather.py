"""R3 (a turn) and R4 (weather)."""

from __future__ import annotations

import pytest

from arena.engine import FACES, GameState, PositionError, grid, new_game
from arena.engine.components import ENCLOSURE
from tests.engine.helpers import (
    PLOT_CARDS,
    all_plots_on_board,
    assert_illegal,
    assert_legal,
    completed_ids,
    eaten,
    finish_turn,
    hand,
    hand_ids,
    height,
    heights,
    kinds,
    legal,
    load,
    objective_decks,
    play,
    tile,
)

# A small board: the six plots around the pond (irrigated) and two outside.
BOARD = [
    tile("1,0", "green", 1),
    tile("1,-1", "green", 2),
    tile("0,-1", "yellow", 1),
    tile("-1,0", "pink", 1),
    tile("-1,1", "green/enclosure", 3),
    tile("0,1", "yellow/fertilizer", 2),
    tile("2,-1", "green", 0),
    tile("1,1", "pink", 0),
]


def turn_over(state: GameState, seat: int, round_: int) -> bool:
    """Whether the turn of ``seat`` in ``round_`` has ended."""
    return (state.round, state.current) != (round_, seat)


# --------------------------------------------------------------------------- R3


def test_R3_1_weather_comes_before_the_actions() -> None:
    """R3.1: a turn from round 2 starts with the weather; the actions come after it."""
    s = load(step="roll", dice=["rain"], tiles=BOARD)
    assert s.step_name == "rain"
    assert kinds(s) == {"rain", "skip"}
    play(s, "rain 1,0")
    assert s.step_name == "actions"
    assert_legal(s, "gardener 1,0", "plot", "end")


def test_R3_1_free_moves_at_any_point_of_the_action_step() -> None:
    """R3.1: free moves may come before, between and after the two actions."""
    s = load(
        tiles=BOARD,
        weather="wind",
        hands=[hand(["panda-01", "panda-02", "panda-06"], eaten=(4, 2, 0)), hand()],
    )
    play(s, "complete panda-01")  # before any action
    play(s, "panda 1,-1")
    play(s, "complete panda-02")  # between the actions
    play(s, "panda 1,0")
    assert s.current == 0 and s.taken == (3, 3)
    assert legal(s) == ["complete panda-06", "end"]  # after both actions
    play(s, "complete panda-06")
    assert turn_over(s, 0, 2), "nothing left to do: the engine ends the turn"
    assert completed_ids(s, 0) == ["panda-01", "panda-02", "panda-06"]
    assert eaten(s, 0) == (2, 0, 0)  # 4 + 2 eaten this turn, 4 spent; 2 yellow spent


# Rain has no target here (both irrigated plots are at 4) until a channel irrigates 2,-1.
DRY_RAIN_BOARD = [tile("1,0", "green", 4), tile("1,-1", "green", 4), tile("2,-1", "green", 0)]


def test_R3_1_a_stored_channel_before_choosing_the_rain_target() -> None:
    """R3.1: at the rain step a stored channel may be placed first, and the rain then falls
    on the plot it irrigated; so rain with no target is a decision when a channel is held."""
    s = load(tiles=DRY_RAIN_BOARD, channels=["1,0|1,-1"], step="roll", dice=["rain"],
             hands=[hand(channels=1), hand()])
    assert s.step_name == "rain"
    assert legal(s) == ["channel 1,-1|2,-1", "channel 1,0|2,-1", "skip"]
    play(s, "channel 1,-1|2,-1")
    assert s.step_name == "rain" and height(s, "2,-1") == 1
    assert legal(s) == ["rain 2,-1", "skip"]
    play(s, "rain 2,-1")
    assert height(s, "2,-1") == 2 and s.step_name == "actions"
    assert s.history_text()[-2:] == ["0 channel 1,-1|2,-1", "0 rain 2,-1"]


def test_R3_1_rain_with_no_target_and_no_free_move_is_skipped() -> None:
    """R3.1, R4.2: with no rain target and no free move the rain is not a decision."""
    s = load(tiles=DRY_RAIN_BOARD, channels=["1,0|1,-1"], step="roll", dice=["rain"])
    assert s.step_name == "actions"
    assert s.history_text() == ["* roll rain"]


def test_R3_1_a_stored_enclosure_before_the_storm_moves_the_panda() -> None:
    """R3.1: at the storm step a stored improvement may be placed first; the storm stays."""
    s = load(tiles=BOARD, step="roll", dice=["storm"],
             hands=[hand(improvements=["enclosure"]), hand()])
    assert s.step_name == "storm"
    assert_legal(s, "improve enclosure 2,-1", "improve enclosure 1,1", "storm 1,0", "skip")
    play(s, "improve enclosure 2,-1")
    assert s.step_name == "storm" and s.improvement[grid.parse_cell("2,-1")] == ENCLOSURE
    assert s.stored_improvements[0] == (0, 0, 0, 0)
    play(s, "storm 2,-1")
    assert s.step_name == "actions" and s.panda == grid.parse_cell("2,-1")


def test_R3_1_an_objective_completed_before_the_weather_is_chosen() -> None:
    """R3.1: at the "?" choice (and before the clouds) a satisfied objective may be completed."""
    s = load(tiles=BOARD, step="roll", dice=["choice"],
             hands=[hand(["panda-01", "plot-02"], eaten=(2, 0, 0)), hand()])
    assert s.step_name == "choose_weather"
    assert legal(s)[0] == "complete panda-01"
    play(s, "complete panda-01")
    assert s.step_name == "choose_weather" and completed_ids(s, 0) == ["panda-01"]
    play(s, "weather clouds")
    assert s.step_name == "clouds"


def test_R3_1_free_moves_at_the_place_step() -> None:
    """R3.1: while the drawn plots wait to be placed, free moves are open too."""
    s = load(tiles=BOARD, weather="sun", hands=[hand(["panda-01"], eaten=(2, 0, 0), channels=1),
                                              hand()])
    play(s, "plot")
    assert s.step_name == "place"
    kinds_now = kinds(s)
    assert {"complete", "channel", "place"} <= kinds_now
    play(s, "complete panda-01")
    assert s.step_name == "place" and completed_ids(s, 0) == ["panda-01"]


def test_R3_1_no_free_move_before_the_roll_nor_in_another_turn() -> None:
    """R3.1: the die is rolled before the first decision of the turn, and a seat's satisfied
    objective is not its to complete while another seat plays."""
    s = load(tiles=BOARD, step="roll", dice=["sun", "wind"],
             hands=[hand(["panda-01"], eaten=(2, 0, 0)), hand(["panda-02"], eaten=(2, 0, 0))])
    assert s.history_text() == ["* roll sun"], "nothing is chosen before the roll"
    assert "complete panda-01" in legal(s)
    play(s, "complete panda-01", "end")
    assert s.current == 1 and s.step_name == "actions" and s.history_text()[-1] == "* roll wind"
    assert_illegal(s, "complete panda-01")
    assert legal(s)[0] == "complete panda-02"


def test_R3_2_no_weather_in_the_first_round() -> None:
    """R3.2: every seat's first turn skips the weather; round 2 rolls."""
    s = new_game(3, seed=4, dice=[FACES.index("rain")])
    for seat in range(3):
        assert (s.round, s.current, s.step_name, s.weather) == (1, seat, "actions", -1)
        play(s, "end")
    assert s.round == 2
    assert not any(t.startswith("* roll") for t in s.history_text()[:-1])
    assert s.history_text()[-1] == "* roll rain"


def test_R3_2_a_position_with_weather_in_round_one_is_refused() -> None:
    """R3.2: round 1 has no weather, so a position claiming one is refused."""
    with pytest.raises(PositionError, match=r"turn\.weather"):
        load(round=1, weather="sun")


def test_R3_3_two_actions_then_the_turn_ends() -> None:
    """R3.3: at most two actions; then only free moves and ``end`` (the engine ends it)."""
    s = load(tiles=BOARD, weather="rain")
    play(s, "gardener 1,0")
    assert s.actions_left() == 1
    play(s, "panda 1,-1")
    assert turn_over(s, 0, 2), "a turn with nothing left but 'end' ends by itself"
    assert s.current == 1


def test_R3_3_the_player_may_end_the_turn_early() -> None:
    """R3.3: ``end`` is always legal at the action step, even before any action."""
    s = load(tiles=BOARD, weather="rain")
    assert "end" in legal(s)
    play(s, "end")
    assert turn_over(s, 0, 2)
    assert s.taken == ()


def test_R3_3_a_drawn_card_is_known_before_the_next_action() -> None:
    """R3.3: an objective drawn by the first action may be completed before the second."""
    mine = ["plot-01"]
    s = load(
        tiles=BOARD,
        weather="rain",
        hands=[hand(mine, eaten=(2, 0, 0)), hand()],
        decks=objective_decks({"panda": ["panda-03"]}, elsewhere=mine),
    )
    play(s, "objective panda")
    assert hand_ids(s, 0) == ["plot-01", "panda-03"]
    assert_legal(s, "complete panda-03", "gardener 1,0")
    play(s, "complete panda-03")
    assert eaten(s, 0) == (0, 0, 0)


def test_R3_4_the_two_actions_must_differ() -> None:
    """R3.4: without wind the same action cannot be taken twice in a turn."""
    s = load(tiles=BOARD, weather="rain")
    play(s, "gardener 1,0")
    assert not any(a.startswith("gardener") for a in legal(s))
    assert_legal(s, "panda 1,0", "plot", "irrigation keep", "objective plot")
    t = load(tiles=BOARD, weather="storm")
    play(t, "irrigation keep")
    assert not any(a.startswith("irrigation") for a in legal(t))
    assert "channel 1,-1|1,0" in legal(t)  # the stored channel is a free move, not an action


@pytest.mark.parametrize(
    ("first", "again"),
    [
        ("gardener 1,0", "gardener 0,0"),
        ("panda 1,0", "panda 0,0"),
        ("irrigation keep", "irrigation keep"),
        ("objective plot", "objective plot"),
    ],
)
def test_R3_4_wind_allows_the_same_action_twice(first: str, again: str) -> None:
    """R3.4, R4.3: with wind an action may be taken twice."""
    s = load(tiles=BOARD, weather="wind")
    play(s, first)
    assert_legal(s, again)
    play(s, again)
    assert turn_over(s, 0, 2) or s.actions_left() == 0


def test_R3_4_wind_allows_plot_twice() -> None:
    """R3.4, R4.3: two plot actions in one turn with wind."""
    s = load(tiles=BOARD, weather="wind")
    play(s, "plot")
    s.play(s.legal_actions()[0])
    assert "plot" in legal(s)
    play(s, "plot")
    assert s.step_name == "place"


def test_R3_5_the_five_actions() -> None:
    """R3.5: plot, irrigation, gardener, panda and objective are the actions of a turn."""
    s = load(tiles=BOARD, weather="rain")
    assert kinds(s) == {"plot", "irrigation", "gardener", "panda", "objective", "end"}


def test_R3_5_no_plot_action_when_the_deck_is_empty() -> None:
    """R3.5: an empty plot deck removes the plot action."""
    s = load(tiles=all_plots_on_board(), weather="rain")
    assert len(s.plot_deck) == 0
    assert "plot" not in legal(s)
    assert "gardener 1,0" in legal(s)


def test_R3_5_no_gardener_or_panda_move_without_a_destination() -> None:
    """R3.5: with only the pond in play the figures cannot move."""
    s = load(weather="rain")
    assert kinds(s) == {"plot", "irrigation", "objective", "end"}
    assert legal(s) == [
        "plot",
        "irrigation keep",
        "objective plot",
        "objective gardener",
        "objective panda",
        "end",
    ]


def test_R3_5_no_objective_action_with_a_full_hand_or_an_empty_deck() -> None:
    """R3.5, R10.1: a full hand, or an empty deck of that category, removes the action."""
    full = load(
        tiles=BOARD,
        weather="rain",
        hands=[hand(["plot-01", "plot-02", "plot-03", "gardener-01", "panda-01"]), hand()],
    )
    assert "objective" not in kinds(full)
    # All 15 plot cards are out of the deck: 4 in seat 0's hand, 5 + 6 with seat 1.
    s = load(
        tiles=BOARD,
        weather="rain",
        hands=[
            hand(PLOT_CARDS[:4]),
            hand(PLOT_CARDS[4:9], completed=PLOT_CARDS[9:]),
        ],
    )
    assert len(s.objective_decks[0]) == 0
    assert_illegal(s, "objective plot")
    assert_legal(s, "objective gardener", "objective panda")


# --------------------------------------------------------------------------- R4


def test_R4_1_sun_gives_three_different_actions() -> None:
    """R4.1: sun allows a third action, but all the actions of the turn must differ."""
    s = load(tiles=BOARD, weather="sun")
    play(s, "gardener 1,0")
    assert s.actions_left() == 2
    assert not any(a.startswith("gardener") for a in legal(s))
    play(s, "panda 1,-1")
    assert s.current == 0 and s.actions_left() == 1
    assert_illegal(s, "gardener 0,0", "panda 0,0")
    assert_legal(s, "plot", "irrigation keep", "objective plot")
    play(s, "irrigation keep")
    assert s.taken == (2, 3, 1)
    assert "channel 1,-1|1,0" in legal(s) and "irrigation keep" not in legal(s)
    play(s, "end")
    assert turn_over(s, 0, 2)


def test_R4_1_without_sun_only_two_actions() -> None:
    """R4.1: the third action exists only with sun."""
    s = load(tiles=BOARD, weather="wind")
    play(s, "gardener 1,0", "panda 1,-1")
    assert turn_over(s, 0, 2)


def test_R4_2_rain_targets_only_irrigated_plots_below_four() -> None:
    """R4.2: rain targets irrigated plots below 4; dry plots and full bamboo are not."""
    board = [
        tile("1,0", "green", 2),
        tile("1,-1", "green", 4),
        tile("0,-1", "yellow/fertilizer", 1),
        tile("-1,0", "pink", 3),
        tile("2,-1", "green", 0),  # dry
        tile("-2,1", "yellow/watershed", 1),  # irrigated by its watershed
        tile("-1,1", "yellow", 0),
    ]
    s = load(tiles=board, step="rain", weather="rain")
    assert sorted(legal(s)) == sorted(
        ["rain 0,-1", "rain -1,0", "rain 1,0", "rain -2,1", "rain -1,1", "skip"]
    )
    assert_illegal(s, "rain 1,-1", "rain 2,-1", "rain 0,0")


@pytest.mark.parametrize(
    ("at", "before", "after"),
    [("1,0", 2, 3), ("-1,0", 3, 4), ("0,-1", 1, 3), ("0,1", 3, 4), ("-1,1", 0, 1)],
)
def test_R4_2_rain_adds_one_two_with_fertilizer_never_above_four(
    at: str, before: int, after: int
) -> None:
    """R4.2: rain grows one section (two with fertilizer), never above 4."""
    board = [
        tile("1,0", "green", 2),
        tile("-1,0", "pink", 3),
        tile("0,-1", "yellow/fertilizer", 1),
        tile("0,1", "pink/fertilizer", 3),
        tile("-1,1", "yellow", 0),
    ]
    s = load(tiles=board, step="rain", weather="rain")
    others = {t["at"]: t["bamboo"] for t in board if t["at"] != at}
    assert height(s, at) == before
    play(s, f"rain {at}")
    assert height(s, at) == after
    assert heights(s, *others) == others, "rain grows only its plot"
    assert s.step_name == "actions"


def test_R4_2_rain_is_optional() -> None:
    """R4.2: every weather effect may be declined with ``skip``."""
    s = load(tiles=BOARD, step="rain", weather="rain")
    before = dict(s.bamboo)
    play(s, "skip")
    assert s.bamboo == before and s.step_name == "actions"


def test_R4_2_rain_with_no_target_is_skipped_by_the_engine() -> None:
    """R4.2: with no irrigated plot below 4 the rain has nothing to do: no decision."""
    s = load(step="roll", dice=["rain"], tiles=[tile("1,0", "green", 4)])
    assert s.step_name == "actions" and s.weather == FACES.index("rain")


def test_R4_3_wind_two_identical_or_two_different_actions() -> None:
    """R4.3: with wind the two actions may also differ; still two in all."""
    s = load(tiles=BOARD, weather="wind")
    play(s, "gardener 1,0", "panda 1,-1")
    assert turn_over(s, 0, 2)


def test_R4_4_storm_any_tile_but_the_panda_s_pond_included() -> None:
    """R4.4: storm targets every tile in play (the pond too) other than the panda's."""
    s = load(tiles=BOARD, step="storm", weather="storm", panda="1,0")
    targets = [a for a in legal(s) if a.startswith("storm")]
    expected = {f"storm {t['at']}" for t in BOARD if t["at"] != "1,0"} | {"storm 0,0"}
    assert set(targets) == expected and len(targets) == len(expected)
    assert "skip" in legal(s)
    # -1,1 is not on a straight line from 1,0: the storm needs no straight path.
    assert "storm -1,1" in targets
    assert "panda -1,1" not in legal(load(tiles=BOARD, weather="sun", panda="1,0"))


def test_R4_4_storm_moves_the_panda_and_it_eats() -> None:
    """R4.4: the panda goes to the chosen tile (not in a straight line) and eats there."""
    s = load(tiles=BOARD, step="storm", weather="storm", panda="2,-1")
    play(s, "storm -1,0")  # not in a straight line from 2,-1
    assert s.panda == grid.parse_cell("-1,0")
    assert height(s, "-1,0") == 0 and eaten(s, 0) == (0, 0, 1)
    assert s.step_name == "actions"


def test_R4_4_storm_on_an_enclosure_eats_nothing() -> None:
    """R4.4, R11.3: the storm panda does not eat on an enclosure."""
    s = load(tiles=BOARD, step="storm", weather="storm")
    play(s, "storm -1,1")
    assert s.panda == grid.parse_cell("-1,1")
    assert height(s, "-1,1") == 3 and eaten(s, 0) == (0, 0, 0)


def test_R4_4_storm_to_the_pond_eats_nothing() -> None:
    """R4.4, R1.1: the storm may send the panda to the pond, where nothing is eaten."""
    s = load(tiles=BOARD, step="storm", weather="storm", panda="1,0")
    before = dict(s.bamboo)
    play(s, "storm 0,0")
    assert s.panda == grid.POND and s.bamboo == before and eaten(s, 0) == (0, 0, 0)


def test_R4_5_clouds_take_a_token_and_place_it_or_keep_it() -> None:
    """R4.5: clouds offer each token in the reserve, placed on a legal plot or kept."""
    board = [tile("1,0", "green", 0), tile("1,-1", "green/watershed", 1), tile("2,-1", "pink")]
    s = load(tiles=board, step="clouds", weather="clouds")
    expected = []
    for imp in ("watershed", "enclosure", "fertilizer"):
        expected += [f"clouds {imp} 1,0", f"clouds {imp} 2,-1", f"clouds {imp} keep"]
    assert sorted(legal(s)) == sorted([*expected, "skip"])
    play(s, "clouds watershed 2,-1")
    assert s.reserve_improvements[1] == 2
    assert height(s, "2,-1") == 1, "a watershed irrigates at once (R11.2)"
    assert s.step_name == "actions"
    t = load(tiles=board, step="clouds", weather="clouds")
    play(t, "clouds fertilizer keep")
    assert t.stored_improvements[0] == (0, 0, 0, 1)
    assert t.reserve_improvements == (0, 3, 3, 2)


def test_R4_5_clouds_with_an_empty_reserve_choose_another_weather() -> None:
    """R4.5: with no token left the player chooses sun, rain, wind or storm instead."""
    stocks = [
        hand(improvements=["watershed"] * 3 + ["enclosure"]),
        hand(improvements=["enclosure"] * 2 + ["fertilizer"] * 3),
    ]
    s = load(tiles=BOARD, step="roll", dice=["clouds"], hands=stocks)
    assert s.step_name == "choose_weather"
    weathers = [a for a in legal(s) if not a.startswith("improve ")]  # free moves (R3.1)
    assert weathers == ["weather sun", "weather rain", "weather wind", "weather storm"]
    play(s, "weather sun")
    assert s.weather == FACES.index("sun") and s.actions_left() == 3


def test_R4_6_choice_face_offers_the_five_weathers() -> None:
    """R4.6: "?" lets the player choose sun, rain, wind, storm or clouds."""
    s = load(tiles=BOARD, step="roll", dice=["choice"])
    assert s.step_name == "choose_weather"
    assert legal(s) == [
        "weather sun",
        "weather rain",
        "weather wind",
        "weather storm",
        "weather clouds",
    ]


@pytest.mark.parametrize(
    ("face", "step"),
    [("rain", "rain"), ("storm", "storm"), ("clouds", "clouds"), ("wind", "actions")],
)
def test_R4_6_the_chosen_weather_applies(face: str, step: str) -> None:
    """R4.6: the chosen face applies as if rolled."""
    s = load(tiles=BOARD, step="roll", dice=["choice"])
    play(s, f"weather {face}")
    assert s.step_name == step and s.weather == FACES.index(face)


def test_R4_6_choice_leaves_out_weathers_with_no_effect() -> None:
    """R4.6: rain with nothing to grow is not offered (it could have no effect)."""
    s = load(tiles=[tile("1,0", "green", 4)], step="roll", dice=["choice"])
    assert "weather rain" not in legal(s)
    assert_legal(s, "weather sun", "weather wind", "weather storm", "weather clouds")


def test_R4_weather_is_rolled_at_every_turn_from_round_two() -> None:
    """R4, R3.2: each turn of round 2 rolls once, before the actions."""
    s = new_game(2, seed=7, dice=[FACES.index("sun"), FACES.index("wind")])
    finish_turn(s)
    finish_turn(s)
    assert s.weather == FACES.index("sun")
    finish_turn(s)
    assert s.weather == FACES.index("wind")
    assert [t for t in s.history_text() if t.startswith("* roll")] == [
        "* roll sun",
        "* roll wind",
    ]
