"""The library of saved conversations, `parley conversations`, and replay.

The files are real conversations of the demo model (saved by a real session); replay plays to the
PulseAudio null sink and is measured there.
"""

from __future__ import annotations

import json
import os
import shutil
import threading
import time
import tracemalloc

import numpy as np
import pytest
from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtWidgets import QFileDialog, QInputDialog, QMessageBox, QStyleOptionViewItem

from app.audio.headless import SignalRecorder
from app.cli.command import main as cli_main
from app.conversation.replay import PLAYING, STOPPED, ReplayPlayer
from app.conversation.transcript import YOU
from app.library.listing import PREVIEW_CHARS, list_conversations
from app.library.model import CurrentRole, LibraryFilter, LibraryModel, SnippetRole, rename_no_replace
from app.library.panel import LibraryPanel
from app.library.snippet import snippet_around
from bench.bench_library import LAST_WORD, craft_damaged_files, with_long_transcript
from engine import FRAME_SECONDS, SAMPLE_RATE, read_conversation_info
from engine.files.conversation import read_conversation, write_conversation
from engine.files.conversation_info import LIST_HEADER_BYTES
from tests.test_app_window import Harness, conversations_dir, tone_frames

TALK_FRAMES, QUIET_FRAMES = 10, 20


@pytest.fixture(scope="session")
def saved_conversation(tmp_path_factory, app_demo_model):
    """A real demo conversation: the user talks for 10 frames (a tone), then 20 quiet frames."""
    path = tmp_path_factory.mktemp("saved") / "conversation.parley"
    session = app_demo_model.new_session(seed=2)
    for pcm in np.split(tone_frames(TALK_FRAMES), TALK_FRAMES):
        session.step(pcm)
    for _ in range(QUIET_FRAMES):
        session.step(np.zeros(1920, np.float32))
    session.save(path)
    return path


@pytest.fixture
def folder(tmp_path, saved_conversation):
    folder = conversations_dir(tmp_path)
    shutil.copy(saved_conversation, folder / "conversation.parley")
    shutil.copy(saved_conversation, folder / "Trip to Lisbon.parley")
    return folder


def test_the_header_says_what_the_library_lists(saved_conversation, app_demo_model):
    info = read_conversation_info(saved_conversation)
    assert info.model == "demo" and info.fingerprint == app_demo_model.info.fingerprint
    assert info.frames == TALK_FRAMES + QUIET_FRAMES and info.seconds == pytest.approx(30 * FRAME_SECONDS)
    assert info.bytes == saved_conversation.stat().st_size and info.has_audio
    assert info.text and info.created.startswith("20")


def test_a_file_with_a_blank_name_is_titled_by_its_words_or_its_file_name(tmp_path, saved_conversation):
    shutil.copy(saved_conversation, tmp_path / "   .parley")
    (tmp_path / " .parley").write_bytes(b"not a conversation")
    titles = {e.path.name: e.title for e in list_conversations(tmp_path)}
    words = read_conversation_info(saved_conversation).text.split()
    assert titles["   .parley"].startswith(" ".join(words[:3]))  # as a file named as the app proposes
    assert titles[" .parley"] == " .parley"  # unreadable: its whole name, never a blank row


