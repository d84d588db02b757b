"""The talk key on Windows: ``RegisterHotKey`` (user32, through ctypes) for the calling thread, whose
``WM_HOTKEY`` messages Qt's event dispatcher hands to a native event filter. Windows reports the
press only, so while the key is held ``GetAsyncKeyState`` is read every few milliseconds for its
release. Written against the Win32 documentation; not run on Windows by this project's tests.
"""

from __future__ import annotations

import ctypes

from PySide6.QtCore import QAbstractNativeEventFilter, QCoreApplication, QObject, QTimer

from app.desktop_key.chord import Chord
from app.desktop_key.grab import KeyGrab

WM_HOTKEY = 0x0312
MOD_FLAGS = {"alt": 0x1, "ctrl": 0x2, "shift": 0x4, "meta": 0x8}
MOD_NOREPEAT = 0x4000
ERROR_HOTKEY_ALREADY_REGISTERED = 1409
HOTKEY_ID = 0x5041  # any id in 0..0xBFFF, unique within this program
RELEASE_POLL_MS = 20


class MSG(ctypes.Structure):
    _fields_ = [("hwnd", ctypes.c_void_p), ("message", ctypes.c_uint), ("wParam", ctypes.c_size_t),
                ("lParam", ctypes.c_ssize_t), ("time", ctypes.c_ulong), ("pt_x", ctypes.c_long),
                ("pt_y", ctypes.c_long)]


class HotKeyFilter(QAbstractNativeEventFilter):
    def __init__(self, on_hotkey) -> None:
        super().__init__()
        self.on_hotkey = on_hotkey

    def nativeEventFilter(self, event_type, message):
        if bytes(event_type) == b"windows_generic_MSG":
            msg = MSG.from_address(int(message))
            if msg.message == WM_HOTKEY and msg.wParam == HOTKEY_ID:
                self.on_hotkey()
                return True, 0
        return False, 0


class WindowsGrab(KeyGrab):
    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.user32 = ctypes.WinDLL("user32", use_last_error=True)
        self.filter: HotKeyFilter | None = None
        self.virtual_key = 0
        self.poll = QTimer(self)
        self.poll.setInterval(RELEASE_POLL_MS)
        self.poll.timeout.connect(self._check_release)

    def grab(self, chord: Chord) -> None:
        self.ungrab()
        mods = MOD_NOREPEAT
        for name in chord.modifiers:
            mods |= MOD_FLAGS[name]
        self.virtual_key = chord.virtual_key
        if not self.user32.RegisterHotKey(None, HOTKEY_ID, mods, self.virtual_key):
            code = ctypes.get_last_error()
            why = (self.tr("another program already uses it") if code == ERROR_HOTKEY_ALREADY_REGISTERED
                   else self.tr("Windows error {code}").format(code=code))
            self.refused.emit(self.tr("Windows refused {key} as Parley's talk key: {why}.").format(key=chord.text,
                                                                                                   why=why))
            return
        self.filter = HotKeyFilter(self._hotkey)
        QCoreApplication.instance().installNativeEventFilter(self.filter)
        self.grabbed.emit()

    def _hotkey(self) -> None:
        if not self.poll.isActive():
            self.pressed.emit()
            self.poll.start()

    def _check_release(self) -> None:
        if not self.user32.GetAsyncKeyState(self.virtual_key) & 0x8000:
            self.poll.stop()
            self.released.emit()

    def ungrab(self) -> None:
        if self.filter is not None:
            QCoreApplication.instance().removeNativeEventFilter(self.filter)
            self.user32.UnregisterHotKey(None, HOTKEY_ID)
            self.filter = None
        if self.poll.isActive():
            self.poll.stop()
            self.released.emit()
