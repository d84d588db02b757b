"""`python -m app.window.screenshots DIR`: PNGs of the main window in its main states, rendered offscreen,
at 1366x768 and 1024x640 (the window's shots are named with the size); light, dark (``-dark``) and
light in French (``-fr``: one translated set).

States, light and dark (``-dark``): 1-idle, 2-conversation (turns of both sides, overlapping, with
captions of what the person said; then with the Advanced meters),
3-library, 4-library-search, 5-replay, 6-error, 7-model-manager, 7-your-language-model (its
dialog, no server running), 8-voices (the voice library),
9-record-voice (the guided recording, idle), 10-record-voice-levels (recording, the meter live),
11-record-voice-too-quiet, 12-personas (the persona picker on the demo, a Moshi model: its style
and "wait for me" only), 13-persona-editor (a persona of the user's edited on a PersonaPlex model:
voice and role too), 14-persona-speaking (the window once that persona speaks), 15-interpreter (the
Interpreter mode: the demo interpreter listening). They are reached the way a user reaches them (the
demo model, push-to-talk, a test tone through the real input
callback, saving into the library folder, replaying a saved file, opening a damaged file,
recording voices through the input callback into a voice library in a temporary folder, a
PersonaPlex-architecture model of the demo's size), not painted by hand.
"""

from __future__ import annotations

import os
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path

import numpy as np

# A laptop's screen, and the smallest the window is made for (light and dark each).
WINDOW_SIZES = ((1366, 768), (1024, 640))


