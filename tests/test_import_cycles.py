"""No import cycles between engine's and app's parts: each import (at the top of a module or inside
a function, read with ``ast``, never executed) is an edge, and a cycle is a set of parts that
reach each other. Parts are the subpackages and top-level modules (``engine.codec``,
``engine.audio``, ``app.settings``), and, inside a subpackage, its modules."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "app")

# Cycles that exist today and are being removed by others: each goes when its owner's change lands
# (this test then fails until it is taken out of this list, so the list stays true).
ALLOWED: set[frozenset[str]] = set()  # none left; a new cycle fails this test


def module_names() -> dict[str, Path]:
    """Dotted name -> file of every module of the packages (a package is its ``__init__``)."""
    names = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            names[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return names


def imports(name: str, path: Path, known: set[str]) -> set[str]:
    """The known modules ``name`` imports anywhere in its file, but for annotations' only imports
    (``if TYPE_CHECKING:``), which never run."""
    is_package = path.name == "__init__.py"
    found = set()
    tree = ast.parse(path.read_text(), str(path))
    typing_only = {id(n) for block in ast.walk(tree) if isinstance(block, ast.If)
                   and isinstance(block.test, ast.Name) and block.test.id == "TYPE_CHECKING"
                   for statement in block.body for n in ast.walk(statement)}
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".")[: len(name.split(".")) - node.level + is_package]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module
            # ``from package import module`` imports the module; ``from module import name`` the module
            targets = [f"{source}.{alias.name}" if f"{source}.{alias.name}" in known else source
                       for alias in node.names]
        else:
            continue
        for target in targets:
            while target and target not in known:  # ``import engine.lm.model`` names the deepest known module
                target = target.rpartition(".")[0]
            if target:
                found.add(target)
    return found


def cycles(edges: dict[str, set[str]]) -> set[frozenset[str]]:
    """The strongly connected components with more than one member (Tarjan's algorithm)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), set()

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(edges.get(node, ())):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.add(member)
                if member == node:
                    break
            if len(component) > 1:
                found.add(frozenset(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def part(module: str, depth: int) -> str:
    return ".".join(module.split(".")[:depth])


def import_cycles() -> set[frozenset[str]]:
    """Cycles among the parts at each level: engine's and app's subpackages and top-level modules,
    then the modules inside each subpackage (imports of a package's own ``__init__`` are left out:
    it only gathers its modules' names)."""
    names = module_names()
    graph = {name: imports(name, path, set(names)) - {name} for name, path in names.items()}
    found = set()
    for depth in (2, 3):
        edges = defaultdict(set)
        for source, targets in graph.items():
            for target in targets:
                a, b = part(source, depth), part(target, depth)
                same_level = depth == 2 or part(source, 2) == part(target, 2)
                if a != b and same_level and a in names and b in names and len(b.split(".")) == depth:
                    edges[a].add(b)
        found |= cycles(edges)
    return found


def describe(found: set[frozenset[str]]) -> list[str]:
    return sorted(" <-> ".join(sorted(c)) for c in found)


def test_no_import_cycles_but_the_ones_being_removed():
    found = import_cycles()
    assert describe(found - ALLOWED) == [], "new import cycles"
    assert describe(ALLOWED - found) == [], "no longer cycles: take them out of ALLOWED"


def test_the_cycle_finder_sees_imports_of_each_kind(tmp_path):
    """Relative and absolute imports, ``from package import module``, and imports inside functions."""
    names = module_names()
    known = set(names)
    assert {"engine", "engine.runtime.session", "app.cli.command", "engine.lm.generate"} <= known
    assert "engine.lm.generate" in imports("engine.runtime.session", names["engine.runtime.session"], known)
    assert "app.cli.offline" in imports("app.cli.command", names["app.cli.command"], known)  # imported inside main()
    assert "engine.runtime.session" in imports("engine", names["engine"], known)  # from .runtime.session import
    ring = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(ring) == {frozenset("abc")} and cycles({"a": {"b"}, "b": set()}) == set()
