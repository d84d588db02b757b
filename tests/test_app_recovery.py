"""Crash recovery in the app with the real demo model: the worker journals the conversation, a
clean exit removes the journal, and the next start offers to recover a journal left behind and
rebuilds the state bit for bit (progress shown, journal then replaced by the new conversation's)."""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
import sys
import threading
import time
import zlib
from pathlib import Path

import numpy as np
import pytest
import torch
from PySide6.QtWidgets import QApplication, QProgressDialog

import engine
from app.audio.bridge import AudioBridge
from app.audio.headless import BridgeFeeder, SignalRecorder
from app.engine_thread.messages import RecoveryProgress, SetLive, SetMicOpen
from app.journals.lock import JournalLock, lock_path
from app.journals.pending import pending_journals
from app.window.main_window import MainWindow
from engine.files.journal import MAGIC, encode_start
from engine.runtime.replay import journal_header
from engine.state import flatten
from tests.test_app_library import FifoWatch
from tests.test_app_window import settings_without_processing

ROOT = Path(__file__).resolve().parents[1]


def speech_like(frames: int) -> np.ndarray:
    t = np.arange(1920 * frames) / 24_000
    return (0.2 * np.sin(2 * np.pi * (180 + 60 * t) * t)).astype(np.float32)


_OPEN: list = []  # windows a failing test left open, closed at teardown (a running worker aborts the exit)


@pytest.fixture(autouse=True)
def _close_left_open_windows():
    yield
    while _OPEN:
        _OPEN[-1].close()


class App:
    def __init__(self, qtbot, tmp_path, model, journal_dir):
        _OPEN.append(self)
        self.window = MainWindow(settings_without_processing(tmp_path / "settings.ini"),
                                 model_loader=lambda *args: model, audio=False, worker_seed=1,
                                 journal_dir=journal_dir)
        self.window.show()
        self.opened = SignalRecorder()
        self.window.model.conversation_replaced.connect(self.opened.record)
        self.window.load_model("demo", "cpu", "float32")
        view_model = self.window.model
        qtbot.waitUntil(lambda: view_model.models.model_info is not None and len(self.opened) == 1, timeout=60_000)
        qtbot.waitUntil(lambda: not view_model.files.journal_offer_pending, timeout=10_000)  # read off the GUI thread

    def talk(self, frames: int) -> None:
        self.window.model.worker.submit(SetLive(True))  # as Talk does: the conversation runs from now on
        self.window.model.worker.submit(SetMicOpen(True))
        bridge = AudioBridge(24_000, 1, 24_000, 1)
        self.window.model.worker.set_bridge(bridge)
        BridgeFeeder(bridge, lambda: self.window.model.worker.processed_position).feed(speech_like(frames))
        self.window.model.worker.set_bridge(None)

    def close(self) -> None:
        if self in _OPEN:
            _OPEN.remove(self)
        self.window.model.files.unsaved_frames = 0
        self.window.close()


@pytest.mark.slow
def test_journal_left_by_a_crash_is_offered_and_recovered_bit_for_bit(qtbot, tmp_path, app_demo_model):
    journals, crashed = tmp_path / "journals", tmp_path / "crashed"
    journals.mkdir()
    crashed.mkdir()
    first = App(qtbot, tmp_path, app_demo_model, journals)
    assert first.window.dialogs.recovery is None  # nothing to recover on a first start
    first.talk(15)
    journal = first.window.model.worker.controller.journal_path
    qtbot.waitUntil(lambda: engine.read_journal(journal).frames == 15, timeout=10_000)
    shutil.copy(journal, crashed / journal.name)  # what a kill -9 now would leave behind
    first.close()
    assert not journal.exists()  # a clean exit removes the journal

    second = App(qtbot, tmp_path, app_demo_model, crashed)
    dialogs = second.window.dialogs.recovery
    assert dialogs is not None and dialogs.question.isVisible() and dialogs.offer.frames == 15
    qtbot.wait(QProgressDialog().minimumDuration() + 500)  # a progress dialog's own show timer, and some
    assert dialogs.question.isVisible()  # still unanswered, and nothing shows over it
    assert not [w for w in QApplication.topLevelWidgets() if isinstance(w, QProgressDialog) and w.isVisible()]
    progress = SignalRecorder()
    second.window.model.files.recovery_event.connect(progress.record)
    dialogs.recover_button.click()
    qtbot.waitUntil(lambda: dialogs.offer.outcome is not None, timeout=120_000)
    steps = [event for (event,) in progress.calls if isinstance(event, RecoveryProgress)]
    assert dialogs.offer.outcome == "" and steps[-1] == RecoveryProgress(15, 15)
    assert not dialogs.progress.isVisible()
    assert not (crashed / journal.name).exists()  # replaced by the recovered conversation's journal
    new_journal = second.window.model.worker.controller.journal_path
    qtbot.waitUntil(lambda: engine.read_journal(new_journal).frames == 15, timeout=10_000)

    # An uninterrupted run fed the same frames, with the journal's seed and sampling.
    header = engine.read_journal(new_journal).header
    assert header.threads == app_demo_model.thread_choice.threads  # the worker's measured count
    threads = torch.get_num_threads()
    torch.set_num_threads(header.threads)  # float sums are grouped per thread: run as the worker did
    try:
        reference = app_demo_model.new_session(sampling=header.sampling, seed=header.seed)
        for frame in engine.read_journal(new_journal).pcm:
            reference.step(frame)
    finally:
        torch.set_num_threads(threads)
    recovered = second.window.model.worker.controller.session
    assert recovered.frames == 15
    ours, theirs = flatten(recovered.state), flatten(reference.state)
    assert not [name for name in ours if not torch.equal(ours[name], theirs[name])]
    second.close()
    assert not new_journal.exists()


