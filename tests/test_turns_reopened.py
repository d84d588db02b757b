"""The person's turns come back as they were shown: a caption the model dated before their voice
rose above the speech level joins their first turn instead of a turn of its own at the end; in the
window (offscreen, the real engine thread and frame pump, the demo model), what was shown live is
what is shown reopened, replayed and recovered, turn for turn (side, start, duration, text, in the
same order), and a held Talk is one turn whatever pauses the person makes."""

from __future__ import annotations

import shutil

import numpy as np
import pytest
from PySide6.QtCore import Qt

import engine
from app.audio.levels import SPEECH_DB, level_db
from app.conversation.replay import ReplayPlayer
from app.conversation.transcript import ASSISTANT, YOU, FrameObservation, Transcript
from engine import FRAME_SECONDS, FRAME_SIZE
from tests.test_app_captions import captions_on, harness  # noqa: F401 (the fixture)
from tests.test_app_window import Harness, conversations_dir


def test_a_caption_dated_before_the_persons_first_turn_joins_it():
    quiet, voice = np.zeros(FRAME_SIZE * 8, np.float32), np.full(FRAME_SIZE * 10, 0.2, np.float32)
    t = Transcript()
    t.load([], np.concatenate([quiet, voice]), None, captions=[(0.0, " Hello"), (0.9, " there")])
    assert [(turn.speaker, round(turn.start, 2), turn.text) for turn in t.turns] == [
        (YOU, round(8 * FRAME_SECONDS, 2), "Hello there")]


def shown(turns) -> list[tuple]:
    return [(t.speaker, round(t.start, 3), round(t.duration, 3), t.text) for t in turns]


def silence(count: int) -> np.ndarray:
    return np.zeros(count * engine.FRAME_SIZE, np.float32)


FED = [0]  # frames of ``pauses`` fed so far


def pauses(count: int) -> np.ndarray:
    """Speech-like tone with a 0.8 s pause in every 1.6 s (longer than the quiet that ends a turn by silence)."""
    out = []
    t = np.arange(engine.FRAME_SIZE) / engine.SAMPLE_RATE
    for _ in range(count):
        out.append((0.2 * np.sin(2 * np.pi * 220 * t) * (FED[0] % 20 < 10)).astype(np.float32))
        FED[0] += 1
    return np.concatenate(out)


def hold_talk(h: Harness, frames: int) -> None:
    h.qtbot.keyPress(h.window, Qt.Key_Space)
    h.frames(frames, audio=pauses)
    h.qtbot.keyRelease(h.window, Qt.Key_Space)
    h.frames(20, audio=silence)


def pause(h: Harness) -> None:
    h.window.model.pause()
    h.qtbot.waitUntil(lambda: not h.window.model.live, timeout=30_000)


def reopened(h: Harness, path) -> list[tuple]:
    model, qtbot = h.window.model, h.qtbot
    with qtbot.waitSignal(model.files.saved, timeout=30_000):
        model.files.save(str(path))
    model.new_conversation()
    qtbot.waitUntil(lambda: not model.transcript.turns, timeout=20_000)
    model.files.open_conversation(str(path))
    qtbot.waitUntil(lambda: model.files.conversation_path == str(path), timeout=30_000)
    return shown(model.transcript.turns)


def replayed(path) -> list[tuple]:
    player = ReplayPlayer()
    assert player.load(str(path))
    return shown(player.turns.transcript.turns)


def test_a_held_talk_with_pauses_is_one_turn_live_reopened_replayed_and_recovered(qtbot, tmp_path, app_demo_model):
    """4 s of Talk held over speech with 0.8 s pauses, captions off: one turn of the person's, from
    where they were first heard to where they let go, and the same turns after every way back."""
    FED[0] = 0
    journals, crashed = tmp_path / "journals", tmp_path / "crashed"
    journals.mkdir()
    crashed.mkdir()
    first = Harness(qtbot, tmp_path / "first", lambda *args: app_demo_model, journal_dir=journals)
    try:
        hold_talk(first, 50)
        pause(first)
        live = shown(first.window.model.transcript.turns)
        yours = [t for t in live if t[0] == YOU]
        assert len(yours) == 1 and yours[0][2] >= 3.2, live
        controller = first.window.model.worker.controller
        journal = controller.journal_path
        qtbot.waitUntil(lambda: engine.read_journal(journal).frames == controller.session.frames, timeout=10_000)
        shutil.copy(journal, crashed / journal.name)  # what a kill -9 now would leave behind
        path = conversations_dir(tmp_path / "first") / "held.parley"
        assert reopened(first, path) == live
        assert replayed(path) == live
    finally:
        first.close()
    second = Harness(qtbot, tmp_path / "second", lambda *args: app_demo_model, journal_dir=crashed, start=False)
    try:
        qtbot.waitUntil(lambda: second.window.dialogs.recovery is not None, timeout=20_000)
        dialogs = second.window.dialogs.recovery
        dialogs.recover_button.click()
        qtbot.waitUntil(lambda: dialogs.offer.outcome is not None, timeout=120_000)
        assert dialogs.offer.outcome == ""
        assert shown(second.window.model.transcript.turns) == live
    finally:
        second.close()


