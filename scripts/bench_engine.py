"""Engine speed on one core, the native engine against the reference in one run.

Each figure is a median over ``--runs`` repeats (with its spread), measured in CPU time
(``time.process_time``: this machine is shared), for both engines in turn within each run,
and given as native/reference ratios:
  * random games per CPU-second through ``new_game`` / ``legal_actions`` / ``apply``
    (2 players by default, history off, uniform choices from a seeded ``random.Random``),
  * ``copy`` + ``apply`` + ``legal_actions`` on mid-game states, µs each (a search's step),
  * ``PlayerView.of`` + ``determinize(rng)`` on mid-game states, µs each,
  * a Python bot's own search: a determinized sample then ten random steps of
    copy/apply/legal_actions, µs each.

Usage: python scripts/bench_engine.py [--runs 5] [--seconds 1] [--players 2]
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable
from typing import Any

from _args import at_least, positive_float, script_parser

from arena.engine.native import engine

ENGINES = ("native", "reference")


def mid_game_states(eng: Any, count: int, players: int) -> list[Any]:
    """Seeded states around round 12, reached by random play (a typical search root)."""
    rng = random.Random(12345)
    states = []
    seed = 0
    while len(states) < count:
        state = eng.new_game(players, seed=seed, history=False)
        seed += 1
        while not state.ended and state.round < 12:
            state.apply(rng.choice(state.legal_actions()))
        if not state.ended:
            states.append(state)
    return states


def games_per_cpu_second(eng: Any, seconds: float, players: int, seed: int) -> float:
    """Uniformly random games per CPU-second, history off."""
    rng = random.Random(seed)
    games = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        state = eng.new_game(players, seed=seed + games, history=False)
        while not state.ended:
            legal = state.legal_actions()
            state.apply(legal[rng.randrange(len(legal))])
        games += 1
    return games / (time.process_time() - start)


def micros(seconds: float, states: list[Any], work: Callable[[Any], object]) -> float:
    """CPU microseconds per call of ``work``, cycling over the states."""
    n = 0
    start = time.process_time()
    while True:
        for state in states:
            work(state)
        n += len(states)
        elapsed = time.process_time() - start
        if elapsed >= seconds:
            return 1e6 * elapsed / n


def step(state: Any) -> None:
    """A search's step: copy, apply the first legal action, list the child's actions."""
    child = state.copy()
    child.apply(state.legal_actions()[0])
    child.legal_actions()


def searcher(eng: Any) -> Callable[[Any], None]:
    """A Python bot's own search from a state: its view, a sample, ten random steps."""
    rng = random.Random(3)

    def search(state: Any) -> None:
        sample = eng.PlayerView.of(state, state.current).determinize(rng)
        for _ in range(10):
            if sample.ended:
                break
            child = sample.copy()
            legal = child.legal_actions()
            child.apply(legal[rng.randrange(len(legal))])
            sample = child

    return search


def summary(values: list[float], unit: str) -> str:
    med = statistics.median(values)
    return f"{med:>10,.1f} {unit} (min {min(values):,.1f}, max {max(values):,.1f})"


def main() -> None:
    parser = script_parser(
        __doc__,
        "python scripts/bench_engine.py",
        "python scripts/bench_engine.py --players 4 --runs 9 --seconds 1",
    )
    parser.add_argument("--runs", type=at_least(1), default=5)
    parser.add_argument("--seconds", type=positive_float, default=1.0, help="per measurement")
    parser.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    args = parser.parse_args()

    engines = {name: engine(name) for name in ENGINES}
    states = {name: mid_game_states(e, 40, args.players) for name, e in engines.items()}
    figures: dict[tuple[str, str], list[float]] = {}
    for run in range(args.runs):
        for name, eng in engines.items():
            rng = random.Random(7)
            measured = {
                "games": games_per_cpu_second(eng, args.seconds, args.players, 1000 * run),
                "step": micros(args.seconds, states[name], step),
                "determinize": micros(
                    args.seconds, states[name],
                    lambda s, e=eng, r=rng: e.PlayerView.of(s, s.current).determinize(r),
                ),
                "search": micros(args.seconds, states[name], searcher(eng)),
            }
            for key, value in measured.items():
                figures.setdefault((key, name), []).append(value)
    print(f"engine benchmark: {args.players} players, {args.runs} runs of {args.seconds:g} "
          "CPU-s per figure and engine; medians (min, max)")
    rows = (("games", "random games per CPU-second", "/s", True),
            ("step", "copy + apply + legal_actions", "µs", False),
            ("determinize", "view + determinize", "µs", False),
            ("search", "a Python search: sample + 10 steps", "µs", False))
    for key, label, unit, higher in rows:
        nat = statistics.median(figures[(key, "native")])
        ref = statistics.median(figures[(key, "reference")])
        ratio = nat / ref if higher else ref / nat
        print(f"  {label:<36} native {summary(figures[(key, 'native')], unit)}")
        print(f"  {'':<36} reference {summary(figures[(key, 'reference')], unit)}"
              f"   native {ratio:,.1f}x faster")


if __name__ == "__main__":
    main()
