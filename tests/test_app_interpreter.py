"""The window's Interpreter mode with the demo interpreter (Hibiki-Zero's layout, random weights).

Offscreen with a hand-driven bridge (``tests/test_app_window.py``'s ``Harness``): what the mode
shows (the input named "Listen to", Talk and open mic off, the note saying what it listens to), that
it listens all the time while started and Pause stops it, and that its conversation is saved and
continued like any other. The echo rule as data (``app.conversation.interpreter_mode``). On the
real PulseAudio null sinks: the list of what this computer plays, and speech played into a sink
reaching the interpreter through that sink's monitor and PortAudio, with its output at the speaker.
"""

from __future__ import annotations

import subprocess

import numpy as np
import pytest
import srt
import webvtt
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QApplication, QFileDialog, QLabel, QMessageBox

from app.audio.echo import ProcessingSettings
from app.audio.headless import SignalRecorder
from app.audio.levels import SPEECH_DB
from app.audio.playback_capture import PlaybackSource, PlaybackSources, capture_route, pulse_monitors
from app.conversation.announcer import turn_announcement
from app.conversation.interpreter_mode import Listening, interpreter_note, processing_for
from app.conversation.transcript import ASSISTANT, YOU, Turn
from app.conversation.turn_list import TurnRole
from app.conversation.view import header_text
from app.window.main_window import MainWindow
from engine import load_model
from tests import audio_server
from tests.conftest import SPEECH
from tests.test_app_window import TONE_DB, Harness, conversations_dir


@pytest.fixture(scope="module")
def interpreter():
    return load_model("demo-interpreter", device="cpu", precision="float32")


@pytest.fixture
def harness(qtbot, tmp_path, interpreter):
    h = Harness(qtbot, tmp_path, lambda *args: interpreter, start=False)
    yield h
    h.close()


def test_an_interpreter_model_shows_the_interpreter_mode(harness, qtbot):
    w = harness.window
    panel = w.conversation_panel
    assert w.model.models.interpreting and "demo-interpreter (untrained, babbles)" in w.header.model_label.text()
    assert w.header.persona_label.text().startswith("Interpreter mode: it speaks and writes in English what it hears")
    assert w.devices_panel.input_title.text() == "Listen to"
    assert not panel.talk_button.isEnabled() and not panel.open_mic_box.isEnabled()
    assert "listens all the time while it runs" in panel.talk_button.toolTip()
    assert panel.start_button.isEnabled() and panel.start_button.text() == "Start"
    assert panel.placeholder.text().startswith("Press Start: the interpreter listens")
    note = panel.headphones_note
    assert note.isVisible() and note.text().startswith("The interpreter listens to the microphone while it runs.")
    assert "plays" not in note.text()  # no device runs in this test: nothing is listed that plays


def test_at_its_smallest_the_interpreter_window_squeezes_no_text(harness, qtbot):
    w = harness.window
    w.model.start()
    qtbot.waitUntil(lambda: w.model.live, timeout=10_000)
    harness.frames(3)
    w.resize(300, 200)
    QApplication.processEvents()
    central = w.centralWidget()
    assert central.width() >= central.minimumSizeHint().width()
    assert central.height() >= central.minimumSizeHint().height()
    assert w.conversation_panel.headphones_note.isVisible()  # the interpreter's note is among those checked
    squeezed = [(label.text()[:40], label.height(), label.minimumSizeHint().height())
                for label in w.findChildren(QLabel)
                if label.isVisible() and label.height() < label.minimumSizeHint().height()]
    assert squeezed == []


def interpret_and_save(harness, qtbot, path) -> None:
    """The interpreter hears the tone for a while (both sides have turns), then its conversation is saved."""
    model = harness.window.model
    model.start()
    qtbot.waitUntil(lambda: model.live, timeout=10_000)
    harness.frames(25)
    model.pause()
    qtbot.waitUntil(lambda: not model.live, timeout=10_000)
    assert {t.speaker for t in model.transcript.turns} == {YOU, ASSISTANT}
    with qtbot.waitSignal(model.files.saved, timeout=30_000):
        model.files.save(str(path))


