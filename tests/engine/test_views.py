"""R2.6: what a seat may see. Views hide exactly the hidden information, and nothing else."""

from __future__ import annotations

import random

import pytest

from arena.engine import PlayerView, from_position, grid, new_game
from arena.engine import components as comp
from tests.engine.helpers import (
    Json,
    check_components,
    hand,
    legal,
    make_position,
    objective_decks,
    play,
    plot_deck,
    tile,
)

BOARD = [
    tile("1,0", "green", 2),
    tile("1,-1", "green", 1),
    tile("2,-1", "green/watershed", 1),
    tile("0,-1", "pink", 1),
]
MINE = ["plot-07", "gardener-04", "panda-01"]
THEIRS = ["plot-01", "gardener-09", "panda-11", "plot-04"]
# The same categories, in the same order, other cards.
THEIRS_SWAPPED = ["plot-10", "gardener-02", "panda-06", "plot-12"]


def position(
    theirs: list[str],
    *,
    current: int = 1,
    seed: int = 3,
    shuffle: int = 0,
    rng: int | None = None,
    mine: list[str] = MINE,
    done: tuple[str, ...] = ("panda-02",),
    **kwargs,
) -> Json:
    """Seat 0 holds ``mine``, seat 1 ``theirs`` and has completed ``done``; decks in an
    order drawn from ``shuffle``."""
    elsewhere = [*mine, *theirs, *done]
    decks = objective_decks(elsewhere=elsewhere)
    order = random.Random(shuffle)
    for name in ("plot", "gardener", "panda"):
        order.shuffle(decks[name])
    plots = plot_deck([], BOARD)
    order.shuffle(plots)
    decks["plots"] = plots
    p = make_position(
        tiles=BOARD,
        current=current,
        weather="rain",
        seed=seed,
        hands=[hand(mine, eaten=(1, 0, 0)), hand(theirs, completed=done, channels=1)],
        decks=decks,
        **kwargs,
    )
    if rng is not None:
        p["rng"] = rng
    return p


def all_slots(view: PlayerView) -> dict[str, object]:
    """Every attribute a bot could reach on the view (its methods aside), on either engine."""
    values = {name: getattr(view, name, None) for name in dir(view) if not name.startswith("__")}
    return {name: value for name, value in values.items() if not callable(value)}


@pytest.mark.parametrize("current", [0, 1])
def test_R2_6_hidden_changes_leave_the_view_unchanged(current: int) -> None:
    """R2.6: another hand (same categories), deck orders, generator and seed are hidden."""
    a = from_position(position(THEIRS, current=current))
    b = from_position(position(THEIRS_SWAPPED, current=current, seed=99, shuffle=1, rng=123456789))
    assert a.hands[1] != b.hands[1] and a.plot_deck != b.plot_deck
    assert a.objective_decks != b.objective_decks and a.rng != b.rng and a.seed != b.seed
    # Both states have worked out their current seat's legal actions (and caches).
    a.legal_actions()
    b.legal_actions()
    va, vb = PlayerView.of(a, 0), PlayerView.of(b, 0)
    assert va.to_json() == vb.to_json()
    assert va == vb
    # No attribute of the view tells them apart either.
    assert all_slots(va) == all_slots(vb)
    # Seat 1, who holds the cards, sees the difference.
    assert PlayerView.of(a, 1).to_json() != PlayerView.of(b, 1).to_json()


def test_R2_6_no_hidden_card_id_in_a_view() -> None:
    """R2.6: the view of seat 0 names none of seat 1's objectives, only their categories."""
    s = from_position(position(THEIRS))
    text = PlayerView.of(s, 0).to_json()
    for card_id in THEIRS:
        assert card_id not in text
    assert PlayerView.of(s, 0).hand_categories[1] == (0, 1, 2, 0)
    assert PlayerView.of(s, 0).hand_size(1) == 4
    for card_id in MINE:
        assert card_id in text


@pytest.mark.parametrize(
    ("what", "changed"),
    [
        ("own hand", lambda: position(THEIRS, mine=["plot-08", "gardener-04", "panda-01"])),
        ("opponent hand size", lambda: position(THEIRS[:3])),
        ("opponent completed", lambda: position(THEIRS, done=("panda-03",))),
        ("opponent channels", lambda: edit(lambda p: p["hands"][1].update(channels=2))),
        ("opponent eaten", lambda: edit(lambda p: p["hands"][1]["eaten"].update(yellow=2))),
        ("bamboo", lambda: edit(lambda p: p["tiles"][0].update(bamboo=3))),
        ("gardener", lambda: edit(lambda p: p.update(gardener="1,0"))),
        ("panda", lambda: edit(lambda p: p.update(panda="1,-1"))),
        ("channels", lambda: edit(lambda p: p.update(channels=["1,-1|1,0"]))),
        ("weather", lambda: edit(lambda p: p["turn"].update(weather="wind"))),
    ],
)
def test_R2_6_visible_changes_change_the_view(what: str, changed) -> None:
    """R2.6: the board, one's own hand, the stocks and completed cards are seen."""
    a, b = from_position(position(THEIRS)), from_position(changed())
    assert PlayerView.of(a, 0).to_json() != PlayerView.of(b, 0).to_json(), what


