"""``elite`` and the ``budget`` parameter it shares with ``mcts``.

Why these tests: ``budget`` must scale the thinking and nothing else (``mcts`` at budget 1 is
the baseline every strength figure was measured on: its digests hold it), and ``elite`` must
be playable wherever a bot is named: listed by ``arena bots``, parsed from a spec, played by
the native referee, the Python game loop and the reference engine.  Budgets are tiny so the
file runs in seconds; the matches that measure strength are ``scripts/strength.py`` runs
(``docs/experiments.md``).
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from arena.engine import ENGINE, STEP_ACTIONS, PlayerView, RuleOptions, new_game
from arena.engine.actions import COMPLETE, KIND_MASK
from arena.play.bot import BotConfigError
from arena.play.match import play_game
from arena.play.registry import BotSpec, available, make_bot
from arena.play.seat import NativeBot
from bots.elite import ELITE_DEFAULTS, EliteBot
from bots.mcts import MctsBot, scaled_iterations

native_only = pytest.mark.skipif(ENGINE != "native", reason="the native engine's bots")


def test_scaled_iterations_round_half_up_and_keep_at_least_one() -> None:
    assert scaled_iterations(1000, 1.0) == 1000
    assert scaled_iterations(1000, 0.25) == 250
    assert scaled_iterations(1000, 4.0) == 4000
    assert scaled_iterations(3, 0.5) == 2  # 1.5 rounds up, as the Rust port's floor(x + 0.5)
    assert scaled_iterations(1000, 0.0001) == 1


@pytest.mark.parametrize("name", ["mcts", "elite"])
@pytest.mark.parametrize("budget", ["0", "-1", "1001", "lots"])
def test_a_bad_budget_is_refused(name: str, budget: str) -> None:
    with pytest.raises(BotConfigError, match="parameter budget"):
        BotSpec.parse(f"{name}:budget={budget}")


def test_budget_multiplies_the_iterations_of_both_bots() -> None:
    for spec, players, want in [("mcts", 2, 1000), ("mcts:budget=0.25", 2, 250),
                                ("mcts:iterations=200,budget=4", 4, 800),
                                ("elite", 2, 1000), ("elite:budget=4", 3, 4000)]:
        parsed = BotSpec.parse(spec)  # the reference class (a native seat's is in Rust)
        bot = parsed.bot_class()(random.Random(0), **parsed.params)
        bot.start(0, players, RuleOptions())
        assert bot._iterations == want, spec


def test_elite_is_registered_with_its_own_defaults() -> None:
    assert available()["elite"] == "bots.elite:EliteBot"
    bot = BotSpec.parse("elite").create(random.Random(0))
    assert getattr(bot, "reference", type(bot)) is EliteBot  # a native seat stands for it
    mcts = MctsBot(random.Random(0))
    for p in EliteBot.PARAMS:
        want = ELITE_DEFAULTS.get(p.name, getattr(mcts, p.name))
        assert getattr(bot, p.name) == want, p.name
    assert bot.budget == 1.0


def _searched_decision(seed: int) -> tuple[object, list[int]]:
    """A position at the action step where the search decides (no completion pending)."""
    state = new_game(2, seed)
    rng = random.Random(seed)
    for _ in range(30):
        legal = state.legal_actions()
        state.apply(legal[0] if legal[0] & KIND_MASK == COMPLETE else rng.choice(legal))
    while state.step != STEP_ACTIONS or state.legal_actions()[0] & KIND_MASK == COMPLETE:
        state.apply(rng.choice(state.legal_actions()))
    return state, list(state.legal_actions())


@pytest.mark.parametrize("spec,want", [("mcts:iterations=40,budget=0.5", 20),
                                       ("elite:iterations=40,budget=1.5", 60)])
def test_the_search_runs_the_scaled_iterations(spec: str, want: int) -> None:
    state, legal = _searched_decision(31)
    bot = BotSpec.parse(spec).create(random.Random(1))
    bot.start(state.current, 2, state.options)
    assert bot.choose(PlayerView.of(state, state.current), legal) in legal
    assert bot.last_iterations == want


@native_only
def test_the_native_elite_and_its_python_search_decide_alike() -> None:
    """The Rust ``elite`` is the Python search with the same defaults: the same decision and
    the same generator after it."""
    state, legal = _searched_decision(32)
    view = PlayerView.of(state, state.current)
    native = make_bot(BotSpec.parse("elite:budget=0.05"), state.seed, state.current)
    assert isinstance(native, NativeBot)  # a native seat: the Rust twin decides
    python = EliteBot(random.Random(), **native.params)  # the reference: the Python search
    python.rng.setstate(native.rng.getstate())
    for bot in (native, python):
        bot.start(state.current, 2, state.options)
    assert native.choose(view, legal) == python.choose(view, legal)
    assert native.rng.getstate() == python.rng.getstate()
    assert native.last_iterations == 50


def _short_game(specs: list[str], seed: int) -> dict:
    """A whole game of these specs through the Python game loop (``arena.play.match.play_game``)."""
    bots = [make_bot(BotSpec.parse(s), seed, seat) for seat, s in enumerate(specs)]
    outcome = play_game(bots, seed)
    assert outcome.error is None, outcome.error
    return outcome.record


@pytest.mark.timeout(600)
def test_elite_plays_whole_games_in_the_python_loop() -> None:
    record = _short_game(["elite:budget=0.02", "objective"], 5)
    assert record["moves"] and record["winners"]


@pytest.mark.skipif(ENGINE == "reference", reason="the suite runs on the reference already")
@pytest.mark.timeout(900)
def test_the_reference_engine_plays_against_elite() -> None:
    """With ``ARENA_ENGINE=reference`` ``elite`` is the pure-Python search (no port needed:
    it is ``mcts`` with other defaults); a game against it on that engine completes."""
    root = Path(__file__).resolve().parents[2]
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", __file__,
         "-k", "python_loop"],
        cwd=root, env={**os.environ, "ARENA_ENGINE": "reference"}, capture_output=True,
        text=True, timeout=900, check=False,
    )
    assert run.returncode == 0 and "1 passed" in run.stdout, run.stdout[-3000:]


@native_only
def test_the_native_referee_plays_elite() -> None:
    """A tournament's native batch plays ``elite`` without Python in the loop."""
    from arena.play.seat import native_participant

    assert native_participant(BotSpec.parse("elite:budget=0.02")) is not None
