"""R10 (objectives) and R11 (improvements)."""

from __future__ import annotations

import pytest

from arena.engine import GameState, PositionError, grid
from arena.engine import components as comp
from tests.engine.helpers import (
    GARDENER_CARDS,
    assert_illegal,
    assert_legal,
    completed_ids,
    eaten,
    hand,
    hand_ids,
    height,
    heights,
    irrigated,
    legal,
    load,
    objective_decks,
    play,
    tile,
)


def completable(state: GameState) -> set[str]:
    """The cards the current seat may complete now."""
    return {a.split()[1] for a in legal(state) if a.startswith("complete")}


# --------------------------------------------------------------------------- R10.1, R10.2


def test_R10_1_objective_draws_the_top_card_of_the_chosen_deck() -> None:
    """R10.1: ``objective gardener`` puts the top gardener card in the hand."""
    mine = ["plot-01"]
    s = load(
        weather="rain",
        hands=[hand(mine), hand()],
        decks=objective_decks({"gardener": ["gardener-07", "gardener-02"]}, elsewhere=mine),
    )
    play(s, "objective gardener")
    assert hand_ids(s, 0) == ["plot-01", "gardener-07"]
    assert comp.CARDS[s.objective_decks[1][0]].id == "gardener-02"
    assert len(s.objective_decks[1]) == 14
    assert s.history_text()[-1] == "* drew gardener-07"


def test_R10_1_no_objective_action_from_an_empty_deck() -> None:
    """R10.1: a category whose deck is empty cannot be drawn from."""
    pandas = [f"panda-{i:02d}" for i in range(1, 16)]
    s = load(
        weather="rain",
        hands=[hand(pandas[:3]), hand(pandas[3:8], completed=pandas[8:])],
    )
    assert_illegal(s, "objective panda")
    assert_legal(s, "objective plot", "objective gardener")


def test_R10_2_hand_limit_five_removes_objective_actions() -> None:
    """R10.2: with 5 objectives in hand no ``objective`` action is offered."""
    four = ["plot-01", "plot-02", "gardener-01", "panda-01"]
    s = load(weather="wind", hands=[hand(four), hand()])
    assert_legal(s, "objective plot", "objective gardener", "objective panda")
    play(s, "objective plot")
    assert len(s.hands[0]) == 5
    assert not any(a.startswith("objective") for a in legal(s)), legal(s)
    assert s.current == 0 and s.actions_left() == 1


def test_R10_2_hand_of_six_is_refused_in_a_position() -> None:
    """R10.2: a position with 6 objectives in a hand is refused, naming the hand."""
    six = ["plot-01", "plot-02", "plot-03", "gardener-01", "panda-01", "panda-02"]
    with pytest.raises(PositionError, match=r"hands\[0\]\.objectives"):
        load(hands=[hand(six), hand()])


# --------------------------------------------------------------------------- R10.3


def test_R10_3_plot_objective_needs_the_colours_and_irrigation() -> None:
    """R10.3: a green triangle on irrigated plots completes plot-07; a dry one does not."""
    wet = [tile("1,0", "green"), tile("1,-1", "green"), tile("2,-1", "green/watershed")]
    s = load(tiles=wet, weather="rain", hands=[hand(["plot-07", "plot-08"]), hand()])
    assert completable(s) == {"plot-07"}
    dry = [tile("1,0", "green"), tile("1,-1", "green"), tile("2,-1", "green")]
    t = load(tiles=dry, weather="rain", hands=[hand(["plot-07"]), hand()])
    assert completable(t) == set()


def test_R10_3_plots_may_serve_several_objectives() -> None:
    """R10.3: the same plots may be used for one objective and then another."""
    board = [
        tile("1,0", "green"),
        tile("1,-1", "green"),
        tile("2,-1", "green/watershed"),
        tile("2,-2", "green/watershed"),
    ]
    s = load(tiles=board, weather="rain", hands=[hand(["plot-07", "plot-10", "plot-04"]), hand()])
    assert completable(s) == {"plot-07", "plot-10", "plot-04"}
    play(s, "complete plot-10", "complete plot-07", "complete plot-04")
    assert completed_ids(s, 0) == ["plot-10", "plot-07", "plot-04"]


def test_R10_3_bamboo_does_not_matter_for_plot_objectives() -> None:
    """R10.3: only colours and irrigation count, not bamboo or improvements."""
    board = [
        tile("1,0", "pink", 4),
        tile("1,-1", "pink/enclosure", 0),
        tile("2,-1", "pink/watershed", 2),
    ]
    s = load(tiles=board, weather="rain", hands=[hand(["plot-09"]), hand()])
    assert completable(s) == {"plot-09"}


