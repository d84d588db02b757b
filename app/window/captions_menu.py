"""Model > Captions of what you say: one checkable item rendering ``CaptionsModel`` (the choice is
kept in the settings). Where no caption model is on this machine it is greyed out and its tip says
what to download."""

from __future__ import annotations

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu

from app.conversation.captions_model import CaptionsModel
from app.i18n import translate


def add_captions_action(menu: QMenu, captions: CaptionsModel) -> QAction:
    action = QAction(translate("Menus", "&Captions of what you say"), menu)
    action.setCheckable(True)

    def toggled(on: bool) -> None:
        if on != captions.wanted:  # the person's click, not render's
            captions.set_wanted(on)

    action.toggled.connect(toggled)

    def render() -> None:
        action.setChecked(captions.wanted)
        action.setEnabled(captions.available)
        action.setToolTip(translate("Menus", "Your words appear in your turns as you speak (caption model: "
                                             "{model}), are saved with the conversation and found by the "
                                             "library's search.").format(model=captions.model)
                          if captions.available else captions.none_available_text())

    captions.changed.connect(render)
    render()
    menu.addAction(action)
    return action
