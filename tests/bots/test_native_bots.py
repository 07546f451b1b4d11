"""The Rust bots against the Python ones: the same decisions, the same draws.

On the native engine ``greedy``, ``objective`` and ``mcts`` made from their specs are native
seats (``arena.play.seat``): their Rust twins decide.  These tests hold the two
implementations together:

- seeded games with random bot parameters (every parameter of ``greedy`` and ``objective``,
  ``prefer=`` included; every one of ``mcts`` but the clock-bound ``time``, small budgets),
  2 to 4 players and random rule options, played through
  ``arena.play.match.play_game`` by the Rust bots here and by the pure-Python bots on the
  reference engine in a subprocess (``ARENA_ENGINE=reference``): the records are compared
  byte for byte, all but the seconds spent;
- decision by decision, the Rust bot on a native view and the Python bot on the reference's
  view of the same values (``as_reference``), from copies of one generator: the same action,
  and the generators left in the same state;
- refusals of bad parameters with the Python bot's sentence, and where the seat is decided
  (a subclass, or the class made directly, is a Python seat; a native seat pickles).

CI plays short games (few rounds); ``ARENA_LONG=1`` plays more and longer ones.
"""

from __future__ import annotations

import json
import os
import pickle
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from arena.engine import ENGINE, CardSet, RuleOptions, new_game
from arena.play.match import play_game
from arena.play.registry import BotSpec, make_bot
from tests.engine.test_added_cards import ADD

ROOT = Path(__file__).resolve().parents[2]
LONG = os.environ.get("ARENA_LONG") == "1"
native_only = pytest.mark.skipif(ENGINE != "native", reason="the Rust bots need the native engine")


def random_params(rng: random.Random, name: str) -> dict[str, Any]:
    """Every parameter of the bot, drawn (each left at its default now and then)."""
    if name == "greedy":
        drawn: dict[str, Any] = {"samples": rng.choice([1, 1, 2, 3]),
                                 "decay": rng.choice([0.5, 0.3, 0.72, 0.0, 1.0, 0.61])}
    elif name == "mcts":
        drawn = {
            "iterations": rng.choice([1, 8, 25, 40]), "c": rng.choice([0.03, 0.0, 0.7, 2.0]),
            "depth": rng.choice([0, 1, 3, 8]), "rollout": rng.choice(["greedy-lite", "random"]),
            "eval": rng.choice(["auto", "deny", "fitted", "score"]),
            "temperature": rng.choice([8.0, 3.0, 16.0, 0.5]),
            "widen": rng.choice([1.5, 0.0, 0.4, 4.0]), "lookahead": rng.choice([0, 1, 2, 4]),
            "prior": rng.choice([0, 1, 3, 20]), "reuse": rng.random() < 0.7,
            "turns": rng.choice([0, 0, 1, 2, 3]), "planner": rng.random() < 0.7,
            "delegate": rng.choice(["auto", "none", "complete", "steps"]),
        }
    else:
        drawn = {
            "hand_size": rng.randint(1, 5), "beam": rng.choice([1, 2, 6, 12]),
            "plot_samples": rng.choice([1, 2, 3, 5]), "focus": rng.choice([0.0, 0.5, 1.3]),
            "protect": rng.random() < 0.7, "decay": rng.choice([0.5, 0.3, 0.8, 0.0]),
            "deny": rng.choice([0.0, 1.0, 0.5, 2.0]), "race": rng.choice([0.0, 1.0, 2.5]),
            "prefer": rng.choice(["none", "plot", "gardener", "panda"]),
            "weight": rng.choice([2.0, 0.0, 3.5, 1.0]),
        }
    return {k: v for k, v in drawn.items() if rng.random() < 0.8}


def spec_text(name: str, params: dict[str, Any]) -> str:
    """A spec as a command line writes it (``objective:prefer=panda,beam=2``)."""
    if not params:
        return name
    values = ",".join(f"{k}={str(v).lower() if isinstance(v, bool) else v}"
                      for k, v in params.items())
    return f"{name}:{values}"