# --------------------------------------------------------------------------- R10.4, R10.5


@pytest.mark.parametrize(
    ("improvement", "holds"),
    [
        (None, {"gardener-04"}),
        ("fertilizer", {"gardener-01"}),
        ("enclosure", {"gardener-02"}),
        ("watershed", {"gardener-03"}),
    ],
)
def test_R10_4_single_shoot_needs_height_four_and_the_improvement(
    improvement: str | None, holds: set[str]
) -> None:
    """R10.4: a green plot at exactly 4 with the card's improvement (or none at all)."""
    cards = [*GARDENER_CARDS[:4], "gardener-08"]
    board = [tile("1,0", "green", 4, improvement=improvement), tile("1,-1", "yellow", 3)]
    s = load(tiles=board, weather="rain", hands=[hand(cards), hand()])
    assert completable(s) == holds


def test_R10_4_height_three_is_not_enough() -> None:
    """R10.4: the single shoot must have exactly 4 sections."""
    board = [tile("1,0", "pink", 3), tile("1,-1", "pink", 1)]
    s = load(tiles=board, weather="rain", hands=[hand(["gardener-12"]), hand()])
    assert completable(s) == set()
    play(s, "gardener 1,0")
    assert completable(s) == {"gardener-12"}


def test_R10_5_several_shoots_of_three() -> None:
    """R10.5: that many distinct plots of the colour at exactly 3, improvements ignored."""
    board = [
        tile("1,0", "pink", 3),
        tile("1,-1", "pink/enclosure", 3),
        tile("0,-1", "yellow", 3),
        tile("-1,0", "yellow/fertilizer", 3),
        tile("-1,1", "yellow", 4),
        tile("0,1", "green", 3),
    ]
    cards = ["gardener-13", "gardener-14", "gardener-15"]
    s = load(tiles=board, weather="rain", hands=[hand(cards), hand()])
    # pink: 2 at 3 -> gardener-15; yellow: 2 at 3 (the one at 4 does not count); green: 1.
    assert completable(s) == {"gardener-15"}
    play(s, "panda -1,1")  # 4 -> 3: now three yellow shoots of 3
    assert completable(s) == {"gardener-15", "gardener-14"}


# --------------------------------------------------------------------------- R10.6


def test_R10_6_panda_objective_spends_the_sections() -> None:
    """R10.6: the stock must hold the sections; completing returns them to the reserve."""
    s = load(
        tiles=[tile("1,0", "green", 1)],
        weather="rain",
        hands=[hand(["panda-13", "panda-10", "panda-06"], eaten=(1, 2, 1)), hand()],
    )
    assert completable(s) == {"panda-13", "panda-06"}
    play(s, "complete panda-13")
    assert eaten(s, 0) == (0, 1, 0)
    assert completable(s) == set(), "panda-06 needs two yellow; one is left"
    assert s.supply_left(comp.PINK) == 24


# --------------------------------------------------------------------------- R11


def test_R11_1_improvements_only_on_bare_plots_without_one() -> None:
    """R11.1: a plot with no improvement and no bamboo, irrigated or not; never the pond."""
    board = [
        tile("1,0", "green", 0),  # bare, irrigated
        tile("1,-1", "green", 1),  # bamboo
        tile("0,-1", "yellow/enclosure", 0),  # printed
        tile("-1,0", "pink", 0, improvement="fertilizer"),  # token
        tile("2,-1", "green", 0),  # dry
    ]
    s = load(tiles=board, weather="rain", hands=[hand(improvements=["enclosure"]), hand()])
    spots = {a.split()[2] for a in legal(s) if a.startswith("improve")}
    assert spots == {"1,0", "2,-1"}
    play(s, "improve enclosure 2,-1")
    assert s.improvement[grid.parse_cell("2,-1")] == comp.ENCLOSURE
    assert s.stored_improvements[0] == (0, 0, 0, 0)


def test_R11_1_one_improvement_per_plot_and_it_stays() -> None:
    """R11.1: once placed an improvement stays; a second one is never allowed there."""
    board = [tile("1,0", "green", 0), tile("1,-1", "green", 1)]
    s = load(
        tiles=board, weather="rain", hands=[hand(improvements=["enclosure", "fertilizer"]), hand()]
    )
    play(s, "improve enclosure 1,0")
    assert_illegal(s, "improve fertilizer 1,0")
    play(s, "gardener 1,0", "panda 1,0")
    assert s.improvement[grid.parse_cell("1,0")] == comp.ENCLOSURE


