"""Every dialog, keyboard only: Tab reaches each control a person can see and use, and leaves a
table or list for the next control (a table's own Tab moves from cell to cell and never out)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from tests.keyboard_reach import missed, operable_controls, tab_walk
from tests.test_app_translations import DIALOGS
from tests.test_app_window import Harness


@pytest.fixture
def window(qtbot, tmp_path, app_demo_model):
    h = Harness(qtbot, tmp_path, lambda *args: app_demo_model, start=False)
    yield h.window
    h.close()


@pytest.mark.parametrize("opener", DIALOGS)
def test_tab_reaches_every_control_of_the_dialog(window, qtbot, opener):
    dialog = getattr(window.dialogs, opener)()
    try:
        dialog.activateWindow()
        qtbot.waitUntil(dialog.isActiveWindow, timeout=5_000)
        wanted = operable_controls(dialog)
        assert len(wanted) >= 2
        start = dialog.focusWidget() or next(iter(wanted))
        reached = tab_walk(qtbot, start, 3 * len(wanted))
        assert missed(wanted, reached) == []
    finally:
        dialog.close()


def test_the_model_manager_opens_with_the_arrows_on_the_models(window, qtbot):
    dialog = window.dialogs.open_model_manager()
    try:
        qtbot.waitUntil(dialog.isActiveWindow, timeout=5_000)
        assert dialog.focusWidget() is dialog.table
        row = dialog.table.currentRow()
        qtbot.keyClick(dialog.table, Qt.Key_Down)
        assert dialog.table.currentRow() == row + 1
    finally:
        dialog.close()
