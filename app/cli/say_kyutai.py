"""`parley say --model kyutai-tts`: text to speech with Kyutai TTS 1.6B (a GPU model; the CPU runs
it slowly), a voice of ``kyutai/tts-voices`` by name or a voice file; played as it is generated, or
written to a WAV file; ``--json`` writes the text token and audio codes of every frame, the words
with the frame each started at, and the timings."""

from __future__ import annotations

import json
import statistics
import threading
import time

import numpy as np

from app.cli.offline import UsageError, _check_writable
from app.cli.speech_delivery import deliver, open_player


def say_kyutai(args, text: str) -> None:
    from engine import SAMPLE_RATE, KyutaiRun, SamplingConfig, kyutai_voice, load_kyutai_speech, resolve_model

    if args.language is not None:
        raise UsageError("--language chooses a Pocket TTS language; Kyutai TTS speaks English and French as written")
    if args.temp is not None and not 0 <= args.temp <= 10:
        raise UsageError("--temp must be between 0 and 10")
    _check_writable(args.output, args.json)
    files = resolve_model(args.model)
    voice = kyutai_voice(files, args.voice)  # before the weights: a bad voice costs no load
    sampling = None if args.temp is None else SamplingConfig(temp=args.temp, temp_text=args.temp)
    speech = load_kyutai_speech(files, args.device, args.precision,
                                **({} if sampling is None else {"sampling": sampling}))
    player = None if args.output else open_player()
    run, frames, pcm, stop = KyutaiRun(), [], [], threading.Event()
    start = time.perf_counter()
    first_audio = None
    try:
        for frame in speech.stream(text, [voice], run, stop, seed=args.seed):
            frames.append(frame)
            if frame.pcm is None:
                continue
            if first_audio is None:
                first_audio = time.perf_counter() - start
            audio = frame.pcm.numpy()
            pcm.append(audio)
            if player is not None:
                player.play(audio)
    except KeyboardInterrupt:
        stop.set()
        if player is not None:
            player.stop()  # silent now, not after the queued audio
        raise
    wall = time.perf_counter() - start
    audio = np.concatenate(pcm) if pcm else np.zeros(0, np.float32)
    if args.json:
        _write_json(args.json, run, frames, wall, first_audio, audio.size / SAMPLE_RATE)
    deliver(args, audio, SAMPLE_RATE, player, len(frames), wall)


def _write_json(path, run, frames, wall, first_audio, audio_s) -> None:
    from engine import write_atomically

    ms = sorted(f.ms for f in frames)
    report = {
        "text_tokens": [f.text for f in frames],
        "audio_codes": [list(f.audio) for f in frames],
        "first_step": frames[0].step if frames else None,
        "words": [[word, step] for word, step in run.words],
        "end_step": run.end_step,
        "stopped": run.stopped,
        "timings": {
            "ms_per_frame": statistics.median(ms) if ms else None,
            "ms_p95": ms[min(len(ms) - 1, int(0.95 * len(ms)))] if ms else None,
            "first_audio_ms": None if first_audio is None else 1000 * first_audio,
            "wall_s": wall,
            "audio_s": audio_s,
        },
    }
    write_atomically(path, json.dumps(report).encode("utf-8"))
