"""End of the person's speech → first audio in a spoken conversation with a language model (issue 57),
split into its parts, through the real cascade (``app.chat.cascade.Conversation``): Kyutai STT at
stt-1b-en_fr's shapes, a real llama.cpp server (``llama-cpp-python``, one thread) on the tests' tiny
random GGUF model, and Pocket TTS at the released English shapes. Nothing is downloaded: both speech
models have random weights (their words are gibberish; their compute is the released models').

    python -m bench.bench_chat [--turns 8] [--stt-precision float32] [--small] [--out PATH]

Each turn is a cut of the project's recordings, fed as push-to-talk gives it (the release is the end
of speech: the turn decision takes no time; open mic's pause-head decision needs trained weights and
is not measured). Parts, per turn, adding up to the first audio: the STT flush, the model's first
token (the model's share), the wait for the rest of its first clause, the voice's first frame, the
hand-offs between them. Also: the STT's and the voice's real-time factors, and what feeding the
speech live would leave behind at its end where the STT is slower than real time. Writes
bench/results/<cpu>/chat-<shapes>-stt-<precision>.json (``bench.common.cpu_slug``).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

from bench.common import cpu_model, cpu_slug, load_average, summary
from engine import starting_threads

RESULTS = Path(__file__).resolve().parent / "results"
FRAME_S = 0.08  # one STT step and one voice frame: 80 ms of audio
SYSTEM = "You answer in a few words."
MAX_TOKENS = 24
EOS_BIAS = 1e4  # the random voice's end-of-speech head fires at its first chance: clauses of ~1 s
# (recording, start s, seconds): the turns, taken in order (and again from the first)
CUTS = (("story_16k.wav", 0.0, 2.4), ("hello_24k.wav", 0.0, 2.5), ("interrupt_48k_stereo.wav", 0.0, 2.6),
        ("story_16k.wav", 2.4, 2.4), ("hello_24k.wav", 2.5, 2.5), ("interrupt_48k_stereo.wav", 2.6, 2.6),
        ("story_16k.wav", 4.8, 2.4), ("story_16k.wav", 7.0, 1.5))
RECORDINGS = {"story_16k.wav": "tests/data", "hello_24k.wav": "assets", "interrupt_48k_stereo.wav": "tests/data"}
PARTS = ("stt_flush", "model_first_token", "clause_wait", "voice_first_frame", "handoffs")
STT_1B_SHAPES = {"dim": 2048, "num_heads": 16, "num_layers": 16, "hidden_scale": 4.0, "context": 750,
                 "text_card": 8000}  # engine.families.stt.STT_1B


def recordings(turns: int) -> list[tuple[str, np.ndarray]]:
    from engine import SAMPLE_RATE, read_audio

    root = Path(__file__).resolve().parent.parent
    out = []
    for i in range(turns):
        name, start, seconds = CUTS[i % len(CUTS)]
        pcm = read_audio(root / RECORDINGS[name] / name)[int(start * SAMPLE_RATE):]
        out.append((f"{name}@{start:g}s+{seconds:g}s", pcm[:int(seconds * SAMPLE_RATE)]))
    return out


def stt_1b_folder(folder: Path) -> Path:
    """stt-1b-en_fr's LM shapes (random bfloat16 weights, as released) with the demo STT's Mimi
    (the released architecture), tokenizer (1000 pieces) and stt_config (0.5 s delay, 1 s prefix).
    The text head keeps the released 8001 rows; those past the tokenizer's are zero, so that
    greedy text stays inside its vocabulary."""
    from safetensors.torch import load_file, save_file

    from engine.families.demo import load_recipe
    from engine.families.demo_stt import RECIPE_PATH
    from engine.files.demo import build_demo_model

    if (folder / "config.json").is_file():
        return folder
    recipe = load_recipe(RECIPE_PATH)
    recipe = {**recipe, "config": {**recipe["config"], **STT_1B_SHAPES}}
    folder.mkdir(parents=True, exist_ok=True)
    build_demo_model(folder, recipe)
    path = folder / recipe["config"].get("moshi_name", "model.safetensors")
    weights = load_file(str(path))
    weights["text_linear.weight"][recipe["tokenizer"]["vocab_size"]:] = 0
    save_file(weights, str(path))
    return folder


def voice_folder(folder: Path, small: bool) -> tuple[Path, object]:
    """Pocket TTS in the released layout, random weights: the released English shapes, or small."""
    from bench.pocket_reference import build, small_arch
    from engine.pocket_tts.config import PocketConfig
    from engine.pocket_tts.releases import package_dict

    arch = small_arch(0) if small else package_dict("english")
    if not (folder / "package_config.yaml").is_file():
        build(folder, arch, eos_bias=EOS_BIAS)
    return folder, PocketConfig.from_package_dict(arch) if small else None


class TimedSpeechToText:
    """The STT as the cascade uses it, with the wall time of its steps counted (its real-time factor)."""

    def __init__(self, stt):
        self.stt, self.wall_s, self.steps, self.last_feed_s = stt, 0.0, 0, 0.0

    def new_stream(self):
        return _TimedStream(self, self.stt.new_stream())


class _TimedStream:
    def __init__(self, owner: TimedSpeechToText, stream):
        self.owner, self.stream = owner, stream

    def _timed(self, fn, *args) -> tuple[list, float]:
        start = time.perf_counter()
        steps = fn(*args)
        spent = time.perf_counter() - start
        self.owner.wall_s += spent
        self.owner.steps += len(steps)
        return steps, spent

    def feed(self, pcm):
        steps, self.owner.last_feed_s = self._timed(self.stream.feed, pcm)
        return steps

    def finish(self, live: bool = False):
        return self._timed(lambda: self.stream.finish(live=live))[0]


class TimedVoice:
    """The voice as the cascade uses it, with the wall time spent making its frames counted."""

    def __init__(self, speaker):
        self.speaker, self.wall_s, self.samples = speaker, 0.0, 0

    def speak(self, text: str, stop=None):
        start = time.perf_counter()
        for frame in self.speaker.speak(text, stop=stop):
            self.wall_s += time.perf_counter() - start
            self.samples += frame.audio.size
            yield frame
            start = time.perf_counter()
        self.wall_s += time.perf_counter() - start


def run(turns: int, small: bool, stt_precision: str, work: Path, threads: int) -> dict:
    """The turns through one conversation (its history grows as the app's does), the STT and the
    voice on ``threads`` torch threads (the model server on one of its own)."""
    from app.chat.cascade import Conversation
    from app.chat.client import ChatServer
    from bench.pocket_reference import VOICE
    from engine import PocketSpeaker, load_pocket_tts, load_speech_to_text
    from engine.pocket_tts.voices import read_voice_file, voice_file
    from tests.llama_server import LlamaServer, write_tiny_llama

    before = load_average()
    started = time.perf_counter()
    stt = load_speech_to_text("demo-stt" if small else str(stt_1b_folder(work / "stt-1b")), device="cpu",
                              precision=stt_precision)
    folder, config = voice_folder(work / ("pocket-small" if small else "pocket-english"), small)
    model = load_pocket_tts(folder, "english", config)
    speaker = PocketSpeaker(model, read_voice_file(model, voice_file(model, VOICE)), seed=0)
    load_s = time.perf_counter() - started
    torch.set_num_threads(threads)  # the pocket-tts package, which builds the voice, sets one
    timed_stt, timed_voice = TimedSpeechToText(stt), TimedVoice(speaker)
    server = LlamaServer(write_tiny_llama(work / "tiny.gguf"), work / "llama-server.log")
    rows = []
    try:
        chat = ChatServer(server.url, "tiny", max_tokens=MAX_TOKENS, temperature=0.0)
        conversation = Conversation(timed_stt, chat, timed_voice, SYSTEM)
        try:
            for source, pcm in recordings(turns):
                steps = timed_stt.steps
                turn = conversation.turn(pcm)
                if turn.error is not None:
                    raise RuntimeError(f"turn {len(rows) + 1}: {turn.error}")
                rows.append(turn_row(source, pcm, turn, timed_stt.last_feed_s, timed_stt.steps - steps))
                ms = rows[-1]["ms"]
                print(f"turn {len(rows)}: first audio {ms['first_audio']} ms (STT flush {ms['stt_flush']}, model "
                      f"{ms['model_first_token']}, voice {ms['voice_first_frame']})", file=sys.stderr, flush=True)
        finally:
            conversation.close()
    finally:
        server.close()
    return {"load_average_before": before, "load_s": round(load_s, 1), "turns": rows,
            "stt_real_time_factor": round(timed_stt.wall_s / (timed_stt.steps * FRAME_S), 3),
            "voice_real_time_factor": round(timed_voice.wall_s / (timed_voice.samples / 24000), 3),
            "stt": {"precision": stt.precision.value, "dtype": str(stt.dtype).removeprefix("torch.")}}


def _ms(value: float | None) -> float | None:
    return None if value is None else round(value, 2)


def turn_row(source: str, pcm: np.ndarray, turn, feed_s: float, steps: int) -> dict:
    """One turn's words and times (ms). ``live_backlog``: how far behind the end of speech the STT
    would be with the speech fed live (it starts with the stream; 0 where it keeps up)."""
    t = turn.times
    parts = t.parts() or {}
    speech_s = pcm.size / 24000
    return {"input": source, "speech_s": round(speech_s, 3), "heard": turn.heard, "answer": turn.answer,
            "clauses": len(turn.clauses), "first_clause_words": len(turn.clauses[0].split()) if turn.clauses else 0,
            "answer_audio_s": round(turn.audio.size / 24000, 3), "stt_steps": steps,
            "ms": {"turn_decision": 0.0, **{k: _ms(parts.get(k)) for k in PARTS},
                   "first_clause": _ms(t.first_clause), "first_audio": _ms(t.first_audio),
                   "parley_share": _ms(t.parley_share), "total": _ms(t.total),
                   "stt_feed": _ms(1000 * feed_s), "live_backlog": _ms(1000 * max(0.0, feed_s - speech_s))}}


def report(measured: dict, args) -> dict:
    rows = measured["turns"]
    keys = rows[0]["ms"].keys()
    spread = {k: summary([r["ms"][k] for r in rows if r["ms"][k] is not None], 1) for k in keys}
    gaps = [abs(sum(r["ms"][k] for k in PARTS) - r["ms"]["first_audio"]) for r in rows
            if r["ms"]["first_audio"] is not None]
    share = spread["parley_share"].get("median_ms")
    return {
        "what": "end of speech -> first audio of the spoken conversation with a language model (app.chat.cascade), "
                "split; ms over turns",
        "command": "python -m bench.bench_chat " + " ".join(args.argv), "cpu": cpu_model(),
        "torch": torch.__version__, "threads": torch.get_num_threads(),
        "load_average_before": measured["load_average_before"], "load_average_after": load_average(),
        "shapes": "small (tests)" if args.small else "released: stt-1b-en_fr LM, Pocket TTS English (random weights)",
        "stt": {**measured["stt"], "model": "demo-stt" if args.small else "stt-1b-en_fr shapes",
                "real_time_factor": measured["stt_real_time_factor"]},
        "voice": {"model": "Pocket TTS " + ("small" if args.small else "English"), "precision": "float32",
                  "real_time_factor": measured["voice_real_time_factor"]},
        "llm": {"server": "llama-cpp-python[server], 1 thread", "model": "tests/llama_server.py tiny random GGUF",
                "max_tokens": MAX_TOKENS, "temperature": 0},
        "load_s": measured["load_s"], "turns": len(rows),
        "ms": spread,
        "parts_add_up_ms": round(max(gaps), 3) if gaps else None,
        "goal": {"parley_share_ms": 400, "median_ms": share, "met": None if share is None else share <= 400},
        "not_measured": NOT_MEASURED,
        "per_turn": rows,
    }


NOT_MEASURED = [
    "turn decision: push-to-talk's release is the end of speech (0 ms; in the app the last audio block, up to one "
    "80 ms frame, still has to reach the STT); open mic's pause-head decision needs trained STT weights",
    "every model has random weights: the STT's words and the model's answers are gibberish; the compute is at the "
    "released shapes (the tiny GGUF's first token stands for the person's model)",
    "the sound card: first audio is the voice's first frame in memory, not out of the speaker",
    "echo cancellation and barge-in are not in this path",
]


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=8)
    parser.add_argument("--stt-precision", default="float32", help="float32 (the CPU's default), int8, ...")
    parser.add_argument("--threads", type=int, default=starting_threads(),
                        help="torch threads for the STT and the voice (default: the app's starting count, "
                             "engine.starting_threads: one per two cores)")
    parser.add_argument("--small", action="store_true", help="small random models (the smoke test)")
    parser.add_argument("--work", type=Path, help="keep (and reuse) the built random models here")
    parser.add_argument("--out", type=Path, help="the report (default: bench/results/<cpu>/chat-<shapes>-stt-"
                                                 "<precision>.json)")
    args = parser.parse_args(argv)
    args.argv = argv
    with tempfile.TemporaryDirectory() as tmp:
        work = args.work or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        result = report(run(args.turns, args.small, args.stt_precision, work, args.threads), args)
    shapes = "small" if args.small else "released"
    out = args.out or RESULTS / cpu_slug() / f"chat-{shapes}-stt-{args.stt_precision}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n")
    print(json.dumps({k: v for k, v in result.items() if k != "per_turn"}, indent=1))
    print(f"-> {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
