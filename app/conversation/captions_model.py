"""Captions of what the person says, as the window sees them (no widgets): whether they are on
(``AppSettings.captions``), which caption model goes with the loaded conversation model
(``caption_choice``), whether it is loading, running or failed, and the person's words it heard,
which go into their turns (``TurnListModel.add_captions``).

The engine thread runs the caption model (``app.engine_thread.caption_feed``); this object asks
for it (``SetCaptions``) when a conversation model loads or the person turns captions on or off,
and takes its events (``handlers``)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Signal

from app.conversation.caption_choice import caption_model_for, real_caption_models
from app.conversation.turn_list import TurnListModel
from app.engine_thread import messages as m


class CaptionsModel(QObject):
    changed = Signal()  # wanted, model, loading, running, problem
    message = Signal(str)  # a transient note for the status bar
    error = Signal(str)  # captions stopped: why (the conversation goes on)

    def __init__(self, submit: Callable[[object], None], turns: TurnListModel, wanted: bool,
                 remember: Callable[[bool], None], parent: QObject | None = None) -> None:
        """``submit``: queues a command for the engine thread; ``remember(on)`` persists the choice."""
        super().__init__(parent)
        self._submit, self.turns, self._remember = submit, turns, remember
        self.wanted = wanted  # the person's choice
        self.model = ""  # the caption model for the loaded conversation model ("" none here)
        self.device = "auto"
        self.loading = False
        self.running = ""  # the caption model hearing the frames now ("" none)
        self.problem = ""  # why the last one stopped

    def handlers(self) -> dict:
        return {m.CaptionModelLoading: self._on_loading, m.CaptionModelReady: self._on_ready,
                m.CaptionModelFailed: self._on_failed, m.CaptionsAdded: self._on_added}

    @property
    def available(self) -> bool:
        return bool(self.model)

    def none_available_text(self) -> str:
        return self.tr("No caption model is on this machine: download {models} in the Model manager "
                       "to see your words in your turns.").format(models=" / ".join(real_caption_models()))

    def offer(self, conversation_is_demo: bool, device: str) -> None:
        """A conversation model loaded: its caption model, started where captions are on."""
        self.model, self.device = caption_model_for(conversation_is_demo), device
        self._ask()

    def set_wanted(self, on: bool) -> None:
        self.wanted = on
        self._remember(on)
        self._ask()

    def _ask(self) -> None:
        name = self.model if self.wanted else ""
        if not name:
            self.loading, self.running = False, ""
        self._submit(m.SetCaptions(name, self.device))
        self.changed.emit()

    def _on_loading(self, event: m.CaptionModelLoading) -> None:
        self.loading, self.problem = True, ""
        self.message.emit(self.tr("Loading the caption model {model}...").format(model=event.name))
        self.changed.emit()

    def _on_ready(self, event: m.CaptionModelReady) -> None:
        self.loading, self.running = False, event.name
        self.message.emit(self.tr("Captions of what you say: on ({model}).").format(model=event.name))
        self.changed.emit()

    def _on_failed(self, event: m.CaptionModelFailed) -> None:
        self.loading, self.running, self.problem = False, "", event.message
        self.error.emit(event.message)
        self.changed.emit()

    def _on_added(self, event: m.CaptionsAdded) -> None:
        """The person's words, and the turn ends kept (Talk pressed or released, the heads'), captions on or off."""
        self.turns.add_captions(event.pieces, event.turn_ends)