def test_the_cli_lists_every_file_and_names_the_damaged_ones(folder, saved_conversation, capsys):
    (folder / "broken.parley").write_bytes(b"not a conversation at all")
    (folder / "cut.parley").write_bytes(saved_conversation.read_bytes()[:4096])
    (folder / "notes.txt").write_text("not listed")
    assert cli_main(["conversations", "--folder", str(folder), "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    by_name = {os.path.basename(r["path"]): r for r in rows}
    assert set(by_name) == {"conversation.parley", "Trip to Lisbon.parley", "broken.parley", "cut.parley"}
    good = by_name["Trip to Lisbon.parley"]
    assert good["title"] == "Trip to Lisbon" and good["model"] == "demo"
    assert good["seconds"] == pytest.approx(2.4) and good["bytes"] == saved_conversation.stat().st_size
    assert set(good) == {"path", "title", "created", "seconds", "model", "bytes", "persona"}
    untitled = by_name["conversation.parley"]["title"]
    assert untitled != "conversation" and untitled.split()[0] in read_conversation_info(saved_conversation).text
    assert "not a readable Parley conversation" in by_name["broken.parley"]["error"]
    assert "not a readable Parley conversation" in by_name["cut.parley"]["error"]

    assert cli_main(["conversations", "--folder", str(folder)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 4 and any("unreadable" in line and "cut.parley" in line for line in lines)
    assert cli_main(["conversations", "--folder", str(folder / "missing")]) == 2


def test_500_conversations_are_listed_from_their_headers_in_about_a_second(tmp_path, saved_conversation):
    folder = tmp_path / "many"
    folder.mkdir()
    for i in range(500):
        os.link(saved_conversation, folder / f"talk {i:03d}.parley")  # real files, without 500 copies of the data
    started = time.perf_counter()
    entries = list_conversations(folder)
    elapsed = time.perf_counter() - started
    print(f"\nlisted 500 conversations in {elapsed:.3f} s")
    assert len(entries) == 500 and all(e.info is not None for e in entries)
    assert elapsed < 3.0  # generous: about 0.1 s here; the machine is shared


class FifoWatch:
    """Notices anyone opening ``fifo`` to read it, and lets them go (the write end opened and closed
    gives them end-of-file): a reader never hangs the test, it only fails it."""

    def __init__(self, fifo) -> None:
        self.opened, self._stop = threading.Event(), threading.Event()
        self._thread = threading.Thread(target=self._run, args=(fifo,), daemon=True)
        self._thread.start()

    def _run(self, fifo) -> None:
        while not self._stop.is_set():
            try:
                fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)  # fails (ENXIO) while nobody reads it
            except OSError:
                time.sleep(0.002)
                continue
            self.opened.set()
            os.close(fd)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


def test_every_file_is_a_row_and_no_file_stops_the_listing(qtbot, tmp_path, saved_conversation):
    """1e400 frames, JSON nested 100,000 deep, empty, cut, a folder, a FIFO and a link to it (where
    the system has FIFOs): each a damaged row with its reason, in the CLI and in the library; the
    library reads no header on the GUI thread, and nothing opens the FIFO."""
    folder = tmp_path / "crafted"
    folder.mkdir()
    shutil.copy(saved_conversation, folder / "good.parley")
    crafted = craft_damaged_files(folder, saved_conversation)
    watch = FifoWatch(folder / "pipe.parley") if "pipe.parley" in crafted else None
    try:
        rows = {e.path.name: e for e in list_conversations(folder)}
        assert set(rows) == {*crafted, "good.parley"} and rows["good.parley"].info is not None
        assert all(rows[name].info is None and rows[name].error for name in crafted)
        assert "the number 1e400 is out of range" in rows["frames 1e400.parley"].error  # said, not an OverflowError
        assert "damaged metadata" in rows["nested.parley"].error  # its first 32 KB are read: no RecursionError
        assert "is a folder" in rows["folder.parley"].error and "too short" in rows["zero bytes.parley"].error

        started = time.perf_counter()
        library = LibraryModel(folder)
        assert time.perf_counter() - started < 0.5 and library.entries == [] and library.scanning
        qtbot.waitUntil(lambda: not library.scanning, timeout=20_000)
        listed = {e.path.name: e for e in library.entries}
        assert set(listed) == set(rows) and {name for name, e in listed.items() if e.info is None} == set(crafted)
        if watch is not None:
            assert "not a regular file" in listed["link to pipe.parley"].error
            assert not watch.opened.is_set()
    finally:
        if watch is not None:
            watch.stop()


def test_an_entry_keeps_the_start_of_a_long_transcript_and_search_reads_the_file(qtbot, tmp_path,
                                                                               saved_conversation):
    folder = tmp_path / "long"
    folder.mkdir()
    with_long_transcript(saved_conversation, folder / "conversation.parley", pieces=3000)
    for i in range(20):
        os.link(folder / "conversation.parley", folder / f"conversation {i}.parley")
    tracemalloc.start()
    try:
        entries = list_conversations(folder)
        kept, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(entries) == 21 and kept < 21 * 8192  # the whole transcripts were ~500 KB each
    # one capped read of a header at a time (0.24 MB measured; a whole header's parse peaked at 0.86 MB)
    assert peak < 12 * LIST_HEADER_BYTES
    library = LibraryModel(folder)
    search = LibraryFilter(library)
    qtbot.waitUntil(lambda: not library.scanning, timeout=20_000)
    entry = library.entries[0]
    assert entry.info.text == "" and len(entry.preview) <= PREVIEW_CHARS and LAST_WORD not in entry.preview
    assert entry.title.startswith("word0 word1")
    search.set_query(LAST_WORD.upper())  # only the end of each transcript holds it
    assert search.searching
    qtbot.waitUntil(lambda: not search.searching, timeout=30_000)
    assert search.rowCount() == 21
    search.set_query(f"{LAST_WORD} nowhere")
    qtbot.waitUntil(lambda: not search.searching, timeout=30_000)
    assert search.rowCount() == 0


def test_the_chosen_row_stays_chosen_while_rows_arrive(qtbot, tmp_path, saved_conversation):
    folder = tmp_path / "rows"
    folder.mkdir()
    for name in ("a.parley", "b.parley", "c.parley"):
        os.link(saved_conversation, folder / name)
    library = LibraryModel(folder)
    panel = LibraryPanel(library)
    qtbot.addWidget(panel)
    qtbot.waitUntil(lambda: not library.scanning, timeout=20_000)
    assert panel.select_path(folder / "b.parley")
    os.link(saved_conversation, folder / "d.parley")
    library.rescan()  # the list is reset when the rows arrive
    qtbot.waitUntil(lambda: not library.scanning, timeout=20_000)
    assert len(library.entries) == 4 and panel.selected().path == folder / "b.parley"


def test_rename_refuses_bad_names_and_never_replaces_another_file(qtbot, tmp_path, saved_conversation):
    folder = tmp_path / "names"
    folder.mkdir()
    for name in ("a.parley", "b.parley"):
        shutil.copy(saved_conversation, folder / name)
    library = LibraryModel(folder)
    qtbot.waitUntil(lambda: not library.scanning, timeout=20_000)
    row = library.row_of(folder / "a.parley")
    assert "cannot be a file name" in library.rename(row, "nul\0name")
    assert "at most 248 bytes" in library.rename(row, "x" * 300)
    assert "already a conversation called 'b'" in library.rename(row, "b")
    # What no check can prevent: the target appears between a check and the rename.
    (folder / "c.parley").write_bytes(b"another program's file")
    with pytest.raises(FileExistsError):
        rename_no_replace(folder / "a.parley", folder / "c.parley")
    assert (folder / "c.parley").read_bytes() == b"another program's file"
    assert (folder / "a.parley").read_bytes() == saved_conversation.read_bytes()
    assert library.rename(row, "d") is None
    assert not (folder / "a.parley").exists() and (folder / "d.parley").read_bytes() == saved_conversation.read_bytes()


@pytest.fixture
def window(qtbot, tmp_path, folder, app_demo_model):
    h = Harness(qtbot, tmp_path, lambda *args: app_demo_model)
    yield h.window
    h.close()


def titles(panel) -> list[str]:
    return [panel.filter.index(r, 0).data() for r in range(panel.filter.rowCount())]


def test_the_library_lists_searches_renames_and_deletes_to_the_trash(window, folder, qtbot, monkeypatch, tmp_path):
    panel = window.library_panel
    listed = titles(panel)
    assert "Trip to Lisbon" in listed and len(listed) == 2
    words = read_conversation_info(folder / "conversation.parley").text.split()

    panel.search.setText("LISBON")
    assert titles(panel) == ["Trip to Lisbon"]
    assert panel.filter.index(0, 0).data(SnippetRole) == ""  # found by its title: its details stay
    panel.search.setText(words[-1])  # a word of the transcript: both files hold the same one
    qtbot.waitUntil(lambda: not panel.filter.searching, timeout=10_000)  # read from the files
    assert len(titles(panel)) == 2
    for row in range(2):  # each row shows the words around the hit, in place of its details
        assert words[-1].lower() in panel.filter.index(row, 0).data(SnippetRole).lower()
    assert panel.empty_label.isHidden()
    panel.search.setText("trip zzzz")
    assert titles(panel) == []
    qtbot.waitUntil(lambda: not panel.filter.searching, timeout=10_000)
    assert not panel.empty_label.isHidden() and panel.empty_label.text() == "No conversation matches “trip zzzz”."
    panel.search.clear()
    assert panel.empty_label.isHidden()

    assert panel.select_path(folder / "Trip to Lisbon.parley")
    monkeypatch.setattr(QInputDialog, "getText", lambda *a, **k: ("Weekend in Porto", True))
    panel.rename_selected()
    assert (folder / "Weekend in Porto.parley").is_file() and not (folder / "Trip to Lisbon.parley").exists()
    qtbot.waitUntil(lambda: "Weekend in Porto" in titles(panel), timeout=10_000)
    monkeypatch.setattr(QMessageBox, "warning", lambda *a, **k: None)
    assert not panel.rename(panel.library.entries[0], "a/b")  # refused, nothing renamed
    assert len(list(folder.glob("*.parley"))) == 2
    offered = []  # a refused name is offered again as typed, to mend rather than retype

    def ask(*_args, text: str, **_kwargs):
        offered.append(text)
        return ("a/b", True) if len(offered) == 1 else (text, False)
    monkeypatch.setattr(QInputDialog, "getText", ask)
    assert panel.select_path(folder / "Weekend in Porto.parley")
    panel.rename_selected()
    assert offered == ["Weekend in Porto", "a/b"] and (folder / "Weekend in Porto.parley").is_file()

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))  # the trash of this test, not the user's
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.Yes)
    assert panel.select_path(folder / "Weekend in Porto.parley")
    before = (folder / "Weekend in Porto.parley").read_bytes()
    panel.delete_selected()
    assert not (folder / "Weekend in Porto.parley").exists()
    trashed = tmp_path / "xdg" / "Trash" / "files" / "Weekend in Porto.parley"
    assert trashed.read_bytes() == before
    qtbot.waitUntil(lambda: len(titles(panel)) == 1, timeout=10_000)
    assert titles(panel) == [panel.library.entries[0].title]


