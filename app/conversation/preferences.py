"""The app's settings as the view-model's parts share them: the current ``AppSettings``, written
to their store on each change, and a signal for whoever renders them."""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import QObject, QSettings, Signal

from app.settings import AppSettings, load_settings, save_settings


class Preferences(QObject):
    changed = Signal(object)  # AppSettings

    def __init__(self, store: QSettings, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self.settings: AppSettings = load_settings(store)

    def update(self, **changes) -> None:
        self.settings = replace(self.settings, **changes)
        save_settings(self.store, self.settings)
        self.changed.emit(self.settings)