def edit(fn) -> Json:
    p = position(THEIRS)
    fn(p)
    return p


def test_R2_6_drawn_plots_are_seen_only_by_the_drawer() -> None:
    """R2.6: during step ``place`` only the current seat sees the drawn plots."""
    s = new_game(2, seed=12)
    play(s, "plot")
    drawn = s.drawn
    assert len(drawn) == 3
    mine, theirs = PlayerView.of(s, 0), PlayerView.of(s, 1)
    assert mine.drawn == drawn and mine.drawn_count == 3
    assert theirs.drawn == () and theirs.drawn_count == 3
    assert theirs.to_json() != mine.to_json()
    assert all(comp.tile_name(t) not in theirs.to_json() for t in drawn)


def test_R2_6_drawn_plots_hidden_even_with_equal_deck_contents() -> None:
    """R2.6: two place steps that differ only in which plots were drawn (and so in the deck
    order) look the same to the other seat."""
    drawn_a = ["pink", "pink", "yellow"]
    drawn_b = ["green", "yellow/watershed", "green"]
    rest = plot_deck([], drawn=drawn_a)
    # The same deck for both, except the plots exchanged with the drawn ones.
    deck_b = list(rest)
    for x, y in zip(drawn_a, drawn_b):
        deck_b[deck_b.index(y)] = x
    common = dict(
        round=1,
        step="place",
        actions=["plot"],
        hands=[hand(["plot-01"]), hand(["plot-02"])],
        seed=1,
    )
    a = from_position(make_position(drawn=drawn_a, decks={"plots": rest}, **common))
    b = from_position(make_position(drawn=drawn_b, decks={"plots": deck_b}, **common))
    check_components(a)
    check_components(b)
    assert PlayerView.of(a, 1).to_json() == PlayerView.of(b, 1).to_json()
    assert PlayerView.of(a, 0).to_json() != PlayerView.of(b, 0).to_json()


def test_R2_6_returned_plots_are_known_only_to_their_owner() -> None:
    """R2.6: plots put back under the deck are known, with their place, to that seat only."""
    s = new_game(2, seed=4)
    play(s, "plot")
    returned = [t for i, t in enumerate(s.drawn) if i != 0]
    s.play(s.legal_actions()[legal(s).index("place 0 1,0")])
    size = len(s.plot_deck)
    assert PlayerView.of(s, 0).known_plots == ((size - 2, returned[0]), (size - 1, returned[1]))
    assert PlayerView.of(s, 1).known_plots == ()
    # Seat 1 samples them among the unseen; seat 0 keeps them where they are.
    for k in range(10):
        d0 = PlayerView.of(s, 0).determinize(random.Random(k))
        assert d0.plot_deck[-2:] == tuple(returned)
        check_components(PlayerView.of(s, 1).determinize(random.Random(k)))


def test_R2_6_the_view_holds_no_reference_to_the_state() -> None:
    """R2.6: a view is a snapshot; later play does not change it, and it holds no state."""
    s = new_game(2, seed=6)
    view = PlayerView.of(s, 1)
    before = view.to_json()
    play(s, "plot")
    s.play(s.legal_actions()[0])
    assert view.to_json() == before
    assert all(not isinstance(v, type(s)) for v in all_slots(view).values())


def test_R2_6_completed_cards_and_stocks_are_public() -> None:
    """R2.6: completed objectives and stocks of every seat appear in every view."""
    s = from_position(position(THEIRS))
    v = PlayerView.of(s, 0)
    assert [comp.CARDS[c].id for c in v.completed[1]] == ["panda-02"]
    assert v.stored_channels == [0, 1] and list(v.eaten[0]) == [1, 0, 0]
    assert v.gardener == grid.POND


def test_a_view_scores_as_its_state_does_seat_by_seat() -> None:
    """R13.3: points are public, so a view's scores are the state's; ``score(seat)`` (a
    bot's hot path) is the same sum for one seat."""
    rng = random.Random(5)
    checked = 0
    for seed in range(6):
        state = new_game(2 + seed % 3, seed)
        while not state.ended:
            state.apply(rng.choice(state.legal_actions()))
            if state.round % 5 == 0:
                scores = state.scores()
                view = PlayerView.of(state, state.current)
                assert view.scores() == scores
                assert [state.score(s) for s in range(state.players)] == scores
                assert [view.score(s) for s in range(state.players)] == scores
                checked += any(scores)
    assert checked > 0
