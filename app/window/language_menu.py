"""View > Language: the interface's language (``AppSettings.language``), System or one Parley ships.
Qt installs translators before the window is made, so a new choice applies at the next start; the
menu says so."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QLocale
from PySide6.QtGui import QAction, QActionGroup
from PySide6.QtWidgets import QMenu

from app.i18n import LANGUAGES, translate


def system_language_name() -> str:
    """The system's language in its own words ("français"), for the System entry."""
    return QLocale.system().nativeLanguageName() or QLocale.system().name()


def add_language_menu(parent: QMenu, current: str, on_change: Callable[[str], None]) -> dict[str, QAction]:
    """One exclusive entry per ``LANGUAGES`` key; ``on_change(language)`` when the person picks one."""
    menu = parent.addMenu(translate("LanguageMenu", "Lan&guage"))
    menu.setToolTipsVisible(True)
    group = QActionGroup(menu)
    group.setExclusive(True)
    tip = translate("LanguageMenu", "Applies the next time Parley starts.")
    actions = {}
    for language, name in LANGUAGES.items():
        title = translate("LanguageMenu", "System ({language})").format(
            language=system_language_name()) if not language else name
        action = QAction(title, menu)
        action.setCheckable(True)
        action.setChecked(language == current)
        action.setToolTip(tip)
        action.triggered.connect(lambda _checked=False, chosen=language: on_change(chosen))
        group.addAction(action)
        menu.addAction(action)
        actions[language] = action
    return actions
