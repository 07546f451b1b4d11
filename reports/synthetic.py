"""Synthetic tournament files, for the benchmark and the end-to-end tests.

The reports read nothing but ``games.jsonl`` and ``manifest.json``, so their speed and their
robustness can be checked long before the engine can play 100,000 real games.  The records
written here follow ``arena/runs/records.py`` field for field (move histories included, since
real files carry them and the loader must not choke on them), and the simulated games keep
the properties the statistics rely on: duplicate deals (the same seed played with the seats
rotated, the same cards dealt to the same seat position), shared and panda tie-breaks, an
Emperor, capped games and the occasional error.  The game itself is not Takenoko: cards are
completed after random delays that depend on a hidden difficulty per card and on the
participant's strength, which is enough to give the card-balance table something to find.
"""

from __future__ import annotations

import itertools
import json
import math
import random
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

CATEGORIES = ("plot", "gardener", "panda")
FACES = ("sun", "rain", "wind", "storm", "clouds", "choice")
#: The engine's option table, a data file shared with the native core, read as JSON: the
#: generator imports nothing of ``arena`` but its signing, as the reports.  Its defaults are the
#: manifest's ``options``, and the simulated games end, cap and score by them.
OPTION_TABLE = Path(__file__).resolve().parents[1] / "arena" / "data" / "options.json"
DEFAULT_OPTIONS: dict[str, Any] = {
    entry["name"]: entry["default"]
    for entry in json.loads(OPTION_TABLE.read_text(encoding="utf-8"))["options"]
}
OBJECTIVES_TO_END = {int(k): v for k, v in DEFAULT_OPTIONS["objectives_to_end"].items()}
EMPEROR_POINTS: int = DEFAULT_OPTIONS["emperor_points"]
MAX_ROUNDS: int = DEFAULT_OPTIONS["max_rounds"]

# Printed points as the game prints them, written here because the reports never read the
# engine's cards (docs/reports.md, "The card catalog"): the generator's manifests carry them
# in their catalog, as a tournament's do.
PRINTED: dict[str, list[int]] = {
    "plot": [2, 3, 4, 2, 3, 4, 2, 3, 4, 3, 4, 5, 3, 4, 5],
    "gardener": [3, 4, 4, 5, 4, 5, 5, 6, 5, 6, 6, 7, 8, 7, 6],
    "panda": [3, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 6, 6, 6],
}
CARDS: dict[str, list[tuple[str, int]]] = {
    cat: [(f"{cat}-{i + 1:02d}", pts) for i, pts in enumerate(points)]
    for cat, points in PRINTED.items()
}


def catalog(card_points: dict[str, int] | None = None) -> list[dict[str, Any]]:
    """The manifest's ``catalog`` (``arena/runs/records.py``) of the synthetic cards.

    What a card asks is made up, but copies are where the game has them: the panda cards of
    equal points ask the same, every plot and gardener card something of its own."""
    points = card_points or {}
    return [{"id": card, "category": cat,
             "asks": (f"synthetic panda card of {pts} points" if cat == "panda"
                      else f"synthetic {cat} card {i + 1}"),
             "printed": pts, "points": points.get(card, pts), "removed": False}
            for cat in CATEGORIES for i, (card, pts) in enumerate(CARDS[cat])]


def _move_pool(rng: random.Random, size: int = 4096) -> list[str]:
    """Plausible move strings, so that a record's ``moves`` costs what a real one costs."""
    pool: list[str] = []
    for _ in range(size):
        seat = rng.randrange(4)
        q, r = rng.randint(-3, 3), rng.randint(-3, 3)
        kind = rng.randrange(9)
        if kind == 0:
            pool.append(f"* roll {rng.choice(FACES)}")
        elif kind == 1:
            pool.append(f"{seat} gardener {q},{r}")
        elif kind == 2:
            pool.append(f"{seat} panda {q},{r}")
        elif kind == 3:
            pool.append(f"{seat} irrigation {q},{r}|{q + 1},{r}")
        elif kind == 4:
            pool.append("* drew plots green yellow/watershed pink")
        elif kind == 5:
            pool.append(f"{seat} place {rng.randrange(3)} {q},{r}")
        elif kind == 6:
            pool.append(f"{seat} objective {rng.choice(CATEGORIES)}")
        elif kind == 7:
            pool.append(f"* drew {rng.choice(CATEGORIES)}-{rng.randint(1, 15):02d}")
        else:
            pool.append(f"{seat} end")
    return pool