def shown_sides(view) -> set[str]:
    """The sides' names as the view's turn headers and accessible texts say them."""
    model = view.model()
    turns = [model.index(row, 0).data(TurnRole) for row in range(model.rowCount())]
    headers = {header_text(turn, view.delegate.interpreting).split("  ·  ")[0] for turn in turns}
    lines = {line.split(":")[0] for line in view.as_text().splitlines()}
    assert headers == lines
    return headers


def test_an_interpreters_turns_are_the_original_and_the_interpreter_in_the_view_exports_and_replay(
        harness, qtbot, tmp_path):
    w = harness.window
    view = w.conversation_panel.view
    said = SignalRecorder()
    w.announcer.announce.connect(said.record)
    interpret_and_save(harness, qtbot, tmp_path / "call.parley")
    assert shown_sides(view) == {"Original", "Interpreter"}
    texts = [text for (text,) in said.calls]  # what a screen reader is told
    assert texts and sorted(texts) == sorted(turn_announcement(t, True) for t in w.model.transcript.turns)
    assert all(text.startswith(("Interpreter: ", "The interpreter heard ", "The interpreter spoke")) for text in texts)
    for suffix in (".srt", ".vtt", ".md"):
        w.model.files.export_transcript(str(tmp_path / f"call{suffix}"))
    cues = srt.parse((tmp_path / "call.srt").read_text(encoding="utf-8"))
    assert {c.content.split(":")[0] for c in cues} == {"Original", "Interpreter"}
    assert {c.voice for c in webvtt.read(str(tmp_path / "call.vtt")).captions} == {"Original", "Interpreter"}
    markdown = (tmp_path / "call.md").read_text(encoding="utf-8")
    assert "**Original** (" in markdown and "**Interpreter** (" in markdown and "**You**" not in markdown
    assert w.replay.load(str(tmp_path / "call.parley"))  # reopened for replay: the file names its model
    assert view.model() is w.replay.turns and shown_sides(view) == {"Original", "Interpreter"}


def test_loading_a_conversation_model_leaves_the_interpreter_mode(qtbot, tmp_path, interpreter, app_demo_model):
    from tests.test_app_captions import speak

    models = {"demo": interpreter}
    h = Harness(qtbot, tmp_path, lambda name, *args: models[name], start=False)
    try:
        w = h.window
        assert w.model.talk.listening and w.model.talk.mic_open
        interpret_and_save(h, qtbot, tmp_path / "call.parley")
        assert shown_sides(w.conversation_panel.view) == {"Original", "Interpreter"}
        models["demo"] = app_demo_model
        w.model.models.load_model("demo", "cpu", "float32")
        qtbot.waitUntil(lambda: w.model.models.model_info is not None and not w.model.models.interpreting,
                        timeout=60_000)
        panel = w.conversation_panel
        assert w.devices_panel.input_title.text() == "Microphone" and not w.model.talk.mic_open
        assert panel.talk_button.isEnabled() and panel.open_mic_box.isEnabled()
        assert panel.placeholder.text().startswith("Hold Space") and not panel.headphones_note.isVisible()
        assert w.header.persona_label.text().startswith("Persona: ")
        speak(h, 25)  # a conversation: the person and the assistant
        assert shown_sides(panel.view) == {"You", "Assistant"}
        w.model.files.export_transcript(str(tmp_path / "talk.vtt"))
        assert {c.voice for c in webvtt.read(str(tmp_path / "talk.vtt")).captions} == {"You", "Assistant"}
        assert w.replay.load(str(tmp_path / "call.parley"))  # the interpreter's file keeps its sides' names
        assert shown_sides(panel.view) == {"Original", "Interpreter"}
    finally:
        h.close()


