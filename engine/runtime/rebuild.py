"""Replaying a journal's frames into a session's state, with the journaled tokens forced.

The temporal transformer steps through every frame: each frame is the generator's own ``step``
with the journaled tokens forced (``engine.lm.generate.Forcing``), without sampling, the text head
or the depth transformer, except on the last frame, whose depth-transformer cache is part of the
state (it is reset every frame, so the last frame alone determines it). The generator advances its
RNG counter by the draws sampling would have made.

Mimi's encoder and decoder stream only over the last frames that their state depends on
(``Mimi.exact_after_frames``, about 82 s for the released codec), from a fresh state seeked to
that frame. The encoder's codes are not needed (the journal has them): they are compared with the
journaled ones over the frames where they must come out exact, which a different machine or
precision may not reproduce. The decoder's output there is the assistant's audio; before that,
the audio is decoded from the codes in larger pieces, which is faster.

``replay_frames`` changes only the state tree and the frame step's buffers; the session that owns
them (``Session.rebuild_from``) takes what it returns for its own counters, transcript and
recording.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch

from ..audio import FRAME_SECONDS, FRAME_SIZE
from ..codec.mimi import OFFLINE_CHUNK_FRAMES
from ..errors import RecoveryCancelled
from ..files.journal import Journal
from ..lm.generate import Forcing
from .frame_step import FrameStep

Progress = Callable[[int, int], None]  # (frames rebuilt, frames in all)
# Frames, beyond what Mimi's state needs, whose re-encoded codes are compared with the journal's.
VERIFY_FRAMES = 12


@dataclass(frozen=True)
class ReplayedFrames:
    frames: int
    decoded_frames: int  # of them, those Mimi decoded (the generator's output was aligned)
    transcript: tuple[tuple[int, float, str], ...]  # (frame index, seconds, text piece)
    assistant_audio: np.ndarray  # float32 [frames, FRAME_SIZE]; silence before the first decoded frame
    encoder_mismatches: int  # checked frames whose re-encoded user codes differ from the journaled ones
    codec_frames: int  # the last frames, over which Mimi was replayed


def codec_replay_start(mimi, frames: int) -> int:
    """The first frame from which a rebuild of ``frames`` frames runs Mimi: late enough to skip
    what no longer matters, early enough that Mimi's state (``exact_after_frames``) and the codes
    of the last ``VERIFY_FRAMES`` frames come out exact. 0: Mimi replays every frame."""
    start = frames - mimi.exact_after_frames() - VERIFY_FRAMES
    return start if start > 0 else 0


def replay_frames(step: FrameStep, tokenizer, journal: Journal, frames: int, first_step: int,
                  progress: Progress | None = None, cancel: Callable[[], bool] | None = None) -> ReplayedFrames:
    """Replay the first ``frames`` frames of ``journal`` into ``step``'s state, whose generator has
    already made ``first_step`` steps (PersonaPlex's prompt phases). Raises ``RecoveryCancelled``
    when ``cancel()`` returns True (checked every frame).

    The assistant's audio before Mimi's exact replay is decoded from its codes in
    ``OFFLINE_CHUNK_FRAMES`` pieces on a separate state, as ``Mimi.decode`` does (equal to the live
    stream's output within float rounding, and 3.5x faster than streaming it)."""
    generator, mimi, state = step.generator, step.mimi, step.state
    device = step.device
    first_decoded = max(0, generator.first_output_frame - first_step)  # the first frame Mimi decodes
    codec_from = codec_replay_start(mimi, frames)
    exact_from = codec_from + mimi.exact_after_frames() if codec_from else 0
    mimi.seek(state["mimi"], codec_from, max(0, codec_from - first_decoded))
    mismatches = 0
    assistant_audio, transcript = np.zeros((frames, FRAME_SIZE), np.float32), []
    offline = _OfflineDecoder(mimi, assistant_audio)
    with torch.inference_mode():
        for i in range(frames):
            if cancel is not None and cancel():
                raise RecoveryCancelled(f"recovery cancelled after {i} of {frames} frames")
            user = torch.from_numpy(journal.user_codes[i]).view(1, -1).to(device)
            if i >= codec_from:
                step.pcm_in.copy_(torch.from_numpy(journal.pcm[i]).view(1, 1, FRAME_SIZE))
                codes = mimi.encode_step(step.pcm_in, state["mimi"])[:, :, 0]
                mismatches += i >= exact_from and not torch.equal(codes, user)
            tokens = torch.from_numpy(journal.tokens[i]).view(1, -1).to(device)
            text, audio = generator.step(user, state["gen"], forced=Forcing(tokens), sample=i == frames - 1)
            if i >= first_decoded:
                agent = audio[:, :mimi.num_codebooks, None]
                if i >= codec_from:
                    step.pcm_out.copy_(mimi.decode_step(agent, state["mimi"]))
                if i >= exact_from:
                    assistant_audio[i] = step.pcm_out.view(-1).to("cpu", torch.float32).numpy()
                else:
                    offline.add(i, agent, last=i == min(exact_from, frames) - 1)
                piece = tokenizer.piece(int(text[0]))
                if piece:
                    transcript.append((i, round(i * FRAME_SECONDS, 2), piece))
            if progress is not None and (i % 10 == 9 or i == frames - 1):
                progress(i + 1, frames)
    return ReplayedFrames(frames, max(0, frames - first_decoded), tuple(transcript), assistant_audio,
                          mismatches, frames - codec_from)


class _OfflineDecoder:
    """Decodes the assistant's codes of the frames before the exact replay in pieces of
    ``OFFLINE_CHUNK_FRAMES`` from a fresh state (``Mimi.decode``'s chunking), writing each
    frame's audio into its row of ``audio`` [frames, FRAME_SIZE]."""

    def __init__(self, mimi, audio: np.ndarray):
        self.mimi, self.audio = mimi, audio
        self.state = None
        self.frames: list[int] = []
        self.codes: list[torch.Tensor] = []

    def add(self, frame: int, codes: torch.Tensor, last: bool) -> None:
        if self.state is None:
            self.state = self.mimi.init_state(1, codes.device)
        self.frames.append(frame)
        self.codes.append(codes)
        if len(self.codes) == OFFLINE_CHUNK_FRAMES or last:
            pcm = self.mimi.decode_step(torch.cat(self.codes, dim=-1), self.state)
            self.audio[self.frames] = pcm.view(len(self.codes), FRAME_SIZE).to("cpu", torch.float32).numpy()
            self.frames, self.codes = [], []
