"""Where `parley say`'s speech goes: the sound card as it is generated, or a WAV file; and the one-line
summary both end with. Shared by every voice model `say` runs."""

from __future__ import annotations

import sys

import numpy as np

from app.cli.offline import UsageError


def deliver(args, audio: np.ndarray, sample_rate: int, player, frames: int, wall: float) -> None:
    """The speech into ``--output``, or played to its end; then the one-line summary."""
    from engine import write_wav

    if args.output:
        write_wav(args.output, audio)
    elif player is not None:
        player.drain()
    seconds = audio.size / sample_rate
    print(f"{frames} frames, {seconds:.1f} s of speech in {wall:.1f} s "
          f"({seconds / max(wall, 1e-9):.2f}x real time)" + (f" -> {args.output}" if args.output else ""),
          file=sys.stderr)


def open_player():
    try:
        from app.audio.speech_out import SpeechOutput

        return SpeechOutput()
    except Exception as e:  # noqa: BLE001 - no sound device: say what to do instead
        raise UsageError(f"no audio output could be opened ({e}); write the speech to a file with --output "
                         "OUT.wav") from None
