"""Turns: the conversation as turns of both sides, widget-free (the view-model with the real demo
model and the real audio callbacks), plus the real window's conversation view."""

from __future__ import annotations

import time

import numpy as np
import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QFont, QFontMetrics

from app.audio.bridge import AudioBridge
from app.audio.headless import BridgeFeeder, SignalRecorder
from app.audio.levels import SPEECH_DB
from app.conversation.status import Status
from app.conversation.transcript import (
    ASSISTANT,
    MAX_TURN_S,
    OVERLAP_MIN_S,
    SPLIT_AT_PAUSE_S,
    YOU,
    FrameObservation,
    Transcript,
)
from app.conversation.turn_list import TurnListModel
from app.conversation.view import (
    OVERLAP_TAG,
    PADDING,
    STRIP_HEIGHT,
    ConversationView,
    TurnDelegate,
    fitted_header,
    strip_bar_heights,
)
from app.conversation.view_model import ConversationModel
from app.widgets.throttle import READOUT_INTERVAL_MS
from engine import FRAME_SECONDS, FRAME_SIZE, PersonaLibrary
from tests.test_app_window import Harness, settings_without_processing, tone_frames

CONTROL_PIECES = ("<s>", "</s>", "<unk>", "<pad>")


def frame(i: int, user: bool = False, assistant_db: float = -120.0, text: str = "") -> FrameObservation:
    return FrameObservation(i * FRAME_SECONDS, user, -20.0 if user else -120.0, assistant_db, text)


def test_a_stretch_of_user_frames_is_one_turn_and_a_pause_starts_another():
    t = Transcript()
    for i in range(10):
        t.add_frame(frame(i, user=True))
    for i in range(10, 20):  # 0.8 s quiet: longer than the user gap
        t.add_frame(frame(i))
    t.add_frame(frame(20, user=True))
    assert [(x.speaker, round(x.start, 2), round(x.duration, 2)) for x in t.turns] == [
        (YOU, 0.0, 0.8), (YOU, 1.6, 0.08)]
    assert len(t.turns[0].levels) == 10


def test_both_sides_at_once_are_two_overlapping_turns_not_fragments():
    t = Transcript()
    for i in range(30):
        t.add_frame(frame(i, user=5 <= i < 15, assistant_db=-20.0, text=" word" if i % 3 == 0 else ""))
    assert [x.speaker for x in t.turns] == [ASSISTANT, YOU]
    assistant, user = t.turns
    assert assistant.overlaps(user) and t.overlapping(0) and t.overlapping(1)
    assert assistant.text == "word" + " word" * 9  # one growing text, not cut by the user's turn
    assert user.start == pytest.approx(5 * FRAME_SECONDS) and user.end == pytest.approx(15 * FRAME_SECONDS)


def test_turns_overlap_only_where_both_were_heard_at_once_for_more_than_half_a_second():
    t = Transcript()
    for i in range(40):  # the assistant speaks, pauses 1.2 s (one turn still), speaks on
        speaking = i < 10 or i >= 25
        t.add_frame(frame(i, user=12 <= i < 23, assistant_db=-20.0 if speaking else -120.0,
                          text=" word" if speaking and i % 4 == 1 else ""))
    assistant, user = t.turns
    assert assistant.speaker == ASSISTANT and assistant.overlaps(user)  # its span covers the user's turn
    assert not t.overlapping(0) and not t.overlapping(1)  # but nobody spoke at once

    brief, long = Transcript(), Transcript()
    for i in range(30):  # the user speaks over the assistant for 0.32 s, then for 0.8 s
        brief.add_frame(frame(i, user=10 <= i < 14, assistant_db=-20.0))
        long.add_frame(frame(i, user=10 <= i < 20, assistant_db=-20.0))
    assert OVERLAP_MIN_S == 0.5 and not brief.overlapping(0) and not brief.overlapping(1)
    assert long.overlapping(0) and long.overlapping(1)


