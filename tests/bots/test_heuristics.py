"""The shared evaluation (``bots.heuristics``): costs, monotonicity, honesty, caching."""

from __future__ import annotations

import random

import pytest

from arena.engine import (
    GameState,
    PlayerView,
    from_position,
    grid,
    new_game,
    parse_action,
    to_position,
)
from arena.engine.actions import COMPLETE, KIND_MASK
from arena.engine.components import DEFAULT_CARD_SET, parse_card
from bots import heuristics
from bots.heuristics import (
    DECAY,
    SCORE_WEIGHT,
    UNKNOWN_CARD_VALUE,
    UNREACHABLE,
    Weights,
    card_cost,
    card_costs,
    draw_value,
    evaluate,
    evaluate_all,
)

from .positions import ONE_GROWTH_TO_GO, position


def test_a_satisfied_card_costs_nothing_and_completing_it_gains() -> None:
    state = position(
        [{"objectives": ["gardener-04"]}, {"objectives": ["panda-01"]}],
        [{"at": "1,0", "tile": "green", "bamboo": 4}],
    )
    card = parse_card("gardener-04")
    assert card_cost(state, 0, card) == 0.0
    before = evaluate(state, 0)
    state.apply(parse_action("complete gardener-04", DEFAULT_CARD_SET))
    assert evaluate(state, 0) - before == (SCORE_WEIGHT - 1) * 5


def test_growth_towards_the_card_lowers_its_cost() -> None:
    state = position(**ONE_GROWTH_TO_GO)
    card = parse_card("gardener-04")
    assert card_cost(state, 0, card) == 1.0
    grown = state.copy()
    grown.apply(parse_action("gardener 1,0", DEFAULT_CARD_SET))
    assert card_cost(grown, 0, card) == 0.0
    assert evaluate(grown, 0) > evaluate(state, 0)
    eaten = state.copy()
    eaten.apply(parse_action("panda 1,0", DEFAULT_CARD_SET))
    assert card_cost(eaten, 0, card) == 2.0


def test_panda_cards_share_the_stock_nearest_first() -> None:
    state = position(
        [{"objectives": ["panda-13", "panda-01"], "eaten": {"green": 2}},
         {"objectives": ["panda-02"]}],
        [{"at": "1,0", "tile": "yellow", "bamboo": 1}, {"at": "1,-1", "tile": "pink", "bamboo": 1}],
    )
    costs = card_costs(state, 0)
    assert costs[parse_card("panda-01")] == 0.0  # both green sections go to the 2-green card
    assert costs[parse_card("panda-13")] > 2.0  # it still needs all three colours


def test_plot_card_cost_counts_missing_cells() -> None:
    tiles = [{"at": "1,0", "tile": "green", "bamboo": 1}, {"at": "1,-1", "tile": "green",
                                                              "bamboo": 1}]
    state = position([{"objectives": ["plot-07"]}, {"objectives": ["panda-01"]}], tiles)
    two = card_cost(state, 0, parse_card("plot-07"))  # a green triangle: one cell missing
    assert 0 < two <= 3
    done = position(
        [{"objectives": ["plot-07"]}, {"objectives": ["panda-01"]}],
        [*tiles, {"at": "2,-1", "tile": "green", "bamboo": 1}],
        channels=["1,-1|1,0", "1,-1|2,-1"],
    )
    assert card_cost(done, 0, parse_card("plot-07")) == 0.0
    dry = position(
        [{"objectives": ["plot-07"]}, {"objectives": ["panda-01"]}],
        [*tiles, {"at": "2,-1", "tile": "green", "bamboo": 0}],
    )
    assert 0 < card_cost(dry, 0, parse_card("plot-07")) < two  # only irrigation missing
    wrong = position(
        [{"objectives": ["plot-07"]}, {"objectives": ["panda-01"]}],
        [*tiles, {"at": "2,-1", "tile": "pink", "bamboo": 0}],
    )
    assert card_cost(wrong, 0, parse_card("plot-07")) > two  # that triangle is spoiled


def test_layout_cache_gives_the_same_costs_as_a_cold_start() -> None:
    state = new_game(2, 21)
    rng = random.Random(3)
    for _ in range(120):
        legal = state.legal_actions()
        done = [a for a in legal if a & KIND_MASK == COMPLETE]
        state.apply(done[0] if done else rng.choice(legal))
        if state.ended:
            break
        warm = evaluate_all(state)
        heuristics._clear_caches()
        assert evaluate_all(state) == warm