def test_turns_split_by_silence_before_captions_started_stay_split_when_reopened(harness, qtbot, tmp_path):  # noqa: F811
    """The open microphone hears two stretches with a pause between them (two turns: no end yet);
    captions start (the demo STT has heads); Talk is held once. Reopened and replayed, the first two
    stay two turns (the stored ends begin after them) and every turn is as it was live."""
    model = harness.window.model
    FED[0] = 0
    model.set_open_mic(True)
    harness.frames(40, audio=pauses)
    model.set_open_mic(False)
    harness.frames(5, audio=silence)
    before = [t for t in shown(model.transcript.turns) if t[0] == YOU]
    assert len(before) == 2, before
    captions_on(harness)
    hold_talk(harness, 30)
    pause(harness)
    live = shown(model.transcript.turns)
    path = conversations_dir(tmp_path) / "later.parley"
    assert reopened(harness, path) == live  # stored ends once made every silence inside a turn, from 0.0 on
    assert replayed(path) == live
    # and the held Talk is a turn of its own (with captions' heads on, it once went on the open turn before)
    assert [(t[1], t[2]) for t in live if t[0] == YOU][:2] == [(t[1], t[2]) for t in before]
    assert len([t for t in live if t[0] == YOU]) == 3


def test_words_heard_before_the_persons_first_turn_are_shown_live_where_loading_puts_them():
    """Live, a caption model's words dated in a quiet start (the demo writes words on any sound) come
    before the person's voice rises above the speech level; loaded, their turn is there first. Both
    put the words in that turn: no 0.1 s turn of its own at 00:00.0 (live at the top, loaded at the end)."""
    quiet, voice = np.full(FRAME_SIZE * 8, 0.001, np.float32), np.full(FRAME_SIZE * 10, 0.2, np.float32)
    user = np.concatenate([quiet, voice])
    live = Transcript()
    for i in range(18):
        db = 20 * np.log10(float(user[i * FRAME_SIZE]))
        live.add_frame(FrameObservation(i * FRAME_SECONDS, db > SPEECH_DB, db, -120.0, " la" if i == 2 else ""))
        if i == 4:  # the caption model's delay: words dated at the start come a few frames later
            live.add_captions([(0.0, " Hel"), (0.08, "lo")])
    live.add_captions([(1.0, " there")])
    loaded = Transcript()
    loaded.load([(2, 0.16, " la")], user, np.zeros_like(user), captions=live.captions)
    assert shown(live.turns) == shown(loaded.turns) == [(ASSISTANT, 0.16, 0.08, "la"),
                                                          (YOU, round(8 * FRAME_SECONDS, 3), 0.8, "Hello there")]


@pytest.mark.parametrize("seed", range(40))
def test_turns_built_live_as_events_come_are_the_turns_loaded(seed):
    """Live, each frame comes with what arrived by then: Talk pressed or released (an end, before the
    frame), a caption model's steps a fixed delay behind (pieces and heads' ends in time order, after
    a first end where it began to listen); loaded, the file's recording, captions and ends. Same turns."""
    rng = np.random.default_rng(seed)
    frames, delay, heads = 80, 6, bool(seed % 2)
    loud = np.repeat(rng.random(frames // 4) < 0.5, 4)
    user = np.repeat(np.where(loud, 0.2, rng.choice([0.0, 0.002], frames)), FRAME_SIZE).astype(np.float32)
    assistant = np.repeat(np.where(rng.random(frames) < 0.3, 0.1, 0.0), FRAME_SIZE).astype(np.float32)
    texts = {i: str(rng.choice([" w", "x"])) for i in range(frames) if assistant[i * FRAME_SIZE]}
    talk = set(np.flatnonzero(np.diff(np.r_[0, rng.random(frames) < 0.08]))) if not heads else set()
    steps = {i: (str(rng.choice([" a", "b", ""])), heads and rng.random() < 0.1) for i in range(frames)}
    live, pieces, ends = Transcript(), [], []

    def arrive(new_pieces, new_ends):
        live.add_captions(new_pieces, new_ends)
        pieces.extend(new_pieces)
        ends.extend(new_ends)

    if heads:
        arrive([], [0.0])
    for i in range(frames):
        if i in talk:
            arrive([], [i * FRAME_SECONDS])
        db = level_db(user[i * FRAME_SIZE:(i + 1) * FRAME_SIZE])
        live.add_frame(FrameObservation(i * FRAME_SECONDS, db > SPEECH_DB, db,
                                        level_db(assistant[i * FRAME_SIZE:(i + 1) * FRAME_SIZE]), texts.get(i, "")))
        if i >= delay:
            text, end = steps[i - delay]
            arrive([((i - delay) * FRAME_SECONDS, text)] if text else [], [(i - delay) * FRAME_SECONDS] if end else [])
    loaded = Transcript()
    loaded.load([(i, i * FRAME_SECONDS, t) for i, t in texts.items()], user, assistant, captions=pieces,
                turn_ends=ends)
    assert shown(live.turns) == shown(loaded.turns)


def test_talk_released_just_before_a_pause_keeps_its_turn_when_reopened(harness, qtbot, tmp_path):  # noqa: F811
    """The walk's case: Talk held from the start (a first loud frame, then 0.64 s of quiet, then
    speech), captions on; Talk let go and the conversation paused before another frame, so no frame
    said the release. Reopened, the person's turn began at 00:00.6 instead of 00:00.0 (nothing
    stored said that ends, not silence, ended it); now the press is kept, and the turns are the live ones."""
    model, window = harness.window.model, harness.window
    captions_on(harness)
    qtbot.keyPress(window, Qt.Key_Space)
    harness.frames(1)  # the tone
    harness.frames(8, audio=silence)
    harness.frames(20)
    qtbot.keyRelease(window, Qt.Key_Space)
    pause(harness)
    live = shown(model.transcript.turns)
    path = conversations_dir(tmp_path) / "walk.parley"
    assert reopened(harness, path) == live
    assert replayed(path) == live
    assert [t[1:3] for t in live if t[0] == YOU][0][0] <= harness.stats[-29].seconds + 1e-6
