"""R1 (components) and R2 (set-up)."""

from __future__ import annotations

from collections import Counter

import pytest

from arena.engine import FACES, PlayerView, PositionError, grid, new_game
from arena.engine import components as comp
from tests.engine.helpers import (
    assert_illegal,
    check_components,
    finish_turn,
    hand,
    height,
    legal,
    load,
    play,
    tile,
)

RING = ["1,0", "1,-1", "0,-1", "-1,0", "-1,1", "0,1"]


def test_R1_1_pond_is_a_tile_but_never_a_plot() -> None:
    """R1.1: the pond is in play at 0,0, holds no bamboo, no improvement, no channel."""
    s = load(
        tiles=[tile("1,0", "green", 1), tile("1,-1", "green", 1)],
        hands=[hand(improvements=["fertilizer"], channels=1), hand()],
        weather="wind",
    )
    pond = grid.POND
    assert pond in s.tiles and pond not in s.bamboo and s.colour(pond) == -1
    actions = legal(s)
    assert "gardener 1,0" in actions and "panda 1,0" in actions
    assert not any(a.endswith(" 0,0") for a in actions if a.startswith("improve")), actions
    # The only channel spot is between the two plots; the pond's edges never are.
    assert [a for a in actions if a.startswith("channel")] == ["channel 1,-1|1,0"]
    assert [a for a in actions if a.startswith("irrigation ")] == [
        "irrigation keep",
        "irrigation 1,-1|1,0",
    ]
    assert_illegal(s, "irrigation 0,0|1,0", "channel 0,0|1,-1", "improve fertilizer 0,0")
    # The pond is a tile in play: the gardener may stop there, and nothing grows.
    play(s, "gardener 1,0", "gardener 0,0")
    assert s.gardener == pond and pond not in s.bamboo


def test_R1_1_channel_on_a_pond_edge_is_refused_in_a_position() -> None:
    """R1.1: a position with a channel on an edge of the pond is refused."""
    with pytest.raises(PositionError, match="channels"):
        load(tiles=[tile("1,0", "green"), tile("1,-1", "green")], channels=["0,0|1,0"])


def test_R1_2_twenty_seven_plots_by_colour_and_printed_improvement() -> None:
    """R1.2: 27 plots, 11 green, 9 yellow, 7 pink, with the printed improvements of the file."""
    s = new_game(2, seed=11)
    assert len(s.plot_deck) == 27
    colours = Counter(comp.COLOURS[code >> 2] for code in s.plot_deck)
    assert colours == {"green": 11, "yellow": 9, "pink": 7}
    printed = Counter(comp.tile_name(code) for code in s.plot_deck if code & 3)
    expected = {p["tile"]: p["count"] for p in comp.DATA["plots"] if "/" in p["tile"]}
    assert printed == expected


def test_R1_2_printed_improvement_is_permanent() -> None:
    """R1.2: a printed improvement cannot be replaced, even once the bamboo is gone."""
    s = load(
        tiles=[tile("1,0", "green/enclosure", 0), tile("1,-1", "yellow", 0)],
        hands=[hand(improvements=["fertilizer"]), hand()],
        weather="sun",
    )
    assert_illegal(s, "improve fertilizer 1,0")
    assert "improve fertilizer 1,-1" in legal(s)
    assert s.improvement[grid.parse_cell("1,0")] == comp.ENCLOSURE


def test_R1_3_twenty_channels_and_none_when_the_reserve_is_empty() -> None:
    """R1.3: 20 channels in the reserve; with none left there is no irrigation action."""
    s = new_game(2, seed=1)
    assert s.reserve_channels == 20 and s.channels == frozenset()
    empty = load(
        tiles=[tile("1,0", "green", 1), tile("1,-1", "green", 1)],
        hands=[hand(channels=12), hand(channels=8)],
        weather="sun",
    )
    assert empty.reserve_channels == 0
    assert not any(a.startswith("irrigation") for a in legal(empty))
    check_components(empty)


def test_R1_4_nine_improvement_tokens() -> None:
    """R1.4: 3 watershed, 3 enclosure, 3 fertilizer tokens in the reserve."""
    s = new_game(3, seed=2)
    names = comp.IMPROVEMENTS
    assert {names[i]: s.reserve_improvements[i] for i in (1, 2, 3)} == {
        "watershed": 3,
        "enclosure": 3,
        "fertilizer": 3,
    }
    assert all(stock == (0, 0, 0, 0) for stock in s.stored_improvements)


def test_R1_5_bamboo_sections_and_unlimited_default_supply() -> None:
    """R1.5: 36/30/24 sections; by default growth goes on when a colour has run out."""
    assert comp.BAMBOO_SECTIONS == (36, 30, 24)
    s = load(
        tiles=[tile("1,0", "pink", 1), tile("1,-1", "green", 0)],
        hands=[hand(eaten=(0, 0, 24)), hand()],
        weather="sun",
    )
    assert s.supply_left(comp.PINK) == -1
    play(s, "gardener 1,0")
    assert height(s, "1,0") == 2


def test_R1_6_objective_cards_and_the_emperor() -> None:
    """R1.6: 15 plot, 15 gardener, 15 panda cards; the Emperor is worth 2."""
    counts = Counter(c.category_name for c in comp.CARDS)
    assert counts == {"plot": 15, "gardener": 15, "panda": 15}
    assert comp.EMPEROR_POINTS == 2
    s = new_game(2, seed=0)
    assert s.options.emperor_points == 2
    # Each deck holds its 15 cards less the ones dealt.
    assert [len(d) for d in s.objective_decks] == [13, 13, 13]