def one_frame_journal(model, path):
    """The journal a crash after one frame leaves at ``path``; returns its conversation."""
    session = model.new_session(seed=3)
    recorder = engine.record_frames(session, path)
    session.step(speech_like(1))
    recorder.close()
    return session


def test_later_keeps_the_journal_and_discard_removes_it(qtbot, tmp_path, app_demo_model):
    crashed = tmp_path / "crashed"
    crashed.mkdir()
    session = one_frame_journal(app_demo_model, crashed / "old.journal")
    header_only = len(encode_start(journal_header(session)))  # a crash before the first frame
    (crashed / "empty.journal").write_bytes((crashed / "old.journal").read_bytes()[:header_only])
    app = App(qtbot, tmp_path, app_demo_model, crashed)
    assert not (crashed / "empty.journal").exists()  # nothing in it: removed, not offered
    app.window.dialogs.recovery.later_button.click()
    assert (crashed / "old.journal").exists()
    app.close()
    app = App(qtbot, tmp_path, app_demo_model, crashed)
    app.window.dialogs.recovery.discard_button.click()
    assert not (crashed / "old.journal").exists()
    app.close()


def test_a_saved_conversation_needs_no_recovery_until_it_goes_on(qtbot, tmp_path, app_demo_model):
    from app.journals.saved_marker import marker_path

    journals, crashed = tmp_path / "journals", tmp_path / "crashed"
    journals.mkdir()
    crashed.mkdir()
    first = App(qtbot, tmp_path, app_demo_model, journals)
    saved = SignalRecorder()
    first.window.model.files.saved.connect(saved.record)
    first.talk(6)
    journal = first.window.model.worker.controller.journal_path
    qtbot.waitUntil(lambda: engine.read_journal(journal).frames == 6, timeout=10_000)
    first.window.model.files.save(str(tmp_path / "kept.parley"))
    qtbot.waitUntil(lambda: len(saved) == 1, timeout=30_000)
    for path in (journal, marker_path(journal)):  # a crash right after the save
        shutil.copy(path, crashed / path.name)
    first.talk(4)  # the conversation goes on after the save
    qtbot.waitUntil(lambda: engine.read_journal(journal).frames == 10, timeout=10_000)
    later = tmp_path / "crashed-later"
    later.mkdir()
    for path in (journal, marker_path(journal)):
        shutil.copy(path, later / path.name)
    first.close()
    assert not journal.exists() and not marker_path(journal).exists()

    app = App(qtbot, tmp_path, app_demo_model, crashed)
    assert app.window.dialogs.recovery is None  # everything was in the saved file
    assert not (crashed / journal.name).exists() and not (crashed / marker_path(journal).name).exists()
    app.close()
    app = App(qtbot, tmp_path, app_demo_model, later)
    dialogs = app.window.dialogs.recovery
    assert dialogs is not None and dialogs.offer.frames == 10
    assert "kept.parley" in dialogs.question.text()
    dialogs.discard_button.click()
    assert not (later / journal.name).exists() and not (later / marker_path(journal).name).exists()
    app.close()


