"""The direction of dependencies (the README's "Layout"): limits below everything that
uses them, the engine importing nothing else of ours, and no cycle among module-level
imports (an import cycle makes the order of imports matter, and a module half-initialised
when its partner reads it fails far from the cause)."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("arena", "bots", "reports")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def top_level_imports(path: Path, *, inside_functions: bool = False) -> set[str]:
    """The project modules ``path`` imports when it is imported (not under
    ``if TYPE_CHECKING``; inside functions too with ``inside_functions``)."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()

    def visit(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, ast.If):
                if "TYPE_CHECKING" not in ast.unparse(node.test):
                    visit(node.body)
                    visit(node.orelse)
            elif isinstance(node, ast.Try) or (inside_functions and isinstance(
                node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.With | ast.For
                | ast.While
            )):
                visit(node.body)
            elif isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*anchor, base] if base else anchor)
                found.add(base)
                # ``from . import heuristics`` imports a module, not a name
                found.update(f"{base}.{alias.name}" for alias in node.names)

    visit(ast.parse(path.read_text()).body)
    return found


def project_graph(*, inside_functions: bool = False) -> dict[str, set[str]]:
    files = [p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py")]
    names = {module_name(p) for p in files}
    return {
        module_name(p): {
            m for m in top_level_imports(p, inside_functions=inside_functions) if m in names
        } - {module_name(p)}
        for p in files
    }


@pytest.mark.parametrize("inside_functions", [False, True], ids=["module level", "lazy too"])
def test_no_cycle_among_imports(inside_functions: bool) -> None:
    """An import inside a function hides a cycle rather than breaking it: the two modules
    still need each other, so lazy imports count too."""
    graph = project_graph(inside_functions=inside_functions)
    # A package imports its own modules in its __init__; that edge is not a cycle in practice
    # (the submodule's import of its package's name is resolved first), so edges into a
    # package's __init__ from inside the package are left out.
    edges = {a: {b for b in bs if not a.startswith(b + ".")} for a, bs in graph.items()}
    cycles: list[list[str]] = []
    done: set[str] = set()

    def walk(node: str, trail: list[str]) -> None:
        if node in trail:
            cycles.append([*trail[trail.index(node):], node])
            return
        if node in done:
            return
        for nxt in sorted(edges.get(node, ())):
            walk(nxt, [*trail, node])
        done.add(node)

    for start in sorted(edges):
        walk(start, [])
    assert cycles == []


#: The engine's compiled half: the extension module built from ``arena/native`` (reached as
#: ``from arena import _native``), part of the engine though it lives beside the package;
#: and the engine's data (``arena/data``), below both the engine and the crate.
NATIVE = {"arena", "arena._native", "arena.data"}


def test_the_engine_imports_nothing_else_of_ours() -> None:
    for module, imports in project_graph().items():
        if module.startswith("arena.engine"):
            others = {m for m in imports if not m.startswith("arena.engine")}
            assert others - NATIVE == set(), module


#: What the Rust crates compile in: ``include_str!("path")`` or ``include_bytes!("path")``.
INCLUDE = re.compile(r'include_(?:str|bytes)!\(\s*"([^"]+)"\s*\)')


def owning_package(path: Path) -> str:
    """The Python package a file lies in: its nearest folder with an ``__init__.py``."""
    folder = next(f for f in path.parents if (f / "__init__.py").is_file() or f == ROOT)
    return module_name(folder / "__init__.py") if folder != ROOT else ""


def test_the_crate_compiles_in_nothing_of_a_package_that_imports_it() -> None:
    """The engine's wrapper (``arena.engine.native``) imports the crate (``arena._native``),
    so a file the crate compiles in must not belong to a package that reaches the crate by
    its imports: the crate once read ``arena/engine/data/``, and the engine depended on
    itself through the build.  The data lives in ``arena/data``, which imports nothing of
    ours; this is where both crates' ``include_str!`` must point, outside the crate itself."""
    native = ROOT / "arena" / "native"
    graph = project_graph(inside_functions=True)
    importers = {module_name(p) for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py")
                 if "arena._native" in top_level_imports(p, inside_functions=True)}
    assert "arena.engine.native" in importers
    outside, bad = set(), []
    for source in sorted(native.glob("*/*/**/*.rs")):
        if "target" in source.relative_to(native).parts:
            continue
        for included in INCLUDE.findall(source.read_text()):
            target = (source.parent / included).resolve()
            assert target.is_file(), f"{source}: {included}"
            if native in target.parents:
                continue
            outside.add(target.relative_to(ROOT).as_posix())
            package = owning_package(target)
            if ({package} | reaches(graph, package)) & importers:
                bad.append(f"{source.relative_to(ROOT)} compiles in {included} of {package}")
    assert bad == []
    assert outside == {"arena/data/bot_params.json", "arena/data/components.json",
                       "arena/data/options.json", "arena/data/value.json"}


BOTS = ROOT / "arena" / "native" / "core" / "src" / "bots"


def bot_module_uses(path: Path, modules: set[str]) -> set[str]:
    """The sibling bot modules a file of ``core/src/bots`` names, in ``use`` lines and in
    paths alike (``super::greedy::ENTRY``, ``use super::{draws::best, greedy::is_swap}``,
    ``crate::bots::mcts::X``); comments aside.  ``super::Bot`` names the parent's own item,
    not a sibling, as a Python module's import of its package's ``__init__`` is left out of
    :func:`test_no_cycle_among_imports`."""
    text = re.sub(r"//[^\n]*", "", path.read_text())
    names = "|".join(sorted(modules))
    found = re.findall(rf"(?:\bsuper::|\bcrate::bots::|(?<![\w:]))({names})::", text)
    return set(found) - {path.stem}


def test_no_cycle_among_the_native_bots() -> None:
    """The bots' registry is a list in ``bots/mod.rs``, where the bots are declared: a bot
    module declares its ``ENTRY`` with ``registry``'s types, and ``registry`` names no bot,
    so no two bot modules need each other (the registry and every bot once did)."""
    modules = {p.stem for p in BOTS.glob("*.rs")} - {"mod"}
    edges = {m: bot_module_uses(BOTS / f"{m}.rs", modules) for m in sorted(modules)}
    assert "registry" in edges["greedy"], "the parser still sees a bot's use of the registry"
    cycles: list[list[str]] = []

    def walk(node: str, trail: list[str]) -> None:
        if node in trail:
            cycles.append([*trail[trail.index(node):], node])
            return
        for nxt in sorted(edges[node]):
            walk(nxt, [*trail, node])

    for start in sorted(edges):
        walk(start, [])
    assert cycles == []


def reaches(graph: dict[str, set[str]], start: str) -> set[str]:
    """Every project module that importing ``start`` imports, its packages' ``__init__``
    aside (``arena.tournament``'s loads the runner, which a user of the schedule alone need
    not)."""
    seen: set[str] = set()
    todo = [start]
    while todo:
        for nxt in graph.get(todo.pop(), ()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


@pytest.mark.parametrize(("module", "forbidden"), [
    # a bot bounds its thinking time without importing the game loop
    ("bots.mcts", "arena.play.match"),
    # a schedule checks its move time without importing the game loop
    ("arena.tournament.schedule", "arena.play.match"),
])
def test_a_module_does_not_import_a_layer_above_it(module: str, forbidden: str) -> None:
    assert forbidden not in reaches(project_graph(), module)


def test_the_arena_does_not_import_the_bots() -> None:
    """The harness owns the bot protocol (``arena.play.bot``, ``arena.play.registry``): no module of
    ``arena`` imports ``bots``, not even inside a function.  The built-in bots are loaded as
    any plugin is, through their entry points at run time (``importlib``), which no import
    statement shows."""
    found = {module: sorted(m for m in imports if m.split(".")[0] == "bots")
             for module, imports in project_graph(inside_functions=True).items()
             if module.split(".")[0] == "arena"}
    assert {m: i for m, i in found.items() if i} == {}


def test_loading_the_arena_loads_no_bot() -> None:
    """Importing the commands, the game loop and the runner loads no bot module; naming a
    bot by its entry point loads its module, and only then."""
    code = ("import sys, arena.cli, arena.play.match, arena.tournament.worker, "
            "arena.play.registry; "
            "before = sorted(m for m in sys.modules if m.split('.')[0] == 'bots'); "
            "arena.play.registry.BotSpec.parse('random'); "
            "print(before, 'bots.random_bot' in sys.modules)")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[] True"


@pytest.mark.parametrize("module", ["arena.play.limits", "arena.stats.intervals", "arena.data"])
def test_the_shared_leaves_load_nothing_else(module: str) -> None:
    """The limits and the Wilson interval sit below everything that uses them: importing
    one loads no other module of ours, nor numpy (which the tournament does not need)."""
    code = (f"import sys, {module}; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('arena', 'bots', 'reports', 'numpy')))")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, timeout=60)
    assert run.returncode == 0, run.stderr
    packages = [module.rsplit(".", n)[0] for n in range(module.count("."), 0, -1)]
    assert run.stdout.strip() == str(sorted({"arena", *packages, module}))


#: What the run folder's package may import: itself, the engine (and its compiled half and
#: data), and ``arena.engine.card_files`` (a record names its cards); ``arena`` is the
#: package's version.
RUNS_MAY_REACH = ("arena.runs", "arena.engine", "arena.engine.card_files")


def test_the_run_folder_sits_right_above_the_engine() -> None:
    """``arena.runs`` owns the record schema, the store, the signatures and the reader; the
    play layer (match, referee) writes records through it and the runner, the commands and
    the reports read through it, so it imports nothing above the engine and
    ``arena.engine.card_files``, not even inside a function."""
    graph = project_graph(inside_functions=True)
    assert "arena.runs.store" in graph
    found = {}
    for module in sorted(m for m in graph if m.startswith("arena.runs")):
        bad = sorted(m for m in reaches(graph, module) - NATIVE
                     if not any(m == r or m.startswith(r + ".") for r in RUNS_MAY_REACH))
        if bad:
            found[module] = bad
    assert found == {}


@pytest.mark.parametrize("module", ["arena.runs", "arena.runs.segments", "arena.runs.reader",
                                    "arena.runs.integrity", "arena.runs.keys"])
def test_the_run_leaves_load_no_engine(module: str) -> None:
    """A report imports the run folder's leaves; importing one loads no engine, no bot and
    no other layer of the arena (the package's ``__init__`` imports nothing)."""
    code = (f"import sys, {module}; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('arena', 'bots', 'reports') and not m.startswith('arena.runs')))")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == str(["arena"])


#: The engine's modules behind its public ``GameState``/``PlayerView``/``Board``.
ENGINE_INTERNALS = {"arena.engine.state", "arena.engine.view", "arena.engine.position",
                    "arena.engine.board"}


def test_bots_use_the_engines_public_names_only() -> None:
    """A bot imports ``arena.engine`` and its value modules (actions, components, grid,
    objectives, options), never the state, view or position modules behind the public
    ``GameState``/``PlayerView`` (bots use the engine's public API)."""
    found = {
        module: sorted(imports & ENGINE_INTERNALS)
        for module, imports in project_graph().items()
        if module.startswith("bots.")
    }
    assert {m: i for m, i in found.items() if i} == {}


#: What ``reports`` may import of the arena: the Wilson interval and the one verdict rule
#: (``arena.stats.verdict``, which imports only the interval), formulas the standings printed
#: during a tournament share with the report, the check of a run's signatures and whose key
#: made them, which a report must apply as the runner does, and the reading of a record's
#: ``moves`` (leaves that import nothing else of the arena).
REPORTS_MAY_IMPORT = {"arena.stats.intervals", "arena.stats.verdict", "arena.runs.integrity",
                      "arena.runs.keys", "arena.runs.segments", "arena.runs.reader",
                      "arena.runs.moves"}


def test_the_reports_read_files_not_the_arena() -> None:
    """A report needs nothing but a run's folder (reports read the files, never live
    objects): no module of ``reports`` imports ``arena`` or ``bots``, not even inside a
    function, but for the leaves of :data:`REPORTS_MAY_IMPORT`, and none reads the engine's
    data file, whose cards the manifest's ``catalog`` carries."""
    found = {}
    for path in (ROOT / "reports").rglob("*.py"):
        tree = ast.parse(path.read_text())
        names = [alias.name for node in ast.walk(tree) if isinstance(node, ast.Import)
                 for alias in node.names]
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and not node.level:
                # ``from arena import intervals`` imports the module arena.stats.intervals
                # ``from arena.runs import keys`` imports the module arena.runs.keys
                names += [f"{node.module}.{alias.name}"
                          if f"{node.module}.{alias.name}" in REPORTS_MAY_IMPORT
                          else node.module or "" for alias in node.names]
        bad = [n for n in names
               if n.split(".")[0] in ("arena", "bots") and n not in REPORTS_MAY_IMPORT]
        if bad or "components.json" in path.read_text():
            found[module_name(path)] = bad or ["components.json"]
    assert found == {}


def test_scripts_use_the_engines_public_names_only() -> None:
    """Scripts, like bots, import the engine's public names: no internal module, no
    underscore name, wherever the import stands (a benchmark may import inside a function)."""
    found = set()
    for path in sorted((ROOT / "scripts").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("arena.engine"):
                for alias in node.names:
                    if node.module in ENGINE_INTERNALS or alias.name.startswith("_"):
                        found.add((path.stem, node.module, alias.name))
            elif isinstance(node, ast.Import):
                found.update((path.stem, a.name, "") for a in node.names
                             if a.name in ENGINE_INTERNALS)
    assert found == set()


def test_no_file_points_to_documents_a_user_does_not_have() -> None:
    """What a user needs is in ``docs/``: no file of the project names the design documents
    the arena was built from, nor the folder that holds them."""
    names = [f"{stem}.md" for stem in ("STYLE", "CLI", "NOTATION", "RULES")] + ["../" + "shared"]
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True,
                           check=True).stdout.split()
    found = []
    for name in files:
        path = ROOT / name
        if not path.is_file() or path.suffix in (".png", ".whl"):
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        found += [f"{name}: {n}" for n in names if n in text]
    assert found == []


#: The layers, bottom first: a module imports only its own layer and the layers below it
#: (docs/architecture.md draws them).  The leaves import nothing else of ours; the jail and
#: the engine protocol are one layer (an engine is jailed, and the jail launches engines).
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("leaves", ("arena", "arena._native", "arena.data", "arena.stats")),
    ("engine", ("arena.engine",)),
    ("runs", ("arena.runs",)),
    ("play", ("arena.play",)),
    ("jail", ("arena.jail", "arena.protocol")),
    ("show", ("arena.show",)),
    ("services", ("arena.tournament", "arena.balance", "arena.ladder", "arena.bot_tune",
                  "arena.rl")),
    ("commands", ("arena.commands", "arena.cli", "arena.__main__")),
]


