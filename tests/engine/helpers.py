"""Shared helpers of the engine tests: scripted positions, action shortcuts, invariants.

Positions are written in the format of docs/notation.md and read with ``from_position``;
the helpers only fill in the boring parts (empty hands, the turn, the round) so that each test
shows the few facts it is about.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from arena.engine import (
    GameState,
    RuleOptions,
    action_text,
    from_position,
    grid,
    new_game,
    parse_action,
    to_position,
)
from arena.engine import components as comp
from arena.engine.components import DEFAULT_CARD_SET as PRINTED

Json = dict[str, Any]

#: Every card id of the game, by category, in the file's order.
PLOT_CARDS: list[str] = [c.id for c in comp.CARDS if c.category == comp.PLOT_CARD]
GARDENER_CARDS: list[str] = [c.id for c in comp.CARDS if c.category == comp.GARDENER_CARD]
PANDA_CARDS: list[str] = [c.id for c in comp.CARDS if c.category == comp.PANDA_CARD]


# --------------------------------------------------------------------------- positions


def tile(
    at: str,
    kind: str,
    bamboo: int = 0,
    improvement: str | None = None,
    irrigated: bool | None = None,
) -> Json:
    """A ``tiles[]`` entry; a printed improvement (``green/watershed``) is filled in."""
    if improvement is None and "/" in kind:
        improvement = kind.split("/")[1]
    entry: Json = {"at": at, "tile": kind, "bamboo": bamboo, "improvement": improvement}
    if irrigated is not None:
        entry["irrigated"] = irrigated
    return entry


def hand(
    objectives: Sequence[str] = (),
    completed: Sequence[str] = (),
    eaten: tuple[int, int, int] = (0, 0, 0),
    channels: int = 0,
    improvements: Sequence[str] = (),
) -> Json:
    """A ``hands[]`` entry; ``eaten`` is (green, yellow, pink)."""
    return {
        "objectives": list(objectives),
        "completed": list(completed),
        "eaten": dict(zip(comp.COLOURS, eaten)),
        "channels": channels,
        "improvements": list(improvements),
    }


def make_position(
    *,
    tiles: Iterable[Json] = (),
    channels: Iterable[str] = (),
    players: int = 2,
    current: int = 0,
    round: int = 2,
    step: str = "actions",
    weather: str | None = None,
    actions: Sequence[str] = (),
    drawn: Sequence[str] = (),
    dice: Sequence[str] = (),
    gardener: str = "0,0",
    panda: str = "0,0",
    hands: Sequence[Json] | None = None,
    options: Json | None = None,
    decks: Json | None = None,
    reserve: Json | None = None,
    emperor: int | None = None,
    last_turns: int | None = None,
    seed: int = 0,
) -> Json:
    """A position dict (docs/notation.md); by default round 2, seat 0 at the action step.

    Decks left out are filled from ``seed`` with every component found nowhere else, and the
    reserve is derived from what is on the board and in the stocks.
    """
    position: Json = {
        "format": "takenoko-position/1",
        "options": dict(options or {}),
        "players": players,
        "seed": seed,
        "round": round,
        "current": current,
        "turn": {"step": step, "weather": weather, "actions": list(actions), "drawn": list(drawn)},
        "dice": list(dice),
        "tiles": list(tiles),
        "channels": list(channels),
        "gardener": gardener,
        "panda": panda,
        "hands": list(hands) if hands is not None else [hand() for _ in range(players)],
        "emperor": emperor,
        "last_turns": last_turns,
    }
    if reserve is not None:
        position["reserve"] = reserve
    if decks is not None:
        position["decks"] = decks
    return position


def objective_decks(
    top: dict[str, Sequence[str]] | None = None, elsewhere: Iterable[str] = ()
) -> Json:
    """The three objective decks with the given cards on top (in order), then every other
    card of the category not in ``elsewhere`` (hands, completed), in the file's order."""
    top = top or {}
    used = set(elsewhere)
    decks: Json = {}
    for name, ids in (("plot", PLOT_CARDS), ("gardener", GARDENER_CARDS), ("panda", PANDA_CARDS)):
        first = list(top.get(name, ()))
        decks[name] = first + [c for c in ids if c not in used and c not in first]
    return decks


def plot_deck(
    top: Sequence[str], board: Iterable[Json] = (), drawn: Sequence[str] = ()
) -> list[str]:
    """The plot deck with ``top`` first, then every plot found nowhere else (file order)."""
    rest = Counter(comp.tile_name(code) for code in comp.ALL_PLOTS)
    rest.subtract(t["tile"] for t in board)
    rest.subtract(drawn)
    rest.subtract(top)
    assert all(v >= 0 for v in rest.values()), f"more plots than the game has: {rest}"
    return list(top) + sorted(rest.elements(), key=list(rest).index)


