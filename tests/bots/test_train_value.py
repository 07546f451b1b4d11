"""``scripts/train_value.py``: rows played in the core, a reproducible fit, and a value
that learns something (issue 51)."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

from arena.engine import ENGINE
from tests.scripts import load_script

pytestmark = pytest.mark.skipif(ENGINE != "native", reason="the rows are played in the core")

train_value = load_script("train_value")
LONG = os.environ.get("ARENA_LONG") == "1"


def test_the_same_seed_gives_the_same_rows_and_a_resumed_run_the_same_files(tmp_path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    train_value.play(a, 6, 3, ["greedy", "random"], 0.05, 0.3, 3)
    train_value.play(b, 6, 3, ["greedy", "random"], 0.05, 0.3, 3)
    (b / "chunk-00001.npz").unlink()
    train_value.play(b, 6, 3, ["greedy", "random"], 0.05, 0.3, 3)  # resumes chunk 1 only
    da, db = train_value.load([a]), train_value.load([b])
    for key in da:
        assert np.array_equal(da[key], db[key]), key
    assert da["x"].shape[1] == len(train_value.core().feature_names())
    assert set(np.unique(da["outcome"])) <= {0.0, 0.5, 1.0}


@pytest.mark.parametrize("target", ["win", "margin"])
def test_the_same_seed_gives_the_same_weights(tmp_path, target: str) -> None:
    train_value.play(tmp_path, 8, 5, ["greedy", "objective"], 0.05, 0.3, 4)
    data = train_value.load([tmp_path])
    one, _ = train_value.train(data, [8], 2, 0.003, 64, seed=1, quiet=True, target=target)
    two, _ = train_value.train(data, [8], 2, 0.003, 64, seed=1, quiet=True, target=target)
    other, _ = train_value.train(data, [8], 2, 0.003, 64, seed=2, quiet=True, target=target)
    assert train_value.sha256(one) == train_value.sha256(two)
    assert train_value.sha256(one) != train_value.sha256(other)


def test_the_core_computes_the_nets_logit_as_numpy_does(tmp_path) -> None:
    train_value.play(tmp_path, 4, 9, ["greedy"], 0.0, 0.3, 4)
    data = train_value.load([tmp_path])
    text, _ = train_value.train(data, [6, 4], 1, 0.003, 64, seed=3, quiet=True)
    doc = json.loads(text)
    layers = [(np.asarray(d["w"]), np.asarray(d["b"])) for d in doc["layers"]]
    x = data["x"][:5].astype(np.float64)
    z = (x - np.asarray(doc["mean"])) * np.asarray(doc["scale"])
    expected, _ = train_value.forward(layers, z)
    got = [train_value.core().value_logit(text, list(map(float, row))) for row in data["x"][:5]]
    assert np.allclose(got, expected, atol=1e-3)


@pytest.mark.long
def test_a_value_trained_on_a_few_hundred_games_beats_a_random_value(tmp_path) -> None:
    """CI: 60 games, 20 deals; ARENA_LONG=1: 400 games, 100 deals and a significant win."""
    games, deals = (400, 100) if LONG else (60, 20)
    train_value.play(tmp_path, games, 11, ["objective", "objective", "greedy"], 0.05, 0.25, 20)
    data = train_value.load([tmp_path])
    trained, figures = train_value.train(data, [16], 10, 0.003, 128, seed=1, quiet=True)
    untrained, _ = train_value.train(data, [16], 0, 0.003, 128, seed=1, quiet=True)
    assert figures["log_loss"] < figures["base_log_loss"]
    mean, half, _, _ = train_value.duel(trained, untrained, deals, seed=12)
    assert mean > 0.5 + (half if LONG else 0.0), (mean, half)


def test_a_generation_writes_its_figures_and_keeps_only_a_winner(tmp_path) -> None:
    train_value.play(tmp_path / "d", 6, 21, ["greedy", "objective"], 0.05, 0.3, 6)
    first, _ = train_value.train(train_value.load([tmp_path / "d"]), [0], 1, 0.003, 64, seed=1,
                                 quiet=True)
    previous = tmp_path / "gen0.json"
    previous.write_text(first)
    out = tmp_path / "gen1"
    result = train_value.generation(previous, [tmp_path / "d"], out, 4, 22, 2, [0], 1)
    assert json.loads((out / "generation.json").read_text()) == result
    assert result["duel_games"] == 4 and (out / "candidate.json").exists()
    assert (out / "value.json").exists() == result["kept"]
    assert result["kept"] == (result["vs_previous"] - result["vs_previous_half"] > 0.5)


def test_lambda_returns_on_a_hand_made_trajectory() -> None:
    """Two seats' afterstates interleaved out of order: each seat's returns follow its own
    rows by ply, end on its own outcome, and λ = 1 / λ = 0 are Monte Carlo / TD(0)."""
    game = np.array([0, 0, 0, 0, 0, 1])
    seat = np.array([1, 0, 0, 1, 0, 0])
    ply = np.array([4, 5, 0, 1, 2, 0])
    values = np.array([0.3, 0.6, 0.2, 0.5, 0.4, 0.9])
    outcome = np.array([0.0, 1.0, 1.0, 0.0, 1.0, 0.5])
    lam = 0.5
    got = train_value.lambda_returns(values, game, seat, ply, outcome, lam)
    # Seat 0 of game 0 in order: rows 2 (ply 0), 4 (ply 2), 1 (ply 5); it won.
    g1 = 1.0
    g4 = (1 - lam) * 0.6 + lam * g1
    g2 = (1 - lam) * 0.4 + lam * g4
    # Seat 1: rows 3 (ply 1), 0 (ply 4); it lost.
    g0 = 0.0
    g3 = (1 - lam) * 0.3 + lam * g0
    assert np.allclose(got, [g0, g1, g2, g3, g4, 0.5])
    assert np.allclose(train_value.lambda_returns(values, game, seat, ply, outcome, 1.0),
                       outcome)
    td0 = train_value.lambda_returns(values, game, seat, ply, outcome, 0.0)
    assert np.allclose(td0, [0.0, 1.0, 0.4, 0.3, 0.6, 0.5])


def test_a_widened_net_computes_what_the_linear_one_does() -> None:
    rng = np.random.default_rng(4)
    linear = [(rng.standard_normal((1, 5)), np.array([0.3]))]
    x = rng.standard_normal((7, 5))
    wide = train_value.widen(linear, 6, rng)
    assert np.allclose(train_value.forward(wide, x)[0], train_value.forward(linear, x)[0])


def test_td_training_on_afterstates_is_reproducible_by_seed(tmp_path) -> None:
    train_value.play(tmp_path, 4, 31, ["learned", "objective"], 0.02, 1.0, 4,
                     afterstates=True)
    data = train_value.load([tmp_path])
    # Afterstates: one row per kept decision, of the seat that made it.
    assert set(np.unique(data["bot"])) == {0, 1}
    # A linear start (as the shipped weights were when TD began), so that a hidden layer
    # is a widening of it.
    start, _ = train_value.train(data, [0], 1, 0.003, 64, seed=1, quiet=True)
    runs = [train_value.td_train(data, start, hidden, 0.7, 2, 1, 0.001, 64, seed)[0]
            for hidden, seed in (([0], 1), ([0], 1), ([0], 2), ([4], 1), ([4], 1))]
    digests = [train_value.sha256(text) for text in runs]
    assert digests[0] == digests[1] != digests[2]
    assert digests[3] == digests[4] != digests[0]
    assert json.loads(runs[3])["meta"]["target"] == "td"
    assert len(json.loads(runs[3])["layers"]) == 2
