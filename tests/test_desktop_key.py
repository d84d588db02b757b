"""The desktop-wide talk key: chords, and on a real X server (Xvfb) the key typed with xdotool while
another program's window has the focus opens the real window's microphone, through PortAudio and
the PulseAudio null sink, and its release closes it; a chord another program holds is said."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence

from app.audio.headless import SignalRecorder
from app.audio.levels import SILENCE_DB
from app.desktop_key.backends import NO_DESKTOP_WHY
from app.desktop_key.chord import ChordError, parse_chord
from app.desktop_key.talk_key import TALK_SOURCE, TAP
from app.desktop_key.x11 import X11Grab, modifier_masks
from app.settings import load_settings
from app.window.main_window import MainWindow
from engine.audio import write_wav
from tests import audio_server, x_server
from tests.session_bus import BUS_CONFIG
from tests.test_app_window import conversations_dir, settings_without_processing

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.mark.parametrize(("text", "modifiers", "key", "trigger"), [
    ("Ctrl+Alt+Space", {"ctrl", "alt"}, "space", "CTRL+ALT+space"),
    ("Meta+F12", {"meta"}, "F12", "LOGO+F12"),
    ("Pause", set(), "Pause", "Pause"),
    ("Ctrl+Shift+A", {"ctrl", "shift"}, "a", "CTRL+SHIFT+a"),
    ("Ctrl+Alt+PgUp", {"ctrl", "alt"}, "Prior", "CTRL+ALT+Prior"),
])
def test_chords_are_named_for_each_desktop(text, modifiers, key, trigger):
    chord = parse_chord(text)
    assert (chord.modifiers, chord.key, chord.portal_trigger, chord.text) == (modifiers, key, trigger, text)


@pytest.mark.parametrize(("text", "why"), [
    ("Space", "alone would be taken"), ("Shift+A", "with only Shift"), ("", "not one key chord"),
    ("Ctrl+A, B", "not one key chord"), ("Ctrl+Ä", "cannot be a desktop-wide key"),
])
def test_a_chord_that_would_take_typing_or_is_not_a_key_is_refused_with_why(text, why):
    with pytest.raises(ChordError, match=why):
        parse_chord(text)


def test_the_x_grab_covers_caps_lock_and_num_lock():
    ctrl_alt = 4 | 8
    assert sorted(modifier_masks(parse_chord("Ctrl+Alt+Space"))) == [ctrl_alt, ctrl_alt | 2, ctrl_alt | 16,
                                                                     ctrl_alt | 2 | 16]


@pytest.fixture(scope="module")
def x_display():
    if not sys.platform.startswith("linux"):
        pytest.skip("the X server the test starts (Xvfb) is a Linux package here")
    if not x_server.tools_available():
        pytest.fail("Xvfb or xdotool is missing: run tests/setup_system.sh (installs xvfb, xdotool)")
    server = x_server.start_x_server()
    yield server
    server.stop()


@pytest.fixture
def on_x(x_display, monkeypatch):
    """This test's app sees the X server as its desktop (Qt itself stays offscreen)."""
    monkeypatch.setenv("DISPLAY", x_display.display)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.delenv("XDG_SESSION_TYPE", raising=False)
    return x_display


def quiet_window(tmp_path, **kwargs) -> MainWindow:
    store = settings_without_processing(tmp_path / "settings.ini")
    window = MainWindow(store, conversations_dir=conversations_dir(tmp_path), **kwargs)
    window.show()
    return window


def close(window: MainWindow) -> None:
    window.model.files.unsaved_frames = 0
    window.close()


