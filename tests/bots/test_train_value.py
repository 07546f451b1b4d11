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