def test_a_snippet_shows_the_hit_near_its_start_cut_at_spaces():
    text = "first line of the talk\nthen   the river ran past the old mill and on to the sea " + "far " * 30
    snippet = snippet_around(text, ["river"], before=10, after=30)
    assert snippet == "…then the river ran past the old mill…"  # one space for every run, cut at words
    assert snippet_around("The river", ["zzz", "river"]) == "The river"  # nothing cut: no marks
    assert snippet_around("a mill, then a river", ["river", "mill"], before=0, after=6) == "…mill,…"  # the first hit
    assert snippet_around("nothing here", ["river"]) == ""


def test_the_library_buttons_are_greyed_out_until_a_conversation_is_chosen(window, folder, qtbot):
    panel = window.library_panel
    buttons = (panel.open_button, panel.play_button, panel.rename_button, panel.delete_button)
    panel.list.setCurrentIndex(QModelIndex())
    assert not any(b.isEnabled() for b in buttons)  # a click on them would do nothing
    assert panel.select_path(folder / "Trip to Lisbon.parley")
    assert all(b.isEnabled() for b in buttons)
    panel.search.setText("zzzz")  # the chosen row is filtered out: nothing is chosen any more
    assert not any(b.isEnabled() for b in buttons)
    panel.search.clear()


