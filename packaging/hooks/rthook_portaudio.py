"""PyInstaller runtime hook: let sounddevice find the PortAudio library bundled next to it on Linux.

sounddevice looks PortAudio up with ``ctypes.util.find_library("portaudio")``, which searches the
system (ldconfig, gcc, ld), never the bundle. Runs before the app's imports, so sounddevice binds
the patched function. Windows and macOS load PortAudio from ``_sounddevice_data``: nothing to do.
"""

import ctypes.util
import os
import sys


def _install() -> None:
    bundled = os.path.join(getattr(sys, "_MEIPASS", ""), "libportaudio.so.2")
    if not sys.platform.startswith("linux") or not os.path.isfile(bundled):
        return
    system_find_library = ctypes.util.find_library

    def find_library(name):
        return bundled if name == "portaudio" else system_find_library(name)

    ctypes.util.find_library = find_library


_install()
