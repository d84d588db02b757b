"""The app reaches the engine only through its public API, ``engine/__init__.py`` (as
docs/architecture.md says): no app module imports an engine submodule, at the top of a file, inside
a function or for annotations only, and every name the app takes from ``engine`` is one the API
lists in ``engine.__all__``. Read with ``ast``, never executed."""

from __future__ import annotations

import ast
from pathlib import Path

import engine

ROOT = Path(__file__).resolve().parent.parent
ENGINE_PARTS = {p.stem for p in (ROOT / "engine").iterdir() if p.suffix == ".py" or (p / "__init__.py").exists()}


def engine_uses(source: str) -> tuple[list[str], set[str]]:
    """(the engine submodules ``source`` imports, the names it takes from ``engine``: imported or read
    as ``engine.name``)."""
    submodules, names = [], set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            submodules += [a.name for a in node.names if a.name.startswith("engine.")]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            if node.module.startswith("engine."):
                submodules.append(node.module)
            elif node.module == "engine":
                submodules += [f"engine.{a.name}" for a in node.names if a.name in ENGINE_PARTS - {"__init__"}]
                names |= {a.name for a in node.names}
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "engine":
            names.add(node.attr)
    return submodules, names


def app_files() -> list[Path]:
    return sorted((ROOT / "app").rglob("*.py"))


def test_no_app_module_imports_an_engine_submodule():
    found = [f"{path.relative_to(ROOT)}: {module}" for path in app_files()
             for module in engine_uses(path.read_text(encoding="utf-8"))[0]]
    assert found == [], "the app imports the engine's internals; export what it needs from engine/__init__.py"


def test_every_engine_name_the_app_uses_is_in_the_public_api():
    outside = sorted({f"{path.relative_to(ROOT)}: engine.{name}" for path in app_files()
                      for name in engine_uses(path.read_text(encoding="utf-8"))[1] if name not in engine.__all__})
    assert outside == [], "list it in engine.__all__, or use what the API offers"
    assert [name for name in engine.__all__ if not hasattr(engine, name)] == []


def test_the_check_sees_each_way_of_reaching_inside():
    source = """
import engine
import engine.files.models
from engine.runtime.session import Session
from engine import families, load_model
from typing import TYPE_CHECKING
if TYPE_CHECKING:
    from engine.lm.model import LMModel
def later():
    from engine.files import subtitles
    return engine.Session, engine.not_public
"""
    submodules, names = engine_uses(source)
    assert sorted(submodules) == ["engine.families", "engine.files", "engine.files.models", "engine.lm.model",
                                  "engine.runtime.session"]
    assert names == {"families", "load_model", "Session", "not_public"}
    assert "not_public" not in engine.__all__ and "load_model" in engine.__all__
