"""Parley's engine: the Moshi-family speech-to-speech models as explicit, streaming state. What this
module exports is the public API the app uses (``load_model``, ``Session.step`` of one 80 ms frame);
everything else is internal. See docs/architecture.md."""

from .atomic import PRIVATE_MODE, WriteError, replaceable, write_atomically
from .audio import FRAME_MS, FRAME_SECONDS, FRAME_SIZE, SAMPLE_RATE, read_audio, read_wav, to_16_bit, write_wav
from .errors import (
    AudioFileError,
    ConversationFileError,
    ModelError,
    PersonaLibraryError,
    RecoveryCancelled,
    VoiceLibraryError,
)
from .families import CAPTION_PRESETS, SPEECH_PRESETS, Family, family_named
from .families.family import MEASURED_ON
from .files.chat_conversation import (
    ChatConversation,
    LanguageModelSide,
    read_chat_conversation,
    write_chat_conversation,
)
from .files.conversation import CHAT as CHAT_CONVERSATION
from .files.conversation import file_kind as conversation_kind
from .files.conversation import transcript_tuples
from .files.conversation_info import (
    ConversationInfo,
    ConversationSummary,
    read_conversation_audio,
    read_conversation_info,
    read_conversation_summary,
)
from .files.demo import write_personaplex_variant
from .files.journal import Journal, JournalWriter, read_journal, scan_journal
from .files.model_revisions import short as short_revision
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
from .files.speech_models import (
    fetch_speech_model,
    installed_pocket_tts,
    pocket_tts_presets,
    remove_speech_model,
    speech_preset_status,
)
from .files.subtitles import FORMATS as SUBTITLE_FORMATS
from .files.subtitles import INVISIBLE as INVISIBLE_CHARACTERS
from .files.subtitles import Cue as SubtitleCue
from .files.subtitles import plain as plain_words
from .files.subtitles import render as render_subtitles
from .files.subtitles import srt as srt_subtitles
from .files.subtitles import vtt as vtt_subtitles
from .files.user_data import ensure_private_folder
from .files.voices import MAX_SECONDS as VOICE_MAX_SECONDS
from .files.voices import MIN_SECONDS as VOICE_MIN_SECONDS
from .files.voices import Assessment, UserVoice, VoiceLibrary, read_voice_file
from .files.voices import assess as assess_recording
from .lm.generate import SamplingConfig
from .lm.prompts import DEFAULT_ROLE, DEFAULT_VOICE, NO_VOICE, shipped_voices
from .lm.sampling import DEFAULT_SEED
from .pocket_tts.hub import resolve as resolve_pocket_tts
from .pocket_tts.loading import load_pocket_tts
from .pocket_tts.releases import REPOSITORY as POCKET_TTS_CLONING_REPOSITORY
from .pocket_tts.releases import base_language as pocket_language
from .pocket_tts.releases import default_voice as pocket_default_voice
from .pocket_tts.speech import Speaker as PocketSpeaker
from .pocket_tts.speech import SpeechRun
from .pocket_tts.voices import read_voice_file as read_pocket_voice
from .pocket_tts.voices import voice_file as pocket_voice_file
from .pocket_tts.voices import voice_from_audio as pocket_voice_from_audio
from .regular_files import is_regular_file, read_regular
from .runtime.captioner import Captioner, CaptionUpdate
from .runtime.gpu_memory import Gpu, choose_precision
from .runtime.kernel_plan import Choice, KernelPlan
from .runtime.kyutai_speech import (
    KyutaiRun,
    KyutaiSpeech,
    SpeechFrame,
    kyutai_voice,
    load_kyutai_speech,
    speaks_kyutai,
)
from .runtime.loading import LoadedModel, ModelInfo, Precision, load_model, release_memory
from .runtime.pair_loading import LoadedPair, load_captions_beside, load_with_captions
from .runtime.pair_memory import ANY_GPU, HostMemory, ModelShape, plan_pair
from .runtime.pair_memory import need as memory_need
from .runtime.precision_compare import compare_precisions
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
from .runtime.voice_activity import TurnEnds
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
    "release_memory", "replaceable", "resolve_model", "roll_back", "save_conversation", "scan_journal",
    "shipped_voices", "snapshot_conversation",
    "starting_threads", "to_16_bit", "transcript_tuples", "use_threads", "write_atomically", "write_wav",
    "VOICE_MAX_SECONDS", "VOICE_MIN_SECONDS", "Assessment", "UserVoice", "VoiceLibrary", "VoiceLibraryError",
    "assess_recording",
    "hub_revision", "use_revision",
    "DEFAULT_PERSONA", "Persona", "PersonaEntry", "PersonaLibrary", "PersonaLibraryError",
    "ConversationSummary", "is_regular_file", "read_conversation_summary",
    # a conversation with the person's language model, as a file
    "CHAT_CONVERSATION", "ChatConversation", "LanguageModelSide", "read_chat_conversation", "write_chat_conversation",
    # speech to text (Kyutai STT): transcripts and captions of what the person says
    "CAPTION_PRESETS", "CaptionStep", "CaptionUpdate", "Captioner", "SpeechToText", "TranscriptionStream", "Word",
    "keep_captions", "load_speech_to_text", "words", "TurnEnds",
    # a conversation model with a caption model beside it
    "LoadedPair", "load_captions_beside", "load_with_captions",
    # what a model needs in memory before it is loaded
    "ANY_GPU", "Gpu", "HostMemory", "ModelShape", "choose_precision", "memory_need", "plan_pair",
    "Family", "family_named", "MEASURED_ON",
    "PRIVATE_MODE", "ensure_private_folder", "read_voice_file", "SUBTITLE_FORMATS", "SubtitleCue", "render_subtitles",
    "srt_subtitles", "vtt_subtitles", "short_revision", "INVISIBLE_CHARACTERS", "plain_words", "read_regular",
    # text to speech (Pocket TTS)
    "PocketSpeaker", "SpeechRun", "load_pocket_tts", "pocket_default_voice", "pocket_language", "pocket_voice_file",
    "pocket_voice_from_audio", "read_pocket_voice", "resolve_pocket_tts",
    # the voice models in the model manager
    "SPEECH_PRESETS", "POCKET_TTS_CLONING_REPOSITORY", "fetch_speech_model", "remove_speech_model",
    "speech_preset_status", "installed_pocket_tts", "pocket_tts_presets",
    # text to speech (Kyutai TTS, on a GPU)
    "KyutaiRun", "KyutaiSpeech", "SpeechFrame", "kyutai_voice", "load_kyutai_speech", "speaks_kyutai",
    "compare_precisions", "write_personaplex_variant",
]
