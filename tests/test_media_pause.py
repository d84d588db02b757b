"""Other audio paused while you talk: media players on a private session bus (MPRIS, as
tests/fake_player.py answers it) are paused while push-to-talk is held and played again afterwards;
only those that were playing, and only when the setting is on."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from app.conversation.media_pause import RESUME_AFTER_MS
from tests.test_desktop_key import ROOT, quiet_window, session_bus  # noqa: F401 - a fixture

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="MPRIS is a Linux desktop's")


class FakePlayer:
    def __init__(self, address: str, name: str, status: str, names: int | None = None) -> None:
        """``names``: one process that is that many players (NAME0 ...)."""
        from jeepney.bus_messages import message_bus
        from jeepney.io.blocking import Proxy, open_dbus_connection

        self.name = name
        self.process = subprocess.Popen([sys.executable, "-m", "tests.fake_player", address, name, status]
                                        + ([] if names is None else ["--names", str(names)]), cwd=ROOT)
        self.connection = open_dbus_connection(address)
        bus = Proxy(message_bus, self.connection)
        deadline = time.monotonic() + 20
        last = name if names is None else f"{name}{names - 1}"
        while not bus.NameHasOwner(f"org.mpris.MediaPlayer2.{last}")[0]:
            assert time.monotonic() < deadline, "the fake player did not start"
            time.sleep(0.05)

    def calls(self) -> list[str]:
        from jeepney import DBusAddress, new_method_call

        address = DBusAddress("/org/mpris/MediaPlayer2", bus_name=f"org.parley.test.FakePlayer.{self.name}",
                              interface="org.parley.test.FakePlayer")
        return list(self.connection.send_and_get_reply(new_method_call(address, "Calls"), timeout=10).body[0])

    def close(self) -> None:
        self.connection.close()
        self.process.terminate()
        self.process.wait(10)


def test_players_that_play_are_paused_while_you_talk_and_played_again_after(
        session_bus, qtbot, tmp_path):  # noqa: F811 - the fixture
    music, paused = FakePlayer(session_bus, "music", "Playing"), FakePlayer(session_bus, "podcast", "Paused")
    w = quiet_window(tmp_path, audio=False)
    try:
        w.press_talk("key")  # the setting is off: nothing is touched
        w.release_talk("key")
        qtbot.wait(RESUME_AFTER_MS + 500)
        assert music.calls() == [] and paused.calls() == []

        w.menus.pause_media_action.trigger()
        assert w.model.preferences.settings.pause_media
        w.press_talk("key")
        qtbot.waitUntil(lambda: music.calls() == ["Pause"], timeout=5_000)
        w.release_talk("key")
        w.press_talk("key")  # talking again within the pause after a release: still paused, no Play
        qtbot.wait(RESUME_AFTER_MS + 300)
        assert music.calls() == ["Pause"]
        w.release_talk("key")
        start = time.monotonic()
        qtbot.waitUntil(lambda: music.calls() == ["Pause", "Play"], timeout=5_000)
        assert time.monotonic() - start > RESUME_AFTER_MS / 1000 - 0.2  # not before the quiet pause
        assert paused.calls() == []  # it was not playing: neither paused nor started
    finally:
        w.model.files.unsaved_frames = 0
        w.close()
        music.close()
        paused.close()


def test_players_that_never_answer_cost_one_wait_and_a_malformed_one_is_skipped(session_bus):  # noqa: F811
    """40 players that never answer took 0.5 s each (20 s, at every talk and at quitting); one whose
    status was a number stopped every player's pause."""
    from jeepney.io.blocking import open_dbus_connection

    from app.audio import mpris

    silent = FakePlayer(session_bus, "silent", "Silent", names=40)
    odd, music = FakePlayer(session_bus, "odd", "Malformed"), FakePlayer(session_bus, "music", "Playing")
    try:
        with open_dbus_connection(session_bus) as connection:
            start = time.monotonic()
            playing = mpris.playing_players(connection)
            mpris.send_to_players(connection, playing + [f"org.mpris.MediaPlayer2.silent{i}" for i in range(40)],
                                  "Pause")
            took = time.monotonic() - start
        assert playing == ["org.mpris.MediaPlayer2.music"]
        assert took < 4 * mpris.TIMEOUT_S, took  # two questions, each waiting TIMEOUT_S at most
        assert music.calls() == ["Pause"] and odd.calls() == []
        assert silent.calls().count("Pause") == 40  # asked all the same, and not waited for one by one
    finally:
        for player in (silent, odd, music):
            player.close()
