"""The persona picker and editor as state: a widget-free QObject over ``engine.PersonaLibrary``.

It lists the personas (shipped, edited, the user's own, damaged files with their problem), holds
the one selected and a draft of its fields as the editor shows them, and runs the user's commands
(new, save, delete or reset, choose). What the loaded model supports is part of the state: a
PersonaPlex model takes the voice and the role, a Moshi model neither (it has no prompts), and
every model takes the sampling settings and "wait for me". ``chosen(Persona)`` says that the
person picked a persona to start a conversation with; the window does the rest.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from PySide6.QtCore import QT_TRANSLATE_NOOP, QObject, Signal

from app.i18n import translate
from engine import DEFAULT_PERSONA, NO_VOICE, Persona, PersonaEntry, PersonaLibrary, SamplingConfig

# The notes under the form, and the styles' names and tips: translated where shown.
NO_PROMPTS_NOTE = QT_TRANSLATE_NOOP("PersonasModel", "This model has no voice or role prompt: it speaks in the voice "
                                    "it was trained with. The style and \"wait for me\" apply; the voice and role are "
                                    "kept for PersonaPlex.")
PROMPTS_NOTE = QT_TRANSLATE_NOOP("PersonasModel", "PersonaPlex speaks with the persona's voice and plays its role.")
NO_MODEL_NOTE = QT_TRANSLATE_NOOP("PersonasModel", "The voice and role apply to PersonaPlex models; the style and "
                                  "\"wait for me\" to every model.")


@dataclass(frozen=True)
class Style:
    """A named sampling setting: how a person chooses how varied the assistant is, without numbers."""

    name: str
    says: str  # what it sounds like, in a tooltip
    sampling: SamplingConfig


# Every shipped persona's sampling is one of these (tests/test_app_persona.py checks it).
STYLES = (
    Style(QT_TRANSLATE_NOOP("PersonasModel", "Steady"),
          QT_TRANSLATE_NOOP("PersonasModel", "Keeps to the likeliest words and sounds: predictable, sometimes flat."),
          SamplingConfig(temp=0.6, temp_text=0.5)),
    Style(QT_TRANSLATE_NOOP("PersonasModel", "Calm"),
          QT_TRANSLATE_NOOP("PersonasModel", "A little less varied than Balanced: unhurried and clear."),
          SamplingConfig(temp=0.7, temp_text=0.6)),
    Style(QT_TRANSLATE_NOOP("PersonasModel", "Balanced"), QT_TRANSLATE_NOOP("PersonasModel",
                                                                            "The model's own defaults."),
          SamplingConfig()),
    Style(QT_TRANSLATE_NOOP("PersonasModel", "Relaxed"),
          QT_TRANSLATE_NOOP("PersonasModel", "The words vary more than Balanced; the voice the same."),
          SamplingConfig(temp=0.8, temp_text=0.8)),
    Style(QT_TRANSLATE_NOOP("PersonasModel", "Lively"),
          QT_TRANSLATE_NOOP("PersonasModel", "Varied speech and words: surprising, now and then off the point."),
          SamplingConfig(temp=1.0, temp_text=0.9)),
)
CUSTOM_STYLE = Style(QT_TRANSLATE_NOOP("PersonasModel", "Custom"),
                     QT_TRANSLATE_NOOP("PersonasModel", "Set with the numbers (Numbers...)."), SamplingConfig())


def style_of(sampling: SamplingConfig) -> Style:
    """The named style with exactly these settings, or ``CUSTOM_STYLE``."""
    return next((style for style in STYLES if style.sampling == sampling), CUSTOM_STYLE)


def voice_label(voice: str) -> str:
    """How a persona's voice reads in the window."""
    if not voice:
        return translate("PersonasModel", "the model's default voice")
    return translate("PersonasModel", "no voice prompt") if voice == NO_VOICE else voice


