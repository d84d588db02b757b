"""The `parley` command: the desktop app by default, plus `offline`, `say`, `chat`, `transcribe`, `recover`,
`compare-precision`, `selftest`, `conversations`, `voices` and `personas`."""

from __future__ import annotations

import argparse
import sys

from app.cli.chat import add_chat_parser
from app.cli.llm_key import add_llm_key_parser
from app.voices.cli import add_voices_parser
from app.voices.personas_cli import add_personas_parser

PRECISIONS = ("auto", "float32", "bfloat16", "int8", "fp8", "int4")  # engine.Precision's values (tested to match)
MODEL_HELP = ("a preset (demo, moshiko, moshika, moshika-rl-seamless, personaplex, personaplex-rl-seamless, "
              "hibiki-zero, hibiki-2b, hibiki-1b, demo-interpreter) "
              "or a model folder")  # engine.PRESETS (tested to match); engine is not imported to parse arguments
STT_MODEL_HELP = "a speech-to-text preset (demo-stt, stt-1b-en_fr, stt-2.6b-en) or a Kyutai STT model folder"
# ... engine.families.CAPTION_PRESETS (tested to match)


def _add_model_options(p: argparse.ArgumentParser, remembered: bool = False) -> None:
    """``remembered``: the app falls back to the choices saved in its settings (defaults None)."""
    p.add_argument("--model", default=None if remembered else "demo",
                   help=MODEL_HELP)
    p.add_argument("--device", default=None if remembered else "auto", choices=["auto", "cpu", "cuda"])
    p.add_argument("--precision", default=None if remembered else "auto", choices=PRECISIONS,
                   help="auto: on CUDA bfloat16 where it fits in the GPU's free memory, else int8 (it says which "
                        "and why); on CPUs with AMX or AVX512-BF16 bfloat16 (weights only for the matmuls "
                        "measured faster), float32 elsewhere; float32: the reference's exact results; int8: int8 "
                        "LM weights, quantised while loading; fp8: float8 e4m3 LM weights, as many bytes as int8 "
                        "(opt-in; multiplied natively on GPUs of compute capability 8.9 and later); int4: 4-bit LM "
                        "weights (experimental, opt-in: can "
                        "lower the model's quality)")
    p.add_argument("--int8", dest="precision", action="store_const", const="int8", help="same as --precision int8")
    p.add_argument("--no-cuda-graph", action="store_true", help="run the frame step eagerly on CUDA")
    p.add_argument("--verbose", action="store_true", help="show tracebacks and debug logs")


