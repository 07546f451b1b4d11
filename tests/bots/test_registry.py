"""Bot specs and the registry: names, dotted paths, parameter validation (issue: Bot API)."""

from __future__ import annotations

import importlib
import inspect
import random
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.jail.sandbox import Isolation
from arena.play.bot import Bot, BotConfigError
from arena.play.match import play_game
from arena.play.registry import (
    DISTRIBUTION,
    ENTRY_POINT_GROUP,
    BotSpec,
    Registered,
    available,
    builtin_paths,
    load_class,
    registered,
    runs_only_ours,
)
from tests.bots.plugin_bot import MyBot

ROOT = Path(__file__).resolve().parents[2]


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


def ours() -> dict[str, str]:
    """The bots ``pyproject.toml`` registers: the arena's own."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return project["project"]["entry-points"][ENTRY_POINT_GROUP]


def test_the_built_in_bots_are_the_distributions_entry_points_and_trusted() -> None:
    """Every bot of ``pyproject.toml`` is registered by the arena's own distribution (the
    installed metadata agrees with the file), keeps its name, and is trusted: it runs in the
    worker's process, its spec is parsed here."""
    assert ours()  # the file has the table this test reads
    for name, target in ours().items():
        assert Registered(name, target, DISTRIBUTION) in registered(), name
        assert available()[name] == target
        if load_class(target).LOADS_USER_CODE:  # the policy bot runs the user's module
            assert not runs_only_ours(target), name
            continue
        assert runs_only_ours(target)
        spec = BotSpec.parse(name)
        assert not Isolation().isolates(spec), name
        assert Isolation().trusts_text(f"{name}:name=x")
    assert builtin_paths() == {t.replace(":", ".") for t in ours().values()
                               if not load_class(t).LOADS_USER_CODE}


def test_every_bot_class_of_the_bots_package_is_registered() -> None:
    """A ``bots/foo.py`` whose bot is left out of ``pyproject.toml`` would have no name and
    would run isolated, five times slower: every bot class defined in ``bots/`` must be
    registered (and so trusted)."""
    defined = set()
    for path in sorted((ROOT / "bots").glob("*.py")):
        module = importlib.import_module(f"bots.{path.stem}")
        defined |= {f"{module.__name__}.{name}" for name, cls in inspect.getmembers(
            module, inspect.isclass) if issubclass(cls, Bot) and cls is not Bot
            and cls.__module__ == module.__name__ and not name.startswith("_")}
    assert defined  # the walk found the bots
    assert defined <= builtin_paths()


@pytest.fixture
def fresh_registry() -> Iterator[None]:
    """The entry points read again, before and after the test (they are cached)."""
    registered.cache_clear()
    yield
    registered.cache_clear()


def test_a_bot_registered_by_another_distribution_is_not_trusted(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh_registry: None) -> None:
    """A plugin installed beside the arena (a distribution's metadata on the path) names its
    bot, but the bot runs isolated, and it cannot take over the name of one of ours."""
    info = tmp_path / "someone_else-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: someone-else\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        f"[{ENTRY_POINT_GROUP}]\nmine = tests.bots.plugin_bot:MyBot\n"
        "random = tests.bots.plugin_bot:MyBot\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert Registered("mine", "tests.bots.plugin_bot:MyBot", "someone-else") in registered()
    assert available()["mine"] == "tests.bots.plugin_bot:MyBot"
    assert available()["random"] == ours()["random"]  # ours wins the name
    spec = BotSpec.parse("mine:x=1")
    assert spec.bot_class() is MyBot
    assert not runs_only_ours("mine")
    assert Isolation().isolates(spec)
    assert not Isolation().trusts_text("mine:x=1")
    assert Isolation(trusted=frozenset({"mine"})).trusts_text("mine:x=1")
    assert Isolation(mode="none").trusts_text("mine")
    assert Isolation().trusts_text("random")


