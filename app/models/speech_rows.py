"""The voice models' rows of the model manager, widget-free: the text-to-speech presets
(``engine.SPEECH_PRESETS``: Pocket TTS, one row per released language and variant, and the GPU
voices), whether they are here, whether they run here and what the gated repositories mean."""

from __future__ import annotations

import engine
from app.i18n import translate


def is_voice(name: str) -> bool:
    return name in engine.SPEECH_PRESETS


def runs_on_any_cpu(preset: engine.Preset) -> bool:
    """What its family says (Pocket TTS: any CPU, in real time)."""
    return engine.family_named(preset.family).runs_on_cpu


def status_of(name: str) -> engine.PresetStatus:
    """Whether a preset's files are here, a voice model's as the engine finds them."""
    return engine.speech_preset_status(name) if is_voice(name) else engine.preset_status(name)


def voice_note(preset: engine.Preset) -> str:
    """What the description adds for a voice model: where it runs, and (Pocket TTS) which
    repository it comes from and what the gated one adds."""
    if not runs_on_any_cpu(preset):
        return translate("ModelManager", "A voice model reads text aloud; this one needs an NVIDIA GPU.")
    return translate("ModelManager", "A voice model reads the conversation's turns aloud (a turn's menu: Read "
                     "aloud); this one runs on any CPU, no GPU needed. Parley downloads it with its shipped voices "
                     "from the ungated {plain}; a voice made from your own recording needs the gated {cloning} "
                     "(accept its terms on Hugging Face), which Parley uses once it is in the cache.").format(
        plain=preset.repo, cloning=engine.POCKET_TTS_CLONING_REPOSITORY)


def remove_question(name: str, status: engine.PresetStatus) -> str:
    return translate("ModelManager", "Remove {name} from this computer? Its files in {folder} are deleted; you can "
                     "download it again later.").format(name=name, folder=status.path or engine.hub_cache_dir())
