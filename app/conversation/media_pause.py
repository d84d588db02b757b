"""Other audio paused while you talk (optional, off by default; Linux): media players that are
playing are paused through MPRIS while push-to-talk is held or the assistant speaks, and played
again once neither has happened for ``RESUME_AFTER_MS`` (the status flickers between listening,
thinking and speaking within a reply). Only the players Parley paused are played again.

Widget-free; the D-Bus calls run on one worker thread of its own, in order, so that a player that
does not answer never holds up the window.
"""

from __future__ import annotations

import logging
import sys
from concurrent.futures import ThreadPoolExecutor

from PySide6.QtCore import QT_TRANSLATE_NOOP, QObject, QTimer

from app.conversation.status import Status

log = logging.getLogger(__name__)

RESUME_AFTER_MS = 1500
AVAILABLE = sys.platform.startswith("linux")
UNAVAILABLE_WHY = QT_TRANSLATE_NOOP("MediaPause",  # translated where shown
                                    "Pausing other players uses MPRIS, which only Linux desktops have.")


class MediaPause(QObject):
    def __init__(self, conversation, bus: str = "SESSION", parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.conversation = conversation
        self.bus = bus
        self.paused_by_us: list[str] = []  # touched on the worker thread only
        self.pausing = False  # whether players are (being) paused now (GUI thread)
        self.calls = ThreadPoolExecutor(max_workers=1, thread_name_prefix="parley-mpris")
        self.resume_timer = QTimer(self)
        self.resume_timer.setSingleShot(True)
        self.resume_timer.setInterval(RESUME_AFTER_MS)
        self.resume_timer.timeout.connect(self._resume)
        conversation.status_changed.connect(self.update)
        conversation.talk_changed.connect(self.update)
        conversation.preferences.changed.connect(self.update)

    def update(self, *_args) -> None:
        wanted = AVAILABLE and self.conversation.preferences.settings.pause_media
        talking = bool(self.conversation.talk.held_by) or self.conversation.status is Status.SPEAKING
        if wanted and talking:
            self.resume_timer.stop()
            if not self.pausing:
                self.pausing = True
                self.calls.submit(self._on_bus, "Pause")
        elif self.pausing and not wanted:  # turned off: the players back at once
            self.resume_timer.stop()
            self._resume()
        elif self.pausing and not self.resume_timer.isActive():
            self.resume_timer.start()

    def _resume(self) -> None:
        self.pausing = False
        self.calls.submit(self._on_bus, "Play")

    def _on_bus(self, method: str) -> None:
        from app.audio import mpris

        try:
            from jeepney.io.blocking import open_dbus_connection

            with open_dbus_connection(self.bus) as connection:
                if method == "Pause":
                    self.paused_by_us = mpris.playing_players(connection)
                    mpris.send_to_players(connection, self.paused_by_us, "Pause")
                else:
                    names, self.paused_by_us = self.paused_by_us, []
                    mpris.send_to_players(connection, names, "Play")
        except Exception:  # noqa: BLE001 - no bus, no jeepney, a player gone: the conversation goes on
            log.warning("could not %s the media players", method.lower(), exc_info=True)

    def stop(self) -> None:
        """Play what was paused, and end the worker thread (the window closing)."""
        self.resume_timer.stop()
        if self.pausing:
            self._resume()
        self.calls.shutdown(wait=True, cancel_futures=False)
