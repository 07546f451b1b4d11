"""Writes the reference games that the native core's ``cargo test`` replays without Python.

Each game: its deal (players, seed, rule options, card set changes, scripted dice), the
actions a seeded random player chose on the reference engine, and what the reference made
of them: the final position and the history in notation.  ``cargo test`` (the core's
``tests/reference_games.rs``) plays the same actions, checking each is legal, and compares.
Re-run it when a rule changes on purpose (the differential test says when it is needed).

Usage: python scripts/native_golden.py [--games 12] [--out FILE]
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from _args import at_least, script_parser

from arena.engine import CardSet, RuleOptions
from arena.engine.native import engine

OUT = Path(__file__).resolve().parents[1] / "arena/native/core/tests/data/reference_games.json"
OPTIONS = [
    {}, {"cloud_keep": False}, {"cloud_when_empty": "move_improvement"},
    {"redraw_satisfied": "plot_gardener"}, {"redraw_satisfied": "all", "gardener_on_shoot": True},
    {"bamboo_supply": "limited"}, {"objectives_to_end": {"2": 3, "3": 3, "4": 2}},
    {"max_rounds": 9, "emperor_points": 4},
]
#: Cards a set adds (every sixth game): a two-colour pattern, shoots of height 2 and of
#: height 3 with an improvement, a two-colour panda card.
ADD = {
    "plot": [{"id": "plot-16", "points": 3, "cells": [
        {"at": "0,0", "colour": "green"}, {"at": "1,0", "colour": "yellow"}]}],
    "gardener": [{"id": "gardener-16", "colour": "green", "shoots": 1, "height": 2,
                  "improvement": "any", "points": 2},
                 {"id": "gardener-17", "colour": "pink", "shoots": 1, "height": 3,
                  "improvement": "watershed", "points": 4}],
    "panda": [{"id": "panda-16", "eat": {"green": 1, "pink": 1}, "points": 2}],
}


def main() -> None:
    parser = script_parser(__doc__, "python scripts/native_golden.py",
                           "python scripts/native_golden.py --games 4 --out /tmp/games.json")
    parser.add_argument("--games", type=at_least(1), default=12)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    ref = engine("reference")
    rng = random.Random(2026)
    games = []
    for k in range(args.games):
        players = 2 + k % 3
        options = OPTIONS[k % len(OPTIONS)]
        changes: dict[str, object] = {}
        if k % 4 == 3:
            changes = {"points": {"plot-01": 7, "panda-02": 0}, "remove": ["gardener-03"]}
        if k % 6 == 5:
            changes = {**changes, "add": ADD}
        dice = [rng.randrange(6) for _ in range(6)] if k % 5 == 4 else []
        seed = rng.randrange(1 << 40)
        state = ref.new_game(players, seed, RuleOptions.from_dict(options), dice=dice,
                             cards=CardSet.from_changes(**changes))  # type: ignore[arg-type]
        actions = []
        while not state.ended:
            action = rng.choice(state.legal_actions())
            actions.append(action)
            state.apply(action)
        games.append({
            "players": players, "seed": seed, "options": options, "card_set": changes,
            "dice": dice, "actions": actions, "position": ref.to_position(state),
            "history": state.history_text(),
        })
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"games": games}, separators=(",", ":")) + "\n")
    print(f"{len(games)} games, {sum(len(g['actions']) for g in games)} actions -> {args.out}")


if __name__ == "__main__":
    main()