def test_journals_are_read_off_the_gui_thread_and_a_deleted_save_claims_nothing(qtbot, tmp_path, app_demo_model,
                                                                                 monkeypatch):
    """The journals a crash left are read on a thread; a journal whose saved file was deleted since
    (from the library) is offered whole, and the offer says nothing of a save."""
    from app.journals.saved_marker import mark_saved

    crashed = tmp_path / "crashed"
    crashed.mkdir()
    one_frame_journal(app_demo_model, crashed / "old.journal")
    saved = tmp_path / "deleted.parley"
    saved.write_bytes(b"the saved conversation")
    mark_saved(crashed / "old.journal", 1, str(saved))  # all of it saved...
    saved.unlink()  # ...then the file deleted before the crash
    readers, scan_journal = [], engine.scan_journal

    def scan_and_note_the_thread(path):
        readers.append(threading.current_thread())
        return scan_journal(path)

    monkeypatch.setattr(engine, "scan_journal", scan_and_note_the_thread)
    app = App(qtbot, tmp_path, app_demo_model, crashed)
    assert readers and threading.main_thread() not in readers
    dialogs = app.window.dialogs.recovery
    assert dialogs is not None and dialogs.offer.frames == 1
    assert "saved" not in dialogs.question.text()
    dialogs.discard_button.click()
    app.close()


def test_a_journal_lock_has_one_holder_and_a_dead_process_holds_none(tmp_path):
    journal = tmp_path / "x.journal"
    first = JournalLock.try_acquire(journal)
    assert first is not None and JournalLock.try_acquire(journal) is None  # a second lock, in this process
    first.release()
    again = JournalLock.try_acquire(journal)
    assert again is not None
    again.release()
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; from pathlib import Path; from app.journals.lock import JournalLock; "
         "print(JournalLock.try_acquire(Path(sys.argv[1])) is not None, flush=True); time.sleep(60)", str(journal)],
        stdout=subprocess.PIPE, env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        assert holder.stdout.readline().strip() == b"True"
        assert JournalLock.try_acquire(journal) is None  # another window's
    finally:
        holder.kill()  # a crash: the lock is never released by its holder
        holder.wait()
    after_crash = JournalLock.try_acquire(journal)
    assert after_crash is not None
    after_crash.release()
    assert not lock_path(journal).exists()


def journal_with_header(path, header: bytes) -> None:
    """A journal of only a header record (see engine.files.journal for the layout)."""
    prefix = struct.pack("<IB", len(header), ord("H"))
    path.write_bytes(MAGIC + prefix + header + struct.pack("<I", zlib.crc32(header, zlib.crc32(prefix))))


def test_a_locked_journal_is_never_offered_or_removed_and_no_journal_stops_the_start(tmp_path, app_demo_model):
    folder = tmp_path / "journals"
    folder.mkdir()
    session = one_frame_journal(app_demo_model, folder / "live.journal")
    header = encode_start(journal_header(session))
    (folder / "starting.journal").write_bytes(header)  # a live conversation before its first frame
    shutil.copy(folder / "live.journal", folder / "crashed.journal")
    text = header[len(MAGIC) + 5:-4].decode()
    journal_with_header(folder / "seed 1e400.journal", text.replace('"seed": 3', '"seed": 1e400').encode())
    if hasattr(os, "mkfifo"):
        os.mkfifo(folder / "pipe.journal")
    watch = FifoWatch(folder / "pipe.journal") if hasattr(os, "mkfifo") else None
    held = [JournalLock.try_acquire(folder / name) for name in ("live.journal", "starting.journal")]
    try:
        pending = pending_journals(folder)
        assert [(p.path.name, p.frames) for p in pending] == [("crashed.journal", 1), ("seed 1e400.journal", 0)]
        assert not pending[0].problem and "seed" in pending[1].problem  # unreadable: last, offered for deletion
        assert (folder / "live.journal").read_bytes() == (folder / "crashed.journal").read_bytes()
        assert (folder / "starting.journal").read_bytes() == header  # empty, but another window's: kept
        assert (folder / "seed 1e400.journal").exists()  # kept until the person answers, never a crash
        assert watch is None or not watch.opened.is_set()
        assert pending_journals(folder) == []  # this window holds both while it offers them
        for offered in pending:
            offered.lock.release()
        (folder / "seed 1e400.journal").unlink()
        for lock in held:
            lock.release()
        held = []
        assert sorted(p.path.name for p in pending_journals(folder)) == ["crashed.journal", "live.journal"]
        assert not (folder / "starting.journal").exists()  # free now: nothing in it, removed
    finally:
        for lock in held:
            lock.release()
        if watch is not None:
            watch.stop()


