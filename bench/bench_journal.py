"""Crash journal and compact files on the demo model: the journal's cost per frame, file sizes
per minute (journal, full, compact; the 7B's computed from its config), and the rebuild time per
minute of conversation (from the journal and from the compact file).

The input wav is looped to ``--seconds`` and rounded to 16-bit samples, as the app feeds them.

    .venv/bin/python -m bench.bench_journal --input SPEECH.wav [--seconds 60] [--threads 1] [--json PATH]

Rebuilding replays Mimi only over the frames its state depends on (about 82 s): conversations
longer than that rebuild faster per minute, which ``codec_replayed_frames`` shows.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

from engine import (
    FRAME_SECONDS,
    FRAME_SIZE,
    load_model,
    open_conversation,
    read_wav,
    record_frames,
    recover,
    save_conversation,
)
from engine.audio import int16_to_pcm, pcm_to_int16
from engine.files.compact import read_compact
from engine.lm.model import LMConfig

from .common import cpu_model

RESULTS = Path(__file__).resolve().parent / "results"


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--input", required=True)
    p.add_argument("--seconds", type=float, default=60.0)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--json", type=Path, default=RESULTS / "journal.json")
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    frames = int(args.seconds / FRAME_SECONDS)
    speech = read_wav(args.input)
    pcm = int16_to_pcm(pcm_to_int16(np.resize(speech, frames * FRAME_SIZE))).reshape(frames, FRAME_SIZE)
    model = load_model("demo", device="cpu", precision="float32")
    minutes = frames * FRAME_SECONDS / 60
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        session = model.new_session(seed=1)
        recorder = record_frames(session, tmp / "talk.journal")
        observer_ms, frame_ms = [], []

        def timed(s, x):
            t = time.perf_counter()
            recorder(s, x)
            observer_ms.append(1000 * (time.perf_counter() - t))

        session.observe(timed)
        for frame in pcm:
            t = time.perf_counter()
            session.step(frame)
            frame_ms.append(1000 * (time.perf_counter() - t))
        session.observe(recorder)
        recorder.close()
        journal_bytes = (tmp / "talk.journal").stat().st_size
        save_conversation(session, tmp / "full.parley", compact=False)
        save_conversation(session, tmp / "compact.parley", compact=True)
        full_bytes, compact_bytes = ((tmp / n).stat().st_size for n in ("full.parley", "compact.parley"))
        read_compact(tmp / "compact.parley", model.info.fingerprint)  # it reads back
        flac_bytes = compact_bytes - 2 * frames * (8 + 9)  # the audio part: all but the token tables
        rec = recover(model, tmp / "talk.journal")
        t = time.perf_counter()
        open_conversation(model, tmp / "compact.parley")
        compact_open_s = time.perf_counter() - t
    c7 = LMConfig.moshi_7b()
    per_frame_7b = c7.num_layers * 2 * c7.dim * 2  # bf16 K and V of one step
    mimi_and_audio = full_bytes - frames * model.lm.config.num_layers * 2 * model.lm.config.dim * 4
    result = {
        "cpu": cpu_model(), "threads": args.threads, "frames": frames, "seconds": frames * FRAME_SECONDS,
        "frame_ms_median": float(np.median(frame_ms)),
        "journal_ms_per_frame_median": float(np.median(observer_ms)),
        "journal_ms_per_frame_p99": float(np.percentile(observer_ms, 99)),
        "journal_mb_per_min": journal_bytes / minutes / 1e6,
        "demo_full_mb_per_min": full_bytes / minutes / 1e6,
        "demo_compact_mb_per_min": compact_bytes / minutes / 1e6,
        "personaplex_7b_compact_mb_per_min_computed": (flac_bytes + 2 * frames * (8 + 17)) / minutes / 1e6,
        "moshi_7b_full_mb_per_min_computed": (per_frame_7b * frames + mimi_and_audio) / minutes / 1e6,
        "rebuild_s_per_min_journal": rec.rebuild_seconds / minutes,
        "rebuild_s_per_min_compact": compact_open_s / minutes,
        "encoder_mismatches": rec.encoder_mismatches,
        "codec_replayed_frames": rec.codec_frames,
    }
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