def test_a_long_turn_goes_on_in_a_new_one_at_its_first_pause():
    t = Transcript()
    pause_at = int((SPLIT_AT_PAUSE_S + 3.0) / FRAME_SECONDS)
    for i in range(pause_at + 30):  # speaking on, with one pause of 4 frames, 3 s after the split time
        quiet = pause_at <= i < pause_at + 4
        t.add_frame(frame(i, assistant_db=-120.0 if quiet else -20.0, text="" if quiet or i % 3 else " word"))
    first, second = t.turns
    assert first.end == pytest.approx(pause_at * FRAME_SECONDS)  # cut at the pause, not at MAX_TURN_S
    assert second.start == pytest.approx((pause_at + 4) * FRAME_SECONDS)
    assert SPLIT_AT_PAUSE_S < first.duration < MAX_TURN_S

    short = Transcript()  # a pause before the split time leaves one turn
    for i in range(60):
        short.add_frame(frame(i, assistant_db=-120.0 if 20 <= i < 24 else -20.0))
    assert len(short.turns) == 1


def test_an_assistant_turn_ends_after_silence_or_a_gap_in_its_text():
    t = Transcript()
    t.add_frame(frame(0, assistant_db=-20.0, text=" Hello"))
    for i in range(1, 30):  # speaking on, but no new words for 2.3 s: the next words are a new turn
        t.add_frame(frame(i, assistant_db=-20.0))
    t.add_frame(frame(30, assistant_db=-20.0, text=" again"))
    for i in range(31, 60):  # silence
        t.add_frame(frame(i))
    t.add_frame(frame(60, assistant_db=-20.0, text=" later"))
    assert [x.text for x in t.turns] == ["Hello", "again", "later"]
    assert not any(t.overlapping(i) for i in range(3))


def test_a_monologue_goes_on_in_new_turns_never_inside_a_word():
    t = Transcript()
    pieces = [" one", "two", " three", "four", "five"]  # pieces without a space continue a word
    frames = int(3 * MAX_TURN_S / FRAME_SECONDS)
    for i in range(frames):
        t.add_frame(frame(i, user=True, assistant_db=-20.0, text=pieces[i % len(pieces)]))
    mine, its = [x for x in t.turns if x.speaker == YOU], [x for x in t.turns if x.speaker == ASSISTANT]
    assert len(mine) == 3 and all(x.duration == pytest.approx(MAX_TURN_S) for x in mine)
    assert len(its) == 3 and all(MAX_TURN_S <= x.duration < MAX_TURN_S + 3 * FRAME_SECONDS for x in its[:-1])
    assert all(x.text.startswith("one") or x.text.startswith("three") for x in its)  # whole words only
    assert "".join(x.text if i == 0 else " " + x.text for i, x in enumerate(its)) == \
        "".join(pieces[i % len(pieces)] for i in range(frames)).lstrip()  # nothing lost


def test_a_recording_rebuilds_the_same_turns():
    live = Transcript()
    user = np.zeros(40 * FRAME_SIZE, np.float32)
    user[5 * FRAME_SIZE:15 * FRAME_SIZE] = tone_frames(10)
    entries = [(i, i * FRAME_SECONDS, " w") for i in range(20, 25)]
    for i in range(40):
        live.add_frame(frame(i, user=5 <= i < 15, text=" w" if 20 <= i < 25 else ""))
    rebuilt = Transcript()
    rebuilt.load(entries, user, np.zeros_like(user))
    assert [(x.speaker, x.start, x.end, x.text) for x in rebuilt.turns] == \
        [(x.speaker, x.start, x.end, x.text) for x in live.turns]


class ModelHarness:
    """The view-model alone (no window) on the demo model, fed through the real audio callbacks."""

    def __init__(self, qtbot, tmp_path, model) -> None:
        self.qtbot = qtbot
        self.model = ConversationModel(settings_without_processing(tmp_path / "s.ini"), lambda *args: model,
                                       audio=False, worker_seed=1)
        opened = SignalRecorder()
        self.model.conversation_replaced.connect(opened.record)
        self.frames = SignalRecorder()
        self.model.frame.connect(self.frames.record)
        self.model.models.load_model("demo", "cpu", "float32")
        qtbot.waitUntil(lambda: self.model.models.model_info is not None and len(opened) == 1, timeout=60_000)
        self.bridge = AudioBridge(24_000, 1, 24_000, 1)
        self.model.worker.set_bridge(self.bridge)
        self.feeder = BridgeFeeder(self.bridge, lambda: self.model.worker.processed_position)
        self.start()

    def start(self) -> None:
        """Press Start: a new or opened conversation runs no frame before it (or Talk)."""
        self.model.start()
        self.qtbot.waitUntil(lambda: self.model.live, timeout=10_000)

    def feed(self, count: int) -> None:
        start = len(self.frames)
        self.feeder.feed(tone_frames(count))
        self.qtbot.waitUntil(lambda: len(self.frames) >= start + count, timeout=30_000)


