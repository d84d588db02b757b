"""The typed messages between the window and the engine thread.

Commands go from the GUI thread to the engine thread (``EngineWorker.submit``), events come back
(``EngineWorker.event``, a queued Qt signal carrying one of the event classes). Each is a frozen
dataclass, so a message is a value: it can be logged, compared in tests and never changed in
flight. Recordings and transcripts ride in them as plain tuples and arrays; never None through a
queued ``object`` argument (PySide6 mis-counts its references and aborts the process), which is
one more reason to wrap everything in a dataclass.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

import numpy as np

# ---- commands (GUI -> engine thread) -----------------------------------------------------------


@dataclass(frozen=True)
class LoadModel:
    """Load a model; its first conversation starts with ``persona`` (an ``engine.Persona``; None:
    none, the model's defaults)."""

    name: str
    device: str = "auto"
    precision: str = "auto"
    persona: object = None


@dataclass(frozen=True)
class NewConversation:
    """Start a conversation with ``persona`` (an ``engine.Persona``: its sampling and "wait for me",
    and on PersonaPlex its voice and role; None: the model's defaults)."""

    persona: object = None


@dataclass(frozen=True)
class OpenConversation:
    """Open a conversation file; a compact one is rebuilt frame by frame (``OpenProgress``, then
    ``ConversationOpened`` or ``FileFailed``). The GUI keeps ``cancel`` and sets it to stop the
    rebuild (checked every frame): the current conversation is kept."""

    path: str
    cancel: threading.Event = field(default_factory=threading.Event, compare=False)


@dataclass(frozen=True)
class SaveConversation:
    path: str


@dataclass(frozen=True)
class ExportAudio:
    path: str


@dataclass(frozen=True)
class RecoverJournal:
    """Rebuild a crash journal's conversation (``RecoveryProgress``, then ``RecoveryDone``). The
    GUI keeps ``cancel`` and sets it to stop the rebuild (checked every frame)."""

    path: str
    cancel: threading.Event = field(default_factory=threading.Event, compare=False)


@dataclass(frozen=True)
class RequestClip:
    """The conversation's recording from ``start_s`` to ``end_s`` seconds (answered by ``ClipReady``)."""

    start_s: float
    end_s: float


@dataclass(frozen=True)
class Resume:
    """Continue streaming after a failed frame."""


@dataclass(frozen=True)
class SetLive:
    """Run the conversation's frames (True: Talk, open mic or Start) or stop them (False: Pause).
    A new, opened or recovered conversation starts stopped: nothing runs until the person asks."""

    live: bool


@dataclass(frozen=True)
class SetMicOpen:
    """Whether the model hears the microphone (push-to-talk held or open mic) from the next frame,
    and whether Talk is held (which ends a "wait for me" at once)."""

    open: bool
    talk_held: bool = False


@dataclass(frozen=True)
class SetWaitForUser:
    """"Wait for me" for the current conversation: True holds the assistant silent until the person
    speaks (or presses Talk); False lets it speak. Personas are not changed."""

    waiting: bool


@dataclass(frozen=True)
class SetProcessing:
    """Microphone processing wanted (an ``app.audio.echo.ProcessingSettings``)."""

    settings: object


@dataclass(frozen=True)
class SetSaveKind:
    """The kind the next saves write: True compact, False full, None the engine's default for the model."""

    compact: bool | None


@dataclass(frozen=True)
class SetCaptions:
    """Captions of what the person says: load the speech-to-text model ``model`` beside the
    conversation model (a preset or folder; "" turns captions off and lets the model go)."""

    model: str
    device: str = "auto"
    precision: str = "auto"


@dataclass(frozen=True)
class Wake:
    """Nothing to do: wakes the loop so that it sees a stop request."""


# ---- events (engine thread -> GUI) -------------------------------------------------------------


@dataclass(frozen=True)
class ModelLoading:
    name: str


@dataclass(frozen=True)
class ModelStage:
    """A slow step of loading a model (shown while it runs)."""

    text: str


@dataclass(frozen=True)
class ModelLoaded:
    info: object  # engine.ModelInfo
    voices: tuple[str, ...]  # the voices shipped with it (PersonaPlex), () for others


@dataclass(frozen=True)
class ModelFailed:
    message: str


@dataclass(frozen=True)
class PreviousModelOffered:
    """The model released to make room on the GPU for one that then failed to load: nothing is
    loaded now, and the window offers to load it again. Sent after ``ModelFailed``."""

    name: str
    device: str
    precision: str


@dataclass(frozen=True)
class ConversationOpened:
    """A new, opened or recovered conversation: its transcript, file ("" for none) and recording."""

    transcript: tuple[tuple[int, float, str], ...]
    path: str
    recording: tuple[np.ndarray, np.ndarray] | tuple[()]
    voice: str  # the prompts in use; "" = none / the default
    role: str
    persona: object = None  # the engine.Persona it was started with (None: none, or a file from before personas)
    waiting_for_user: bool = False  # the assistant is held silent until the person speaks ("wait for me")
    captions: tuple[tuple[float, str], ...] = ()  # the person's words it holds: (seconds, text piece)
    turn_ends: tuple[float, ...] = ()  # where the caption model said the person's turn ended (seconds)


@dataclass(frozen=True)
class CaptionModelLoading:
    """The caption model ``name`` is loading (beside the conversation, which goes on)."""

    name: str


@dataclass(frozen=True)
class CaptionModelReady:
    """Captions run with ``name`` from the next frame; ``voice_activity``: it has the heads that end
    the person's turns (``engine.runtime.voice_activity``)."""

    name: str
    voice_activity: bool


@dataclass(frozen=True)
class CaptionModelFailed:
    """Captions stopped (the model did not load, or failed on a frame): why. The conversation goes on."""

    message: str


@dataclass(frozen=True)
class CaptionsAdded:
    """The person's words heard since the last: (seconds, text piece) as the conversation keeps
    them, and where the caption model says their turn ended (seconds)."""

    pieces: tuple[tuple[float, str], ...]
    turn_ends: tuple[float, ...] = ()


@dataclass(frozen=True)
class LiveChanged:
    """Whether the conversation's frames run now (``SetLive``; a new conversation starts stopped)."""

    live: bool


@dataclass(frozen=True)
class WaitingChanged:
    """Whether the current conversation now waits for the person (after ``SetWaitForUser``)."""

    waiting: bool


@dataclass(frozen=True)
class ConversationFailed:
    """A new conversation could not start (bad prompts); the old one is kept."""

    message: str


@dataclass(frozen=True)
class FrameDone:
    stats: object  # app.engine_thread.frame_stats.FrameStats
    waiting_for_user: bool = False  # the assistant was held silent ("wait for me")


@dataclass(frozen=True)
class EngineError:
    """A frame or a command failed; after a frame, streaming pauses until ``Resume``."""

    message: str
    resumable: bool


@dataclass(frozen=True)
class FileDone:
    """``what`` ("exported audio", or "saved" for a conversation replaced since) was written to ``path``."""

    what: str
    path: str


@dataclass(frozen=True)
class ConversationSaved:
    """The current conversation was saved; the file holds its first ``frames`` frames (more may have
    run while it was written)."""

    path: str
    frames: int


@dataclass(frozen=True)
class FileFailed:
    what: str
    message: str


@dataclass(frozen=True)
class RecoveryProgress:
    frames: int
    total: int


@dataclass(frozen=True)
class OpenProgress:
    """Frames of a compact file rebuilt so far, of ``total``."""

    frames: int
    total: int


@dataclass(frozen=True)
class OpenCancelled:
    """The person cancelled opening ``path``: the current conversation goes on."""

    path: str


@dataclass(frozen=True)
class RecoveryDone:
    """``problem`` is "" when the conversation was recovered, else why not."""

    problem: str


@dataclass(frozen=True)
class JournalState:
    """"" while the conversation is journaled (crash protection on); else why journaling stopped (a
    full disk): it is started again every ``JOURNAL_RETRY_S``, with every frame so far."""

    problem: str


@dataclass(frozen=True)
class ProcessingUnavailable:
    """Echo cancellation etc. cannot run here (sent once): why."""

    message: str


@dataclass(frozen=True)
class ClipReady:
    user: np.ndarray
    assistant: np.ndarray
    start_s: float