def test_the_key_opens_the_microphone_from_another_program_and_its_release_closes_it(
        on_x, pulse_audio, qtbot, tmp_path, app_demo_model):
    tone = 0.2 * np.sin(2 * np.pi * 440 * np.arange(24_000 * 30) / 24_000)
    write_wav(tmp_path / "tone.wav", tone.astype(np.float32))
    w = quiet_window(tmp_path, model_loader=lambda *args: app_demo_model, audio=True, worker_seed=1)
    frames = SignalRecorder()
    w.model.frame.connect(frames.record)
    other = x_server.OtherProgramWindow(on_x.display)
    player = audio_server.play_into_mic(str(tmp_path / "tone.wav"))
    try:
        w.load_model("demo", "cpu", "float32")
        qtbot.waitUntil(lambda: w.model.models.model_info is not None, timeout=60_000)
        w.model.start()
        stats = lambda: [args[0] for args in frames.calls]  # noqa: E731
        qtbot.waitUntil(lambda: sum(s.mic_db > -30 for s in stats()) >= 3, timeout=30_000)
        assert w.talk_key.active and not w.status_notes.talk_key_label.isVisibleTo(w)
        assert all(s.model_input_db == SILENCE_DB for s in stats())  # the tone is heard, not let through

        assert other.has_focus()
        on_x.xdotool("keydown", "ctrl+alt+space")
        qtbot.waitUntil(lambda: w.model.talk.mic_open, timeout=5_000)
        pressed = len(frames)
        assert w.model.talk.held_by == {TALK_SOURCE}
        qtbot.waitUntil(lambda: sum(s.model_input_db > -30 for s in stats()[pressed:]) >= 5, timeout=20_000)

        on_x.xdotool("keyup", "ctrl+alt+space")
        qtbot.waitUntil(lambda: not w.model.talk.mic_open, timeout=5_000)
        released = len(frames)
        qtbot.waitUntil(lambda: len(frames) >= released + 6, timeout=20_000)
        # A frame or two may still carry what was captured before the release reached the worker.
        assert all(s.model_input_db == SILENCE_DB for s in stats()[released + 2:])
        assert max(s.mic_db for s in stats()[released + 2:]) > -30  # the microphone still hears the tone
        assert other.has_focus()  # the other program kept the focus throughout
    finally:
        player.kill()
        player.wait(10)
        other.close()
        close(w)


def test_a_key_another_program_holds_is_said_and_space_in_the_window_still_works(on_x, qtbot, tmp_path):
    holder = X11Grab()  # another client of the same X server, which took the chord first
    holder.grab(parse_chord("Ctrl+Alt+Space"))
    try:
        w = quiet_window(tmp_path, audio=False)
        try:
            assert not w.talk_key.active
            assert "another program already uses it" in w.status_notes.talk_key_label.text()
            assert "Space in Parley's window still works" in w.status_notes.talk_key_label.text()
            assert w.status_notes.talk_key_label.isVisibleTo(w)
            qtbot.keyPress(w, Qt.Key_Space)
            assert w.model.talk.mic_open
            qtbot.keyRelease(w, Qt.Key_Space)
            holder.ungrab()  # the other program lets go: OK in Audio > Talk key asks again, same chord
            w.dialogs.open_talk_key_dialog().accept()
            assert w.talk_key.active and not w.status_notes.talk_key_label.isVisibleTo(w)
        finally:
            close(w)
    finally:
        holder.ungrab()


def test_a_chosen_tap_key_toggles_and_the_previous_chord_is_given_back(on_x, qtbot, tmp_path):
    w = quiet_window(tmp_path, audio=False)
    try:
        assert w.talk_key.active, w.talk_key.problem
        dialog = w.dialogs.open_talk_key_dialog()
        dialog.key_edit.setKeySequence(QKeySequence("Ctrl+Alt+T"))
        dialog.tap_button.setChecked(True)
        dialog.accept()
        settings = load_settings(w.model.preferences.store)
        assert (settings.talk_key, settings.talk_key_mode) == ("Ctrl+Alt+T", TAP)
        assert w.talk_key.active, w.talk_key.problem

        taker = X11Grab()  # Ctrl+Alt+Space is free again for other programs
        refused = SignalRecorder()
        taker.refused.connect(refused.record)
        taker.grab(parse_chord("Ctrl+Alt+Space"))
        taker.ungrab()
        assert not refused.calls

        on_x.xdotool("key", "ctrl+alt+t")  # a tap: press and release
        qtbot.waitUntil(lambda: w.model.talk.mic_open, timeout=5_000)
        qtbot.wait(200)
        assert w.model.talk.mic_open  # the release did not close it
        on_x.xdotool("key", "ctrl+alt+t")
        qtbot.waitUntil(lambda: not w.model.talk.mic_open, timeout=5_000)
    finally:
        close(w)