def test_save_after_a_rename_or_a_delete_never_writes_the_old_name(window, folder, qtbot, monkeypatch, tmp_path):
    old = folder / "Trip to Lisbon.parley"
    window.open_conversation(str(old))
    qtbot.waitUntil(lambda: window.model.files.conversation_path == str(old), timeout=20_000)
    panel = window.library_panel
    open_now = [r for r in range(panel.filter.rowCount()) if panel.filter.index(r, 0).data(CurrentRole)]
    assert [panel.filter.index(r, 0).data() for r in open_now] == ["Trip to Lisbon"]  # the open one is marked
    assert panel.filter.index(open_now[0], 0).data(Qt.AccessibleTextRole) == "Trip to Lisbon (open now)"
    assert panel.rename(window.library.entries[window.library.row_of(old)], "Porto")
    assert window.model.files.conversation_path == str(folder / "Porto.parley")
    assert window.windowTitle().startswith("Porto.parley")
    assert window.model.preferences.settings.recent_files[0] == str(folder / "Porto.parley")  # Open recent follows it
    assert str(old) not in window.model.preferences.settings.recent_files
    assert window.menus.recent_menu.actions()[0].text() == "Porto.parley"
    saved = SignalRecorder()
    window.model.files.saved.connect(saved.record)
    window.files.save()  # Ctrl+S
    qtbot.waitUntil(lambda: len(saved) == 1, timeout=30_000)
    assert saved.calls[0] == (str(folder / "Porto.parley"),) and not old.exists()

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.Yes)
    qtbot.waitUntil(lambda: panel.select_path(folder / "Porto.parley"), timeout=10_000)
    panel.delete_selected()
    files = window.model.files
    assert files.conversation_path is None and files.unsaved_frames and "Untitled" in window.windowTitle()
    asked = []
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: asked.append(a) or ("", ""))
    window.files.save()  # asks where, as for a new conversation
    assert asked and not (folder / "Porto.parley").exists()

    answers, warned = [str(folder / "   .parley"), str(folder / "  "), str(folder / "Named")], []
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (answers.pop(0), ""))
    monkeypatch.setattr(QMessageBox, "warning", lambda *a, **k: warned.append(a[2]))
    assert window.files.save_as_dialog()  # a blank name is refused and asked again, twice
    qtbot.waitUntil(lambda: files.conversation_path == str(folder / "Named.parley"), timeout=30_000)
    assert len(warned) == 2 and "needs a name" in warned[0]
    assert sorted(p.name for p in folder.glob("*.parley")) == ["Named.parley", "conversation.parley"]


