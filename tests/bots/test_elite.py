"""``elite`` (a shallow search on the learned value, native-only) and the ``budget`` parameter
it shares with ``mcts``.

Why these tests: ``budget`` must scale the thinking and nothing else (``mcts`` at budget 1 is
the baseline every strength figure was measured on: its digests hold it; ``elite:budget=4``
must do four times the work of ``elite``), the search must be reproducible from its seed, and
``elite`` must be playable wherever a bot is named: listed by ``arena bots``, parsed from a
spec, played by the native referee and the Python game loop, and on the reference engine (it
has no Python twin: its Rust bot gets the reference's views) as on the native one. Budgets are
small so the file runs in seconds; the matches that measure strength are in
``docs/experiments.md`` ("``elite`` on the learned value").
"""

from __future__ import annotations

import random
import subprocess
import sys

import pytest

from arena.engine import ENGINE, STEP_ACTIONS, PlayerView, RuleOptions, new_game
from arena.engine.actions import COMPLETE, KIND_MASK
from arena.play.bot import BotConfigError
from arena.play.match import play_game
from arena.play.registry import BotSpec, available, make_bot
from arena.play.seat import NativeBot
from bots.elite import EliteBot
from bots.mcts import scaled_iterations

native_only = pytest.mark.skipif(ENGINE != "native", reason="elite is native-only")


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


def test_budget_multiplies_the_iterations_of_mcts() -> None:
    for spec, players, want in [("mcts", 2, 1000), ("mcts:budget=0.25", 2, 250),
                                ("mcts:iterations=200,budget=4", 4, 800)]:
        parsed = BotSpec.parse(spec)  # the reference class (a native seat's is in Rust)
        bot = parsed.bot_class()(random.Random(0), **parsed.params)
        bot.start(0, players, RuleOptions())
        assert bot._iterations == want, spec


def test_elite_is_registered_with_its_own_parameters() -> None:
    assert available()["elite"] == "bots.elite:EliteBot"
    spec = BotSpec.parse("elite:budget=4")
    assert spec.full_params() == {"samples": 4, "candidates": 4, "turns": 1, "budget": 4.0}
    with pytest.raises(BotConfigError, match="no parameter 'delegate'"):
        BotSpec.parse("elite:delegate=none")  # no longer the mcts search


def test_arena_bots_lists_elite_with_its_parameters() -> None:
    run = subprocess.run([sys.executable, "-m", "arena", "bots"], capture_output=True,
                         text=True, timeout=120, check=True)
    lines = run.stdout.splitlines()
    at = next(i for i, x in enumerate(lines) if x.split()[:1] == ["elite"])
    assert "learned value" in lines[at]
    params = [x.split("=")[0].strip() for x in lines[at + 1:at + 5]]
    assert params == ["samples", "candidates", "turns", "budget"]


def _searched_decision(seed: int) -> tuple[object, list[int]]:
    """A position at the action step where the search decides (no completion pending)."""
    state = new_game(2, seed)
    rng = random.Random(seed)
    for _ in range(30):
        legal = state.legal_actions()
        state.apply(legal[0] if legal[0] & KIND_MASK == COMPLETE else rng.choice(legal))
    while (state.step != STEP_ACTIONS or len(state.legal_actions()) < 3
           or state.legal_actions()[0] & KIND_MASK == COMPLETE):
        state.apply(rng.choice(state.legal_actions()))
    return state, list(state.legal_actions())


def _decide(spec: str, state: object, legal: list[int], seed: int) -> tuple[int, int, object]:
    """The decision of a native ``elite`` seat, the leaves it valued, its generator after."""
    bot = make_bot(BotSpec.parse(spec), seed, state.current)  # type: ignore[attr-defined]
    assert isinstance(bot, NativeBot)
    bot.start(state.current, 2, state.options)  # type: ignore[attr-defined]
    action = bot.choose(PlayerView.of(state, state.current), legal)  # type: ignore[attr-defined]
    assert action in legal
    return action, bot.last_iterations, bot.rng.getstate()


