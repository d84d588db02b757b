"""`parley transcribe`: a recording's words as text, with times, from a speech-to-text model (Kyutai
STT, or the demo's): printed, or written as SubRip, WebVTT or plain text (by the output's extension)."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from app.cli.offline import UsageError, _check_writable, _one_line_errors


def run_transcribe(args) -> int:
    return _one_line_errors(_transcribe, args)


def _format_of(output: str | None) -> str:
    from engine import SUBTITLE_FORMATS as FORMATS

    if output is None:
        return "txt"
    kind = Path(output).suffix.lower().lstrip(".")
    if kind not in FORMATS:
        raise UsageError(f"--output {output}: the name should end in {', '.join('.' + f for f in FORMATS)} "
                         "(SubRip, WebVTT or plain text)")
    return kind


def _transcribe(args) -> None:
    from engine import load_speech_to_text, read_audio, render_subtitles, words, write_atomically

    if not args.input:
        raise UsageError("transcribe needs --input IN.wav")
    kind = _format_of(args.output)
    _check_writable(args.output)
    pcm = read_audio(args.input)  # a file that is not audio: its AudioFileError, one line, exit 2
    if pcm.size == 0:
        raise UsageError(f"{args.input} contains no audio")
    model = load_speech_to_text(args.model, device=args.device, precision=args.precision)
    t0 = time.perf_counter()
    steps = model.transcribe(pcm)
    elapsed = time.perf_counter() - t0
    text = render_subtitles(words(steps), kind)
    if args.output:
        write_atomically(args.output, text.encode("utf-8"), private=True)  # what a person said: theirs only
    else:
        sys.stdout.write(text)
    where = f" -> {args.output}" if args.output else ""
    print(f"{len(steps)} frames, {1000 * elapsed / max(len(steps), 1):.1f} ms/frame{where}", file=sys.stderr)
