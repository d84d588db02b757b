"""File > Conversation files: which kind of file a save writes (one exclusive choice, persisted).

A full file is the model's state snapshot: it opens instantly but a 7B conversation at full
context is ~1.5 GB. A compact file holds the frames to replay (user audio as FLAC, the chosen
tokens): ~1-2 MB a minute for any model, rebuilt with a progress bar when opened.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QT_TRANSLATE_NOOP
from PySide6.QtGui import QAction, QActionGroup
from PySide6.QtWidgets import QMenu

from app.i18n import translate

FILE_KINDS = {  # AppSettings.file_kind -> (title, tip), translated where shown
    "auto": (QT_TRANSLATE_NOOP("FileKindMenu", "&Automatic"),
             QT_TRANSLATE_NOOP("FileKindMenu", "Compact for the 7B models, a full snapshot for small ones.")),
    "compact": (QT_TRANSLATE_NOOP("FileKindMenu", "&Compact"),
                QT_TRANSLATE_NOOP("FileKindMenu",
                                  "About 2 MB a minute for any model; rebuilt (with a progress bar) when opened.")),
    "full": (QT_TRANSLATE_NOOP("FileKindMenu", "&Full snapshot"),
             QT_TRANSLATE_NOOP("FileKindMenu", "Opens instantly; a 7B conversation can take gigabytes.")),
}


def add_file_kind_menu(parent: QMenu, current: str, on_change: Callable[[str], None]) -> dict[str, QAction]:
    menu = parent.addMenu(translate("FileKindMenu", "Conversation fi&les"))
    menu.setToolTipsVisible(True)
    group = QActionGroup(menu)
    group.setExclusive(True)
    actions = {}
    for kind, (title, tip) in FILE_KINDS.items():
        action = QAction(translate("FileKindMenu", title), menu)
        action.setCheckable(True)
        action.setChecked(kind == current)
        action.setToolTip(translate("FileKindMenu", tip))
        action.triggered.connect(lambda _checked=False, k=kind: on_change(k))
        group.addAction(action)
        menu.addAction(action)
        actions[kind] = action
    return actions
