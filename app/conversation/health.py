"""The conversation's health in plain words, and the too-slow warning: a widget-free view-model.

By default the window shows three figures a person can act on: whether the computer keeps up,
how long the delay from mouth to speaker is, and how much of the conversation the model still
remembers. The developer meters stay in the Advanced part of the side panel.

The too-slow warning follows ``RealTimeMonitor`` (the median over the last few seconds) through a
``Hysteresis``: it appears once the computer has been too slow for ``HOLD_SECONDS`` and goes once it
has kept up as long. A machine near the limit, whose median crosses it every second, would
otherwise make the warning come and go every second.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

from PySide6.QtCore import QObject, Signal

from app.engine_thread.frame_stats import FrameStats
from app.engine_thread.real_time import RealTimeMonitor
from engine import FRAME_MS

HOLD_SECONDS = 5.0
HOLD_FRAMES = math.ceil(HOLD_SECONDS * 1000.0 / FRAME_MS)
MODEL_MANAGER = "Model → Model manager"

SPEED_TIP = ("Whether this computer computes each 80 ms of the assistant's speech in less than 80 ms. "
             "When it does not, replies come late and break up.")
DELAY_TIP = "How long it takes from your mouth to the model and its answer to the speaker (estimated)."
MEMORY_TIP = ("How much more of the conversation the model can remember. When it is full, it forgets "
              "the oldest part and goes on.")


@dataclass(frozen=True)
class Hysteresis:
    """A shown/hidden state that changes only after the condition disagreed with it for ``hold``
    updates in a row."""

    shown: bool = False
    streak: int = 0  # updates in a row whose condition disagreed with ``shown``

    def update(self, condition: bool, hold: int) -> Hysteresis:
        if condition == self.shown:
            return Hysteresis(self.shown)
        if self.streak + 1 >= hold:
            return Hysteresis(condition)
        return Hysteresis(self.shown, self.streak + 1)


@functools.cache
def gpu_here() -> bool:
    """Whether a CUDA GPU could run a model here (checked once: it loads the driver library)."""
    from app.models.device_report import cuda_unavailable_reason

    return cuda_unavailable_reason() is None


def too_slow_text(lighter: tuple[str, ...], on_cpu: bool, gpu_available: bool) -> str:
    """What the person hears while the computer is too slow, and only what can help here: a
    ``lighter`` precision (``ModelInfo.lighter_precisions``), the GPU when there is one and the
    model runs on the CPU, fewer programs competing."""
    actions = []
    if lighter:
        actions.append(f"choose {' or '.join(lighter)} ({MODEL_MANAGER})")
    if on_cpu and gpu_available:
        actions.append(f"run it on the GPU ({MODEL_MANAGER})")
    actions.append("close other programs")
    advice = ", ".join(actions[:-1]) + (" or " if len(actions) > 1 else "") + actions[-1]
    return f"Too slow for real time: replies come late and break up. To help, {advice}."


def memory_text(stats: FrameStats) -> str:
    if not stats.caches:
        return "-"
    lm = stats.caches[0]  # the language model's context (engine.Session.cache_stats lists it first)
    if lm.wraps:
        return f"full, remembers the last {minutes(lm.capacity * FRAME_MS / 1000.0)}"
    return f"{minutes((lm.capacity - lm.used) * FRAME_MS / 1000.0)} left"


def minutes(seconds: float) -> str:
    whole = int(round(seconds))
    return f"{whole // 60}:{whole % 60:02d} min" if whole >= 60 else f"{whole} s"


class HealthModel(QObject):
    """``speed``, ``delay`` and ``memory`` (each "-" before the first frame) and ``warning`` ("" when
    the computer keeps up) with ``warning_tip``, from the conversation model's frames."""

    changed = Signal()  # speed, delay, memory
    warning_changed = Signal(str)

    def __init__(self, conversation, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.conversation = conversation
        self.monitor = RealTimeMonitor()
        self.slow = Hysteresis()
        self.speed = self.delay = self.memory = "-"
        self.warning = self.warning_tip = ""
        conversation.frame.connect(self.add_frame)
        conversation.model_changed.connect(self._model_changed)

    def add_frame(self, stats: FrameStats) -> None:
        self.monitor.add(stats.step_ms)
        self.slow = self.slow.update(self.monitor.too_slow, HOLD_FRAMES)
        figures = ("falling behind" if self.slow.shown else "keeping up", f"{stats.end_to_end_ms / 1000:.1f} s",
                   memory_text(stats))
        if figures != (self.speed, self.delay, self.memory):
            self.speed, self.delay, self.memory = figures
            self.changed.emit()
        self._set_warning()

    def _model_changed(self) -> None:
        """A model is loading: the figures of the one before say nothing about it."""
        if self.conversation.loading_model is None:
            return
        self.monitor.reset()
        self.slow = Hysteresis()
        self.speed = self.delay = self.memory = "-"
        self.changed.emit()
        self._set_warning()

    def _set_warning(self) -> None:
        info = self.conversation.model_info
        text = tip = ""
        if self.slow.shown and info is not None:
            text = too_slow_text(info.lighter_precisions, info.device == "cpu", gpu_here())
            tip = (f"This computer takes {self.monitor.median_ms:.0f} ms to compute each {FRAME_MS:.0f} ms "
                   f"of sound with {'the demo model' if info.is_demo else info.name}.")
        self.warning_tip = tip
        if text != self.warning:
            self.warning = text
            self.warning_changed.emit(text)
