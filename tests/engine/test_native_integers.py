"""Big and negative integers on both engines: the same refusal, in one sentence.

The native engine holds its numbers in fixed widths (counts in 32 bits, seeds in 128, an
action in 32), Python's ints have none.  Every int of a position (seed, rng, round, seats,
counts, points, rule options...) and every int argument of the engine API (an action, a
seat, a card index, a step) given too large or negative must be refused by both engines
with the same exception and the same sentence naming the field, never a traceback, an
``OverflowError`` or a panic of the core; and where both take it, both must make the same
game of it.  The values cross the binding as values and are quoted by Python
(``errors.core_refusal``), so an int beyond 128 bits reads as given.
"""

from __future__ import annotations

import copy
import json
import random
import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from arena.engine import native
from arena.engine import position as ref_position
from arena.engine import state as ref_state
from arena.engine import view as ref_view
from arena.engine.components import CARDS, CardSet
from arena.engine.errors import ArenaError, OptionError, PositionError
from arena.engine.options import RuleOptions

pytestmark = pytest.mark.skipif(not native.available(), reason="the native engine is not built")

#: Beyond 32 bits, 64 bits, 128 bits, and negative ones (within and beyond 64 bits).
BIG = [2**32, 2**64, 10**30, 2**128, 1 << 200, -1, -(2**63) - 1, -(10**40)]


def _played(players: int, seed: int, moves: int, options: RuleOptions | None = None,
            cards: CardSet | None = None, stop: Callable[[Any], bool] | None = None) -> Any:
    game = ref_state.new_game(players, seed, options, dice=[1, 2], cards=cards)
    rng = random.Random(seed)
    for _ in range(moves):
        if game.is_terminal() or (stop is not None and stop(game)):
            break
        game.apply(rng.choice(game.legal_actions()))
    return game


def _redraw_position() -> Any:
    """A game at step redraw (``turn.put_back`` is written only there)."""
    options = RuleOptions.from_dict({"redraw_satisfied": "all"})
    for seed in range(200):
        game = _played(2, seed, 400, options, stop=lambda g: g.step_name == "redraw")
        if game.step_name == "redraw":
            return game
    raise AssertionError("no game reached step redraw")


def positions() -> list[dict[str, Any]]:
    """Valid positions that hold every int field of the format between them: options that
    differ from the defaults, a card set with points and added cards, an Emperor taken, a
    redraw step."""
    from tests.engine.test_added_cards import ADD

    options = RuleOptions.from_dict({"emperor_points": 3, "max_rounds": 50,
                                     "objectives_to_end": {"2": 4, "3": 3, "4": 3}})
    cards = CardSet.from_changes({CARDS[0].id: 3}, [CARDS[1].id], add=ADD)
    games = [_played(2, 7, 0, options), _played(3, 8, 40, options, cards),
             _played(2, 9, 300, options), _redraw_position()]
    assert any(g.emperor >= 0 for g in games)
    return [json.loads(json.dumps(ref_position.to_position(g))) for g in games]


