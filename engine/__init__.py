"""Parley's engine: the Moshi-family speech-to-speech models as explicit, streaming state.

The public API (what the app uses; everything else is internal):

    from engine import load_model, SamplingConfig
    model = load_model("demo")                 # a preset, or a model folder in the hub layout
    session = model.new_session(seed=1)
    result = session.step(pcm)                 # one 80 ms frame: float32 [FRAME_SIZE] at SAMPLE_RATE
    session.save("talk.parley"); session.restore("talk.parley")
    writer = record_frames(session, "talk.journal")   # crash journal; recover(model, "talk.journal")
    captioner = Captioner(load_speech_to_text("demo-stt"))  # captions: captioner.hear(pcm) beside each step

Layout: ``streaming/`` (ring KV caches, layers, the streaming transformer), ``kernels/`` (packed
and int8 matmuls), ``codec/`` (Mimi), ``lm/`` (the language model, generation, sampling, the text
tokenizer, PersonaPlex prompts), ``runtime/`` (loading, the session, the per-frame step and its CUDA
graph), ``files/`` (model folders, the demo model, conversation files); ``checkpoint.py`` loads
released checkpoints. See docs/architecture.md.
"""

from .atomic import WriteError, write_atomically
from .audio import FRAME_MS, FRAME_SECONDS, FRAME_SIZE, SAMPLE_RATE, read_audio, read_wav, to_16_bit, write_wav
from .errors import (
    AudioFileError,
    ConversationFileError,
    ModelError,
    PersonaLibraryError,
    RecoveryCancelled,
    VoiceLibraryError,
)
from .families import CAPTION_PRESETS
from .files.conversation import file_kind as conversation_kind
from .files.conversation import transcript_tuples
from .files.conversation_info import (
    ConversationInfo,
    ConversationSummary,
    read_conversation_audio,
    read_conversation_info,
    read_conversation_summary,
)
from .files.journal import Journal, JournalWriter, read_journal
from .files.models import (
    PRESETS,
    Preset,
    PresetStatus,
    hub_cache_dir,
    hub_revision,
    preset_status,
    resolve_model,
    use_revision,
)
from .files.personas import DEFAULT as DEFAULT_PERSONA
from .files.personas import Persona, PersonaEntry, PersonaLibrary
from .files.voices import MAX_SECONDS as VOICE_MAX_SECONDS
from .files.voices import MIN_SECONDS as VOICE_MIN_SECONDS
from .files.voices import Assessment, UserVoice, VoiceLibrary
from .files.voices import assess as assess_recording
from .lm.generate import SamplingConfig
from .lm.prompts import DEFAULT_ROLE, DEFAULT_VOICE, NO_VOICE, shipped_voices
from .lm.sampling import DEFAULT_SEED
from .regular_files import is_regular_file
from .runtime.captioner import Captioner, CaptionUpdate
from .runtime.kernel_plan import Choice, KernelPlan
from .runtime.loading import LoadedModel, ModelInfo, Precision, load_model, release_memory
from .runtime.pair_loading import LoadedPair, load_captions_beside, load_with_captions
from .runtime.replay import (
    Recovery,
    can_save_compact,
    keep_captions,
    open_conversation,
    prefers_compact,
    record_frames,
    recover,
    roll_back,
    save_conversation,
    snapshot_conversation,
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
from .runtime.threads import ThreadChoice, starting_threads, use_threads
from .runtime.transcriber import CaptionStep, SpeechToText, TranscriptionStream, Word, load_speech_to_text, words
from .version import VERSION

__all__ = [
    "DEFAULT_ROLE", "DEFAULT_SEED", "DEFAULT_VOICE", "FRAME_MS", "FRAME_SECONDS", "FRAME_SIZE", "NO_VOICE", "PRESETS",
    "SAMPLE_RATE", "VERSION", "AudioFileError", "CacheStats", "Choice", "ConversationFileError", "ConversationInfo",
    "FrameResult", "FrameTimings", "GraphStatus", "Journal", "JournalWriter", "KernelPlan", "LoadedModel", "ModelError",
    "ModelInfo", "OfflineResult", "Precision", "Preset", "PresetStatus", "Recovery", "RecoveryCancelled",
    "SamplingConfig", "Session", "ThreadChoice", "TranscriptEntry", "WriteError", "can_save_compact",
    "conversation_kind",
    "hub_cache_dir", "load_model", "open_conversation", "prefers_compact", "preset_status", "read_audio",
    "read_conversation_audio", "read_conversation_info", "read_journal", "read_wav", "record_frames", "recover",
    "release_memory", "resolve_model", "roll_back", "save_conversation", "shipped_voices", "snapshot_conversation",
    "starting_threads", "to_16_bit", "transcript_tuples", "use_threads", "write_atomically", "write_wav",
    "VOICE_MAX_SECONDS", "VOICE_MIN_SECONDS", "Assessment", "UserVoice", "VoiceLibrary", "VoiceLibraryError",
    "assess_recording",
    "hub_revision", "use_revision",
    "DEFAULT_PERSONA", "Persona", "PersonaEntry", "PersonaLibrary", "PersonaLibraryError",
    # reading files from anywhere: a list row, and whether a path is a regular file (never opened)
    "ConversationSummary", "is_regular_file", "read_conversation_summary",
    # speech to text (Kyutai STT): transcripts and captions of what the person says
    "CAPTION_PRESETS", "CaptionStep", "CaptionUpdate", "Captioner", "SpeechToText", "TranscriptionStream", "Word",
    "keep_captions", "load_speech_to_text", "words",
    # a conversation model with a caption model beside it, where the pair fits (engine.runtime.pair_memory)
    "LoadedPair", "load_captions_beside", "load_with_captions",
]
