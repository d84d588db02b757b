"""`parley say`: text to speech with Pocket TTS, cut and spoken as kyutai's package speaks it (or
with Kyutai TTS: ``say_kyutai``); played as it is generated, or written to a WAV file; ``--json``
writes the text tokens, the latents of every frame, where each chunk ended and the timings."""

from __future__ import annotations

import json
import statistics
import threading
import time

import numpy as np

from app.cli.offline import UsageError, _check_writable, _one_line_errors
from app.cli.speech_delivery import deliver, open_player

MAX_TEXT_CHARS = 100_000  # about two hours of speech
MAX_TEXT_FILE_BYTES = 4 * MAX_TEXT_CHARS
MIN_RECORDING_SECONDS = 5.0
MAX_RECORDING_SECONDS = 30.0  # the package's limit on a voice prompt


def run_say(args) -> int:
    return _one_line_errors(_say, args)


def read_text(args) -> str:
    """The text to speak, from --text or --text-file, checked: some words, bounded, no control
    characters (line breaks and tabs are spaces to the model)."""
    if (args.text is None) == (args.text_file is None):
        raise UsageError("say needs the text: --text TEXT or --text-file FILE (one of them)")
    text = args.text
    if args.text_file is not None:
        from engine import read_regular

        try:
            data = read_regular(args.text_file, MAX_TEXT_FILE_BYTES)
        except OSError as e:
            raise UsageError(f"--text-file {args.text_file} cannot be read: {e.strerror or e}") from None
        if data is None:
            raise UsageError(f"--text-file {args.text_file} is larger than say reads ({MAX_TEXT_CHARS} characters)")
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise UsageError(f"--text-file {args.text_file} is not UTF-8 text") from None
    if len(text) > MAX_TEXT_CHARS:
        raise UsageError(f"the text has {len(text)} characters; say reads at most {MAX_TEXT_CHARS} at a time")
    for i, ch in enumerate(text):
        if (ord(ch) < 32 and ch not in "\n\r\t") or 0x7F <= ord(ch) < 0xA0:
            raise UsageError(f"the text holds a control character (U+{ord(ch):04X}, character {i + 1}): remove it")
    if not text.strip():
        raise UsageError("there is no text to speak")
    return text.replace("\t", " ")


def load_voice(model, choice: str | None):
    from pathlib import Path

    from engine import (
        VoiceLibrary,
        VoiceLibraryError,
        pocket_default_voice,
        pocket_voice_file,
        pocket_voice_from_audio,
        read_pocket_voice,
    )

    choice = choice or pocket_default_voice(model.row)
    try:
        path = pocket_voice_file(model, choice)
    except VoiceLibraryError:  # not a shipped voice: one of the person's own, by name?
        own = VoiceLibrary().find(choice)
        if own is None:
            raise
        if own.problem:
            raise UsageError(f"--voice {choice}: {own.problem}") from None
        path = own.path
    if path.suffix.lower() == ".safetensors":
        return read_pocket_voice(model, path)
    import torch

    from engine import read_audio

    if not Path(path).exists():
        raise UsageError(f"--voice {choice}: no such voice or file")
    pcm = read_audio(path, max_seconds=MAX_RECORDING_SECONDS, keep_first=True)
    if pcm.size < MIN_RECORDING_SECONDS * model.sample_rate:
        raise UsageError(f"--voice {choice}: the recording lasts {pcm.size / model.sample_rate:.1f} s; a voice "
                         f"needs at least {MIN_RECORDING_SECONDS:.0f} s")
    return pocket_voice_from_audio(model, torch.from_numpy(pcm), Path(path).stem)


def _say(args) -> None:
    from engine import PocketSpeaker, SpeechRun, load_pocket_tts, resolve_pocket_tts, speaks_kyutai

    text = read_text(args)
    if speaks_kyutai(args.model):
        from app.cli.say_kyutai import say_kyutai

        return say_kyutai(args, text)
    if args.device == "cuda":
        raise UsageError("Pocket TTS runs on the CPU in Parley: leave out --device or use --device cpu")
    if args.temp is not None and not 0 <= args.temp <= 10:
        raise UsageError("--temp must be between 0 and 10")
    _check_writable(args.output, args.json)
    folder, row = resolve_pocket_tts(args.model, args.language)
    model = load_pocket_tts(folder, row, precision="float32" if args.precision == "auto" else args.precision)
    speaker = PocketSpeaker(model, load_voice(model, args.voice), temperature=args.temp, seed=args.seed)
    player = None if args.output else open_player()
    run, frames, stop = SpeechRun(), [], threading.Event()
    start = time.perf_counter()
    first_audio = None
    try:
        for frame in speaker.speak(text, run, stop):
            if first_audio is None:
                first_audio = time.perf_counter() - start
            frames.append(frame)
            if player is not None:
                player.play(frame.audio)
    except KeyboardInterrupt:
        stop.set()
        if player is not None:
            player.stop()  # silent now, not after the queued audio
        raise
    wall = time.perf_counter() - start
    audio = np.concatenate([f.audio for f in frames]) if frames else np.zeros(0, np.float32)
    if args.json:
        _write_json(args.json, run, frames, wall, first_audio, model.sample_rate)
    deliver(args, audio, model.sample_rate, player, len(frames), wall)


def _write_json(path, run, frames, wall, first_audio, sample_rate) -> None:
    from engine import write_atomically

    cpu = sorted(f.cpu_ms for f in frames)
    report = {
        "chunks": [{"text": c.text, "tokens": c.tokens, "frames": c.frames, "end_frame": c.end_frame,
                    "frames_after_eos": c.frames_after_eos, "max_frames": c.max_frames} for c in run.chunks],
        "text_tokens": [t for c in run.chunks for t in c.tokens],
        "latents": [[float(x) for x in f.latent] for f in frames],
        "end_frame": run.chunks[-1].end_frame if run.chunks else None,
        "stopped": run.stopped,
        "timings": {
            "cpu_ms_per_frame": statistics.median(cpu) if cpu else None,
            "cpu_ms_p95": cpu[min(len(cpu) - 1, int(0.95 * len(cpu)))] if cpu else None,
            "first_audio_ms": None if first_audio is None else 1000 * first_audio,
            "wall_s": wall,
            "audio_s": sum(f.audio.size for f in frames) / sample_rate,
        },
    }
    write_atomically(path, json.dumps(report).encode("utf-8"))
