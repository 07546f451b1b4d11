"""R12: every rule option, in each of its values (and R10.7, the redraw option)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from arena.engine import (
    GameState,
    OptionError,
    PlayerView,
    PositionError,
    RuleOptions,
    from_position,
    grid,
    new_game,
    to_position,
)
from arena.engine import components as comp
from tests.engine.helpers import (
    GARDENER_CARDS,
    PLOT_CARDS,
    assert_legal,
    finish_turn,
    hand,
    hand_ids,
    height,
    heights,
    irrigated,
    legal,
    load,
    make_position,
    objective_decks,
    play,
    tile,
)

BOARD = [
    tile("1,0", "green", 1),
    tile("1,-1", "green", 1),
    tile("0,-1", "pink", 0),
    tile("2,-1", "yellow", 0),
]
ALL_TOKENS_HELD = [
    hand(improvements=["watershed"] * 3 + ["enclosure"] * 2),
    hand(improvements=["enclosure"] + ["fertilizer"] * 3),
]


# --------------------------------------------------------------------------- cloud_keep


def test_R12_cloud_keep_true_offers_keep() -> None:
    """R12 cloud_keep=true (default), R4.5: a cloud token may be kept in the stock."""
    s = load(tiles=BOARD, step="clouds", weather="clouds")
    assert_legal(s, "clouds watershed keep", "clouds enclosure keep", "clouds fertilizer keep")


def test_R12_cloud_keep_false_must_place_at_once() -> None:
    """R12 cloud_keep=false: no ``keep``; the token must be placed (or the weather skipped)."""
    s = load(tiles=BOARD, step="clouds", weather="clouds", options={"cloud_keep": False})
    assert not any(a.endswith(" keep") for a in legal(s))
    expected = {f"clouds {i} {at}" for i in comp.IMPROVEMENTS[1:] for at in ("0,-1", "2,-1")}
    assert set(legal(s)) == expected | {"skip"}


def test_R12_cloud_keep_false_and_nowhere_to_place_skips_the_clouds() -> None:
    """R12 cloud_keep=false: with no plot to improve the clouds have no effect."""
    board = [tile("1,0", "green", 1), tile("1,-1", "green", 1)]
    s = load(tiles=board, step="roll", dice=["clouds"], options={"cloud_keep": False})
    assert s.step_name == "actions"
    t = load(tiles=board, step="roll", dice=["choice"], options={"cloud_keep": False})
    assert "weather clouds" not in legal(t)


# --------------------------------------------------------------------------- cloud_when_empty


def test_R12_cloud_when_empty_other_weather() -> None:
    """R12 cloud_when_empty=other_weather (default): sun, rain, wind or storm instead."""
    s = load(tiles=BOARD, step="roll", dice=["clouds"], hands=ALL_TOKENS_HELD)
    assert s.step_name == "choose_weather"
    weathers = [a for a in legal(s) if not a.startswith("improve ")]  # free moves (R3.1)
    assert weathers == ["weather sun", "weather rain", "weather wind", "weather storm"]
    play(s, "weather storm")
    assert s.step_name == "storm"


def moved_board() -> list:
    return [
        tile("1,0", "green", 1),
        tile("1,-1", "green", 1),
        tile("2,-1", "yellow", 1, improvement="watershed"),
        tile("2,-2", "pink", 0),
        tile("0,-1", "pink/watershed", 0),
        tile("-1,0", "yellow", 0),
    ]


def test_R12_cloud_when_empty_move_improvement() -> None:
    """R12 cloud_when_empty=move_improvement: move a placed token to another legal plot."""
    stocks = [
        hand(improvements=["watershed"] * 2 + ["enclosure"] * 3),
        hand(improvements=["fertilizer"] * 3),
    ]
    s = load(
        tiles=moved_board(),
        step="roll",
        dice=["clouds"],
        hands=stocks,
        options={"cloud_when_empty": "move_improvement"},
    )
    assert s.step_name == "clouds"
    # Only the token at 2,-1 may move (0,-1's watershed is printed); to bare plots without
    # an improvement: 2,-2 and -1,0.
    # Seat 0's stored tokens may be placed first (R3.1): the clouds' own options follow.
    own = [a for a in legal(s) if not a.startswith("improve ")]
    assert sorted(own) == sorted(["clouds move 2,-1 2,-2", "clouds move 2,-1 -1,0", "skip"])
    play(s, "clouds move 2,-1 2,-2")
    assert grid.parse_cell("2,-1") not in s.improvement
    assert s.improvement[grid.parse_cell("2,-2")] == comp.WATERSHED
    assert irrigated(s, "2,-2") and height(s, "2,-2") == 1
    assert irrigated(s, "2,-1"), "once irrigated, always irrigated (R6.4)"
    # The position written now reads back to the same state.
    assert to_position(from_position(to_position(s))) == to_position(s)


def test_R12_cloud_when_empty_move_improvement_with_choice_face() -> None:
    """R12 cloud_when_empty=move_improvement: "?" may choose clouds to move a token."""
    stocks = [
        hand(improvements=["watershed"] * 2 + ["enclosure"] * 3),
        hand(improvements=["fertilizer"] * 3),
    ]
    s = load(
        tiles=moved_board(),
        step="roll",
        dice=["choice"],
        hands=stocks,
        options={"cloud_when_empty": "move_improvement"},
    )
    assert "weather clouds" in legal(s)
    t = load(tiles=moved_board(), step="roll", dice=["choice"], hands=stocks)
    assert "weather clouds" not in legal(t)


def test_R12_clouds_move_only_with_move_improvement() -> None:
    """R12 cloud_when_empty=other_weather: ``clouds move`` is never offered, even in a
    position left at step ``clouds`` with an empty reserve (docs/notation.md: only with the
    option)."""
    stocks = [
        hand(improvements=["watershed"] * 2 + ["enclosure"] * 3),
        hand(improvements=["fertilizer"] * 3),
    ]
    s = load(tiles=moved_board(), step="clouds", weather="clouds", hands=stocks, dice=["sun"])
    assert not any(a.startswith("clouds move") for a in legal(s)), legal(s)
    t = load(
        tiles=moved_board(),
        step="clouds",
        weather="clouds",
        hands=stocks,
        options={"cloud_when_empty": "move_improvement"},
    )
    assert "clouds move 2,-1 2,-2" in legal(t)


# --------------------------------------------------------------------------- redraw_satisfied


def redraw_tiles() -> list[dict[str, Any]]:
    """Green plots under the redraw tests' hands: a tall one, and shoots of 1."""
    return [
        tile("1,0", "green", 4),
        tile("1,-1", "green", 1),
        tile("2,-1", "green/watershed", 1),
        tile("2,-2", "green/watershed", 1),
    ]


