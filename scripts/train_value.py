"""Train the ``learned`` bot's value on games played in the native core (issue 51).

Usage::

    python scripts/train_value.py play --out DIR [--games 2000] [--seed 1]
        [--lineup objective,objective,greedy] [--explore 0.05] [--keep 0.25] [--chunk 25]
        [--weights value.json] [--samples 1]
    python scripts/train_value.py fit --data DIR [DIR ...] --out value.json [--seed 1]
        [--hidden 32] [--epochs 30] [--rate 0.003] [--batch 256]
    python scripts/train_value.py generation --previous value.json --out gen2
        [--data d1 d2] [--games 1500] [--seed 1] [--deals 100] [--hidden 0] [--epochs 3]
    python scripts/train_value.py duel --weights value.json [--against objective]
        [--deals 100] [--seed 7] [--bot learned]
    python scripts/train_value.py td --previous value.json --out td1 [--data older/rows]
        [--games 1500] [--seed 1] [--deals 100] [--hidden 0] [--lam 0.7] [--rounds 3]
        [--epochs 2] [--rate 0.001] [--lineup learned,learned,objective] [--explore 0.02]
        [--keep 1.0] [--spread 0.1]
    python scripts/train_value.py expit --previous value.json --out ei1 [--games 1500]
        [--seed 1] [--deals 100] [--lineup elite:budget=0.25,elite:budget=0.25,objective]
        [--search elite:budget=0.25] [td's other options; --hidden 32]
    python scripts/train_value.py pipeline --out DIR [--seed 1] [--scale 1] [--dry-run]

``play`` plays games between native bots (each seat draws one of ``--lineup``; with
probability ``--explore`` a decision is a uniformly random legal action, so that the positions
are not only those the bots would reach) and keeps, at a ``--keep`` share of the decisions,
the features of the position for every seat (``arena._native.feature_names``) and how the
game ended for that seat (1 won, 0 lost, 1/k a shared win): Monte Carlo returns.  The games
go in chunks of ``--chunk``, one file each (``chunk-00000.npz``), each drawn from its own seed
(``--seed`` and the chunk's number), so an interrupted run resumes where it stopped and the
same arguments give the same rows.  Progress and an ETA go to stderr.

``fit`` trains a multilayer perceptron (one or two ReLU hidden layers of ``--hidden`` units,
one logit out) with Adam on the log loss, in numpy, from ``--seed``: the same data and
arguments give the same weights, byte for byte.  Every fifth game is held out (by its
chunk and number, so both seats' rows of a game fall on one side); the held-out log loss
and accuracy are printed next to those of always guessing the base rate.  The weights are
written as JSON (``takenoko-value/1``, what ``arena/native/core/src/bots/learned.rs`` reads)
with their SHA-256 beside them (``value.sha256``).

``generation`` makes the next generation from the last kept weights: it plays ``--games``
games of them (against ``objective`` and themselves, ``--explore`` 0.05) into ``OUT/rows``,
fits on those rows and ``--data``, and keeps the result as ``OUT/value.json`` only if it beats
the last weights on ``--deals`` fresh paired deals by more than the 95% half-width; the
figures (including the score against ``objective``) go to ``OUT/generation.json``.

``td`` is a generation trained TD-Gammon's way: the previous weights play ``--games`` games
(each seat draws one of ``--lineup``) and every kept decision leaves the *afterstate* it chose
(the position it led to, once the seat's step is done: what ``learned``'s one ply compares),
for the seat that chose it (``play --afterstates``).  The value, starting from the previous
weights (widened exactly into ``--hidden`` units if asked: a linear one, or one hidden layer
narrower than that), is fitted to the
λ-returns of those rows along each seat's own game (``lambda_returns``), recomputed with the
current value ``--rounds`` times.  It is judged as ``generation`` judges (duels on fresh
paired deals against the previous weights and ``objective``; ``OUT/td.json``) and kept as
``OUT/value.json`` only if it beats the previous weights.

``expit`` is a generation of expert iteration: ``td`` whose games are played by the search,
``elite`` on the previous weights (``--lineup``, by default ``EXPERT``: ``elite:budget=0.25``
in two seats of three, ``objective`` in the third), so that the λ-returns follow the search's
choices and the next value learns what the search found; it is judged as ``td`` judges, and
also by ``--search`` on the new weights against the same search on the previous (seed + 3,
``OUT/duel-search.json``), and kept only if it wins both duels by more than the half-width.

``pipeline`` makes the shipped weights from nothing: it runs the steps of ``PIPELINE`` (the
recorded chain of ``play``, ``fit`` and ``td`` steps of docs/experiments.md, 13,100 games and
the td steps' 2,400 duel games) in order, each into its own folder under ``--out``, and skips
a step whose output is whole (its ``done.json``, written last; fits, duels and weights are
written by a rename, so a file that exists is whole), so an interrupted run resumes where it
stopped.  Progress over all the steps' games, with an ETA, goes to stderr, each step's
figures (beside what the first run recorded) to stdout, and at the end the SHA-256 of the
final weights and whether it is ``arena/data/value.sha256``'s.  ``--seed S`` adds
1000·(S − 1) to every step's seed (1: the recorded ones); ``--scale`` multiplies every step's
games and deals (a smoke run); ``--dry-run`` prints each step as the command that runs it.
numpy is all it needs (no training library: the nets are a 95-32-1 MLP at most, fitted in
minutes on a CPU).

``duel`` plays ``learned`` on the given weights against a bot (``--against``: a native bot's
name, or another weights file) on ``--deals`` fresh deals, each twice with the seats swapped,
and prints the win rate with its 95% interval and the CPU time; ``--bot`` plays another bot
on the value in both seats (``elite``, ``elite:budget=0.25``) in place of ``learned``.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from _args import at_least, output_dir, positive_float, script_parser

from arena.play.referee import core

#: The weights format the core reads.
FORMAT = "takenoko-value/1"
#: One game in this many is held out of the fit.
HOLD_OUT = 5


def chunk_seed(seed: int, chunk: int) -> int:
    """The seed of one chunk of games (distinct per run seed and chunk)."""
    return seed * 1_000_003 + chunk


def play_chunk(seed: int, chunk: int, games: int, lineup: Sequence[str], explore: float,
               keep: float, weights: Sequence[str | None] | None = None,
               samples: int = 1, afterstates: bool = False) -> dict[str, np.ndarray]:
    """The rows of one chunk of games, played in the core (``samples``: a ``learned``'s;
    ``afterstates``: the positions each seat's decisions led to, for TD targets)."""
    rows: dict[str, Any] = core().selfplay(
        chunk_seed(seed, chunk), games, list(lineup), weights=list(weights) if weights else None,
        explore=explore, keep=keep, samples=samples, afterstates=afterstates)
    width = len(core().feature_names())
    x = np.frombuffer(rows["features"], dtype="<f4").reshape(-1, width)
    in_chunk = np.asarray(list(rows["game"]), dtype=np.int64)
    seat = np.asarray(list(rows["seat"]), dtype=np.int8)
    # Each game's lineup comes as bytes (a Vec<u8>), one per seat.
    lineups = np.asarray([list(b) for b in rows["lineups"]], dtype=np.int8).reshape(games, -1)
    return {
        "x": x.astype(np.float32),
        "game": in_chunk + chunk * games,
        "seat": seat,
        "ply": np.asarray(list(rows["ply"]), dtype=np.int32),
        # Which bot of the lineup made the row's decisions.
        "bot": lineups[in_chunk, seat] if len(seat) else seat,
        "outcome": np.asarray(rows["outcome"], dtype=np.float32),
        "margin": np.asarray(rows["margin"], dtype=np.float32),
    }


def play(out: Path, games: int, seed: int, lineup: Sequence[str], explore: float, keep: float,
         chunk: int, weights: Sequence[str | None] | None = None, samples: int = 1,
         afterstates: bool = False, progress: Callable[[int, bool], None] | None = None) -> int:
    """Play ``games`` games into ``out`` (chunks already there are kept); rows written.
    ``progress``: told the games of each chunk and whether they were played now or found
    (instead of this run's own ETA line), so that a pipeline of many steps gives one ETA."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "meta.json").write_text(json.dumps({
        "seed": seed, "lineup": list(lineup), "explore": explore, "keep": keep, "chunk": chunk,
        "samples": samples, "afterstates": afterstates,
        "features": list(core().feature_names())}, indent=1) + "\n")
    chunks = math.ceil(games / chunk)
    start, done, rows = time.monotonic(), 0, 0
    for c in range(chunks):
        path = out / f"chunk-{c:05d}.npz"
        n = min(chunk, games - c * chunk)
        if path.exists():
            if progress is not None:
                progress(n, False)
            continue
        data = play_chunk(seed, c, n, lineup, explore, keep, weights, samples, afterstates)
        tmp = path.with_suffix(".tmp.npz")
        np.savez(tmp, **data)
        tmp.replace(path)
        done += 1
        rows += len(data["game"])
        if progress is not None:
            progress(n, True)
            continue
        left = sum(1 for k in range(c + 1, chunks) if not (out / f"chunk-{k:05d}.npz").exists())
        per = (time.monotonic() - start) / done
        print(f"chunk {c + 1}/{chunks}: {rows} rows this run, ETA {per * left:.0f} s",
              file=sys.stderr, flush=True)
    return rows


def load(dirs: Sequence[Path]) -> dict[str, np.ndarray]:
    """The rows of these directories, in order (a game id made unique per directory)."""
    parts: list[dict[str, np.ndarray]] = []
    for i, d in enumerate(dirs):
        for path in sorted(d.glob("chunk-*.npz")):
            if path.name.endswith(".tmp.npz"):
                continue
            with np.load(path) as f:
                part = {k: f[k] for k in f.files}
            part["game"] = part["game"] + i * 10**9
            parts.append(part)
    if not parts:
        raise SystemExit(f"no rows in {', '.join(map(str, dirs))}")
    # Rows played before a column existed lack it: the columns all parts have.
    keys = [k for k in parts[0] if all(k in p for p in parts)]
    return {k: np.concatenate([p[k] for p in parts]) for k in keys}


def init(sizes: Sequence[int], rng: np.random.Generator) -> list[tuple[np.ndarray, np.ndarray]]:
    """He-initialised layers (``w`` of shape outputs × inputs)."""
    return [(rng.standard_normal((o, i)) * math.sqrt(2.0 / i), np.zeros(o))
            for i, o in itertools.pairwise(sizes)]


def forward(layers: Sequence[tuple[np.ndarray, np.ndarray]], x: np.ndarray
            ) -> tuple[np.ndarray, list[np.ndarray]]:
    """The logits, and each layer's input (for the backward pass)."""
    acts = [x]
    a = x
    for k, (w, b) in enumerate(layers):
        a = a @ w.T + b
        if k < len(layers) - 1:
            a = np.maximum(a, 0.0)
        acts.append(a)
    return a[:, 0], acts


def log_loss(logits: np.ndarray, y: np.ndarray) -> float:
    """Mean binary cross-entropy of logits against targets in [0, 1]."""
    return float(np.mean(np.logaddexp(0.0, logits) - y * logits))


def fit(x: np.ndarray, y: np.ndarray, hidden: Sequence[int], epochs: int, rate: float,
        batch: int, seed: int, l2: float = 1e-5, target: str = "win",
        report: Any = None, start: Sequence[tuple[np.ndarray, np.ndarray]] | None = None
        ) -> list[tuple[np.ndarray, np.ndarray]]:
    """An MLP fitted with Adam (inputs already standardised): on the log loss of a logit
    (``target`` win), or on the squared error of a linear output (``target`` margin).
    ``start``: the layers to begin from (copied), else He-initialised ones."""
    rng = np.random.default_rng(seed)
    layers = ([(w.copy(), b.copy()) for w, b in start] if start is not None
              else init([x.shape[1], *hidden, 1], rng))
    params = [p for layer in layers for p in layer]
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    step = 0
    for epoch in range(epochs):
        order = rng.permutation(len(x))
        for s in range(0, len(x), batch):
            idx = order[s:s + batch]
            logits, acts = forward(layers, x[idx])
            error = (logits - y[idx] if target == "margin"
                     else 1.0 / (1.0 + np.exp(-logits)) - y[idx])
            grad = error[:, None] / len(idx)
            grads: list[np.ndarray] = []
            for k in range(len(layers) - 1, -1, -1):
                w, _ = layers[k]
                gw = grad.T @ acts[k] + l2 * w
                gb = grad.sum(axis=0)
                grads = [gw, gb, *grads]
                if k > 0:
                    grad = (grad @ w) * (acts[k] > 0)
            step += 1
            for i, (p, g) in enumerate(zip(params, grads)):
                m[i] = 0.9 * m[i] + 0.1 * g
                v[i] = 0.999 * v[i] + 0.001 * g * g
                mh = m[i] / (1 - 0.9**step)
                vh = v[i] / (1 - 0.999**step)
                p -= rate * mh / (np.sqrt(vh) + 1e-8)
        if report is not None:
            report(epoch, layers)
    return layers


def weights_json(names: Sequence[str], mean: np.ndarray, scale: np.ndarray,
                 layers: Sequence[tuple[np.ndarray, np.ndarray]], meta: dict[str, Any]) -> str:
    """The weights file's text (floats rounded to 7 significant digits: float32 in the core)."""
    def r(a: np.ndarray) -> Any:
        return [float(f"{v:.7g}") for v in a] if a.ndim == 1 else [r(row) for row in a]
    doc = {"format": FORMAT, "features": list(names), "mean": r(mean), "scale": r(scale),
           "layers": [{"w": r(w), "b": r(b)} for w, b in layers], "meta": meta}
    return json.dumps(doc, separators=(",", ":")) + "\n"


def train(data: dict[str, np.ndarray], hidden: Sequence[int], epochs: int, rate: float,
          batch: int, seed: int, quiet: bool = False, target: str = "win"
          ) -> tuple[str, dict[str, float]]:
    """The weights file's text and the figures of the fit (held-out loss and accuracy).

    ``target`` win: the output is the logit of the chance to win.  margin: the output is the
    final points lead over the best other seat, in tens of points (more signal per row than
    who won; the bot only compares its values, so either serves it)."""
    names = list(core().feature_names())
    x, game = data["x"].astype(np.float64), data["game"]
    won = data["outcome"].astype(np.float64)
    y = data["margin"].astype(np.float64) / 10.0 if target == "margin" else won
    held = game % HOLD_OUT == 0
    mean = x[~held].mean(axis=0)
    scale = 1.0 / np.maximum(x[~held].std(axis=0), 1e-3)
    z = (x - mean) * scale

    def report(epoch: int, layers: Sequence[tuple[np.ndarray, np.ndarray]]) -> None:
        if not quiet:
            logits, _ = forward(layers, z[held])
            loss = (float(np.mean((logits - y[held]) ** 2)) if target == "margin"
                    else log_loss(logits, y[held]))
            print(f"epoch {epoch + 1}/{epochs}: held-out loss {loss:.4f}", file=sys.stderr,
                  flush=True)

    hidden = [h for h in hidden if h > 0]  # --hidden 0: a linear model
    layers = fit(z[~held], y[~held], hidden, epochs, rate, batch, seed, target=target,
                 report=report)
    logits, _ = forward(layers, z[held])
    if target == "margin":
        figures = {
            "rows": len(y), "games": len(np.unique(game)), "held_out_rows": int(held.sum()),
            "mse": float(np.mean((logits - y[held]) ** 2)),
            "base_mse": float(np.mean((y[~held].mean() - y[held]) ** 2)),
            "accuracy": float(np.mean((logits > 0) == (won[held] > 0.5))),
        }
    else:
        base = float(np.clip(y[~held].mean(), 1e-6, 1 - 1e-6))
        figures = {
            "rows": len(y), "games": len(np.unique(game)), "held_out_rows": int(held.sum()),
            "log_loss": log_loss(logits, y[held]),
            "base_log_loss": log_loss(np.full(int(held.sum()), math.log(base / (1 - base))),
                                      y[held]),
            "accuracy": float(np.mean((logits > 0) == (y[held] > 0.5))),
        }
    meta = {"target": target, "hidden": list(hidden), "epochs": epochs, "rate": rate,
            "batch": batch,
            "seed": seed, **{k: round(v, 5) if isinstance(v, float) else v
                             for k, v in figures.items()}}
    return weights_json(names, mean, scale, layers, meta), figures


def sha256(text: str) -> str:
    """The SHA-256 of a weights file's text, as ``value.sha256`` records it."""
    return hashlib.sha256(text.encode()).hexdigest()


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` by a rename: a file that exists is whole.  Why: a step that
    finds its output resumes by skipping it, so an interrupted write must leave nothing."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    tmp.replace(path)


def duel(weights: str, against: str, deals: int, seed: int, samples: int = 1,
         bot: str = "learned") -> tuple[float, float, int, float]:
    """``bot`` (``learned``, or a search on the value such as ``elite:budget=0.25``) on
    ``weights`` against ``against`` (a bot name, or weights text: the same ``bot`` on them)
    on ``deals`` deals played twice: (score, 95% half-width, games, CPU seconds)."""
    other = bot if against.lstrip().startswith("{") else against
    wts: list[str | None] = [weights, against if other == bot else None]
    cpu = time.process_time()
    rows = core().selfplay(seed, 2 * deals, [bot, other], weights=wts, paired=True,
                              keep=0.0, samples=samples)
    cpu = time.process_time() - cpu
    scores = [out[list(lineup).index(0)] for lineup, out in zip(rows["lineups"], rows["outcomes"])]
    mean = float(np.mean(scores))
    # Paired deals: the interval of the mean of each deal's two games.
    per_deal = np.asarray(scores).reshape(-1, 2).mean(axis=1)
    half = 1.96 * float(per_deal.std(ddof=1)) / math.sqrt(len(per_deal)) if deals > 1 else 1.0
    return mean, half, len(scores), cpu


def generation(previous: Path, data: Sequence[Path], out: Path, games: int, seed: int,
               deals: int, hidden: Sequence[int], epochs: int, samples: int = 1
               ) -> dict[str, Any]:
    """One generation: ``games`` games of the previous weights (with exploration) against
    ``objective`` and themselves go into ``out``/``rows``; the value is fitted on those rows and
    ``data``; it is kept (``out``/``value.json``) only if it beats the previous weights on
    ``deals`` fresh deals played twice by more than the 95% half-width.  The figures are
    returned (and written to ``out``/``generation.json``) either way."""
    old = previous.read_text()
    rows = out / "rows"
    play(rows, games, seed, ["learned", "objective"], 0.05, 0.3, 100, [old, None], samples)
    text, figures = train(load([*data, rows]), hidden, epochs, 0.003, 256, seed, quiet=True)
    mean, half, played, _ = duel(text, old, deals, seed + 1, samples)
    against, against_half, _, _ = duel(text, "objective", deals, seed + 2, samples)
    kept = mean - half > 0.5
    result = {**figures, "sha256": sha256(text), "vs_previous": mean, "vs_previous_half": half,
              "vs_objective": against, "vs_objective_half": against_half, "duel_games": played,
              "kept": kept}
    (out / "candidate.json").write_text(text)
    if kept:
        (out / "value.json").write_text(text)
    (out / "generation.json").write_text(json.dumps(result, indent=1) + "\n")
    return result

def lambda_returns(values: np.ndarray, game: np.ndarray, seat: np.ndarray, ply: np.ndarray,
                   outcome: np.ndarray, lam: float) -> np.ndarray:
    """The λ-return of each afterstate along its seat's own game (TD(λ), forward view).

    A seat's rows, ordered by ``ply``, are its trajectory s_0 … s_T; ``values`` is the current
    value (the chance to win) of each row.  G_T = the game's outcome for the seat, and
    G_t = (1 − λ)·V(s_{t+1}) + λ·G_{t+1}: λ = 1 gives the Monte Carlo return, λ = 0 TD(0).
    Why: a target built on the value's own estimate of the next position averages away the
    luck of the rest of the game, and follows what the seat's own action led to."""
    order = np.lexsort((ply, seat, game))
    g, s = game[order], seat[order]
    last = np.ones(len(order), dtype=bool)
    last[:-1] = (g[1:] != g[:-1]) | (s[1:] != s[:-1])
    v = values[order].tolist()
    z = outcome[order].tolist()
    ends = last.tolist()
    sorted_returns = [0.0] * len(v)
    ret = 0.0
    for i in range(len(v) - 1, -1, -1):
        ret = z[i] if ends[i] else (1.0 - lam) * v[i + 1] + lam * ret
        sorted_returns[i] = ret
    returns = np.empty(len(v))
    returns[order] = sorted_returns
    return returns


def read_weights(text: str) -> tuple[np.ndarray, np.ndarray, list[tuple[np.ndarray, np.ndarray]]]:
    """A weights file's standardisation and layers."""
    doc = json.loads(text)
    layers = [(np.asarray(d["w"], dtype=np.float64), np.asarray(d["b"], dtype=np.float64))
              for d in doc["layers"]]
    return np.asarray(doc["mean"]), np.asarray(doc["scale"]), layers


def widen(layers: Sequence[tuple[np.ndarray, np.ndarray]], hidden: int,
          rng: np.random.Generator, spread: float = 0.1
          ) -> list[tuple[np.ndarray, np.ndarray]]:
    """A one-hidden-layer net of ``hidden`` units that computes what ``layers`` compute.

    A linear start: two hidden units carry u = w·x + b as relu(u) − relu(−u), the others
    start with input weights of standard deviation 0.1 / √inputs.  A start with one hidden
    layer of H ≤ ``hidden`` units: its units are kept as they are, the new ones get input
    weights of standard deviation ``spread`` / √inputs (0.1 small, √2 He's), from ``rng``.
    Either way the new units have no weight on the output, so the widened net's logit is
    the start's (to float rounding in numpy; to the bit in the core, whose sums add the new
    units' zero products last).  Why: TD from a random net unlearns what the start knows;
    from this one it can only add what the new units find.  A narrower or deeper net is
    refused: no exact widening gives one."""
    if len(layers) == 1:
        (w, b), = layers
        w1 = rng.standard_normal((hidden, w.shape[1])) * 0.1 / math.sqrt(w.shape[1])
        b1 = np.zeros(hidden)
        w1[0], w1[1], b1[0], b1[1] = w[0], -w[0], b[0], -b[0]
        w2 = np.zeros((1, hidden))
        w2[0, 0], w2[0, 1] = 1.0, -1.0
        return [(w1, b1), (w2, np.zeros(1))]
    if len(layers) != 2 or layers[0][0].shape[0] > hidden:
        widths = [w.shape[0] for w, _ in layers[:-1]]
        raise ValueError(f"cannot widen hidden layers {widths} exactly into one of {hidden}")
    (w1, b1), (w2, b2) = layers
    more = hidden - w1.shape[0]
    new = rng.standard_normal((more, w1.shape[1])) * spread / math.sqrt(w1.shape[1])
    return [(np.vstack([w1, new]), np.concatenate([b1, np.zeros(more)])),
            (np.hstack([w2, np.zeros((1, more))]), b2.copy())]


def td_train(data: dict[str, np.ndarray], start: str, hidden: Sequence[int], lam: float,
             rounds: int, epochs: int, rate: float, batch: int, seed: int,
             spread: float = 0.1) -> tuple[str, dict[str, Any]]:
    """Weights fitted to λ-returns of afterstate rows, beginning from the ``start`` weights
    (widened exactly to ``hidden`` units when ``hidden`` asks for a layer wider than theirs:
    ``widen``, its new units' input weights of ``spread`` / √inputs).

    Fitted TD: each round computes every row's λ-return with the current value and fits the
    value to them (log loss, ``epochs`` passes); the next round's targets use the new value.
    Every fifth game is held out, and its log loss against the outcomes is reported."""
    names = list(core().feature_names())
    rng = np.random.default_rng(seed)
    mean, scale, layers = read_weights(start)
    hidden = [h for h in hidden if h > 0]
    if hidden and (len(layers) == 1 or hidden[0] != layers[0][0].shape[0]):
        layers = widen(layers, hidden[0], rng, spread)
    z = (data["x"].astype(np.float64) - mean) * scale
    game, outcome = data["game"], data["outcome"].astype(np.float64)
    held = game % HOLD_OUT == 0
    history: list[dict[str, float]] = []
    for r in range(rounds):
        logits, _ = forward(layers, z)
        y = lambda_returns(1.0 / (1.0 + np.exp(-logits)), game, data["seat"], data["ply"],
                           outcome, lam)
        layers = fit(z[~held], y[~held], hidden, epochs, rate, batch, seed + r, start=layers)
        logits, _ = forward(layers, z[held])
        history.append({"round": r + 1, "td_loss": round(log_loss(logits, y[held]), 5),
                        "outcome_loss": round(log_loss(logits, outcome[held]), 5)})
        print(f"round {r + 1}/{rounds}: {history[-1]}", file=sys.stderr, flush=True)
    figures = {"rows": len(game), "games": len(np.unique(game)),
               "held_out_rows": int(held.sum()), **history[-1]}
    meta = {"target": "td", "lambda": lam, "hidden": hidden, "rounds": rounds,
            "epochs": epochs, "rate": rate, "batch": batch, "seed": seed,
            "start": sha256(start), **figures}
    if spread != 0.1:  # recorded only where it differs (the old candidates' bytes stay)
        meta["spread"] = spread
    return weights_json(names, mean, scale, layers, meta), figures


def cached_duel(path: Path, text: str, against: str, deals: int, seed: int, samples: int,
                progress: Callable[[int, bool], None] | None = None, bot: str = "learned"
                ) -> tuple[float, float, int]:
    """``duel``, its result kept in ``path`` (written whole) and read back when the same
    weights, opponent, deals, seed and bot ask again.  Why: a resumed generation need not
    replay a 400-game duel it had finished."""
    key: dict[str, Any] = {"weights": sha256(text), "against": sha256(against), "deals": deals,
                           "seed": seed, "samples": samples}
    if bot != "learned":
        key["bot"] = bot
    if path.exists():
        done = json.loads(path.read_text())
        if done["key"] == key:
            if progress is not None:
                progress(done["games"], False)
            return done["mean"], done["half"], done["games"]
    mean, half, played, _ = duel(text, against, deals, seed, samples, bot)
    write_atomic(path, json.dumps({"key": key, "mean": mean, "half": half, "games": played},
                                  indent=1) + "\n")
    if progress is not None:
        progress(played, True)
    return mean, half, played


def on_weights(name: str) -> bool:
    """Whether a lineup's bot plays on the generation's weights: ``learned``, or ``elite``
    with or without parameters (``elite:budget=0.25``)."""
    return name == "learned" or name.split(":")[0] == "elite"


def td_generation(previous: Path, data: Sequence[Path], out: Path, games: int, seed: int,
                  deals: int, settings: dict[str, Any], samples: int = 1,
                  progress: Callable[[int, bool], None] | None = None) -> dict[str, Any]:
    """One TD generation: ``games`` games of the previous weights (``settings["lineup"]``,
    learned and elite seats on them) keep their afterstates in ``out``/``rows``; the value is
    fitted to λ-returns on those rows and ``data`` (``td_train``, from the previous weights);
    it is judged by duels on fresh paired deals against the previous weights and
    ``objective``, and kept (``out``/``value.json``) only if it beats the previous by more
    than the 95% half-width.  With ``settings["search"]`` (a spec such as
    ``elite:budget=0.25``: expert iteration, the search played the games) that search on the
    new weights also meets it on the previous (seed + 3), and the generation is kept only if
    it wins both duels so, since the shipped weights serve both bots.  Resumable: played
    chunks, a fitted ``candidate.json`` and finished duels (``duel-*.json``) are kept, each
    written whole."""
    old = previous.read_text()
    lineup = settings["lineup"]
    times: dict[str, float] = {}
    clock = time.monotonic()
    rows = out / "rows"
    play(rows, games, seed, lineup, settings["explore"], settings["keep"], 100,
         [old if on_weights(n) else None for n in lineup], samples, afterstates=True,
         progress=progress)
    times["play_s"] = time.monotonic() - clock
    candidate = out / "candidate.json"
    if candidate.exists():
        text, figures = candidate.read_text(), dict(json.loads(candidate.read_text())["meta"])
    else:
        text, figures = td_train(load([*data, rows]), old, settings["hidden"], settings["lam"],
                                 settings["rounds"], settings["epochs"], settings["rate"], 256,
                                 seed, settings.get("spread", 0.1))
        write_atomic(candidate, text)
    times["fit_s"] = time.monotonic() - clock - times["play_s"]
    mean, half, played = cached_duel(out / "duel-previous.json", text, old, deals, seed + 1,
                                     samples, progress)
    against, against_half, _ = cached_duel(out / "duel-objective.json", text, "objective",
                                           deals, seed + 2, samples, progress)
    kept = mean - half > 0.5
    search: dict[str, Any] = {}
    if settings.get("search"):
        s_mean, s_half, _ = cached_duel(out / "duel-search.json", text, old, deals, seed + 3,
                                        samples, progress, bot=settings["search"])
        search = {"search": settings["search"], "search_vs_previous": s_mean,
                  "search_vs_previous_half": s_half}
        kept = kept and s_mean - s_half > 0.5
    times["duel_s"] = time.monotonic() - clock - times["play_s"] - times["fit_s"]
    result = {**figures, **{k: round(v, 1) for k, v in times.items()}, "sha256": sha256(text),
              "vs_previous": mean, "vs_previous_half": half, "vs_objective": against,
              "vs_objective_half": against_half, "duel_games": played, **search, "kept": kept}
    if kept:
        write_atomic(out / "value.json", text)
    write_atomic(out / "td.json", json.dumps(result, indent=1) + "\n")
    return result


#: The chain of steps that made ``arena/data/value.json`` from nothing (docs/experiments.md),
#: one row a step, run in order by ``pipeline``: ``name`` (its folder under ``--out``),
#: ``command`` (the subcommand it runs) and that command's arguments, where ``data``,
#: ``weights`` and ``previous`` name earlier steps (a ``play`` or ``td`` step's rows, a
#: ``fit`` or ``td`` step's weights).  ``recorded``: what the first run of the chain measured,
#: printed beside the new figures so that a divergence shows where it starts (td2 was not
#: kept, but its rows are td3's).  A new generation is one more row.
PIPELINE: list[dict[str, Any]] = [
    {"name": "d1", "command": "play", "games": 3100, "seed": 1, "keep": 0.2,
     "lineup": "objective,objective,greedy", "recorded": {"rows": 183782}},
    {"name": "g1", "command": "fit", "data": ["d1"], "hidden": [32], "epochs": 12, "seed": 1,
     "recorded": {"sha256": "702587cb00a63661996dff6b78d42669293f7f73bb9923ad3b6832a168e9f0c2",
                  "rows": 183782, "log_loss": 0.57925}},
    {"name": "d2", "command": "play", "games": 2000, "seed": 2, "keep": 0.3,
     "lineup": "learned,objective", "weights": "g1"},
    {"name": "linear", "command": "fit", "data": ["d1", "d2"], "hidden": [0], "epochs": 3,
     "seed": 1, "recorded": {"log_loss": 0.499}},
    {"name": "d3", "command": "play", "games": 1500, "seed": 3, "keep": 0.3,
     "lineup": "learned,objective", "weights": "linear"},
    {"name": "linear2", "command": "fit", "data": ["d1", "d2", "d3"], "hidden": [0],
     "epochs": 3, "seed": 1,
     "recorded": {"sha256": "1c7e47b4b3aef43fc7e4cdb688beb78ab9b8356d71f53e0c0772fb5bd330aa6f",
                  "rows": 541070, "log_loss": 0.51675}},
    {"name": "td1", "command": "td", "previous": "linear2", "data": [], "games": 3000,
     "seed": 11, "deals": 200, "hidden": [0],
     "recorded": {"sha256": "4f21e49d148e849318a7b47cf12ebc549710b1315f4c1b15f5ddd30329dbfa64",
                  "vs_previous": 0.611, "vs_objective": 0.524, "kept": True}},
    {"name": "td2", "command": "td", "previous": "td1", "data": ["td1"], "games": 2000,
     "seed": 21, "deals": 200, "hidden": [0],
     "recorded": {"vs_previous": 0.496, "vs_objective": 0.580, "kept": False}},
    {"name": "td3", "command": "td", "previous": "td1", "data": ["td1", "td2"], "games": 1500,
     "seed": 31, "deals": 200, "hidden": [32],
     "recorded": {"sha256": "35ec5f5b064633080c1fe38ceb7ab91369b3dd7ae915fc8f59cc57f24ca51cdb",
                  "rows": 795475, "vs_previous": 0.629, "vs_objective": 0.561, "kept": True}},
]
#: The defaults of each command's arguments, as the recorded chain used them.
STEP_DEFAULTS: dict[str, dict[str, Any]] = {
    "play": {"explore": 0.05, "chunk": 100, "samples": 1, "weights": None},
    "fit": {"rate": 0.003, "batch": 256},
    "td": {"lam": 0.7, "rounds": 3, "epochs": 2, "rate": 0.001,
           "lineup": "learned,learned,objective", "explore": 0.02, "keep": 1.0, "samples": 1},
}
#: The search that plays an expert-iteration generation's games and judges it (``expit``):
#: ``elite`` at a quarter of its samples (one sampled state a decision, about 0.11 s of CPU a
#: seat a game), so that thousands of its games fit in minutes.
EXPERT = "elite:budget=0.25"
#: ``--seed S`` adds ``SEED_STRIDE * (S - 1)`` to every step's seed (S = 1: the recorded
#: seeds); the duels of a ``td`` step use its seed + 1 and + 2, so runs never share games.
SEED_STRIDE = 1000


def resolve(steps: Sequence[dict[str, Any]], seed: int = 1) -> list[dict[str, Any]]:
    """The steps with their defaults filled in and their seeds shifted for ``seed``.

    Checks the chain: every step a row names is an earlier one, of a kind that has what is
    asked (rows: ``play`` or ``td``; weights: ``fit`` or ``td``), and names are unique."""
    kinds: dict[str, str] = {}
    out: list[dict[str, Any]] = []
    for row in steps:
        step = {**STEP_DEFAULTS[row["command"]], **row}
        step["seed"] = row["seed"] + SEED_STRIDE * (seed - 1)
        wanted = [(n, ("play", "td")) for n in step.get("data", [])]
        wanted += [(step[k], ("fit", "td")) for k in ("weights", "previous") if step.get(k)]
        for name, allowed in wanted:
            if kinds.get(name) not in allowed:
                raise SystemExit(f"step {row['name']} needs {name}: not an earlier "
                                 f"{' or '.join(allowed)} step")
        if row["name"] in kinds:
            raise SystemExit(f"two steps are named {row['name']}")
        kinds[row["name"]] = row["command"]
        out.append(step)
    return out


def args(step: dict[str, Any]) -> dict[str, Any]:
    """What makes a step's output: the row less what was recorded of its first run."""
    return {k: v for k, v in step.items() if k != "recorded"}


def step_games(step: dict[str, Any]) -> int:
    """The games a step plays: its own, and a ``td`` step's two duels of paired deals (three
    with a search's)."""
    if step["command"] != "td":
        return step.get("games", 0)
    return step["games"] + 2 * (3 if step.get("search") else 2) * step["deals"]


class Chain:
    """Where each step of a pipeline under ``root`` keeps its rows and weights."""

    def __init__(self, root: Path, steps: Sequence[dict[str, Any]]) -> None:
        self.root = root
        self.steps = {s["name"]: s for s in steps}

    def rows(self, name: str) -> Path:
        """A ``play`` step's folder of chunks, a ``td`` step's ``rows`` in its folder."""
        folder = self.root / name
        return folder / "rows" if self.steps[name]["command"] == "td" else folder

    def weights(self, name: str) -> Path:
        """A step's weights: a ``fit``'s ``value.json``; a ``td`` step's if it was kept,
        else (by the rule that keeps a generation only if it beats the one before) the
        weights it started from."""
        step, path = self.steps[name], self.root / name / "value.json"
        if step["command"] == "td" and not path.exists() and (self.root / name / "td.json"
                                                              ).exists():
            return self.weights(step["previous"])
        return path

    def command(self, step: dict[str, Any]) -> str:
        """The step as the command line that runs it alone (for ``--dry-run``)."""
        name, cmd = step["name"], step["command"]
        parts = ["python scripts/train_value.py", cmd]
        if cmd == "play":
            parts += [f"--out {self.rows(name)}"]
            if step["weights"]:
                parts += [f"--weights {self.weights(step['weights'])}"]
            keys = ("games", "seed", "chunk", "keep", "lineup", "explore", "samples")
        elif cmd == "fit":
            parts += ["--data", *map(str, map(self.rows, step["data"])),
                      f"--out {self.root / name / 'value.json'}"]
            keys = ("hidden", "epochs", "seed", "rate", "batch")
        else:
            parts += [f"--previous {self.weights(step['previous'])}"]
            if step["data"]:
                parts += ["--data", *map(str, map(self.rows, step["data"]))]
            parts += [f"--out {self.root / name}"]
            keys = ("games", "seed", "deals", "hidden", "lam", "rounds", "epochs", "rate",
                    "lineup", "explore", "keep", "samples") + (("search",) if step.get(
                        "search") else ())
        for k in keys:
            v = step[k]
            parts.append(f"--{k} {' '.join(map(str, v)) if isinstance(v, list) else v}")
        return " ".join(parts)


class Progress:
    """Games done of all the pipeline's games, with the rate of this run and an ETA, on
    stderr.  Games found done (a resumed run) count as done but not in the rate."""

    def __init__(self, total: int) -> None:
        self.total, self.done, self.played = total, 0, 0
        self.start = time.monotonic()

    def __call__(self, games: int, played: bool) -> None:
        self.done += games
        if not played:
            return
        self.played += games
        elapsed = time.monotonic() - self.start
        rate = self.played / elapsed if elapsed > 0 else 0.0
        eta = (self.total - self.done) / rate if rate > 0 else float("nan")
        print(f"pipeline: {self.done:,}/{self.total:,} games ({100 * self.done / self.total:.0f}%)"
              f", {rate:.1f} games/s, ETA {eta / 60:.0f} min (games only: fits add to it)",
              file=sys.stderr, flush=True)


def run_step(chain: Chain, step: dict[str, Any], progress: Progress) -> dict[str, Any]:
    """Run one step of the pipeline into its folder; its figures."""
    name, cmd, folder = step["name"], step["command"], chain.root / step["name"]
    if cmd == "play":
        lineup = step["lineup"].split(",")
        text = chain.weights(step["weights"]).read_text() if step["weights"] else None
        rows = play(chain.rows(name), step["games"], step["seed"], lineup, step["explore"],
                    step["keep"], step["chunk"], [text if on_weights(n) else None
                                                  for n in lineup], step["samples"],
                    progress=progress)
        return {"rows": len(load([chain.rows(name)])["game"]), "rows_this_run": rows}
    if cmd == "fit":
        text, figures = train(load([chain.rows(d) for d in step["data"]]), step["hidden"],
                              step["epochs"], step["rate"], step["batch"], step["seed"])
        write_atomic(folder / "value.json", text)
        return {**figures, "sha256": sha256(text)}
    settings = {k: step[k] for k in ("explore", "keep", "hidden", "lam", "rounds", "epochs",
                                     "rate")}
    settings["lineup"] = step["lineup"].split(",")
    settings["search"] = step.get("search")
    return td_generation(chain.weights(step["previous"]), [chain.rows(d) for d in step["data"]],
                         folder, step["games"], step["seed"], step["deals"], settings,
                         step["samples"], progress)


def finished(chain: Chain, step: dict[str, Any]) -> dict[str, Any] | None:
    """A step's figures if its folder holds its whole output, made by this very step (its
    ``done.json``, written last, and the weights it names unchanged); else None."""
    path = chain.root / step["name"] / "done.json"
    if not path.exists():
        return None
    done = json.loads(path.read_text())
    if done["step"] != args(step):
        raise SystemExit(f"{path.parent} was made by another step ({done['step']}): remove it "
                         "or choose another --out")
    digest = done["figures"].get("sha256")
    weights = chain.root / step["name"] / ("candidate.json" if step["command"] == "td"
                                           else "value.json")
    if digest and (not weights.exists() or sha256(weights.read_text()) != digest):
        return None
    return done["figures"]


def pipeline(root: Path, seed: int = 1, steps: Sequence[dict[str, Any]] = PIPELINE,
             dry_run: bool = False) -> dict[str, Any]:
    """Run ``steps`` in order into ``root``, each skipped when its output is already whole,
    and return the final weights' path and SHA-256 (the last step's weights)."""
    resolved = resolve(steps, seed)
    chain = Chain(root, resolved)
    progress = Progress(sum(map(step_games, resolved)))
    for i, step in enumerate(resolved, 1):
        head = f"step {i}/{len(resolved)} {step['name']}"
        if dry_run:
            print(f"{head} ({step_games(step):,} games): {chain.command(step)}")
            continue
        figures = finished(chain, step)
        if figures is not None:
            progress(step_games(step), False)
            print(f"{head}: done before, skipped", file=sys.stderr, flush=True)
        else:
            print(f"{head}: {chain.command(step)}", file=sys.stderr, flush=True)
            clock = time.monotonic()
            figures = {**run_step(chain, step, progress),
                       "step_s": round(time.monotonic() - clock, 1)}
            write_atomic(root / step["name"] / "done.json",
                         json.dumps({"step": args(step), "figures": figures}, indent=1) + "\n")
        shown = {k: v for k, v in figures.items() if k in ("rows", "games", "log_loss",
                 "outcome_loss", "vs_previous", "vs_previous_half", "vs_objective",
                 "vs_objective_half", "kept", "sha256", "step_s")}
        print(f"{step['name']}: {json.dumps(shown)}" + (
            f"\n{step['name']} recorded: {json.dumps(step['recorded'])}"
            if step.get("recorded") else ""), flush=True)
    final = chain.weights(resolved[-1]["name"])
    digest = sha256(final.read_text()) if final.exists() else None
    return {"weights": str(final), "sha256": digest, "games": progress.total}


def scaled(steps: Sequence[dict[str, Any]], factor: float) -> list[dict[str, Any]]:
    """The steps with their games and deals multiplied by ``factor`` (at least 2 of each)."""
    if factor == 1.0:
        return list(steps)
    return [{**s, **{k: max(2, round(s[k] * factor)) for k in ("games", "deals") if k in s}}
            for s in steps]


def run_pipeline(out: Path, seed: int, scale: float, dry_run: bool) -> int:
    """``pipeline``'s command: run it, then say whether the final weights are the shipped."""
    result = pipeline(out, seed, scaled(PIPELINE, scale), dry_run)
    if dry_run:
        print(f"{result['games']:,} games in all, into {out}")
        return 0
    shipped = Path(__file__).resolve().parents[1] / "arena" / "data" / "value.sha256"
    expected = shipped.read_text().split()[0]
    print(f"final weights {result['weights']}: SHA-256 {result['sha256']}")
    print(f"arena/data/value.sha256: {expected}: "
          f"{'equal' if result['sha256'] == expected else 'NOT equal'}")
    return 0


def parser() -> Any:
    """The command line: one subcommand per step."""
    ap = script_parser(
        __doc__,
        "python scripts/train_value.py play --out d1 --games 3100 --seed 1 --chunk 100",
        "python scripts/train_value.py fit --data d1 --out value.json --hidden 0 --epochs 3",
        "python scripts/train_value.py duel --weights value.json --against objective --deals 100",
        "python scripts/train_value.py td --previous value.json --out td1 --games 1000 --seed 11",
        "python scripts/train_value.py pipeline --out run --dry-run",
        "python scripts/train_value.py pipeline --out run",
    )
    sub = ap.add_subparsers(dest="command", required=True)
    p = sub.add_parser("play", help="play games and keep their rows")
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--games", type=int, default=2000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--lineup", default="objective,objective,greedy")
    p.add_argument("--weights", type=Path, help="weights for a 'learned' in the lineup")
    p.add_argument("--explore", type=float, default=0.05)
    p.add_argument("--keep", type=float, default=0.25)
    p.add_argument("--chunk", type=int, default=25)
    p.add_argument("--samples", type=int, default=1, help="a 'learned' seat's samples")
    p.add_argument("--afterstates", action="store_true",
                   help="keep the positions each decision led to (for td)")
    f = sub.add_parser("fit", help="fit the value on played rows")
    f.add_argument("--data", type=Path, nargs="+", required=True)
    f.add_argument("--out", type=Path, required=True)
    f.add_argument("--seed", type=int, default=1)
    f.add_argument("--hidden", type=int, nargs="+", default=[32],
                   help="units of each hidden layer (0: none, a linear model)")
    f.add_argument("--epochs", type=int, default=30)
    f.add_argument("--rate", type=float, default=0.003)
    f.add_argument("--batch", type=int, default=256)
    f.add_argument("--target", choices=["win", "margin"], default="win")
    d = sub.add_parser("duel", help="learned against a bot on fresh paired deals")
    d.add_argument("--weights", type=Path, required=True)
    d.add_argument("--against", default="objective", help="a native bot, or a weights file")
    d.add_argument("--deals", type=int, default=100)
    d.add_argument("--seed", type=int, default=7)
    d.add_argument("--samples", type=int, default=1)
    d.add_argument("--bot", default="learned",
                   help="the bot on both weights: learned, or elite (elite:budget=0.25)")
    pl = sub.add_parser("pipeline", help="from nothing to the shipped weights (PIPELINE)")
    pl.add_argument("--out", type=output_dir, required=True,
                    help="a folder per step, resumable")
    pl.add_argument("--seed", type=at_least(1), default=1,
                    help=f"1: the recorded seeds; S adds {SEED_STRIDE}*(S-1) to every one")
    pl.add_argument("--scale", type=positive_float, default=1.0,
                    help="multiply every step's games and deals (a quick smoke run)")
    pl.add_argument("--dry-run", action="store_true", help="print the steps, run nothing")
    for name, text in (("generation", "play, fit, and keep only a winner over the last"),
                       ("td", "a generation on afterstates with TD(λ) targets"),
                       ("expit", "td on the games of the search (expert iteration)")):
        g = sub.add_parser(name, help=text)
        g.add_argument("--previous", type=Path, required=True, help="the last kept weights")
        g.add_argument("--data", type=Path, nargs="*", default=[], help="older rows to fit on")
        g.add_argument("--out", type=Path, required=True)
        g.add_argument("--games", type=int, default=1500)
        g.add_argument("--seed", type=int, default=1)
        g.add_argument("--deals", type=int, default=100)
        g.add_argument("--hidden", type=int, nargs="+", default=[32] if name == "expit" else [0])
        g.add_argument("--epochs", type=int, default=3 if name == "generation" else 2)
        g.add_argument("--samples", type=int, default=1)
        if name == "generation":
            continue
        expit = name == "expit"
        g.add_argument("--lam", type=float, default=0.7, help="TD(λ)'s λ")
        g.add_argument("--rounds", type=int, default=3, help="target recomputations")
        g.add_argument("--rate", type=float, default=0.001)
        g.add_argument("--lineup", default=f"{EXPERT},{EXPERT},objective" if expit
                       else "learned,learned,objective")
        g.add_argument("--explore", type=float, default=0.02)
        g.add_argument("--keep", type=float, default=1.0)
        g.add_argument("--search", default=EXPERT if expit else None,
                       help="a search on the value that must also beat the previous's")
        g.add_argument("--spread", type=float, default=0.1,
                       help="a widened hidden layer's new units: input weights' std × √inputs "
                            "(0.1 small, 1.414 He's; a linear start's widening keeps 0.1)")
    return ap


def main(argv: Sequence[str] | None = None) -> int:
    a = parser().parse_args(argv)
    if a.command == "play":
        lineup = [s.strip() for s in a.lineup.split(",") if s.strip()]
        text = a.weights.read_text() if a.weights else None
        weights = [text if on_weights(n) else None for n in lineup]
        rows = play(a.out, a.games, a.seed, lineup, a.explore, a.keep, a.chunk, weights,
                    a.samples, a.afterstates)
        print(f"{rows} rows written to {a.out}")
    elif a.command == "fit":
        text, figures = train(load(a.data), a.hidden, a.epochs, a.rate, a.batch, a.seed,
                              target=a.target)
        write_atomic(a.out, text)
        digest = sha256(text)
        a.out.with_suffix(".sha256").write_text(f"{digest}  {a.out.name}\n")
        print(json.dumps({**figures, "sha256": digest}))
    elif a.command == "generation":
        result = generation(a.previous, a.data, a.out, a.games, a.seed, a.deals, a.hidden,
                            a.epochs, a.samples)
        print(json.dumps(result))
    elif a.command == "pipeline":
        return run_pipeline(a.out, a.seed, a.scale, a.dry_run)
    elif a.command in ("td", "expit"):
        settings = {"lineup": [s.strip() for s in a.lineup.split(",") if s.strip()],
                    "explore": a.explore, "keep": a.keep, "hidden": a.hidden, "lam": a.lam,
                    "rounds": a.rounds, "epochs": a.epochs, "rate": a.rate,
                    "search": a.search, "spread": a.spread}
        print(json.dumps(td_generation(a.previous, a.data, a.out, a.games, a.seed, a.deals,
                                       settings, a.samples)))
    else:
        against = a.against
        path = Path(against)
        if against.endswith(".json") and path.exists():
            against = path.read_text()
        mean, half, games, cpu = duel(a.weights.read_text(), against, a.deals, a.seed, a.samples,
                                      a.bot)
        print(f"{a.bot} scored {mean:.3f} ± {half:.3f} in {games} games "
              f"({cpu:.1f} s CPU, {cpu / games:.2f} s a game)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
