"""Resident memory over a long stream: ``--frames`` frames (default 7500 = 10 minutes of audio)
fed as fast as possible through one demo-model Session, RSS sampled every ``--every`` frames.

By default the session keeps no records (``record_audio=False``), which measures that the engine
itself (ring KV caches, conv states, token cache) does not grow with the stream. ``--record`` keeps
what the app keeps: both sides' audio and every frame's codes (7.9 KB per frame, ~5.9 MB per
minute: the audio in 16 bits, the codes as int64); the report then says how much the process grew
beyond those records (kept one small array per frame, they once stranded the frame step's freed
temporaries and grew it ten times as fast). The input is the project's speech recordings, looped,
rounded to 16 bits as the app's microphone reaches the model.

    .venv/bin/python -m bench.bench_rss [--frames 7500] [--every 500] [--threads 2] [--precision auto] [--record]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import torch

from bench.common import cpu_model, rss_bytes
from engine import Session, load_model, record_frames, to_16_bit
from engine.audio import FRAME_SIZE
from engine.lm.generate import SamplingConfig

RESULTS = Path(__file__).resolve().parent / "results"
SPEECH = [Path(__file__).resolve().parents[1] / p for p in ("assets/hello_24k.wav", "tests/data/story_16k.wav",
                                                            "tests/data/interrupt_48k_stereo.wav")]


def input_audio() -> np.ndarray:
    from engine.audio import read_wav

    return to_16_bit(np.concatenate([read_wav(f) for f in SPEECH]))


def record_bytes_per_frame(session: Session) -> int:
    """What a recording session keeps per frame: both sides' audio (16-bit or float32), the codes as int64."""
    header = session.frame_observer.header
    audio = sum(FRAME_SIZE * (2 if side.is_16_bit else 4) for side in session.recording())
    return audio + 8 * (header.user_streams + header.token_streams)


def summarise(args, samples: list[tuple[int, int]], wall: float, session: Session) -> dict:
    frames = samples[-1][0]
    after_warmup = [r for f, r in samples if f >= args.every]
    growth = (max(after_warmup) - min(after_warmup)) / 2**20 if after_warmup else None
    kept = (frames - args.every) * record_bytes_per_frame(session) / 2**20 if args.record else 0.0
    return {
        "frames": frames, "frames_planned": args.frames, "audio_minutes": round(frames * FRAME_SIZE / 24000 / 60, 2),
        "threads": args.threads, "precision": session.model.info.precision.value,
        "cpu": cpu_model(), "torch": torch.__version__, "wall_s": round(wall, 1),
        "ms_per_frame": round(wall / frames * 1e3, 2),
        "rss_mib": [[f, round(r / 2**20, 1)] for f, r in samples],
        "growth_after_first_sample_mib": round(growth, 1) if growth is not None else None,
        "recording": args.record,
        "records_kept_after_first_sample_mib": round(kept, 1),
        "growth_beyond_records_mib": round(growth - kept, 1) if growth is not None else None,
        "lm_ring_wraps": session.cache_stats()[0].wraps,
    }


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--frames", type=int, default=7500)
    p.add_argument("--every", type=int, default=500)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--precision", default="auto", help="as the app loads it by default (float32: what parity uses)")
    p.add_argument("--record", action="store_true", help="keep the audio and codes of every frame, as the app does")
    p.add_argument("--out", type=Path, default=RESULTS / "rss.json")
    args = p.parse_args(argv)
    if args.frames < 1 or args.every < 1:
        p.error("--frames and --every must be positive")
    torch.set_num_threads(args.threads)
    model = load_model("demo", device="cpu", precision=args.precision)
    session = Session(model, SamplingConfig(), seed=1, record_audio=args.record)
    if args.record:
        record_frames(session)
    audio = input_audio()
    frames_in_audio = audio.size // FRAME_SIZE
    samples = [(0, rss_bytes())]
    t0 = time.perf_counter()
    for i in range(args.frames):
        j = i % frames_in_audio
        session.step(audio[j * FRAME_SIZE:(j + 1) * FRAME_SIZE])
        if (i + 1) % args.every == 0 or i + 1 == args.frames:
            samples.append((i + 1, rss_bytes()))
            report = summarise(args, samples, time.perf_counter() - t0, session)
            args.out.parent.mkdir(parents=True, exist_ok=True)
            args.out.write_text(json.dumps(report, indent=2) + "\n")  # a partial run still leaves its data
            print(f"frame {i + 1:6d}  rss {samples[-1][1] / 2**20:8.1f} MiB  {report['ms_per_frame']:6.1f} ms/frame",
                  flush=True)
    print(f"growth after frame {args.every}: {report['growth_after_first_sample_mib']} MiB "
          f"({report['growth_beyond_records_mib']} MiB beyond the records kept)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