def redraw_position(option: str, category: str, top: list[str]) -> GameState:
    mine = ["plot-02"]
    return load(
        tiles=redraw_tiles(),
        weather="rain",
        hands=[hand(mine, eaten=(2, 0, 0)), hand()],
        decks=objective_decks({category: top}, elsewhere=mine),
        options={"redraw_satisfied": option},
    )


@pytest.mark.parametrize(
    ("category", "top"),
    [
        ("plot", ["plot-07", "plot-04", "plot-03"]),  # triangle, curve hold; line does not
        ("gardener", ["gardener-04", "gardener-05"]),
        ("panda", ["panda-01", "panda-06"]),
    ],
)
def test_R12_redraw_satisfied_none_keeps_a_satisfied_card(category: str, top: list[str]) -> None:
    """R12 redraw_satisfied=none (default), R10.7: a satisfied card is kept."""
    s = redraw_position("none", category, top)
    play(s, f"objective {category}")
    assert hand_ids(s, 0) == ["plot-02", top[0]]


def test_R12_redraw_satisfied_plot_gardener_redraws_plot_cards() -> None:
    """R12 redraw_satisfied=plot_gardener, R10.7: satisfied plot cards go under, repeat."""
    s = redraw_position("plot_gardener", "plot", ["plot-07", "plot-04", "plot-03"])
    play(s, "objective plot")
    assert hand_ids(s, 0) == ["plot-02", "plot-03"]
    deck = [comp.CARDS[c].id for c in s.objective_decks[0]]
    assert deck[-2:] == ["plot-07", "plot-04"]
    assert s.history_text()[-3:] == [
        "* returned plot-07",
        "* returned plot-04",
        "* drew plot-03",
    ]


def test_R12_redraw_satisfied_plot_gardener_redraws_gardener_cards() -> None:
    """R12 redraw_satisfied=plot_gardener, R10.7: a satisfied gardener card goes under."""
    s = redraw_position("plot_gardener", "gardener", ["gardener-04", "gardener-05"])
    play(s, "objective gardener")
    assert hand_ids(s, 0) == ["plot-02", "gardener-05"]
    assert comp.CARDS[s.objective_decks[1][-1]].id == "gardener-04"


