"""A real X server for tests (Xvfb), another program's window on it, and keys typed with xdotool.

The window is made and focused through libX11 on a connection of the test's own: the app's talk
key must work while the focus is there, not in Parley (whose Qt window is on Qt's offscreen platform,
not on this server).
"""

from __future__ import annotations

import ctypes
import os
import shutil
import subprocess
from dataclasses import dataclass

from app.desktop_key.x11 import xlib

REVERT_TO_PARENT = 2


def tools_available() -> bool:
    return all(shutil.which(t) for t in ("Xvfb", "xdotool"))


@dataclass
class XServer:
    process: subprocess.Popen
    display: str  # ":N"

    def xdotool(self, *args: str) -> None:
        subprocess.run(["xdotool", *args], env={**os.environ, "DISPLAY": self.display}, check=True, timeout=15)

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)


def start_x_server() -> XServer:
    """Xvfb on a free display number (it writes the number it took to a pipe once it accepts clients).
    ``-noreset``: by default an X server resets when its last client leaves, and refuses connections
    meanwhile; a desktop's server never does while the session runs."""
    read, write = os.pipe()
    process = subprocess.Popen(["Xvfb", "-displayfd", str(write), "-nolisten", "tcp", "-noreset",
                                "-screen", "0", "800x600x24"],
                               pass_fds=(write,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write)
    with os.fdopen(read) as pipe:
        number = pipe.readline().strip()
    if not number:
        process.kill()
        raise RuntimeError("Xvfb did not start")
    return XServer(process, f":{number}")


class OtherProgramWindow:
    """A mapped, focused X window of another client (the program the person is typing into)."""

    def __init__(self, display: str) -> None:
        lib = xlib()
        for function, restype, argtypes in (
            ("XCreateSimpleWindow", ctypes.c_ulong, [ctypes.c_void_p, ctypes.c_ulong] + [ctypes.c_int] * 2
             + [ctypes.c_uint] * 3 + [ctypes.c_ulong] * 2),
            ("XMapWindow", ctypes.c_int, [ctypes.c_void_p, ctypes.c_ulong]),
            ("XSetInputFocus", ctypes.c_int, [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_int, ctypes.c_ulong]),
            ("XGetInputFocus", ctypes.c_int, [ctypes.c_void_p, ctypes.POINTER(ctypes.c_ulong),
                                              ctypes.POINTER(ctypes.c_int)]),
        ):
            getattr(lib, function).restype = restype
            getattr(lib, function).argtypes = argtypes
        self.lib = lib
        self.display = lib.XOpenDisplay(display.encode())
        root = lib.XDefaultRootWindow(self.display)
        self.window = lib.XCreateSimpleWindow(self.display, root, 10, 10, 300, 200, 1, 0, 0xFFFFFF)
        lib.XMapWindow(self.display, self.window)
        lib.XSync(self.display, 0)
        lib.XSetInputFocus(self.display, self.window, REVERT_TO_PARENT, 0)
        lib.XSync(self.display, 0)

    def has_focus(self) -> bool:
        focus, revert = ctypes.c_ulong(), ctypes.c_int()
        self.lib.XGetInputFocus(self.display, ctypes.byref(focus), ctypes.byref(revert))
        return focus.value == self.window

    def close(self) -> None:
        self.lib.XCloseDisplay(self.display)
