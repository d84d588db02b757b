"""The talk key on X11: a passive key grab on the root window (``XGrabKey``), through libX11 with
ctypes, on a connection of its own whose socket a ``QSocketNotifier`` watches on the GUI thread.

The grab is made once per combination of the modifiers people leave on (Caps Lock, Num Lock), so the
key works whatever their state. A chord another program grabbed already fails with ``BadAccess``,
which arrives asynchronously: an error handler is installed around the grab's ``XSync`` only, and
the previous one (Qt's, on the xcb platform) put back. Detectable auto-repeat makes a held key send
one release, when it is let go. Works under XWayland only for X programs' focus: on a Wayland
session the portal is the way (``app.desktop_key.portal``).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import itertools

from PySide6.QtCore import QObject

from app.desktop_key.chord import Chord
from app.desktop_key.grab import KeyGrab

KEY_PRESS, KEY_RELEASE = 2, 3
GRAB_MODE_ASYNC = 1
BAD_ACCESS = 10
X_MASKS = {"shift": 1 << 0, "ctrl": 1 << 2, "alt": 1 << 3, "meta": 1 << 6}  # Mod1 = Alt, Mod4 = Super
LOCK_MASKS = (1 << 1, 1 << 4)  # Caps Lock, Num Lock (Mod2): grabbed with and without each


class XKeyEvent(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("serial", ctypes.c_ulong), ("send_event", ctypes.c_int),
                ("display", ctypes.c_void_p), ("window", ctypes.c_ulong), ("root", ctypes.c_ulong),
                ("subwindow", ctypes.c_ulong), ("time", ctypes.c_ulong), ("x", ctypes.c_int), ("y", ctypes.c_int),
                ("x_root", ctypes.c_int), ("y_root", ctypes.c_int), ("state", ctypes.c_uint),
                ("keycode", ctypes.c_uint), ("same_screen", ctypes.c_int)]


class XEvent(ctypes.Union):
    _fields_ = [("type", ctypes.c_int), ("xkey", XKeyEvent), ("pad", ctypes.c_long * 24)]


class XErrorEvent(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("display", ctypes.c_void_p), ("resourceid", ctypes.c_ulong),
                ("serial", ctypes.c_ulong), ("error_code", ctypes.c_ubyte), ("request_code", ctypes.c_ubyte),
                ("minor_code", ctypes.c_ubyte)]


ERROR_HANDLER = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(XErrorEvent))
_xlib = None


def xlib() -> ctypes.CDLL | None:
    """libX11 with the signatures used here, or None where there is none (loaded on first use)."""
    global _xlib
    if _xlib is None:
        name = ctypes.util.find_library("X11")
        if name is None:
            return None
        lib = ctypes.CDLL(name)
        display, window = ctypes.c_void_p, ctypes.c_ulong
        for function, restype, argtypes in (
            ("XOpenDisplay", display, [ctypes.c_char_p]),
            ("XCloseDisplay", ctypes.c_int, [display]),
            ("XDefaultRootWindow", window, [display]),
            ("XConnectionNumber", ctypes.c_int, [display]),
            ("XStringToKeysym", ctypes.c_ulong, [ctypes.c_char_p]),
            ("XKeysymToKeycode", ctypes.c_ubyte, [display, ctypes.c_ulong]),
            ("XGrabKey", ctypes.c_int, [display, ctypes.c_int, ctypes.c_uint, window, ctypes.c_int, ctypes.c_int,
                                        ctypes.c_int]),
            ("XUngrabKey", ctypes.c_int, [display, ctypes.c_int, ctypes.c_uint, window]),
            ("XSync", ctypes.c_int, [display, ctypes.c_int]),
            ("XFlush", ctypes.c_int, [display]),
            ("XPending", ctypes.c_int, [display]),
            ("XNextEvent", ctypes.c_int, [display, ctypes.POINTER(XEvent)]),
            ("XSetErrorHandler", ctypes.c_void_p, [ctypes.c_void_p]),
            ("XkbSetDetectableAutoRepeat", ctypes.c_int, [display, ctypes.c_int, ctypes.c_void_p]),
        ):
            getattr(lib, function).restype = restype
            getattr(lib, function).argtypes = argtypes
        _xlib = lib
    return _xlib


def modifier_masks(chord: Chord) -> list[int]:
    """The chord's X modifier mask with every combination of the lock keys."""
    base = 0
    for name in chord.modifiers:
        base |= X_MASKS[name]
    return [base | sum(locks) for n in range(len(LOCK_MASKS) + 1) for locks in itertools.combinations(LOCK_MASKS, n)]


