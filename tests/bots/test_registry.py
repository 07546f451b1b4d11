"""Bot specs and the registry: names, dotted paths, parameter validation (issue: Bot API)."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

from arena.match import play_game
from bots.base import BotConfigError
from bots.registry import BUILTIN, ENTRY_POINT_GROUP, BotSpec, available, load_class
from tests.bots.plugin_bot import MyBot


def test_dotted_path_loads_a_bot_from_the_tests_without_installing_it() -> None:
    spec = BotSpec.parse("tests.bots.plugin_bot.MyBot:x=3")
    assert spec.bot_class() is MyBot
    assert spec.params == {"x": 3}
    assert spec.full_params() == {"x": 3, "style": "plain"}
    bot = spec.create(random.Random(0))
    assert isinstance(bot, MyBot) and bot.x == 3
    # module:Class works as well as module.Class.
    assert load_class("tests.bots.plugin_bot:MyBot") is MyBot


def test_a_plugin_bot_plays_a_game() -> None:
    spec = BotSpec.parse("tests.bots.plugin_bot.MyBot:x=1")
    bots = [spec.create(random.Random(0)), BotSpec.parse("random").create(random.Random(1))]
    from arena.engine import RuleOptions

    outcome = play_game(bots, seed=3, options=RuleOptions(max_rounds=3))
    assert outcome.error is None


@pytest.mark.parametrize("name", ["random", "greedy", "objective"])
def test_entry_point_names_resolve(name: str) -> None:
    """Our bots are registered under the entry-point group and load by name."""
    assert name in available()
    cls = load_class(name)
    module, _, attr = available()[name].partition(":")
    assert cls.__module__ == module and cls.__name__ == attr
    assert BotSpec.parse(name).class_path == f"{module}.{attr}"


def test_installed_entry_points_match_the_builtin_table() -> None:
    from importlib.metadata import entry_points

    installed = {ep.name: ep.value for ep in entry_points(group=ENTRY_POINT_GROUP)}
    for name in ("random", "greedy", "objective", "mcts"):
        assert installed.get(name, BUILTIN[name]) == BUILTIN[name]


@pytest.mark.parametrize(
    ("text", "valid"),
    [
        ("greedy:depth=3", ["samples"]),
        ("objective:handsize=3", ["hand_size", "beam", "plot_samples", "focus", "protect",
                                  "decay", "deny"]),
        ("tests.bots.plugin_bot.MyBot:y=1", ["x", "style"]),
    ],
)
def test_unknown_key_is_an_error_listing_the_valid_ones(text: str, valid: list[str]) -> None:
    with pytest.raises(BotConfigError) as info:
        BotSpec.parse(text)
    message = str(info.value)
    assert "no parameter" in message
    for name in valid:
        assert name in message


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("greedy:samples=many", ["samples", "integer"]),
        ("greedy:samples=0", ["samples", "at least"]),
        ("greedy:samples=1.5", ["samples", "integer"]),
        ("objective:protect=maybe", ["protect", "true|false"]),
        ("objective:focus=-1", ["focus", "at least"]),
        # A bound past which a decision takes minutes: refused before the run, not an hour in.
        ("objective:plot_samples=101", ["plot_samples", "at most 100"]),
        ("objective:hand_size=6", ["hand_size", "at most 5"]),
        ("mcts:iterations=1000001", ["iterations", "at most 1000000"]),
        ("mcts:time=1e9", ["time", "at most 86400"]),
        ("random:complete=2", ["complete", "true|false"]),
        ("tests.bots.plugin_bot.MyBot:style=fancy", ["style", "plain, odd"]),
    ],
)
def test_bad_value_is_an_error_naming_the_parameter(text: str, words: list[str]) -> None:
    with pytest.raises(BotConfigError) as info:
        BotSpec.parse(text)
    for word in words:
        assert word in str(info.value)


def test_a_boolean_takes_1_and_0_as_rule_options_do() -> None:
    # ``--rule cloud_keep=1`` is accepted, so ``random:complete=1`` is too (the spec reads
    # ``1`` as an integer before the parameter sees it).
    assert BotSpec.parse("random:complete=1").full_params()["complete"] is True
    assert BotSpec.parse("random:complete=0").full_params()["complete"] is False
    assert BotSpec.parse("random:complete=yes").full_params()["complete"] is True


def test_bounds_are_listed_by_arena_bots() -> None:
    from bots.objective import ObjectiveBot

    plot_samples = next(p for p in ObjectiveBot.PARAMS if p.name == "plot_samples")
    focus = next(p for p in ObjectiveBot.PARAMS if p.name == "focus")
    assert plot_samples.range_text() == "1..100"
    assert focus.range_text() == ">= 0"


def test_good_values_are_converted() -> None:
    spec = BotSpec.parse("objective:hand_size=3,focus=1,protect=false,name=careful")
    assert spec.name == "careful"
    params = spec.full_params()
    assert params["hand_size"] == 3
    assert params["focus"] == 1.0 and isinstance(params["focus"], float)
    assert params["protect"] is False


def test_unknown_bot_and_bad_module_are_clear_errors() -> None:
    with pytest.raises(BotConfigError, match="registered bots"):
        BotSpec.parse("nosuchbot")
    with pytest.raises(BotConfigError, match="cannot import"):
        BotSpec.parse("tests.bots.no_such_module.Bot")
    with pytest.raises(BotConfigError, match="not a bot class"):
        BotSpec.parse("tests.bots.plugin_bot.Param")


@pytest.mark.parametrize("source, words", [
    ("def broken(:\n", ["'brokenbots' failed to import", "SyntaxError", "line 1"]),
    ("import no_such_dependency_here\n", ["cannot import", "no_such_dependency_here"]),
    ("raise RuntimeError('no config file')\n",
     ["failed to import", "RuntimeError: no config file", "brokenbots.py, line 1"]),
    ("x = 1\n", ["'brokenbots' has no 'Mine'"]),
])
def test_a_broken_bot_module_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              source: str, words: list[str]) -> None:
    # A user's module that does not import must not end the command in a traceback.
    (tmp_path / "brokenbots.py").write_text(source)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "brokenbots", raising=False)
    with pytest.raises(BotConfigError) as info:
        BotSpec.parse("brokenbots.Mine")
    for word in words:
        assert word in str(info.value)
