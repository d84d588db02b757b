"""The user's voices by name, listed on a thread: listing reads each recording's header, and a
dialog that offers them (the Personas dialog) opens at once and gets them when they are listed."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from PySide6.QtCore import QCoreApplication, QObject, Signal

from engine import VoiceLibrary

log = logging.getLogger(__name__)


class _Relay(QObject):
    """Carries the names to the GUI thread. It belongs to the application, so the listing thread
    never holds the last reference to a QObject (deleted in that thread, it would abort Qt)."""

    listed = Signal(object)  # [voice name]


def list_own_voices(library: VoiceLibrary, deliver: Callable[[list[str]], None]) -> None:
    """Call ``deliver`` (on the GUI thread) with the names of the usable voices of ``library``, listed
    on a thread of its own. ``deliver``: a method of a QObject, so nothing arrives once it is gone."""
    relay = _Relay(QCoreApplication.instance())
    relay.listed.connect(deliver)
    relay.listed.connect(relay.deleteLater)

    def run() -> None:
        try:
            names = [voice.name for voice in library.voices() if not voice.problem]
        except OSError as e:  # the folder itself: no voices of the user's to offer
            log.warning("the voice library %s cannot be listed: %s", library.folder, e)
            names = []
        relay.listed.emit(names)

    threading.Thread(target=run, name="parley-voices", daemon=True).start()
