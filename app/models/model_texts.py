"""What the window says a model is, in the interface's language. The engine's presets hold facts
(name, where it runs, licence, gated, non-commercial, measured GPU memory); the sentences are
written here, once, and translated where shown."""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP

import engine
from app.engine_texts import UNTRAINED
from app.i18n import number_text, translate

# A preset's name -> what it is in the table's few words, then what more the details say (None: nothing).
# "{name} {untrained}" is a demo's name and the engine's note that it is untrained.
ABOUT = {
    "demo": (QT_TRANSLATE_NOOP("ModelTexts", "{name} {untrained}: a tiny random-weight model built on this machine"),
             QT_TRANSLATE_NOOP("ModelTexts", "exercises the whole pipeline")),
    "moshiko": (QT_TRANSLATE_NOOP("ModelTexts", "Moshi with a male voice (kyutai), bf16 weights"), None),
    "moshika": (QT_TRANSLATE_NOOP("ModelTexts", "Moshi with a female voice (kyutai), bf16 weights"), None),
    "moshika-rl-seamless": (QT_TRANSLATE_NOOP("ModelTexts", "Moshi with a female voice, RL-aligned by kyutai for "
                                              "better turn-taking (pauses, backchannels, interruptions)"), None),
    "personaplex": (QT_TRANSLATE_NOOP("ModelTexts", "PersonaPlex-7B (NVIDIA): choose a voice and a text role "
                                      "prompt"), None),
    "personaplex-rl-seamless": (QT_TRANSLATE_NOOP("ModelTexts", "PersonaPlex-7B RL-aligned by kyutai for better "
                                                  "turn-taking (pauses, backchannels, interruptions)"),
                                QT_TRANSLATE_NOOP("ModelTexts", "choose a voice and a text role prompt")),
    "hibiki-zero": (QT_TRANSLATE_NOOP("ModelTexts", "Hibiki-Zero 3B (kyutai): live interpreter, French, Spanish, "
                                      "Portuguese or German speech in, English speech and text out"), None),
    "hibiki-2b": (QT_TRANSLATE_NOOP("ModelTexts", "Hibiki 2B (kyutai): live interpreter, French speech in, English "
                                    "speech and text out"), None),
    "hibiki-1b": (QT_TRANSLATE_NOOP("ModelTexts", "Hibiki-M 1B (kyutai): live interpreter, French speech in, "
                                    "English speech and text out"),
                  QT_TRANSLATE_NOOP("ModelTexts", "8 codebooks per stream")),
    "demo-interpreter": (QT_TRANSLATE_NOOP("ModelTexts", "{name} {untrained}: a tiny random-weight model in "
                                           "Hibiki-Zero's layout built on this machine; it translates nothing"),
                         QT_TRANSLATE_NOOP("ModelTexts", "exercises the interpreter path")),
    "demo-stt": (QT_TRANSLATE_NOOP("ModelTexts", "{name} {untrained}: a tiny random-weight model in Kyutai STT 1B's "
                                   "layout built on this machine"),
                 QT_TRANSLATE_NOOP("ModelTexts", "exercises the captioning path")),
    "stt-1b-en_fr": (QT_TRANSLATE_NOOP("ModelTexts", "Kyutai STT 1B: English and French speech to text, 0.5 s behind "
                                       "the words"),
                     QT_TRANSLATE_NOOP("ModelTexts", "with voice-activity heads")),
    "stt-2.6b-en": (QT_TRANSLATE_NOOP("ModelTexts", "Kyutai STT 2.6B: English speech to text, 2.5 s behind the "
                                      "words"), None),
}
ABOUT["kyutai-tts"] = (QT_TRANSLATE_NOOP("ModelTexts", "Kyutai TTS 1.6B: English and French text to speech, word by "
                                         "word as the text arrives, with kyutai's voices"), None)
