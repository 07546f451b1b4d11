"""Hand-made tournament files for the report tests.

Each test builds its games record by record, so that every expected figure can be worked
out by hand from the records in the test itself.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from arena.engine import DEFAULT_CARD_SET
from arena.engine import card_files as cards

DEFAULT_OPTIONS = {
    "cloud_keep": True, "cloud_when_empty": "other_weather", "redraw_satisfied": "none",
    "gardener_on_shoot": False, "bamboo_supply": "unlimited",
    "objectives_to_end": {"2": 9, "3": 8, "4": 7}, "emperor_points": 2, "max_rounds": 60,
}


def record(
    pairing: int, deal: int, rotation: int, seats: list[str], scores: list[int],
    winners: list[int], *, panda: list[int] | None = None, tiebreak: str = "none",
    emperor: int | None = 0, capped: bool = False, rounds: int = 20,
    cards: list[dict[str, Any]] | None = None, error: dict[str, Any] | None = None,
    actions: list[dict[str, int]] | None = None, weather: dict[str, int] | None = None,
) -> dict[str, Any]:
    """One game record shaped like arena/runs/records.py, with the fields a test cares about."""
    n = len(seats)
    cards = cards or []
    completed: list[list[str]] = [[] for _ in range(n)]
    drawn: list[list[str]] = [[] for _ in range(n)]
    for c in cards:
        drawn[c["seat"]].append(c["card"])
        if c["completed_round"] is not None:
            completed[c["seat"]].append(c["card"])
    return {
        "game": f"{pairing:03d}-{deal:04d}-{rotation}", "pairing": pairing, "deal": deal,
        "rotation": rotation, "seed": 1000 * pairing + deal, "players": n, "options": {},
        "seats": seats, "scores": scores, "panda_points": panda or [0] * n,
        "winners": winners, "tiebreak": tiebreak, "emperor": emperor, "capped": capped,
        "rounds": rounds, "completed": completed, "drawn": drawn, "cards": cards,
        "actions": actions or [{"plot": 1, "irrigation": 1, "gardener": 1, "panda": 1,
                                "objective": 1} for _ in range(n)],
        "weather": weather or {"sun": 1, "rain": 1, "wind": 1, "storm": 1, "clouds": 1,
                               "choice": 1},
        "moves": ["0 plot", "* drew plots green pink yellow", "0 place 0 1,0", "0 end"],
        "seconds": [0.1] * n, "error": error,
    }


def card(name: str, seat: int, drawn: int, completed: int | None) -> dict[str, Any]:
    return {"card": name, "seat": seat, "drawn_round": drawn, "completed_round": completed}


def write_run(
    directory: Path, records: list[dict[str, Any]], participants: list[str],
    players: int = 2, options: dict[str, Any] | None = None, tail: str = "",
    catalog: bool = True,
) -> Path:
    """Write manifest.json and games.jsonl (plus ``tail`` appended raw) into ``directory``;
    the manifest carries the printed cards' catalog unless ``catalog`` is false (a run
    written before manifests carried it)."""
    directory.mkdir(parents=True, exist_ok=True)
    rules = dict(DEFAULT_OPTIONS)
    rules.update(options or {})
    manifest = {
        "file_format": "takenoko-arena-manifest/1", "arena_version": "0.1.0",
        "participants": [{"name": p, "spec": p, "class": "bots.x.X", "params": {}}
                         for p in participants],
        "players": players, "games": len(records), "scheduled": len(records),
        "format": "round-robin", "seed": 7, "options": rules, "move_time": None,
        "sprt": None, "started": "2025-01-01T00:00:00", "finished": None,
    }
    if catalog:
        manifest["catalog"] = cards.catalog(DEFAULT_CARD_SET)
    (directory / "manifest.json").write_text(json.dumps(manifest))
    lines = "".join(json.dumps(r) + "\n" for r in records)
    (directory / "games.jsonl").write_text(lines + tail)
    return directory


def duel(directory: Path) -> Path:
    """Two participants, A and B, four duplicate deals, eight games.

    Per deal (rotation 0 has A in seat 0, rotation 1 has B in seat 0):
    - deal 0: A wins both games                       -> A's deal score 2
    - deal 1: A wins rotation 0, B wins rotation 1     -> 1
    - deal 2: rotation 0 tied on points and on panda points, shared; rotation 1 tied on
      points, A wins on panda points                   -> 0.5 + 1 = 1.5
    - deal 3: B wins both                              -> 0
    Cards (all in deal 0 and 1, games without error):
    - plot-01 (2 points): drawn 4 times, completed 3 times after 5, 3 and 7 rounds.
    - panda-01 (3 points): drawn twice at set-up (round 0), never completed.
    """
    ab, ba = ["A", "B"], ["B", "A"]
    games = [
        record(0, 0, 0, ab, [20, 15], [0], cards=[
            card("plot-01", 0, 0, 5), card("panda-01", 1, 0, None)]),
        record(0, 0, 1, ba, [12, 18], [1], emperor=1, cards=[
            card("plot-01", 1, 2, 5), card("panda-01", 0, 0, None)]),
        record(0, 1, 0, ab, [25, 10], [0], cards=[card("plot-01", 1, 1, 8)]),
        record(0, 1, 1, ba, [22, 21], [0], emperor=0, cards=[card("plot-01", 0, 4, None)]),
        record(0, 2, 0, ab, [16, 16], [0, 1], panda=[3, 3], tiebreak="shared"),
        record(0, 2, 1, ba, [17, 17], [1], panda=[3, 6], tiebreak="panda", emperor=1),
        record(0, 3, 0, ab, [9, 30], [1], emperor=1, rounds=31),
        record(0, 3, 1, ba, [19, 11], [0], rounds=27),
    ]
    return write_run(directory, games, ["A", "B"])


def kept(warnings: list[str]) -> list[str]:
    """The warnings but the one every folder written by hand gets: it is of the format of
    earlier versions, without MACs, so its records are not authenticated."""
    return [w for w in warnings if "without MACs" not in w]
