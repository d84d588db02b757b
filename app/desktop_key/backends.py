"""Which key grab this desktop gets. Each backend's module is imported only where it runs, so every
module here imports on every OS."""

from __future__ import annotations

import os
import sys

from PySide6.QtCore import QT_TRANSLATE_NOOP, QObject
from PySide6.QtGui import QGuiApplication

from app.desktop_key.grab import KeyGrab, NoGrab
from app.i18n import translate

# Why there is no desktop-wide key (translated where said: desktop_grab).
MACOS_WHY = QT_TRANSLATE_NOOP("DesktopKey", "macOS gives Parley no desktop-wide key yet.")
NO_DESKTOP_WHY = QT_TRANSLATE_NOOP("DesktopKey",
                                   "No X11 display or Wayland session was found, so no desktop-wide key can be set.")


def desktop_session() -> str:
    """"windows", "macos", "wayland", "x11" or "" (none found), from Qt's platform and the session's
    variables. A Wayland session is "wayland" even where Parley runs through XWayland: an X grab
    there only sees keys typed into X programs."""
    if sys.platform == "win32":
        return "windows"
    if sys.platform == "darwin":
        return "macos"
    platform = QGuiApplication.platformName()
    if platform == "wayland" or os.environ.get("WAYLAND_DISPLAY") or os.environ.get("XDG_SESSION_TYPE") == "wayland":
        return "wayland"
    return "x11" if platform == "xcb" or os.environ.get("DISPLAY") else ""


def desktop_grab(parent: QObject | None = None) -> KeyGrab:
    session = desktop_session()
    if session == "windows":
        from app.desktop_key.windows import WindowsGrab

        return WindowsGrab(parent)
    if session == "wayland":
        from app.desktop_key.portal import PortalGrab

        return PortalGrab(parent)
    if session == "x11":
        from app.desktop_key.x11 import X11Grab

        return X11Grab(parent=parent)
    return NoGrab(translate("DesktopKey", MACOS_WHY if session == "macos" else NO_DESKTOP_WHY), parent)