class _Deal:
    """What one seed fixes for every rotation: per seat position, the cards and some luck."""

    def __init__(self, seed: int, players: int, difficulty: dict[str, float]) -> None:
        rng = random.Random(seed)
        self.luck = [rng.gauss(0.0, 0.15) for _ in range(players)]
        self.decks: list[dict[str, list[tuple[str, int]]]] = [
            {c: [] for c in CATEGORIES} for _ in range(players)
        ]
        for cat in CATEGORIES:
            deck = CARDS[cat][:]
            rng.shuffle(deck)
            for i, card in enumerate(deck):
                self.decks[i % players][cat].append(card)
        # Per seat position, how long each card takes (before the player's strength).
        self.delays = [
            {card: rng.expovariate(1.0) * difficulty[card] for cat in CATEGORIES
             for card, _ in self.decks[s][cat]}
            for s in range(players)
        ]
        self.prefs = [rng.random() for _ in range(players)]


def _seat_history(
    deal: _Deal, position: int, strength: float, rng: random.Random
) -> list[tuple[str, int, int, int]]:
    """One seat's cards as (card, points, drawn_round, completed_round) until enough are done."""
    decks = {c: list(v) for c, v in deal.decks[position].items()}
    speed = max(0.05, strength + deal.luck[position])
    hand: list[tuple[str, int, int, int]] = []
    for cat in CATEGORIES:
        card, pts = decks[cat].pop(0)
        done = 1 + round(deal.delays[position][card] / speed * rng.uniform(0.7, 1.3))
        hand.append((card, pts, 0, done))
    history: list[tuple[str, int, int, int]] = []
    target = OBJECTIVES_TO_END[len(deal.luck)] + 2
    while hand and len([h for h in history if h[3] >= 0]) < target:
        hand.sort(key=lambda h: h[3])
        card, pts, drawn, done = hand.pop(0)
        history.append((card, pts, drawn, done))
        order = sorted(CATEGORIES, key=lambda c: (c != CATEGORIES[int(deal.prefs[position] * 3)],
                                                  rng.random()))
        for cat in order:
            if decks[cat] and len(hand) < 5:
                new, new_pts = decks[cat].pop(0)
                delay = deal.delays[position][new] / speed * rng.uniform(0.7, 1.3)
                hand.append((new, new_pts, done, done + 1 + round(delay)))
                break
    history.extend(hand)
    return history


def _game(
    deal: _Deal,
    seats: Sequence[str],
    strengths: dict[str, float],
    game_id: str,
    ids: tuple[int, int, int],
    seed: int,
    rng: random.Random,
    pool: list[str],
    error_rate: float,
    planted: dict[str, int] | None = None,
) -> dict[str, Any]:
    """One record, scored by R13 (Emperor, panda tie-break, shared victory).

    ``planted``: points a card scores beyond the points the manifest says it is worth, an
    imbalance of known size for the card-balance tests to find.  The steps draw from
    ``rng`` in a fixed order (the seat histories, the end and error, the weather, the
    moves, the seconds), so a seed gives the same records."""
    players = len(seats)
    # Now and then a game stalls (bots that cannot finish) and runs into the round cap.
    slow = 0.08 if rng.random() < 0.003 else 1.0
    histories = [
        _seat_history(deal, s, strengths[name] * slow, rng) for s, name in enumerate(seats)
    ]
    end, emperor, capped, error = _game_end(histories, players, rng, error_rate)
    cards, scores, panda, completed, drawn = _card_rows(histories, end, planted)
    if emperor is not None:
        scores[emperor] += EMPEROR_POINTS
    winners, tiebreak = _winners(scores, panda, error)
    rounds = end
    weather = dict.fromkeys(FACES, 0)
    for _ in range(max(0, rounds - 1) * players):
        weather[FACES[rng.randrange(6)]] += 1
    actions = []
    for s in range(players):
        n = 2 * rounds
        actions.append({
            "plot": n // 5, "irrigation": n // 6, "gardener": n // 4, "panda": n // 5,
            "objective": max(0, len(drawn[s]) - 3),
        })
    start = rng.randrange(len(pool) - 160)
    pairing, deal_no, rotation = ids
    return {
        "game": game_id, "pairing": pairing, "deal": deal_no, "rotation": rotation,
        "seed": seed, "players": players, "options": {}, "seats": list(seats),
        "scores": scores, "panda_points": panda, "winners": winners, "tiebreak": tiebreak,
        "emperor": emperor, "capped": capped, "rounds": rounds, "completed": completed,
        "drawn": drawn, "cards": cards, "actions": actions, "weather": weather,
        "moves": pool[start:start + 150],
        "seconds": [round(rng.uniform(0.5, 3.0), 3) for _ in range(players)],
        "error": error,
    }