def test_R12_redraw_satisfied_plot_gardener_keeps_panda_cards() -> None:
    """R12 redraw_satisfied=plot_gardener, R10.7: panda cards are kept even if satisfied."""
    s = redraw_position("plot_gardener", "panda", ["panda-01", "panda-06"])
    play(s, "objective panda")
    assert hand_ids(s, 0) == ["plot-02", "panda-01"]


def redraw_all_position(**kwargs: Any) -> GameState:
    """Seat 0 with 2 green eaten: panda-01 and panda-02 hold, panda-06 and gardener-05 do
    not (``redraw_satisfied=all``)."""
    mine = ["plot-02"]
    return load(
        tiles=redraw_tiles(),
        weather="rain",
        hands=[hand(mine, eaten=(2, 0, 0), **kwargs), hand()],
        decks=objective_decks(
            {"panda": ["panda-01", "panda-02", "panda-06"], "gardener": ["gardener-05"]},
            elsewhere=mine,
        ),
        options={"redraw_satisfied": "all"},
    )


def test_R12_redraw_satisfied_all_the_player_chooses_the_replacement_deck() -> None:
    """R12 redraw_satisfied=all, R10.7: a satisfied card goes under its deck and the player
    chooses the category of the replacement (its own included), until a card is not
    satisfied; the whole is one objective action."""
    s = redraw_all_position()
    play(s, "objective panda")
    assert s.step_name == "redraw" and s.put_back == (0, 0, 1)
    assert hand_ids(s, 0) == ["plot-02"]
    assert legal(s) == ["redraw plot", "redraw gardener", "redraw panda"]
    play(s, "redraw panda")  # panda-02: satisfied too
    assert s.step_name == "redraw" and s.put_back == (0, 0, 2)
    play(s, "redraw gardener")
    assert hand_ids(s, 0) == ["plot-02", "gardener-05"]
    assert s.step_name == "actions" and s.put_back == (0, 0, 0)
    assert s.taken == (4,), "one objective action, however many redraws"
    deck = [comp.CARDS[c].id for c in s.objective_decks[2]]
    assert deck[0] == "panda-06" and deck[-2:] == ["panda-01", "panda-02"]
    assert s.history_text()[-6:] == [
        "0 objective panda",
        "* returned panda-01",
        "0 redraw panda",
        "* returned panda-02",
        "0 redraw gardener",
        "* drew gardener-05",
    ]
    # The player knows where the returned cards are; the others know only their deck.
    assert PlayerView.of(s, 0).known_objectives[2] == (
        (len(deck) - 2, comp.parse_card("panda-01")),
        (len(deck) - 1, comp.parse_card("panda-02")),
    )
    assert PlayerView.of(s, 1).known_objectives[2] == ()


def test_R12_redraw_satisfied_all_an_unsatisfied_draw_is_kept_at_once() -> None:
    """R12 redraw_satisfied=all: a card that does not hold is drawn as with ``none``."""
    s = redraw_all_position()
    play(s, "objective gardener")
    assert hand_ids(s, 0) == ["plot-02", "gardener-05"] and s.step_name == "actions"


def test_R12_redraw_satisfied_all_a_deck_gone_through_is_not_offered() -> None:
    """R12 redraw_satisfied=all: a deck whose every card was put back by this draw cannot
    give a replacement, so it is not offered."""
    pandas = [f"panda-{i:02d}" for i in range(1, 16)]
    s = load(
        tiles=[tile("1,0", "green", 1)],
        weather="rain",
        hands=[hand(["plot-02"], eaten=(2, 0, 0)), hand(pandas[2:7], completed=pandas[7:])],
        options={"redraw_satisfied": "all"},
    )
    assert len(s.objective_decks[2]) == 2
    play(s, "objective panda", "redraw panda")
    assert s.put_back == (0, 0, 2)
    assert legal(s) == ["redraw plot", "redraw gardener"]


