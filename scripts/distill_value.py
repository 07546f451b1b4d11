"""Distil the search's estimates into the learned value (issue 51, expert iteration's other half).

Usage::

    python scripts/distill_value.py play --weights arena/data/value.json --out DIR
        [--games 3000] [--seed 151] [--lineup elite:budget=0.25,elite:budget=0.25,objective]
        [--explore 0.02] [--chunk 100]
    python scripts/distill_value.py fit --previous arena/data/value.json [--data td2/rows td3/rows]
        --estimates DIR/estimates --out candidate.json [--rounds 3] [--epochs 2]
        [--rate 0.001] [--lam 0.7] [--seed 151]

Why: ``expit`` (``scripts/train_value.py``) fitted the value by TD(λ) on the games the search
played, so its targets follow the search's choices but value them with the old net.  AlphaZero
trains on the search's own statistics instead.  In afterstate form: at every decision ``elite``
searches, each candidate it plays out has a mean value over its samples (the value at the end
of the own turn after that candidate, a finished game by its result): a target that carries
what the search computed, with less noise than how the game ended.

``play`` plays games in the core (each seat draws one of ``--lineup``; ``elite`` and
``learned`` seats on ``--weights``) with ``selfplay(..., distill=True)``: every searched
decision of an ``elite`` seat leaves, per candidate, the features of the afterstate it led to
(for the deciding seat, on the first sample, where its step is done) with the search's mean
(a chance in [0, 1]) and its number of samples, into ``OUT/estimates``; the games' afterstate
rows (as ``train_value.py td`` keeps them) go to ``OUT/rows``.  Chunks of ``--chunk`` games,
one file each, from ``--seed`` and the chunk's number: resumable, reproducible.  Recording
changes no decision (``tests/bots/test_distill_value.py`` and the core's tests).

``fit`` starts from ``--previous`` and fits, for ``--rounds`` rounds of ``--epochs`` epochs
(Adam ``--rate``), the rows of ``--data`` to their λ-returns (recomputed each round with the
current value, as ``td`` does, so that the value does not forget the positions one ply
reaches; no ``--data``: the estimates alone) together with the rows of ``--estimates`` to
the search's means (fixed targets).
Both on the log loss: the search's mean is a chance, as a λ-return is, and cross-entropy on
a soft target has the gradient sigmoid(z) − p, the same scale for both kinds of row, bounded
where the mean is exactly 0 or 1 (a playout that ended the game), where a regression on the
logit would be infinite.  Every fifth game of each folder is held out; the held-out losses of
the start and of each round are printed (TD, outcome, and against the search's means).
"""

from __future__ import annotations

import json
import math
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import train_value as tv
from _args import at_least, fraction, script_parser

from arena.play.referee import core


def play_chunk(seed: int, chunk: int, games: int, lineup: Sequence[str], explore: float,
               weights: Sequence[str | None]) -> tuple[dict[str, np.ndarray],
                                                      dict[str, np.ndarray]]:
    """One chunk's afterstate rows (``train_value.play_chunk``'s columns) and estimates
    (``x``, ``game``, ``seat``, ``ply``, ``target``: the search's mean, ``samples``)."""
    rows: dict[str, Any] = core().selfplay(
        tv.chunk_seed(seed, chunk), games, list(lineup), weights=list(weights),
        explore=explore, keep=1.0, afterstates=True, distill=True)
    width = len(core().feature_names())
    x = np.frombuffer(rows["features"], dtype="<f4").reshape(-1, width)
    game = np.asarray(list(rows["game"]), dtype=np.int64)
    seat = np.asarray(list(rows["seat"]), dtype=np.int8)
    lineups = np.asarray([list(b) for b in rows["lineups"]], dtype=np.int8).reshape(games, -1)
    after = {"x": x.astype(np.float32), "game": game + chunk * games, "seat": seat,
             "ply": np.asarray(list(rows["ply"]), dtype=np.int32),
             "bot": lineups[game, seat] if len(seat) else seat,
             "outcome": np.asarray(rows["outcome"], dtype=np.float32),
             "margin": np.asarray(rows["margin"], dtype=np.float32)}
    e_game = np.asarray(list(rows["estimate_game"]), dtype=np.int64)
    estimates = {
        "x": np.frombuffer(rows["estimate_features"], dtype="<f4").reshape(-1, width).copy(),
        "game": e_game + chunk * games,
        "seat": np.asarray(list(rows["estimate_seat"]), dtype=np.int8),
        "ply": np.asarray(list(rows["estimate_ply"]), dtype=np.int32),
        "target": np.asarray(rows["estimate_mean"], dtype=np.float32),
        "samples": np.asarray(list(rows["estimate_samples"]), dtype=np.int32)}
    return after, estimates