def test_a_chord_that_cannot_be_a_desktop_key_is_said_in_the_dialog(on_x, qtbot, tmp_path):
    w = quiet_window(tmp_path, audio=False)
    try:
        dialog = w.dialogs.open_talk_key_dialog()
        dialog.key_edit.setKeySequence(QKeySequence("Space"))
        dialog.accept()
        assert dialog.isVisible() and "add Ctrl, Alt or the Super key" in dialog.note.text()
        assert load_settings(w.model.preferences.store).talk_key == "Ctrl+Alt+Space"  # nothing saved
        dialog.enabled_box.setChecked(False)
        dialog.accept()
        assert load_settings(w.model.preferences.store).talk_key == "" and not w.talk_key.active and not w.talk_key.note
    finally:
        close(w)


@pytest.mark.skipif(sys.platform in ("win32", "darwin"), reason="Windows and macOS are a desktop whatever the "
                                                                 "variables say")
def test_without_a_desktop_the_window_says_so(qtbot, tmp_path, monkeypatch):
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "XDG_SESSION_TYPE"):
        monkeypatch.delenv(name, raising=False)
    w = quiet_window(tmp_path, audio=False)
    try:
        assert NO_DESKTOP_WHY in w.status_notes.talk_key_label.text() and w.status_notes.talk_key_label.isVisibleTo(w)
    finally:
        close(w)


# ---- Wayland: the portal's GlobalShortcuts on a private session bus ----------------------------



@pytest.fixture
def session_bus(tmp_path, monkeypatch):
    """A session bus of this test's own, with no services (no desktop portal) until a test starts
    one; the app sees a Wayland session on it."""
    if not sys.platform.startswith("linux") or not shutil.which("dbus-daemon"):
        pytest.fail("dbus-daemon is missing: run tests/setup_system.sh (installs dbus-daemon)")
    config = tmp_path / "bus.conf"
    config.write_text(BUS_CONFIG.format(folder=tmp_path))
    daemon = subprocess.Popen(["dbus-daemon", f"--config-file={config}", "--nofork", "--print-address=1"],
                              stdout=subprocess.PIPE, text=True)
    address = daemon.stdout.readline().strip()
    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", address)
    monkeypatch.setenv("WAYLAND_DISPLAY", "wayland-parley-test")
    monkeypatch.delenv("DISPLAY", raising=False)
    yield address
    daemon.terminate()
    daemon.wait(10)


class FakePortal:
    def __init__(self, address: str, refuse: bool = False) -> None:
        from jeepney.bus_messages import message_bus
        from jeepney.io.blocking import Proxy, open_dbus_connection

        self.process = subprocess.Popen([sys.executable, "-m", "tests.fake_portal", address]
                                        + (["--refuse"] if refuse else []), cwd=ROOT)
        self.connection = open_dbus_connection(address)
        bus = Proxy(message_bus, self.connection)
        deadline = time.monotonic() + 20
        while not bus.NameHasOwner("org.parley.test.FakePortal")[0]:
            assert time.monotonic() < deadline, "the fake portal did not start"
            time.sleep(0.05)

    def call(self, method: str):
        from jeepney import DBusAddress, new_method_call

        address = DBusAddress("/org/parley/test", bus_name="org.parley.test.FakePortal",
                              interface="org.parley.test.FakePortal")
        return self.connection.send_and_get_reply(new_method_call(address, method), timeout=10).body

    def close(self) -> None:
        self.connection.close()
        self.process.terminate()
        self.process.wait(10)