def build_parser() -> argparse.ArgumentParser:
    from engine import DEFAULT_SEED, SamplingConfig

    defaults = SamplingConfig()
    default = " (default: the persona's, else {})".format
    parser = argparse.ArgumentParser(prog="parley", description="Local real-time voice assistant.")
    _add_model_options(parser, remembered=True)
    sub = parser.add_subparsers(dest="command")

    off = sub.add_parser("offline", help="run a wav through the model and write the reply")
    _add_model_options(off)
    off.add_argument("--input", required=False, help="input wav (any rate, any channel count)")
    off.add_argument("--output", required=False, help="output wav, 24 kHz mono, as long as the input "
                     "(an interpreter's: the whole translation, which ends after the input)")
    off.add_argument("--json", help="write text and tokens as JSON here")
    off.add_argument("--text", help="write the model's text (an interpreter's translation) here, UTF-8")
    off.add_argument("--translation-tail", type=float, default=None, metavar="SECONDS",
                     help="an interpreter's translation goes on at most this long after the input "
                          "(default 20; it stops when the model says it has finished)")
    off.add_argument("--seed", type=int, default=DEFAULT_SEED)
    off.add_argument("--persona", help="start the conversation as this persona (`parley personas`): its sampling, "
                     "and on PersonaPlex its voice and role; the options below override them (its 'wait for me' "
                     "applies in the app, where your speech ends it)")
    off.add_argument("--temp", type=float, help="audio temperature (0 = greedy)" + default(defaults.temp))
    off.add_argument("--temp-text", type=float, help="text temperature (0 = greedy)" + default(defaults.temp_text))
    off.add_argument("--top-k", type=int, help="audio tokens to sample from" + default(defaults.top_k))
    off.add_argument("--top-k-text", type=int, help="text tokens to sample from" + default(defaults.top_k_text))
    off.add_argument("--voice-prompt", help="PersonaPlex voice: a shipped name (default NATF0), the name of one of "
                     "your voices (`parley voices`), a .pt file, a recording (WAV, FLAC, Ogg, MP3), or 'none' "
                     "(advanced: no voice prompt, an arbitrary voice)")
    off.add_argument("--text-prompt", help="PersonaPlex role prompt")
    off.add_argument("--save-state", help="save the conversation here at the end of the input")
    off.add_argument("--resume", help="continue the conversation saved in this file (either kind)")
    off.add_argument("--compact", action="store_true",
                     help="save the frames to replay instead of the state snapshot (default for the 7B models)")
    off.add_argument("--journal", help="write a crash journal here as frames run (see `parley recover`)")

    stt = sub.add_parser("transcribe", help="write what is said in a recording as text (Kyutai STT)")
    stt.add_argument("--model", default="demo-stt", help=STT_MODEL_HELP)
    stt.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"])
    stt.add_argument("--precision", default="auto", choices=PRECISIONS,
                     help="auto: bfloat16 on CUDA, float32 on the CPU (the reference's exact text); int8/int4: "
                          "quantised LM weights")
    stt.add_argument("--input", required=False, help="the recording (WAV, FLAC, Ogg, MP3; any rate, any channels)")
    stt.add_argument("--output", help="write the words here: .srt (SubRip), .vtt (WebVTT) or .txt; "
                     "without it they are printed")
    stt.add_argument("--verbose", action="store_true", help="show tracebacks and debug logs")

    rec = sub.add_parser("recover", help="rebuild a conversation file from a crash journal")
    _add_model_options(rec)
    rec.add_argument("journal", help="the journal (written by the app or `parley offline --journal`)")
    rec.add_argument("--save-state", required=True, help="write the rebuilt conversation here")
    rec.add_argument("--json", help="write frames recovered, frames lost and rebuild_seconds as JSON here")

    test = sub.add_parser("selftest", help="headless check of the whole chain; prints one JSON line")
    test.add_argument("--device", dest="selftest_device", default="cpu", choices=["auto", "cpu", "cuda"],
                      help="where the chain runs (default cpu); cuda adds the GPU and CUDA-graph check")

    cmp = sub.add_parser("compare-precision", help="how far lighter precisions' tokens are from a reference "
                         "precision's on one recording (teacher-forced agreement and text KL)")
    cmp.add_argument("--model", default="demo", help=MODEL_HELP)
    cmp.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"])
    cmp.add_argument("--verbose", action="store_true", help="show tracebacks and debug logs")
    cmp.add_argument("--input", required=True, help="the user's side of a conversation (any rate, channels)")
    cmp.add_argument("--precisions", nargs="+", required=True, choices=[p for p in PRECISIONS if p != "auto"],
                     help="the first is the reference, e.g. bfloat16 int8")
    cmp.add_argument("--json", help="write the figures as JSON here")

    conv = sub.add_parser("conversations", help="list the saved conversations (reads file headers only)")
    conv.add_argument("--folder", help="the folder to list (default: the app's conversations folder)")
    conv.add_argument("--json", action="store_true",
                      help="one JSON object per line (ASCII): path, title, created, seconds, model, bytes, persona (or "
                           "error); bytes of a file name that are not UTF-8 are written \\xNN")
    add_say_parser(sub)
    add_chat_parser(sub, STT_MODEL_HELP)
    add_llm_key_parser(sub)
    add_voices_parser(sub)
    add_personas_parser(sub)
    return parser