def test_a_dotted_path_is_trusted_only_when_it_names_one_of_ours() -> None:
    assert Isolation().trusts_text("bots.greedy.GreedyBot:samples=2")
    assert not Isolation().trusts_text("tests.bots.plugin_bot.MyBot")
    assert Isolation().isolates(BotSpec.parse("tests.bots.plugin_bot.MyBot"))


def test_without_registered_bots_the_error_says_to_install(
        monkeypatch: pytest.MonkeyPatch, fresh_registry: None) -> None:
    """A source tree that was never installed has no entry points: the error says why."""
    import arena.play.registry

    monkeypatch.setattr(arena.play.registry, "distributions", lambda: [])
    with pytest.raises(BotConfigError, match="pip install -e"):
        BotSpec.parse("random")
    assert BotSpec.parse("bots.random_bot.RandomBot").name == "bots.random_bot.RandomBot"


def test_a_malformed_spec_is_refused_before_any_import() -> None:
    """The trust decision reads a spec with the spec parser: bad text is its error."""
    with pytest.raises(BotConfigError, match="is not key=value"):
        Isolation().trusts_text("mypkg.Mine:fast")
    with pytest.raises(BotConfigError, match="names no bot"):
        Isolation().trusts_text(":x=1")


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


def test_a_distribution_calling_itself_the_arena_is_not_trusted(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh_registry: None) -> None:
    """The attack of issue 50: a ``takenoko_arena-99.0.dist-info`` beside a bot, named as the
    arena's distribution.  Trust is decided by where the target's files are, so its bots are
    foreign, checked in a jail, never imported here, and it takes no name of ours."""
    from arena.jail.sandbox import ForeignSpec, parse_participant

    marks = tmp_path / "imports"
    monkeypatch.setenv("ARENA_IMPORT_SPY", str(marks))
    info = tmp_path / "takenoko_arena-99.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {DISTRIBUTION}\nVersion: 99.0\n")
    spy = "tests.tournament.import_spy:Quiet"
    (info / "entry_points.txt").write_text(
        f"[{ENTRY_POINT_GROUP}]\nspy = {spy}\ngreedy = {spy}\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert Registered("spy", spy, DISTRIBUTION) in registered()
    assert available()["greedy"] == ours()["greedy"]  # ours wins the name
    assert not runs_only_ours("spy") and not Isolation().trusts_text("spy")
    spec = parse_participant("spy", Isolation())
    assert isinstance(spec, ForeignSpec) and Isolation().isolates(spec)
    assert [p.name for p in spec.declared()] == ["complete"]
    assert "tests.tournament.import_spy" not in sys.modules and not marks.exists()
    assert spy.replace(":", ".") not in builtin_paths()


def test_a_file_linked_into_a_foreign_package_is_foreign(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A package of its own whose module is a link to one of ours is not ours: its
    ``__init__`` and its relative imports are the package's."""
    package = tmp_path / "lookalike"
    package.mkdir()
    (package / "__init__.py").symlink_to(ROOT / "bots" / "__init__.py")
    (package / "greedy.py").symlink_to(ROOT / "bots" / "greedy.py")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert not runs_only_ours("lookalike.greedy.GreedyBot")
    assert runs_only_ours("bots.greedy.GreedyBot")
    assert "lookalike" not in sys.modules


def test_a_module_is_ours_only_where_the_import_would_find_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A finder on ``sys.meta_path`` (an editable install's) that would load a name of ours
    from another folder decides where the import goes: that bot is not ours."""
    import importlib.util

    # A module of ours that the import would look for afresh (another test of the same
    # process may have imported it: that copy is put back afterwards).
    name = "arena.show.card_svg"
    monkeypatch.delitem(sys.modules, name, raising=False)
    evil = tmp_path / "evil.py"
    evil.write_text("")

    class Elsewhere:
        @staticmethod
        def find_spec(fullname: str, path: object = None, target: object = None) -> object:
            if fullname == name:
                return importlib.util.spec_from_file_location(name, evil)
            return None

    monkeypatch.setattr(sys, "meta_path", [Elsewhere(), *sys.meta_path])
    assert not runs_only_ours(f"{name}.Bot")
    assert name not in sys.modules
