"""Engine speed on one core: the figures every search bot's strength depends on.

Measures, over several runs (median and spread, since this machine is noisy):
  * decisions per second in random playouts (legal list + uniform choice + apply),
  * full random games per second (2 players, default rules),
  * state copies per second, and microseconds per copy, on mid-game states,
  * ``view(seat)`` + ``determinize(rng)`` per second on mid-game states.

Usage: python scripts/bench_engine.py [--runs 5] [--seconds 2] [--players 2]
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable

from _args import at_least, positive_float, script_parser

from arena.engine import GameState, PlayerView, new_game


def mid_game_states(count: int, players: int) -> list[GameState]:
    """Seeded states around round 12, reached by random play (a typical search root)."""
    rng = random.Random(12345)
    states = []
    seed = 0
    while len(states) < count:
        state = new_game(players, seed=seed, history=False)
        seed += 1
        while not state.ended and state.round < 12:
            state.apply(rng.choice(state.legal_actions()))
        if not state.ended:
            states.append(state)
    return states


def playouts(seconds: float, players: int, seed: int) -> tuple[float, float]:
    """(decisions/s, games/s) of uniformly random games, history off."""
    rng = random.Random(seed)
    decisions = games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = new_game(players, seed=seed + games, history=False)
        while not state.ended:
            legal = state.legal_actions()
            state.apply(legal[rng.randrange(len(legal))])
            decisions += 1
        games += 1
    elapsed = time.perf_counter() - start
    return decisions / elapsed, games / elapsed


def rate(seconds: float, states: list[GameState], work: Callable[[GameState], object]) -> float:
    """Calls of ``work`` per second, cycling over the states."""
    n = 0
    start = time.perf_counter()
    while True:
        for state in states:
            work(state)
        n += len(states)
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return n / elapsed


def summary(values: list[float], unit: str) -> str:
    med = statistics.median(values)
    return f"median {med:>12,.0f} {unit}   (min {min(values):,.0f}, max {max(values):,.0f})"


def main() -> None:
    parser = script_parser(
        __doc__,
        "python scripts/bench_engine.py",
        "python scripts/bench_engine.py --players 4 --runs 9 --seconds 1",
    )
    parser.add_argument("--runs", type=at_least(1), default=5)
    parser.add_argument("--seconds", type=positive_float, default=2.0, help="per measurement")
    parser.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    args = parser.parse_args()

    states = mid_game_states(50, args.players)
    det_rng = random.Random(7)
    results: dict[str, list[float]] = {k: [] for k in ("dec", "games", "copy", "det")}
    for run in range(args.runs):
        dec, games = playouts(args.seconds, args.players, seed=1000 * run)
        results["dec"].append(dec)
        results["games"].append(games)
        results["copy"].append(rate(args.seconds, states, GameState.copy))
        results["det"].append(
            rate(args.seconds, states, lambda s: PlayerView.of(s, s.current).determinize(det_rng))
        )
    print(f"engine benchmark: {args.players} players, {args.runs} runs of {args.seconds:g} s each")
    print(f"  decisions/s (random playouts): {summary(results['dec'], '/s')}")
    print(f"  random games/s:                {summary(results['games'], '/s')}")
    print(f"  copies/s:                      {summary(results['copy'], '/s')}"
          f"   = {1e6 / statistics.median(results['copy']):.2f} µs per copy")
    print(f"  view()+determinize()/s:        {summary(results['det'], '/s')}"
          f"   = {1e6 / statistics.median(results['det']):.1f} µs each")


if __name__ == "__main__":
    main()
