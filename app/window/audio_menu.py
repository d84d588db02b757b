"""The Audio menu's microphone processing entries: one checkable action per WebRTC stage."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields, replace

from PySide6.QtCore import QT_TRANSLATE_NOOP
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu

from app.audio.echo import ProcessingSettings
from app.i18n import translate
from app.widgets.plain_text import as_written

STAGE_TITLES = {
    "echo_cancellation": QT_TRANSLATE_NOOP("AudioMenu", "&Echo cancellation"),
    "noise_suppression": QT_TRANSLATE_NOOP("AudioMenu", "&Noise suppression"),
    "high_pass_filter": QT_TRANSLATE_NOOP("AudioMenu", "&High-pass filter"),
    "auto_gain_control": QT_TRANSLATE_NOOP("AudioMenu", "Automatic &gain control"),
}
STAGE_TIPS = {
    "echo_cancellation": QT_TRANSLATE_NOOP(
        "AudioMenu", "Removes the assistant's voice from the microphone, so it can be used on speakers."),
    "noise_suppression": QT_TRANSLATE_NOOP("AudioMenu", "Reduces steady background noise (fans, hum)."),
    "high_pass_filter": QT_TRANSLATE_NOOP("AudioMenu", "Removes rumble below the voice."),
    "auto_gain_control": QT_TRANSLATE_NOOP(
        "AudioMenu", "Evens out the microphone level (can raise what is left of the echo)."),
}


def add_processing_actions(menu: QMenu, current: ProcessingSettings,
                           on_change: Callable[[ProcessingSettings], None]) -> dict[str, QAction]:
    """Add the stages to ``menu``; ``on_change`` gets the new choice whenever one is toggled."""
    menu.setToolTipsVisible(True)
    menu.addSection(translate("AudioMenu", "Microphone processing"))
    actions: dict[str, QAction] = {}

    def chosen() -> ProcessingSettings:
        return replace(current, **{name: action.isChecked() for name, action in actions.items()})

    for f in fields(ProcessingSettings):
        action = QAction(translate("AudioMenu", STAGE_TITLES[f.name]), menu)
        action.setCheckable(True)
        action.setChecked(getattr(current, f.name))
        action.setToolTip(translate("AudioMenu", STAGE_TIPS[f.name]))
        action.toggled.connect(lambda _on: on_change(chosen()))
        menu.addAction(action)
        actions[f.name] = action
    return actions


def disable_processing_actions(actions: dict[str, QAction], reason: str) -> None:
    """The library is unavailable: the entries stay visible, greyed out, and say why."""
    for action in actions.values():
        action.setEnabled(False)
        action.setToolTip(as_written(reason))