def test_the_folder_is_watched(window, folder, saved_conversation, qtbot):
    library = window.library
    shutil.copy(saved_conversation, folder / "From another program.parley")
    qtbot.waitUntil(lambda: any(e.title == "From another program" for e in library.entries), timeout=10_000)
    os.remove(folder / "conversation.parley")
    qtbot.waitUntil(lambda: len(library.entries) == 2, timeout=10_000)
    assert {e.path.name for e in library.entries} == {"From another program.parley", "Trip to Lisbon.parley"}


def test_enter_on_an_entry_opens_it_and_its_turns_come_back(window, folder, qtbot):
    panel = window.library_panel
    assert panel.select_path(folder / "Trip to Lisbon.parley")
    panel.list.setFocus()
    qtbot.keyClick(panel.list, Qt.Key_Return)
    qtbot.waitUntil(lambda: window.model.files.conversation_path == str(folder / "Trip to Lisbon.parley"),
                    timeout=20_000)
    user = [t for t in window.model.transcript.turns if t.speaker == YOU]
    assert len(user) == 1 and user[0].duration == pytest.approx(TALK_FRAMES * FRAME_SECONDS)  # from the recording
    assert window.windowTitle().startswith("Trip to Lisbon.parley")


def test_a_file_of_another_model_is_offered_only_where_that_model_is_here(qtbot, tmp_path, folder, app_demo_model,
                                                                         monkeypatch):
    """A switch is offered for a preset whose files are on this machine, or the model folder the person
    loads; a preset that is not here (a 15 GB download) or a folder a file names is only said."""
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty hub cache"))  # no preset downloaded here
    stored = read_conversation(folder / "conversation.parley")
    meta = {k: v for k, v in stored.meta.items() if k not in ("format", "version", "checksum")}
    named = {"Big model": "moshiko", "A folder": str(tmp_path), "Demo": "demo", "Mine": "my-moshi"}
    for title, model in named.items():
        write_conversation(folder / f"{title}.parley", stored.tensors,
                           {**meta, "model": model, "fingerprint": "another-model"})
    loaded: list[str] = []

    def loader(name, *args):
        loaded.append(name)
        if name != "demo":
            raise RuntimeError("not the demo")
        return app_demo_model

    h = Harness(qtbot, tmp_path, loader)
    try:
        asked: list[str] = []
        monkeypatch.setattr(QMessageBox, "question", lambda _w, _t, text, *a: asked.append(text) or QMessageBox.Yes)
        w = h.window

        def open_titled(title):
            path = folder / f"{title}.parley"
            qtbot.waitUntil(lambda: w.library.row_of(path) is not None, timeout=10_000)
            w.files.open_entry(w.library.entries[w.library.row_of(path)])

        for title in ("Big model", "A folder", "Mine"):
            open_titled(title)
            assert not asked and w.error_box.isVisible()
            assert f"saved with the model {named[title]}, which is not on this machine" in w.error_box.label.text()
        assert loaded == ["demo"]  # nothing fetched or loaded from a file's word
        mine = tmp_path / "models" / "my-moshi"
        mine.mkdir(parents=True)
        w.model.preferences.update(model=str(mine))  # the folder the person loads
        open_titled("Mine")
        assert asked and f"Switch to {mine} and open it?" in asked[-1]
        qtbot.waitUntil(lambda: loaded[-1] == str(mine), timeout=10_000)
        asked.clear()
        open_titled("Demo")  # the loaded model's name on other weights: said, never offered (it looped)
        assert not asked and "saved with another copy of the model demo" in w.error_box.label.text()
        assert loaded[-1] == str(mine)
    finally:
        h.close()