@native_only
def test_the_budget_scales_the_leaves_valued() -> None:
    """``budget`` multiplies the samples, so the work: summed over a few decisions (a
    playout's length varies with its sample), 4x the budget values about 4x the leaves."""
    small = large = 0
    for seed in (41, 42, 43):
        state, legal = _searched_decision(seed)
        small += _decide("elite:budget=0.5", state, legal, 1)[1]
        large += _decide("elite:budget=2", state, legal, 1)[1]
    assert small > 0
    assert 3.0 <= large / small <= 5.5, (small, large)


@native_only
def test_the_same_seed_makes_the_same_decision() -> None:
    state, legal = _searched_decision(44)
    assert _decide("elite", state, legal, 7) == _decide("elite", state, legal, 7)
    draws = {_decide("elite", state, legal, seed)[2] for seed in (7, 8)}
    assert len(draws) == 2  # the seed is what it draws from


def _short_game(specs: list[str], seed: int) -> dict:
    """A whole game of these specs through the Python game loop (``arena.play.match.play_game``)."""
    bots = [make_bot(BotSpec.parse(s), seed, seat) for seat, s in enumerate(specs)]
    outcome = play_game(bots, seed)
    assert outcome.error is None, outcome.error
    return outcome.record


@native_only
@pytest.mark.timeout(600)
def test_elite_plays_whole_games_in_the_python_loop() -> None:
    record = _short_game(["elite:budget=0.25", "objective"], 5)
    assert record["moves"] and record["winners"]


@native_only
def test_the_native_referee_plays_elite() -> None:
    """A tournament's native batch plays ``elite`` without Python in the loop."""
    from arena.play.seat import native_participant

    assert native_participant(BotSpec.parse("elite:budget=0.25")) is not None


def test_the_class_says_where_elite_decides() -> None:
    """``EliteBot`` itself only declares the bot: asked to decide (there is no Python port of
    the search), it says to make the bot from its spec."""
    state, legal = _searched_decision(45)
    bot = EliteBot(random.Random(0))
    bot.start(state.current, 2, state.options)  # type: ignore[attr-defined]
    with pytest.raises(NotImplementedError, match=r"no Python twin.*make it from its spec"):
        bot.choose(PlayerView.of(state, state.current), legal)  # type: ignore[attr-defined]


@pytest.mark.skipif(ENGINE != "native", reason="run from the native side (the reference "
                    "in a subprocess)")
@pytest.mark.timeout(900)
def test_the_reference_engine_plays_elite_as_the_native_engine_does() -> None:
    """Issue 51's check for ``elite`` too: the same seeded games on the reference engine (the
    Rust bot called from the Python loop with the reference's views, in a subprocess) and on
    the native one give the same records, 2 and 4 players."""
    from tests.bots.test_native_bots import record_text, reference_records

    games = [
        {"specs": ["elite:budget=0.25", "greedy"], "seed": 201, "options": {}},
        {"specs": ["objective", "elite:budget=0.25,candidates=2", "random", "greedy"],
         "seed": 202, "options": {}},
    ]
    for case, ref in zip(games, reference_records(games), strict=True):
        assert record_text(case) == ref, case


#: (bot spec, players, seed, decisions) -> digest, as ``tests/bots/test_decision_digests.py``
#: computes them; here because ``elite`` is native-only (that file checks its cases on the
#: reference engine too).  The shipped weights (``value.sha256``) and the search decide these:
#: a change of either re-makes them in its own commit (``python -m tests.bots.test_elite``).
DIGESTS: dict[tuple[str, int, int, int | None], str] = {
    ("elite", 2, 1, None): "75949240ae9fbb19",
    ("elite", 4, 3, None): "941c955c581d4944",
}


@native_only
@pytest.mark.parametrize("case", list(DIGESTS), ids=lambda c: f"{c[0]}-{c[1]}p-seed{c[2]}")
def test_decisions_are_unchanged(case: tuple[str, int, int, int | None]) -> None:
    from tests.bots.test_decision_digests import game_digest

    assert game_digest(*case) == DIGESTS[case]


if __name__ == "__main__":  # pragma: no cover - prints the table to paste above
    from tests.bots.test_decision_digests import game_digest

    for key in DIGESTS:
        print(f"    {key!r}: {game_digest(*key)!r},")
