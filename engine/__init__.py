"""Parley's engine: the Moshi-family speech-to-speech models as explicit, streaming state.

The public API (what the app uses; everything else is internal):

    from engine import load_model, SamplingConfig
    model = load_model("demo")                 # a preset, or a model folder in the hub layout
    session = model.new_session(seed=1)
    result = session.step(pcm)                 # one 80 ms frame: float32 [FRAME_SIZE] at SAMPLE_RATE
    session.save("talk.parley"); session.restore("talk.parley")
    writer = start_journal(session, "talk.journal")   # crash journal; recover(model, "talk.journal")

Layout: ``streaming/`` (ring KV caches, layers, the streaming transformer), ``kernels/`` (packed
and int8 matmuls), ``codec/`` (Mimi), ``lm/`` (the language model, generation, sampling, the text
tokenizer, PersonaPlex prompts), ``runtime/`` (loading, the session, the per-frame step and its CUDA
graph), ``files/`` (model folders, the demo model, checkpoints, conversation files). See
docs/architecture.md.
"""

from .atomic import write_atomically
from .audio import FRAME_MS, FRAME_SECONDS, FRAME_SIZE, SAMPLE_RATE, read_audio, read_wav, to_16_bit, write_wav
from .errors import AudioFileError, ConversationFileError, ModelError, RecoveryCancelled
from .files.conversation import file_kind as conversation_kind
from .files.conversation_info import (
    ConversationInfo,
    ConversationSummary,
    read_conversation_audio,
    read_conversation_info,
    read_conversation_summary,
)
from .files.journal import Journal, JournalWriter, read_journal
from .files.models import PRESETS, Preset, PresetStatus, hub_cache_dir, preset_status, resolve_model
from .files.untrusted import is_regular_file
from .lm.generate import SamplingConfig
from .lm.prompts import DEFAULT_ROLE, DEFAULT_VOICE, NO_VOICE, shipped_voices
from .runtime.kernel_plan import Choice, KernelPlan
from .runtime.loading import LoadedModel, ModelInfo, Precision, load_model, release_memory
from .runtime.replay import (
    Recovery,
    can_save_compact,
    open_conversation,
    prefers_compact,
    record_frames,
    recover,
    save_conversation,
    snapshot_conversation,
    start_journal,
)
from .runtime.session import (
    CacheStats,
    FrameResult,
    FrameTimings,
    GraphStatus,
    OfflineResult,
    Session,
    TranscriptEntry,
)
from .runtime.threads import ThreadChoice
from .version import VERSION

__all__ = [
    "DEFAULT_ROLE", "DEFAULT_VOICE", "FRAME_MS", "FRAME_SECONDS", "FRAME_SIZE", "NO_VOICE", "PRESETS", "SAMPLE_RATE",
    "VERSION", "AudioFileError", "CacheStats", "Choice", "ConversationFileError", "ConversationInfo", "FrameResult",
    "FrameTimings", "GraphStatus", "Journal", "JournalWriter", "KernelPlan", "LoadedModel", "ModelError", "ModelInfo",
    "OfflineResult", "Precision", "Preset", "PresetStatus", "Recovery", "RecoveryCancelled", "SamplingConfig",
    "Session", "ThreadChoice", "TranscriptEntry", "can_save_compact", "conversation_kind", "hub_cache_dir",
    "load_model",
    "open_conversation", "prefers_compact", "preset_status", "read_audio", "read_conversation_audio",
    "read_conversation_info", "read_journal", "read_wav", "record_frames", "recover", "release_memory",
    "resolve_model", "save_conversation", "shipped_voices", "snapshot_conversation", "start_journal", "to_16_bit",
    "write_atomically", "write_wav",
    # reading files from anywhere: a list row, and whether a path is a regular file (never opened)
    "ConversationSummary", "is_regular_file", "read_conversation_summary",
]
