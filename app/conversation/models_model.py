"""The model and the persona as the window shows them, with no widgets: the loaded model
(``model_info``), the one loading and what loading does now, the running session's CUDA graph,
the model released for a load that then failed (offered again), and the personas: the one new
conversations start with (``persona``), the current conversation's, and its voice and role.

Its worker events come through the conversation view-model's dispatch.
"""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QObject, Signal

from app.conversation.interpreter_mode import mode_line
from app.conversation.preferences import Preferences
from app.engine_texts import model_label, persona_name
from app.engine_thread import messages as m
from app.i18n import translate
from app.voices.personas_model import voice_label
from engine import DEFAULT_PERSONA, DEFAULT_ROLE, Persona, PersonaLibrary

# Loading reads the weights and, on the CPU, the kernel plan (measured on a first start here).
FIRST_LOADING_STAGE = QT_TRANSLATE_NOOP("ModelsModel",  # translated where shown
                                        "reading the weights and choosing the fastest kernels for this computer...")


def graph_text(graph) -> str:
    """The CUDA-graph part of the model line: the truth of the running session, not the setting."""
    if graph is None:
        return "-"
    if graph.active:
        return translate("ModelsModel", "on")
    if graph.pending:
        return translate("ModelsModel", "warming up")
    return translate("ModelsModel", "off")


