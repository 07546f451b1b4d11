"""Time ``bots.heuristics.evaluate`` on mid-game states of greedy self-play (ten games).

Three figures per state, because the evaluation's cost depends on what its layout cache holds:
  * warm: the cache holds the board (the common case in a search, where most moves only grow
    or eat bamboo);
  * known: the same layout in new objects (a plot placed again after another first action or
    in another sample), found by content;
  * cold: the caches are emptied first (a layout never seen).

This was ``python -m bots.heuristics`` (the module's ``_bench``); it lives here because a bot
module that imports another bot to measure itself made an import cycle (heuristics <-> greedy).

Usage: python scripts/bench_heuristics.py [--round 9]
"""

from __future__ import annotations

import random
import timeit
from typing import Any

from _args import at_least, script_parser

from arena.engine import GameState, PlayerView, from_position, new_game, to_position
from bots import heuristics
from bots.greedy import GreedyBot


def measure(rounds: int) -> None:
    """Print the three times of each of ten seeded states around round ``rounds``, then means."""
    warm_times, known_times, cold_times = [], [], []
    for seed in range(10):
        state = new_game(2, seed, history=False)
        bots = [GreedyBot(random.Random(seed)), GreedyBot(random.Random(seed + 100))]
        while not state.ended and state.round < rounds:
            seat = state.current
            state.apply(bots[seat].choose(PlayerView.of(state, seat), state.legal_actions()))
        seat = state.current
        n = 3000
        warm = timeit.timeit(lambda s=state, k=seat: heuristics.evaluate(s, k), number=n) / n

        def cold(s: GameState = state, k: int = seat) -> None:
            heuristics._clear_caches()  # a benchmark may reach inside: it measures the cache
            heuristics.evaluate(s, k)

        # Twins with the same layout in new objects (as a search makes them), made before
        # the clock runs: the cache must find them by content.
        twins = iter([from_position(to_position(state)) for _ in range(3000)])

        def known(k: int = seat, fresh: Any = twins) -> None:
            heuristics.evaluate(next(fresh), k)

        cold_time = timeit.timeit(cold, number=300) / 300
        known_time = timeit.timeit(known, number=3000) / 3000
        warm_times.append(warm)
        known_times.append(known_time)
        cold_times.append(cold_time)
        print(
            f"seed {seed}: round {state.round}, {len(state.tiles) - 1} plots, "
            f"hand {len(state.hands[seat])}: {warm * 1e6:.1f} µs warm, "
            f"{known_time * 1e6:.1f} µs known, {cold_time * 1e6:.1f} µs cold"
        )
    print(
        f"mean {sum(warm_times) / len(warm_times) * 1e6:.1f} µs warm, "
        f"{sum(known_times) / len(known_times) * 1e6:.1f} µs known, "
        f"{sum(cold_times) / len(cold_times) * 1e6:.1f} µs cold"
    )


def main() -> None:
    parser = script_parser(
        __doc__,
        "python scripts/bench_heuristics.py",
        "python scripts/bench_heuristics.py --round 13",
    )
    parser.add_argument("--round", type=at_least(1), default=9,
                        help="play greedy self-play up to this round, then measure")
    args = parser.parse_args()
    measure(args.round)


if __name__ == "__main__":
    main()