def _game_end(histories: list[list[tuple[str, int, int, int]]], players: int,
              rng: random.Random, error_rate: float
              ) -> tuple[int, int | None, bool, dict[str, Any] | None]:
    """The game's last round, the Emperor's seat, whether the round cap ended it, and the
    error that stopped it, if one did (then the Emperor only if reached before it)."""
    need = OBJECTIVES_TO_END[players]
    reach = []
    for hist in histories:
        done = sorted(h[3] for h in hist)
        reach.append(done[need - 1] if len(done) >= need else 10**6)
    end = min(reach)
    emperor: int | None = min(range(players), key=lambda s: (reach[s], s))
    capped = end >= MAX_ROUNDS
    if capped:
        end, emperor = MAX_ROUNDS, None
    else:
        end += 1  # the others' last turns
    error = None
    if rng.random() < error_rate:
        seat = rng.randrange(players)
        end = rng.randint(2, max(2, end))
        kind = rng.choice(("crash", "illegal", "timeout"))
        error = {"seat": seat, "kind": kind, "message": f"synthetic {kind} at round {end}"}
        if emperor is not None and reach[emperor] > end:
            emperor = None
    return end, emperor, capped, error


def _card_rows(histories: list[list[tuple[str, int, int, int]]], end: int,
               planted: dict[str, int] | None
               ) -> tuple[list[dict[str, Any]], list[int], list[int], list[list[str]],
                          list[list[str]]]:
    """The record's card rows up to round ``end``, and per seat its score (with the
    planted points), panda points, cards completed and cards drawn."""
    players = len(histories)
    cards: list[dict[str, Any]] = []
    scores = [0] * players
    panda = [0] * players
    completed: list[list[str]] = [[] for _ in range(players)]
    drawn: list[list[str]] = [[] for _ in range(players)]
    for s, hist in enumerate(histories):
        for card, pts, d, c in sorted(hist, key=lambda h: h[2]):
            if d > end:
                continue
            done = c if c <= end else None
            cards.append({"card": card, "seat": s, "drawn_round": d, "completed_round": done})
            drawn[s].append(card)
            if done is not None:
                completed[s].append(card)
                scores[s] += pts + (planted or {}).get(card, 0)
                if card.startswith("panda"):
                    panda[s] += pts
    return cards, scores, panda, completed, drawn


def _winners(scores: list[int], panda: list[int], error: dict[str, Any] | None
             ) -> tuple[list[int], str]:
    """The winners by R13 among the seats that did not fault, and the tie-break used:
    the highest score, then the most panda points, else a shared victory."""
    eligible = [s for s in range(len(scores)) if error is None or s != error["seat"]]
    top = max(scores[s] for s in eligible)
    tied = [s for s in eligible if scores[s] == top]
    if len(tied) == 1:
        return tied, "none"
    best = max(panda[s] for s in tied)
    winners = [s for s in tied if panda[s] == best]
    return winners, "panda" if len(winners) == 1 else "shared"


def records(
    participants: Sequence[str],
    players: int,
    games: int,
    seed: int = 1,
    strengths: dict[str, float] | None = None,
    error_rate: float = 0.001,
    planted: dict[str, int] | None = None,
    play_seed: int | None = None,
) -> Iterator[dict[str, Any]]:
    """Round-robin records: ``games`` games in all, spread over the pairings in whole deals.

    ``seed`` fixes the deals; ``play_seed``, when given, the rest of the games' luck, so two
    runs with one ``seed`` and two ``play_seed`` share their deals as two real runs of one
    schedule do (an A/A pair for the paired comparison)."""
    rng = random.Random(seed)
    play = rng if play_seed is None else random.Random(play_seed)
    strengths = strengths or {p: 1.0 + 0.1 * i for i, p in enumerate(participants)}
    # A hidden difficulty per card: some cards are easier than their printed points say.
    difficulty = {}
    for cat in CATEGORIES:
        for card, pts in CARDS[cat]:
            difficulty[card] = pts * 2.2 * math.exp(rng.gauss(0.0, 0.25))
    pairings = list(itertools.combinations(participants, players))
    deals_per_pairing = max(1, math.ceil(games / players / len(pairings)))
    pool = _move_pool(rng)
    made = 0
    for deal_no in range(deals_per_pairing):
        for p_idx, pairing in enumerate(pairings):
            deal_seed = rng.getrandbits(32)
            deal = _Deal(deal_seed, players, difficulty)
            for rot in range(players):
                if made >= games:
                    return
                seats = [pairing[(s + rot) % players] for s in range(players)]
                game_id = f"{p_idx:03d}-{deal_no:04d}-{rot}"
                yield _game(deal, seats, strengths, game_id, (p_idx, deal_no, rot),
                            deal_seed, play, pool, error_rate, planted)
                made += 1


