"""Imports among the package's modules (issue 51, item 4): no cycle of module-level imports,
and an import inside a function only where it defers a heavy optional dependency.

An AST walk of every module of ``spinner_env``, with ``agents/`` and ``train/`` read as
``spinner_env.agents`` and ``spinner_env.train`` (where they install). A module-level import
is one that runs when the module loads (in a class body, an ``if`` or a ``try`` too), but
not under ``if TYPE_CHECKING:``.
"""

from __future__ import annotations

import ast
import graphlib
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE_DIRS = {
    "spinner_env": ROOT / "spinner_env",
    "spinner_env.agents": ROOT / "agents",
    "spinner_env.train": ROOT / "train",
}
"""Each package and its folder in the repository (pyproject's ``package-dir``)."""

HEAVY = {
    *("matplotlib", "numba", "open_spiel", "PIL", "pyspiel"),
    *("safetensors", "sb3_contrib", "stable_baselines3", "torch"),
}
"""The dependencies slow to load (or absent without an extra) that a function may import:
those the package imports (Ray it imports by name, where ``--ray`` asks for it)."""

DEFERRED = {
    "spinner_env.agents.openspiel": ("pyspiel", "OpenSpiel's bots only"),
    "spinner_env.agents.policy": ("torch", "trained agents only"),
    "spinner_env.batched.policy_rollout": ("numba", "a policy's rollouts on the batched engine"),
    "spinner_env.games.mexican_train.batched_expert": ("numba", "the expert's batched twin"),
    "spinner_env.picture": ("PIL", "rgb_array renders only"),
}
"""The package's modules a function may import, each for the heavy dependency it loads
(checked below) and who needs it."""
LAYERED = {
    ("spinner_env.wrappers", "spinner_env.agents"): "the envs load no agent: test_gymnasium",
}
"""(importer, module) where a function imports the module to keep a layer from loading it
at all (for the reason given)."""


def module_files() -> dict[str, Path]:
    """Every module of the package by its dotted name."""
    modules = {}
    for package, folder in PACKAGE_DIRS.items():
        for path in folder.rglob("*.py"):
            parts = path.relative_to(folder).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            modules[".".join((package, *parts))] = path
    return modules


MODULES = module_files()


def statements(body: list[ast.stmt], in_function: bool) -> Iterator[tuple[ast.stmt, bool]]:
    """Every import statement under ``body``, and whether it runs inside a function."""
    for node in body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node, in_function
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield from statements(node.body, True)
        elif isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            yield from statements(node.orelse, in_function)
        else:
            for field in ("body", "orelse", "finalbody"):
                yield from statements(getattr(node, field, []), in_function)
            for clause in [*getattr(node, "handlers", []), *getattr(node, "cases", [])]:
                yield from statements(clause.body, in_function)


def targets(node: ast.Import | ast.ImportFrom, importer: str) -> list[str]:
    """The modules an import statement names: the package's by dotted name, any other by
    its top-level name."""
    if isinstance(node, ast.Import):
        return [_named(alias.name) for alias in node.names]
    package = importer if MODULES[importer].name == "__init__.py" else importer.rpartition(".")[0]
    if node.level:
        base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1])
        source = f"{base}.{node.module}" if node.module else base
    else:
        source = node.module or ""
    submodules = [f"{source}.{a.name}" for a in node.names if f"{source}.{a.name}" in MODULES]
    # `from package import submodule` reads no attribute of the package's own module.
    return submodules if len(submodules) == len(node.names) else [_named(source), *submodules]


def _named(module: str) -> str:
    """A module as :func:`targets` names it: the package's whole, any other's top level."""
    return module if module.split(".")[0] == "spinner_env" else module.split(".")[0]


def loaded(target: str, importer: str) -> list[str]:
    """The package's modules an import of ``target`` loads from ``importer``: the target
    and the packages above it that are not above the importer (those are loading already)."""
    parts = target.split(".")
    above_importer = {".".join(importer.split(".")[:n]) for n in range(1, importer.count(".") + 2)}
    names = [".".join(parts[:n]) for n in range(1, len(parts))]
    return [n for n in names if n in MODULES and n not in above_importer] + [target]


def imports() -> tuple[dict[str, set[str]], dict[str, set[str]], list[tuple[str, int, str]]]:
    """Each module's module-level imports of the package's modules and of other top-level
    modules, and every import inside a function: (module, line, dotted name)."""
    graph: dict[str, set[str]] = {name: set() for name in MODULES}
    outside: dict[str, set[str]] = {name: set() for name in MODULES}
    in_functions = []
    for module, path in MODULES.items():
        tree = ast.parse(path.read_text(), str(path))
        for node, in_function in statements(tree.body, False):
            for target in targets(node, module):
                if in_function:
                    in_functions.append((module, node.lineno, target))
                elif target in MODULES:
                    graph[module].update(n for n in loaded(target, module) if n != module)
                else:
                    outside[module].add(target)
    return graph, outside, in_functions


GRAPH, OUTSIDE, IN_FUNCTIONS = imports()


def heavy_loads(module: str) -> set[str]:
    """The heavy dependencies that loading ``module`` loads, through its module-level imports."""
    seen, todo = set(), [module]
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo.extend(GRAPH[name])
    return {dep for name in seen for dep in OUTSIDE[name] & HEAVY}


def test_the_walk_sees_the_package() -> None:
    assert "spinner_env.agents.search" in MODULES and "spinner_env.train.ppo" in MODULES
    assert "spinner_env.agents.search" in GRAPH["spinner_env.agents"]
    assert "numpy" in OUTSIDE["spinner_env.agents.search"]


def test_each_heavy_dependency_is_one_the_package_imports() -> None:
    imported = {name for names in OUTSIDE.values() for name in names}
    imported |= {target for _, _, target in IN_FUNCTIONS}
    assert not HEAVY - imported, f"not imported: {HEAVY - imported}"


def test_no_cycle_of_module_level_imports() -> None:
    try:
        graphlib.TopologicalSorter(GRAPH).prepare()
    except graphlib.CycleError as error:
        raise AssertionError(f"import cycle: {' -> '.join(error.args[1])}") from None


def test_imports_inside_functions_defer_a_heavy_dependency() -> None:
    strays = [
        f"{module}:{line} imports {target}"
        for module, line, target in IN_FUNCTIONS
        if target not in HEAVY and target not in DEFERRED and (module, target) not in LAYERED
    ]
    assert not strays, "move these to the top of the module:\n" + "\n".join(strays)


def test_each_deferred_module_loads_its_heavy_dependency() -> None:
    for module, (dependency, _) in DEFERRED.items():
        assert dependency in heavy_loads(module), f"{module} does not load {dependency}"
        assert any(target == module for _, _, target in IN_FUNCTIONS), f"{module}: no longer used"


def test_each_layered_import_is_still_inside_a_function() -> None:
    for module, target in LAYERED:
        assert any((m, t) == (module, target) for m, _, t in IN_FUNCTIONS), f"{module}: {target}"
