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

from PySide6.QtCore import QT_TRANSLATE_NOOP, QObject, Signal

from app.conversation.chat_latency import answers_latency_text
from app.engine_thread.frame_stats import FrameStats
from app.engine_thread.real_time import RealTimeMonitor
from app.i18n import duration_text, number_text, translate
from engine import FRAME_MS

HOLD_SECONDS = 5.0
HOLD_FRAMES = math.ceil(HOLD_SECONDS * 1000.0 / FRAME_MS)
MODEL_MANAGER = QT_TRANSLATE_NOOP("HealthModel", "Model → Model manager")  # translated where shown

# The health rows' tips, translated where shown.
SPEED_TIP = QT_TRANSLATE_NOOP("HealthModel", "Whether this computer computes each 80 ms of the assistant's speech "
                              "in less than 80 ms. When it does not, replies come late and break up.")
DELAY_TIP = QT_TRANSLATE_NOOP("HealthModel", "How long it takes from your mouth to the model and its answer to the "
                              "speaker (estimated).")
MEMORY_TIP = QT_TRANSLATE_NOOP("HealthModel", "How much more of the conversation the model can remember. When it is "
                               "full, it forgets the oldest part and goes on.")


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
    gpu = on_cpu and gpu_available
    if lighter and gpu:
        text = translate("HealthModel", "Too slow for real time: replies come late and break up. To help, choose "
                         "{precision} ({manager}), run it on the GPU ({manager}) or close other programs.")
    elif lighter:
        text = translate("HealthModel", "Too slow for real time: replies come late and break up. To help, choose "
                         "{precision} ({manager}) or close other programs.")
    elif gpu:
        text = translate("HealthModel", "Too slow for real time: replies come late and break up. To help, run it "
                         "on the GPU ({manager}) or close other programs.")
    else:
        text = translate("HealthModel", "Too slow for real time: replies come late and break up. To help, close "
                         "other programs.")
    precision = lighter[0] if lighter else ""
    for other in lighter[1:]:
        precision = translate("HealthModel", "{first} or {second}").format(first=precision, second=other)
    return text.format(precision=precision, manager=translate("HealthModel", MODEL_MANAGER))


def memory_text(stats: FrameStats) -> str:
    if not stats.caches:
        return "-"
    lm = stats.caches[0]  # the language model's context (engine.Session.cache_stats lists it first)
    if lm.wraps:
        return translate("HealthModel", "full, remembers the last {duration}").format(
            duration=duration_text(lm.capacity * FRAME_MS / 1000.0))
    return translate("HealthModel", "{duration} left").format(
        duration=duration_text((lm.capacity - lm.used) * FRAME_MS / 1000.0))


class HealthModel(QObject):
    """``speed``, ``delay`` and ``memory`` (each "-" before the first frame) and ``warning`` ("" when
    the computer keeps up) with ``warning_tip``, from the conversation model's frames; with your
    language model, ``delay`` from its answers."""

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
        conversation.models.model_changed.connect(self._model_changed)
        conversation.conversation_replaced.connect(self._clear)  # a new one has used none of the memory
        conversation.chat.answered.connect(self.add_answer)
        self.answers: list = []  # with your language model: each answer's app.chat.cascade.TurnTimes

    def add_frame(self, stats: FrameStats) -> None:
        self.monitor.add(stats.step_ms)
        self.slow = self.slow.update(self.monitor.too_slow, HOLD_FRAMES)
        figures = (self.tr("falling behind") if self.slow.shown else self.tr("keeping up"),
                   self.tr("{seconds} s").format(seconds=number_text(stats.end_to_end_ms / 1000, 1)),
                   memory_text(stats))
        if figures != (self.speed, self.delay, self.memory):
            self.speed, self.delay, self.memory = figures
            self.changed.emit()
        self._set_warning()

    def add_answer(self, times) -> None:
        """With your language model the delay is end of speech → the voice, split, over its answers."""
        self.answers.append(times)
        delay = answers_latency_text(self.answers)
        if delay != self.delay:
            self.delay = delay
            self.changed.emit()

    def _model_changed(self) -> None:
        """A model is loading: the figures of the one before say nothing about it."""
        if self.conversation.models.loading_model is not None:
            self._clear()

    def _clear(self) -> None:
        self.monitor.reset()
        self.answers = []
        self.slow = Hysteresis()
        self.speed = self.delay = self.memory = "-"
        self.changed.emit()
        self._set_warning()

    def _set_warning(self) -> None:
        info = self.conversation.models.model_info
        text = tip = ""
        if self.slow.shown and info is not None:
            text = too_slow_text(info.lighter_precisions, info.device == "cpu", gpu_here())
            tip = (self.tr("This computer takes {ms} ms to compute each {frame} ms of sound with the demo model.")
                   if info.is_demo else self.tr("This computer takes {ms} ms to compute each {frame} ms of sound "
                                                "with {model}.")).format(
                ms=number_text(self.monitor.median_ms), frame=number_text(FRAME_MS), model=info.name)
        self.warning_tip = tip
        if text != self.warning:
            self.warning = text
            self.warning_changed.emit(text)
