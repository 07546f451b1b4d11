"""The differential test: the native engine (Rust) against the pure-Python reference.

Two implementations of one specification must agree at every step of thousands of seeded
random games (2-4 players, random rule options and card sets): the legal list, the
position, the history, the view of every seat, the samples ``determinize`` draws from the
same seeded ``random.Random`` (and where it leaves that generator), the result; positions
round-trip on both; and every refusal (bad positions, illegal actions, bad options) is the
same exception with the same sentence.  Short form in CI; ``ARENA_LONG=1`` for the full one.
"""

from __future__ import annotations

import copy
import json
import os
import pickle
import random
import re
import subprocess
import sys
from typing import Any

import pytest

from arena.engine import actions, grid, native
from arena.engine import position as ref_position
from arena.engine import state as ref_state
from arena.engine import view as ref_view
from arena.engine.components import CARDS, DEFAULT_CARD_SET, CardSet
from arena.engine.errors import ArenaError, PlacementError
from arena.engine.options import OPTION_NAMES, RuleOptions

pytestmark = pytest.mark.skipif(not native.available(), reason="the native engine is not built")

LONG = os.environ.get("ARENA_LONG") == "1"
GAMES = 2000 if LONG else 80

#: Rule options that change what the rules do, drawn at random per game.
OPTION_VALUES: dict[str, list[Any]] = {
    "cloud_keep": [True, False],
    "cloud_when_empty": ["other_weather", "move_improvement"],
    "redraw_satisfied": ["none", "plot_gardener", "all"],
    "gardener_on_shoot": [False, True],
    "bamboo_supply": ["unlimited", "limited"],
    "objectives_to_end": [
        {"2": 9, "3": 8, "4": 7}, {"2": 3, "3": 2, "4": 2}, {"2": 12, "3": 12, "4": 12},
    ],
    "emperor_points": [2, 0, 5],
    "max_rounds": [60, 8, 25],
}


def random_options(rng: random.Random) -> RuleOptions:
    return RuleOptions.from_dict({k: rng.choice(v) for k, v in OPTION_VALUES.items()
                                  if rng.random() < 0.5})


def random_cards(rng: random.Random, players: int) -> CardSet:
    if rng.random() < 0.6:
        return CardSet()
    from tests.engine.test_added_cards import ADD

    add = ADD if rng.random() < 0.4 else None  # cards the printed catalog has no like of
    points = {c.id: rng.randrange(0, 9) for c in CARDS[:45] if rng.random() < 0.3}
    remove = [c.id for c in CARDS[:45] if rng.random() < 0.12]
    cards = CardSet.from_changes(points, remove, add=add)
    return cards if cards.deal_problem(players) is None else CardSet.from_changes(points,
                                                                                  add=add)


def both_games(seed: int, rng: random.Random) -> tuple[Any, Any]:
    players = rng.choice((2, 3, 4))
    options = random_options(rng)
    cards = random_cards(rng, players)
    dice = [rng.randrange(6) for _ in range(rng.choice((0, 0, 5, 20)))]
    ref = ref_state.new_game(players, seed, options, dice=dice, cards=cards)
    nat = native.new_game(players, seed, options, dice=dice, cards=cards)
    return ref, nat


def check_same(ref: Any, nat: Any, rng: random.Random, *, views: bool) -> None:
    """The two states agree on everything a caller can read."""
    assert nat.legal_actions() == ref.legal_actions()
    assert native.to_position(nat) == ref_position.to_position(ref)
    assert list(nat.history or ()) == list(ref.history or ())
    assert nat.scores() == ref.scores()
    assert nat.is_terminal() == ref.is_terminal()
    if not views:
        return
    for seat in range(ref.players):
        rv, nv = ref_view.PlayerView.of(ref, seat), native.PlayerView.of(nat, seat)
        assert nv.to_dict() == rv.to_dict()
        assert nv.to_json() == rv.to_json()
        assert nv.unseen_plots() == rv.unseen_plots()
        seed = rng.randrange(1 << 30)
        r1, r2 = random.Random(seed), random.Random(seed)
        legal = ref.legal_actions() if ref.current == seat else None
        s1 = rv.determinize(r1, legal)
        s2 = nv.determinize(r2, legal)
        assert native.to_position(s2) == ref_position.to_position(s1)
        assert s2.legal_actions() == s1.legal_actions()
        assert r2.getstate() == r1.getstate(), "the generator ends where the reference leaves it"


