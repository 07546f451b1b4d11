"""The ``mcts`` bot's fast paths equal the plain computations they replace.

Why: the search's hot loop reads the fitted leaf through a written-out ``__call__`` and
skips work whose result is known (the root's candidates, the UCB values of a node that will
add a child anyway).  The decision digests hold the whole bot; these tests name the part
that broke, on positions the digests may not reach (3 and 4 players, late games).

The tests that read the tree are of the Python search (the reference): their bots decide in
Python (``python_search``) on either engine; ``tests/bots/test_native_bots.py`` holds the
Rust port to it decision by decision.
"""

from __future__ import annotations

import random

import pytest

from arena.engine import GameState, PlayerView, new_game
from arena.engine.actions import COMPLETE, KIND_MASK
from bots.mcts import MctsBot
from bots.mcts_leaves import FITTED_WEIGHTS, FittedLeaf, lead_chance, make_leaf


def sampled_states(players: int, seed: int) -> list[GameState]:
    """Samples of a seat's view along a random game: leaves as the search meets them."""
    state = new_game(players, seed, history=False)
    rng = random.Random(seed)
    out = []
    while not state.ended:
        out.append(PlayerView.of(state, state.current).determinize(rng))
        legal = state.legal_actions()
        state.apply(legal[0] if legal[0] & KIND_MASK == COMPLETE else rng.choice(legal))
    out.append(state)
    return out


def plain_fitted(leaf: FittedLeaf, s: GameState) -> list[float]:
    """The fitted leaf through ``features`` and ``chance``, term by term."""
    own, public_rival, public_q = leaf.own_and_rival(s)
    n = s.players
    out = []
    for p in range(n):
        if p == leaf.seat:
            rival, q = public_rival, public_q
        else:
            rival, q = max((own[k], k) for k in range(n) if k != p)
        out.append(leaf.chance(s, p, own[p], q, rival))
    return out


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_fitted_leaf_is_its_features_weighed(players: int) -> None:
    states = sampled_states(players, 60 + players)
    leaf = FittedLeaf(8.0)
    for s in states[::3]:
        view = PlayerView.of(s, s.current) if not s.ended else PlayerView.of(s, 0)
        leaf.prepare(view)
        assert leaf(s) == plain_fitted(leaf, s)  # equal, not close: the same sums


def test_the_fitted_chance_is_the_logistic_of_the_weighed_features() -> None:
    """``chance`` itself, against the weights read by hand (the reference above uses it)."""
    s = sampled_states(2, 5)[40]
    leaf = FittedLeaf(8.0)
    leaf.prepare(PlayerView.of(s, 0))
    own, rival, q = leaf.own_and_rival(s)
    x = leaf.features(s, 0, own[0], q, rival)
    w = FITTED_WEIGHTS[2]
    z = w[0] + sum(wi * xi for wi, xi in zip(w[1:], x))
    assert leaf.chance(s, 0, own[0], q, rival) == pytest.approx(lead_chance(z, 1.0))


def python_search(bot: MctsBot) -> MctsBot:
    """The bot deciding through its Python search (whose tree these tests read): the class
    made directly is the reference, with no dispatching in it."""
    assert type(bot) is MctsBot
    return bot


def _tree(node: object) -> tuple:
    """A tree's statistics, children in key order."""
    return (node.visits, node.avail, tuple(node.totals),  # type: ignore[attr-defined]
            tuple((a, _tree(c)) for a, c in sorted(node.children.items())))  # type: ignore[attr-defined]


@pytest.mark.parametrize("players", [2, 4])
def test_a_second_decision_is_a_fresh_bots(players: int) -> None:
    """What one decision works out once (the root's candidates) does not leak into the
    next: after a decision elsewhere, the bot grows the tree a fresh bot with the same
    generator state grows."""
    first = sampled_states(players, 3)[12]
    second = sampled_states(players, 4)[30]
    assert first.round != second.round
    bot = python_search(MctsBot(random.Random(9), iterations=120))
    bot.start(first.current, players, first.options)
    bot.choose(PlayerView.of(first, first.current), list(first.legal_actions()))
    fresh = python_search(MctsBot(random.Random(), iterations=120))
    fresh.rng.setstate(bot.rng.getstate())
    trees = []
    for b in (bot, fresh):
        b.start(second.current, players, second.options)
        trees.append((b.choose(PlayerView.of(second, second.current), list(second.legal_actions())),
                      _tree(b._kept) if b._kept is not None else None))
    assert trees[0] == trees[1]


@pytest.mark.parametrize(("players", "eval_name"), [(2, "fitted"), (3, "deny"), (4, "deny")])
def test_the_searching_seats_value_alone_is_the_leafs(players: int, eval_name: str) -> None:
    """``mine``: the leaf's value for the searching seat, computed without the others'."""
    leaf = make_leaf(eval_name, 8.0)
    for s in sampled_states(players, 70 + players)[::4]:
        if s.ended:
            continue
        for seat in range(players):
            leaf.prepare(PlayerView.of(s, seat))
            alone = leaf.mine(s)
            assert alone[seat] == leaf(s)[seat]
            assert [x for p, x in enumerate(alone) if p != seat] == [0.0] * (players - 1)


def _seen_tree(node: object, seat: int) -> tuple:
    """What a search reads of a tree: visits, availability and the searching seat's totals
    everywhere (another seat's totals are read where it moves; see the test below)."""
    return (node.visits, node.avail, node.totals[seat],  # type: ignore[attr-defined]
            tuple((a, _seen_tree(c, seat))
                  for a, c in sorted(node.children.items())))  # type: ignore[attr-defined]


@pytest.mark.parametrize(("players", "seed", "at"), [(2, 5, 20), (2, 6, 45), (4, 7, 30)])
def test_leaving_out_the_other_seats_values_changes_no_choice(
    players: int, seed: int, at: int
) -> None:
    """Iterations that add a child where the searching seat moves in every sample score the
    leaf for that seat alone.  Were another seat's value read anywhere it was left out, the
    UCB choices, and so the visits, would differ from a search that scores every seat."""
    state = next(
        s for s in sampled_states(players, seed)[at:]
        if s.step_name == "actions" and s.legal_actions()[0] & KIND_MASK != COMPLETE
        and len(s.legal_actions()) > 3
    )
    legal = list(state.legal_actions())
    trees = []
    for alone in (True, False):
        bot = python_search(MctsBot(random.Random(3), iterations=300, reuse=True))
        bot.start(state.current, players, state.options)
        if not alone:
            bot.search.mine = None
        root = []
        original = bot._root
        bot._root = lambda view, keep=root, f=original: keep.append(f(view)) or keep[-1]  # type: ignore[method-assign]
        choice = bot.choose(PlayerView.of(state, state.current), legal)
        trees.append((choice, _seen_tree(root[0], state.current)))
    assert bot.last_iterations == 300
    assert trees[0] == trees[1]
