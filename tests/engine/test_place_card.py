"""``GameState.place_card``: an experiment's intervention on the deal (R2.3, R2.5, R2.6).

The operation exchanges the places of two cards of one category before the first decision:
a seat's dealt card and the card placed there (``seat=``), or a deck position and the card
placed there (``depth=``).  Everything else the seed made stays as it was.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from arena.engine import CardSet, PlacementError, PlayerView, events, new_game
from arena.engine import components as comp
from arena.engine.history import DEALT

INDEX = comp.CARD_INDEX


def _places(game: object) -> dict[int, tuple[str, int, int]]:
    """Where every objective card in play is: ("hand", seat, slot) or ("deck", category, k)."""
    out: dict[int, tuple[str, int, int]] = {}
    for seat, hand in enumerate(game.hands):  # type: ignore[attr-defined]
        for slot, card in enumerate(hand):
            out[card] = ("hand", seat, slot)
    for k, deck in enumerate(game.objective_decks):  # type: ignore[attr-defined]
        for depth, card in enumerate(deck):
            out[card] = ("deck", k, depth)
    return out


@pytest.mark.parametrize("players", [2, 3, 4])
def test_R2_3_seat_holds_the_card_and_its_old_place_takes_the_dealt_one(players: int) -> None:
    """R2.3: after ``place_card(X, seat=s)`` seat s holds X where it held the dealt card of
    X's category, the dealt card sits where X was, and no other card moved."""
    rng = random.Random(players)
    for seed in range(40):
        before = new_game(players, seed)
        card = rng.randrange(len(comp.CARDS))
        seat = rng.randrange(players)
        dealt = next(c for c in before.hands[seat]
                     if comp.CARD_CATEGORY[c] == comp.CARD_CATEGORY[card])
        game = new_game(players, seed)
        game.place_card(card, seat=seat)
        old, new = _places(before), _places(game)
        assert new[card] == old[dealt]
        assert new[dealt] == old[card]
        assert {c: p for c, p in new.items() if c not in (card, dealt)} == {
            c: p for c, p in old.items() if c not in (card, dealt)}
        for hand in game.hands:  # still one card of each category, in deal order
            assert [comp.CARD_CATEGORY[c] for c in hand] == [0, 1, 2]


def test_R2_3_depth_puts_the_card_at_that_place_of_its_deck() -> None:
    """``depth=d``: X is the (d+1)-th card its deck will give; the card that was there takes
    X's old place, in a hand or in the deck."""
    for seed in range(30):
        for card_id, depth in (("panda-07", 0), ("gardener-13", 5), ("plot-02", 12)):
            card = INDEX[card_id]
            k = comp.CARD_CATEGORY[card]
            before = new_game(2, seed)
            there = before.objective_decks[k][depth]
            game = new_game(2, seed)
            game.place_card(card, depth=depth)
            assert game.objective_decks[k][depth] == card
            old, new = _places(before), _places(game)
            assert new[there] == old[card] or there == card
            assert len(game.objective_decks[k]) == len(before.objective_decks[k])


def test_R2_3_a_card_already_in_place_changes_nothing() -> None:
    game = new_game(2, 5)
    before = (list(game.hands), game.objective_decks, game.history_text())
    game.place_card(game.hands[1][2], seat=1)
    game.place_card(game.objective_decks[0][3], depth=3)
    assert (list(game.hands), game.objective_decks, game.history_text()) == before


def test_R2_3_the_history_deals_the_hands_as_placed() -> None:
    """The deal entries are the hands as they now are, so bots are told of the deal they
    hold and a replay that places the card again gives the same history."""
    game = new_game(3, 11)
    game.place_card(INDEX["gardener-13"], seat=2)
    deals = [e for e in game.history or () if e[0] == DEALT]
    assert [e[3] for e in deals] == list(game.hands)
    assert "gardener-13" in game.history_text()[2]


def test_R2_5_the_rest_of_the_deal_is_the_seed_s() -> None:
    """R2.5: the generator, the plot deck, the other categories' decks and the die are
    untouched, so the same choices give the same rolls and plots."""
    base = new_game(2, 21)
    game = new_game(2, 21)
    game.place_card(INDEX["plot-09"], seat=0)
    assert game.rng == base.rng and game.plot_deck == base.plot_deck
    assert game.objective_decks[1:] == base.objective_decks[1:]
    rng = random.Random(3)
    for _ in range(30):  # moves that read no objective card: the same chance in both games
        legal = [a for a in base.legal_actions() if a in game.legal_actions()]
        action = rng.choice(legal)
        base.apply(action)
        game.apply(action)
        assert game.rng == base.rng and game.plot_deck == base.plot_deck


def test_R2_6_other_seats_see_only_the_categories_of_the_placed_hand() -> None:
    """R2.6: the placed card is hidden from the other seats, as a dealt card is."""
    game = new_game(2, 8)
    game.place_card(INDEX["panda-15"], seat=0)
    mine = PlayerView.of(game, 0)
    assert INDEX["panda-15"] in mine.hand
    theirs = [e for e in events(game.history or (), viewer=1, cards=game.card_set)
              if e.kind == "deal"]
    assert theirs[0].seat == 0 and theirs[0].cards == (None, None, None)
    assert theirs[0].categories == (0, 1, 2)


def test_place_card_refusals_are_one_sentence() -> None:
    game = new_game(2, 1)
    with pytest.raises(PlacementError, match="exactly one"):
        game.place_card(0)
    with pytest.raises(PlacementError, match="exactly one"):
        game.place_card(0, seat=0, depth=0)
    with pytest.raises(PlacementError, match="not a seat"):
        game.place_card(0, seat=2)
    with pytest.raises(PlacementError, match="not a place"):
        game.place_card(0, depth=13)  # 15 plot cards, 2 dealt: depths 0..12
    with pytest.raises(PlacementError, match="not an objective card"):
        game.place_card(45, seat=0)
    removed = new_game(2, 1, cards=CardSet.from_changes(remove=["plot-04"]))
    with pytest.raises(PlacementError, match="removed"):
        removed.place_card(INDEX["plot-04"], seat=0)
    game.apply(game.legal_actions()[0])
    with pytest.raises(PlacementError, match="before the first decision"):
        game.place_card(0, seat=0)


def test_place_card_without_history_and_whole_games_after_it() -> None:
    """Placed deals play to the end under random moves, the cards in play always the set's
    (a property over many seeds and placements)."""
    rng = random.Random(0)
    for seed in range(60):
        players = rng.choice((2, 3, 4))
        game = new_game(players, seed, history=bool(seed % 2))
        for _ in range(rng.randrange(1, 4)):
            card = rng.randrange(len(comp.CARDS))
            if rng.random() < 0.5:
                game.place_card(card, seat=rng.randrange(players))
            else:
                k = comp.CARD_CATEGORY[card]
                game.place_card(card, depth=rng.randrange(len(game.objective_decks[k])))
        everything = Counter(c for h in game.hands for c in h)
        everything.update(c for d in game.objective_decks for c in d)
        assert everything == Counter(range(len(comp.CARDS)))
        while not game.ended:
            game.apply(rng.choice(game.legal_actions()))