def play(out: Path, games: int, seed: int, lineup: Sequence[str], explore: float, chunk: int,
         weights: str) -> tuple[int, int]:
    """``games`` games into ``out``/rows and ``out``/estimates (chunks already in both are
    kept): the rows and estimates written by this run."""
    dirs = [out / "rows", out / "estimates"]
    for d in dirs:
        d.mkdir(parents=True, exist_ok=True)
        (d / "meta.json").write_text(json.dumps({
            "seed": seed, "lineup": list(lineup), "explore": explore, "keep": 1.0,
            "chunk": chunk, "afterstates": True, "distill": True,
            "weights": tv.sha256(weights), "features": list(core().feature_names())},
            indent=1) + "\n")
    wts = [weights if tv.on_weights(n) else None for n in lineup]
    chunks = math.ceil(games / chunk)
    start, done, counts = time.monotonic(), 0, [0, 0]
    for c in range(chunks):
        paths = [d / f"chunk-{c:05d}.npz" for d in dirs]
        if all(p.exists() for p in paths):
            continue
        parts = play_chunk(seed, c, min(chunk, games - c * chunk), lineup, explore, wts)
        for path, data, k in zip(paths, parts, range(2)):
            tmp = path.with_suffix(".tmp.npz")
            np.savez(tmp, **data)
            tmp.replace(path)
            counts[k] += len(data["game"])
        done += 1
        per = (time.monotonic() - start) / done
        print(f"chunk {c + 1}/{chunks}: {counts[0]} rows, {counts[1]} estimates this run, "
              f"{per:.1f} s a chunk, ETA {per * (chunks - c - 1):.0f} s", file=sys.stderr,
              flush=True)
    return counts[0], counts[1]


def losses(layers: Sequence[tuple[np.ndarray, np.ndarray]], z: np.ndarray, y: np.ndarray,
           outcome: np.ndarray, ze: np.ndarray, ye: np.ndarray) -> dict[str, float]:
    """Held-out log losses: TD rows on their λ-returns and on the outcomes, estimates on the
    search's means (less the means' own entropy, the floor: a KL divergence)."""
    e_logits, _ = tv.forward(layers, ze)
    p = np.clip(ye, 1e-7, 1 - 1e-7)
    entropy = float(np.mean(-(p * np.log(p) + (1 - p) * np.log(1 - p))))
    out = {"estimate_loss": round(tv.log_loss(e_logits, ye), 5),
           "estimate_kl": round(tv.log_loss(e_logits, ye) - entropy, 5)}
    if len(y):  # no TD rows: the estimates alone
        logits, _ = tv.forward(layers, z)
        out = {"td_loss": round(tv.log_loss(logits, y), 5),
               "outcome_loss": round(tv.log_loss(logits, outcome), 5), **out}
    return out