@pytest.mark.long
def test_native_and_reference_agree_step_by_step() -> None:
    rng = random.Random(20260)
    steps = 0
    for game in range(GAMES):
        ref, nat = both_games(game * 7919 + 3, rng)
        check_same(ref, nat, rng, views=True)
        while not ref.is_terminal():
            legal = ref.legal_actions()
            action = legal[rng.randrange(len(legal))]
            ref.apply(action)
            nat.apply(action)
            steps += 1
            check_same(ref, nat, rng, views=rng.random() < 0.08)
            if rng.random() < 0.03:
                # Positions round-trip, each engine reading the other's.
                data = ref_position.to_position(ref)
                back = native.from_position(json.loads(json.dumps(data)))
                assert native.to_position(back) == data
                assert native.positions_equal(back, nat)
                assert back.legal_actions() == ref.legal_actions()
        assert nat.result() == ref.result()
        assert nat.result((0,)) == ref.result((0,))
        assert nat.returns() == ref.returns()
        assert nat.history_text() == ref.history_text()
    assert steps > GAMES * 50


def _placement_args(rng: random.Random, game: Any) -> tuple[Any, dict[str, Any]]:
    """A ``place_card`` call, mostly sound, sometimes each way it can be refused."""
    card: Any = rng.randrange(len(CARDS))
    k = CARDS[card].category
    if rng.random() < 0.5:
        place: dict[str, Any] = {"seat": rng.randrange(game.players)}
    else:
        place = {"depth": rng.randrange(max(1, len(game.objective_decks[k])))}
    odd = rng.random()
    if odd < 0.04:
        card = rng.choice([45, -1, True, 2.0, "plot-01", None, 1 << 70])
    elif odd < 0.08:
        place = rng.choice([{}, {"seat": 0, "depth": 0}, {"seat": game.players},
                            {"seat": -1}, {"seat": False}, {"depth": 99}, {"depth": "0"},
                            {"seat": None}, {"depth": None, "seat": 1}])
    return card, place


def _placed(game: Any, card: Any, place: dict[str, Any]) -> tuple[str, str]:
    try:
        game.place_card(card, **place)
    except (ArenaError, ValueError, TypeError) as exc:
        return type(exc).__name__, str(exc)
    return "ok", ""


