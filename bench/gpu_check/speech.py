"""The text-to-speech models' stages: Kyutai TTS 1.6B (or a tiny one in the smoke run) with random
weights at the released shapes (``bench.tts_model``), streamed as ``parley say`` streams it, and
the reference package's ``TTSModel.generate`` with its own random weights of the same configuration,
each frame decoded as it comes (as kyutai's streaming script plays it). Each: the time to the first
audio a person hears (from a fresh state and voice; the model built and warmed up) and the
real-time factor (wall seconds per second of audio) over ``frames`` played frames."""

from __future__ import annotations

import copy
import tempfile
import time
from pathlib import Path

import torch

from bench import tts_model
from bench.common import summary
from bench.gpu_check.models import release
from bench.gpu_check.plan import Options
from bench.gpu_report import Report

SPEECH_MODELS = ("kyutai-tts", "tiny-tts")
STAGES = ("build", "stream", "reference")
WARMUP_FRAMES = {"cuda": 3, "cpu": 1}
_NOT_LM = ("model_type", "moshi_name", "mimi_name", "tokenizer_name", "tts_config", "model_id", "lm_gen_config")


def check_speech(name: str, device: torch.device, dtype: torch.dtype, report: Report, options: Options) -> None:
    threads = torch.get_num_threads()
    if device.type == "cpu":  # the smoke run's tiny matrices: more threads only contend
        torch.set_num_threads(1)
    try:
        _check_speech(name, device, dtype, report, options)
    finally:
        torch.set_num_threads(threads)


def _check_speech(name: str, device: torch.device, dtype: torch.dtype, report: Report, options: Options) -> None:
    entry = report.data["models"].setdefault(name, {})
    entry["frames"] = options.frames
    built = report.stage(name, "build", lambda: build(name, device, dtype), record=lambda b: {"load_s": b["load_s"]})
    ours = None
    if built is not None:
        ours = report.stage(name, "stream", lambda: stream(name, built, options.frames, device))
        del built
    release(device)
    reference = report.stage(name, "reference", lambda: reference_stream(name, device, dtype, options.frames))
    release(device)
    for key in ("first_audio_ms", "real_time_factor"):
        a, b = (ours or {}).get(key), (reference or {}).get(key)
        entry[f"{key}_ours_over_reference"] = round(a / b, 3) if a and b else None


def build(name: str, device: torch.device, dtype: torch.dtype) -> dict:
    t0 = time.perf_counter()
    generator = tts_model.build_generator(name, device, dtype)
    mimi = tts_model.build_mimi(generator.codebooks, device)
    _sync(device)
    return {"generator": generator, "mimi": mimi, "load_s": round(time.perf_counter() - t0, 2)}


def stream(name: str, built: dict, frames: int, device: torch.device) -> dict:
    """Ours, after a warm-up stream: first audio, real-time factor, step times, memory."""
    generator, mimi = built["generator"], built["mimi"]
    with torch.inference_mode():
        tts_model.stream(generator, mimi, name, WARMUP_FRAMES[device.type])
        if device.type == "cuda":
            torch.cuda.reset_peak_memory_stats(device)
        run = tts_model.stream(generator, mimi, name, frames, seed=1)
    steps = run.pop("step_ms")
    return {**run, "times": summary(steps[run["first_audio_frame"]:]),
            "peak_allocated_gb": round(torch.cuda.max_memory_allocated(device) / 1e9, 2)
            if device.type == "cuda" else None}


def reference_stream(name: str, device: torch.device, dtype: torch.dtype, frames: int) -> dict:
    """The reference's ``TTSModel.generate`` (sampled at 0.6, guidance 2.0 as the released config),
    the same made-up words and a random voice, each complete frame decoded by its Mimi in streaming
    mode; after a warm-up run."""
    from moshi.models import loaders
    from moshi.models.tts import Entry, StateMachine, TokenIds, TTSModel
    from moshi.utils.compile import no_compile
    from safetensors.torch import save_file

    config = tts_model.CONFIGS[name]
    t0 = time.perf_counter()
    torch.manual_seed(0)
    lm = loaders.get_moshi_lm(None, lm_kwargs={k: copy.deepcopy(v) for k, v in config.items() if k not in _NOT_LM},
                              device=device, dtype=dtype)
    mimi = loaders.get_mimi(None, device=device)
    n_q = config["n_q"]
    mimi.set_num_codebooks(n_q)
    machine = StateMachine(TokenIds(lm.text_card + 1), second_stream_ahead=2, max_padding=8, initial_padding=2)
    delay = int(config["tts_config"]["audio_delay"] * mimi.frame_rate)
    first_output = max(config["delays"])
    played_from = first_output + delay + 2  # the first frame ``simple_generate`` keeps (two dropped)
    words = [Entry(list(e.tokens), e.text, e.padding)
             for e in tts_model.entries(config["text_card"], tts_model.words_for(played_from + frames))]
    load_s = time.perf_counter() - t0
    with tempfile.TemporaryDirectory() as folder:
        voice = Path(folder) / "voice.safetensors"
        save_file({"speaker_wavs": torch.randn(1, tts_model.speaker_dim(name), tts_model.VOICE_FRAMES)}, str(voice))

        def run(count: int) -> dict:
            tts = TTSModel(lm=lm, mimi=mimi, tokenizer=None, voice_suffix="", voice_repo="", machine=machine,
                           delay_steps=delay, n_q=n_q, temp=0.6, max_gen_length=played_from + count)
            attributes = tts.make_condition_attributes([voice], cfg_coef=2.0)
            times, decoded = [], []
            started = time.perf_counter()

            def on_frame(frame: torch.Tensor) -> None:
                if (frame != -1).all():
                    decoded.append(mimi.decode(frame[:, 1:, :]).cpu())
                    times.append(time.perf_counter())

            with torch.inference_mode(), no_compile(), mimi.streaming(1):
                tts.generate([words], [attributes], on_frame=on_frame)
            wall = time.perf_counter() - started
            heard = times[2:]  # as ours: the first two decoded frames are dropped
            audio_s = len(heard) * mimi.frame_size / mimi.sample_rate
            steps = [1e3 * (b - a) for a, b in zip(heard, heard[1:])]
            return {"first_audio_ms": round(1e3 * (heard[0] - started), 1) if heard else None,
                    "first_audio_frame": played_from, "frames_played": len(heard), "audio_s": round(audio_s, 2),
                    "wall_s": round(wall, 3), "real_time_factor": round(wall / audio_s, 3) if audio_s else None,
                    "times": summary(steps)}

        run(WARMUP_FRAMES[device.type])
        return {**run(frames), "load_s": round(load_s, 2)}


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)