def random_options(rng: random.Random, long: bool) -> dict[str, Any]:
    """Rule options, some changed; short games unless ``long``."""
    options: dict[str, Any] = {}
    if rng.random() < 0.3:
        options["cloud_keep"] = False
    if rng.random() < 0.3:
        options["cloud_when_empty"] = "move_improvement"
    if rng.random() < 0.4:
        options["redraw_satisfied"] = rng.choice(["plot_gardener", "all"])
    if rng.random() < 0.3:
        options["gardener_on_shoot"] = True
    if rng.random() < 0.3:
        options["bamboo_supply"] = "limited"
    if rng.random() < 0.5:
        k = rng.randint(2, 6)
        options["objectives_to_end"] = {"2": k, "3": k, "4": max(1, k - 1)}
    if rng.random() < 0.3:
        options["emperor_points"] = rng.randint(0, 4)
    options["max_rounds"] = rng.randint(8, 60) if long else rng.randint(3, 7)
    return options


def cases(count: int, seed: int, long: bool,
          names: tuple[str, ...] = ("greedy", "objective", "objective")) -> list[dict[str, Any]]:
    """Seeded games: the specs of each seat (bots drawn from ``names``), the game seed and
    the rule options."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        players = rng.choice([2, 2, 3, 4])
        specs = []
        for _seat in range(players):
            name = rng.choice(names)
            specs.append(spec_text(name, random_params(rng, name)))
        out.append({"specs": specs, "seed": rng.randrange(1 << 40),
                    "options": random_options(rng, long)})
    return out


def record_text(case: dict[str, Any]) -> str:
    """The game's record as JSON, everything but the seconds the seats spent."""
    specs = [BotSpec.parse(s) for s in case["specs"]]
    bots = [make_bot(spec, case["seed"], seat) for seat, spec in enumerate(specs)]
    cards = CardSet.from_changes(**case["cards"]) if case.get("cards") else None
    outcome = play_game(bots, case["seed"], RuleOptions.from_dict(case["options"]),
                        names=case["specs"], cards=cards)
    record = dict(outcome.record)
    del record["seconds"]
    return json.dumps(record, sort_keys=True)


