"""Plays the PettingZoo environment with a random masked policy: the smoke test of the
environment at scale, and an example of the loop a learner runs (it trains nothing).

Prints games per second, moves per game, the share of wins by seat, and how far from the
pond any legal action reached (the action space names cells up to its radius).
"""

from __future__ import annotations

import random
import time

import numpy as np
from _args import at_least, script_parser

from arena.engine import grid
from arena.rl.env import TakenokoEnv
from arena.rl.policy import random_policy


def farthest(env: TakenokoEnv) -> int:
    """How far from the pond the plots of the game reach."""
    return max((grid.distance(grid.POND, c) for c in env.game.tiles), default=0)


def main() -> None:
    parser = script_parser(__doc__, "python scripts/rl_random.py --games 1000 --players 2",
                           "python scripts/rl_random.py --games 100 --players 4 --seed 7")
    parser.add_argument("--games", type=at_least(1), default=1000, help="games to play")
    parser.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    parser.add_argument("--seed", type=int, default=1, help="seed of the games and the policy")
    args = parser.parse_args()
    env = TakenokoEnv(players=args.players)
    rng = random.Random(args.seed)
    wins = np.zeros(args.players)
    moves = reach = 0
    started = time.perf_counter()
    for game in range(args.games):
        env.reset(seed=args.seed * 1_000_003 + game)
        for agent in env.agent_iter():
            observation, reward, termination, truncation, _info = env.last()
            if termination or truncation:
                if reward > 0:
                    wins[env.possible_agents.index(agent)] += reward
                env.step(None)
                continue
            env.step(random_policy(observation, rng))
            moves += 1
        reach = max(reach, farthest(env))
    seconds = time.perf_counter() - started
    print(f"{args.games} games of {args.players} players in {seconds:.1f} s "
          f"({args.games / seconds:.1f} games/s, {moves / args.games:.0f} moves a game)")
    print("share of wins by seat: " + ", ".join(f"{w / args.games:.3f}" for w in wins))
    print(f"plots reached distance {reach} from the pond (the action space names "
          f"cells up to {env.table.radius}); action space {len(env.table)}, observation "
          f"{env.encoder.size} floats")


if __name__ == "__main__":
    main()