def test_it_listens_all_the_time_while_started_and_space_is_not_push_to_talk(harness, qtbot):
    w = harness.window
    qtbot.keyPress(w, Qt.Key_Space)  # no push-to-talk: nothing starts
    qtbot.wait(300)
    qtbot.keyRelease(w, Qt.Key_Space)
    assert not w.model.live and not w.model.talk.held_by
    qtbot.mouseClick(w.conversation_panel.start_button, Qt.LeftButton)
    qtbot.waitUntil(lambda: w.model.live, timeout=10_000)
    heard = harness.frames(3)
    assert all(s.mic_open and abs(s.model_input_db - TONE_DB) < 1.0 for s in heard)  # no button held
    assert w.conversation_panel.start_button.text() == "Pause"
    qtbot.mouseClick(w.conversation_panel.start_button, Qt.LeftButton)
    qtbot.waitUntil(lambda: not w.model.live, timeout=10_000)
    assert w.conversation_panel.start_button.text() == "Continue"


def test_an_interpretation_is_saved_opened_and_continued(harness, qtbot, tmp_path, monkeypatch):
    w = harness.window
    w.model.start()
    qtbot.waitUntil(lambda: w.model.live, timeout=10_000)
    before = harness.frames(4)
    assert w.windowTitle().startswith("Untitled conversation *")  # what it heard is unsaved work
    path = tmp_path / "talk.parley"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(path), ""))
    w.menus.save_action.trigger()
    qtbot.waitUntil(lambda: w.model.files.conversation_path == str(path) and w.model.files.unsaved_frames == 0,
                    timeout=20_000)
    w.model.pause()
    qtbot.waitUntil(lambda: not w.model.live, timeout=10_000)
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.Discard)
    w.menus.new_action.trigger()
    qtbot.waitUntil(lambda: w.model.files.conversation_path is None, timeout=10_000)
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(path), ""))
    w.menus.open_action.trigger()
    qtbot.waitUntil(lambda: w.model.files.conversation_path == str(path), timeout=20_000)
    saved_frames = w.model.worker.controller.session.frames
    assert saved_frames >= len(before)
    w.model.start()
    qtbot.waitUntil(lambda: w.model.live, timeout=10_000)
    assert harness.frames(1)[0].frame_index == saved_frames  # continues where the file ends


SPEAKER = PlaybackSource("What Speakers plays", "Speakers", pulse_source="speakers.monitor", pulse_sink="speakers")
HEADPHONES = PlaybackSource("What Headphones plays", "Headphones", pulse_source="phones.monitor", pulse_sink="phones")
PLAYING = PlaybackSources((SPEAKER, HEADPHONES), default_sink="speakers")


def test_the_echo_rule_cancels_its_own_voice_where_it_listens_to_the_device_it_speaks_on():
    off = ProcessingSettings(echo_cancellation=False)
    same = Listening.of("What Speakers plays", "", PLAYING)  # the default output is the speakers
    assert same.source is SPEAKER and same.echoes
    assert processing_for(same, off).echo_cancellation  # on whatever the Audio menu says
    text, warning = interpreter_note(same, off, "", PLAYING)
    assert "speaks there too" in text and "always on" in text and not warning
    text, warning = interpreter_note(same, off, "the library is missing", PLAYING)
    assert "choose another speaker" in text and "the library is missing" in text and warning
    other = Listening.of("What Headphones plays", "pulse (ALSA)", PLAYING)
    assert not other.echoes and not processing_for(other, off).echo_cancellation
    assert "does not come back in" in interpreter_note(other, off, "", PLAYING)[0]
    # a device that does not play through the sound server is another output
    assert not Listening.of("What Speakers plays", "HDA Intel: ALC (hw:0,0) (ALSA)", PLAYING).echoes
    microphone = Listening.of("USB mic (ALSA)", "", PLAYING)
    assert microphone.source is None and not microphone.echoes
    assert "choose \"What … plays\"" in interpreter_note(microphone, ProcessingSettings(), "", PLAYING)[0]
    assert interpreter_note(microphone, off, "", PLAYING)[1]  # no echo cancellation on a microphone: a warning


