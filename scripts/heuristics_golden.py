"""Writes the heuristics' values on reference positions, which the native core's ``cargo test``
checks bit for bit without Python.

Each game: its deal (players, seed, rule options, card set changes), the actions a seeded
player chose on the reference engine, and at checkpoints along them what ``bots.heuristics`` made of
the position there: per seat the evaluation (default weights, other weights, a horizon, an
archetype's weighted points), the card costs in the order the evaluation sums them, the
actions horizon and the expected value of its hidden hand; on the view of the seat to play,
the evaluation of every seat and the value of a draw from each deck.  Also ``x ** y``,
``math.exp`` and ``math.log`` over many values, as CPython computes them here.  ``cargo test`` (the
core's ``tests/heuristics_golden.rs``) replays the actions and compares every float exactly.
Re-run it when the heuristics change on purpose (the decision digests say when).

Usage: python scripts/heuristics_golden.py [--games 8] [--out FILE]
"""

from __future__ import annotations

import os

os.environ["ARENA_ENGINE"] = "reference"  # the values of record are the reference's

import json
import math
import random
from pathlib import Path

from _args import at_least, script_parser

from arena.engine import CardSet, PlayerView, RuleOptions, new_game
from arena.engine.actions import COMPLETE, kind_of
from arena.engine.components import CARD_CATEGORY, PANDA_CARD
from bots import heuristics as h

OUT = Path(__file__).resolve().parents[1] / "arena/native/core/tests/data/heuristics_golden.json"
OPTIONS = [
    {}, {"gardener_on_shoot": True}, {"bamboo_supply": "limited"},
    {"redraw_satisfied": "all"}, {"objectives_to_end": {"2": 4, "3": 3, "4": 3}},
]
OTHER = h.Weights(score=1.7, decay=0.3, channel=0.2, improvement=0.45, spare_section=0.2, race=1.5)


def values(state, weighted) -> dict[str, object]:  # type: ignore[no-untyped-def]
    """What the heuristics make of one position."""
    seat = state.current
    view = PlayerView.of(state, seat)
    pools = (view.unseen_cards(0), view.unseen_cards(1), view.unseen_cards(2))
    seats = []
    for s in range(state.players):
        pandas = [c for c in state.hands[s] if CARD_CATEGORY[c] == PANDA_CARD]
        seats.append({
            "evaluate": h.evaluate(state, s),
            "other_weights": h.evaluate(state, s, OTHER),
            "horizon_2": h.evaluate(state, s, horizon=2),
            "weighted": h.evaluate(weighted, s, OTHER),
            "costs": [[c, v] for c, v in h.card_costs(state, s).items()],
            "panda_alone": [[c, h.card_cost(state, s, c)] for c in pandas],
            "actions_horizon": h.actions_horizon(state, s),
            "expected_hand": h.expected_hand_value(state, s, pools),
            "expected_hand_other": h.expected_hand_value(state, s, ([], *pools[1:]), 0.3, 1.5),
            "view_evaluate": h.evaluate(view, s),
        })
    return {
        "seat": seat,
        "seats": seats,
        "draw": [h.draw_value(view, seat, k) for k in range(3)],
        "draw_other": [h.draw_value(view, seat, k, 0.3, 1.5) for k in range(3)],
    }


def libm(rng: random.Random) -> dict[str, list[list[float]]]:
    """``x ** y``, ``math.exp`` and ``math.log`` as CPython computes them here (the C
    library's): the discounts the heuristics take (a decay to the power of a cost in
    tenths) and values drawn at random, for the native bots' floats to be checked against."""
    bases = [0.5, 0.3, 0.72, 0.0, 1.0]
    costs = [k / 10 for k in range(0, 301)]
    pow_ = [[x, y, x**y] for x in bases for y in costs]
    pow_ += [[x, y, x**y] for x, y in ((rng.random(), rng.uniform(0, 40)) for _ in range(200))]
    exp = [[x, math.exp(x)] for x in (rng.uniform(-50, 50) for _ in range(200))]
    log = [[x, math.log(x)] for x in (rng.uniform(1e-9, 1e6) for _ in range(200))]
    return {"pow": pow_, "exp": exp, "log": log}


def main() -> None:
    parser = script_parser(__doc__, "python scripts/heuristics_golden.py",
                           "python scripts/heuristics_golden.py --games 3 --out /tmp/h.json")
    parser.add_argument("--games", type=at_least(1), default=8)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    rng = random.Random(2027)
    games = []
    for k in range(args.games):
        players = 2 + k % 3
        options = OPTIONS[k % len(OPTIONS)]
        changes: dict[str, object] = {}
        if k % 4 == 3:
            changes = {"points": {"plot-01": 7, "panda-02": 0}, "remove": ["gardener-03"]}
        seed = rng.randrange(1 << 40)
        deal = {"players": players, "seed": seed, "options": options, "card_set": changes}
        state = new_game(players, seed, RuleOptions.from_dict(options),
                         cards=CardSet.from_changes(**changes))  # type: ignore[arg-type]
        actions: list[int] = []
        checkpoints = []
        every = rng.choice([29, 37, 43])
        while not state.ended:
            legal = state.legal_actions()
            completing = [a for a in legal if kind_of(a) == COMPLETE]
            action = completing[0] if completing and rng.random() < 0.9 else rng.choice(legal)
            actions.append(action)
            state.apply(action)
            if len(actions) % every == 0 and not state.ended:
                weighted = state.with_card_points(tuple(
                    p * 2.5 if CARD_CATEGORY[c] == PANDA_CARD else p
                    for c, p in enumerate(state.card_points)))
                checkpoints.append({"at": len(actions), **values(state, weighted)})
        games.append({**deal, "actions": actions, "checkpoints": checkpoints})
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"weighted_category": PANDA_CARD, "weight": 2.5,
                                    "libm": libm(rng), "games": games},
                                   separators=(",", ":")) + "\n")
    positions = sum(len(g["checkpoints"]) for g in games)
    print(f"{positions} positions of {args.games} games -> {args.out}")


if __name__ == "__main__":
    main()
