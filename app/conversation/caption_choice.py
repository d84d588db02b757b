"""Which caption model runs beside a conversation model: the demo speech-to-text model beside the
demo (built on this machine, nothing to download), otherwise the first Kyutai STT preset that is
downloaded here, in ``engine.CAPTION_PRESETS``' order (stt-1b-en_fr, then stt-2.6b-en); none
where none is. Nothing is downloaded or loaded to find out."""

from __future__ import annotations

from collections.abc import Callable

import engine


def _present(name: str) -> bool:
    return engine.preset_status(name).present


def caption_model_for(conversation_is_demo: bool, present: Callable[[str], bool] = _present) -> str:
    """The caption preset for a conversation model ("" where none is on this machine)."""
    for name, preset in engine.CAPTION_PRESETS.items():
        if engine.family_named(preset.family).is_demo:
            if conversation_is_demo:
                return name
        elif not conversation_is_demo and present(name):
            return name
    return ""


def real_caption_models() -> tuple[str, ...]:
    """The downloadable caption presets, as the window names them when none is here."""
    return tuple(name for name, p in engine.CAPTION_PRESETS.items() if not engine.family_named(p.family).is_demo)