def test_clicking_a_replayed_turn_seeks_to_it(window, folder, qtbot):
    replay = window.replay
    assert replay.load(str(folder / "Trip to Lisbon.parley"))
    panel = window.conversation_panel
    assert panel.replaying and panel.replay_bar.isVisible() and panel.view.model() is replay.turns
    turns = replay.turns.transcript.turns
    later = max(range(len(turns)), key=lambda i: turns[i].start)
    qtbot.waitUntil(lambda: panel.view.visualRect(replay.turns.index(later)).height() > 0, timeout=5_000)
    rect = panel.view.visualRect(replay.turns.index(later))
    qtbot.mouseClick(panel.view.viewport(), Qt.LeftButton, pos=rect.center())
    assert replay.position == pytest.approx(turns[later].start, abs=1e-3)
    assert "Trip to Lisbon" in panel.replay_bar.title_label.text()
    panel.close_replay()
    assert panel.view.model() is window.model.turns


@pytest.mark.parametrize("rate", [SAMPLE_RATE, 48_000])
@pytest.mark.parametrize("split", [False, True], ids=["mixed", "split"])
def test_replay_lays_out_seconds_ahead_and_plays_what_laying_out_the_whole_file_would(qapp, rate, split):
    """The speaker's side without a device: the callback pulls 10 ms blocks, the timer's ``_fill`` tops
    the layout up between them; never more than a few seconds are laid out."""
    import soxr

    from app.conversation.replay import LAYOUT_AHEAD_S, LAYOUT_CHUNK_S

    rng = np.random.default_rng(7)
    user, assistant = (rng.uniform(-0.6, 0.6, 10 * SAMPLE_RATE + 123).astype(np.float32) for _ in range(2))
    player = ReplayPlayer()
    player._use_audio(user, assistant)
    player.split, player._rate = split, rate
    player._relayout()
    whole = np.stack([user, assistant], axis=1) if split else np.repeat(np.clip(user + assistant, -1, 1)[:, None], 2, 1)
    expected = whole if rate == SAMPLE_RATE else soxr.resample(whole, SAMPLE_RATE, rate)
    played, block, most_laid_out = [], rate // 100, 0
    while player._end_handed is None and len(played) < 2000:
        out = np.zeros((block, 2), np.float32)
        player._callback(out, block, None, None)
        played.append(out)
        player._fill()
        most_laid_out = max(most_laid_out, len(player._window[1]))
    got = np.concatenate(played)
    assert player._end_handed is not None and len(expected) <= len(got) < len(expected) + block
    assert np.allclose(got[:len(expected)], expected, atol=1e-5) and not got[len(expected):].any()
    assert most_laid_out <= (LAYOUT_AHEAD_S + LAYOUT_CHUNK_S) * rate + block  # seconds, not the whole file