class ModelsModel(QObject):
    model_changed = Signal()  # model_info, loading, graph: see model_text()
    ready_changed = Signal()  # whether a model is loading or loaded: Talk's availability
    persona_changed = Signal()  # persona, conversation_persona, prompts_in_use, voices
    # (name, device, precision) of the model released to make room on the GPU for one that then
    # failed to load: nothing is loaded now, and the window offers to load it again.
    previous_model_offered = Signal(str, str, str)

    def __init__(self, worker, preferences: Preferences, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.worker = worker
        self.preferences = preferences
        self.model_info = None
        self.loading_model: str | None = None
        self.loading_stage = ""  # what loading is doing now (shown after the model's name)
        self.graph = None  # the running session's engine.GraphStatus, as the last frame reported it
        self.voices: list[str] = []  # shipped voices of the loaded model (reported by the worker)
        self.prompts_in_use = ("", "")  # (voice, role) of the current conversation
        self.personas = PersonaLibrary()
        # The persona new conversations start with: the one chosen last, or the current conversation's.
        self.persona: Persona = self.persona_named(preferences.settings.persona)
        self.conversation_persona: Persona | None = None  # the current conversation's (None: a file without one)
        self.has_conversation = False  # a conversation was started or opened since the window opened
        self._requested_model: tuple[str, str, str] | None = None

    @property
    def takes_prompts(self) -> bool:
        """The loaded model takes a voice and a role prompt (a persona's voice and role apply)."""
        return self.model_info is not None and self.model_info.takes_prompts

    @property
    def interpreting(self) -> bool:
        """Interpreter mode: the loaded model interprets (``app.conversation.interpreter_mode``)."""
        return self.model_info is not None and self.model_info.interprets

    def model_text(self) -> tuple[str, str]:
        """(the model line, its tooltip)."""
        if self.loading_model is not None:
            return self.tr("Loading model {name}: {stage}").format(name=self.loading_model,
                                                                   stage=self.tr(self.loading_stage)), ""
        info = self.model_info
        if info is None:
            return self.tr("No model loaded (Model → Model manager...)"), ""
        # info.label says plainly when it is the untrained demo model; CUDA graphs exist only on a GPU.
        graph = self.tr(" · CUDA graph: {state}").format(state=graph_text(self.graph)) if info.device != "cpu" else ""
        return (self.tr("Model: {label} · {device} · {precision}").format(
            label=model_label(info.label), device=info.device, precision=info.precision.value) + graph,
                (self.graph.reason or "") if self.graph else "")

    def persona_named(self, name: str) -> Persona:
        """The library's persona called ``name``, or the default one where there is none (or its
        file is damaged)."""
        entry = self.personas.find(name or DEFAULT_PERSONA.name)
        return entry.persona if entry is not None and entry.persona is not None else DEFAULT_PERSONA

    def persona_text(self) -> tuple[str, str]:
        """(the line saying who speaks, its tooltip)."""
        if self.interpreting:
            return mode_line(), ""
        persona = self.conversation_persona
        if persona is None and not self.has_conversation:  # nothing runs yet: who the first one starts with
            persona = self.persona
        if persona is None:
            return self.tr("Persona: none (a conversation saved before personas)"), ""
        voice, role = self.prompts_in_use
        if self.model_info is not None and not self.takes_prompts:
            text = (self.tr("Persona: {name} · waits for you to speak first · this model takes no voice or role")
                    if persona.wait_for_user else self.tr("Persona: {name} · this model takes no voice or role"))
            return text.format(name=persona_name(persona.name)), ""
        role = role or DEFAULT_ROLE
        short = role if len(role) <= 80 else role[:79] + "…"
        return (self.tr("Persona: {name} · voice: {voice} · role: {role}").format(
                    name=persona_name(persona.name), voice=voice_label(voice), role=short),
                self.tr("Voice: {voice}").format(voice=voice or self.tr("none")) + f"\n\n{role}")

    def choose_persona(self, persona: Persona) -> None:
        """Remember the persona new conversations start with."""
        self.persona = persona
        self.preferences.update(persona=persona.name)
        self.persona_changed.emit()

    def load_model(self, name: str, device: str, precision: str) -> None:
        """Load in the worker; the choice is remembered once it loaded (a failed one is not)."""
        self._requested_model = (name, device, precision)
        self.graph = None
        self.on_loading(m.ModelLoading(name))  # says so at once, not once the worker starts on it
        # The persona's voice and role are used if the model turns out to take prompts (the worker knows).
        self.worker.submit(m.LoadModel(name, device, precision, self.persona))

    def switch_model_and_open(self, model: str, path: str) -> None:
        """Load ``model`` (with the remembered device and precision), then open ``path`` on it; the
        worker runs both in order, and a failed load leaves the running model, which refuses the file."""
        settings = self.preferences.settings
        self.load_model(model, settings.device, settings.precision)
        self.worker.submit(m.OpenConversation(path))

    def on_loading(self, event: m.ModelLoading) -> None:
        self.loading_model, self.loading_stage = event.name, FIRST_LOADING_STAGE
        self.model_changed.emit()
        self.ready_changed.emit()

    def on_stage(self, event: m.ModelStage) -> None:
        self.loading_stage = event.text
        self.model_changed.emit()

    def on_failed(self, event: m.ModelFailed) -> None:
        """The previous model (if any) and its conversation stay loaded and keep running."""
        self.loading_model = None
        self.model_changed.emit()
        self.ready_changed.emit()

    def on_previous_model_offered(self, event: m.PreviousModelOffered) -> None:
        self.model_info = None
        self.model_changed.emit()
        self.ready_changed.emit()
        self.previous_model_offered.emit(event.name, event.device, event.precision)

    def on_loaded(self, event: m.ModelLoaded) -> None:
        self.model_info = event.info
        self.voices = list(event.voices)
        self.persona_changed.emit()
        self.loading_model = None
        self.model_changed.emit()
        self.ready_changed.emit()
        if self._requested_model is not None:
            name, device, precision = self._requested_model
            self.preferences.update(model=name, device=device, precision=precision)

    def conversation_opened(self, event: m.ConversationOpened) -> None:
        self.prompts_in_use = (event.voice, event.role)
        self.conversation_persona = event.persona
        if event.persona is not None:  # go on with it: the library's version by its name, else the file's
            entry = self.personas.find(event.persona.name)
            self.persona = entry.persona if entry is not None and entry.persona is not None else event.persona
        self.persona_changed.emit()
        self.has_conversation = True

    def set_graph(self, graph) -> None:
        """The CUDA graph as the newest frame reports it."""
        if graph != self.graph:
            self.graph = graph
            self.model_changed.emit()