def take_screenshots(out_dir: Path, dark: bool = False, language: str | None = None) -> list[Path]:
    """``language``: an ``app.i18n.LANGUAGES`` key the interface speaks in these shots (None: English,
    the source texts), named ``-LANGUAGE``."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from app.audio.bridge import AudioBridge
    from app.audio.headless import BridgeFeeder, SignalRecorder, wait_until
    from app.audio.streams import DeviceStatus
    from app.conversation.status import Status
    from app.i18n import install_translators, remove_translators
    from app.widgets.colours import dark_palette
    from app.window.devices_panel import describe_audio
    from app.window.main_window import MainWindow
    from engine import FRAME_MS, SAMPLE_RATE

    app = QApplication.instance() or QApplication(sys.argv[:1])
    if dark:
        app.setStyle("Fusion")
        app.setPalette(dark_palette())
    out_dir.mkdir(parents=True, exist_ok=True)
    suffix = ("-dark" if dark else "") + (f"-{language}" if language else "")
    written: list[Path] = []
    translators = install_translators(app, language) if language else []

    def shot(widget, name: str) -> None:
        """The main window at each of ``WINDOW_SIZES``, a dialog at its own size."""
        sizes = WINDOW_SIZES if widget is window else (None,)
        for size in sizes:
            if size is not None:
                window.resize(*size)
            app.processEvents()
            path = out_dir / (f"{name}-{size[0]}x{size[1]}{suffix}.png" if size else f"{name}{suffix}.png")
            if not widget.grab().save(str(path)):
                raise OSError(f"could not write {path}")
            written.append(path)

    with tempfile.TemporaryDirectory(prefix="parley-shots-") as tmp, private_data(Path(tmp)):
        library = Path(tmp) / "conversations"
        library.mkdir()
        store = QSettings(str(Path(tmp) / "settings.ini"), QSettings.IniFormat)
        store.setValue("talk_key", "")  # the desktop-wide key: not taken from the desktop the shots are made on
        window = MainWindow(store, audio=False, worker_seed=3, conversations_dir=library)
        window.show()
        # What the audio line says with real devices: found while idle, open once the conversation runs.
        window.devices_panel.device_label.setText(describe_audio(DeviceStatus("ready", input_name="default",
                                                                             output_name="default")))
        opened = SignalRecorder()
        window.model.conversation_replaced.connect(opened.record)
        window.load_model("demo", "cpu", "auto")
        if not wait_until(lambda: window.model.models.model_info is not None and len(opened) > 0, 600):
            raise TimeoutError("the demo model did not load")
        shot(window, "1-idle")
        window.devices_panel.device_label.setText(describe_audio(DeviceStatus(
            "running", input_name="default", output_name="default", input_rate=SAMPLE_RATE,
            output_rate=SAMPLE_RATE)))

        bridge = AudioBridge(SAMPLE_RATE, 1, SAMPLE_RATE, 1)
        window.model.worker.set_bridge(bridge)
        feeder = BridgeFeeder(bridge, lambda: window.model.worker.processed_position)
        block = int(SAMPLE_RATE * FRAME_MS / 1000)
        t = np.arange(block * 25) / SAMPLE_RATE
        speech_like = (0.25 * np.sin(2 * np.pi * 180 * t) * (0.6 + 0.4 * np.sin(2 * np.pi * 3 * t))).astype(np.float32)
        quiet = np.zeros(block * 30, np.float32)
        window.menus.captions_action.trigger()  # captions of what the person says (the demo STT)
        if not wait_until(lambda: window.model.captions.running, 600):
            raise TimeoutError("the demo caption model did not load")
        for _ in range(2):  # two user turns, the assistant babbling through them
            window.press_talk("key")
            feeder.feed(speech_like)
            window.release_talk("key")
            feeder.feed(quiet)
        window.press_talk("key")
        feeder.feed(speech_like[: block * 10])
        shot(window, "2-conversation")
        window.meters_panel.advanced_box.setChecked(True)
        shot(window, "2-conversation-advanced")
        window.meters_panel.advanced_box.setChecked(False)
        window.release_talk("key")
        feeder.feed(quiet[: block * 10])
        wait_until(lambda: window.model.status is Status.SPEAKING, 2.0)

        saved = SignalRecorder()
        window.model.files.saved.connect(saved.record)
        for name in ("conversation.parley", "Trip to Lisbon.parley"):
            window.model.files.save(str(library / name))
            wait_until(lambda n=len(saved) + 1: len(saved) >= n, 60.0)
        wait_until(lambda: len(window.library.entries) == 2, 5.0)
        shot(window, "3-library")
        window.library_panel.search.setText("lisbon")
        window.library_panel.list.setCurrentIndex(window.library_panel.filter.index(0, 0))
        shot(window, "4-library-search")
        window.library_panel.search.clear()

        window.replay.load(str(library / "Trip to Lisbon.parley"))
        window.replay.seek(4.5)
        shot(window, "5-replay")
        window.conversation_panel.close_replay()

        broken = library / "holiday-plans.parley"
        broken.write_bytes(b"not a conversation")
        window.open_conversation(str(broken))
        wait_until(window.error_box.isVisible, 10.0)
        shot(window, "6-error")
        window.error_box.hide()

        dialog = window.dialogs.open_model_manager()
        shot(dialog, "7-model-manager")
        dialog.close()
        window.dialogs.server_finder = list  # no language model server runs: the dialog says what to start
        dialog = window.dialogs.open_chat_dialog()
        wait_until(dialog.find_button.isEnabled, 10.0)
        shot(dialog, "7-your-language-model")
        dialog.close()

        voice_shots(window, bridge, speech_like, shot)
        persona_shots(window, feeder, Path(tmp), shot)
        interpreter_shot(window, feeder, speech_like, shot)
        window.model.files.unsaved_frames = 0
        window.close()
    remove_translators(app, translators)
    return written


@contextmanager
def private_data(folder: Path):
    """The user's data folders (voices, personas) in ``folder`` while the screenshots are taken:
    never the user's own."""
    names = ("PARLEY_VOICES_DIR", "PARLEY_PERSONAS_DIR")
    before = {name: os.environ.get(name) for name in names}
    os.environ.update({"PARLEY_VOICES_DIR": str(folder / "voices"), "PARLEY_PERSONAS_DIR": str(folder / "personas")})
    try:
        yield
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name)
            else:
                os.environ[name] = value


