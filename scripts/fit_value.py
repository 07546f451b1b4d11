"""Fit the weights of the ``mcts`` bot's ``eval=fitted`` leaf value on recorded games.

Usage::

    python scripts/fit_value.py [--players 2] [--games 800] [--seed 1000] [--workers 2]
        [--explore 0.05] [--out rows.jsonl]
    python scripts/fit_value.py --records runs/a/games.jsonl [runs/b/games.jsonl ...]

Plays games between ``objective`` bots (every other game each decision is, with probability
``--explore``, a uniformly random legal action, so that the positions are not only those
the planner would reach), and at every decision of an action step records, for every seat,
the leaf's features (``bots.mcts_leaves.FittedLeaf.features``: the seat's own evaluation against
its strongest rival as reckoned from public information, the same as in the search) and
whether that seat went on to win (a victory shared by k counts 1/k).  A logistic regression
(L2 0.001, L-BFGS) is fitted on the games whose seed is not a multiple of 5; the others are
held out and the log loss and accuracy there are printed next to those of ``eval=deny``
(a logistic of the lead with the default temperature), then the weights as a Python tuple
for ``FITTED_WEIGHTS``.  Rows from a game are correlated, so the held-out figures are per
row but the split is per game (per deal for records: both seat rotations of a deal share
its seed).

``--records`` fits on recorded games instead (a tournament's or ``scripts/strength.py``'s
``games.jsonl``, or ``arena play --record`` files): each game is re-played from its seed and
moves and the same rows are taken at the same decisions, so the leaf can be fitted on the
positions a search bot's own play reaches rather than the planner's.  Games that ended in a
bot error are skipped; the log loss of the weights in ``bots.mcts_leaves.FITTED_WEIGHTS`` on the
held-out rows is printed too, for comparison.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import multiprocessing
import random
import sys
import time
from collections.abc import Sequence
from typing import Any

import numpy as np
from _args import at_least, card_file, fraction, output_file, usage_error
from scipy.optimize import minimize

from arena.engine import (
    DEFAULT_CARD_SET,
    STEP_ACTIONS,
    ArenaError,
    CardSet,
    GameState,
    PlayerView,
    RuleOptions,
    new_game,
)
from arena.engine.card_files import DEFAULT_CHOICE
from arena.play.registry import BotSpec
from arena.show.replay import RecordError, read_records, replay_record
from arena.tournament.sprt import game_score
from bots import heuristics
from bots.mcts_leaves import FITTED_WEIGHTS, FittedLeaf

Row = tuple[int, float, list[float]]


def _features(s: GameState, leaves: list[FittedLeaf]) -> list[tuple[int, list[float]]]:
    """Every seat's leaf features at an action-step decision, as the search reads them."""
    out = []
    for p, leaf in enumerate(leaves):
        leaf.prepare(PlayerView.of(s, p))
        own, rival, q = leaf.own_and_rival(s)
        out.append((p, leaf.features(s, p, own[p], q, rival)))
    return out


def _rows(seed: int, s: GameState, pending: list[tuple[int, list[float]]]) -> list[Row]:
    winners = s.result().winners
    return [(seed, game_score(winners, p), f) for p, f in pending]


def play(players: int, seed: int, explore: float, cards: CardSet = DEFAULT_CARD_SET,
         options: RuleOptions | None = None) -> list[Row]:
    """One game's rows: (seed, outcome for the seat, features of the seat)."""
    rng = random.Random(seed)
    spec = BotSpec.parse("objective")
    bots = [spec.create(random.Random(rng.random())) for _ in range(players)]
    s = new_game(players, seed, options, history=False, cards=cards)
    for seat, bot in enumerate(bots):
        bot.start(seat, players, s.options)
    leaves = [FittedLeaf(8.0) for _ in range(players)]
    pending: list[tuple[int, list[float]]] = []
    while not s.ended:
        legal = list(s.legal_actions())
        if s.step == STEP_ACTIONS:
            pending.extend(_features(s, leaves))
        seat = s.current
        if explore and seed % 2 and rng.random() < explore:
            action = rng.choice(legal)
        else:
            action = bots[seat].choose(PlayerView.of(s, seat), legal)
        s.apply(action)
    return _rows(seed, s, pending)


def rows_from_record(record: dict[str, Any]) -> list[Row]:
    """A recorded game's rows, re-played from its seed and moves by ``arena.show.replay`` (every
    move checked, the result compared); none for a game that ended in a bot error: its end
    is not the game's."""
    if record.get("error"):
        return []
    leaves: list[FittedLeaf] = []
    pending: list[tuple[int, list[float]]] = []

    def collect(s: GameState) -> None:
        if s.step == STEP_ACTIONS:
            if not leaves:
                leaves.extend(FittedLeaf(8.0) for _ in range(s.players))
            pending.extend(_features(s, leaves))

    name = f"game {record.get('game')!r}"
    try:
        result = replay_record(record, before=collect)
    except RecordError as exc:
        raise RecordError(f"{name}: {exc}") from None
    if result.problems:
        raise RecordError(f"{name}: {result.problems[0]}")
    return _rows(record["seed"], result.state, pending)


def _play(args: tuple[int, int, float, CardSet, RuleOptions]) -> list[Row]:
    return play(*args)


def _record_rows(record: dict[str, Any]) -> list[Row] | str:
    try:
        return rows_from_record(record)
    except RecordError as exc:
        return str(exc)