def spiral(count: int) -> list[str]:
    """The first ``count`` cells around the pond, ring by ring (``q,r`` texts)."""
    cells = sorted(
        (c for c in grid.CELLS if 0 < grid.distance(c, grid.POND) <= 4),
        key=lambda c: (grid.distance(c, grid.POND), c),
    )
    return [grid.cell_text(c) for c in cells[:count]]


def all_plots_on_board() -> list[Json]:
    """The game's 27 plots laid ring by ring around the pond, with no bamboo."""
    names = [comp.tile_name(code) for code in comp.ALL_PLOTS]
    return [tile(at, name) for at, name in zip(spiral(27), names)]


def load(**kwargs: Any) -> GameState:
    """``from_position(make_position(**kwargs))``."""
    return from_position(make_position(**kwargs))


def opts(**kwargs: Any) -> RuleOptions:
    """Rule options differing from the defaults."""
    return RuleOptions(**kwargs)


# --------------------------------------------------------------------------- playing


def legal(state: GameState) -> list[str]:
    """The legal actions of a state, as notation."""
    return [action_text(a, PRINTED) for a in state.legal_actions()]


def play(state: GameState, *texts: str) -> GameState:
    """Play actions given as notation, each checked for legality; returns the state."""
    for text in texts:
        state.play(parse_action(text, PRINTED))
    return state


def finish_turn(state: GameState) -> GameState:
    """Decline the weather (``skip``, or ``weather sun`` when a face must be chosen) and end
    the turn of the current seat."""
    start = (state.round, state.current)
    while not state.ended and (state.round, state.current) == start:
        step = state.step_name
        if step in ("rain", "storm", "clouds"):
            play(state, "skip")
        elif step == "choose_weather":
            play(state, "weather sun")
        elif step in ("place", "redraw"):
            state.play(next(a for a in state.legal_actions()
                            if action_text(a, PRINTED).startswith(step)))
        else:
            play(state, "end")
    return state


def height(state: GameState, at: str) -> int:
    """Bamboo on the plot at ``q,r``."""
    return state.bamboo[grid.parse_cell(at)]


def heights(state: GameState, *cells: str) -> dict[str, int]:
    """Bamboo on several plots, keyed by ``q,r``."""
    return {c: height(state, c) for c in cells}


def irrigated(state: GameState, at: str) -> bool:
    """Whether the plot at ``q,r`` is irrigated."""
    return grid.parse_cell(at) in state.irrigated


def eaten(state: GameState, seat: int) -> tuple[int, int, int]:
    """A seat's eaten sections (green, yellow, pink)."""
    return tuple(state.eaten[seat])  # type: ignore[return-value]


def card(card_id: str) -> int:
    """Card index of an id."""
    return comp.parse_card(card_id)


def hand_ids(state: GameState, seat: int) -> list[str]:
    """The ids of the objectives in a seat's hand."""
    return [state.card_set.card(c).id for c in state.hands[seat]]


def completed_ids(state: GameState, seat: int) -> list[str]:
    """The ids of the objectives a seat completed."""
    return [state.card_set.card(c).id for c in state.completed[seat]]


def assert_legal(state: GameState, *texts: str) -> None:
    """Each action is in the legal list."""
    actions = legal(state)
    for text in texts:
        assert text in actions, f"{text!r} should be legal; legal: {actions}"


def assert_illegal(state: GameState, *texts: str) -> None:
    """No action is in the legal list."""
    actions = legal(state)
    for text in texts:
        assert text not in actions, f"{text!r} should not be legal; legal: {actions}"


def kinds(state: GameState) -> set[str]:
    """The first words of the legal actions (``gardener``, ``objective``, ...)."""
    return {text.split(" ")[0] for text in legal(state)}


# --------------------------------------------------------------------------- invariants


def board_plots(state: GameState) -> list[int]:
    """Tile codes of the plots in play (the pond excluded)."""
    return [code for cell, code in state.tiles.items() if cell != grid.POND]


