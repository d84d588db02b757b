"""Conversation audio export and settings persistence (transcript exports: test_transcript_exports.py)."""

from __future__ import annotations

import wave

import numpy as np
from PySide6.QtCore import QSettings

from app.engine_thread.controller import write_stereo_wav
from app.settings import MAX_RECENT, AppSettings, load_settings, save_settings


def test_conversation_audio_is_a_stereo_wav_user_left_assistant_right(tmp_path):
    user = np.full(2400, 0.25, np.float32)
    assistant = np.full(4800, -0.5, np.float32)
    path = tmp_path / "c.wav"
    write_stereo_wav(str(path), user, assistant)
    with wave.open(str(path)) as w:
        assert (w.getnchannels(), w.getsampwidth(), w.getframerate(), w.getnframes()) == (2, 2, 24_000, 4800)
        pcm = np.frombuffer(w.readframes(4800), "<i2").reshape(-1, 2) / 32767.0
    assert np.allclose(pcm[:2400, 0], 0.25, atol=1e-4) and np.all(pcm[2400:, 0] == 0)
    assert np.allclose(pcm[:, 1], -0.5, atol=1e-4)
    assert not list(tmp_path.glob("*.part"))


def test_settings_round_trip_and_survive_garbage(tmp_path):
    store = QSettings(str(tmp_path / "s.ini"), QSettings.IniFormat)
    settings = AppSettings(model="moshika", device="cuda", open_mic=True, input_device="pulse")
    for i in range(MAX_RECENT + 3):
        settings = settings.with_recent(f"/c/{i}.parley")
    settings = settings.with_recent("/c/2.parley")  # reopening moves it to the front, no duplicate
    save_settings(store, settings)
    loaded = load_settings(QSettings(str(tmp_path / "s.ini"), QSettings.IniFormat))
    assert loaded == settings
    assert loaded.recent_files[0] == "/c/2.parley" and len(loaded.recent_files) == MAX_RECENT
    assert len(set(loaded.recent_files)) == MAX_RECENT

    store.setValue("open_mic", "banana")
    store.setValue("recent_files", 42)
    store.sync()
    damaged = load_settings(QSettings(str(tmp_path / "s.ini"), QSettings.IniFormat))
    assert damaged.open_mic is False and damaged.recent_files == ()