@pytest.mark.audio
def test_replay_plays_the_recording_to_the_speaker_and_seeks(pulse_audio, qtbot, tmp_path, saved_conversation):
    from tests import audio_server

    player = ReplayPlayer()
    assert player.load(str(saved_conversation))
    assert player.duration == pytest.approx((TALK_FRAMES + QUIET_FRAMES) * FRAME_SECONDS)
    changes: list[tuple[str, float]] = []
    player.state_changed.connect(lambda state: changes.append((state, time.monotonic())))  # GUI thread
    positions: list[float] = []
    player.position_changed.connect(positions.append)

    def play_through() -> float:
        """Seconds from playing to stopped (the player stops itself at the end)."""
        del changes[:]
        player.play()
        assert player.state == PLAYING
        qtbot.waitUntil(lambda: player.state == STOPPED, timeout=10_000)
        return changes[-1][1] - changes[0][1]

    recorder = audio_server.SinkRecorder(str(tmp_path / "speaker.f32"))
    full = play_through()
    time.sleep(0.3)
    recorded = np.frombuffer(recorder.stop(), dtype="<f4")
    rms_db = 20 * np.log10(np.sqrt(np.mean(np.square(recorded))) + 1e-12)
    loud = np.abs(recorded) > 0.05
    print(f"\nreplay reached the sink at {rms_db:.1f} dBFS over {recorded.size / 24_000:.2f} s; "
          f"playing all 2.4 s took {full:.2f} s")
    assert rms_db > -40, f"nothing reached the speaker sink ({rms_db:.1f} dBFS)"
    assert loud.sum() > 0.5 * TALK_FRAMES * 1920  # the user's tone was played
    assert full > 1.8  # played in real time (2.4 s of audio), not dumped at once

    player.set_split(True)  # you left, assistant right
    player.seek(1.6)
    assert player.position == pytest.approx(1.6)
    del positions[:]
    play_through()
    assert min(positions) >= 1.6 - 1e-6  # it went on from the seek position, not from the start
    assert max(positions) >= player.duration - 0.05  # to the end


@pytest.mark.audio
def test_a_live_user_turn_plays_from_its_play_button(pulse_audio, qtbot, tmp_path, app_demo_model):
    from PySide6.QtWidgets import QStyleOptionViewItem

    from tests import audio_server

    h = Harness(qtbot, tmp_path, lambda *args: app_demo_model)
    try:
        w = h.window
        qtbot.keyPress(w, Qt.Key_Space)
        h.frames(10)
        qtbot.keyRelease(w, Qt.Key_Space)
        h.frames(3)
        view = w.conversation_panel.view
        row = next(i for i, t in enumerate(w.model.transcript.turns) if t.speaker == YOU)
        turn = w.model.transcript.turns[row]
        option = QStyleOptionViewItem()
        view.initViewItemOption(option)
        option.rect = view.visualRect(w.model.turns.index(row))
        button = view.delegate._play_rect(view.delegate._bubble(option, turn), option)
        clips = []
        w.model.clip_ready.connect(clips.append)
        recorder = audio_server.SinkRecorder(str(tmp_path / "speaker.f32"))
        qtbot.mouseClick(view.viewport(), Qt.LeftButton, pos=button.center())
        qtbot.waitUntil(lambda: w.replay.state == PLAYING, timeout=10_000)
        (clip,) = clips  # the engine thread sent that turn's audio, not the whole recording
        user, assistant, start_s = clip.user, clip.assistant, clip.start_s
        samples = round(turn.end * SAMPLE_RATE) - round(turn.start * SAMPLE_RATE)
        assert start_s == turn.start and len(user) == len(assistant) == samples
        qtbot.waitUntil(lambda: w.replay.state == STOPPED, timeout=10_000)
        time.sleep(0.3)
        recorded = np.frombuffer(recorder.stop(), dtype="<f4")
        assert not w.conversation_panel.replaying  # the live conversation stays on screen
        assert w.replay.position >= turn.end - 0.05 and w.replay.position < turn.end + 0.2  # only that turn
        assert (np.abs(recorded) > 0.05).sum() > 0.5 * 10 * 1920  # the user's tone was played
    finally:
        h.close()


