"""Lists the string literals of the window's modules that read like text for a person but are not
inside a translation call (``self.tr``, ``QCoreApplication.translate``, ``translate``,
``QT_TRANSLATE_NOOP``): the places a new visible string was written without wrapping it.

    python -m tests.untranslated [FOLDER ...]      (default: the window's folders)

Heuristic (it reads the source, not the running window): docstrings, log and exception messages,
``__main__`` code, and literals that are keys, names or formats (no letter-space-letter, no leading
capital) are left out. tests/test_app_translations.py checks the running window itself."""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WINDOW_FOLDERS = ("app/window", "app/conversation", "app/library", "app/models", "app/voices", "app/widgets",
                  "app/desktop_key")
TRANSLATING = {"tr", "translate", "QT_TRANSLATE_NOOP", "QT_TR_NOOP"}
NOT_SHOWN = {"debug", "info", "warning", "error", "exception", "critical", "getLogger", "setObjectName",
             "property", "setProperty", "value", "setValue", "startswith", "endswith", "split", "join",
             "strftime", "Signal", "Slot", "environ", "get", "connect", "QKeySequence", "fromString"}
WORDS = re.compile(r"[A-Za-z]{2,}[ ,.:!?][A-Za-z]|^&?[A-Z][a-z]+")


def _called_name(node: ast.Call) -> str:
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def unwrapped(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                skip.add(id(first.value))
        outside = (isinstance(node, ast.Call) and _called_name(node) in TRANSLATING | NOT_SHOWN) or isinstance(
            node, (ast.Raise, ast.Subscript, ast.Compare, ast.Assert))
        if isinstance(node, ast.If) and "__main__" in ast.unparse(node.test):
            outside = True
        if isinstance(node, ast.Dict):  # keys are names; values are looked at
            skip.update(id(k) for k in node.keys if k is not None)
        if outside:
            skip.update(id(child) for child in ast.walk(node) if isinstance(child, ast.Constant))
    found = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip
                and WORDS.search(node.value)):
            found.append((node.lineno, node.value))
    return sorted(found)


def main(folders: list[str]) -> int:
    count = 0
    for folder in folders or WINDOW_FOLDERS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            for line, text in unwrapped(path):
                print(f"{path.relative_to(ROOT)}:{line}: {text[:90]!r}")
                count += 1
    print(f"{count} literal(s) outside a translation call", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