def test_a_view_is_evaluated_like_the_state_for_its_own_seat() -> None:
    state = new_game(3, 4)
    rng = random.Random(4)
    for _ in range(50):
        state.apply(rng.choice(state.legal_actions()))
    for seat in range(3):
        assert evaluate(PlayerView.of(state, seat), seat) == evaluate(state, seat)
    # Another seat's hand is unknown in a view: only its size counts.
    view = PlayerView.of(state, 0)
    other = evaluate(view, 1)
    assert other == evaluate(view, 1)
    hidden = state.with_hand(1, tuple(reversed(state.hands[1])))
    assert evaluate(PlayerView.of(hidden, 0), 1) == other
    assert other >= UNKNOWN_CARD_VALUE * len(state.hands[1])


def test_draw_value_is_an_average_over_unseen_cards() -> None:
    state = position(**ONE_GROWTH_TO_GO)
    view = PlayerView.of(state, 0)
    for category in range(3):
        value = draw_value(view, 0, category)
        assert 0 < value < 8


def test_race_counts_every_card_done_and_in_hand_beyond_its_points() -> None:
    state = position(**ONE_GROWTH_TO_GO)
    state.apply(parse_action("gardener 1,0", DEFAULT_CARD_SET))
    state.apply(parse_action("complete gardener-04", DEFAULT_CARD_SET))
    costs = card_costs(state, 0)
    assert len(state.completed[0]) == 1 and costs
    gain = evaluate(state, 0, Weights(race=3.0)) - evaluate(state, 0)
    in_hand = sum(3.0 * DECAY**cost for cost in costs.values() if cost < UNREACHABLE)
    assert gain == pytest.approx(SCORE_WEIGHT * 3.0 + in_hand)


def test_race_raises_a_draw_and_a_rival_hand_by_at_most_its_bonus_per_card() -> None:
    from arena.engine.components import GARDENER_CARD, PANDA_CARD

    state = position(**ONE_GROWTH_TO_GO)
    view = PlayerView.of(state, 0)
    for category in range(3):
        base = draw_value(view, 0, category)
        assert base < draw_value(view, 0, category, race=3.0) <= base + 3.0
    pools = ([], view.unseen_cards(GARDENER_CARD), view.unseen_cards(PANDA_CARD))
    base = heuristics.expected_hand_value(state, 1, pools)
    raced = heuristics.expected_hand_value(state, 1, pools, race=3.0)
    assert base < raced <= base + 3.0 * len(state.hands[1])


def test_expected_hand_value_reads_categories_only_and_drops_when_shoots_are_eaten() -> None:
    from arena.engine.components import GARDENER_CARD, PANDA_CARD

    tiles = [{"at": "1,0", "tile": "green", "bamboo": 4}, {"at": "1,-1", "tile": "pink",
                                                              "bamboo": 3}]
    state = position(
        [{"objectives": ["panda-01"]}, {"objectives": ["gardener-01", "gardener-10"]}], tiles
    )
    view = PlayerView.of(state, 0)
    pools = ([], view.unseen_cards(GARDENER_CARD), view.unseen_cards(PANDA_CARD))
    value = heuristics.expected_hand_value(state, 1, pools)
    assert value > 0
    # Other gardener cards in that hand: the same value (only the category is read).
    other = position(
        [{"objectives": ["panda-01"]}, {"objectives": ["gardener-02", "gardener-03"]}], tiles
    )
    assert heuristics.expected_hand_value(other, 1, pools) == value
    assert heuristics.expected_hand_value(PlayerView.of(other, 0), 1, pools) == value
    # Eating the tall green shoot makes the opponent's gardener cards further away.
    state.apply(parse_action("panda 1,0", DEFAULT_CARD_SET))
    assert heuristics.expected_hand_value(state, 1, pools) < value