def manifest(participants: Sequence[str], players: int, games: int, seed: int = 1,
             options: dict[str, Any] | None = None) -> dict[str, Any]:
    """A manifest matching :func:`records`."""
    rules = {**DEFAULT_OPTIONS, **(options or {})}
    return {
        "file_format": "takenoko-arena-manifest/1",
        "arena_version": "0.1.0",
        "participants": [
            {"name": p, "spec": p, "class": "bots.synthetic.Synthetic", "params": {}}
            for p in participants
        ],
        "players": players,
        "games": games,
        "scheduled": games,
        "format": "round-robin",
        "seed": seed,
        "options": rules,
        "move_time": None,
        "sprt": None,
        "catalog": catalog(),
        "started": "2025-01-01T00:00:00+00:00",
        "finished": "2025-01-01T01:00:00+00:00",
    }


def write_tournament(
    out: Path,
    participants: Sequence[str] = ("random", "greedy", "objective", "mcts"),
    players: int = 2,
    games: int = 1000,
    seed: int = 1,
    error_rate: float = 0.001,
    options: dict[str, Any] | None = None,
    planted: dict[str, int] | None = None,
    play_seed: int | None = None,
    card_points: dict[str, int] | None = None,
    signed: bool = False,
) -> Path:
    """Write ``manifest.json`` and ``games.jsonl`` into ``out`` and return ``out``.

    ``card_points``: the card set the manifest records (the points the games were scored
    with, before ``planted``), as ``arena tournament --cards`` writes it.  ``signed``:
    signed with your key (``arena/runs/keys.py``) in a sealed chain, as the arena writes a run.
    The games are made up, not played, so they do not re-play: ``arena report`` reads them
    only when a key you believe vouches for them (unsigned, it refuses them as forged, as
    it should)."""
    import secrets

    from arena.runs.integrity import ChainSigner, sign_chained_manifest
    from arena.runs.keys import fingerprint, own_key, public_bytes

    out.mkdir(parents=True, exist_ok=True)
    try:
        import orjson

        def dumps(obj: Any) -> bytes:
            return orjson.dumps(obj)
    except ImportError:  # pragma: no cover - orjson is optional
        def dumps(obj: Any) -> bytes:
            return json.dumps(obj, separators=(",", ":")).encode()

    man = manifest(participants, players, games, seed, options)
    if card_points:
        man["card_set"] = {"hash": f"{abs(hash(tuple(sorted(card_points.items())))):012x}"[:12],
                           "emperor": EMPEROR_POINTS,
                           "points": {c: p for cat in CATEGORIES for c, p in CARDS[cat]}
                           | card_points, "removed": []}
        man["catalog"] = catalog(card_points)
    signer = None
    if signed:
        key = own_key()
        public = public_bytes(key)  # type: ignore[arg-type]
        run_id = secrets.token_bytes(16)
        man["signer"] = {"ed25519": public.hex(), "fingerprint": fingerprint(public)}
        man["run_id"] = run_id.hex()
        signer = ChainSigner(key, run_id)
    with (out / "games.jsonl").open("wb") as fh:
        for rec in records(participants, players, games, seed, error_rate=error_rate,
                           planted=planted, play_seed=play_seed):
            rec["options"] = dict(options or {})
            line = dumps(rec)
            if signer is not None:
                line = signer.sign_line(line.decode(), rec["game"]).encode()
            fh.write(line + b"\n")
    if signer is not None:
        man = sign_chained_manifest(signer.key, {**man, "seal": signer.seal()})
    (out / "manifest.json").write_text(json.dumps(man, indent=2))
    return out
