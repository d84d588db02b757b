"""A desktop-wide key chord ("Ctrl+Alt+Space"), as each desktop's API names it.

The person's choice is stored as Qt's portable text (what ``QKeySequenceEdit`` gives); each
backend asks for its own names: X keysym names (X11, and the portal's triggers, which use the same
XKB names) or Windows virtual-key codes.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence

from app.i18n import translate

DEFAULT_TALK_KEY = "Ctrl+Alt+Space"

# Qt's modifier names (portable text) and the order they are written in.
MODIFIERS = {Qt.ControlModifier: "ctrl", Qt.AltModifier: "alt", Qt.ShiftModifier: "shift", Qt.MetaModifier: "meta"}
# Keys whose X keysym name is not Qt's portable name.
KEYSYM_NAMES = {"Space": "space", "Ins": "Insert", "Del": "Delete", "PgUp": "Prior", "PgDown": "Next",
                "ScrollLock": "Scroll_Lock", "Esc": "Escape", "Backspace": "BackSpace", "Return": "Return",
                "Tab": "Tab", "Pause": "Pause", "Print": "Print", "Menu": "Menu", "Home": "Home", "End": "End",
                "Left": "Left", "Right": "Right", "Up": "Up", "Down": "Down"}
# Windows virtual-key codes of the same keys (letters and digits are their own upper-case codes).
VIRTUAL_KEYS = {"space": 0x20, "Insert": 0x2D, "Delete": 0x2E, "Prior": 0x21, "Next": 0x22, "Scroll_Lock": 0x91,
                "Escape": 0x1B, "BackSpace": 0x08, "Return": 0x0D, "Tab": 0x09, "Pause": 0x13, "Print": 0x2C,
                "Menu": 0x5D, "Home": 0x24, "End": 0x23, "Left": 0x25, "Right": 0x27, "Up": 0x26, "Down": 0x28}
F_KEYS = 24


class ChordError(ValueError):
    """A chord that cannot be a desktop-wide key; the message says why, for the person."""


@dataclass(frozen=True)
class Chord:
    modifiers: frozenset[str]  # of "ctrl", "alt", "shift", "meta" (the Super/Windows key)
    key: str  # the X keysym name: "space", "a", "F12", "Pause"

    @property
    def text(self) -> str:
        """The chord as Qt writes it for people (portable text)."""
        mods = [name.capitalize() for name in MODIFIERS.values() if name in self.modifiers]
        key = next((qt for qt, x in KEYSYM_NAMES.items() if x == self.key), self.key.upper())
        return "+".join([*mods, key])

    @property
    def virtual_key(self) -> int:
        """The Windows virtual-key code."""
        if len(self.key) == 1:
            return ord(self.key.upper())
        if self.key[0] == "F" and self.key[1:].isdigit():
            return 0x6F + int(self.key[1:])  # VK_F1 is 0x70
        return VIRTUAL_KEYS[self.key]

    @property
    def portal_trigger(self) -> str:
        """The XDG shortcut format the GlobalShortcuts portal takes as a preferred trigger."""
        names = {"ctrl": "CTRL", "alt": "ALT", "shift": "SHIFT", "meta": "LOGO"}
        return "+".join([*(names[m] for m in MODIFIERS.values() if m in self.modifiers), self.key])


def parse_chord(text: str) -> Chord:
    """The chord ``text`` names (Qt's portable text, "Ctrl+Alt+Space"), or ``ChordError``."""
    sequence = QKeySequence.fromString(text.strip(), QKeySequence.PortableText)
    if sequence.count() != 1:
        raise ChordError(f"“{text}” is not one key chord (for example {DEFAULT_TALK_KEY}).")
    combination = sequence[0]
    mods = combination.keyboardModifiers()
    modifiers = frozenset(name for flag, name in MODIFIERS.items() if mods & flag)
    name = QKeySequence(combination.key()).toString(QKeySequence.PortableText)
    if len(name) == 1 and name.isascii() and name.isalnum():
        key = name.lower()
    elif name[:1] == "F" and name[1:].isdigit() and 1 <= int(name[1:]) <= F_KEYS:
        key = name
    elif name in KEYSYM_NAMES:
        key = KEYSYM_NAMES[name]
    else:
        raise ChordError(translate("DesktopKey", "{key} cannot be a desktop-wide key: choose a letter, a digit, "
                                   "Space, a function key or Pause, with Ctrl, Alt or the Super key.").format(
            key=name or text))
    typing_key = len(key) == 1 or key in ("space", "Return", "Tab", "BackSpace")
    if typing_key and not modifiers - {"shift"}:
        raise ChordError((translate("DesktopKey", "{key} with only Shift would be taken from every other program's "
                                    "typing: add Ctrl, Alt or the Super key.") if modifiers
                          else translate("DesktopKey", "{key} alone would be taken from every other program's typing: "
                                         "add Ctrl, Alt or the Super key.")).format(key=name))
    return Chord(modifiers, key)
