"""The one record writer: the bytes of a corpus of records held to a digest.

Records are written by one writer, the core's (``arena/native/core/src/referee.rs``
``record_of``), whether the core's referee played the game or the Python loop did (on either
engine, ``arena.runs.records.make_record`` handing it the game's facts).  The digest below
was taken from the records of the Python writer that came before it, so it holds the
bytes a run writes: seeded games of every shape a record has (2 to 4 players, changed rule
options, card sets with changed, removed and added cards, interventions, faults, a meta
that names a later field, seeds beyond 64 bits, names that need escaping), played by the
Python loop, on the engine selected (``ARENA_ENGINE``): the reference's facts and the
core's give the same bytes.
"""

from __future__ import annotations

import hashlib
import random
from pathlib import Path
from typing import Any

import orjson

from arena.engine import RuleOptions
from arena.play.intervention import Placement
from arena.play.match import python_loop
from arena.play.registry import BotSpec, make_bot
from tests.engine.test_native import random_cards, random_options
from tests.test_referee import Eager
from tests.tournament import broken_bots

#: sha256 (16 hex digits) of the corpus's lines, each as the runner writes it (orjson), the
#: measured ``seconds`` zeroed.  Taken from the Python writer before the core's replaced it;
#: made again once, when a crash's message stopped naming its file by an absolute path
#: (``(at tests/...)`` for ``(at <root>/tests/...)``, the one change: checked by putting the
#: old text back, which gives the old digest, 1af2d13771348cde).
DIGEST = "16593c8e2d36fee9"
ROOT = str(Path(__file__).resolve().parents[1])


def _meta(rng: random.Random, seed: int) -> dict[str, Any]:
    pick = rng.randrange(4)
    if pick == 0:
        return {}
    if pick == 1:
        return {"game": f"{seed:03d}-0000-1", "pairing": seed, "deal": 3, "rotation": 1}
    if pick == 2:  # a meta naming a later field: merged, its place kept, the record's value
        return {"game": "x", "seats": "overwritten", "extra": [1, "two"]}
    return {"game": "study", "pairing": 0, "deal": seed, "rotation": 0, "arm": "price",
            "level": 2}


def _game(seed: int) -> str:
    rng = random.Random(seed)
    players = rng.choice((2, 3, 4))
    options = random_options(rng)
    cards = random_cards(rng, players)
    bots: list[Any] = [make_bot(BotSpec.parse(rng.choice(["random", "greedy"])), seed, s)
                       for s in range(players)]
    if rng.random() < 0.3:
        bots[0] = Eager(random.Random(seed), patience=1)
    if rng.random() < 0.2:
        cls = getattr(broken_bots, rng.choice(["Crasher", "Illegal", "NotInList"]))
        bots[1] = cls(random.Random(seed), at=rng.randrange(3, 30))
    placed: tuple[Placement, ...] = ()
    if rng.random() < 0.3:
        playable = [cards.card(c).id for deck in cards.decks for c in deck]
        placed = (Placement(rng.choice(playable), seat=rng.randrange(players)),
                  Placement(rng.choice(playable), depth=rng.randrange(3)))
    names = [f"s{s}" for s in range(players)]
    if rng.random() < 0.2:
        names[0] = 'quote " back \\ tab \t é ✓ \U0001f43c'
    game_seed = seed if rng.random() < 0.8 else seed + 2**64 * rng.randrange(1, 2**40)
    outcome = python_loop(bots, game_seed, options, names, None, None, (), _meta(rng, seed),
                          None, cards, placed)
    record = dict(outcome.record)
    record["seconds"] = [0.0] * players
    return orjson.dumps(record).decode() if game_seed < 2**63 else _big(record)


def _big(record: dict[str, Any]) -> str:
    """A record whose seed orjson cannot write: the seed's digits put in by hand."""
    seed = record["seed"]
    record["seed"] = 0
    text = orjson.dumps(record).decode()
    return text.replace('"seed":0,', f'"seed":{seed},', 1)


def corpus() -> list[str]:
    return [_game(seed).replace(ROOT, "<root>") for seed in range(40)]  # no path is left


def test_records_keep_their_bytes() -> None:
    lines = corpus()
    digest = hashlib.sha256("\n".join(lines).encode()).hexdigest()[:16]
    assert digest == DIGEST


def test_default_rules_record_no_options() -> None:
    """A record's ``options`` holds only what differs from the defaults."""
    bots = [make_bot(BotSpec.parse("random"), 1, s) for s in range(2)]
    record = python_loop(bots, 1, RuleOptions(), ["a", "b"], None, None, (), {}, None,
                         None).record
    assert record["options"] == {} and record["game"] == "play"
