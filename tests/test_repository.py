"""The repository stands alone: nothing tracked points outside it, and what it names exists."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Documents and folders that exist only beside a developer's checkout, never in a user's clone.
OUTSIDE = re.compile(r"\.\./shared|/work/shared|\bshared/(?:audio|reference|hooks|DESIGN)|§|\bthe notes\b|"
                     r"\bnotes §|performance-notes|moshi-personaplex-notes|desktop-audio-qt-notes")


def tracked_text_files() -> dict[str, str]:
    names = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    out = {}
    for name in names.decode().split("\0"):
        path = ROOT / name
        if not name or not path.is_file():
            continue
        data = path.read_bytes()
        if b"\0" not in data[:8192]:  # text, not a wav or a model
            out[name] = data.decode("utf-8", errors="replace")
    return out


def test_no_tracked_file_refers_to_documents_outside_the_repository():
    files = tracked_text_files()
    assert "README.md" in files and "engine/__init__.py" in files  # the walk sees the tree
    found = [f"{name}:{text.count(chr(10), 0, m.start()) + 1}: {m.group(0)!r}"
             for name, text in files.items() if name != "tests/test_repository.py"
             for m in OUTSIDE.finditer(text)]
    assert found == [], "references outside the repository:\n" + "\n".join(found)


def test_the_pattern_catches_what_it_is_for():
    for text in ("see ../shared/DESIGN.md", "(notes §2.8)", "as the notes say", "shared/audio/x.wav"):
        assert OUTSIDE.search(text), text
    assert not OUTSIDE.search("shared by the sessions; licence notes")


def test_paths_named_by_the_docs_and_the_makefile_exist():
    files = tracked_text_files()
    named = set()
    for doc in ("README.md", "docs/architecture.md", "Makefile"):
        named |= set(re.findall(r"(?<![\w/.-])((?:assets|tests/data|docs|engine|app|bench|packaging)/[\w./-]+\.\w+)",
                                files[doc]))
    assert "assets/hello_24k.wav" in named and "docs/architecture.md" in named
    missing = sorted(p for p in named if not (ROOT / p).exists())
    assert missing == []


def test_torch_s_thread_count_is_set_in_one_place():
    """``engine.runtime.threads.use_threads`` sets it; bench tools run at the count they are given."""
    files = tracked_text_files()
    setters = sorted(name for name, text in files.items()
                     if name.endswith(".py") and "torch.set_num_threads(" in text
                     and not name.startswith(("bench/", "tests/")))
    assert setters == ["engine/runtime/threads.py"]
