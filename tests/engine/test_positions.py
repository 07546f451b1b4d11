"""Positions (docs/notation.md): written and read back equal; bad input refused, naming the
field."""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable
from typing import Any

import pytest

from arena.engine import (
    PositionError,
    RuleOptions,
    from_position,
    new_game,
    positions_equal,
    to_position,
)
from tests.engine.helpers import (
    PANDA_CARDS,
    Json,
    check_state,
    hand,
    legal,
    load,
    make_position,
    objective_decks,
    plot_deck,
    tile,
)

OPTION_SETS = [
    {},
    {"cloud_keep": False},
    {"cloud_when_empty": "move_improvement"},
    {"redraw_satisfied": "all"},
    {"redraw_satisfied": "plot_gardener", "gardener_on_shoot": True},
    {"bamboo_supply": "limited"},
    {"max_rounds": 8, "emperor_points": 4},
]


def snapshots(players: int, seed: int, options: dict, every: int) -> list:
    """States at every ``every``-th decision of a random game (and its last state)."""
    rng = random.Random(seed)
    s = new_game(players, seed=seed, options=RuleOptions.from_dict(options))
    out = []
    n = 0
    while not s.ended:
        if n % every == 0:
            out.append(s.copy(history=True))
        s.apply(rng.choice(s.legal_actions()))
        n += 1
    out.append(s)
    return out


@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda o: ",".join(o) or "defaults")
@pytest.mark.parametrize("players", [2, 3, 4])
def test_positions_round_trip(players: int, options: dict) -> None:
    """write -> read -> write gives the same position, and play goes on identically."""
    for seed in range(3):
        for state in snapshots(players, seed * 7 + players, options, every=9):
            position = to_position(state)
            json.loads(json.dumps(position))  # plain JSON
            back = from_position(copy.deepcopy(position))
            assert to_position(back) == position
            assert positions_equal(back, state)
            assert back.legal_actions() == state.legal_actions()
            check_state(back)
            # The generator's state travels with the position: the futures are the same.
            rng = random.Random(seed)
            a, b = state.copy(), back
            for _ in range(25):
                if a.ended:
                    break
                action = rng.choice(a.legal_actions())
                a.apply(action)
                b.apply(action)
            assert to_position(a) == to_position(b)


def test_position_keeps_scripted_dice_and_known_cards() -> None:
    """``dice`` and the cards a seat put under a deck survive a round trip."""
    mine = ["plot-02"]
    s = load(
        tiles=[tile("1,0", "green", 4)],
        weather="rain",
        hands=[hand(mine), hand()],
        decks=objective_decks({"gardener": ["gardener-04", "gardener-05"]}, elsewhere=mine),
        options={"redraw_satisfied": "plot_gardener"},
        dice=["storm", "wind"],
    )
    s.play(s.legal_actions()[legal(s).index("objective gardener")])
    position = to_position(s)
    assert position["dice"] == ["storm", "wind"]
    assert position["known"]["gardener"][-1] == [0]
    assert to_position(from_position(position)) == position


# --------------------------------------------------------------------------- bad input

BASE_TILES = [tile("1,0", "green", 1), tile("1,-1", "pink", 1), tile("2,-1", "yellow", 0)]


def base(**changes: Any) -> Json:
    kwargs: dict[str, Any] = {"tiles": copy.deepcopy(BASE_TILES)}
    kwargs.update(changes)
    return make_position(**kwargs)


def edit(fn: Callable[[Json], None], **changes: Any) -> Json:
    position = base(**changes)
    fn(position)
    return position


def six_cards(p: Json) -> None:
    p["hands"][0]["objectives"] = [
        "plot-01",
        "plot-02",
        "plot-03",
        "gardener-01",
        "panda-01",
        "panda-02",
    ]