def check_components(state: GameState) -> None:
    """Every component of the game is somewhere, exactly once (R1.2-R1.6)."""
    plots = Counter(board_plots(state)) + Counter(state.plot_deck) + Counter(state.drawn)
    assert plots == Counter(comp.ALL_PLOTS), f"plots do not add up to 27: {plots}"
    channels = state.reserve_channels + len(state.channels) + sum(state.stored_channels)
    assert channels == comp.CHANNELS, (
        f"channels: {state.reserve_channels} reserve + {len(state.channels)} board + "
        f"{sum(state.stored_channels)} stocks != {comp.CHANNELS}"
    )
    assert state.reserve_channels >= 0 and min(state.stored_channels) >= 0
    for imp in (1, 2, 3):
        on_board = sum(
            1 for c, i in state.improvement.items() if i == imp and not state.tiles[c] & 3
        )
        stocks = sum(stock[imp] for stock in state.stored_improvements)
        total = state.reserve_improvements[imp] + stocks + on_board
        assert total == comp.IMPROVEMENT_TOKENS[imp], (
            f"{comp.IMPROVEMENTS[imp]} tokens: {state.reserve_improvements[imp]} reserve + "
            f"{stocks} stocks + {on_board} board != {comp.IMPROVEMENT_TOKENS[imp]}"
        )
        assert state.reserve_improvements[imp] >= 0
    # Printed improvements are permanent and never counted as tokens.
    for c, code in state.tiles.items():
        if c != grid.POND and code & 3:
            assert state.improvement.get(c) == code & 3, f"printed improvement lost at {c}"
    cards = [c for deck in state.objective_decks for c in deck]
    cards += [c for h in state.hands for c in h] + [c for h in state.completed for c in h]
    played = state.card_set  # the game's cards: the printed ones and those its set adds
    assert sorted(cards) == sorted(set(range(len(played))) - played.removed), (
        "objective cards do not add up")
    for k, deck in enumerate(state.objective_decks):
        assert all(played.category(c) == k for c in deck), "a card in the wrong deck"
    assert len(state.plot_known) == len(state.plot_deck)


def check_board(state: GameState) -> None:
    """Bamboo within 0-4, irrigation as R6.4 derives it, the network joined to the pond."""
    assert grid.POND not in state.bamboo and grid.POND not in state.improvement
    for cell, h in state.bamboo.items():
        assert 0 <= h <= 4, f"bamboo {h} at {grid.cell_text(cell)}"
        if h:
            assert cell in state.irrigated, f"bamboo on a dry plot {grid.cell_text(cell)}"
    # Every channel joined to a pond corner through channels (R6.3), never on the pond.
    network, remaining = grid.channel_network(state.channels)
    assert not remaining, f"channels cut off from the pond: {remaining}"
    assert state.network == network
    for e in state.channels:
        a, b = grid.EDGE_CELLS[e]
        assert grid.POND not in (a, b), "a channel on a pond edge"
        assert a in state.bamboo and b in state.bamboo, "a channel beside an empty space"
    # Irrigation: at least what the pond, channels and watersheds give; once irrigated,
    # always irrigated (a moved watershed may leave more).
    must = {c for c in state.bamboo if c in grid.POND_RING}
    must |= {c for c, i in state.improvement.items() if i == comp.WATERSHED}
    for e in state.channels:
        must.update(grid.EDGE_CELLS[e])
    assert must <= state.irrigated, "a plot that should be irrigated is not"
    if state.options.cloud_when_empty != "move_improvement":
        assert must == state.irrigated, "a plot is irrigated by nothing"
    bits = [0, 0, 0]
    for c in state.irrigated:
        bits[state.tiles[c] >> 2] |= 1 << c
    assert tuple(bits) == state.irrigated_by_colour
    assert all(len(h) <= 5 for h in state.hands), "a hand above 5 (R10.2)"
    assert state.gardener in state.tiles and state.panda in state.tiles


def check_state(state: GameState) -> None:
    """All invariants of a state."""
    check_components(state)
    check_board(state)
    actions = state.legal_actions()
    assert len(set(actions)) == len(actions), f"duplicates in {legal(state)}"
    assert bool(actions) != state.ended


# --------------------------------------------------------------------------- random games

Chooser = Callable[[GameState, random.Random], int]


def random_choice(state: GameState, rng: random.Random) -> int:
    """A uniformly random legal action."""
    return rng.choice(state.legal_actions())


def play_random_game(
    players: int,
    seed: int,
    options: RuleOptions | None = None,
    *,
    choice_seed: int | None = None,
    on_step: Callable[[GameState], None] | None = None,
    history: bool = True,
) -> tuple[GameState, list[int]]:
    """Play a game with random legal choices; returns the final state and the choices."""
    rng = random.Random(seed if choice_seed is None else choice_seed)
    state = new_game(players, seed=seed, options=options, history=history)
    chosen: list[int] = []
    while not state.ended:
        if on_step is not None:
            on_step(state)
        action = rng.choice(state.legal_actions())
        chosen.append(action)
        state.apply(action)
    if on_step is not None:
        on_step(state)
    return state, chosen


def replay_choices(
    players: int, seed: int, options: RuleOptions | None, actions: Iterable[int]
) -> GameState:
    """A game replayed from its seed and the choices made."""
    state = new_game(players, seed=seed, options=options)
    for action in actions:
        state.play(action)
    return state


def position_text(state: GameState) -> Json:
    """``to_position`` (a name that reads well in asserts)."""
    return to_position(state)