def test_the_terminal_listing_escapes_reordering_marks_and_says_deep_nesting_plainly(tmp_path, capsys):
    """An RLO in a title reversed the rest of the terminal's line; a header nested too deep past the
    listing's first bytes was listed with Python's RecursionError text."""
    from app.library.listing import printable

    assert printable("x\u202eexe.jpg") == "x\\u202eexe.jpg" and printable("a\x1bb") == "a\\x1bb"
    meta = ('{"format": "parley.conversation", "version": 1, "frames": 5, "model": "demo", "prompts": '
            + "[" * 100_000 + "]" * 100_000 + ', "transcript": []}')
    header = json.dumps({"__metadata__": {"parley": meta}}).encode()
    (tmp_path / "deep.parley").write_bytes(len(header).to_bytes(8, "little") + header)
    (row,) = list_conversations(tmp_path)
    assert "nested too deeply" in row.error and "recursion" not in row.error


def test_in_french_at_1024x640_two_dated_titles_of_one_day_are_painted_apart(qtbot, tmp_path, saved_conversation,
                                                                               app_demo_model, qapp):
    from app.i18n import install_translators, remove_translators
    from app.library.panel import shown_title, title_rect

    translators = install_translators(qapp, "fr")
    folder = conversations_dir(tmp_path)
    names = ("Conversation 2026-12-07 10.21", "Conversation 2026-12-07 10.35")
    for name in names:
        shutil.copy(saved_conversation, folder / f"{name}.parley")
    h = Harness(qtbot, tmp_path, lambda *args: app_demo_model)
    try:
        w, panel = h.window, h.window.library_panel
        w.resize(1024, 640)
        w.set_library_visible(True)
        qtbot.waitUntil(lambda: sorted(titles(panel)) == sorted(names), timeout=20_000)
        qtbot.wait(100)
        shown = []
        for row in range(panel.filter.rowCount()):
            index = panel.filter.index(row, 0)
            option = QStyleOptionViewItem()
            panel.list.initViewItemOption(option)
            option.rect = panel.list.visualRect(index)
            shown.append(shown_title(option.font, index.data(), title_rect(option).width()))
        assert any("…" in text for text in shown), shown  # the column is narrower than the titles here
        assert len(set(shown)) == 2, shown
    finally:
        h.close()
        remove_translators(qapp, translators)


def test_at_1024x640_a_library_row_fits_its_column_and_shows_where_the_focus_is(qtbot, tmp_path, saved_conversation,
                                                                              app_demo_model):
    """A row is as wide as the list (no sideways scroll bar for rows whose texts are cut to fit), and
    the row Tab lands on is drawn differently from the same row without the focus."""
    folder = conversations_dir(tmp_path)
    shutil.copy(saved_conversation, folder / "Conversation 2026-12-07 14.04.parley")
    h = Harness(qtbot, tmp_path, lambda *args: app_demo_model)
    try:
        w, panel = h.window, h.window.library_panel
        w.resize(1024, 640)
        w.set_library_visible(True)
        qtbot.waitUntil(lambda: panel.filter.rowCount() == 1, timeout=20_000)
        panel.list.setFixedWidth(150)  # narrower than any row was asked to be (the fonts differ by desktop)
        qtbot.wait(100)
        assert not panel.list.horizontalScrollBar().isVisible()
        row = panel.list.visualRect(panel.filter.index(0, 0))
        assert row.left() >= 0 and row.right() < panel.list.viewport().width()
        unfocused = panel.list.viewport().grab(row).toImage()
        panel.list.setFocus(Qt.TabFocusReason)
        qtbot.waitUntil(panel.list.hasFocus)
        assert panel.list.currentIndex().row() == 0
        panel.list.viewport().repaint()
        assert panel.list.viewport().grab(row).toImage() != unfocused
    finally:
        h.close()