def test_a_monitor_is_opened_through_the_pulse_device_with_its_source():
    route = capture_route("What Headphones plays", PLAYING, "pulse (ALSA)")
    assert (route.input_label, route.pulse_source, route.shown) == ("pulse (ALSA)", "phones.monitor",
                                                                   "What Headphones plays")
    assert capture_route("USB mic (ALSA)", PLAYING, "pulse (ALSA)").input_label == "USB mic (ALSA)"


def test_each_platform_says_what_it_offers_to_listen_to():
    from app.audio.playback_capture import list_playback_sources
    from app.audio.streams import DeviceInfo

    wasapi = (DeviceInfo(0, "Speakers (Realtek)", "Windows WASAPI", 0, 2, 48000.0),
              DeviceInfo(1, "Speakers (Realtek) [Loopback]", "Windows WASAPI", 2, 0, 48000.0),
              DeviceInfo(2, "Microphone (USB)", "Windows WASAPI", 1, 0, 48000.0))
    windows = list_playback_sources(wasapi, platform="win32")
    assert [(s.label, s.input_label) for s in windows.sources] == [
        ("What Speakers (Realtek) plays", "Speakers (Realtek) [Loopback] (Windows WASAPI)")]
    assert Listening.of("What Speakers (Realtek) plays", "Speakers (Realtek) (Windows WASAPI)", windows).echoes
    assert not Listening.of("What Speakers (Realtek) plays", "Headphones (Windows WASAPI)", windows).echoes
    assert "no WASAPI loopback" in list_playback_sources(wasapi[::2], platform="win32").unavailable
    assert "loopback device" in list_playback_sources((), platform="darwin").unavailable
    alsa_only = (DeviceInfo(0, "HDA Intel PCH: ALC3246 Analog (hw:0,0)", "ALSA", 2, 2, 48000.0),)
    assert "PulseAudio or PipeWire" in list_playback_sources(alsa_only, platform="linux").unavailable


# --------------------------------------------------------------------------- real audio devices

VIDEO_SINK = "parley_video"  # what a video plays on: no microphone carries it, only its own monitor


def monitor_of(sink: str) -> PlaybackSource:
    return next(s for s in pulse_monitors().sources if s.pulse_sink == sink)


@pytest.fixture
def video_sink(pulse_audio):
    module = subprocess.run(["pactl", "load-module", "module-null-sink", f"sink_name={VIDEO_SINK}", "rate=48000",
                             "channels=2"], capture_output=True, text=True, timeout=15, check=True).stdout.strip()
    yield VIDEO_SINK
    subprocess.run(["pactl", "unload-module", module], capture_output=True, timeout=15, check=False)


@pytest.mark.audio
def test_the_sinks_are_listed_as_what_this_computer_plays(pulse_audio):
    playback = pulse_monitors()
    assert playback.default_sink == audio_server.SPEAKER_SINK and not playback.unavailable
    labels = [s.label for s in playback.sources]
    assert len(set(labels)) == len(labels) >= 2  # two "Null Output"s told apart
    speaker = monitor_of(audio_server.SPEAKER_SINK)
    assert speaker.pulse_source == f"{audio_server.SPEAKER_SINK}.monitor"
    assert speaker.label.startswith("What Null Output") and speaker.label.endswith(" plays")