def test_R12_redraw_satisfied_all_views_and_positions_at_the_redraw_step() -> None:
    """R12, R2.6: the redraw step is public (everyone saw the card go under its deck), it is
    written and read back by positions, and samples of any seat's view agree with it."""
    s = redraw_all_position()
    play(s, "objective panda")
    for seat in (0, 1):
        view = PlayerView.of(s, seat)
        assert view.step_name == "redraw" and view.put_back == (0, 0, 1)
        sample = view.determinize(random.Random(seat))
        assert PlayerView.of(sample, seat).to_json() == view.to_json()
        assert sample.legal_actions() == s.legal_actions()
    data = to_position(s)
    assert data["turn"]["step"] == "redraw"
    assert data["turn"]["put_back"] == {"plot": 0, "gardener": 0, "panda": 1}
    again = from_position(data)
    assert to_position(again) == data and again.legal_actions() == s.legal_actions()
    play(again, "redraw gardener")
    assert hand_ids(again, 0) == ["plot-02", "gardener-05"]
    assert PlayerView.of(s, 1).to_json() != PlayerView.of(s, 0).to_json()


def one_deck_left(channels: int = 0) -> GameState:
    """Plot and gardener decks empty; the panda deck holds panda-01 and panda-02, both
    satisfied for seat 0 (``redraw_satisfied=all``)."""
    pandas = [f"panda-{i:02d}" for i in range(1, 16)]
    mine = ["plot-02"]
    others_done = [c for c in PLOT_CARDS if c != "plot-02"] + list(GARDENER_CARDS)
    s = load(
        tiles=[tile("1,0", "green", 1), tile("1,-1", "green", 1)],
        weather="rain",
        hands=[hand(mine, eaten=(2, 0, 0), channels=channels),
               hand(pandas[2:7], completed=others_done + pandas[7:])],
        options={"redraw_satisfied": "all", "objectives_to_end": {"2": 40, "3": 40, "4": 40}},
    )
    assert [len(d) for d in s.objective_decks] == [0, 0, 2]
    return s


def test_R12_redraw_satisfied_all_one_deck_left_draws_by_itself() -> None:
    """R12, R10.7: when a single deck can give the replacement and no free move is open,
    the engine draws it (no choice); when no deck can, the satisfied card is kept."""
    s = one_deck_left()
    play(s, "objective panda")
    assert s.history_text()[-3:] == ["0 objective panda", "* returned panda-01",
                                     "* drew panda-02"], "the only deck: no choice recorded"
    assert hand_ids(s, 0) == ["plot-02", "panda-02"] and s.step_name == "actions"
    assert [comp.CARDS[c].id for c in s.objective_decks[2]] == ["panda-01"]


def test_R3_1_free_moves_at_the_redraw_step() -> None:
    """R3.1, R12: the redraw step is a decision of the turn, so free moves are open there;
    with a stored channel even a single deck left is a choice."""
    s = one_deck_left(channels=1)
    play(s, "objective panda")
    assert s.step_name == "redraw"
    assert legal(s) == ["channel 1,-1|1,0", "redraw panda"]
    play(s, "channel 1,-1|1,0")
    assert s.stored_channels[0] == 0
    assert hand_ids(s, 0) == ["plot-02", "panda-02"] and s.step_name == "actions"
    t = redraw_all_position(channels=1)
    play(t, "objective panda")
    assert legal(t) == ["channel 1,-1|1,0", "redraw plot", "redraw gardener", "redraw panda"]


def test_R12_redraw_step_positions_are_checked() -> None:
    """R12: a redraw step needs the option, the objective action, and a deck to draw from;
    ``put_back`` belongs to that step only."""
    base = {"tiles": [tile("1,0", "green", 1)], "weather": "rain",
            "options": {"redraw_satisfied": "all"}}
    good = make_position(step="redraw", actions=["objective"], **base)
    good["turn"]["put_back"] = {"panda": 1}
    assert from_position(good).step_name == "redraw"
    cases = [
        ({"options": {}}, "turn.step"),
        ({"actions": []}, "turn.actions"),
        ({"put_back": {}}, "turn.put_back"),
        ({"put_back": {"dragon": 1}}, "turn.put_back"),
        ({"put_back": {"panda": 40}}, "turn.put_back.panda"),
    ]
    for change, field in cases:
        data = make_position(step="redraw", actions=change.get("actions", ["objective"]),
                             **{**base, **({"options": change["options"]} if "options" in change
                                           else {})})
        data["turn"]["put_back"] = change.get("put_back", {"panda": 1})
        with pytest.raises(PositionError, match=field.replace(".", r"\.")):
            from_position(data)
    at_actions = make_position(**base)
    at_actions["turn"]["put_back"] = {"panda": 1}
    with pytest.raises(PositionError, match=r"turn\.put_back"):
        from_position(at_actions)


# --------------------------------------------------------------------------- gardener_on_shoot


