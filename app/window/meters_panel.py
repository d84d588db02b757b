"""The side panel's meters: the health in plain words and the levels, and behind Advanced the
developer's view (per-stage latency, the compute history against the frame budget, the caches, echo
suppression, drops). Renders the conversation and health view-models' state."""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP
from PySide6.QtWidgets import QCheckBox, QFormLayout, QGroupBox, QLabel, QVBoxLayout, QWidget

from app.conversation.health import DELAY_TIP, MEMORY_TIP, SPEED_TIP, HealthModel
from app.conversation.thread_cpu import ThreadCpuClock
from app.conversation.view_model import ConversationModel
from app.engine_thread.frame_stats import FrameStats
from app.i18n import number_text, translate
from app.widgets.echo_meter import EchoMeter
from app.widgets.history_plot import HistoryPlot
from app.widgets.meters import LevelMeter
from app.widgets.plain_text import PlainLabel
from app.widgets.throttle import Throttle
from engine import FRAME_MS

STAGES = (  # (key, title, tip), translated where shown
    ("input_queue", QT_TRANSLATE_NOOP("MetersPanel", "Input queue"),
     QT_TRANSLATE_NOOP("MetersPanel", "Sound from the microphone waiting for the model.")),
    ("encode", QT_TRANSLATE_NOOP("MetersPanel", "Encode"),
     QT_TRANSLATE_NOOP("MetersPanel", "Turning the microphone's sound into the model's tokens.")),
    ("lm", QT_TRANSLATE_NOOP("MetersPanel", "LM"),
     QT_TRANSLATE_NOOP("MetersPanel", "The language model choosing what to say next.")),
    ("depth", QT_TRANSLATE_NOOP("MetersPanel", "Depth"),
     QT_TRANSLATE_NOOP("MetersPanel", "The model choosing the details of its next piece of sound.")),
    ("decode", QT_TRANSLATE_NOOP("MetersPanel", "Decode"),
     QT_TRANSLATE_NOOP("MetersPanel", "Turning the model's tokens into sound.")),
    ("output_queue", QT_TRANSLATE_NOOP("MetersPanel", "Output queue"),
     QT_TRANSLATE_NOOP("MetersPanel", "The assistant's sound waiting for the speaker.")))
PLOT_TOP_MS = 2 * FRAME_MS  # the compute history's scale: the budget in the middle, spikes run off the top


def tipped(form: QFormLayout, title: str, field: QWidget, tip: str) -> None:
    """A row whose title and figure both explain themselves on hover."""
    label = QLabel(title)
    for widget in (label, field):
        widget.setToolTip(tip)
    form.addRow(label, field)