def test_a_second_window_leaves_the_first_ones_journal_alone(qtbot, tmp_path, app_demo_model):
    journals = tmp_path / "journals"
    journals.mkdir()
    first = App(qtbot, tmp_path, app_demo_model, journals)
    first.talk(3)
    journal = first.window.model.worker.controller.journal_path
    qtbot.waitUntil(lambda: engine.read_journal(journal).frames == 3, timeout=10_000)
    (tmp_path / "second").mkdir()
    second = App(qtbot, tmp_path / "second", app_demo_model, journals)
    assert second.window.dialogs.recovery is None and engine.read_journal(journal).frames == 3
    assert second.window.model.worker.controller.journal_path != journal
    second.close()
    first.talk(2)
    qtbot.waitUntil(lambda: engine.read_journal(journal).frames == 5, timeout=10_000)
    first.close()
    assert list(journals.iterdir()) == []


def open_fd_of(path) -> int:
    """This process's descriptor open on ``path`` (Linux: /proc)."""
    target = os.path.realpath(path)
    for name in os.listdir("/proc/self/fd"):
        try:
            if os.readlink(f"/proc/self/fd/{name}") == target:
                return int(name)
        except OSError:
            continue
    raise AssertionError(f"{path} is not open")


@pytest.mark.skipif(not (os.path.exists("/dev/full") and os.path.isdir("/proc/self/fd")), reason="Linux's /dev/full")
def test_a_full_disk_is_said_in_the_window_and_journaling_resumes_when_there_is_room(qtbot, tmp_path,
                                                                                      app_demo_model):
    journals = tmp_path / "journals"
    journals.mkdir()
    app = App(qtbot, tmp_path, app_demo_model, journals)
    window = app.window
    window.model.worker.controller.journal.retry_s = 0.5
    app.talk(3)
    journal = window.model.worker.controller.journal_path
    qtbot.waitUntil(lambda: engine.read_journal(journal).frames == 3, timeout=10_000)
    assert not window.status_notes.crash_protection_label.isVisible()
    full = os.open("/dev/full", os.O_WRONLY)
    os.dup2(full, open_fd_of(journal))  # the journal's disk is full from now on
    os.close(full)
    app.talk(4)
    qtbot.waitUntil(window.status_notes.crash_protection_label.isVisible, timeout=10_000)
    assert "Crash protection stopped" in window.status_notes.crash_protection_label.text()
    assert "No space left" in window.status_notes.crash_protection_label.text()
    time.sleep(0.6)
    app.talk(2)  # a new journal is on a disk with room: it holds every frame
    qtbot.waitUntil(lambda: not window.status_notes.crash_protection_label.isVisible(), timeout=10_000)
    resumed = window.model.worker.controller.journal_path
    assert resumed != journal and not journal.exists()
    qtbot.waitUntil(lambda: engine.read_journal(resumed).frames == 9, timeout=10_000)
    app.close()
    assert list(journals.iterdir()) == []


def test_a_journal_that_cannot_be_read_is_offered_for_deletion(qtbot, tmp_path, app_demo_model):
    """Nothing in it can be recovered: the person is asked whether to delete it (Keep asks again at the
    next start). A journal whose header is followed by gigabytes of nothing holds no frame: removed,
    read record by record (its first bytes), not offered."""
    crashed = tmp_path / "crashed"
    crashed.mkdir()
    unreadable = crashed / "zeros.journal"
    unreadable.write_bytes(bytes(4096))
    session = one_frame_journal(app_demo_model, tmp_path / "one.journal")
    hole = crashed / "hole.journal"
    with open(hole, "wb") as f:
        f.write(encode_start(journal_header(session)))
        f.truncate(2 << 30)  # sparse: 2 GB that cost no disk
    app = App(qtbot, tmp_path, app_demo_model, crashed)
    assert not hole.exists()
    dialogs = app.window.dialogs.recovery
    assert dialogs is not None and dialogs.recover_button is None
    assert "cannot be read" in dialogs.question.text() and "not a Parley journal" in dialogs.question.text()
    assert dialogs.discard_button.text() == "Delete" and dialogs.later_button.text() == "Keep"
    dialogs.later_button.click()
    assert unreadable.read_bytes() == bytes(4096)
    app.close()
    app = App(qtbot, tmp_path, app_demo_model, crashed)
    app.window.dialogs.recovery.discard_button.click()
    assert not unreadable.exists()
    app.close()