def add_say_parser(sub) -> None:
    say = sub.add_parser("say", help="speak a text with Pocket TTS (kyutai's CPU text to speech) or Kyutai TTS")
    say.add_argument("--model", default="pocket-tts", help="pocket-tts (English), pocket-tts-<language> (french, "
                     "german, portuguese, italian, spanish, dutch; <language>_24l: 24 layers), kyutai-tts (English "
                     "and French, for an NVIDIA GPU) or a folder in either released layout")
    say.add_argument("--language", help="the language row of a model folder (default: english, or its only one)")
    say.add_argument("--text", help="the text to speak")
    say.add_argument("--text-file", help="a UTF-8 file holding the text to speak")
    say.add_argument("--voice", help="a shipped voice's name (e.g. alba), one of your voices by name (`parley "
                     "voices`), a voice state (.safetensors) or a recording of at least 5 s (yours and recordings "
                     "need the voice-cloning weights); kyutai-tts: a name in "
                     "kyutai/tts-voices (e.g. expresso/ex03-ex01_happy_001_channel1_334s.wav) or a voice file")
    say.add_argument("--output", help="write the speech here (WAV, 24 kHz); without it, it plays as it is made")
    say.add_argument("--json", help="write text tokens, per-frame latents (kyutai-tts: audio codes), end frames and "
                     "timings as JSON here")
    say.add_argument("--temp", type=float, help="sampling temperature (default: the model's, 0.3; kyutai-tts 0.6; "
                     "0 = greedy)")
    say.add_argument("--seed", type=int, default=0)
    say.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"])
    say.add_argument("--precision", default="auto", choices=["auto", "float32", "bfloat16"],
                     help="auto/float32: the package's exact results; bfloat16: where the CPU multiplies it natively")
    say.add_argument("--verbose", action="store_true", help="show tracebacks and debug logs")


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "voices":  # no model runs: nothing to announce
        from app.voices.cli import voices_command

        return voices_command(args)
    if args.command == "llm-key":
        from app.cli.llm_key import run_llm_key

        return run_llm_key(args)
    if args.command == "personas":
        from app.voices.personas_cli import personas_command

        return personas_command(args)
    if args.command not in ("selftest", "conversations"):  # the selftest reports it in its JSON line
        from app.models.device_report import announce_cpu_fallback

        announce_cpu_fallback(args.device)
    if args.command == "offline":
        from app.cli.offline import run_offline

        return run_offline(args)
    if args.command == "say":
        from app.cli.say import run_say

        return run_say(args)
    if args.command == "chat":
        from app.cli.chat import run_chat

        return run_chat(args)
    if args.command == "transcribe":
        from app.cli.transcribe import run_transcribe

        return run_transcribe(args)
    if args.command == "recover":
        from app.cli.offline import run_recover

        return run_recover(args)
    if args.command == "compare-precision":
        from app.cli.offline import run_compare_precision

        return run_compare_precision(args)
    if args.command == "conversations":
        return list_conversations_command(args)
    if args.command == "selftest":
        from app.cli.selftest import run_selftest

        return run_selftest(args.selftest_device)
    from app.window.gui import run_gui

    return run_gui(args)


def list_conversations_command(args) -> int:
    """One line (tab-separated) or one JSON object per conversation; unreadable files say why.
    Exit code 2 only when the folder itself cannot be listed."""
    import json
    from pathlib import Path

    from app import paths
    from app.library.listing import list_conversations, listing_problem

    folder, problem = (Path(args.folder), "") if args.folder else paths.usable(paths.conversations_dir)
    if not problem and not folder.is_dir():
        problem = f"{folder} is not a folder"
    problem = problem or listing_problem(folder)  # unreadable: said, not an empty list
    if problem:
        print(f"parley: {problem}", file=sys.stderr)
        return 2
    for entry in list_conversations(folder):
        print(json.dumps(entry.as_json()) if args.json else entry.as_line())  # JSON: ASCII, nothing raw
    return 0


if __name__ == "__main__":
    sys.exit(main())
