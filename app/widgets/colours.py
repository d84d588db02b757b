"""Every colour the app sets on text or behind text, once, for a light and a dark palette.

A colour that reads on a light window (an amber warning, a red note) is unreadable on a dark one,
so each is chosen from the ``Scheme`` that matches the palette in use (``scheme_for``). Every text
and background pair here reaches WCAG AA (a contrast of 4.5:1; tests/test_app_layout.py computes
it from these colours with ``contrast``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from PySide6.QtGui import QColor, QPalette

AA_CONTRAST = 4.5  # WCAG 2 level AA for normal text
TICK = Path(__file__).resolve().parent / "tick.svg"  # a ticked box's mark, white on the highlight
BUBBLE_ALPHA = 40  # a turn's bubble: its speaker's colour at this alpha over the view's base


@dataclass(frozen=True)
class Scheme:
    """Colours as "#rrggbb". Text colours are read on the palette's window or base colour unless
    their name says what they sit on."""

    warning: str  # warnings and notes that need attention (the speed warning, "too quiet")
    error: str  # a lasting problem (crash protection stopped)
    muted: str  # secondary text (a row's details, the empty-state hint, a turn's "overlaps")
    banner: str  # the error banner's background...
    banner_text: str  # ...and its text
    pill_text: str  # the status pill's text, on each of the status colours
    status: tuple[tuple[str, str], ...]  # (Status value, pill background)
    you: str  # the user's turn header (on its bubble), play button and level strip
    assistant: str  # the assistant's turn header (on its bubble)
    meter_bars: tuple[str, str, str]  # a level meter's bar: quiet, loud, clipping (palette text on them)
    checkbox_edge: str  # the outline of an unticked box (a control edge: 3:1 against the window)


LIGHT = Scheme(
    warning="#8a5300", error="#b3261e", muted="#5b6068",
    banner="#5c1f1f", banner_text="#ffecec", pill_text="#ffffff",
    status=(("idle", "#5f646b"), ("listening", "#1e7042"), ("thinking", "#8a5a00"), ("speaking", "#1f62b0")),
    you="#1b6e3f", assistant="#1d5fa8",
    meter_bars=("#8fd3a6", "#f0cc70", "#f2a39f"),
    checkbox_edge="#6b7078",
)

DARK = Scheme(
    warning="#f2b44a", error="#ff8a80", muted="#a9aeb5",
    banner="#5c1f1f", banner_text="#ffecec", pill_text="#ffffff",
    status=(("idle", "#5a5f66"), ("listening", "#1e7042"), ("thinking", "#7d5200"), ("speaking", "#1f62b0")),
    you="#6fd39a", assistant="#7cb4f2",
    meter_bars=("#1f6b3b", "#7a5a0e", "#8e2622"),
    checkbox_edge="#9aa0a8",
)


def is_dark(palette: QPalette) -> bool:
    return palette.color(QPalette.Window).lightness() < 128


def scheme_for(palette: QPalette) -> Scheme:
    return DARK if is_dark(palette) else LIGHT


def relative_luminance(colour: QColor) -> float:
    """WCAG 2's relative luminance of an opaque colour."""
    def linear(channel: int) -> float:
        c = channel / 255.0
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    return 0.2126 * linear(colour.red()) + 0.7152 * linear(colour.green()) + 0.0722 * linear(colour.blue())


def contrast(a: QColor | str, b: QColor | str) -> float:
    """WCAG 2's contrast ratio of two opaque colours, 1 to 21."""
    la, lb = sorted((relative_luminance(QColor(a)), relative_luminance(QColor(b))), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def over(colour: QColor | str, alpha: int, background: QColor | str) -> QColor:
    """``colour`` at ``alpha`` (0-255) painted over an opaque ``background``."""
    top, bottom, a = QColor(colour), QColor(background), alpha / 255.0
    return QColor(*(round(a * t + (1 - a) * b) for t, b in zip(top.getRgb()[:3], bottom.getRgb()[:3], strict=True)))


def status_colour(scheme: Scheme, status_value: str) -> str:
    """The pill's background; a status without a colour of its own (nothing runs: loading, ready,
    paused, waiting for you) shows idle's."""
    colours = dict(scheme.status)
    return colours.get(status_value, colours["idle"])


def checkbox_style(scheme: Scheme) -> str:
    """A check box whose box shows on the window: an edge in ``checkbox_edge``, filled and ticked when
    ticked (Fusion draws an unticked box in a dark palette nearly in the window's own colour), its
    edge in the text's colour while it has the focus (with the style's focus frame around its text)."""
    return (f"QCheckBox::indicator {{ width: 13px; height: 13px; border: 2px solid {scheme.checkbox_edge};"
            " border-radius: 3px; background: palette(base); }"
            " QCheckBox::indicator:checked { background: palette(highlight); border-color: palette(highlight);"
            f' image: url("{TICK.as_posix()}"); }}'
            " QCheckBox::indicator:focus { border-color: palette(text); }")


def problem_style(palette: QPalette) -> str:
    """A label that says what went wrong (a refused recording, a persona that cannot be saved)."""
    return f"color: {scheme_for(palette).error}; font-weight: bold;"


def dark_palette() -> QPalette:
    """A dark palette (the screenshots' and the tests'): the colours of ``DARK`` are read on it."""
    palette = QPalette()
    colours = {
        QPalette.Window: QColor(37, 39, 43), QPalette.WindowText: QColor(225, 228, 232),
        QPalette.Base: QColor(26, 28, 31), QPalette.AlternateBase: QColor(44, 47, 52),
        QPalette.Text: QColor(225, 228, 232), QPalette.Button: QColor(50, 53, 58),
        QPalette.ButtonText: QColor(225, 228, 232), QPalette.Highlight: QColor(31, 98, 176),
        QPalette.HighlightedText: QColor(255, 255, 255), QPalette.ToolTipBase: QColor(50, 53, 58),
        QPalette.ToolTipText: QColor(225, 228, 232), QPalette.Mid: QColor(80, 84, 90),
        QPalette.PlaceholderText: QColor(140, 145, 150), QPalette.Link: QColor(110, 170, 255),
    }
    for role, colour in colours.items():
        palette.setColor(role, colour)
    for role in (QPalette.WindowText, QPalette.Text, QPalette.ButtonText):  # disabled controls look disabled
        palette.setColor(QPalette.Disabled, role, QColor(115, 119, 125))
    return palette