@pytest.mark.audio
def test_speech_played_on_the_computer_reaches_the_interpreter_through_the_monitor(video_sink, qtbot, tmp_path,
                                                                                    interpreter):
    """Speech played into a sink of its own (as a video would play it, which no microphone hears) is
    heard through that sink's monitor, by PortAudio and the ALSA pulse device; the interpreter's
    speech reaches the chosen output (the default speaker sink)."""
    window = MainWindow(QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat),
                        model_loader=lambda *args: interpreter, audio=True, worker_seed=1,
                        conversations_dir=conversations_dir(tmp_path))
    frames = SignalRecorder()
    window.model.frame.connect(frames.record)
    try:
        window.show()
        window.load_model("demo-interpreter", "cpu", "float32")
        source = monitor_of(video_sink)
        qtbot.waitUntil(lambda: window.model.models.interpreting
                        and window.model.devices.status.playback.named(source.label) is not None, timeout=60_000)
        combo = window.devices_panel.input_combo
        combo.setCurrentIndex(combo.findText(source.label))
        combo.activated.emit(combo.currentIndex())
        audio = window.model.devices.audio
        qtbot.waitUntil(lambda: audio.status.state == "ready" and audio.status.input_name == source.label,
                        timeout=20_000)
        note = window.conversation_panel.headphones_note.text()
        assert "speaks on another output" in note and source.device in note  # it plays on parley_speaker
        window.model.start()
        qtbot.waitUntil(lambda: len(frames) > 3, timeout=30_000)
        start = len(frames)
        speaker = audio_server.SinkRecorder(str(tmp_path / "speaker.f32"))
        player = subprocess.Popen(["paplay", f"--device={video_sink}", SPEECH["interrupt_48k_stereo.wav"]])
        try:
            qtbot.waitUntil(lambda: sum(args[0].model_input_db > SPEECH_DB for args in frames.calls[start:]) >= 10,
                            timeout=30_000)
        finally:
            player.kill()
            player.wait(10)
        count = len(frames)
        qtbot.waitUntil(lambda: len(frames) >= count + 10, timeout=20_000)
        recorded = np.frombuffer(speaker.stop(), dtype="<f4")
        stats = [args[0] for args in frames.calls[start:]]
        assert all(s.mic_open for s in stats)  # nothing held: it listens while it runs
        assert any(s.output_db > -60 for s in stats), "the interpreter produced no audible output"
        rms_db = 20 * np.log10(np.sqrt(np.mean(np.square(recorded[-24_000:]))) + 1e-12)
        assert recorded.size > 24_000 and rms_db > -60, f"nothing reached the speaker sink ({rms_db:.1f} dBFS)"

        # Listening to the speaker it plays on (nothing else playing): the echo rule turns echo
        # cancellation on, and its own voice does not come back in.
        echo = monitor_of(audio_server.SPEAKER_SINK)
        combo.setCurrentIndex(combo.findText(echo.label))
        combo.activated.emit(combo.currentIndex())
        qtbot.waitUntil(lambda: audio.status.input_name == echo.label, timeout=20_000)
        assert window.model.devices.listening().echoes and window.model.devices.processing_in_use().echo_cancellation
        assert "speaks there too" in window.conversation_panel.headphones_note.text()
        mark = len(frames)

        def last_50():
            return [args[0] for args in frames.calls[mark:][-50:]]

        def echo_gone():
            return np.median([s.model_input_db for s in last_50()]) < SPEECH_DB - 30

        # The canceller converges in ~8 s here (100 frames); a loaded machine takes longer (a CI run
        # measured 23 dB at 8 s): 50 frames in a row without its echo, within 40 s (500 frames).
        qtbot.waitUntil(lambda: len(frames) >= mark + 100 and (echo_gone() or len(frames) >= mark + 500),
                        timeout=90_000)
        settled = last_50()
        assert max(s.mic_db for s in settled) > SPEECH_DB  # its own voice is in what the speaker plays...
        assert echo_gone(), f"the model hears its own voice: {[round(s.model_input_db) for s in settled]}, " \
                            f"the canceller's last reading {settled[-1].echo}"  # ...and the model does not hear it
    finally:
        window.model.files.unsaved_frames = 0
        window.close()