@pytest.fixture
def vm(qtbot, tmp_path, app_demo_model):
    h = ModelHarness(qtbot, tmp_path, app_demo_model)
    yield h
    h.model.shutdown()


def test_a_held_talk_is_one_user_turn(vm):
    vm.feed(3)
    vm.model.press_talk("key")
    vm.feed(12)
    vm.model.release_talk("key")
    vm.feed(10)
    user = [t for t in vm.model.transcript.turns if t.speaker == YOU]
    assert len(user) == 1
    assert user[0].duration == pytest.approx(12 * FRAME_SECONDS)
    assert len(user[0].levels) == 12 and min(user[0].levels) > SPEECH_DB  # the tone, as the model heard it
    assert vm.model.turns.rowCount() == len(vm.model.transcript.turns)


def test_talking_over_the_babbling_demo_is_shown_as_overlap(vm):
    vm.feed(5)  # the demo starts babbling at once and does not stop
    vm.model.press_talk("key")
    vm.feed(8)
    vm.model.release_talk("key")
    vm.feed(8)
    turns = vm.model.transcript.turns
    assistant = [i for i, t in enumerate(turns) if t.speaker == ASSISTANT]
    user = [i for i, t in enumerate(turns) if t.speaker == YOU]
    assert len(user) == 1 and assistant, [(t.speaker, t.start, t.end) for t in turns]
    assert any(turns[a].overlaps(turns[user[0]]) for a in assistant)
    assert vm.model.transcript.overlapping(user[0])
    # The assistant's words around the user's turn stay in one turn instead of alternating fragments.
    spanning = [a for a in assistant if turns[a].start < turns[user[0]].start and turns[a].end > turns[user[0]].end]
    assert len(spanning) == 1


def test_no_control_token_reaches_the_turns(vm, app_demo_model):
    tokenizer = app_demo_model.tokenizer
    controls = [i for i in range(tokenizer.vocab_size) if tokenizer._sp.IsControl(i) or tokenizer._sp.IsUnknown(i)]
    assert all(tokenizer.piece(i) == "" for i in controls)  # what the session turns each sampled id into
    vm.model.press_talk("key")
    vm.feed(10)
    vm.model.release_talk("key")
    vm.feed(10)
    text = " ".join(t.text for t in vm.model.transcript.turns)
    assert text.strip(), "the demo said nothing"
    assert not any(piece in text for piece in CONTROL_PIECES)


def test_the_window_shows_turns_and_stops_following_when_scrolled_up(qtbot, tmp_path, app_demo_model):
    h = Harness(qtbot, tmp_path, lambda *args: app_demo_model)
    try:
        w = h.window
        view = w.conversation_panel.view
        view.setMaximumHeight(140)  # a short view, so that a few seconds of babble outgrow it
        assert w.conversation_panel.placeholder.isVisible() and view.isHidden()  # the hint in the view's place
        qtbot.keyPress(w, Qt.Key_Space)
        h.frames(6)
        qtbot.keyRelease(w, Qt.Key_Space)
        h.frames(40)
        shown = view.as_text()
        assert shown.count("You") == 1 and "Assistant:" in shown
        assert w.model.transcript.turns[-1].text.strip() in shown
        assert not w.conversation_panel.placeholder.isVisible() and view.isVisible()
        bar = view.verticalScrollBar()
        qtbot.waitUntil(lambda: bar.maximum() > 0, timeout=5_000)  # the text outgrew the view
        assert view.follow and bar.value() == bar.maximum()
        bar.setValue(0)  # the reader scrolls up
        assert not view.follow
        h.frames(20)
        qtbot.wait(100)
        assert bar.value() == 0  # new text did not pull the view down
        bar.setValue(bar.maximum())
        assert view.follow
    finally:
        h.close()


class CountingView(ConversationView):
    """The window's conversation view, counting its layout passes (each asks every turn its size)."""

    layouts = 0

    def doItemsLayout(self) -> None:
        self.layouts += 1
        super().doItemsLayout()