def _plot_cost_by_walking(state: GameState, card: int) -> float:
    """The plot-card cost as first written (before the bit-set anchors and the caches): every
    anchor met by a plot of the pattern's colour, every cell walked in pattern order."""
    from arena.engine.components import POND_TILE
    from arena.engine.grid import POND_RING

    if state.plot_objective_found(card):
        return 0.0
    tiles, irrigated = state.tiles, state.irrigated
    spaces = set(state.placement_spaces())
    by_colour: list[list[int]] = [[], [], []]
    for cell, code in tiles.items():
        if code != POND_TILE:
            by_colour[code >> 2].append(cell)
    rotations = state.card_set.card(card).shifts
    best = sum(
        heuristics.PLOT_ACTION_COST[c] + heuristics.IRRIGATION_NEAR for _s, c in rotations[0]
    )
    for rotation in rotations:
        anchors = {cell - shift for shift, colour in rotation for cell in by_colour[colour]}
        for anchor in anchors:
            total = 0.0
            for shift, colour in rotation:
                cell = anchor + shift
                code = tiles.get(cell)
                if code is None:
                    more = 0.0 if cell in POND_RING else heuristics._irrigation_cost(state, cell)
                    if cell not in spaces:
                        more += heuristics.NOT_PLACEABLE_YET
                    total += heuristics.PLOT_ACTION_COST[colour] + more
                elif code == POND_TILE or code >> 2 != colour:
                    break
                elif cell not in irrigated:
                    total += heuristics._irrigation_cost(state, cell)
                if total >= best:
                    break
            else:
                best = total
    return best


def _played_states(players: int, seed: int, moves: int = 400) -> list[GameState]:
    """Every state of a random game that completes what it can (boards of every size)."""
    state = new_game(players, seed, history=False)
    rng = random.Random(seed)
    states = []
    for _ in range(moves):
        if state.ended:
            break
        legal = state.legal_actions()
        done = [a for a in legal if a & KIND_MASK == COMPLETE]
        state.apply(done[0] if done else rng.choice(legal))
        states.append(state.copy())
    return states


@pytest.mark.parametrize("seed", [5, 6])
def test_plot_costs_are_those_of_the_walk_over_every_anchor(seed: int) -> None:
    """Bit-set anchors and the layout caches give, bit for bit, the cost of the first walk."""
    plots = range(15)  # the plot cards
    for state in _played_states(2, seed)[::3]:
        for card in plots:
            assert card_cost(state, 0, card) == _plot_cost_by_walking(state, card)


def test_boards_with_the_same_layout_share_it_whatever_their_objects() -> None:
    """The layout cache finds a board by content: new objects with the same tiles, irrigation,
    channels and improvements (as a search makes them) give the same token and costs; an
    improvement elsewhere gives another layout that still shares the plot part."""
    # A late board with a bare plot (random play: which one depends on the rules' lists).
    state = next(s for s in reversed(_played_states(2, 16, 160)) if s.improvable_plots())
    data = to_position(state)
    twin = from_position(data)  # the same position read again: new objects
    assert twin.tiles is not state.tiles and twin.tiles == state.tiles
    assert heuristics.layout_token(twin) is heuristics.layout_token(state)
    assert evaluate_all(twin) == evaluate_all(state)
    bare = grid.cell_text(state.improvable_plots()[0])
    spare = next(name for name, n in data["reserve"]["improvements"].items()
                 if n and name != "watershed")  # a watershed would irrigate the plot too
    data["reserve"]["improvements"][spare] -= 1
    next(t for t in data["tiles"] if t["at"] == bare)["improvement"] = spare
    other = from_position(data)
    token = heuristics.layout_token(other)
    assert token is not heuristics.layout_token(state)
    assert token.plots is heuristics.layout_token(state).plots  # type: ignore[attr-defined]


def test_a_snapshot_answers_as_the_functions_do() -> None:
    """``Snapshot`` reads the board once for several questions; each answer is the one the
    module's function gives alone, and the functions give the same after the caches are
    emptied (a cold start)."""
    from arena.engine.components import GARDENER_CARD, PANDA_CARD

    for state in _played_states(3, 9)[::7]:
        view = PlayerView.of(state, 0)
        pools = ([], view.unseen_cards(GARDENER_CARD), view.unseen_cards(PANDA_CARD))
        snap = heuristics.Snapshot(state)
        answers = []
        for seat in range(3):
            value, costs = snap.evaluate(seat)
            answers.append((value, costs, snap.expected_hand_value(seat, pools)))
            assert value == evaluate(state, seat)
            assert costs == card_costs(state, seat)
            assert answers[-1][2] == heuristics.expected_hand_value(state, seat, pools)
            for card in state.hands[seat]:
                assert snap.card_cost(seat, card) == card_cost(state, seat, card)
        heuristics._clear_caches()
        cold = heuristics.Snapshot(state)
        for seat in range(3):
            value, costs = cold.evaluate(seat)
            assert (value, costs, cold.expected_hand_value(seat, pools)) == answers[seat]