def test_on_wayland_the_portal_gives_the_key_and_its_press_and_release_hold_the_microphone(
        session_bus, qtbot, tmp_path):
    portal = FakePortal(session_bus)
    w = quiet_window(tmp_path, audio=False)
    try:
        qtbot.waitUntil(lambda: w.talk_key.active, timeout=10_000)
        assert portal.call("Trigger") == ("CTRL+ALT+space",)  # the chord, as the portal's preferred trigger
        assert not w.status_notes.talk_key_label.isVisibleTo(w)
        portal.call("Press")
        qtbot.waitUntil(lambda: w.model.talk.mic_open, timeout=5_000)
        assert w.model.talk.held_by == {TALK_SOURCE}
        portal.call("Release")
        qtbot.waitUntil(lambda: not w.model.talk.mic_open, timeout=5_000)
    finally:
        close(w)
    assert portal.call("Trigger") == ("closed",)  # the session was closed with the window
    portal.close()


def test_on_wayland_a_desktop_without_the_portal_or_a_no_is_said(session_bus, qtbot, tmp_path):
    w = quiet_window(tmp_path, audio=False)
    try:
        qtbot.waitUntil(lambda: bool(w.talk_key.problem), timeout=10_000)
        note = w.status_notes.talk_key_label
        assert "no desktop-wide keys" in note.text() and note.isVisibleTo(w)
        assert "Space in Parley's window still works" in w.status_notes.talk_key_label.text()
        portal = FakePortal(session_bus, refuse=True)
        try:
            w.model.preferences.update(talk_key="Ctrl+Alt+T")  # asked again, now of a desktop that says no
            qtbot.waitUntil(lambda: "turned the desktop-wide key down" in w.talk_key.problem, timeout=10_000)
            assert not w.talk_key.active
        finally:
            portal.close()
    finally:
        close(w)


def test_on_wayland_another_program_on_the_bus_cannot_press_or_release_the_key(session_bus, qtbot, tmp_path):
    """A spoofer knows the session's path (it is in every Activated the portal broadcasts) and sends
    Activated/Deactivated, broadcast and addressed to Parley: only the portal's own are heard."""
    from jeepney import DBusAddress, new_signal
    from jeepney.io.blocking import open_dbus_connection

    from app.desktop_key.portal import PORTAL_PATH, SHORTCUT_ID, SHORTCUTS

    portal = FakePortal(session_bus)
    spoofer = open_dbus_connection(session_bus)
    w = quiet_window(tmp_path, audio=False)
    try:
        qtbot.waitUntil(lambda: w.talk_key.active, timeout=10_000)
        grab = w.talk_key.grab

        def spoof(member: str) -> None:
            for destination in (None, grab.connection.unique_name):
                address = DBusAddress(PORTAL_PATH, bus_name=destination, interface=SHORTCUTS)
                spoofer.send(new_signal(address, member, "osta{sv}", (grab.session, SHORTCUT_ID, 0, {})))

        spoof("Activated")
        qtbot.wait(700)
        assert not w.model.talk.mic_open
        portal.call("Press")
        qtbot.waitUntil(lambda: w.model.talk.mic_open, timeout=5_000)
        spoof("Deactivated")
        qtbot.wait(700)
        assert w.model.talk.mic_open
        portal.call("Release")
        qtbot.waitUntil(lambda: not w.model.talk.mic_open, timeout=5_000)
    finally:
        close(w)
        spoofer.close()
        portal.close()


def test_portal_tokens_cannot_be_guessed_from_the_process():
    from app.desktop_key.portal import token

    tokens = {token() for _ in range(100)}
    assert len(tokens) == 100
    # The old form was parley<pid>_<n>; a random token may hold the pid's digits by chance (it did).
    assert not any(t.startswith(f"parley{os.getpid()}") for t in tokens)
    assert all(len(t) >= 32 and t.replace("_", "").isalnum() for t in tokens)


def test_the_key_grabs_share_one_teardown():
    """Letting go (stop reading, close, release a held chord) is written once, in KeyGrab."""
    from app.desktop_key.grab import KeyGrab
    from app.desktop_key.portal import PortalGrab

    assert PortalGrab.ungrab is KeyGrab.ungrab and X11Grab.ungrab is KeyGrab.ungrab
