"""``scripts/distill_value.py`` and ``selfplay(..., distill=True)``: the search's estimates as
training rows (issue 51), recorded without changing a single decision of the games."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from arena.engine import ENGINE
from tests.scripts import load_script

pytestmark = pytest.mark.skipif(ENGINE != "native", reason="the rows are played in the core")

distill = load_script("distill_value")
ROOT = Path(__file__).resolve().parents[2]
VALUE = (ROOT / "arena" / "data" / "value.json").read_text()
LINEUP = ["elite:budget=0.25", "objective"]


def games(distilled: bool) -> dict:
    """Four games of elite against objective, afterstates kept, estimates asked or not."""
    return distill.core().selfplay(5, 4, LINEUP, weights=[VALUE, None], paired=True,
                                   explore=0.02, keep=1.0, afterstates=True, distill=distilled)


def test_recording_changes_no_game_and_gives_rows_of_the_right_shape() -> None:
    plain, recorded = games(False), games(True)
    # Every decision the same: the same afterstates, the same results, game by game.
    for key in ("features", "game", "seat", "ply", "outcome", "margin", "lineups", "outcomes"):
        assert recorded[key] == plain[key], key
    assert not any(k.startswith("estimate") for k in plain)
    width = len(distill.core().feature_names())
    n = len(recorded["estimate_game"])
    assert n > 50
    assert len(recorded["estimate_features"]) == 4 * width * n
    for key in ("estimate_seat", "estimate_ply", "estimate_mean", "estimate_samples"):
        assert len(recorded[key]) == n, key
    means = np.asarray(recorded["estimate_mean"])
    assert ((means >= 0) & (means <= 1)).all() and means.std() > 0
    assert set(recorded["estimate_samples"]) == {1}  # budget 0.25: one sample
    # Only elite searches: its seat in each game (seat 0 in game 0, seat 1 in game 1, ...).
    elite_seat = [list(lineup).index(0) for lineup in recorded["lineups"]]
    assert all(s == elite_seat[g] for g, s in zip(recorded["estimate_game"],
                                                   recorded["estimate_seat"]))


def test_play_writes_resumable_chunks_and_the_fit_learns_the_estimates(tmp_path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    lineup = ["elite:budget=0.25", "objective"]
    assert distill.play(a, 4, 3, lineup, 0.02, 2, VALUE) == distill.play(b, 4, 3, lineup, 0.02,
                                                                          2, VALUE)
    (b / "estimates" / "chunk-00001.npz").unlink()
    distill.play(b, 4, 3, lineup, 0.02, 2, VALUE)  # replays chunk 1 only
    for kind in ("rows", "estimates"):
        one, two = distill.tv.load([a / kind]), distill.tv.load([b / kind])
        for key in one:
            assert np.array_equal(one[key], two[key]), (kind, key)
    rows, estimates = distill.tv.load([a / "rows"]), distill.tv.load([a / "estimates"])
    assert estimates["x"].shape == (len(estimates["target"]), rows["x"].shape[1])
    text, figures = distill.distill_train(rows, estimates, VALUE, 0.7, 2, 3, 0.003, 64, 1)
    again, _ = distill.distill_train(rows, estimates, VALUE, 0.7, 2, 3, 0.003, 64, 1)
    assert text == again
    # Fitted on them, the value moves toward the search's means (on the rows it was fitted
    # on: a handful of games has too few held out to judge).
    mean, scale, layers = distill.tv.read_weights(text)
    _, _, start = distill.tv.read_weights(VALUE)
    fitted_on = estimates["game"] % distill.tv.HOLD_OUT != 0
    z = (estimates["x"][fitted_on].astype(np.float64) - mean) * scale
    y = estimates["target"][fitted_on].astype(np.float64)
    fitted = distill.tv.log_loss(distill.tv.forward(layers, z)[0], y)
    before = distill.tv.log_loss(distill.tv.forward(start, z)[0], y)
    assert fitted < before, (fitted, before)
    assert figures["estimates"] == len(estimates["target"]) and len(figures["history"]) == 3
    alone, figures = distill.distill_train(distill.no_rows(estimates), estimates, VALUE, 0.7, 1,
                                           3, 0.003, 64, 1)
    assert figures["rows"] == 0 and "td_loss" not in figures["history"][-1]
    layers = distill.tv.read_weights(alone)[2]
    assert distill.tv.log_loss(distill.tv.forward(layers, z)[0], y) < before
