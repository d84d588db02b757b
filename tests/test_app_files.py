"""Transcript export, conversation audio export and settings persistence."""

from __future__ import annotations

import json
import wave

import numpy as np
import pytest
from PySide6.QtCore import QSettings

from app.conversation.transcript import FrameObservation, Transcript
from app.engine_thread.controller import write_stereo_wav
from app.settings import MAX_RECENT, AppSettings, load_settings, save_settings
from engine import FRAME_SECONDS


def sample_transcript() -> Transcript:
    t = Transcript()
    texts = {1: "Hel", 2: "lo", 3: " there", 62: " Sure"}
    for i in range(70):
        user = 37 <= i < 47
        t.add_frame(FrameObservation(i * FRAME_SECONDS, user, -20.0 if user else -120.0,
                                     -20.0 if i in texts else -120.0, texts.get(i, "")))
    return t


def test_transcript_groups_pieces_into_turns_with_times():
    assert sample_transcript().as_text() == (
        "[00:00.1] Assistant: Hello there\n[00:03.0] You: (0.8 s of speech)\n[00:05.0] Assistant: Sure")


def test_transcript_exports_text_and_json(tmp_path):
    t = sample_transcript()
    t.export(str(tmp_path / "t.txt"))
    t.export(str(tmp_path / "t.json"))
    assert (tmp_path / "t.txt").read_text(encoding="utf-8") == t.as_text() + "\n"
    data = json.loads((tmp_path / "t.json").read_text(encoding="utf-8"))
    assert [turn["speaker"] for turn in data["turns"]] == ["assistant", "you", "assistant"]
    assert data["turns"][1]["end"] - data["turns"][1]["start"] == pytest.approx(0.8)
    assert [p["text"] for p in data["pieces"]] == ["Hel", "lo", " there", " Sure"]


def test_a_failed_export_leaves_no_partial_file_behind(tmp_path):
    target = tmp_path / "missing-folder" / "t.txt"
    with pytest.raises(OSError):
        sample_transcript().export(str(target))
    assert not target.parent.exists()
    occupied = tmp_path / "t.txt"
    occupied.mkdir()  # the final rename fails after the data was written
    (occupied / "inside").write_text("precious", encoding="utf-8")
    with pytest.raises(OSError):
        sample_transcript().export(str(occupied))
    assert (occupied / "inside").read_text(encoding="utf-8") == "precious"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.txt"]  # no temp file left


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
