"""The words around a search hit, shown under a conversation the search found in its transcript."""

from __future__ import annotations

import re

ELLIPSIS = "…"


def snippet_around(text: str, words: list[str], before: int = 20, after: int = 80) -> str:
    """The stretch of ``text`` around the earliest of ``words`` (lower case) it holds: about
    ``before`` characters ahead of it (few, so that a narrow row still shows the hit) and ``after``
    behind, cut at spaces and marked "…" where it was cut; "" when ``text`` holds none of them.
    Line breaks and runs of spaces read as one space."""
    flat = re.sub(r"\s+", " ", text).strip()
    lowered = flat.lower()
    hits = [i for i in (lowered.find(word) for word in words) if i >= 0]
    if not hits:
        return ""
    hit = min(hits)
    start, end = max(0, hit - before), min(len(flat), hit + after)
    if start > 0:
        space = flat.find(" ", start, hit)
        start = space + 1 if space >= 0 else start
    if end < len(flat):
        space = flat.rfind(" ", hit, end)
        end = space if space > hit else end
    return f"{ELLIPSIS if start > 0 else ''}{flat[start:end]}{ELLIPSIS if end < len(flat) else ''}"