@pytest.mark.parametrize(
    ("on_shoot", "at", "holds"),
    [
        (False, "0,0", True),
        (False, "1,-1", True),
        (True, "0,0", False),
        (True, "1,-1", False),
        (True, "1,0", True),
    ],
)
def test_R12_gardener_on_shoot(on_shoot: bool, at: str, holds: bool) -> None:
    """R12 gardener_on_shoot: when true the gardener must stand on a shoot the card uses."""
    board = [tile("1,0", "green", 4), tile("1,-1", "green", 2)]
    s = load(
        tiles=board,
        gardener=at,
        weather="rain",
        hands=[hand(["gardener-04"]), hand()],
        options={"gardener_on_shoot": on_shoot},
    )
    assert ("complete gardener-04" in legal(s)) is holds


def test_R12_gardener_on_shoot_several_shoots() -> None:
    """R12 gardener_on_shoot=true: for several shoots, standing on any one of them holds."""
    board = [tile("1,0", "pink", 3), tile("1,-1", "pink", 3), tile("0,-1", "pink", 2)]
    for at, holds in (("1,0", True), ("1,-1", True), ("0,-1", False), ("0,0", False)):
        s = load(
            tiles=board,
            gardener=at,
            weather="rain",
            hands=[hand(["gardener-15"]), hand()],
            options={"gardener_on_shoot": True},
        )
        assert ("complete gardener-15" in legal(s)) is holds, at


# --------------------------------------------------------------------------- bamboo_supply


def test_R12_bamboo_supply_unlimited_default() -> None:
    """R12 bamboo_supply=unlimited (default): growth goes on past the sections of R1.5."""
    board = [tile("1,0", "pink", 1), tile("1,-1", "pink", 1)]
    s = load(tiles=board, weather="rain", hands=[hand(eaten=(0, 0, 22)), hand()])
    play(s, "gardener 1,0")
    assert heights(s, "1,0", "1,-1") == {"1,0": 2, "1,-1": 2}


def test_R12_bamboo_supply_limited_stops_growth_when_a_colour_runs_out() -> None:
    """R12 bamboo_supply=limited: pink sections run out (24 = 2 on board + 22 eaten)."""
    board = [tile("1,0", "pink", 1), tile("1,-1", "pink", 1), tile("0,-1", "green", 1)]
    s = load(
        tiles=board,
        weather="rain",
        hands=[hand(["panda-10"], eaten=(0, 0, 22)), hand()],
        options={"bamboo_supply": "limited"},
    )
    assert s.supply_left(comp.PINK) == 0
    play(s, "gardener 1,0")
    assert heights(s, "1,0", "1,-1") == {"1,0": 1, "1,-1": 1}
    # Completing a panda objective gives sections back to the reserve: growth resumes.
    assert grid.parse_cell("1,0") not in s.rain_targets()
    play(s, "complete panda-10")
    assert s.supply_left(comp.PINK) == 2
    assert grid.parse_cell("1,0") in s.rain_targets()


def test_R12_bamboo_supply_limited_partial_growth_and_rain() -> None:
    """R12 bamboo_supply=limited: one section left limits fertilizer and removes rain targets."""
    board = [tile("1,0", "pink/fertilizer", 1), tile("1,-1", "green", 1)]
    s = load(
        tiles=board,
        step="rain",
        weather="rain",
        hands=[hand(eaten=(0, 0, 22)), hand()],
        options={"bamboo_supply": "limited"},
    )
    assert s.supply_left(comp.PINK) == 1
    assert sorted(legal(s)) == ["rain 1,-1", "rain 1,0", "skip"]
    play(s, "rain 1,0")
    assert height(s, "1,0") == 2, "fertilizer would give 2, only 1 section is left"
    assert s.supply_left(comp.PINK) == 0
    t = load(
        tiles=board,
        step="rain",
        weather="rain",
        hands=[hand(eaten=(0, 0, 23)), hand()],
        options={"bamboo_supply": "limited"},
    )
    assert legal(t) == ["rain 1,-1", "skip"]


# --------------------------------------------------------------------------- objectives_to_end