def voice_shots(window, bridge, speech_like: np.ndarray, shot) -> None:
    """The voice library and the recording dialog; voices recorded through ``bridge``'s input
    callback into the (temporary) voice library."""
    from app.audio.headless import speak_into
    from engine import SAMPLE_RATE, VOICE_MIN_SECONDS

    library_dialog = window.dialogs.open_voices_dialog()
    recorder = library_dialog.voices.recorder
    window.model.worker.set_bridge(None)  # no devices here: lend the hand-driven bridge as the window would
    recorder.set_bridge(bridge)
    speech = np.tile(speech_like, int(VOICE_MIN_SECONDS * SAMPLE_RATE / speech_like.size) + 2)
    for name, level in (("My voice", 1.0), ("Grandpa reading", 0.5)):
        dialog = library_dialog.record()
        dialog.record_button.click()
        speak_into(bridge, speech * np.float32(level), recorder.poll)
        dialog.record_button.click()
        dialog.name_edit.setText(name)
        dialog.save_button.click()
    library_dialog.resize(600, 440)
    library_dialog.list.setCurrentRow(library_dialog.list.count() - 1)
    shot(library_dialog, "8-voices")

    dialog = library_dialog.record()
    shot(dialog, "9-record-voice")
    dialog.record_button.click()
    speak_into(bridge, speech[: 6 * SAMPLE_RATE], recorder.poll)
    shot(dialog, "10-record-voice-levels")
    dialog.record_button.click()  # stop
    dialog.record_button.click()  # record again
    speak_into(bridge, speech[: 4 * SAMPLE_RATE] * np.float32(0.03), recorder.poll)
    shot(dialog, "11-record-voice-too-quiet")
    dialog.close()
    library_dialog.close()


def persona_shots(window, feeder, tmp: Path, shot) -> None:
    """The persona picker on the demo (a Moshi model), then on a PersonaPlex-architecture model of
    the demo's size: a persona of the user's with one of the voices recorded before, chosen."""
    from app.audio.headless import SignalRecorder, wait_until
    from engine import FRAME_SIZE, write_personaplex_variant

    dialog = window.dialogs.open_persona_dialog()
    dialog.resize(820, 560)
    dialog.list.setCurrentRow(1)  # Language partner
    shot(dialog, "12-personas")
    dialog.close()

    opened = SignalRecorder()
    window.model.conversation_replaced.connect(opened.record)
    window.model.files.unsaved_frames = 0
    window.load_model(str(write_personaplex_variant(tmp / "personaplex")), "cpu", "float32")
    if not wait_until(lambda: window.model.models.takes_prompts and len(opened) > 0, 600):
        raise TimeoutError("the PersonaPlex-architecture model did not load")
    window.error_box.hide()
    dialog = window.dialogs.open_persona_dialog()
    dialog.resize(820, 560)
    dialog.list.setCurrentRow(2)  # Casual chat, as the new one's start
    dialog.new_button.click()
    dialog.personas.edit(name="Ship's cook", voice="My voice", role=(
        "You are the cook of a sailing ship. You talk about food, the sea and the crew, in short and "
        "cheerful sentences."))
    dialog.personas.set_style("Lively")
    shot(dialog, "13-persona-editor")
    dialog.start_button.click()
    if not wait_until(lambda: len(opened) > 1 or window.error_box.isVisible(), 600):
        raise TimeoutError("the persona's conversation did not start")
    window.model.worker.set_bridge(feeder.bridge)  # given back to no device when the voice library closed
    window.model.start()  # the new conversation runs once started
    feeder.feed(np.zeros(FRAME_SIZE * 3, np.float32))
    shot(window, "14-persona-speaking")


def interpreter_shot(window, feeder, speech_like: np.ndarray, shot) -> None:
    """The demo interpreter loaded (the Interpreter mode), started and hearing speech."""
    from app.audio.headless import SignalRecorder, wait_until

    opened = SignalRecorder()
    window.model.conversation_replaced.connect(opened.record)
    window.model.files.unsaved_frames = 0
    window.load_model("demo-interpreter", "cpu", "auto")
    if not wait_until(lambda: window.model.models.interpreting and len(opened) > 0, 600):
        raise TimeoutError("the demo interpreter did not load")
    window.error_box.hide()
    window.model.worker.set_bridge(feeder.bridge)
    window.model.start()
    feeder.feed(speech_like)
    shot(window, "15-interpreter")


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1 or args[0].startswith("-"):
        print("usage: python -m app.window.screenshots DIR (the window's screenshots, in English, French and "
              "dark, are written there)", file=sys.stderr)
        return 2
    # French before dark: the dark shots leave the application's palette dark.
    paths = (take_screenshots(Path(args[0])) + take_screenshots(Path(args[0]), language="fr")
             + take_screenshots(Path(args[0]), dark=True))
    for path in paths:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
