"""How often a search's decision changes with its budget: a diagnostic of a flat search.

Usage::

    python scripts/budget_agreement.py mcts --positions 60 --seed 1
    python scripts/budget_agreement.py "elite" --budgets 0.25,1,4 --positions 60

Positions are taken from games between two ``objective`` bots (one decision of the action
step per game, at a random point).  At each, the bot decides at every budget, twice, with two
generators.  Reported: for each budget the share of positions where the two runs agree (the
search's own noise) and where it agrees with the largest budget's first run.  A search whose
decision at a quarter of its budget already agrees with four times it as often as two runs
at four times agree with each other has converged (for the largest budget, the second
column is its two runs again): more thinking cannot change its play,
only a different search or leaf can.  A diagnostic, not a test.
"""

from __future__ import annotations

import random
import sys

from _args import own_bot_spec, script_parser

from arena.engine import STEP_ACTIONS, PlayerView, new_game
from arena.engine.actions import COMPLETE, KIND_MASK
from arena.play.registry import BotSpec
from arena.stats.intervals import wilson


def positions(count: int, seed: int) -> list:
    """``count`` action-step decisions with a choice, from ``objective`` self-play."""
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        state = new_game(2, rng.randrange(1 << 30))
        bots = [BotSpec.parse("objective").create(random.Random(rng.random())) for _ in range(2)]
        for s, b in enumerate(bots):
            b.start(s, 2, state.options)
        stop = rng.randrange(20, 120)
        made = 0
        while not state.ended:
            legal = list(state.legal_actions())
            if (made >= stop and state.step == STEP_ACTIONS and len(legal) > 2
                    and legal[0] & KIND_MASK != COMPLETE):
                found.append(state)
                break
            seat = state.current
            state.apply(bots[seat].choose(PlayerView.of(state, seat), legal))
            made += 1
    return found


def main(argv: list[str] | None = None) -> int:
    ap = script_parser(__doc__, "python scripts/budget_agreement.py mcts --positions 60")
    ap.add_argument("spec", type=own_bot_spec, help="the bot (a spec with a budget parameter)")
    ap.add_argument("--budgets", default="0.25,1,4", help="comma-separated budgets")
    ap.add_argument("--positions", type=int, default=60)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    budgets = [float(b) for b in args.budgets.split(",")]
    sep = "," if ":" in args.spec.text else ":"
    states = positions(args.positions, args.seed)
    choices: dict[float, list[tuple[int, int]]] = {b: [] for b in budgets}
    for i, state in enumerate(states):
        view = PlayerView.of(state, state.current)
        legal = list(state.legal_actions())
        for b in budgets:
            pair = []
            for run in range(2):
                bot = BotSpec.parse(f"{args.spec.text}{sep}budget={b}").create(
                    random.Random(f"{args.seed}-{i}-{b}-{run}"))
                bot.start(state.current, 2, state.options)
                pair.append(bot.choose(view, legal))
            choices[b].append((pair[0], pair[1]))
        if (i + 1) % 10 == 0:
            print(f"{i + 1}/{len(states)} positions", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    top = budgets[-1]
    n = len(states)
    print(f"{args.spec.text}: {n} positions, seed {args.seed}")
    print(f"{'budget':>7} {'two runs agree':>26} {'agrees with budget ' + f'{top:g}':>30}")
    for b in budgets:
        same = sum(x == y for x, y in choices[b])
        # Against both runs of the largest budget (independent generators: no shared draws).
        top_same = sum((x[0] == t[0]) + (x[1] == t[1]) for x, t in zip(choices[b], choices[top]))
        top_same = top_same / 2 if b != top else same
        lo, hi = wilson(same, n)
        lo2, hi2 = wilson(top_same, n)
        print(f"{b:>7g} {same / n:>8.1%} [{lo:5.1%}, {hi:5.1%}]      "
              f"{top_same / n:>8.1%} [{lo2:5.1%}, {hi2:5.1%}]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