def layer_of(module: str) -> int:
    """The index in :data:`LAYERS` of the longest package that holds ``module``."""
    best, level = "", -1
    for index, (_, packages) in enumerate(LAYERS):
        for package in packages:
            if (module == package or module.startswith(package + ".")) and len(package) > len(best):
                best, level = package, index
    return level


def test_every_module_of_the_arena_lies_in_a_layer() -> None:
    """No flat module left beside the layers: ``arena/`` holds the package's own
    ``__init__``, ``__main__`` and ``cli``, and otherwise one folder per layer."""
    top = {"arena.cli", "arena.__main__", "arena.data", "arena._native"}
    top |= {package for _, packages in LAYERS for package in packages}
    loose = sorted(m for m in project_graph() if m.startswith("arena.")
                   and (layer_of(m) < 0 or (m.count(".") == 1 and m not in top)))
    assert loose == []


@pytest.mark.parametrize("inside_functions", [False, True], ids=["module level", "lazy too"])
def test_no_module_imports_a_layer_above_its_own(inside_functions: bool) -> None:
    """A lazy import is a dependency too: it only moves the failure to run time."""
    up = sorted(f"{m} ({LAYERS[layer_of(m)][0]}) imports {i} ({LAYERS[layer_of(i)][0]})"
                for m, imports in project_graph(inside_functions=inside_functions).items()
                if m.startswith("arena") for i in imports
                if i.startswith("arena") and layer_of(i) > layer_of(m))
    assert up == []