def test_R11_2_watershed_irrigates_with_its_first_section() -> None:
    """R11.2: a watershed waters its plot (one section) but feeds no channel network."""
    board = [tile("1,0", "green", 1), tile("1,-1", "green", 1), tile("2,-1", "pink", 0)]
    s = load(
        tiles=board, weather="rain", hands=[hand(improvements=["watershed"], channels=1), hand()]
    )
    spots_before = [a for a in legal(s) if a.startswith("channel")]
    play(s, "improve watershed 2,-1")
    assert irrigated(s, "2,-1") and height(s, "2,-1") == 1
    assert [a for a in legal(s) if a.startswith("channel")] == spots_before
    assert s.network == grid.POND_CORNERS


def test_R11_2_watershed_on_an_irrigated_bare_plot_gives_no_second_section() -> None:
    """R11.2, R6.4: a plot irrigated before gets no new first section from a watershed."""
    board = [tile("1,0", "green", 0), tile("1,-1", "green", 1)]
    s = load(tiles=board, weather="rain", hands=[hand(improvements=["watershed"]), hand()])
    play(s, "improve watershed 1,0")
    assert height(s, "1,0") == 0


def test_R11_3_enclosure_the_panda_crosses_and_stops_but_never_eats() -> None:
    """R11.3: the panda may cross an enclosure and stop there; it never eats there."""
    board = [
        tile("1,0", "green", 2, improvement="enclosure"),
        tile("2,0", "green/watershed", 2),
        tile("1,-1", "green", 1),
    ]
    s = load(tiles=board, weather="wind")
    assert_legal(s, "panda 1,0", "panda 2,0")
    play(s, "panda 2,0")  # crossing the enclosure at 1,0
    assert eaten(s, 0) == (1, 0, 0) and height(s, "2,0") == 1
    play(s, "panda 1,0")
    assert eaten(s, 0) == (1, 0, 0) and height(s, "1,0") == 2


def test_R11_3_enclosure_does_not_stop_growth() -> None:
    """R11.3: an enclosure only stops the panda; the gardener grows it as usual."""
    board = [tile("1,0", "green/enclosure", 2), tile("1,-1", "green", 1)]
    s = load(tiles=board, weather="rain")
    play(s, "gardener 1,-1")
    assert heights(s, "1,0", "1,-1") == {"1,0": 3, "1,-1": 2}


def test_R11_4_fertilizer_doubles_every_growth() -> None:
    """R11.4: +2 on first irrigation, gardener and rain; never above 4."""
    board = [tile("1,0", "green/fertilizer", 0), tile("1,-1", "green", 1)]
    s = load(tiles=board, weather="rain")
    play(s, "gardener 1,-1")  # neighbour growth
    assert heights(s, "1,0", "1,-1") == {"1,0": 2, "1,-1": 2}
    t = load(tiles=[tile("1,0", "yellow/fertilizer", 1)], step="rain", weather="rain")
    play(t, "rain 1,0")
    assert height(t, "1,0") == 3
    u = load(tiles=[tile("1,0", "yellow/fertilizer", 3)], step="rain", weather="rain")
    play(u, "rain 1,0")
    assert height(u, "1,0") == 4


def test_R11_4_fertilizer_on_a_dry_plot_does_nothing() -> None:
    """R11.4: a fertilized plot that is not irrigated does not grow."""
    board = [
        tile("1,0", "green", 1),
        tile("1,-1", "green", 1),
        tile("2,-1", "green", 0, improvement="fertilizer"),
    ]
    s = load(tiles=board, weather="rain")
    play(s, "gardener 1,0")
    assert heights(s, "1,0", "1,-1", "2,-1") == {"1,0": 2, "1,-1": 2, "2,-1": 0}


# --------------------------------------------------------------------------- R10.7


@pytest.mark.parametrize(
    ("option", "drawn"), [("none", "gardener-04"), ("plot_gardener", "gardener-05")]
)
def test_R10_7_redraw_satisfied_decides_what_a_satisfied_draw_does(option: str, drawn: str) -> None:
    """R10.7: a drawn card that already holds is kept (``none``) or redrawn (the option)."""
    mine = ["plot-01"]
    s = load(
        tiles=[tile("1,0", "green", 4)],
        weather="rain",
        hands=[hand(mine), hand()],
        decks=objective_decks({"gardener": ["gardener-04", "gardener-05"]}, elsewhere=mine),
        options={"redraw_satisfied": option},
    )
    play(s, "objective gardener")
    assert hand_ids(s, 0) == ["plot-01", drawn]