# Pocket TTS: a preset per released row, named "pocket-tts" (English) or "pocket-tts-<language>[_24l]"
# (engine.families.pocket_tts.preset_name); its language in words, and its layers.
POCKET = "pocket-tts"
POCKET_LANGUAGES = {
    "english": QT_TRANSLATE_NOOP("ModelTexts", "in English"), "french": QT_TRANSLATE_NOOP("ModelTexts", "in French"),
    "german": QT_TRANSLATE_NOOP("ModelTexts", "in German"),
    "portuguese": QT_TRANSLATE_NOOP("ModelTexts", "in Portuguese"),
    "italian": QT_TRANSLATE_NOOP("ModelTexts", "in Italian"), "spanish": QT_TRANSLATE_NOOP("ModelTexts", "in Spanish"),
    "dutch": QT_TRANSLATE_NOOP("ModelTexts", "in Dutch"),
}
LAYERS_24_SUFFIX = "_24l"
RUNS_ON = {  # engine.Preset.runs_on
    "gpu": QT_TRANSLATE_NOOP("ModelTexts", "needs an NVIDIA GPU: precision auto loads bfloat16 where it fits in the "
                             "GPU's free memory, else int8 weights (int4 is experimental and opt-in)"),
    "gpu_or_cpu": QT_TRANSLATE_NOOP("ModelTexts", "runs on an NVIDIA GPU or, slowly, on the CPU"),
    "cpu": QT_TRANSLATE_NOOP("ModelTexts", "runs on the CPU in real time"),
}


def pocket_row(name: str) -> tuple[str, int] | None:
    """(language, layers) of a Pocket TTS preset's name; None for another model."""
    if name != POCKET and not name.startswith(f"{POCKET}-"):
        return None
    row = name.removeprefix(POCKET).removeprefix("-") or "english"
    return row.removesuffix(LAYERS_24_SUFFIX), 24 if row.endswith(LAYERS_24_SUFFIX) else 6


def summary(preset: engine.Preset) -> str:
    """What ``preset`` is, in the table's few words (its name where the window has no words for it)."""
    pocket = pocket_row(preset.name)
    if pocket is not None and pocket[0] in POCKET_LANGUAGES:
        return translate("ModelTexts", "Pocket TTS {language}, {layers} layers: text to speech with its shipped "
                         "voices").format(language=translate("ModelTexts", POCKET_LANGUAGES[pocket[0]]),
                                          layers=pocket[1])
    if preset.name not in ABOUT:
        return preset.name
    return translate("ModelTexts", ABOUT[preset.name][0]).format(name=preset.name,
                                                            untrained=translate("EngineTexts", UNTRAINED))


def description(preset: engine.Preset) -> str:
    """What ``preset`` is and where it runs, for the details under the table."""
    parts = [summary(preset)]
    more = ABOUT.get(preset.name, (None, None))[1]
    if more is not None:
        parts.append(translate("ModelTexts", more))
    parts.append(translate("ModelTexts", RUNS_ON[preset.runs_on]))
    return listed(parts)


def listed(parts: list[str]) -> str:
    """``parts`` one after the other, as the language separates the parts of a list ("a; b")."""
    text = parts[0]
    for part in parts[1:]:
        text = translate("ModelTexts", "{first}; {then}").format(first=text, then=part)
    return text


def memory_text(preset: engine.Preset) -> str:
    """The GPU memory measured in use ("" where it runs on the CPU or was not measured)."""
    if not preset.memory_gb:
        return ""
    each = ", ".join(translate("ModelTexts", "{gb} GB in {precision}").format(gb=number_text(gb, 1), precision=p)
                     for p, gb in preset.memory_gb.items())
    return translate("ModelTexts", "GPU memory in use, as measured on an {gpu} after live frames: {each}.").format(
        gpu=engine.MEASURED_ON, each=each)


def terms(preset: engine.Preset) -> str:
    """The licence and what it asks of a person, in plain words (shown before a download)."""
    words = [translate("ModelTexts", "Licence: {licence}.").format(licence=preset.licence)]
    if preset.non_commercial:
        words.append(translate("ModelTexts", "Non-commercial use only: not for work you are paid for or a product you "
                               "sell."))
    if preset.gated:
        words.append(translate("ModelTexts", "Gated: accept its terms on Hugging Face (logged in) and give Parley your "
                               "access token before downloading."))
    return " ".join(words)


def terms_short(preset: engine.Preset) -> str:
    """``terms`` in the few words of a table cell."""
    notes = [translate("ModelTexts", n) for n, on in ((QT_TRANSLATE_NOOP("ModelTexts", "non-commercial"),
                                                  preset.non_commercial),
                                                 (QT_TRANSLATE_NOOP("ModelTexts", "gated: accept on Hugging Face"),
                                                  preset.gated)) if on]
    return translate("ModelTexts", "{licence} ({notes})").format(licence=preset.licence, notes=listed(notes)) \
        if notes else preset.licence
