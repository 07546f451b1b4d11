"""The names the Python side reads of the extension module are the ones it exposes.

The PyO3 layer (``arena/native/py/src/lib.rs``) answers the API's questions in plain values
(``arena._native.State`` and ``View``); the classes ``GameState`` and ``PlayerView`` of
``arena.engine.native`` hold them, make the API (``arena/engine/api.py``) and answer every
other field of the reference off the reference's object made from the native one
(``__getattr__``, one conversion); the wrapper and the referee take functions of
``arena._native``, and the bots call methods of its ``Bot``.  A name the Python side reads
that the module lacks, or a field of the reference a native object cannot answer, fails here
by name rather than as an ``AttributeError`` deep in a game.
"""

from __future__ import annotations

import ast
import inspect
import random
import re
import types
from pathlib import Path
from typing import Any

import pytest

from arena.engine import native
from arena.engine import state as ref_state
from arena.engine import view as ref_view
from arena.engine.board import FIELD_NAMES

pytestmark = pytest.mark.skipif(not native.available(), reason="the native engine is not built")

ROOT = Path(__file__).resolve().parents[2]
SOURCES = [p for folder in ("arena", "bots", "reports", "scripts")
           for p in sorted((ROOT / folder).rglob("*.py"))]
#: The calls that hand out the extension module (``arena.engine.native._module``, the
#: referee's ``core``), besides the module's own name ``_native``.
MODULE_CALLS = {"_module", "core"}


def _is_module_call(node: ast.AST) -> bool:
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
    return name in MODULE_CALLS


def _is_native_bot(node: ast.AST) -> bool:
    """``self.twin``: the handle a native seat holds (``arena.play.seat.NativeBot``, an
    ``arena._native.Bot``)."""
    return (isinstance(node, ast.Attribute) and node.attr == "twin"
            and isinstance(node.value, ast.Name) and node.value.id == "self")


