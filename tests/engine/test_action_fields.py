"""The named fields of an action (``kind_of``, ``cell_of``, ``arg_of``, ``is_swap``...) say
what its notation says, over every legal action of thousands of random-game positions."""

from __future__ import annotations

import random

from arena.engine import RuleOptions, action_text, new_game, parse_action
from arena.engine import actions as act
from arena.engine.actions import (
    Kind,
    arg_of,
    card_of,
    category_of,
    cell_of,
    edge_of,
    face_of,
    improvement_of,
    is_swap,
    kind_of,
    plot_of,
)
from arena.engine.components import CARDS, CATEGORIES, DEFAULT_CARD_SET, FACES, IMPROVEMENTS
from arena.engine.grid import cell_text, edge_text

#: Options that open every kind of action (clouds kept or moved, redraws).
OPTIONS = (RuleOptions(), RuleOptions(cloud_when_empty="move_improvement", cloud_keep=False),
           RuleOptions(redraw_satisfied="all"))


def text_of_fields(action: int) -> str:
    """The notation of an action written from its named fields alone."""
    kind = Kind(kind_of(action))
    cell = cell_text(cell_of(action))
    simple = {Kind.END: "end", Kind.PLOT: "plot", Kind.IRRIGATE_KEEP: "irrigation keep",
              Kind.SKIP: "skip"}
    if kind in simple:
        assert cell_of(action) == arg_of(action) == 0
        return simple[kind]
    if kind == Kind.PLACE:
        improvement = improvement_of(action)
        return (f"place {plot_of(action)} {cell}"
                + (f" +{IMPROVEMENTS[improvement]}" if improvement else "")
                + (" swap" if is_swap(action) else ""))
    if kind in (Kind.IRRIGATE, Kind.CHANNEL):
        verb = "irrigation" if kind == Kind.IRRIGATE else "channel"
        return f"{verb} {edge_text(edge_of(action))}"
    if kind in (Kind.GARDENER, Kind.PANDA, Kind.RAIN, Kind.STORM):
        return f"{kind.name.lower()} {cell}"
    if kind in (Kind.OBJECTIVE, Kind.REDRAW):
        return f"{kind.name.lower()} {CATEGORIES[category_of(action)]}"
    if kind == Kind.IMPROVE:
        return f"improve {IMPROVEMENTS[improvement_of(action)]} {cell}"
    if kind == Kind.COMPLETE:
        return f"complete {CARDS[card_of(action)].id}"
    if kind == Kind.WEATHER:
        return f"weather {FACES[face_of(action)]}"
    if kind == Kind.CLOUDS:
        return f"clouds {IMPROVEMENTS[improvement_of(action)]} {cell}"
    if kind == Kind.CLOUDS_KEEP:
        return f"clouds {IMPROVEMENTS[improvement_of(action)]} keep"
    assert kind == Kind.CLOUDS_MOVE
    return f"clouds move {cell} {cell_text(arg_of(action))}"


def test_the_kinds_are_the_modules_constants() -> None:
    """``Kind.PANDA == PANDA`` for every kind, and the constants stay plain ints."""
    assert [k.value for k in Kind] == list(range(19))
    for kind in Kind:
        constant = getattr(act, kind.name)
        assert constant == kind and type(constant) is int
    assert type(parse_action("end", DEFAULT_CARD_SET)) is int


def test_the_fields_of_every_legal_action_of_random_games_agree_with_its_notation() -> None:
    rng = random.Random(2024)
    positions, seen = 0, set()
    game = 0
    while positions < 4000:
        players = 2 + game % 3
        state = new_game(players, seed=game, options=OPTIONS[game % len(OPTIONS)])
        game += 1
        while not state.ended:
            legal = state.legal_actions()
            positions += 1
            for action in legal:
                text = action_text(action, DEFAULT_CARD_SET)
                assert text_of_fields(action) == text
                assert parse_action(text, DEFAULT_CARD_SET) == action
                assert act.make(kind_of(action), cell_of(action), arg_of(action)) == action
                seen.add(kind_of(action))
            state.apply(legal[rng.randrange(len(legal))])
    assert seen == set(Kind)


def test_only_a_place_is_a_swap() -> None:
    """A card index with the bit where a placement keeps its flag is no swap."""
    assert any(card & 16 for card in range(len(CARDS)))
    for card in range(len(CARDS)):
        assert not is_swap(act.make(act.COMPLETE, 0, card))
    assert is_swap(parse_action("place 1 1,0 swap", DEFAULT_CARD_SET))
    assert is_swap(parse_action("place 2 1,0 +fertilizer swap", DEFAULT_CARD_SET))
    assert not is_swap(parse_action("place 2 1,0 +fertilizer", DEFAULT_CARD_SET))
