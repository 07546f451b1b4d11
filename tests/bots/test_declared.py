"""The built-in bots' parameters are declared once, in ``arena/data/bot_params.json``: the
Python bots read it (``arena.play.bot.declared``) and the native core compiles it in
(``bots/declared.rs``).  These tests hold both sides to the file, and the constants the
code keeps beside it (the shared evaluation's ``DECAY``...) to the defaults it declares."""

from __future__ import annotations

from typing import Any

import pytest

from arena.data import BOT_PARAMS, load
from arena.play import bot as bot_module
from arena.play.bot import Param, declared
from arena.play.limits import MAX_MOVE_TIME
from arena.play.registry import builtin_paths, load_class
from bots.heuristics import DECAY
from bots.mcts import AUTO_ITERATIONS
from bots.mcts_leaves import DEFAULT_TEMPERATURE, LEAVES
from bots.objective import ARCHETYPES

FILE_BOTS = list(load(BOT_PARAMS)["bots"])


def by_name(bot: str) -> dict[str, Param]:
    return {p.name: p for p in declared(bot)}


def test_every_built_in_bot_takes_the_file_s_parameters() -> None:
    natives = {}
    for path in builtin_paths():
        cls = load_class(path)
        if "NATIVE" in cls.__dict__:
            natives[cls.NATIVE] = cls
            assert declared(cls.NATIVE) == cls.PARAMS, cls
    assert sorted(natives) == sorted(FILE_BOTS)


def test_the_core_s_table_is_the_file_s() -> None:
    """Row by row, what the compiled-in copy declares is what Python read from the file (a
    stale build or a second declaration in Rust would differ)."""
    from arena._native import _probe, bot_names

    assert sorted(bot_names()) == sorted(FILE_BOTS)
    for bot in FILE_BOTS:
        rows = [(p.name, p.type.__name__, p.default, p.minimum, p.maximum, list(p.choices))
                for p in declared(bot)]
        core = [(r["name"], r["type"], r["default"], r["minimum"], r["maximum"], r["choices"])
                for r in _probe("bot_params", bot)]
        assert core == rows, bot


def test_the_code_s_constants_are_the_file_s_defaults_and_bounds() -> None:
    for bot in ("greedy", "objective"):
        assert by_name(bot)["decay"].default == DECAY
    mcts = by_name("mcts")
    assert mcts["temperature"].default == DEFAULT_TEMPERATURE
    assert mcts["time"].maximum == MAX_MOVE_TIME
    assert mcts["eval"].choices == ("auto", *LEAVES)
    assert by_name("objective")["prefer"].choices == ARCHETYPES
    assert set(AUTO_ITERATIONS.values()) == {1000}
    assert mcts["iterations"].help.endswith("0 = 1000")


def test_a_float_parameter_s_numbers_are_floats() -> None:
    for bot in FILE_BOTS:
        for p in declared(bot):
            if p.type is float:
                numbers = [p.default, p.minimum, p.maximum]
                assert all(type(n) is float for n in numbers if n is not None), (bot, p.name)


def test_elite_declares_its_own_search_s_parameters() -> None:
    names = [p.name for p in declared("elite")]
    assert names == ["samples", "candidates", "turns", "budget"]
    assert {p.name: p.default for p in declared("elite")}["budget"] == 1.0


def test_a_default_naming_no_parameter_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    table: dict[str, Any] = {
        "a": {"params": [{"name": "n", "type": "int", "default": 1, "help": "n"}]},
        "b": {"like": "a", "defaults": {"m": 2}},
        "c": {"like": "a", "defaults": {"n": 2}},
    }
    monkeypatch.setattr(bot_module, "_bot_table", lambda: table)
    with pytest.raises(ValueError, match="no such parameters of a: \\['m'\\]"):
        declared("b")
    assert declared("c") == (Param("n", int, 2, "n"),)