def reference_records(games: list[dict[str, Any]]) -> list[str]:
    """The records of these games played on the reference engine by the Python bots."""
    env = {**os.environ, "ARENA_ENGINE": "reference"}
    run = subprocess.run(
        [sys.executable, "-m", "tests.bots.test_native_bots"], input=json.dumps(games),
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=3000, check=False,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    records: list[str] = json.loads(run.stdout)
    return records


@native_only
@pytest.mark.timeout(3000)
def test_the_rust_bots_play_the_python_bots_games() -> None:
    games = cases(300 if LONG else 40, 2026, LONG)
    want = reference_records(games)
    assert len(want) == len(games)
    for case, ref in zip(games, want):
        got = record_text(case)
        assert got == ref, f"{case}: the native game differs from the reference's"
    # The games did something: moves, completions, every bot and option kind met.
    assert sum(json.loads(r)["moves"].__len__() for r in want) > 40 * 30


@native_only
@pytest.mark.timeout(3000)
def test_the_rust_mcts_plays_the_python_mcts_games() -> None:
    """``mcts`` with random parameters among ``greedy`` and ``objective`` seats."""
    games = cases(60 if LONG else 8, 2027, LONG, names=("mcts", "mcts", "objective", "greedy"))
    assert sum(s.startswith("mcts") for case in games for s in case["specs"]) >= len(games)
    want = reference_records(games)
    assert len(want) == len(games)
    for case, ref in zip(games, want):
        got = record_text(case)
        assert got == ref, f"{case}: the native game differs from the reference's"


#: Seven cards the printed catalog has no like of (a two-colour pattern, shoots of height 1
#: and 2, an improvement asked of a height-3 shoot): the engine tests' set.
ADDED = ADD


@native_only
@pytest.mark.timeout(3000)
def test_the_rust_bots_play_added_cards_as_the_python_bots() -> None:
    """Cards a set adds (some re-priced, printed ones removed so that the added ones are
    dealt more often): the Rust bots on the native engine and the Python bots on the
    reference engine play the same games, byte for byte."""
    games = cases(60 if LONG else 14, 2028, LONG,
                  names=("greedy", "objective", "objective", "mcts"))
    rng = random.Random(2028)
    for case in games:
        case["cards"] = {"add": ADDED, "points": {"plot-16": rng.randint(1, 5)},
                         "remove": rng.sample([f"panda-{i:02}" for i in range(1, 16)], 6)}
    want = reference_records(games)
    assert len(want) == len(games)
    added = {e["id"] for es in ADDED.values() for e in es}
    completed = set()
    for case, ref in zip(games, want):
        got = record_text(case)
        assert got == ref, f"{case}: the native game differs from the reference's"
        completed |= {c["card"] for c in json.loads(ref)["cards"]
                      if c["completed_round"] is not None} & added
    assert len(completed) >= 3, f"too few added cards completed to tell: {completed}"


def _python_copy(bot: Any) -> Any:
    """The same bot deciding through its Python code, from a copy of its generator (the
    ``mcts`` planner, which draws from it too, in Python as well)."""
    twin = bot.reference(random.Random(), **bot.params)  # the class of a native seat
    twin.rng.setstate(bot.rng.getstate())
    return twin


@native_only
@pytest.mark.parametrize("name", ["greedy", "objective", "mcts"])
def test_each_decision_and_the_generator_after_it_match(name: str) -> None:
    rng = random.Random({"greedy": 5, "objective": 6, "mcts": 7}[name])
    from arena.engine import PlayerView
    from arena.engine.history import MOVE, Event

    decisions = 0
    searched = 0  # mcts iterations
    cap = {"greedy": (3000, 600), "objective": (1500, 200), "mcts": (2000, 150)}[name][not LONG]
    for _game in range((12 if name == "mcts" else 4) if LONG else 2):
        players = rng.choice([2, 3, 4])
        spec = BotSpec.parse(spec_text(name, random_params(rng, name)))
        state = new_game(players, rng.randrange(1 << 30))
        natives = [make_bot(spec, state.seed, s) for s in range(players)]
        pythons = [_python_copy(b) for b in natives]
        for s in range(players):
            natives[s].start(s, players, state.options)
            pythons[s].start(s, players, state.options)
        seen = 0
        while not state.ended and decisions < cap:
            seat = state.current
            view = PlayerView.of(state, seat)
            legal = state.legal_actions()
            a = natives[seat].choose(view, list(legal))
            # The Python bot on the reference engine, from the same view's values.
            b = pythons[seat].choose(view.as_reference(), list(legal))
            decisions += 1
            searched += getattr(natives[seat], "last_iterations", 0)
            assert a == b, f"{spec.text}, decision {decisions}: {a} against {b}"
            assert natives[seat].rng.getstate() == pythons[seat].rng.getstate(), decisions
            state.apply(a)
            history = state.history
            while seen < len(history):
                entry = history[seen]
                seen += 1
                if entry[0] == MOVE:
                    for s in range(players):
                        event = Event.of(entry, entry[2], s, cards=state.card_set)
                        natives[s].observe(event)
                        pythons[s].observe(event)
    assert decisions >= 150
    assert name != "mcts" or searched >= 1000, searched


@native_only
def test_the_native_bots_refuse_what_the_python_bots_refuse() -> None:
    from arena.engine.native import _module
    from arena.play.bot import BotConfigError
    from bots.elite import EliteBot
    from bots.greedy import GreedyBot
    from bots.mcts import MctsBot
    from bots.objective import ObjectiveBot

    native = _module()
    for cls, name, params in [
        (GreedyBot, "greedy", {"samples": 0}), (GreedyBot, "greedy", {"decay": -1.0}),
        (GreedyBot, "greedy", {"nope": 1}), (ObjectiveBot, "objective", {"prefer": "rush"}),
        (ObjectiveBot, "objective", {"weight": 101.0}), (ObjectiveBot, "objective", {"beam": 0}),
        (ObjectiveBot, "objective", {"protect": "maybe"}),
        (ObjectiveBot, "objective", {"hand_size": 2.5}),
        (MctsBot, "mcts", {"iterations": -1}), (MctsBot, "mcts", {"iterations": 1_000_001}),
        (MctsBot, "mcts", {"time": 86401.0}), (MctsBot, "mcts", {"time": "fast"}),
        (MctsBot, "mcts", {"c": -1}), (MctsBot, "mcts", {"depth": 1.5}),
        (MctsBot, "mcts", {"rollout": "deep"}), (MctsBot, "mcts", {"eval": "magic"}),
        (MctsBot, "mcts", {"temperature": 0}), (MctsBot, "mcts", {"widen": -0.5}),
        (MctsBot, "mcts", {"lookahead": -1}), (MctsBot, "mcts", {"prior": -2}),
        (MctsBot, "mcts", {"reuse": "maybe"}), (MctsBot, "mcts", {"turns": -1}),
        (MctsBot, "mcts", {"planner": 2}), (MctsBot, "mcts", {"delegate": "all"}),
        (MctsBot, "mcts", {"speed": 3}), (MctsBot, "mcts", {"budget": 0.0}),
        (MctsBot, "mcts", {"budget": 1001.0}), (EliteBot, "elite", {"budget": -1.0}),
        (EliteBot, "elite", {"delegate": "none"}), (EliteBot, "elite", {"candidates": 0}),
        (EliteBot, "elite", {"samples": 2.5}),
    ]:
        with pytest.raises(BotConfigError) as python:
            cls(random.Random(0), **params)
        with pytest.raises(ValueError) as rust:
            native.Bot(name, params)
        assert str(rust.value) == str(python.value)
    with pytest.raises(ValueError, match="no native bot"):
        native.Bot("random", {})


@native_only
def test_the_seat_is_decided_once_when_a_bot_is_made_from_its_spec() -> None:
    """A built-in bot made from its spec is a native seat (its Rust twin decides, the native
    referee plays it); the class made directly, a subclass, or parameters the port cannot
    hold are the Python reference; the seat survives pickling."""
    from arena.play.seat import NativeBot, make, native_seat
    from bots.greedy import GreedyBot
    from bots.mcts import MctsBot
    from bots.objective import ObjectiveBot

    class Cautious(ObjectiveBot):
        def _value(self, state: Any, plan: Any, layout: object | None = None) -> float:
            return super()._value(state, plan, layout) - 0.01 * len(state.taken)

    greedy = BotSpec.parse("greedy:samples=2").create(random.Random(3))
    assert isinstance(greedy, NativeBot) and greedy.reference is GreedyBot
    assert greedy.samples == 2 and greedy.params == GreedyBot.check_params({"samples": 2})
    assert native_seat(greedy) is not None  # the native referee plays it
    assert isinstance(make(ObjectiveBot, random.Random(1), {}), NativeBot)
    assert type(make(Cautious, random.Random(1), {})) is Cautious  # no NATIVE of its own
    assert native_seat(GreedyBot()) is None  # the class itself: a Python seat
    back = pickle.loads(pickle.dumps(greedy))
    assert isinstance(back, NativeBot) and back.twin is not None and back.samples == 2
    huge = make(MctsBot, random.Random(1), {"iterations": 3, "prior": 10**30})
    assert type(huge) is MctsBot and huge.prior == 10**30  # Python takes it, Rust not
    replaced = make(MctsBot, random.Random(1), {"iterations": 3})
    replaced.choose = lambda view, legal: legal[0]  # type: ignore[method-assign]
    assert native_seat(replaced) is None  # a method replaced on it: called back
    rand = BotSpec.parse("random").create(random.Random(4))  # no handle: its class stands in
    assert isinstance(rand, NativeBot) and rand.twin is None and native_seat(rand) is not None


if __name__ == "__main__":  # the reference side: cases on stdin, records on stdout
    print(json.dumps([record_text(case) for case in json.load(sys.stdin)]))
