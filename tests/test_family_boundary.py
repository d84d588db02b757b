"""Nothing in the engine outside ``engine/families`` asks which family a model is: no
``is_personaplex`` / ``is_hibiki`` attribute, no comparison with a ``model_type``, no
``step_embeddings`` and no ``agent_audio=`` argument (a step takes one ``Forcing``). Read with
``ast``, never executed."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FAMILIES = ROOT / "engine" / "families"
BANNED_NAMES = {"is_personaplex", "is_hibiki", "step_embeddings"}


def findings(source: str, where: str) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(source, where)):
        name = node.attr if isinstance(node, ast.Attribute) else getattr(node, "name", None) \
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else None
        if name in BANNED_NAMES:
            found.append(f"{where}:{node.lineno}: {name}")
        if isinstance(node, ast.keyword) and node.arg == "agent_audio":
            found.append(f"{where}:{node.value.lineno}: agent_audio=")
        if isinstance(node, ast.Compare) and any(isinstance(op, (ast.Eq, ast.NotEq)) for op in node.ops):
            for side in (node.left, *node.comparators):
                if isinstance(side, ast.Attribute) and side.attr == "model_type" or \
                        isinstance(side, ast.Name) and side.id == "model_type":
                    found.append(f"{where}:{node.lineno}: model_type ==")
    return found


def test_only_the_families_ask_which_family_a_model_is():
    found = []
    for path in sorted((ROOT / "engine").rglob("*.py")):
        if FAMILIES not in path.parents:
            found += findings(path.read_text(), str(path.relative_to(ROOT)))
    assert found == []


def test_the_check_sees_each_banned_form():
    source = ("if config.is_personaplex: pass\nif c.model_type == 'x': pass\ngen.step(u, s, agent_audio=a)\n"
              "def step_embeddings(self): pass\nif model_type != 'y': pass\nconfig.is_hibiki\n")
    assert len(findings(source, "x.py")) == 6