def test_placements_agree_and_so_do_the_games_after_them() -> None:
    """``place_card`` on both engines (an experiment's intervention): the same refusals
    (class and sentence), then the same states, legal lists, views and histories as the
    placed games are played out; a placement after the first decision refused alike."""
    rng = random.Random(3232)
    placed = refused = 0
    for game in range(GAMES // 2):
        ref, nat = both_games(game * 104729 + 17, rng)
        for _ in range(rng.randrange(1, 5)):
            card, place = _placement_args(rng, ref)
            expected = _placed(ref, card, place)
            assert _placed(nat, card, place) == expected, (card, place)
            placed += expected[0] == "ok"
            refused += expected[0] != "ok"
            check_same(ref, nat, rng, views=rng.random() < 0.3)
        assert nat.history_text() == ref.history_text()
        moves = 0
        while not ref.is_terminal():
            action = rng.choice(ref.legal_actions())
            ref.apply(action)
            nat.apply(action)
            moves += 1
            if moves == 1:
                card, place = _placement_args(rng, ref)
                expected = _placed(ref, card, place)
                assert expected[0] != "ok"
                assert _placed(nat, card, place) == expected
            check_same(ref, nat, rng, views=rng.random() < 0.03)
        assert nat.result() == ref.result()
        assert nat.history_text() == ref.history_text()
    assert placed > GAMES and refused > GAMES // 10


def test_copies_and_samples_are_independent() -> None:
    rng = random.Random(5)
    ref, nat = both_games(11, rng)
    for _ in range(60):
        action = rng.choice(ref.legal_actions())
        ref.apply(action)
        nat.apply(action)
    before = native.to_position(nat)
    child = nat.copy()
    for action in child.legal_actions()[:1]:
        child.apply(action)
    assert native.to_position(nat) == before
    assert nat.copy(history=True).history == nat.history
    assert nat.copy().history is None
    view = native.PlayerView.of(nat, 0)
    sample = view.determinize(random.Random(1))
    sample.apply(sample.legal_actions()[0])
    assert native.to_position(nat) == before
    ref_sample = ref_view.PlayerView.of(ref, 1).determinize(random.Random(2))
    hidden = nat.with_hidden_from(native.PlayerView.of(nat, 1).determinize(random.Random(2)), 1)
    ref_hidden = ref.with_hidden_from(ref_sample, 1)
    assert native.to_position(hidden) == ref_position.to_position(ref_hidden)
    assert hidden.hands[1] == nat.hands[1]


def test_views_pickle_and_compare_as_values() -> None:
    rng = random.Random(8)
    ref, nat = both_games(3, rng)
    for _ in range(80):
        action = rng.choice(ref.legal_actions())
        ref.apply(action)
        nat.apply(action)
    for seat in range(nat.players):
        view = native.PlayerView.of(nat, seat)
        back = pickle.loads(pickle.dumps(view))
        assert back == view and hash(back) == hash(view)
        assert back.to_dict() == ref_view.PlayerView.of(ref, seat).to_dict()
        r1, r2 = random.Random(4), random.Random(4)
        assert native.to_position(back.determinize(r1)) == native.to_position(view.determinize(r2))
    state = pickle.loads(pickle.dumps(nat))
    assert native.to_position(state) == native.to_position(nat)
    assert state.history == nat.history


def test_a_random_subclass_draws_through_its_own_methods() -> None:
    class Counting(random.Random):
        calls = 0

        def getrandbits(self, k: int) -> int:
            Counting.calls += 1
            return super().getrandbits(k)

    ref, nat = both_games(9, random.Random(2))
    s1 = ref_view.PlayerView.of(ref, 1).determinize(Counting(6))
    s2 = native.PlayerView.of(nat, 1).determinize(Counting(6))
    assert native.to_position(s2) == ref_position.to_position(s1)
    assert Counting.calls > 0


def mutations(data: dict[str, Any], rng: random.Random) -> list[dict[str, Any]]:
    """Bad positions made from a good one: a field removed, or given a value of another
    kind, at every level."""
    values: list[Any] = [None, "x", 5, -1, True, 2.5, [], {}, [1], {"a": 1}, "0,0", "9,9",
                         "green", "plot-01", 99]
    out = []

    def walk(node: Any, path: list[Any]) -> None:
        items = list(node.items()) if isinstance(node, dict) else list(enumerate(node))
        for key, child in items:
            for value in (*rng.sample(values, 4), "__delete__"):
                bad = copy.deepcopy(data)
                target = bad
                for p in path:
                    target = target[p]
                if value == "__delete__":
                    if isinstance(target, dict):
                        del target[key]
                    else:
                        target.pop(key)
                else:
                    target[key] = value
                out.append(bad)
            if isinstance(child, dict | list) and child:
                walk(child, [*path, key])

    walk(data, [])
    return out


def _bool_numbers(data: Any) -> bool:
    """Whether a position gives true or false for a number option."""
    options = data.get("options") if isinstance(data, dict) else None
    if not isinstance(options, dict):
        return False
    values = [options.get("emperor_points"), options.get("max_rounds")]
    ends = options.get("objectives_to_end")
    if isinstance(ends, dict):
        values += list(ends.values())
    return any(isinstance(v, bool) for v in values)


def outcome(read: Any, data: Any) -> tuple[str, str]:
    try:
        state = read(data)
    except ArenaError as exc:
        return type(exc).__name__, str(exc)
    except ValueError as exc:
        return "ValueError", str(exc)
    pos = ref_position.to_position(state) if isinstance(state, ref_state.GameState) else (
        native.to_position(state))
    # The reference takes true and false for the numbers 1 and 0 (a bool is an int in
    # Python) and writes them back as given; the native side writes the numbers.
    options = pos["options"]
    for name in ("emperor_points", "max_rounds"):
        if name in options:
            options[name] = int(options[name])
    if "objectives_to_end" in options:
        options["objectives_to_end"] = {k: int(v) for k, v in options["objectives_to_end"].items()}
    return "ok", json.dumps(pos, sort_keys=True)


@pytest.mark.long
def test_every_refusal_of_a_position_is_the_same_sentence() -> None:
    rng = random.Random(77)
    checked = refused = 0
    for game in range(12 if LONG else 4):
        ref, nat = both_games(game + 100, rng)
        for _ in range(rng.randrange(10, 150)):
            if ref.is_terminal():
                break
            action = rng.choice(ref.legal_actions())
            ref.apply(action)
            nat.apply(action)
        data = json.loads(json.dumps(ref_position.to_position(ref)))
        for bad in mutations(data, rng):
            expected = outcome(ref_position.from_position, bad)
            if _bool_numbers(bad):
                # The reference keeps a bool given for a number option and writes it as
                # True/False in its sentences; the native side reads it as 1/0.
                expected = (expected[0], re.sub(r"\bTrue\b", "1",
                                                re.sub(r"\bFalse\b", "0", expected[1])))
            assert outcome(native.from_position, bad) == expected, json.dumps(bad)[:300]
            checked += 1
            refused += expected[0] != "ok"
    assert refused > checked // 3
    # More plots than the game has (a board only a position can hold), with and without
    # a plot deck: refused when the plots are counted, with the same sentence.
    cells = sorted((c for c in grid.CELLS if c != grid.POND),
                   key=lambda c: grid.distance(c, grid.POND))[:30]
    crowded: dict[str, Any] = {
        "format": "takenoko-position/1", "players": 2, "hands": [{}, {}],
        "tiles": [{"at": grid.cell_text(c), "tile": "green"} for c in cells],
    }
    for decks in ({}, {"decks": {"plots": []}}):
        data = {**crowded, **decks}
        assert outcome(native.from_position, data) == outcome(ref_position.from_position, data)
    assert outcome(native.from_position, "text") == outcome(ref_position.from_position, "text")
    assert outcome(native.from_position, [1]) == outcome(ref_position.from_position, [1])


def test_values_json_cannot_hold_are_quoted_alike() -> None:
    """A refusal carries the offending value itself and Python quotes it
    (``errors.refusal``): values JSON has no form for (a tuple, a set, a float that is not
    finite), ints beyond 128 bits and texts with quotes read the same on both engines,
    without the core imitating ``repr``."""
    rng = random.Random(5)
    ref, _ = both_games(3, rng)
    data = json.loads(json.dumps(ref_position.to_position(ref)))
    odd: list[Any] = [(1, 2), frozenset({3}), float("nan"), float("-inf"), "it's",
                      'say "hi"', "tab\tand\\", [1, (2, 3)], {"k": (4,)}]
    edits: list[Any] = [
        lambda p, v: p.update(players=v),
        lambda p, v: p.update(format=v),
        lambda p, v: p.update(tiles=v),
        lambda p, v: p.update(channels=[v]),
        lambda p, v: p["options"].update(cloud_keep=v),
        lambda p, v: p["options"].update(objectives_to_end=v),
        lambda p, v: p.update(gardener=v),
        lambda p, v: p.update(decks={str(v): []}),
    ]
    checked = 0
    for change in edits:
        for value in odd:
            bad = copy.deepcopy(data)
            bad.setdefault("options", {})
            change(bad, value)
            expected = outcome(ref_position.from_position, bad)
            assert expected[0] != "ok"
            assert outcome(native.from_position, bad) == expected, repr(bad)[:300]
            checked += 1
    assert checked == len(edits) * len(odd)
    # place_card quotes the argument it refuses, given as it was, on both engines.
    for value in [*odd, "x", 2.0, True, -1, 10**40]:
        for place in ({"seat": value}, {"depth": value}, {}):
            card = value if not place else 0
            said = []
            for game in both_games(3, random.Random(5)):
                with pytest.raises(PlacementError) as info:
                    game.place_card(card, **(place or {"seat": 0}))
                said.append(str(info.value))
            assert said[0] == said[1]


def test_illegal_actions_are_refused_alike() -> None:
    rng = random.Random(3)
    ref, nat = both_games(5, rng)
    for _ in range(40):
        for action in [rng.randrange(1 << 24) for _ in range(20)] + [0, 1, 5, 4095 << 5]:
            try:
                ref.copy().play(action)
                expected: tuple[str, str] = ("ok", "")
            except (ArenaError, ValueError, IndexError, KeyError) as exc:
                expected = (type(exc).__name__, str(exc))
            try:
                nat.copy().play(action)
                got: tuple[str, str] = ("ok", "")
            except (ArenaError, ValueError) as exc:
                got = (type(exc).__name__, str(exc))
            # An action int whose field is out of range makes the reference's message fail
            # with an IndexError (a traceback where a sentence belongs); the native side
            # refuses it with an IllegalActionError naming the int.
            if expected[0] in ("IndexError", "KeyError"):
                assert got == ("IllegalActionError", f"{action} is not an action")
            elif expected[0] == "IllegalActionError" or got[0] == "IllegalActionError":
                assert got == expected
        action = rng.choice(ref.legal_actions())
        ref.apply(action)
        nat.apply(action)


def test_options_are_read_alike_from_the_same_table() -> None:
    names = native._module()._probe("option_names", None)
    assert tuple(names) == OPTION_NAMES
    rng = random.Random(1)
    samples: list[Any] = ["x", 0, 1, -1, True, None, 2.5, "all", "limited", {"2": 1},
                          {"2": 9, "3": 8, "4": 7}, {"2": 0, "3": 8, "4": 7}, {"x": 1}, [],
                          2**32 - 1, 2**32, 10**30, 2**128, -(2**128),
                          {"2": 2**32, "3": 8, "4": 7}, {"2": 2**200, "3": 8, "4": 7}]
    texts = ["true", "no", "0", "7", "-3", "2:5", "2:5,3:4", "5:1", "x", "", "all", "1,2",
             "4294967295", "4294967296", "1" + "0" * 40, "-" + "9" * 40, "2:" + "9" * 40]
    for name in OPTION_NAMES:
        for value in samples:
            _same(RuleOptions.from_dict, _options_from_dict, {name: value})
        for text in texts:
            _same(RuleOptions.from_pairs, _options_from_pairs, [f"{name}={text}"])
    for bad in (["nope=1"], ["cloud_keep"], ["=1"], ["cloud_keep=1", "cloud_keep=0"]):
        _same(RuleOptions.from_pairs, _options_from_pairs, bad)
    _same(RuleOptions.from_dict, _options_from_dict, [1])
    for _ in range(200):
        pick = {k: rng.choice(v) for k, v in OPTION_VALUES.items() if rng.random() < 0.4}
        _same(RuleOptions.from_dict, _options_from_dict, pick)


def _options_from_dict(data: Any) -> Any:
    return native._module()._probe("options_from_dict", data)


def _options_from_pairs(pairs: list[str]) -> Any:
    return native._module()._probe("options_from_pairs", pairs)


def _same(ref: Any, nat: Any, arg: Any) -> None:
    try:
        expected = ("ok", ref(arg).to_dict())
    except ArenaError as exc:
        expected = (type(exc).__name__, str(exc))
    try:
        got = ("ok", nat(arg))
    except ArenaError as exc:
        got = (type(exc).__name__, str(exc))
    assert got == expected, arg


def test_pythons_generator_is_reproduced_draw_for_draw() -> None:
    rng = random.Random(9)
    for seed in [0, 1, 42, 2**32, 2**63 + 5, -7, *[rng.randrange(1 << 60) for _ in range(30)]]:
        calls = []
        for _ in range(300):
            method = rng.choice(("getrandbits", "random", "randbelow", "shuffle", "choice"))
            n = {"getrandbits": rng.choice((1, 5, 31, 32, 33, 63, 64, 65, 100)),
                 "random": 0, "randbelow": rng.randrange(1, 10**6),
                 "shuffle": rng.randrange(0, 40), "choice": rng.randrange(1, 50)}[method]
            calls.append((method, n))
        expected = []
        py = random.Random(seed)
        for method, n in calls:
            if method == "getrandbits":
                expected.append(py.getrandbits(n))
            elif method == "random":
                expected.append(py.random())
            elif method == "randbelow":
                expected.append(py.randrange(n))
            elif method == "shuffle":
                items = list(range(n))
                py.shuffle(items)
                expected.append(items)
            else:
                expected.append(py.choice(range(n)))
        # Lists, not tuples: the probe's argument crosses as JSON.
        got = native._module()._probe("random_draws", [seed, [list(c) for c in calls]])
        assert got == expected, seed


def test_action_kinds_and_notation_agree() -> None:
    kinds = dict(native._module().KINDS)
    for name, value in kinds.items():
        assert getattr(actions, name) == value
    if hasattr(actions, "Kind"):
        assert {k.name: int(k) for k in actions.Kind} == kinds
    rng = random.Random(4)
    for _ in range(3000):
        action = rng.randrange(1 << 28)
        try:
            text = actions.action_text(action, DEFAULT_CARD_SET)
        except (ValueError, IndexError, KeyError):
            text = None
        try:
            got = native._module()._probe("action_text", action)
        except ValueError:
            got = None
        if text is not None:
            assert got == text
            _same(lambda t: _Text(actions.parse_action(t, DEFAULT_CARD_SET)),
                  lambda t: {"action": native._module()._probe("parse_action", t)}, text)
    for bad in ["", "fly", "place 3 0,1", "place 0 99,0", "irrigation 0,1|0,3", "clouds x keep",
                "improve fertilizer 0,x", "weather choice", "complete plot-99", " end "]:
        _same(lambda t: _Text(actions.parse_action(t, DEFAULT_CARD_SET)),
              lambda t: {"action": native._module()._probe("parse_action", t)}, bad)


class _Text:
    def __init__(self, action: int) -> None:
        self.action = action

    def to_dict(self) -> dict[str, int]:
        return {"action": self.action}


def test_a_rust_panic_reaches_python_as_an_arena_error() -> None:
    module = native._module()
    state = native.new_game(3, seed=41)
    module._plant_panic(True)
    try:
        with pytest.raises(ArenaError, match=r"game seed 41, round 1, seat 0"):
            state.apply(state.legal_actions()[0])
        with pytest.raises(ArenaError, match="determinize of seat 1"):
            native.PlayerView.of(state, 1).determinize(random.Random(1))
    finally:
        module._plant_panic(False)
    state.apply(state.legal_actions()[0])  # the hook is off again


def _engine_in(value: str) -> subprocess.CompletedProcess[str]:
    code = "import arena.engine as e; print(e.ENGINE, e.GameState.__module__)"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, "ARENA_ENGINE": value}, timeout=60)


def test_the_engine_is_selected_by_the_environment() -> None:
    assert _engine_in("native").stdout.split() == ["native", "arena.engine"]
    assert _engine_in("reference").stdout.split() == ["reference", "arena.engine.state"]
    bad = _engine_in("rust")
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr.strip() == (
        "ARENA_ENGINE='rust' is not an engine (valid values: native, reference)")
