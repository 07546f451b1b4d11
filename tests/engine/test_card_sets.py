"""Card sets (issue 19): a game's objective cards are its own data, scored by R13.3 from it."""

from __future__ import annotations

import random

import pytest

from arena.engine import (
    DEFAULT_CARD_SET,
    CardSet,
    GameState,
    OptionError,
    PlayerView,
    PositionError,
    from_position,
    new_game,
    positions_equal,
    to_position,
)
from arena.engine import components as comp


def _random_game(players: int, seed: int, cards: CardSet | None = None) -> GameState:
    game = new_game(players, seed, cards=cards)
    rng = random.Random(seed)
    while not game.ended:
        game.apply(rng.choice(game.legal_actions()))
    return game


def test_default_set_is_the_printed_cards() -> None:
    assert DEFAULT_CARD_SET.points == tuple(c.points for c in comp.CARDS)
    assert DEFAULT_CARD_SET.decks == comp.CATEGORY_CARDS
    assert DEFAULT_CARD_SET.is_default() and DEFAULT_CARD_SET.changes() == {}
    assert CardSet.from_changes({"plot-01": comp.CARDS[0].points}) == DEFAULT_CARD_SET


def test_default_set_deals_the_same_game() -> None:
    """Passing the printed set changes nothing: same decks, same hands, same history."""
    a, b = new_game(3, 11), new_game(3, 11, cards=CardSet())
    assert positions_equal(a, b)
    assert "card_set" not in to_position(a)


def test_R13_3_scores_come_from_the_games_card_table() -> None:
    """R13.3: completed objectives score the points of the game's set, not the printed ones."""
    doubled = CardSet(tuple(2 * p for p in comp.CARD_POINTS))
    plain = _random_game(2, 4)
    rich = _random_game(2, 4, doubled)  # the same random choices: the same game
    assert plain.result().completed == rich.result().completed
    emperor_bonus = [
        plain.options.emperor_points if plain.emperor == s else 0
        for s in range(2)
    ]
    for seat in range(2):
        cards_points = plain.scores()[seat] - emperor_bonus[seat]
        assert rich.scores()[seat] == 2 * cards_points + emperor_bonus[seat]
        assert rich.panda_points()[seat] == 2 * plain.panda_points()[seat]
    view = PlayerView.of(rich, 0)
    assert view.card_points == doubled.points and view.scores() == rich.scores()


def test_removed_cards_are_never_dealt_drawn_or_sampled() -> None:
    gone = ["plot-01", "gardener-13", "panda-02", "panda-03"]
    cards = CardSet.from_changes(remove=gone)
    ids = {comp.CARD_INDEX[g] for g in gone}
    assert [len(d) for d in cards.decks] == [14, 14, 13]
    for seed in range(5):
        game = new_game(4, seed, cards=cards)
        everywhere = {c for h in game.hands for c in h} | {
            c for d in game.objective_decks for c in d
        }
        assert everywhere == set(range(len(comp.CARDS))) - ids
        view = PlayerView.of(game, 1)
        for k in range(3):
            assert not ids & set(view.unseen_cards(k))
        sample = view.determinize(random.Random(seed))
        assert not ids & ({c for h in sample.hands for c in h}
                          | {c for d in sample.objective_decks for c in d})
        assert sample.card_set == cards


def test_a_deck_too_small_for_the_deal_is_refused() -> None:
    """R2.3 deals one card of each category per seat: a deck needs one per seat."""
    panda = [c.id for c in comp.CARDS if c.category == comp.PANDA_CARD]
    cards = CardSet.from_changes(remove=panda[:12])  # 3 panda cards left
    new_game(3, 1, cards=cards)
    assert cards.deal_problem(4) is not None
    with pytest.raises(OptionError, match="panda deck keeps 3 cards"):
        new_game(4, 1, cards=cards)


@pytest.mark.parametrize(
    ("points", "remove", "field"),
    [
        ({"plot-99": 3}, [], "points.plot-99"),
        ({"plot-01": -1}, [], "points.plot-01"),
        ({"plot-01": 2.5}, [], "points.plot-01"),
        ({"plot-01": True}, [], "points.plot-01"),
        ({}, ["plot-01", "plot-01"], "remove[1]"),
        ({}, ["nope"], "remove[0]"),
    ],
)
def test_bad_changes_name_the_field(points: dict, remove: list, field: str) -> None:
    with pytest.raises(OptionError, match=field.replace("[", r"\[").replace("]", r"\]")):
        CardSet.from_changes(points, remove)


def test_positions_round_trip_the_card_set() -> None:
    cards = CardSet.from_changes({"plot-15": 9, "panda-01": 0}, ["gardener-13"])
    game = _random_game(2, 8, cards)
    data = to_position(game)
    assert data["card_set"] == {"points": {"plot-15": 9, "panda-01": 0},
                                "remove": ["gardener-13"]}
    back = from_position(data)
    assert back.card_set == cards and positions_equal(back, game)
    assert back.scores() == game.scores()


def test_a_position_holding_a_removed_card_is_refused() -> None:
    data = to_position(new_game(2, 3))
    held = data["hands"][0]["objectives"][0]
    data["card_set"] = {"remove": [held]}
    with pytest.raises(PositionError, match="removed by the card_set"):
        from_position(data)
    data["card_set"] = {"points": {"plot-01": "x"}}
    with pytest.raises(PositionError, match=r"card_set: points\.plot-01"):
        from_position(data)
