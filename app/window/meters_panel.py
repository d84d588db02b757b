"""The side panel's meters: the health in plain words and the levels, and behind Advanced the
developer's view (per-stage latency, the compute history against the frame budget, the caches, echo
suppression, drops). Renders the conversation and health view-models' state."""

from __future__ import annotations

from PySide6.QtWidgets import QCheckBox, QFormLayout, QGroupBox, QLabel, QVBoxLayout, QWidget

from app.conversation.health import DELAY_TIP, MEMORY_TIP, SPEED_TIP, HealthModel
from app.conversation.thread_cpu import ThreadCpuClock
from app.conversation.view_model import ConversationModel
from app.engine_thread.frame_stats import FrameStats
from app.widgets.echo_meter import EchoMeter
from app.widgets.history_plot import HistoryPlot
from app.widgets.meters import LevelMeter
from app.widgets.throttle import Throttle
from engine import FRAME_MS

STAGES = (("input_queue", "Input queue", "Sound from the microphone waiting for the model."),
          ("encode", "Encode", "Turning the microphone's sound into the model's tokens."),
          ("lm", "LM", "The language model choosing what to say next."),
          ("depth", "Depth", "The model choosing the details of its next piece of sound."),
          ("decode", "Decode", "Turning the model's tokens into sound."),
          ("output_queue", "Output queue", "The assistant's sound waiting for the speaker."))
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

        summary = QGroupBox("Health")
        summary_form = QFormLayout(summary)
        self.speed_label, self.delay_label, self.memory_label = QLabel(), QLabel(), QLabel()
        for title, label, tip in (("Speed", self.speed_label, SPEED_TIP), ("Delay", self.delay_label, DELAY_TIP),
                                  ("Memory", self.memory_label, MEMORY_TIP)):
            label.setWordWrap(True)
            tipped(summary_form, title, label, tip)
        layout.addWidget(summary)

        levels = QGroupBox("Levels")
        levels_layout = QVBoxLayout(levels)
        self.mic_meter = LevelMeter("Mic")
        self.mic_meter.setToolTip("How loud the microphone is.")
        self.heard_meter = LevelMeter("Model hears")
        self.heard_meter.setToolTip("What the model hears: silent while you do not hold Talk (open mic off).")
        self.output_meter = LevelMeter("Assistant")
        self.output_meter.setToolTip("How loud the assistant speaks.")
        for meter in (self.mic_meter, self.heard_meter, self.output_meter):
            levels_layout.addWidget(meter)
        layout.addWidget(levels)

        self.advanced_box = QCheckBox("Advanced")
        self.advanced_box.setToolTip("Show the figures for developers: time per stage, compute history, "
                                     "memory use, echo suppression, dropped sound.")
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
        processing = QGroupBox("Microphone processing")
        self.echo_meter = EchoMeter()  # before/after processing and the estimated echo suppression
        QVBoxLayout(processing).addWidget(self.echo_meter)
        self.echo_meter.setToolTip("The microphone before and after echo cancellation, and how much of the "
                                   "assistant's voice it removes (ERLE: more dB is better).")
        layout.addWidget(processing)

        latency = QGroupBox("Time per frame (ms)")
        form = QFormLayout(latency)
        self.stage_labels: dict[str, QLabel] = {}
        for key, title, tip in STAGES:
            self.stage_labels[key] = QLabel("-")
            tipped(form, title, self.stage_labels[key], tip)
        self.e2e_label = QLabel("-")
        self.rtf_label = QLabel("-")
        tipped(form, "Mic to speaker (est.)", self.e2e_label, DELAY_TIP)
        tipped(form, "Real-time factor", self.rtf_label,
               "Compute time over sound time: below 1 keeps up with real time.")
        self.costs_label, self.gui_cpu_label = QLabel("-"), QLabel("-")
        self.costs_label.setWordWrap(True)
        tipped(form, "Engine thread", self.costs_label,
               "The engine thread's time around a frame: its CPU time in the model's step, the step's time "
               "waiting (for the Python lock, a core, torch's other threads), the crash journal and "
               "transcript, the microphone's processing, the reply's output.")
        tipped(form, "GUI thread", self.gui_cpu_label,
               "CPU time the window spent between two frames: it takes cores and the Python lock from the engine.")
        layout.addWidget(latency)

        self.history = HistoryPlot(("compute",), "ms", reference=FRAME_MS,
                                   reference_label=f"{FRAME_MS:.0f} ms budget", top=PLOT_TOP_MS)
        self.history.setToolTip(f"Compute time of each frame: below the {FRAME_MS:.0f} ms line the computer "
                                "keeps up.")
        layout.addWidget(self.history)

        engine = QGroupBox("Engine")
        engine_form = QFormLayout(engine)
        self.cache_label = QLabel("-")
        self.cache_label.setWordWrap(True)
        self.drops_label = QLabel("0 frames dropped · 0 xruns")
        self.drops_label.setWordWrap(True)
        tipped(engine_form, "KV cache", self.cache_label,
               "The model's memory of the conversation: places used of its size, how often it filled up "
               "and started over (wraps), and its size in memory.")
        tipped(engine_form, "Drops", self.drops_label,
               "Frames dropped: input skipped because the model fell behind real time. Xruns: the sound "
               "card's buffers ran over or under. Output gaps: silence played while the model had no reply ready.")
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
            label.setText(f"{getattr(t, key):.1f}")
        self.e2e_label.setText(f"{stats.end_to_end_ms:.0f} ms")
        self.rtf_label.setText(f"{stats.real_time_factor:.2f}")  # its tooltip says what 1 means
        c = stats.costs
        self.costs_label.setText(f"CPU {c.step_cpu:.1f} · waiting {c.step_waiting:.1f} · journal {c.recording:.1f} · "
                                 f"input {c.input:.1f} · output {c.output:.1f}")
        self.gui_cpu_label.setText("-" if self._gui_cpu_ms is None else f"CPU {self._gui_cpu_ms:.1f}")
        self.cache_label.setText("\n".join(
            f"{c.name}: {c.used}/{c.capacity} · {c.wraps} wraps · {c.nbytes / 2**20:.1f} MiB" for c in stats.caches
        ) or "-")
