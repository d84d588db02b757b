"""Levels, per-stage latency, its history and the engine's health: renders the view-model's frames."""

from __future__ import annotations

from PySide6.QtWidgets import QFormLayout, QGroupBox, QLabel, QVBoxLayout, QWidget

from app.conversation.view_model import ConversationModel
from app.engine_thread.frame_stats import FrameStats
from app.widgets.echo_meter import EchoMeter
from app.widgets.history_plot import HistoryPlot
from app.widgets.meters import LevelMeter
from app.widgets.throttle import Throttle
from engine import FRAME_MS

STAGES = (("input_queue", "Input queue"), ("encode", "Encode"), ("lm", "LM"), ("depth", "Depth"),
          ("decode", "Decode"), ("output_queue", "Output queue"))


class MetersPanel(QWidget):
    def __init__(self, model: ConversationModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        levels = QGroupBox("Levels")
        levels_layout = QVBoxLayout(levels)
        self.mic_meter = LevelMeter("Mic")
        self.heard_meter = LevelMeter("Model hears")
        self.output_meter = LevelMeter("Assistant")
        self.echo_meter = EchoMeter()  # before/after processing and the estimated echo suppression
        for meter in (self.mic_meter, self.heard_meter, self.output_meter, self.echo_meter):
            levels_layout.addWidget(meter)
        layout.addWidget(levels)

        latency = QGroupBox("Latency (ms)")
        form = QFormLayout(latency)
        self.stage_labels: dict[str, QLabel] = {}
        for key, title in STAGES:
            self.stage_labels[key] = QLabel("-")
            form.addRow(title, self.stage_labels[key])
        self.e2e_label = QLabel("-")
        self.rtf_label = QLabel("-")
        form.addRow("Mic to speaker (est.)", self.e2e_label)
        form.addRow("Real-time factor", self.rtf_label)
        layout.addWidget(latency)

        self.history = HistoryPlot(("mic→speaker", "compute"), "ms", reference=FRAME_MS,
                                   reference_label="80 ms frame budget")
        layout.addWidget(self.history, 1)

        health = QGroupBox("Engine")
        health_form = QFormLayout(health)
        self.cache_label = QLabel("-")
        self.cache_label.setWordWrap(True)
        self.drops_label = QLabel("0 frames dropped · 0 xruns")
        self.drops_label.setWordWrap(True)
        self.drops_label.setToolTip("Frames dropped: input skipped because the model fell behind real time. "
                                    "Xruns: the sound card's buffers ran over or under. Output gaps: silence "
                                    "played while the model had no reply ready.")
        health_form.addRow("KV cache", self.cache_label)
        health_form.addRow("Drops", self.drops_label)
        layout.addWidget(health)

        # The numbers are throttled (each rewrite re-lays out the panel: ~1 ms per frame on an AMD
        # EPYC); the meters and the plot still move every frame.
        self._newest: FrameStats | None = None
        self._readouts = Throttle(self, self._render_readouts)

        model.frame.connect(self.render_frame)
        model.health_changed.connect(self.drops_label.setText)
        model.conversation_replaced.connect(self.history.clear)

    def render_frame(self, stats: FrameStats) -> None:
        self.mic_meter.set_level(stats.mic_db)
        self.heard_meter.set_level(stats.model_input_db)
        self.output_meter.set_level(stats.output_db)
        self.echo_meter.set_reading(stats.echo)
        self.history.append(stats.end_to_end_ms, stats.step_ms)
        self._newest = stats
        self._readouts.request()

    def _render_readouts(self) -> None:
        stats = self._newest
        t = stats.timings
        for key, label in self.stage_labels.items():
            label.setText(f"{getattr(t, key):.1f}")
        self.e2e_label.setText(f"{stats.end_to_end_ms:.0f} ms")
        slow = "  (slower than real time)" if stats.real_time_factor > 1 else ""
        self.rtf_label.setText(f"{stats.real_time_factor:.2f}{slow}")
        self.cache_label.setText("\n".join(
            f"{c.name}: {c.used}/{c.capacity} · {c.wraps} wraps · {c.nbytes / 2**20:.1f} MiB" for c in stats.caches
        ) or "-")