BAD: list[tuple[str, Json | Any, str]] = [
    ("not an object", [1, 2], "position"),
    ("unknown format", edit(lambda p: p.update(format="takenoko-position/9")), "format"),
    ("no format", edit(lambda p: p.pop("format")), "format"),
    ("players", base(players=5), "players"),
    ("current seat", base(current=2), "current"),
    ("round", base(round=0), "round"),
    ("tile off the grid", base(tiles=[*BASE_TILES, tile("16,0", "green")]), "tiles[3].at"),
    ("tile at", base(tiles=[tile("one", "green")]), "tiles[0].at"),
    ("a tile twice", base(tiles=[*BASE_TILES, tile("1,0", "yellow")]), "tiles[3].at"),
    ("a tile on the pond", base(tiles=[tile("0,0", "green")]), "tiles[0].at"),
    ("unknown tile", base(tiles=[tile("1,0", "blue")]), "tiles[0].tile"),
    ("bamboo 5", base(tiles=[tile("1,0", "green", 5)]), "tiles[0].bamboo"),
    ("bamboo -1", base(tiles=[tile("1,0", "green", -1)]), "tiles[0].bamboo"),
    ("bamboo on a dry plot", base(tiles=[*BASE_TILES[:2], tile("2,-1", "yellow", 1)]), "tiles"),
    (
        "irrigated true on a dry plot",
        base(tiles=[*BASE_TILES[:2], tile("2,-1", "yellow", 0, irrigated=True)]),
        "tiles[2].irrigated",
    ),
    (
        "irrigated false beside the pond",
        base(tiles=[tile("1,0", "green", 0, irrigated=False)]),
        "tiles[0].irrigated",
    ),
    (
        "printed improvement replaced",
        base(tiles=[tile("1,0", "green/watershed", 1, improvement="enclosure")]),
        "tiles[0].improvement",
    ),
    (
        "unknown improvement",
        base(tiles=[tile("1,0", "green", 0, improvement="moat")]),
        "tiles[0].improvement",
    ),
    ("a plot cut off", base(tiles=[tile("3,0", "green")]), "tiles"),
    ("channel on a pond edge", base(channels=["0,0|1,0"]), "channels[0]"),
    ("channel not an edge", base(channels=["1,0|3,0"]), "channels[0]"),
    ("channel beside an empty space", base(channels=["1,0|2,0"]), "channels[0]"),
    ("a channel twice", base(channels=["1,-1|1,0", "1,0|1,-1"]), "channels[1]"),
    (
        "a channel cut off from the pond",
        base(
            tiles=[*BASE_TILES, tile("3,-1", "green"), tile("3,-2", "green")],
            channels=["2,-1|3,-2"],
        ),
        "channels",
    ),
    ("gardener on an empty space", base(gardener="4,0"), "gardener"),
    ("panda off the grid", base(panda="40,0"), "panda"),
    ("card not in the game", base(hands=[hand(["plot-99"]), hand()]), "hands[0].objectives[0]"),
    (
        "a card twice in two hands",
        base(hands=[hand(["plot-01"]), hand(["plot-01"])]),
        "hands[1].objectives",
    ),
    (
        "a card in hand and completed",
        base(hands=[hand(["plot-01"], completed=["plot-01"]), hand()]),
        "hands[0].completed",
    ),
    (
        "a card in hand and deck",
        base(hands=[hand(["plot-01"]), hand()], decks=objective_decks()),
        "decks.plot",
    ),
    (
        "a deck missing a card",
        base(decks={"gardener": [f"gardener-{i:02d}" for i in range(2, 16)]}),
        "decks.gardener",
    ),
    ("a card in the wrong deck", base(decks={"plot": ["panda-01"]}), "decks.plot[0]"),
    ("hand of six", edit(six_cards), "hands[0].objectives"),
    ("hands for 3 seats", base(hands=[hand(), hand(), hand()]), "hands"),
    ("eaten negative", base(hands=[hand(eaten=(0, -1, 0)), hand()]), "hands[0].eaten"),
    ("eaten colour", edit(lambda p: p["hands"][0]["eaten"].update(blue=1)), "hands[0].eaten"),
    ("stored channels negative", base(hands=[hand(channels=-1), hand()]), "hands[0].channels"),
    ("channels do not add up", base(reserve={"channels": 19}), "reserve.channels"),
    ("channels beyond 20", base(hands=[hand(channels=21), hand()]), "reserve.channels"),
    (
        "tokens do not add up",
        base(
            reserve={
                "channels": 20,
                "improvements": {"watershed": 3, "enclosure": 3, "fertilizer": 2},
            }
        ),
        "reserve.improvements.fertilizer",
    ),
    (
        "a fourth watershed",
        base(hands=[hand(improvements=["watershed"] * 4), hand()]),
        "reserve.improvements.watershed",
    ),
    (
        "plots do not add up (too many pink)",
        base(
            tiles=[
                tile(at, "pink", 0)
                for at in ("1,0", "1,-1", "0,-1", "-1,0", "-1,1", "0,1", "2,-1", "2,-2")
            ]
        ),
        "tiles",
    ),
    (
        "plot deck does not add up",
        base(decks={"plots": plot_deck(["green"], BASE_TILES)[:-1]}),
        "decks.plots",
    ),
    ("plot deck with an unknown tile", base(decks={"plots": ["mauve"]}), "decks.plots[0]"),
    ("an unknown deck", base(decks={"bamboo": []}), "decks"),
    ("unknown turn step", base(step="dance"), "turn.step"),
    ("place without drawn plots", base(step="place", actions=["plot"]), "turn.drawn"),
    ("rain step without rain", base(step="rain", weather="sun"), "turn.weather"),
    (
        "same action twice without wind",
        base(weather="sun", actions=["gardener", "gardener"]),
        "turn.actions",
    ),
    ("unknown action taken", base(actions=["dance"]), "turn.actions[0]"),
    ("unknown weather", base(weather="hail"), "turn.weather"),
    ("unknown die face", base(dice=["snow"]), "dice[0]"),
    ("bad option name", base(options={"colour_blind": True}), "options"),
    ("bad option value", base(options={"cloud_keep": "sometimes"}), "options"),
    ("bad option value (choice)", base(options={"redraw_satisfied": "twice"}), "options"),
    ("emperor without the count", base(emperor=0, last_turns=1), "emperor"),
    ("last turns without emperor", base(last_turns=1), "last_turns"),
    ("emperor missing", base(hands=[hand(completed=PANDA_CARDS[:9]), hand()]), "emperor"),
    (
        "pink sections on the board beyond 24 with a limited supply",
        base(
            options={"bamboo_supply": "limited"},
            tiles=[tile(at, "pink", 4) for at in ("1,0", "1,-1", "0,-1", "-1,0", "-1,1", "0,1")]
            + [tile("2,-1", "pink/watershed", 4)],
        ),
        "tiles",
    ),
    (
        "pink sections beyond 24 with a limited supply",
        base(
            options={"bamboo_supply": "limited"},
            hands=[hand(eaten=(0, 0, 20)), hand(eaten=(0, 0, 4))],
        ),
        "hands[1].eaten.pink",
    ),
    ("rng out of range", edit(lambda p: p.update(rng=-5)), "rng"),
    ("seed not a number", edit(lambda p: p.update(seed="seven")), "seed"),
]


