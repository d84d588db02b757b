"""ALSA's own error lines go to the log, not to the terminal.

libasound prints each underrun it recovers from ("ALSA lib pcm.c:...(snd_pcm_recover) underrun
occurred") on stderr. The app counts underruns itself (the health line's xruns), so the lines only
bury the app's own output; ``snd_lib_error_set_handler`` sends them to the debug log instead.
Linux only (ALSA); elsewhere, or without libasound, nothing is done.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
import sys

log = logging.getLogger(__name__)

# void handler(const char *file, int line, const char *function, int err, const char *fmt, ...):
# the variadic arguments are never read, so a fixed signature receives the rest.
_HANDLER_TYPE = ctypes.CFUNCTYPE(None, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p)
_installed = None  # the handler, kept alive for as long as libasound may call it


def _to_log(file: bytes | None, line: int, function: bytes | None, err: int, fmt: bytes | None) -> None:
    def text(b: bytes | None) -> str:
        return b.decode(errors="replace") if b else ""

    log.debug("ALSA %s:%d (%s) %s (error %d)", text(file), line, text(function), text(fmt), err)


def alsa_messages_to_log() -> bool:
    """Install the handler once; True when ALSA's messages now go to the log."""
    global _installed
    if _installed is not None:
        return True
    if not sys.platform.startswith("linux"):
        return False
    name = ctypes.util.find_library("asound")
    if name is None:
        return False
    try:
        library = ctypes.CDLL(name)
        handler = _HANDLER_TYPE(_to_log)
        library.snd_lib_error_set_handler(handler)
    except (OSError, AttributeError):
        log.debug("could not route ALSA's messages to the log", exc_info=True)
        return False
    _installed = handler
    return True