def names_read(path: Path) -> dict[str, set[str]]:
    """``{"module": names, "bot": names}``: the attributes ``path`` reads of the extension
    module (``_native.X``, ``_module().X``, ``core().X``, and through a local name given
    one of those, ``module = _module(); module.X``) and of a native seat's handle
    (``self.twin.X``, or ``twin = self.twin; twin.X``).  A name given one of
    these anywhere in the file counts everywhere in it (the files keep one meaning a name)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    module_names, bot_names = {"_native"}, set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            targets = {t.id for t in node.targets if isinstance(t, ast.Name)}
            if _is_module_call(node.value):
                module_names |= targets
            elif _is_native_bot(node.value):
                bot_names |= targets
    found: dict[str, set[str]] = {"module": set(), "bot": set()}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute) or node.attr.startswith("__"):
            continue
        base = node.value
        if _is_module_call(base) or (isinstance(base, ast.Name) and base.id in module_names):
            found["module"].add(node.attr)
        elif _is_native_bot(base) or (isinstance(base, ast.Name) and base.id in bot_names):
            found["bot"].add(node.attr)
    return found


def every_name_read() -> dict[str, dict[str, set[str]]]:
    """Per kind (``module``, ``bot``): each name read and the files that read it."""
    out: dict[str, dict[str, set[str]]] = {"module": {}, "bot": {}}
    for path in SOURCES:
        for kind, names in names_read(path).items():
            for name in names:
                out[kind].setdefault(name, set()).add(path.relative_to(ROOT).as_posix())
    return out


def test_every_name_the_python_side_reads_of_the_module_exists() -> None:
    read = every_name_read()
    # The scan finds what the wrapper, the referee and the bots are known to read: were it
    # to find nothing, the checks below would pass on anything.
    assert {"View", "new_game", "from_position", "play_game", "bot_names",
            "record_fields", "Bot"} <= set(read["module"])
    assert {"choose", "start", "observe_move", "last_iterations"} <= set(read["bot"])
    module = native._module()
    missing = {name: sorted(files) for name, files in read["module"].items()
               if not hasattr(module, name)}
    assert missing == {}
    missing = {name: sorted(files) for name, files in read["bot"].items()
               if not hasattr(module.Bot, name)}
    assert missing == {}


def getters(cls: type) -> set[str]:
    """The attributes a native class makes with getters (its tables' rows and the few
    written out by hand)."""
    return {name for name, value in vars(cls).items()
            if isinstance(value, types.GetSetDescriptorType)}


def properties(cls: type) -> set[str]:
    return {name for name in dir(cls) if isinstance(inspect.getattr_static(cls, name), property)}


def public(names: tuple[str, ...] | set[str]) -> set[str]:
    return {name for name in names if not name.startswith("_")}


def methods(cls: type) -> set[str]:
    return {name for name in public(set(dir(cls)))
            if callable(inspect.getattr_static(cls, name)) and name not in getters(cls)}


@pytest.mark.parametrize(("native_class", "reference", "fields"), [
    ("GameState", ref_state.GameState, FIELD_NAMES),
    ("PlayerView", ref_view.PlayerView, ref_view.PlayerView.__slots__),
], ids=["state", "view"])
def test_the_native_classes_answer_every_reference_name_and_add_none(
    native_class: str, reference: type, fields: tuple[str, ...]
) -> None:
    """The native classes make only the API's properties (and a state's hidden parts, which
    a named edit may leave no position), each a name of the reference; every other public
    field, property and method of the reference is answered too, off the reference's object
    made from the native one (``arena.engine.native.reference_of``)."""
    cls = getattr(native, native_class)
    names = public(fields) | properties(reference)
    made = properties(cls)
    assert {"players", "round", "current", "step", "ended"} <= made <= names
    # `of`: a classmethod there; `as_reference`: the way from a native object to the
    # reference; `of_core`: the way from the core's object.
    assert methods(cls) - methods(reference) - {"of", "as_reference", "of_core"} == set()
    state = native.new_game(3, 5)
    obj = state if native_class == "GameState" else native.PlayerView.of(state, 1)
    assert {name for name in names | methods(reference) if not hasattr(obj, name)} == set()
    with pytest.raises(AttributeError):
        obj.not_a_field  # noqa: B018 - the read is the test


def read_alike(nat: Any, ref: Any, names: set[str]) -> dict[str, tuple[str, str]]:
    """The fields whose values (or the types of them) differ between the two objects."""
    differ = {}
    for name in sorted(names):
        a, b = getattr(nat, name), getattr(ref, name)
        if name == "hands":  # the native hands: a list-like whose items may be replaced
            a = list(a)
        if a != b or type(a) is not type(b):
            differ[name] = (repr(a)[:60], repr(b)[:60])
    return differ


def test_every_getter_reads_what_the_reference_holds() -> None:
    """Each row of the tables, read off a native state and its views at every step of seeded
    random games, equals the reference's field, of the same type (a tuple stays a tuple, a
    frozenset a frozenset, a read-only mapping read-only)."""
    state_names = public(FIELD_NAMES) | properties(ref_state.GameState)
    view_names = public(ref_view.PlayerView.__slots__) | properties(ref_view.PlayerView)
    for seed in range(8):
        rng = random.Random(seed)
        players = 2 + seed % 3
        ref, nat = ref_state.new_game(players, seed), native.new_game(players, seed)
        for _ in range(150):
            assert read_alike(nat, ref, state_names) == {}
            for seat in range(players):
                views = native.PlayerView.of(nat, seat), ref_view.PlayerView.of(ref, seat)
                assert read_alike(*views, view_names) == {}, seat
            if ref.ended:
                break
            action = rng.choice(ref.legal_actions())
            ref.apply(action)
            nat.apply(action)


def test_the_scan_sees_every_way_the_module_is_read(tmp_path: Path) -> None:
    """What the scan reports is what a file reads: so a new ``_native.X`` that the module
    lacks fails the first test."""
    source = tmp_path / "reader.py"
    source.write_text(
        "from arena import _native\n"
        "_native.made_up_function()\n"
        "def f(bot):\n"
        "    module = _module()\n"
        "    module.made_up_class\n"
        "    core().made_up_batch\n"
        "class B:\n"
        "    def choose(self):\n"
        "        native = self.twin\n"
        "        native.made_up_method()\n"
        "        self.twin.made_up_too\n"
    )
    assert names_read(source) == {
        "module": {"made_up_function", "made_up_class", "made_up_batch"},
        "bot": {"made_up_method", "made_up_too"},
    }
    assert not hasattr(native._module(), "made_up_function")


#: The binding's size when issue 53 found it copying the reference's object model (lines of
#: ``arena/native/py/src``), and the bound it keeps since: at most half of that.
BINDING_BEFORE = 3187


def test_the_binding_stays_a_thin_layer() -> None:
    """The extension answers in plain values: three classes (the core's state and view, and
    a built-in bot's handle), no setter, and at most half the lines it had when it imitated
    the reference's objects (the Python classes of ``arena.engine.native`` make those)."""
    sources = sorted((ROOT / "arena" / "native" / "py" / "src").glob("*.rs"))
    text = "\n".join(p.read_text(encoding="utf-8") for p in sources)
    lines = sum(len(p.read_text(encoding="utf-8").splitlines()) for p in sources)
    assert lines <= BINDING_BEFORE // 2, f"arena/native/py/src is {lines} lines"
    classes = re.findall(r"#\[pyclass\(name = \"(\w+)\"", text)
    assert sorted(classes) == ["Bot", "State", "View"]
    assert "#[setter]" not in text and "#[pyclass(" not in text.replace("#[pyclass(name", "")