class MetersPanel(QWidget):
    def __init__(self, model: ConversationModel, health: HealthModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.health = health
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)

        summary = QGroupBox(self.tr("Health"))
        summary_form = QFormLayout(summary)
        self.speed_label, self.delay_label, self.memory_label = PlainLabel(), PlainLabel(), PlainLabel()
        for title, label, tip in ((self.tr("Speed"), self.speed_label, SPEED_TIP),
                                  (self.tr("Delay"), self.delay_label, DELAY_TIP),
                                  (self.tr("Memory"), self.memory_label, MEMORY_TIP)):
            label.setWordWrap(True)
            tipped(summary_form, title, label, translate("HealthModel", tip))
        layout.addWidget(summary)

        levels = QGroupBox(self.tr("Levels"))
        levels_layout = QVBoxLayout(levels)
        self.mic_meter = LevelMeter(self.tr("Mic"))
        self.mic_meter.setToolTip(self.tr("How loud the microphone is."))
        self.heard_meter = LevelMeter(self.tr("Model hears"))
        self.heard_meter.setToolTip(self.tr("What the model hears: silent while you do not hold Talk (open mic off)."))
        self.output_meter = LevelMeter(self.tr("Assistant"))
        self.output_meter.setToolTip(self.tr("How loud the assistant speaks."))
        for meter in (self.mic_meter, self.heard_meter, self.output_meter):
            levels_layout.addWidget(meter)
        layout.addWidget(levels)

        self.advanced_box = QCheckBox(self.tr("Advanced"))
        self.advanced_box.setToolTip(self.tr("Show the figures for developers: time per stage, compute history, "
                                             "memory use, echo suppression, dropped sound."))
        layout.addWidget(self.advanced_box)
        self.advanced = self._build_advanced()
        layout.addWidget(self.advanced)
        self.advanced.setVisible(False)
        self.advanced_box.toggled.connect(self.advanced.setVisible)

        # The numbers are throttled (each rewrite re-lays out the panel: ~1 ms per frame on an AMD
        # EPYC); the meters and the plot still move every frame.
        self._newest: FrameStats | None = None
        self._readouts = Throttle(self, self._render_readouts)
        self._gui_clock, self._gui_cpu_ms = ThreadCpuClock(), None

        model.frame.connect(self.render_frame)
        model.devices.health_changed.connect(self.drops_label.setText)
        model.conversation_replaced.connect(self.history.clear)
        health.changed.connect(self._render_health)
        health.changed.connect(self._clear_if_reset)
        model.live_changed.connect(self._clear_levels_unless_live)
        self._render_health()

    def _build_advanced(self) -> QWidget:
        advanced = QWidget()
        layout = QVBoxLayout(advanced)
        layout.setContentsMargins(0, 0, 0, 0)
        processing = QGroupBox(self.tr("Microphone processing"))
        self.echo_meter = EchoMeter()  # before/after processing and the estimated echo suppression
        QVBoxLayout(processing).addWidget(self.echo_meter)
        self.echo_meter.setToolTip(self.tr("The microphone before and after echo cancellation, and how much of the "
                                           "assistant's voice it removes (ERLE: more dB is better)."))
        layout.addWidget(processing)

        latency = QGroupBox(self.tr("Time per frame (ms)"))
        form = QFormLayout(latency)
        self.stage_labels: dict[str, QLabel] = {}
        for key, title, tip in STAGES:
            self.stage_labels[key] = QLabel("-")
            tipped(form, self.tr(title), self.stage_labels[key], self.tr(tip))
        self.e2e_label = QLabel("-")
        self.rtf_label = QLabel("-")
        tipped(form, self.tr("Mic to speaker (est.)"), self.e2e_label, translate("HealthModel", DELAY_TIP))
        tipped(form, self.tr("Real-time factor"), self.rtf_label,
               self.tr("Compute time over sound time: below 1 keeps up with real time."))
        self.costs_label, self.gui_cpu_label = QLabel("-"), QLabel("-")
        self.costs_label.setWordWrap(True)
        tipped(form, self.tr("Engine thread"), self.costs_label,
               self.tr("The engine thread's time around a frame: its CPU time in the model's step, the step's time "
                       "waiting (for the Python lock, a core, torch's other threads), the crash journal and "
                       "transcript, the microphone's processing, the reply's output."))
        tipped(form, self.tr("GUI thread"), self.gui_cpu_label,
               self.tr("CPU time the window spent between two frames: it takes cores and the Python lock from the "
                       "engine."))
        layout.addWidget(latency)

        self.history = HistoryPlot(("compute",), "ms", reference=FRAME_MS,
                                   reference_label=self.tr("{ms} ms budget").format(ms=number_text(FRAME_MS)),
                                   top=PLOT_TOP_MS)
        self.history.setToolTip(self.tr("Compute time of each frame: below the {ms} ms line the computer "
                                        "keeps up.").format(ms=number_text(FRAME_MS)))
        layout.addWidget(self.history)

        engine = QGroupBox(self.tr("Engine"))
        engine_form = QFormLayout(engine)
        self.cache_label = QLabel("-")
        self.cache_label.setWordWrap(True)
        self.drops_label = PlainLabel(self.tr("0 frames dropped · 0 xruns"))
        self.drops_label.setWordWrap(True)
        tipped(engine_form, self.tr("KV cache"), self.cache_label,
               self.tr("The model's memory of the conversation: places used of its size, how often it filled up "
                       "and started over (wraps), and its size in memory."))
        tipped(engine_form, self.tr("Drops"), self.drops_label,
               self.tr("Frames dropped: input skipped because the model fell behind real time. Xruns: the sound "
                       "card's buffers ran over or under. Output gaps: silence played while the model had no reply "
                       "ready."))
        layout.addWidget(engine)
        return advanced

    def tab_chain(self) -> list[QWidget]:
        return [self.advanced_box]

    def _render_health(self) -> None:
        self.speed_label.setText(self.health.speed)
        self.delay_label.setText(self.health.delay)
        self.memory_label.setText(self.health.memory)

    def _clear_if_reset(self) -> None:
        """A new model: its meters start empty (the old model's numbers say nothing about it)."""
        if self.health.speed == "-":
            self.history.clear()
            self._newest = None
            self._gui_clock.reset()
            for label in (*self.stage_labels.values(), self.e2e_label, self.rtf_label, self.cache_label,
                          self.costs_label, self.gui_cpu_label):
                label.setText("-")
            self._clear_levels()

    def _clear_levels_unless_live(self, live: bool) -> None:
        if not live:
            self._clear_levels()

    def _clear_levels(self) -> None:
        """Paused, ended or a new model: the levels say silent, not the last frame's sound forever."""
        for meter in (self.mic_meter, self.heard_meter, self.output_meter):
            meter.clear()

    def render_frame(self, stats: FrameStats) -> None:
        self.mic_meter.set_level(stats.mic_db)
        self.heard_meter.set_level(stats.model_input_db)
        self.output_meter.set_level(stats.output_db)
        self.echo_meter.set_reading(stats.echo)
        self.history.append(stats.step_ms)
        self._gui_cpu_ms = self._gui_clock.lap()
        self._newest = stats
        self._readouts.request()

    def _render_readouts(self) -> None:
        stats = self._newest
        if stats is None:
            return
        t = stats.timings
        for key, label in self.stage_labels.items():
            label.setText(number_text(getattr(t, key), 1))
        self.e2e_label.setText(self.tr("{ms} ms").format(ms=number_text(stats.end_to_end_ms)))
        self.rtf_label.setText(number_text(stats.real_time_factor, 2))  # its tooltip says what 1 means
        c = stats.costs
        self.costs_label.setText(self.tr("CPU {cpu} · waiting {waiting} · journal {journal} · input {input} · "
                                         "output {output}").format(
            cpu=number_text(c.step_cpu, 1), waiting=number_text(c.step_waiting, 1), journal=number_text(c.recording, 1),
            input=number_text(c.input, 1), output=number_text(c.output, 1)))
        self.gui_cpu_label.setText("-" if self._gui_cpu_ms is None
                                   else self.tr("CPU {cpu}").format(cpu=number_text(self._gui_cpu_ms, 1)))
        self.cache_label.setText("\n".join(
            self.tr("{name}: {used}/{capacity} · %n wrap(s) · {size} MiB", "", c.wraps).format(
                name=c.name, used=number_text(c.used), capacity=number_text(c.capacity),
                size=number_text(c.nbytes / 2**20, 1)) for c in stats.caches
        ) or "-")