@pytest.mark.parametrize(("what", "position", "field"), BAD, ids=[b[0] for b in BAD])
def test_bad_positions_are_refused_naming_the_field(what: str, position: Any, field: str) -> None:
    """Bad input raises PositionError whose message names the field at fault."""
    with pytest.raises(PositionError) as info:
        from_position(position)
    message = str(info.value)
    assert field in message, f"{what}: {message!r} does not name {field!r}"


def test_bad_option_messages_name_the_option() -> None:
    """An option error names the option that is wrong."""
    with pytest.raises(PositionError, match="colour_blind"):
        from_position(base(options={"colour_blind": True}))
    with pytest.raises(PositionError, match="cloud_keep"):
        from_position(base(options={"cloud_keep": "sometimes"}))


def test_unlimited_supply_accepts_more_sections_than_the_box() -> None:
    """R1.5: with the default unlimited supply, stocks may hold more than the box's count."""
    s = from_position(base(hands=[hand(eaten=(0, 0, 20)), hand(eaten=(0, 0, 4))]))
    assert s.supply_left(2) == -1
    limited = from_position(
        base(options={"bamboo_supply": "limited"}, hands=[hand(eaten=(0, 0, 23)), hand()])
    )
    assert limited.supply_left(2) == 0


def test_a_good_base_position_is_accepted() -> None:
    """The base of the bad positions above is itself fine (each one breaks one thing)."""
    s = from_position(base())
    check_state(s)
    assert s.reserve_channels == 20


def test_missing_decks_are_filled_per_deck() -> None:
    """A deck left out is filled with the components found nowhere else."""
    given = plot_deck(["pink/fertilizer"], BASE_TILES)
    s = from_position(base(decks={"plots": given}))
    assert len(s.plot_deck) == 24
    check_state(s)
    assert [len(d) for d in s.objective_decks] == [15, 15, 15]
