"""``scripts/train_value.py``: rows played in the core, a reproducible fit, and a value
that learns something (issue 51)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

from arena.engine import ENGINE
from tests.scripts import load_script

pytestmark = pytest.mark.skipif(ENGINE != "native", reason="the rows are played in the core")

train_value = load_script("train_value")
LONG = os.environ.get("ARENA_LONG") == "1"
ROOT = Path(__file__).resolve().parents[2]


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
    got = [train_value.core()._probe("value_logit", [text, list(map(float, row))])
           for row in data["x"][:5]]
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


@pytest.mark.parametrize(("hidden", "spread"), [(64, 0.1), (128, 0.1), (128, 1.414)])
def test_the_shipped_net_widened_computes_its_value_to_the_bit_in_the_core(
        tmp_path, hidden: int, spread: float) -> None:
    """td3's 95-32-1 net widened to 95-H-1: its 32 units kept, the new ones with random
    input weights and none on the output.  The core's logit is the same float32 bit for bit
    (the new units' zero products come last in each sum); numpy's to rounding."""
    shipped = (ROOT / "arena" / "data" / "value.json").read_text()
    mean, scale, layers = train_value.read_weights(shipped)
    assert [w.shape for w, _ in layers] == [(32, 95), (1, 32)]
    wide = train_value.widen(layers, hidden, np.random.default_rng(7), spread)
    assert [w.shape for w, _ in wide] == [(hidden, 95), (1, hidden)]
    # The new units see the inputs, with weights of the asked spread.
    assert np.std(wide[0][0][32:]) * np.sqrt(95) == pytest.approx(spread, rel=0.1)
    assert not wide[1][0][0, 32:].any()  # and say nothing yet
    text = train_value.weights_json(train_value.core().feature_names(), mean, scale, wide, {})
    train_value.play(tmp_path, 2, 41, ["objective", "greedy"], 0.0, 0.5, 2)
    rows = train_value.load([tmp_path])["x"][:40]
    z = (rows.astype(np.float64) - mean) * scale
    assert np.allclose(train_value.forward(wide, z)[0], train_value.forward(layers, z)[0],
                       rtol=1e-12, atol=1e-12)
    probe = train_value.core()._probe
    old = [probe("value_logit", [shipped, list(map(float, x))]) for x in rows]
    new = [probe("value_logit", [text, list(map(float, x))]) for x in rows]
    assert len(set(old)) > 10 and new == old


def test_a_net_is_not_narrowed_or_deepened_by_widen() -> None:
    rng = np.random.default_rng(5)
    one = train_value.init([5, 8, 1], rng)
    with pytest.raises(ValueError, match="cannot widen"):
        train_value.widen(one, 4, rng)
    with pytest.raises(ValueError, match="cannot widen"):
        train_value.widen(train_value.init([5, 8, 4, 1], rng), 16, rng)


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
    # A hidden-layer start is widened too (4 units to 6), and not narrowed.
    wider, _ = train_value.td_train(data, runs[3], [6], 0.7, 1, 1, 0.001, 64, 1)
    assert [len(layer["w"]) for layer in json.loads(wider)["layers"]] == [6, 1]
    with pytest.raises(ValueError, match="cannot widen"):
        train_value.td_train(data, runs[3], [2], 0.7, 1, 1, 0.001, 64, 1)


#: A pipeline of the recorded chain's three kinds of step, a few games each (seconds).
TINY = [
    {"name": "d", "command": "play", "games": 4, "seed": 1, "keep": 0.3, "chunk": 2,
     "lineup": "greedy,objective"},
    {"name": "v", "command": "fit", "data": ["d"], "hidden": [0], "epochs": 1, "seed": 1,
     "batch": 64},
    {"name": "t", "command": "td", "previous": "v", "data": ["d"], "games": 4, "seed": 11,
     "deals": 2, "hidden": [4], "rounds": 1, "epochs": 1},
]


def test_the_recorded_chain_uses_only_earlier_steps_outputs_and_its_seeds() -> None:
    steps = train_value.resolve(train_value.PIPELINE)
    seen: dict[str, str] = {}
    for step in steps:
        for name in step.get("data", []):
            assert seen[name] in ("play", "td"), (step["name"], name)
        for key in ("weights", "previous"):
            if step.get(key):
                assert seen[step[key]] in ("fit", "td"), (step["name"], step[key])
        seen[step["name"]] = step["command"]
    assert [s["seed"] for s in steps] == [1, 1, 2, 1, 3, 1, 11, 21, 31]
    assert [s["seed"] for s in train_value.resolve(train_value.PIPELINE, seed=3)] == [
        s["seed"] + 2 * train_value.SEED_STRIDE for s in steps]
    # The shipped weights are the last step's, as recorded.
    shipped = (ROOT / "arena" / "data" / "value.sha256").read_text().split()[0]
    assert train_value.PIPELINE[-1]["recorded"]["sha256"] == shipped
    assert sum(map(train_value.step_games, steps)) == 13_100 + 3 * 800


@pytest.mark.parametrize("broken", [
    {"name": "x", "command": "fit", "data": ["later"], "hidden": [0], "epochs": 1, "seed": 1},
    {"name": "x", "command": "play", "games": 2, "seed": 1, "keep": 0.3, "lineup": "learned",
     "weights": "d"},
    {"name": "d", "command": "play", "games": 2, "seed": 1, "keep": 0.3, "lineup": "greedy"},
])
def test_a_step_that_needs_what_no_earlier_step_made_is_refused(broken) -> None:
    with pytest.raises(SystemExit):
        train_value.resolve([TINY[0], broken])


def test_a_dry_run_prints_each_steps_command_and_runs_nothing(tmp_path, capsys) -> None:
    train_value.pipeline(tmp_path / "run", dry_run=True)
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(train_value.PIPELINE)
    assert lines[0].startswith("step 1/9 d1 (3,100 games): python scripts/train_value.py play")
    assert f"--previous {tmp_path / 'run' / 'td1' / 'value.json'}" in lines[-1]
    assert f"--data {tmp_path / 'run' / 'td1' / 'rows'} {tmp_path / 'run' / 'td2' / 'rows'}" \
        in lines[-1]
    assert not (tmp_path / "run").exists()


def test_a_tiny_pipeline_is_reproducible_and_resumes_by_skipping_whole_steps(
        tmp_path, capsys) -> None:
    a = train_value.pipeline(tmp_path / "a", steps=TINY)
    b = train_value.pipeline(tmp_path / "b", steps=TINY)
    assert a["sha256"] == b["sha256"] is not None
    assert a["games"] == 4 + 4 + 8
    other = train_value.pipeline(tmp_path / "c", seed=2, steps=TINY)
    assert other["sha256"] != a["sha256"]
    capsys.readouterr()
    # A second run finds every step whole and plays nothing.
    stamps = {p: p.stat().st_mtime_ns for p in (tmp_path / "a").rglob("*")}
    assert train_value.pipeline(tmp_path / "a", steps=TINY) == a
    assert capsys.readouterr().err.count("done before, skipped") == 3
    assert {p: p.stat().st_mtime_ns for p in (tmp_path / "a").rglob("*")} == stamps
    # A td step cut off after its fit and one duel redoes only the other duel.
    (tmp_path / "a" / "t" / "done.json").unlink()
    (tmp_path / "a" / "t" / "duel-objective.json").unlink()
    assert train_value.pipeline(tmp_path / "a", steps=TINY) == a
    err = capsys.readouterr().err
    assert err.count("done before, skipped") == 2 and "round 1/1" not in err
    assert (tmp_path / "a" / "t" / "duel-objective.json").exists()
    # Another step's folder under the same name is refused, not overwritten.
    with pytest.raises(SystemExit, match="another step"):
        train_value.pipeline(tmp_path / "a", steps=[{**TINY[0], "keep": 0.5}])


def test_an_expert_iteration_step_plays_the_searchs_games_and_judges_the_search_too(
        tmp_path) -> None:
    """``expit``'s chain in a few games: elite (on the previous weights) plays the games whose
    afterstates train the next value, and elite on the new weights meets elite on the old."""
    search = {"name": "e", "command": "td", "previous": "t", "data": [], "games": 2,
              "seed": 41, "deals": 2, "hidden": [4], "rounds": 1, "epochs": 1,
              "lineup": f"{train_value.EXPERT},objective", "search": train_value.EXPERT}
    steps = [*TINY, search]
    a = train_value.pipeline(tmp_path / "a", steps=steps)
    b = train_value.pipeline(tmp_path / "b", steps=steps)
    assert a["sha256"] == b["sha256"]
    figures_of = [{k: v for k, v in json.loads((tmp_path / r / "e" / "td.json").read_text())
                   .items() if not k.endswith("_s")} for r in ("a", "b")]
    assert figures_of[0] == figures_of[1]
    assert a["games"] == 4 + 4 + 8 + 2 + 12
    figures = json.loads((tmp_path / "a" / "e" / "td.json").read_text())
    assert figures["search"] == train_value.EXPERT
    assert 0.0 <= figures["search_vs_previous"] <= 1.0
    # Not kept on 2 deals (a half-width of the whole range): the chain's weights are those
    # the step started from.
    assert not figures["kept"] and Path(a["weights"]).parent.name in ("t", "v")
    rows = train_value.load([tmp_path / "a" / "e" / "rows"])
    assert len(rows["game"]) > 0 and set(np.unique(rows["game"])) == {0, 1}
    duel = json.loads((tmp_path / "a" / "e" / "duel-search.json").read_text())
    assert duel["key"]["bot"] == train_value.EXPERT and duel["games"] == 4


def test_a_lineup_refuses_parameters_of_a_bot_that_takes_none_here() -> None:
    with pytest.raises(ValueError, match="only elite"):
        train_value.play_chunk(1, 0, 1, ["objective:depth=2", "greedy"], 0.0, 0.0)
    with pytest.raises(ValueError, match="budget"):
        train_value.play_chunk(1, 0, 1, ["elite:budget=x", "greedy"], 0.0, 0.0)
