"""Fit the weights of the ``mcts`` bot's ``eval=fitted`` leaf value on recorded games.

Usage::

    python scripts/fit_value.py [--players 2] [--games 800] [--seed 1000] [--workers 2]
        [--explore 0.05] [--out rows.jsonl]

Plays games between ``objective`` bots (every other game each decision is, with probability
``--explore``, a uniformly random legal action, so that the positions are not only those
the planner would reach), and at every decision of an action step records, for every seat,
the leaf's features (``bots.mcts._FittedLeaf.features``: the seat's own evaluation against
its strongest rival as reckoned from public information, the same as in the search) and
whether that seat went on to win (a victory shared by k counts 1/k).  A logistic regression
(L2 0.001, L-BFGS) is fitted on the games whose seed is not a multiple of 5; the others are
held out and the log loss and accuracy there are printed next to those of ``eval=deny``
(a logistic of the lead with the default temperature), then the weights as a Python tuple
for ``FITTED_WEIGHTS``.  Rows from a game are correlated, so the held-out figures are per
row but the split is per game.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import random
import sys
import time
from collections.abc import Sequence

import numpy as np
from scipy.optimize import minimize

from arena.engine import new_game
from arena.engine.state import ACTIONS
from bots import heuristics
from bots.mcts import _FittedLeaf
from bots.registry import BotSpec

Row = tuple[int, float, list[float]]


def play(players: int, seed: int, explore: float) -> list[Row]:
    """One game's rows: (seed, outcome for the seat, features of the seat)."""
    rng = random.Random(seed)
    spec = BotSpec.parse("objective")
    bots = [spec.create(random.Random(rng.random())) for _ in range(players)]
    s = new_game(players, seed, history=False)
    for seat, bot in enumerate(bots):
        bot.start(seat, players, s.options)
    leaves = [_FittedLeaf(8.0) for _ in range(players)]
    pending: list[tuple[int, list[float]]] = []
    while not s.ended:
        legal = list(s.legal_actions())
        if s.step == ACTIONS:
            for p, leaf in enumerate(leaves):
                leaf.prepare(s.view(p))
                own, rival, q = leaf.own_and_rival(s)
                pending.append((p, leaf.features(s, p, own[p], q, rival)))
        seat = s.current
        if explore and seed % 2 and rng.random() < explore:
            action = rng.choice(legal)
        else:
            action = bots[seat].choose(s.view(seat), legal)
        s.apply(action)
    winners = s.result().winners
    return [(seed, 1.0 / len(winners) if p in winners else 0.0, f) for p, f in pending]


def _play(args: tuple[int, int, float]) -> list[Row]:
    return play(*args)


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
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    parser.add_argument("--games", type=int, default=800)
    parser.add_argument("--seed", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--explore", type=float, default=0.05)
    parser.add_argument("--out", help="also write the rows here (JSON lines)")
    args = parser.parse_args(argv)
    jobs = [(args.players, args.seed + i, args.explore) for i in range(args.games)]
    rows: list[Row] = []
    start = time.perf_counter()
    with multiprocessing.Pool(args.workers) as pool:
        for done, game in enumerate(pool.imap_unordered(_play, jobs), 1):
            rows.extend(game)
            if done % 50 == 0 or done == len(jobs):
                print(f"\r{done}/{len(jobs)} games, {time.perf_counter() - start:.0f} s",
                      end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    if args.out:
        with open(args.out, "w") as out:
            for row in rows:
                out.write(json.dumps(row) + "\n")
    seeds = np.array([r[0] for r in rows])
    y = np.array([r[1] for r in rows])
    x = np.array([r[2] for r in rows], dtype=float)
    held = seeds % 5 == 0
    w = fit(x[~held], y[~held])
    fitted = 1 / (1 + np.exp(-np.clip(x[held] @ w[1:] + w[0], -30, 30)))
    # eval=deny: lead = SCORE_WEIGHT * points lead + hand lead, through the logistic.
    lead = heuristics.SCORE_WEIGHT * x[held][:, 0] + x[held][:, 1]
    deny = 1 / (1 + np.exp(-lead / 8.0))
    yh = y[held]
    print(f"{len(rows)} rows from {args.games} games; held out {int(held.sum())} rows "
          f"from {len(set(seeds[held].tolist()))} games")
    for name, p in (("deny (temperature 8)", deny), ("fitted", fitted)):
        acc = float(np.mean((p > 0.5) == (yh > 0.5)))
        print(f"  {name:22s} log loss {log_loss(p, yh):.4f}  accuracy {acc:.3f}")
    print(f"weights: {tuple(round(float(v), 4) for v in w)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
