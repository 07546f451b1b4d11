"""``PlayerView.determinize`` samples exactly what ``rng.shuffle`` over each pool samples.

Why: every seeded search (and the decision digests of ``mcts``, ``greedy`` and ``objective``)
rests on the samples a generator gives.  ``determinize`` shuffles with its own inline loop
for speed; these tests hold it to the plain algorithm: the same states, the same draws.
They read the reference's internals (``view.py``), so they run on the reference whatever
``ARENA_ENGINE`` selects: the native engine is held to the reference's samples, draw for
draw, by ``test_native.py``.
"""

from __future__ import annotations

import random

import pytest

from arena.engine.actions import COMPLETE, KIND_MASK
from arena.engine.board import copy_public
from arena.engine.state import GameState, new_game
from arena.engine.view import PlayerView, _deck_places, _fill, _shuffle, _shuffle_steps


@pytest.mark.parametrize("seed", [0, 1, 7, 12345])
def test_shuffle_is_random_shuffle(seed: int) -> None:
    for n in range(0, 70):
        a, b = random.Random(seed + n), random.Random(seed + n)
        x, y = list(range(n)), list(range(n))
        a.shuffle(x)
        _shuffle(b, y, _shuffle_steps(n))
        assert x == y
        assert a.random() == b.random()  # the same draws were consumed


def test_a_subclass_of_random_shuffles_its_own_way() -> None:
    class Reversing(random.Random):
        def shuffle(self, x: list) -> None:  # type: ignore[override]
            x.reverse()

    items = [1, 2, 3, 4]
    _shuffle(Reversing(0), items, _shuffle_steps(4))
    assert items == [4, 3, 2, 1]


def test_a_deck_is_filled_place_by_place() -> None:
    """Known places keep their card, the others take ``pool.pop()`` in turn, whatever the
    runs of known and unknown places (top, bottom, between)."""
    rng = random.Random(5)
    for _ in range(300):
        size = rng.randrange(0, 12)
        known = {i: 100 + i for i in range(size) if rng.random() < 0.3}
        pool = [rng.randrange(50) for _ in range(size - len(known) + rng.randrange(3))]
        rest = pool.copy()
        expected = tuple(known[i] if i in known else rest.pop() for i in range(size))
        places = _deck_places(size, known)
        assert (places is None) == (not known)
        if places is not None:
            assert _fill(places, pool.copy()) == expected


def reference_determinize(view: PlayerView, rng: random.Random) -> GameState:
    """The sampling written plainly, with ``rng.shuffle`` (what ``determinize`` must equal)."""
    s = GameState.__new__(GameState)
    copy_public(view, s)
    s.seed = rng.getrandbits(63)
    s.rng = rng.getrandbits(64)
    plots = list(view.unseen_plots())
    rng.shuffle(plots)
    if view.drawn_count and not view.drawn:
        s.drawn = tuple(plots[: view.drawn_count])
        del plots[: view.drawn_count]
    else:
        s.drawn = view.drawn
    known = dict(view.known_plots)
    s.plot_deck = tuple(
        known[i] if i in known else plots.pop() for i in range(view.plot_deck_size)
    ) if known else tuple(plots)
    hands = [list(cats) for cats in view.hand_categories]
    hands[view.seat] = list(view.hand)
    decks = []
    for category in range(3):
        pool = list(view.unseen_cards(category))
        rng.shuffle(pool)
        for other, cats in enumerate(view.hand_categories):
            if other != view.seat:
                for j, cat in enumerate(cats):
                    if cat == category:
                        hands[other][j] = pool.pop()
        where = dict(view.known_objectives[category])
        decks.append(tuple(
            where[i] if i in where else pool.pop()
            for i in range(view.objective_deck_sizes[category])
        ) if where else tuple(pool))
    s.hands = [tuple(h) for h in hands]
    s.objective_decks = tuple(decks)
    return s


SAMPLED = ("seed", "rng", "drawn", "plot_deck", "hands", "objective_decks")


@pytest.mark.parametrize("players", [2, 3, 4])
def test_determinize_samples_as_the_plain_algorithm(players: int) -> None:
    """Through a whole random game (plots returned under the deck, cards drawn and
    completed), every seat's samples equal the plain algorithm's, draw for draw."""
    state = new_game(players, 40 + players, history=False)
    play = random.Random(players)
    checked = 0
    while not state.ended:
        for seat in range(players):
            view = PlayerView.of(state, seat)
            a, b = random.Random(checked), random.Random(checked)
            for _ in range(3):
                fast, plain = view.determinize(a), reference_determinize(view, b)
                for name in SAMPLED:
                    assert getattr(fast, name) == getattr(plain, name), name
                assert fast.tiles == plain.tiles and fast.bamboo == plain.bamboo
            assert a.random() == b.random()
            checked += 1
        legal = state.legal_actions()
        action = legal[0] if legal[0] & KIND_MASK == COMPLETE else play.choice(legal)
        state.apply(action)
    assert checked > 50
