"""Voices in the app: the guided recording through the app's own audio path (a PulseAudio null sink
into the microphone), saved into the library and picked by name with the same tokens as the same
audio given as a file; the recorder's plain warnings; the library dialog's commands."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from PySide6.QtWidgets import QDialog, QMessageBox

from app.audio.bridge import AudioBridge
from app.audio.headless import speak_into
from app.voices.dialog import NO_SHIPPED, TEXT_TO_READ, RecordVoiceDialog, VoiceLibraryDialog
from app.voices.recorder import DEVICE_CHANGED, NO_DEVICE, VoiceRecorder
from app.voices.view_model import CONSENT, VoicesModel
from engine import FRAME_SIZE, SAMPLE_RATE, VOICE_MIN_SECONDS, VoiceLibrary, to_16_bit, write_wav
from engine.audio import exact_int16
from engine.runtime.voices import load_voice
from tests import audio_server
from tests.test_audio_device import LiveApp
from tests.test_voice_recording import at_loudness, voice_like


@pytest.fixture
def library(tmp_path, monkeypatch):
    monkeypatch.setenv("PARLEY_VOICES_DIR", str(tmp_path / "voices"))
    return VoiceLibrary()


def speak(bridge: AudioBridge, recorder: VoiceRecorder, pcm: np.ndarray) -> None:
    speak_into(bridge, pcm, recorder.poll)


@pytest.fixture
def hand_driven(qtbot, library):
    bridge = AudioBridge(SAMPLE_RATE, 1, SAMPLE_RATE, 1)
    recorder = VoiceRecorder()
    recorder.set_bridge(bridge)
    voices = VoicesModel(library, [], recorder)
    dialog = RecordVoiceDialog(voices)
    qtbot.addWidget(dialog)
    return bridge, recorder, voices, dialog


def test_the_dialog_says_what_to_read_and_that_the_voice_needs_consent(hand_driven):
    *_, dialog = hand_driven
    texts = [w.text() for w in dialog.findChildren(type(dialog.text))]
    assert CONSENT in texts and TEXT_TO_READ in texts
    assert "nothing is sent anywhere" in CONSENT and "consent" in CONSENT
    assert dialog.record_button.text() == "&Record" and not dialog.save_button.isEnabled()


def test_too_quiet_clipped_and_too_short_are_said_plainly_and_keep_save_off(hand_driven):
    bridge, recorder, voices, dialog = hand_driven
    dialog.name_edit.setText("Me")
    dialog.record_button.click()
    assert recorder.state == "recording" and dialog.record_button.text() == "&Stop"
    speak(bridge, recorder, at_loudness(voice_like(3.0), -60.0))
    assert dialog.problems.text().startswith("Too quiet")  # said while recording, not only at the end
    assert "more at least" in dialog.status.text()
    assert -80 < dialog.meter.level_db < -40
    dialog.record_button.click()
    assert recorder.state == "recorded" and dialog.record_button.text() == "Record &again"
    assert "Too short: 3 s" in dialog.problems.text() and "Too quiet" in dialog.problems.text()
    assert not dialog.save_button.isEnabled()
    dialog.record_button.click()  # record again: the old take is gone
    speak(bridge, recorder, np.clip(at_loudness(voice_like(2.0), -24.0) * 30, -1, 1))
    assert recorder.seconds == pytest.approx(2.0, abs=0.1) and "Clipped" in dialog.problems.text()


def test_a_good_take_can_be_heard_named_and_saved(hand_driven, library):
    bridge, recorder, voices, dialog = hand_driven
    dialog.record_button.click()
    take = at_loudness(voice_like(VOICE_MIN_SECONDS + 0.5, seed=3), -24.0)
    speak(bridge, recorder, take)
    assert "you can stop now" in dialog.status.text()
    dialog.record_button.click()
    assert dialog.problems.text() == "" and not dialog.save_button.isEnabled()  # no name yet
    dialog.listen_button.click()
    assert recorder.state == "playing"
    heard = np.zeros((0, 1), np.float32)
    out = np.zeros((480, 1), np.float32)
    while recorder.state == "playing":  # the output callback plays what the recorder queues
        recorder.poll()
        bridge.output_callback(out, 480, None, None)
        heard = np.concatenate([heard, out])
    assert np.array_equal(heard[: recorder.recording().size, 0], recorder.recording())
    dialog.name_edit.setText("My voice")
    assert dialog.save_button.isEnabled()
    recorded = recorder.recording()
    dialog.save_button.click()
    assert dialog.result() == QDialog.Accepted and voices.message == "Saved the voice My voice."
    assert np.array_equal(library.recording("My voice"), to_16_bit(recorded))
    assert recorder.state == "idle" and recorder.recording().size == 0  # the dialog closed: the take is let go


def test_a_take_stops_by_itself_at_30_seconds(hand_driven):
    bridge, recorder, voices, dialog = hand_driven
    dialog.record_button.click()
    speak(bridge, recorder, at_loudness(voice_like(31.0, seed=5), -24.0))
    assert recorder.state == "recorded" and recorder.seconds == 30.0 and recorder.problems == ()


def test_without_an_audio_device_the_recorder_says_so(qtbot, library):
    recorder = VoiceRecorder()
    recorder.record()
    assert recorder.state == "idle" and recorder.error == NO_DEVICE
    recorder.set_bridge(AudioBridge(48_000, 2, 48_000, 2))
    recorder.record()
    speak_into(recorder._bridge, voice_like(1.0), recorder.poll)  # 0.5 s at 48 kHz
    assert recorder.state == "recording" and recorder.seconds == pytest.approx(0.48, abs=0.1)  # resampled, downmixed
    recorder.set_bridge(AudioBridge(SAMPLE_RATE, 1, SAMPLE_RATE, 1))  # the device was reopened (e.g. recovered)
    recorder.poll()
    assert recorder.state == "recorded" and recorder.error == DEVICE_CHANGED


def test_the_library_dialog_lists_plays_renames_and_removes(qtbot, library, monkeypatch):
    library.add("Zoe", at_loudness(voice_like(11.0, seed=4), -24.0))
    recorder = VoiceRecorder()
    bridge = AudioBridge(SAMPLE_RATE, 1, SAMPLE_RATE, 1)
    recorder.set_bridge(bridge)
    dialog = VoiceLibraryDialog(VoicesModel(library, ["NATF0", "VARM1"], recorder))
    qtbot.addWidget(dialog)
    rows = [dialog.list.item(i).text() for i in range(dialog.list.count())]
    assert rows == ["Shipped with the model", "    NATF0", "    VARM1", "Your voices", "    Zoe  ·  11 s"]
    dialog.list.setCurrentRow(1)
    assert not dialog.play_button.isEnabled() and not dialog.remove_button.isEnabled()
    dialog.list.setCurrentRow(4)
    dialog.play_button.click()
    assert recorder.state == "playing" and dialog.play_button.text() == "Sto&p"
    recorder.poll()
    assert bridge.output.available() > 0
    dialog.play_button.click()
    assert recorder.state == "idle"
    monkeypatch.setattr("app.voices.dialog.QInputDialog.getText", lambda *a, **k: ("NATM0", True))
    dialog.rename()
    assert "reserved" in dialog.note.text() and [v.name for v in library.voices()] == ["Zoe"]
    monkeypatch.setattr("app.voices.dialog.QInputDialog.getText", lambda *a, **k: ("Zoe at work", True))
    dialog.rename()
    assert dialog.note.text() == "Renamed Zoe to Zoe at work." and dialog.selected() == "Zoe at work"
    dialog.list.setCurrentRow(4)
    monkeypatch.setattr("app.voices.dialog.QMessageBox.question", lambda *a, **k: QMessageBox.Yes)
    dialog.remove()
    assert library.voices() == [] and dialog.list.item(4).text() == "None yet: record one or import a recording."
    empty = VoiceLibraryDialog(VoicesModel(library, [], recorder))
    qtbot.addWidget(empty)
    assert empty.list.item(1).text() == NO_SHIPPED


def test_an_import_says_what_makes_a_file_no_voice_before_asking_its_name_and_selects_what_it_added(
        qtbot, library, tmp_path, monkeypatch):
    dialog = VoiceLibraryDialog(VoicesModel(library, ["NATF0"], VoiceRecorder()))
    qtbot.addWidget(dialog)
    short, long = tmp_path / "five seconds.wav", tmp_path / "Grandma.wav"
    write_wav(short, at_loudness(voice_like(5.0, seed=5), -24.0))
    write_wav(long, at_loudness(voice_like(12.0, seed=6), -24.0))
    asked = []

    def name_it(*_args, text: str, **_kwargs):
        asked.append(text)
        return text, True
    monkeypatch.setattr("app.voices.dialog.QInputDialog.getText", name_it)
    monkeypatch.setattr("app.voices.dialog.QFileDialog.getOpenFileName", lambda *a, **k: (str(short), ""))
    dialog.import_file()
    assert asked == [] and "Too short: 5 s" in dialog.note.text() and library.voices() == []
    monkeypatch.setattr("app.voices.dialog.QFileDialog.getOpenFileName", lambda *a, **k: (str(long), ""))
    dialog.import_file()
    assert asked == ["Grandma"] and [v.name for v in library.voices()] == ["Grandma"]
    assert dialog.note.text() == "Imported Grandma (12 s)." and dialog.selected() == "Grandma"


@pytest.mark.audio
def test_a_voice_recorded_through_the_microphone_and_picked_by_name_equals_the_same_audio_as_a_file(
        pulse_audio, qtbot, tmp_path, app_demo_model, library):
    app = LiveApp(qtbot, tmp_path, app_demo_model)
    try:
        voices_dialog = app.window.dialogs.open_voices_dialog()
        dialog = voices_dialog.record()
        recorder = dialog.recorder
        assert recorder._bridge is app.window.model.devices.audio.bridge  # lent by the conversation
        speech = audio_server.espeak_wav(str(tmp_path / "read.wav"), TEXT_TO_READ)
        dialog.record_button.click()
        player = audio_server.play_into_mic(speech)
        try:
            qtbot.waitUntil(lambda: recorder.seconds >= 2.0, timeout=30_000)
            paused_at = len(app.frames)  # what the worker had in hand when it let go is done by now
            qtbot.waitUntil(lambda: recorder.seconds >= VOICE_MIN_SECONDS + 0.5, timeout=30_000)
        finally:
            player.kill()
            player.wait(10)
        dialog.record_button.click()
        assert recorder.problems == (), recorder.problems
        assert len(app.frames) == paused_at  # the conversation paused while the voice was recorded
        dialog.name_edit.setText("Read aloud")
        recorded = recorder.recording()
        dialog.save_button.click()
        assert [v.name for v in library.voices()] == ["Read aloud"]
        assert exact_int16(recorded) is not None  # 16-bit from the device: the stored WAV holds it exactly
        voices_dialog.close()
        qtbot.waitUntil(lambda: len(app.frames) > paused_at + 5, timeout=20_000)  # the conversation goes on
    finally:
        app.close()
    as_file = tmp_path / "same audio.wav"
    write_wav(as_file, recorded)
    with torch.inference_mode():
        by_name = load_voice(app_demo_model, "Read aloud")
        from_file = load_voice(app_demo_model, str(as_file))
    assert by_name.codes.shape == (-(-recorded.size // FRAME_SIZE), 8)
    assert torch.equal(by_name.codes, from_file.codes)