def log_loss(p: np.ndarray, y: np.ndarray) -> float:
    eps = 1e-9
    return float(-np.mean(y * np.log(p + eps) + (1 - y) * np.log(1 - p + eps)))


def fit(x: np.ndarray, y: np.ndarray, l2: float = 1e-3) -> np.ndarray:
    """Logistic regression: intercept first, then one weight per feature."""

    def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
        z = np.clip(x @ w[1:] + w[0], -30, 30)
        p = 1 / (1 + np.exp(-z))
        grad_z = (p - y) / len(y)
        value = log_loss(p, y) + l2 * float(np.sum(w[1:] ** 2))
        grad = np.concatenate(([grad_z.sum()], x.T @ grad_z + 2 * l2 * w[1:]))
        return value, grad

    result = minimize(loss, np.zeros(x.shape[1] + 1), jac=True, method="L-BFGS-B")
    return result.x


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="examples: python scripts/fit_value.py --players 2 --games 400; "
               "python scripts/fit_value.py --records runs/s16/games.jsonl runs/s17/games.jsonl",
    )
    parser.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    parser.add_argument("--games", type=at_least(1), default=800)
    parser.add_argument("--seed", type=int, default=1000)
    parser.add_argument("--workers", type=at_least(1), default=2)
    parser.add_argument("--explore", type=fraction, default=0.05)
    parser.add_argument("--out", type=output_file,
                        help="also write the rows here (JSON lines; checked before any game)")
    parser.add_argument("--cards", type=card_file, default=None, metavar="FILE",
                        help="play with this card-set file (see `arena cards`; recorded games "
                             "are re-played with their own)")
    parser.add_argument("--records", nargs="+", metavar="FILE",
                        help="fit on these recorded games instead of playing (games.jsonl "
                             "files; --players, --games, --seed, --explore are then unused)")
    args = parser.parse_args(argv)
    rows: list[Row] = []
    start = time.perf_counter()
    if args.records:
        try:
            records = [r for path in args.records for r in read_records(path)]
        except RecordError as exc:
            return usage_error(parser, f"argument --records: {exc}")
        counts = sorted({len(r["seats"]) if isinstance(r.get("seats"), list) else 0
                         for r in records})
        if len(counts) != 1:
            return usage_error(parser, f"argument --records: the records mix games of {counts} "
                                       "players: fit one count at a time")
        jobs: list[Any] = records
        work: Any = _record_rows
    else:
        choice = args.cards or DEFAULT_CHOICE
        try:
            choice.check_deal(args.players)
        except ArenaError as exc:
            return usage_error(parser, f"argument --cards: {exc}")
        options = choice.options(RuleOptions())
        jobs = [(args.players, args.seed + i, args.explore, choice.cards, options)
                for i in range(args.games)]
        work = _play
    skipped = 0
    with contextlib.ExitStack() as stack:
        if args.workers > 1:
            pool = stack.enter_context(multiprocessing.Pool(args.workers))
            results = pool.imap(work, jobs)
        else:  # in this process (and a function a pool could not pickle works too)
            results = map(work, jobs)
        for done, game in enumerate(results, 1):
            if isinstance(game, str):
                print(f"\nerror: {game}", file=sys.stderr)
                return 2
            skipped += not game
            rows.extend(game)
            if done % 50 == 0 or done == len(jobs):
                print(f"\r{done}/{len(jobs)} games, {time.perf_counter() - start:.0f} s",
                      end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    if not rows:
        print("error: no rows: every game ended in a bot error", file=sys.stderr)
        return 2
    players = len(jobs[0]["seats"]) if args.records else args.players
    if args.out:
        with args.out.open("w") as out:
            for row in rows:
                out.write(json.dumps(row) + "\n")
    seeds = np.array([r[0] for r in rows])
    y = np.array([r[1] for r in rows])
    x = np.array([r[2] for r in rows], dtype=float)
    held = seeds % 5 == 0
    if held.all() or not held.any():
        print(f"error: the rows come from {len(set(seeds.tolist()))} seeds, all of them "
              + ("held out" if held.any() else "fitted on")
              + " (seeds that are multiples of 5 are held out): give more games",
              file=sys.stderr)
        return 2
    w = fit(x[~held], y[~held])
    fitted = 1 / (1 + np.exp(-np.clip(x[held] @ w[1:] + w[0], -30, 30)))
    # eval=deny: lead = SCORE_WEIGHT * points lead + hand lead, through the logistic.
    lead = heuristics.SCORE_WEIGHT * x[held][:, 0] + x[held][:, 1]
    deny = 1 / (1 + np.exp(-lead / 8.0))
    yh = y[held]
    print(f"{len(rows)} rows from {len(jobs) - skipped} games"
          + (f" ({skipped} ended in a bot error, skipped)" if skipped else "")
          + f"; held out {int(held.sum())} rows from {len(set(seeds[held].tolist()))} "
          + ("deals" if args.records else "games"))
    w0 = np.array(FITTED_WEIGHTS[2 if players == 2 else 4])
    current = 1 / (1 + np.exp(-np.clip(x[held] @ w0[1:] + w0[0], -30, 30)))
    for name, p in (("deny (temperature 8)", deny), ("FITTED_WEIGHTS now", current),
                    ("fitted", fitted)):
        acc = float(np.mean((p > 0.5) == (yh > 0.5)))
        print(f"  {name:22s} log loss {log_loss(p, yh):.4f}  accuracy {acc:.3f}")
    print(f"weights: {tuple(round(float(v), 4) for v in w)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