def test_a_long_conversation_is_laid_out_only_when_a_turn_changes_size(qtbot):
    view, model = CountingView(), TurnListModel()
    view.setModel(model)
    view.resize(600, 400)
    qtbot.addWidget(view)
    view.show()
    start = 2000  # 2.7 minutes of the two sides taking turns every 2 s (25 frames)
    for i in range(start):
        talking = (i // 25) % 2 == 0
        model.transcript.add_frame(frame(i, user=talking, assistant_db=-120.0 if talking else -20.0,
                                         text=" word" if not talking and i % 3 == 0 else ""))
    model.beginResetModel()
    model.endResetModel()
    qtbot.wait(50)
    assert model.rowCount() == 80
    user_turn = model.rowCount()
    model.add_frame(frame(start, user=True))
    qtbot.wait(50)
    height = view.visualRect(model.index(user_turn, 0)).height()
    view.layouts = 0
    for i in range(start + 1, start + 20):  # the user talks on: the turn grows longer, not taller
        model.add_frame(frame(i, user=True))
        qtbot.wait(5)
    assert view.layouts == 0
    assert view.visualRect(model.index(user_turn, 0)).height() == height

    words = start + 40  # then the assistant talks: its text wraps onto more lines
    for i in range(words, words + 120):
        model.add_frame(frame(i, assistant_db=-20.0, text=" several words"))
        qtbot.wait(2)
    answer = model.index(model.rowCount() - 1, 0)
    assert 0 < view.layouts < 60  # once per new line, not once per frame
    assert view.visualRect(answer).height() > 4 * view.fontMetrics().height()  # laid out at its new size


class CountingDelegate(TurnDelegate):
    """The view's delegate, noting which row it painted when."""

    def __init__(self, view) -> None:
        super().__init__(view)
        self.paints: list[tuple[int, float]] = []

    def paint(self, painter, option, index) -> None:
        self.paints.append((index.row(), time.monotonic()))
        super().paint(painter, option, index)


def test_a_growing_turn_is_redrawn_a_few_times_a_second_and_its_last_frame_is_drawn(qtbot):
    view, model = ConversationView(), TurnListModel()
    view.delegate = CountingDelegate(view)
    view.setItemDelegate(view.delegate)
    view.setModel(model)
    view.resize(600, 400)
    qtbot.addWidget(view)
    view.show()
    model.add_frame(frame(0, user=True))
    qtbot.waitUntil(lambda: bool(view.delegate.paints), timeout=2_000)  # a new turn shows at once
    qtbot.wait(2 * READOUT_INTERVAL_MS)
    view.delegate.paints.clear()
    started = time.monotonic()
    for i in range(1, 26):  # two seconds of talk, as fast as the test can: the turn grows every frame
        model.add_frame(frame(i, user=True))
        last_frame = time.monotonic()  # the paint that shows this frame comes after it
        qtbot.wait(20)
    grown = [t for row, t in view.delegate.paints if row == 0]
    assert 1 <= len(grown) <= (time.monotonic() - started) * 1000 / READOUT_INTERVAL_MS + 2, len(grown)
    qtbot.waitUntil(lambda: any(row == 0 and t > last_frame for row, t in view.delegate.paints),
                    timeout=2 * READOUT_INTERVAL_MS + 1_000)
    assert model.transcript.turns[0].duration == pytest.approx(26 * FRAME_SECONDS)


def test_a_narrow_bubble_shortens_its_header_instead_of_painting_over_the_overlap_tag(qapp):
    font = QFont()
    font.setBold(True)
    metrics = QFontMetrics(font)
    header = "You  ·  00:32.6  ·  2.1 s"
    header_width = metrics.horizontalAdvance(header) + 1  # the advance is rounded; elision measures finer
    wide = header_width + metrics.horizontalAdvance(OVERLAP_TAG) + PADDING
    assert fitted_header(header, OVERLAP_TAG, metrics, wide) == header  # room for both: unchanged
    assert fitted_header(header, "", metrics, header_width) == header
    tag_room = metrics.horizontalAdvance(OVERLAP_TAG) + PADDING
    for width in (wide - 1, wide // 2, 40):  # the narrow bubbles of a small window
        shown = fitted_header(header, OVERLAP_TAG, metrics, width)
        assert shown != header and metrics.horizontalAdvance(shown) <= max(0, width - tag_room)
    assert fitted_header(header, OVERLAP_TAG, metrics, wide // 2).startswith("You")  # the start stays
    narrow = fitted_header(header, "", metrics, wide // 3)
    assert narrow.endswith("…") and metrics.horizontalAdvance(narrow) <= wide // 3


def test_the_view_model_tracks_status_file_unsaved_changes_and_settings_without_widgets(vm, qtbot, tmp_path):
    m = vm.model
    assert m.files.title() == "Untitled conversation — Parley"
    vm.feed(1)  # frames flow: the status is no longer idle-without-audio
    # nobody spoke: nothing to save
    assert m.files.unsaved_frames == 0 and m.files.title() == "Untitled conversation — Parley"
    m.press_talk("button")
    assert m.status is Status.LISTENING and m.talk.mic_open
    vm.feed(2)
    assert [args[0].mic_open for args in vm.frames.calls] == [False, True, True]  # the engine heard it
    m.release_talk("button")
    # the frames the person spoke in
    assert m.files.unsaved_frames == 2 and m.files.title().startswith("Untitled conversation *")
    m.set_open_mic(True)
    vm.feed(1)
    assert m.talk.mic_open and vm.frames.calls[-1][0].mic_open
    assert QSettings(str(tmp_path / "s.ini"), QSettings.IniFormat).value("open_mic") in (True, "true")
    m.set_open_mic(False)
    saved = SignalRecorder()
    m.files.saved.connect(saved.record)
    m.files.save(str(tmp_path / "talk.parley"))
    qtbot.waitUntil(lambda: len(saved) == 1, timeout=20_000)
    assert m.files.conversation_path == str(tmp_path / "talk.parley") and m.files.unsaved_frames == 0
    assert m.preferences.settings.recent_files[0] == str(tmp_path / "talk.parley")
    assert m.files.title() == "talk.parley — Parley"
    replaced = SignalRecorder()
    m.conversation_replaced.connect(replaced.record)
    m.new_conversation()
    qtbot.waitUntil(lambda: len(replaced) == 1, timeout=20_000)
    assert m.files.conversation_path is None and m.turns.rowCount() == 0


def test_a_level_strip_bar_is_as_tall_as_the_loudest_frame_of_its_share():
    quiet, loud = -60.0, 0.0
    levels = [quiet] * 40
    levels[25] = loud  # frames 20..29 are the third of four bars
    assert strip_bar_heights(levels, 4).tolist() == [2, 2, STRIP_HEIGHT, 2]  # silence: the 2 px floor
    assert strip_bar_heights([-30.0], 3).tolist() == [STRIP_HEIGHT // 2] * 3  # fewer frames than bars
    assert strip_bar_heights([], 2).tolist() == [2, 2]  # a turn without frames yet
    assert strip_bar_heights([12.0, -200.0], 2).tolist() == [STRIP_HEIGHT, 2]  # clipped to the strip


def test_wait_for_me_holds_this_conversation_until_talk_and_leaves_the_persona_alone(vm, qtbot, own_personas):
    m = vm.model
    replaced = SignalRecorder()
    m.conversation_replaced.connect(replaced.record)
    m.new_conversation()
    qtbot.waitUntil(lambda: len(replaced) == 1 and not m.live, timeout=20_000)
    assert not m.waiting_for_user  # the shipped General assistant does not wait
    m.set_wait_for_user(True)  # this conversation's choice...
    qtbot.waitUntil(lambda: m.waiting_for_user, timeout=10_000)
    assert not any(own_personas.iterdir()) and not m.models.persona.wait_for_user  # ...no persona edited or copied
    assert PersonaLibrary().get(m.models.persona.name) == m.models.persona
    vm.start()
    played = len(vm.feeder.played)
    vm.feed(40)
    assert m.waiting_for_user  # the microphone is closed: nobody spoke yet
    assert m.status is Status.WAITING
    session = m.worker.controller.session
    assert session.waiting_for_user
    # Waiting looks like waiting: digital silence to the speaker (not the codec's take on silence
    # tokens, noise on the demo) and no "(speech without words)" turn.
    assert not np.any(np.concatenate(vm.feeder.played[played:]))
    assert m.turns.rowCount() == 0
    m.press_talk("button")
    vm.feed(2)
    m.release_talk("button")
    assert not m.waiting_for_user and not session.waiting_for_user  # Talk released the assistant
    m.new_conversation()  # the next conversation is the persona's: it does not wait
    qtbot.waitUntil(lambda: len(replaced) == 2 and not m.live, timeout=20_000)
    assert not m.waiting_for_user
    vm.start()
    played = len(vm.feeder.played)
    vm.feed(10)
    assert not m.waiting_for_user
    assert np.any(np.concatenate(vm.feeder.played[played:]))  # the demo speaks when it does not wait
