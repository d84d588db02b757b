"""File > Conversation files: which kind of file a save writes (one exclusive choice, persisted).

A full file is the model's state snapshot: it opens instantly but a 7B conversation at full
context is ~1.5 GB. A compact file holds the frames to replay (user audio as FLAC, the chosen
tokens): ~1-2 MB a minute for any model, rebuilt with a progress bar when opened.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtGui import QAction, QActionGroup
from PySide6.QtWidgets import QMenu

FILE_KINDS = {  # AppSettings.file_kind -> (title, tip)
    "auto": ("&Automatic", "Compact for the 7B models, a full snapshot for small ones."),
    "compact": ("&Compact", "About 2 MB a minute for any model; rebuilt (with a progress bar) when opened."),
    "full": ("&Full snapshot", "Opens instantly; a 7B conversation can take gigabytes."),
}


def add_file_kind_menu(parent: QMenu, current: str, on_change: Callable[[str], None]) -> dict[str, QAction]:
    menu = parent.addMenu("Conversation &files")
    menu.setToolTipsVisible(True)
    group = QActionGroup(menu)
    group.setExclusive(True)
    actions = {}
    for kind, (title, tip) in FILE_KINDS.items():
        action = QAction(title, menu)
        action.setCheckable(True)
        action.setChecked(kind == current)
        action.setToolTip(tip)
        action.triggered.connect(lambda _checked=False, k=kind: on_change(k))
        group.addAction(action)
        menu.addAction(action)
        actions[kind] = action
    return actions
