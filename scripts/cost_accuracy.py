"""How well ``bots.heuristics.card_cost`` predicts what an objective really takes.

Usage::

    python scripts/cost_accuracy.py [--games 40] [--seed 700]

Plays 2-player games between ``objective`` bots.  At the start of each of a seat's turns it
records, for every card in that seat's hand, the estimated cost (actions still needed); when
the card is completed, the number of turn actions (plot, irrigation, gardener, panda,
objective) that seat took in between.  Prints, per category and bucket of estimated cost,
how many records there were, the share of cards that were completed at all, and the actions
they really took (median and mean).  The actions between are the seat's, not the card's:
a planner works on several cards at once, so "actual" is the time to completion, which is
what a leaf's discount ``DECAY ** cost`` stands for.
"""

from __future__ import annotations

import random
import statistics
from collections.abc import Sequence

from _args import at_least, script_parser

from arena.engine import STEP_ACTIONS, PlayerView, new_game
from arena.engine.actions import TURN_ACTION, kind_of
from arena.engine.components import CARD_CATEGORY, CATEGORIES
from arena.play.registry import BotSpec
from bots import heuristics

#: Buckets of estimated cost: [low, high).
BUCKETS = ((0.0, 0.5), (0.5, 1.5), (1.5, 2.5), (2.5, 4.0), (4.0, 7.0), (7.0, 99.0))

#: (category, estimated cost, turn actions until completed, or None if never completed).
Record = tuple[int, float, int | None]


def play(seed: int) -> list[Record]:
    """One game's records."""
    s = new_game(2, seed, history=False)
    spec = BotSpec.parse("objective")
    bots = [spec.create(random.Random(seed * 3 + i)) for i in range(2)]
    for seat, bot in enumerate(bots):
        bot.start(seat, 2, s.options)
    actions = [0, 0]
    recorded_round = [-1, -1]
    #: (seat, card) -> per turn start while held: (estimated cost, seat's actions so far).
    pending: dict[tuple[int, int], list[tuple[float, int]]] = {}
    records: list[Record] = []
    while not s.ended:
        p = s.current
        if s.step == STEP_ACTIONS and recorded_round[p] != s.round:
            recorded_round[p] = s.round
            for card, cost in heuristics.card_costs(s, p).items():
                pending.setdefault((p, card), []).append((cost, actions[p]))
        action = bots[p].choose(PlayerView.of(s, p), list(s.legal_actions()))
        if TURN_ACTION[kind_of(action)] >= 0:
            actions[p] += 1
        before = [len(done) for done in s.completed]
        s.apply(action)
        for q in range(2):
            for card in s.completed[q][before[q]:]:
                for cost, at in pending.pop((q, card), ()):
                    records.append((CARD_CATEGORY[card], cost, actions[q] - at))
    for (_q, card), held in pending.items():
        records.extend((CARD_CATEGORY[card], cost, None) for cost, _at in held)
    return records


def main(argv: Sequence[str] | None = None) -> int:
    parser = script_parser(
        __doc__,
        "python scripts/cost_accuracy.py --games 40 --seed 700",
    )
    parser.add_argument("--games", type=at_least(1), default=40)
    parser.add_argument("--seed", type=int, default=700)
    args = parser.parse_args(argv)
    records = [r for g in range(args.games) for r in play(args.seed + g)]
    print(f"{len(records)} records (a card in hand at the start of a turn) "
          f"from {args.games} games")
    print(f"{'category':9s} {'estimate':>10s} {'n':>5s} {'completed':>9s} "
          f"{'actual median':>13s} {'mean':>6s}")
    for category, name in enumerate(CATEGORIES):
        for low, high in BUCKETS:
            bucket = [r for r in records if r[0] == category and low <= r[1] < high]
            if not bucket:
                continue
            took = [r[2] for r in bucket if r[2] is not None]
            median = f"{statistics.median(took):.1f}" if took else "-"
            mean = f"{statistics.mean(took):.2f}" if took else "-"
            label = f"[{low:g}, {high:g})"
            share = len(took) / len(bucket)
            print(f"{name:9s} {label:>10s} {len(bucket):5d} {share:9.1%} {median:>13s} {mean:>6s}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