class X11Grab(KeyGrab):
    def __init__(self, display_name: str | None = None, parent: QObject | None = None) -> None:
        """``display_name``: None is ``$DISPLAY``."""
        super().__init__(parent)
        self.display_name = display_name
        self.display = None
        self.keycode = 0
        self.masks: list[int] = []

    def grab(self, chord: Chord) -> None:
        self.ungrab()
        lib = xlib()
        if lib is None:
            self.refused.emit(self.tr("The X11 library (libX11) is not installed, so no desktop-wide key can be set."))
            return
        self.display = lib.XOpenDisplay(self.display_name.encode() if self.display_name else None)
        if not self.display:
            self.display = None
            self.refused.emit(self.tr("Parley could not connect to the X display for a desktop-wide key."))
            return
        keysym = lib.XStringToKeysym(chord.key.encode())
        keycode = lib.XKeysymToKeycode(self.display, keysym) if keysym else 0
        if not keycode:
            self.ungrab()
            self.refused.emit(self.tr("This keyboard has no {key} key.").format(key=chord.text))
            return
        root = lib.XDefaultRootWindow(self.display)
        errors: list[int] = []

        def on_error(_display, event) -> int:
            errors.append(event.contents.error_code)
            return 0

        handler = ERROR_HANDLER(on_error)
        previous = lib.XSetErrorHandler(ctypes.cast(handler, ctypes.c_void_p))
        try:
            masks = modifier_masks(chord)
            for mask in masks:
                lib.XGrabKey(self.display, keycode, mask, root, 0, GRAB_MODE_ASYNC, GRAB_MODE_ASYNC)
            lib.XSync(self.display, 0)  # the grabs' errors arrive now, in this handler
        finally:
            lib.XSetErrorHandler(previous)
        self.keycode, self.masks = keycode, masks
        if errors:
            self.ungrab()  # the combinations that did succeed
            why = (self.tr("another program already uses it") if BAD_ACCESS in errors
                   else self.tr("X error {code}").format(code=errors[0]))
            self.refused.emit(self.tr("The desktop refused {key} as Parley's talk key: {why}.").format(key=chord.text,
                                                                                                       why=why))
            return
        lib.XkbSetDetectableAutoRepeat(self.display, 1, None)
        self._watch(lib.XConnectionNumber(self.display), self._read_events)
        self.grabbed.emit()
        self._read_events()  # events Xlib read into its queue during XSync

    def _read_events(self, *_args) -> None:
        lib = xlib()
        event = XEvent()
        while self.display is not None and lib.XPending(self.display):
            lib.XNextEvent(self.display, ctypes.byref(event))
            if event.xkey.keycode != self.keycode:
                continue
            if event.type in (KEY_PRESS, KEY_RELEASE):
                self._chord_went(event.type == KEY_PRESS)

    def _disconnect(self) -> None:
        if self.display is not None:
            lib = xlib()
            root = lib.XDefaultRootWindow(self.display)
            for mask in self.masks:
                lib.XUngrabKey(self.display, self.keycode, mask, root)
            lib.XCloseDisplay(self.display)  # also drops the grabs; the ungrab says so explicitly
            self.display = None
        self.masks = []