@pytest.mark.slow
def test_an_interpretation_a_crash_left_is_recovered_bit_for_bit(qtbot, tmp_path, interpreter):
    """The worker journals an interpretation like a conversation; the next start rebuilds it exactly."""
    import shutil

    import torch

    import engine
    from engine.state import flatten
    from tests.test_app_recovery import App

    journals, crashed = tmp_path / "journals", tmp_path / "crashed"
    journals.mkdir()
    crashed.mkdir()
    first = App(qtbot, tmp_path, interpreter, journals)
    try:
        first.talk(10)
        journal = first.window.model.worker.controller.journal_path
        qtbot.waitUntil(lambda: engine.read_journal(journal).frames == 10, timeout=10_000)
        shutil.copy(journal, crashed / journal.name)  # what a kill -9 now would leave behind
    finally:
        first.close()
    second = App(qtbot, tmp_path, interpreter, crashed)
    try:
        dialogs = second.window.dialogs.recovery
        assert dialogs is not None and dialogs.offer.frames == 10
        dialogs.recover_button.click()
        qtbot.waitUntil(lambda: dialogs.offer.outcome is not None, timeout=120_000)
        assert dialogs.offer.outcome == "" and not (crashed / journal.name).exists()
        new_journal = second.window.model.worker.controller.journal_path  # the recovered one's
        qtbot.waitUntil(lambda: engine.read_journal(new_journal).frames == 10, timeout=10_000)
        header = engine.read_journal(new_journal).header
        threads = torch.get_num_threads()
        torch.set_num_threads(header.threads)  # float sums are grouped per thread: run as the worker did
        try:
            reference = interpreter.new_session(sampling=header.sampling, seed=header.seed)
            for frame in engine.read_journal(new_journal).pcm:  # an uninterrupted run fed the same frames
                reference.step(frame)
        finally:
            torch.set_num_threads(threads)
        recovered = second.window.model.worker.controller.session
        assert recovered.frames == 10 and second.window.model.models.interpreting
        ours, theirs = flatten(recovered.state), flatten(reference.state)
        assert not [name for name in ours if not torch.equal(ours[name], theirs[name])]
    finally:
        second.close()


def test_captions_write_the_source_speech_into_the_turns_it_interprets(harness, qtbot):
    """Captions in the Interpreter mode: the caption model hears what the interpreter hears (the
    source speech), and its words go into the source's turns beside the English translation."""
    from tests.test_app_captions import captions_on, your_turns

    model = harness.window.model
    captions_on(harness)
    model.start()
    qtbot.waitUntil(lambda: model.live, timeout=10_000)
    harness.frames(20)
    model.pause()
    qtbot.waitUntil(lambda: not model.live, timeout=10_000)
    kept = model.worker.controller.session.captions
    assert kept and list(model.transcript.captions) == list(kept)
    source = " ".join(t.text for t in your_turns(model)).split()
    assert source and source == "".join(text for _, text in kept).split()


def test_the_interpreters_sides_are_named_in_each_language(qapp):
    from app.i18n import install_translators, remove_translators

    for language, original, interpreter, heard in (
            ("en", "Original", "Interpreter", "The interpreter heard 1 second of speech."),
            ("fr", "Original", "Interprète", "L'interprète a entendu 1 seconde de parole."),
            ("de", "Original", "Dolmetscher", "Der Dolmetscher hat 1 Sekunde Sprache gehört."),
            ("es", "Original", "Intérprete", "El intérprete oyó 1 segundo de voz.")):
        translators = install_translators(qapp, language)
        try:
            assert header_text(Turn(YOU, 0.0, 1.2), True).startswith(original + "  ·  ")
            assert header_text(Turn(ASSISTANT, 0.0, 2.0), True).startswith(interpreter + "  ·  ")
            assert turn_announcement(Turn(YOU, 0.0, 1.2), True) == heard
        finally:
            remove_translators(qapp, translators)