def test_R12_objectives_to_end() -> None:
    """R12 objectives_to_end: the count that gives the Emperor, per player count."""
    done = ["panda-01", "panda-02"]
    position = dict(
        tiles=[tile("1,0", "green", 4)],
        weather="rain",
        hands=[hand(["gardener-04"], completed=done), hand()],
    )
    s = load(**position, options={"objectives_to_end": {"2": 3, "3": 8, "4": 7}})
    play(s, "complete gardener-04")
    assert s.emperor == 0 and s.last_turns == 1
    t = load(**position)
    play(t, "complete gardener-04")
    assert t.emperor == -1
    assert RuleOptions().objectives_needed(2) == 9
    assert RuleOptions().objectives_needed(3) == 8
    assert RuleOptions().objectives_needed(4) == 7
    with pytest.raises(OptionError):
        RuleOptions.from_dict({"objectives_to_end": {"2": 9}})


# --------------------------------------------------------------------------- emperor_points


@pytest.mark.parametrize("points", [2, 0, 5])
def test_R12_emperor_points(points: int) -> None:
    """R12 emperor_points: what the Emperor card is worth (default 2)."""
    done = [
        "panda-01",
        "panda-02",
        "panda-03",
        "panda-04",
        "panda-05",
        "panda-06",
        "panda-07",
        "panda-08",
    ]
    options = {} if points == 2 else {"emperor_points": points}
    s = load(
        tiles=[tile("1,0", "green", 4)],
        weather="rain",
        hands=[hand(["gardener-04"], completed=done), hand()],
        options=options,
    )
    base = s.scores()[0]
    play(s, "complete gardener-04")
    assert s.emperor == 0
    assert s.scores()[0] == base + 5 + points


# --------------------------------------------------------------------------- max_rounds


@pytest.mark.parametrize("players", [2, 3, 4])
def test_R12_max_rounds_caps_the_game(players: int) -> None:
    """R12 max_rounds: after that many rounds the game ends, is scored and flagged capped."""
    s = new_game(players, seed=3, options=RuleOptions(max_rounds=2))
    turns = 0
    while not s.ended:
        finish_turn(s)
        turns += 1
    assert turns == 2 * players
    assert s.capped and s.round == 2
    result = s.result()
    assert result.capped and result.rounds == 2 and result.emperor is None
    assert s.history_text()[-1] == "* game over"
    assert to_position(s)["capped"] is True


def test_R12_max_rounds_default_sixty() -> None:
    """R12 max_rounds: 60 by default; a game that ends normally is not capped."""
    assert RuleOptions().max_rounds == 60
    done = [f"panda-{i:02d}" for i in range(1, 9)]
    s = load(
        tiles=[tile("1,0", "green", 4)],
        round=60,
        weather="rain",
        hands=[hand(["gardener-04"], completed=done), hand()],
        dice=["sun"],
    )
    play(s, "complete gardener-04")
    finish_turn(s)  # seat 0 ends; seat 1 has its last turn, in round 60
    finish_turn(s)
    assert s.ended and not s.capped


# --------------------------------------------------------------------------- parsing


def test_R12_options_parse_strictly() -> None:
    """R12: unknown options and values are refused with the name of the option."""
    with pytest.raises(OptionError, match="cloud_keep"):
        RuleOptions.from_pairs(["cloud_keep=maybe"])
    with pytest.raises(OptionError, match="colour_blind"):
        RuleOptions.from_pairs(["colour_blind=true"])
    with pytest.raises(OptionError, match="redraw_satisfied"):
        RuleOptions(redraw_satisfied="some")
    with pytest.raises(OptionError, match="bamboo_supply"):
        RuleOptions(bamboo_supply="plenty")
    with pytest.raises(OptionError, match="max_rounds"):
        RuleOptions(max_rounds=0)
    parsed = RuleOptions.from_pairs(
        [
            "cloud_keep=false",
            "cloud_when_empty=move_improvement",
            "redraw_satisfied=all",
            "gardener_on_shoot=true",
            "bamboo_supply=limited",
            "objectives_to_end=2:5,4:6",
            "emperor_points=3",
            "max_rounds=10",
        ]
    )
    assert parsed == RuleOptions(
        cloud_keep=False,
        cloud_when_empty="move_improvement",
        redraw_satisfied="all",
        gardener_on_shoot=True,
        bamboo_supply="limited",
        objectives_to_end=((2, 5), (3, 8), (4, 6)),
        emperor_points=3,
        max_rounds=10,
    )
    assert RuleOptions.from_dict(parsed.to_dict()) == parsed


def test_R12_an_option_given_twice_is_refused() -> None:
    """R12: ``--rule max_rounds=8 --rule max_rounds=9`` names the option instead of keeping
    one of the two silently."""
    with pytest.raises(OptionError, match="max_rounds is given twice"):
        RuleOptions.from_pairs(["max_rounds=8", "max_rounds=9"])