class PersonasModel(QObject):
    changed = Signal()  # entries, selected, draft, error, message
    chosen = Signal(object)  # Persona: start a conversation with it

    def __init__(self, library: PersonaLibrary, voices: list[str], takes_prompts: bool | None,
                 selected: str = DEFAULT_PERSONA.name, parent: QObject | None = None) -> None:
        """``voices``: the voice names to offer (the model's shipped ones, then the user's);
        ``takes_prompts``: whether the loaded model takes a voice and a role prompt (None: no model loaded)."""
        super().__init__(parent)
        self.library = library
        self.voices = list(voices)
        self.takes_prompts = takes_prompts
        self.entries: tuple[PersonaEntry, ...] = ()
        self.selected = ""
        self.draft: Persona = DEFAULT_PERSONA
        self.error = ""
        self.message = ""
        self.numbers_shown = False  # the sampling numbers behind the style (shown on request)
        self._reload()
        self.select(selected if self.entry(selected) is not None else DEFAULT_PERSONA.name)

    # -- derived state -----------------------------------------------------------------------
    @property
    def prompts_apply(self) -> bool:
        """Whether the voice and role mean anything to the loaded model (shown as editable)."""
        return self.takes_prompts is not False

    @property
    def note(self) -> str:
        return self.tr({True: PROMPTS_NOTE, False: NO_PROMPTS_NOTE, None: NO_MODEL_NOTE}[self.takes_prompts])

    def entry(self, name: str) -> PersonaEntry | None:
        wanted = name.lower()
        return next((e for e in self.entries if e.name.lower() == wanted), None)

    @property
    def current(self) -> PersonaEntry | None:
        return self.entry(self.selected)

    @property
    def dirty(self) -> bool:
        """The draft differs from the saved persona (Save is offered)."""
        current = self.current
        return current is None or current.persona != self.draft

    def voice_choices(self) -> list[str]:
        """The voices to offer, the draft's own first when the list lacks it (a voice of another
        model, or a recording's path)."""
        choices = ["", *self.voices, NO_VOICE]
        return choices if self.draft.voice in choices else [self.draft.voice, *choices]

    def add_voices(self, names: list[str]) -> None:
        """Offer these voices too (the user's own, once listed off the GUI thread)."""
        self.voices = [*self.voices, *(name for name in names if name not in self.voices)]
        self.changed.emit()

    # -- commands ----------------------------------------------------------------------------
    def select(self, name: str) -> None:
        entry = self.entry(name)
        if entry is None:
            return
        self.selected = entry.name
        self.draft = entry.persona if entry.persona is not None else Persona(entry.name)
        self.error = entry.problem
        self.message = ""
        self.changed.emit()

    def edit(self, **fields) -> None:
        """Change the draft (``name``, ``voice``, ``role``, ``wait_for_user``, or a ``SamplingConfig``
        field such as ``temp``); an invalid value is said and leaves the draft as it was."""
        sampling = {k: fields.pop(k) for k in list(fields) if k in SamplingConfig.__dataclass_fields__}
        try:
            draft = replace(self.draft, **fields)
            if sampling:
                draft = replace(draft, sampling=replace(draft.sampling, **sampling))
        except (TypeError, ValueError) as e:
            self.error = str(e)
        else:
            self.draft, self.error = draft, ""
        self.changed.emit()

    def set_style(self, name: str) -> None:
        """Use the named style's sampling settings (``STYLES``)."""
        style = next(style for style in STYLES if style.name == name)
        self.edit(**{field: getattr(style.sampling, field) for field in SamplingConfig.__dataclass_fields__})

    def show_numbers(self, shown: bool) -> None:
        self.numbers_shown = shown
        self.changed.emit()

    def new_persona(self) -> None:
        """A new persona, started from the selected one's settings."""
        base = self.draft
        name, n = self.tr("My persona"), 1
        while self.entry(name) is not None:
            n += 1
            name = self.tr("My persona {n}").format(n=n)
        self._run(lambda: self.library.save(replace(base, name=name)),
                  self.tr("Made {name}; edit it and save.").format(name=name))

    def save(self) -> bool:
        current = self.current
        return self._run(lambda: self.library.save(self.draft, replacing=current.name if current else None),
                         self.tr("Saved {name}.").format(name=self.draft.name.strip()))

    def delete(self) -> bool:
        """Delete the user's persona, or reset an edited shipped one to how Parley ships it."""
        current = self.current
        if current is None or current.kind == "shipped":
            return False
        done = self.tr("Reset {name}.") if current.kind == "edited" else self.tr("Deleted {name}.")
        name = current.name if current.kind == "edited" else DEFAULT_PERSONA.name

        def remove() -> Persona:
            self.library.remove(current.name)
            return self.library.get(name)

        return self._run(remove, done.format(name=current.name))

    def choose(self) -> bool:
        """Start a conversation with the draft, saved first when it was changed."""
        if self.dirty and not self.save():
            return False
        current = self.current
        if current is None or current.persona is None:
            return False
        self.chosen.emit(current.persona)
        return True

    def _run(self, command, done: str) -> bool:
        """``command()`` returns the persona to select; a failure is said and changes nothing."""
        try:
            persona = command()
        except (ValueError, OSError) as e:  # PersonaLibraryError, a folder that cannot be written
            self.error, self.message = str(e), ""
            self.changed.emit()
            return False
        self._reload()
        self.select(persona.name)
        self.message = done
        self.changed.emit()
        return True

    def _reload(self) -> None:
        self.entries = tuple(self.library.entries())
