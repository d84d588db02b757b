"""Switching persona: the time from choosing a persona to the first live frame of its conversation.

Measured through the app's own path, offscreen: a window on the model, ``apply_persona`` (what
the persona dialog's "Start conversation" calls), the engine thread starting the session
(PersonaPlex's prompt phases: the voice, silence, the role, silence), the conversation opened,
then one frame of microphone audio through the real input callback and the frame pump until its
``FrameDone`` reaches the window. ``ready_ms``: choosing -> the new conversation opened;
``first_frame_ms``: choosing -> its first live frame in the window.

Models: the demo (a Moshi model: no prompts, the persona's sampling and "wait for me") and a
PersonaPlex-architecture model of the demo's size (``engine.files.demo.write_personaplex_variant``)
with a persona whose voice is a 10 s recording of the user's voice library (encoded on first use,
read from its cache afterwards: ``first`` vs the others) and a role text.

    .venv/bin/python -m bench.bench_persona_switch [--repeats 3] [--json bench/results/persona_switch.json]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from bench.common import cpu_model

RESULTS = Path(__file__).resolve().parent / "results" / "persona_switch.json"
MAX_FRAMES_FED = 50


def switch_times(window, feeder, persona, repeats: int) -> list[dict]:
    """Choose ``persona`` ``repeats`` times; each: (ready_ms, first_frame_ms)."""
    from app.audio.headless import SignalRecorder, wait_until
    from engine import FRAME_SIZE

    opened, frames = SignalRecorder(), SignalRecorder()
    window.model.conversation_replaced.connect(opened.record)
    window.model.frame.connect(frames.record)
    times = []
    for _ in range(repeats):
        window.model.files.unsaved_frames = 0  # nothing to keep: the switch alone is timed
        n_opened = len(opened)
        t0 = time.perf_counter()
        window.apply_persona(persona)
        if not wait_until(lambda n=n_opened: len(opened) > n or window.error_box.isVisible(), 600):
            raise TimeoutError("the conversation did not start")
        if window.error_box.isVisible():
            raise RuntimeError(window.error_label.text())
        ready = time.perf_counter()
        window.model.start()  # Start: the new conversation runs no frame before it
        prompt_steps = window.model.worker.controller.session.generator_steps
        n_frames, fed = len(frames), 0
        while len(frames) == n_frames:  # the pump's first frame may want more than one frame of input
            if fed == MAX_FRAMES_FED:
                raise TimeoutError(f"no frame came back after {fed} frames of input")
            feeder.feed(np.zeros(FRAME_SIZE, np.float32))
            wait_until(lambda n=n_frames: len(frames) > n, 0.5)
            fed += 1
        done = time.perf_counter()
        times.append({"ready_ms": round(1000 * (ready - t0), 1), "first_frame_ms": round(1000 * (done - t0), 1),
                      "frames_fed": fed, "prompt_steps": prompt_steps})
    return times


def measure(model: str, persona, repeats: int, settings: Path) -> dict:
    from PySide6.QtCore import QSettings

    from app.audio.bridge import AudioBridge
    from app.audio.headless import BridgeFeeder, SignalRecorder, wait_until
    from app.window.main_window import MainWindow
    from engine import SAMPLE_RATE

    window = MainWindow(QSettings(str(settings), QSettings.IniFormat), audio=False, worker_seed=1,
                        conversations_dir=settings.parent)
    loaded = SignalRecorder()
    window.model.conversation_replaced.connect(loaded.record)
    window.load_model(model, "cpu", "float32")
    if not wait_until(lambda: window.model.models.model_info is not None and len(loaded) > 0, 900):
        raise TimeoutError(f"{model} did not load")
    bridge = AudioBridge(SAMPLE_RATE, 1, SAMPLE_RATE, 1)
    window.model.worker.set_bridge(bridge)
    feeder = BridgeFeeder(bridge, lambda: window.model.worker.processed_position)
    try:
        times = switch_times(window, feeder, persona, repeats)
    finally:
        window.model.files.unsaved_frames = 0
        window.close()
    return {"model": window.model.models.model_info.label, "persona": persona.as_json(),
            "first": times[0],
            "then": times[1:],
            "first_frame_ms_median_after_first": float(np.median([t["first_frame_ms"] for t in times[1:]]))
            if len(times) > 1 else None}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", default=str(RESULTS))
    args = parser.parse_args(argv)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication

    from engine import SAMPLE_RATE, Persona, VoiceLibrary
    from engine.files.demo import write_personaplex_variant
    from engine.files.personas import SHIPPED

    app = QApplication.instance() or QApplication(sys.argv[:1])  # noqa: F841 - the widgets need it
    with tempfile.TemporaryDirectory(prefix="parley-bench-persona-") as tmp:
        tmp = Path(tmp)
        os.environ["PARLEY_PERSONAS_DIR"] = str(tmp / "personas")  # never the user's own
        os.environ["PARLEY_VOICES_DIR"] = str(tmp / "voices")
        t = np.arange(10 * SAMPLE_RATE) / SAMPLE_RATE
        voice = 0.2 * np.sin(2 * np.pi * 150 * t) * (0.6 + 0.4 * np.sin(2 * np.pi * 3 * t))
        VoiceLibrary().add("Bench voice", voice.astype(np.float32))
        personaplex = write_personaplex_variant(tmp / "personaplex")
        cook = Persona("Ship's cook", voice="Bench voice", role="You are a ship's cook. Speak briefly.")
        results = {
            "cpu": cpu_model(), "cores": os.cpu_count(), "repeats": args.repeats,
            "demo": measure("demo", SHIPPED[1], args.repeats, tmp / "demo" / "settings.ini"),
            "personaplex_demo_size": measure(str(personaplex), cook, args.repeats, tmp / "pp" / "settings.ini"),
        }
    Path(args.json).write_text(json.dumps(results, indent=1) + "\n")
    print(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