@pytest.mark.parametrize(
    ("face", "step"),
    [
        ("sun", "actions"),
        ("rain", "rain"),
        ("wind", "actions"),
        ("storm", "storm"),
        ("clouds", "clouds"),
        ("choice", "choose_weather"),
    ],
)
def test_R1_7_the_six_faces_of_the_weather_die(face: str, step: str) -> None:
    """R1.7: each face of the die leads to its own weather step."""
    s = load(
        step="roll",
        dice=[face],
        tiles=[tile("1,0", "green", 1), tile("1,-1", "green", 0)],
        panda="1,0",
    )
    assert s.history_text() == [f"* roll {face}"]
    assert s.step_name == step
    assert s.weather == FACES.index(face)


def test_R1_7_the_seeded_die_shows_every_face() -> None:
    """R1.7: over many turns the generator rolls all six faces, and only those."""
    seen: Counter[str] = Counter()
    for seed in range(40):
        s = new_game(2, seed=seed)
        for _ in range(6):  # round 1 has no weather; rounds 2, 3 and seat 0 of 4 roll
            finish_turn(s)
        seen.update(t.split()[-1] for t in s.history_text() if t.startswith("* roll"))
    assert set(seen) == set(FACES)
    assert sum(seen.values()) == 40 * 5


def test_R1_8_gardener_and_panda_are_two_figures() -> None:
    """R1.8: the gardener and the panda are separate figures that move separately."""
    s = load(tiles=[tile("1,0", "green", 1), tile("1,-1", "green", 1)], weather="sun")
    play(s, "gardener 1,0")
    assert (s.gardener, s.panda) == (grid.parse_cell("1,0"), grid.POND)
    play(s, "panda 1,-1")
    assert (s.gardener, s.panda) == (grid.parse_cell("1,0"), grid.parse_cell("1,-1"))


def test_R2_1_pond_gardener_and_panda_at_the_centre() -> None:
    """R2.1: a new game has only the pond in play, the gardener and panda on it."""
    s = new_game(4, seed=3)
    assert s.tiles == {grid.POND: comp.POND_TILE}
    assert s.gardener == grid.POND and s.panda == grid.POND
    assert s.bamboo == {} and s.channels == frozenset()


def test_R2_2_decks_are_shuffled_permutations() -> None:
    """R2.2: the plot deck and each objective deck are shuffled, each holding its own cards."""
    a, b = new_game(2, seed=1), new_game(2, seed=2)
    assert sorted(a.plot_deck) == sorted(comp.ALL_PLOTS)
    assert a.plot_deck != b.plot_deck
    assert a.plot_deck != tuple(comp.ALL_PLOTS)
    for k in range(3):
        dealt = [h[k] for h in a.hands]
        assert sorted(a.objective_decks[k] + tuple(dealt)) == list(comp.CATEGORY_CARDS[k])
    assert a.objective_decks != b.objective_decks


@pytest.mark.parametrize("players", [2, 3, 4])
def test_R2_3_each_player_starts_with_three_objectives_and_empty_stock(players: int) -> None:
    """R2.3: one plot, one gardener, one panda objective each; empty stocks; 2 actions."""
    s = new_game(players, seed=players)
    for seat in range(players):
        cats = [comp.CARDS[c].category_name for c in s.hands[seat]]
        assert cats == ["plot", "gardener", "panda"]
        assert s.eaten[seat] == (0, 0, 0)
        assert s.stored_channels[seat] == 0
        assert s.stored_improvements[seat] == (0, 0, 0, 0)
        assert s.completed[seat] == ()
    assert s.actions_left() == 2
    # The others see only the categories of a hand.
    view = PlayerView.of(s, 1)
    assert view.hand == s.hands[1]
    assert view.hand_categories[0] == (0, 1, 2)
    assert all(c not in view.to_json() for c in (comp.CARDS[x].id for x in s.hands[0]))


def test_R2_4_seat_zero_starts_and_play_goes_by_seat_order() -> None:
    """R2.4: seat 0 plays first, then 1, 2, then a new round starts with seat 0 again."""
    s = new_game(3, seed=9, dice=[FACES.index("sun")] * 3)
    order = []
    for _ in range(4):
        order.append((s.round, s.current))
        play(s, "end")
    assert order == [(1, 0), (1, 1), (1, 2), (2, 0)]


def test_R2_4_position_reader_keeps_the_current_seat() -> None:
    """R2.4: a position may start with any seat; after it, play continues in seat order."""
    s = load(players=3, current=2, round=1)
    play(s, "end")
    assert (s.round, s.current) == (2, 0)


def test_R2_2_missing_decks_are_filled_from_the_seed() -> None:
    """R2.2: decks left out of a position are shuffled from its seed, reproducibly."""
    a = load(seed=5)
    b = load(seed=5)
    c = load(seed=6)
    assert a.plot_deck == b.plot_deck and a.objective_decks == b.objective_decks
    assert a.plot_deck != c.plot_deck
    assert len(a.plot_deck) == 27 and sum(len(d) for d in a.objective_decks) == 45