def distill_train(data: dict[str, np.ndarray], estimates: dict[str, np.ndarray], start: str,
                  lam: float, rounds: int, epochs: int, rate: float, batch: int, seed: int,
                  ) -> tuple[str, dict[str, Any]]:
    """Weights fitted from ``start`` to the λ-returns of ``data`` and the search's means of
    ``estimates`` together (``fit``'s note), and the figures of the fit."""
    names = list(core().feature_names())
    mean, scale, layers = tv.read_weights(start)
    hidden = [len(b) for _, b in layers[:-1]]
    z = (data["x"].astype(np.float64) - mean) * scale
    ze = (estimates["x"].astype(np.float64) - mean) * scale
    ye = estimates["target"].astype(np.float64)
    game, outcome = data["game"], data["outcome"].astype(np.float64)
    held, e_held = game % tv.HOLD_OUT == 0, estimates["game"] % tv.HOLD_OUT == 0
    history: list[dict[str, Any]] = []

    def targets() -> np.ndarray:
        logits, _ = tv.forward(layers, z)
        return tv.lambda_returns(1.0 / (1.0 + np.exp(-logits)), game, data["seat"],
                                 data["ply"], outcome, lam)

    y = targets()
    history.append({"round": 0, **losses(layers, z[held], y[held], outcome[held], ze[e_held],
                                         ye[e_held])})
    print(f"start: {history[-1]}", file=sys.stderr, flush=True)
    for r in range(rounds):
        x_fit = np.concatenate([z[~held], ze[~e_held]])
        y_fit = np.concatenate([y[~held], ye[~e_held]])
        layers = tv.fit(x_fit, y_fit, hidden, epochs, rate, batch, seed + r, start=layers)
        y = targets()
        history.append({"round": r + 1, **losses(layers, z[held], y[held], outcome[held],
                                                 ze[e_held], ye[e_held])})
        print(f"round {r + 1}/{rounds}: {history[-1]}", file=sys.stderr, flush=True)
    figures = {"rows": len(game), "estimates": len(ye), "held_out_rows": int(held.sum()),
               "held_out_estimates": int(e_held.sum()), "history": history}
    meta = {"target": "td+distill", "lambda": lam, "hidden": hidden, "rounds": rounds,
            "epochs": epochs, "rate": rate, "batch": batch, "seed": seed,
            "start": tv.sha256(start), "rows": len(game), "estimates": len(ye),
            **{k: v for k, v in history[-1].items() if k != "round"}}
    return tv.weights_json(names, mean, scale, layers, meta), figures


def no_rows(estimates: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """No TD rows, in the columns ``distill_train`` reads (a fit on the estimates alone)."""
    return {"x": estimates["x"][:0], "game": estimates["game"][:0],
            "seat": estimates["seat"][:0], "ply": estimates["ply"][:0],
            "outcome": estimates["target"][:0]}


def parser() -> Any:
    """The command line: ``play`` then ``fit``."""
    ap = script_parser(
        __doc__,
        "python scripts/distill_value.py play --weights arena/data/value.json --out d --games 100",
        "python scripts/distill_value.py fit --previous arena/data/value.json --data td3/rows "
        "--estimates d/estimates --out candidate.json",
    )
    sub = ap.add_subparsers(dest="command", required=True)
    p = sub.add_parser("play", help="games of the search, its estimates kept")
    p.add_argument("--weights", type=Path, required=True, help="the value the seats play on")
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--games", type=at_least(1), default=3000)
    p.add_argument("--seed", type=int, default=151)
    p.add_argument("--lineup", default=f"{tv.EXPERT},{tv.EXPERT},objective")
    p.add_argument("--explore", type=fraction, default=0.02)
    p.add_argument("--chunk", type=at_least(1), default=100)
    f = sub.add_parser("fit", help="fit TD rows and the search's estimates together")
    f.add_argument("--previous", type=Path, required=True, help="the weights to start from")
    f.add_argument("--data", type=Path, nargs="*", default=[],
                   help="afterstate rows (TD); none: the estimates alone")
    f.add_argument("--estimates", type=Path, nargs="+", required=True)
    f.add_argument("--out", type=Path, required=True)
    f.add_argument("--lam", type=float, default=0.7, help="TD(λ)'s λ")
    f.add_argument("--rounds", type=at_least(1), default=3)
    f.add_argument("--epochs", type=at_least(1), default=2)
    f.add_argument("--rate", type=float, default=0.001)
    f.add_argument("--batch", type=at_least(1), default=256)
    f.add_argument("--seed", type=int, default=151)
    return ap


def main(argv: Sequence[str] | None = None) -> int:
    a = parser().parse_args(argv)
    if a.command == "play":
        lineup = [s.strip() for s in a.lineup.split(",") if s.strip()]
        rows, estimates = play(a.out, a.games, a.seed, lineup, a.explore, a.chunk,
                               a.weights.read_text())
        print(f"{rows} rows and {estimates} estimates written to {a.out}")
    else:
        estimates = tv.load(a.estimates)
        data = tv.load(a.data) if a.data else no_rows(estimates)
        text, figures = distill_train(data, estimates, a.previous.read_text(), a.lam, a.rounds,
                                      a.epochs, a.rate, a.batch, a.seed)
        tv.write_atomic(a.out, text)
        print(json.dumps({**figures, "sha256": tv.sha256(text)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
