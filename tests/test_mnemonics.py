"""Alt and a letter opens one menu, and in an open menu a letter chooses one item; in a dialog, Alt and
a letter reaches one control: in every language Parley ships, the mnemonics (the letter after '&') of
the menu bar, of each menu and of each dialog are unique."""

from __future__ import annotations

import re

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QAbstractButton, QApplication, QGroupBox, QLabel, QMenu

from app.i18n import TRANSLATED, install_translators, remove_translators
from app.window.main_window import MainWindow

MNEMONIC = re.compile(r"(?<!&)&([^&\s])")


def clashes(actions) -> list[str]:
    """The texts of ``actions`` whose mnemonic another of them has too."""
    letters: dict[str, list[str]] = {}
    for action in actions:
        if action.isVisible() and not action.isSeparator():
            found = MNEMONIC.search(action.text())
            if found:
                letters.setdefault(found.group(1).lower(), []).append(action.text())
    return [" / ".join(texts) for texts in letters.values() if len(texts) > 1]


def menus_clashes(menu: QMenu) -> list[str]:
    found = clashes(menu.actions())
    for action in menu.actions():
        if action.menu() is not None:
            found += menus_clashes(action.menu())
    return found


@pytest.mark.parametrize("language", ["en", *TRANSLATED])
def test_each_menu_s_mnemonics_are_unique_in_each_language(qapp, qtbot, tmp_path, language):
    translators = install_translators(qapp, language)
    window = MainWindow(QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat), audio=False,
                        conversations_dir=tmp_path)
    try:
        bar = window.menuBar()
        found = clashes(bar.actions())
        for action in bar.actions():
            found += menus_clashes(action.menu())
        found += menus_clashes(window.tray.menu)
        assert found == []
    finally:
        window.model.files.unsaved_frames = 0
        window.close()
        remove_translators(qapp, translators)


def dialog_clashes(dialog) -> list[str]:
    """The texts of ``dialog``'s visible buttons, labels and group boxes whose mnemonic another has too."""
    letters: dict[str, list[str]] = {}
    for widget in dialog.findChildren(QAbstractButton) + dialog.findChildren(QLabel) + dialog.findChildren(QGroupBox):
        if widget.window() is not dialog or not widget.isVisible():
            continue
        text = widget.title() if isinstance(widget, QGroupBox) else widget.text()
        found = MNEMONIC.search(text)
        if found:
            letters.setdefault(found.group(1).lower(), []).append(text)
    return [" / ".join(texts) for texts in letters.values() if len(texts) > 1]


@pytest.mark.parametrize("language", ["en", *TRANSLATED])
def test_each_dialog_s_mnemonics_are_unique_in_each_language(qapp, qtbot, tmp_path, language):
    translators = install_translators(qapp, language)
    window = MainWindow(QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat), audio=False,
                        conversations_dir=tmp_path)
    try:
        found = {}
        for opener in ("open_persona_dialog", "open_voices_dialog", "open_talk_key_dialog"):
            dialog = getattr(window.dialogs, opener)()
            QApplication.processEvents()
            found[opener] = dialog_clashes(dialog)
            if opener == "open_persona_dialog":  # a persona of the person's own: Delete where Reset was
                dialog.new_button.click()
                QApplication.processEvents()
                found[opener] += dialog_clashes(dialog)
            dialog.close()
        assert {opener: texts for opener, texts in found.items() if texts} == {}
    finally:
        window.model.files.unsaved_frames = 0
        window.close()
        remove_translators(qapp, translators)
