"""User preferences as one frozen dataclass, persisted in QSettings.

The settings file is looked at (``stat``, nothing opened) before QSettings reads it: a pipe there
kept the window from ever appearing, and a 2 GB file cost 4.4 GB. Such a file is named, left as it
is, and the app runs with its defaults, kept for that run only."""

from __future__ import annotations

import contextlib
import os
import stat
import sys
import tempfile
from dataclasses import dataclass, fields, replace
from pathlib import Path

from PySide6.QtCore import QSettings, QStandardPaths

from app.audio.echo import ProcessingSettings
from app.desktop_key.chord import DEFAULT_TALK_KEY
from app.desktop_key.talk_key import HOLD
from engine import PRIVATE_MODE, ensure_private_folder

MAX_RECENT = 8
MAX_SETTINGS_BYTES = 1 << 20  # the settings are a few KB


@dataclass(frozen=True)
class AppSettings:
    model: str = "demo"
    device: str = "auto"  # auto | cpu | cuda
    precision: str = "auto"  # an engine.Precision value: auto | float32 | bfloat16 | int8
    input_device: str = ""  # PortAudio device label, "name (host API)"; "" = the system default
    output_device: str = ""
    open_mic: bool = False  # hands-free: the model hears the microphone without push-to-talk
    # Microphone processing (app.audio.echo.ProcessingSettings), each stage on or off.
    echo_cancellation: bool = True
    noise_suppression: bool = True
    high_pass_filter: bool = True
    auto_gain_control: bool = False
    persona: str = ""  # the name of the persona chosen last (engine.PersonaLibrary); "" = the default one
    recent_files: tuple[str, ...] = ()
    # Conversation files: "auto" (compact for the 7B models, a full snapshot for the demo),
    # "compact" (the frames to replay, rebuilt when opened) or "full" (the state snapshot).
    file_kind: str = "auto"
    # Closing the window where there is a tray: "" asks the first time, "tray" hides it, "quit" quits
    # (app.window.tray_state).
    close_to_tray: str = ""
    # The desktop-wide push-to-talk key (app.desktop_key), Qt's portable text; "" = none.
    talk_key: str = DEFAULT_TALK_KEY
    pause_media: bool = False  # media players paused (MPRIS) while you talk or the assistant speaks
    talk_key_mode: str = HOLD  # app.desktop_key.talk_key: HOLD (open while held) or TAP (press, press again)
    language: str = ""  # the interface's language (app.i18n.LANGUAGES); "" follows the system's
    captions: bool = False  # captions of what you say: a caption model beside the conversation model
    # Read aloud (app.conversation.read_aloud): a Pocket TTS preset and one of its voices; "" = the first
    # one installed, and its default voice.
    read_aloud_model: str = ""
    read_aloud_voice: str = ""
    # A conversation with your language model (app.conversation.chat_mode): its server's address and
    # model (never its key: the keyring holds that), and the speech to text it hears you with ("" = the
    # demo's demo-stt with the demo, else stt-1b-en_fr).
    llm_url: str = ""
    llm_model: str = ""
    llm_tools: tuple[str, ...] = ()  # app.chat.tools.TOOL_NAMES the person lets their language model call
    chat_stt_model: str = ""

    @property
    def save_compact(self) -> bool | None:
        """The worker's choice of kind: None lets the engine pick by model size."""
        return {"compact": True, "full": False}.get(self.file_kind)

    def with_recent(self, path: str) -> AppSettings:
        recent = (path,) + tuple(p for p in self.recent_files if p != path)
        return replace(self, recent_files=recent[:MAX_RECENT])


def load_settings(store: QSettings) -> AppSettings:
    """Read every field, falling back to the default for anything missing or of the wrong type."""
    defaults = AppSettings()
    values = {}
    for f in fields(AppSettings):
        default = getattr(defaults, f.name)
        raw = store.value(f.name, None)
        values[f.name] = _coerce(raw, default)
    return AppSettings(**values)


def save_settings(store: QSettings, settings: AppSettings) -> None:
    """Store ``settings``; their file (the recent files' paths, the persona's name) is the user's only."""
    for f in fields(AppSettings):
        value = getattr(settings, f.name)
        store.setValue(f.name, list(value) if isinstance(value, tuple) else value)
    store.sync()
    path = Path(store.fileName())
    if path.is_file():  # a file (Linux, an ini file); on Windows the registry, per-user already
        os.chmod(path, PRIVATE_MODE)


def _coerce(raw, default):
    if raw is None:
        return default
    if isinstance(default, bool):
        return raw if isinstance(raw, bool) else str(raw).lower() in ("true", "1", "yes")
    if isinstance(default, tuple):
        items = [raw] if isinstance(raw, str) else list(raw) if isinstance(raw, (list, tuple)) else []
        return tuple(str(x) for x in items if x)
    return str(raw)


def processing_from(settings: AppSettings) -> ProcessingSettings:
    """The microphone processing stages stored in ``settings`` (it has one field per stage)."""
    return ProcessingSettings(**{f.name: getattr(settings, f.name) for f in fields(ProcessingSettings)})


def settings_file(app_name: str) -> Path | None:
    """The file ``QSettings()`` reads for ``app_name`` (organisation and application alike), where
    it is a file Parley can look at first: Linux and other Unix. None on Windows (the registry) and
    macOS (a property list the system reads)."""
    if sys.platform in ("win32", "darwin"):
        return None
    return Path(QStandardPaths.writableLocation(QStandardPaths.GenericConfigLocation)) / app_name / f"{app_name}.conf"


def settings_problem(path: Path | None) -> str:
    """Why the settings file at ``path`` must not be read ("" when it can be, or is not there)."""
    try:
        st = os.stat(path) if path is not None else None
    except OSError:
        return ""  # not there yet (QSettings makes it), or not reachable: QSettings reads nothing
    if st is None:
        return ""
    if not stat.S_ISREG(st.st_mode):
        why = "is not a regular file (a pipe, a device or a folder)"
    elif st.st_size > MAX_SETTINGS_BYTES:
        why = f"is {st.st_size / 2**20:.0f} MB (settings take a few KB)"
    else:
        return ""
    return (f"The settings file {path} {why}: Parley starts with its default settings and keeps changes only until "
            "it quits. Move that file away to keep settings again.")


def open_settings_store(app_name: str) -> tuple[QSettings, str]:
    """The app's settings store and "", or, where ``settings_problem`` refuses the file, a store for this
    run only (in a private temporary folder, removed with the store) and the problem."""
    path = settings_file(app_name)
    if path is not None:  # QSettings would make its folder readable by others
        with contextlib.suppress(OSError):  # a file in its place: QSettings then keeps nothing, as before
            ensure_private_folder(path.parent)
    problem = settings_problem(path)
    if not problem:
        return QSettings(), ""
    folder = tempfile.TemporaryDirectory(prefix="parley-settings-")
    store = QSettings(os.path.join(folder.name, f"{app_name}.conf"), QSettings.IniFormat)
    store.run_only_folder = folder  # removed when the store is
    return store, problem