def int_paths(node: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """The path of every int (not bool) in a JSON value."""
    if isinstance(node, int) and not isinstance(node, bool):
        yield path
    elif isinstance(node, dict):
        for key, value in node.items():
            yield from int_paths(value, (*path, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from int_paths(value, (*path, i))


def field_name(path: tuple[Any, ...]) -> str:
    """``('hands', 0, 'eaten', 'green')`` as the refusals write it: ``hands[0].eaten.green``."""
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path).lstrip(".")


def outcome(read: Callable[[Any], Any], data: Any) -> tuple[str, str]:
    """What an engine makes of a position: its refusal, or the position it writes back."""
    try:
        state = read(data)
    except (ArenaError, ValueError) as exc:
        return type(exc).__name__, str(exc)
    write = ref_position.to_position if isinstance(state, ref_state.GameState) else (
        native.to_position)
    return "ok", json.dumps(write(state), sort_keys=True)


@pytest.fixture(scope="module")
def valid_positions() -> list[dict[str, Any]]:
    return positions()


def test_the_positions_hold_every_int_field(valid_positions: list[dict[str, Any]]) -> None:
    fields = {re.sub(r"\[\d+\]", "[]", field_name(p))
              for data in valid_positions for p in int_paths(data)}
    for name in ("players", "seed", "rng", "round", "current", "tiles[].bamboo",
                 "reserve.channels", "reserve.improvements.watershed", "hands[].channels",
                 "hands[].eaten.pink", "emperor", "last_turns", "known.plots[][]",
                 "turn.put_back.plot", "card_set.points.plot-01",
                 "card_set.add.gardener[].points", "card_set.add.panda[].eat.green",
                 "options.max_rounds", "options.emperor_points",
                 "options.objectives_to_end.2"):
        assert name in fields, name


@pytest.mark.parametrize("value", BIG)
def test_every_int_field_of_a_position_is_refused_alike(
        value: int, valid_positions: list[dict[str, Any]]) -> None:
    checked = 0
    for data in valid_positions:
        for path in int_paths(data):
            bad = copy.deepcopy(data)
            target = bad
            for key in path[:-1]:
                target = target[key]
            target[path[-1]] = value
            expected = outcome(ref_position.from_position, bad)
            got = outcome(native.from_position, bad)
            where = f"{field_name(path)} = {value}"
            assert got == expected, where
            checked += 1
            if expected[0] == "ok":
                continue
            kind, sentence = expected
            assert kind == PositionError.__name__, where
            assert "native engine failed" not in sentence, where
            refused = sentence.split(": ")[0]
            assert field_name(path).startswith(refused), (where, sentence)
    assert checked > 150


def test_a_seed_of_64_bits_or_more_is_kept_as_given(
        valid_positions: list[dict[str, Any]]) -> None:
    for seed in (2**64, -(2**64), 10**30, 2**127 - 1, -(2**127)):
        data = {**valid_positions[0], "seed": seed}
        data.pop("rng")
        expected = outcome(ref_position.from_position, data)
        assert expected[0] == "ok" and json.loads(expected[1])["seed"] == seed
        assert outcome(native.from_position, data) == expected
        games = [engine.new_game(2, seed) for engine in (ref_state, native)]
        assert [g.seed for g in games] == [seed, seed]
        assert native.to_position(games[1]) == ref_position.to_position(games[0])


def _both(seed: int = 3, moves: int = 30) -> tuple[Any, Any]:
    rng = random.Random(seed)
    ref, nat = ref_state.new_game(3, seed), native.new_game(3, seed)
    for _ in range(moves):
        action = rng.choice(ref.legal_actions())
        ref.apply(action)
        nat.apply(action)
    return ref, nat


def _view(game: Any, seat: int) -> Any:
    cls = ref_view.PlayerView if isinstance(game, ref_state.GameState) else native.PlayerView
    return cls.of(game, seat)


#: Each int argument of the engine API, given ``v`` on a game of each engine (``m`` its
#: module of ``new_game``).
CALLS: dict[str, Callable[[Any, Any, int], Any]] = {
    "play": lambda m, g, v: g.play(v),
    "apply": lambda m, g, v: g.apply(v),
    "with_hand seat": lambda m, g, v: g.with_hand(v, []),
    "with_hand card": lambda m, g, v: g.with_hand(0, [v]),
    "with_step step": lambda m, g, v: g.with_step(v, -1),
    "with_step weather": lambda m, g, v: g.with_step(0, v),
    "with_hidden_from seat": lambda m, g, v: g.with_hidden_from(g.copy(), v),
    "objective_found seat": lambda m, g, v: g.objective_found(v, 0),
    "objective_found card": lambda m, g, v: g.objective_found(0, v),
    "PlayerView.of seat": lambda m, g, v: _view(g, v),
    "result excluded": lambda m, g, v: g.result((v,)).winners,
    "new_game players": lambda m, g, v: m.new_game(v, 1),
    "new_game seed": lambda m, g, v: m.new_game(2, v).seed,
    "new_game dice": lambda m, g, v: m.new_game(2, 1, dice=[v]),
}


def _called(call: Callable[[Any, Any, int], Any], module: Any, game: Any,
            value: int) -> tuple[str, str]:
    try:
        out = call(module, game, value)
    except (ArenaError, ValueError, IndexError) as exc:
        return type(exc).__name__, str(exc)
    if isinstance(out, ref_state.GameState):
        return "ok", json.dumps(ref_position.to_position(out), sort_keys=True)
    if hasattr(out, "legal_actions"):
        return "ok", json.dumps(native.to_position(out), sort_keys=True)
    return "ok", repr(out)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_every_int_argument_is_refused_alike(name: str) -> None:
    """No ``OverflowError`` and no garbage state: the same refusal on both engines."""
    for value in BIG:
        ref, nat = _both()
        expected = _called(CALLS[name], ref_state, ref, value)
        assert _called(CALLS[name], native, nat, value) == expected, (name, value)
        # Excluding a seat that is not in the game excludes no one; a seed is any int of
        # 128 bits; -1 is no weather.  Every other value here is out of range, and the
        # sentence quotes it.
        taken = name == "result excluded" or (
            name == "new_game seed" and -(2**127) <= value < 2**127) or (
            name == "with_step weather" and value == -1)
        assert (expected[0] == "ok") == taken, (name, value, expected)
        if not taken and name != "new_game dice":
            assert re.search(rf"(?<![\d-]){value}\b", expected[1]), (name, value, expected)


@pytest.mark.parametrize("part", ["hands", "objective_decks", "plot_deck", "drawn", "rng",
                                  "seed"])
def test_with_hidden_refuses_an_int_of_any_size_in_one_sentence(part: str) -> None:
    """The reference takes ``with_hidden``'s parts as given (a test's tool, unchecked); the
    native engine checks them in the core, and an int out of range, however large, is
    refused in one sentence (quoting it where the part holds cards or is an int), never an
    ``OverflowError``.  A seed of 128 bits and a generator state of 64 are taken."""
    for value in BIG:
        given = {"hands": [[value], [], []], "objective_decks": [[value], [], []],
                 "plot_deck": [value], "drawn": [value], "rng": value, "seed": value}[part]
        game = native.new_game(3, 1)
        if (part == "seed" and -(2**127) <= value < 2**127) or (
                part == "rng" and 0 <= value < 2**64):
            assert getattr(game.with_hidden(**{part: given}), part) == value
            continue
        with pytest.raises((ValueError, IndexError)) as refused:
            game.with_hidden(**{part: given})
        sentence = str(refused.value)
        assert sentence.startswith(part) or part in ("hands", "objective_decks"), sentence
        if part not in ("plot_deck", "drawn"):
            assert re.search(rf"(?<![\d-]){value}\b", sentence), sentence


def test_with_hidden_takes_numpy_like_ints_and_keeps_the_hidden_parts_given() -> None:
    """Any int-like value (``__index__``) is a card or tile: the parts read back as given."""
    class Index:
        def __init__(self, i: int) -> None:
            self.i = i

        def __index__(self) -> int:
            return self.i

    game = native.new_game(2, 3)
    hands = [tuple(h) for h in game.hands][::-1]
    twin = game.with_hidden(hands=[[Index(c) for c in h] for h in hands],
                            plot_deck=[Index(t) for t in game.plot_deck], rng=Index(7))
    assert twin.hands == hands and twin.plot_deck == game.plot_deck and twin.rng == 7


@pytest.mark.parametrize("points", [2**32, 10**30, 2**128])
def test_a_card_set_refuses_points_the_native_engine_cannot_hold(points: int) -> None:
    """A set's points are checked where both engines get their set, the reference's
    ``CardSet`` (the native engine reads its points off it): made from changes or given
    whole, points beyond 32 bits are refused."""
    table = list(CardSet().points)
    table[0] = points
    with pytest.raises(OptionError, match=rf"must be a whole number 0 to 4294967295, not {points}"):
        CardSet(points=tuple(table))
    with pytest.raises(OptionError, match=rf"must be at most 4294967295, not {points}"):
        CardSet.from_changes({CARDS[0].id: points})
