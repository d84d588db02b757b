"""Replaying a journal's frames into a session's state, with the journaled tokens forced; Mimi
streams only over the last frames its state depends on, earlier audio is decoded in larger pieces."""

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
from .frame_step import FrameOptions, FrameStep

Progress = Callable[[int, int], None]  # (frames rebuilt, frames in all)
VERIFY_FRAMES = 12  # frames beyond Mimi's needs whose re-encoded codes are compared with the journal's


@dataclass(frozen=True)
class ReplayedFrames:
    frames: int
    decoded_frames: int  # of them, those Mimi decoded (the generator's output was aligned)
    transcript: tuple[tuple[int, float, str], ...]  # (frame index, seconds, text piece)
    assistant_audio: np.ndarray  # float32 [frames, FRAME_SIZE]; silence before the first decoded frame
    encoder_mismatches: int  # checked frames whose re-encoded user codes differ from the journaled ones
    codec_frames: int  # the last frames, over which Mimi was replayed


def codec_replay_start(mimi, frames: int) -> int:
    """The first frame a rebuild of ``frames`` runs Mimi from, so Mimi's state and the last ``VERIFY_FRAMES``
    frames' codes come out exact (0: every frame)."""
    start = frames - mimi.exact_after_frames() - VERIFY_FRAMES
    return start if start > 0 else 0


def replay_frames(step: FrameStep, tokenizer, journal: Journal, frames: int, first_step: int,
                  progress: Progress | None = None, cancel: Callable[[], bool] | None = None) -> ReplayedFrames:
    """Replay the first ``frames`` frames of ``journal`` into ``step``'s state, whose generator has
    already made ``first_step`` steps. Raises ``RecoveryCancelled`` when ``cancel()`` returns True.
    Audio before the exact replay is decoded offline in chunks (equal within float rounding)."""
    generator, mimi, device = step.generator, step.mimi, step.device
    first_decoded = max(0, generator.first_output_frame - first_step)  # the first frame Mimi decodes
    codec_from = codec_replay_start(mimi, frames)
    exact_from = codec_from + mimi.exact_after_frames() if codec_from else 0
    mimi.seek(step.state["mimi"], codec_from, max(0, codec_from - first_decoded))
    mismatches = 0
    assistant_audio, transcript = np.zeros((frames, FRAME_SIZE), np.float32), []
    offline = _OfflineDecoder(mimi, assistant_audio)
    with torch.inference_mode():
        for i in range(frames):
            if cancel is not None and cancel():
                raise RecoveryCancelled(f"recovery cancelled after {i} of {frames} frames")
            step.user_codes.copy_(torch.from_numpy(journal.user_codes[i]).view(1, -1))
            if i >= codec_from:
                step.pcm_in.copy_(torch.from_numpy(journal.pcm[i]).view(1, 1, FRAME_SIZE))
            tokens = torch.from_numpy(journal.tokens[i]).view(1, -1).to(device)
            step.run(FrameOptions(encode=i >= codec_from, codes_given=True, decode=i >= max(codec_from, first_decoded),
                                  forcing=Forcing(tokens, sample=i == frames - 1)))
            mismatches += i >= exact_from and not torch.equal(step.encoded, step.user_codes)
            if i >= first_decoded:
                if i >= exact_from:
                    assistant_audio[i] = step.pcm_out.view(-1).to("cpu", torch.float32).numpy()
                else:
                    agent = step.audio[:, :mimi.num_codebooks, None].clone()  # the buffer is the next frame's
                    offline.add(i, agent, last=i == min(exact_from, frames) - 1)
                piece = tokenizer.piece(int(step.text[0]))
                if piece:
                    transcript.append((i, round(i * FRAME_SECONDS, 2), piece))
            if progress is not None and (i % 10 == 9 or i == frames - 1):
                progress(i + 1, frames)
    return ReplayedFrames(frames, max(0, frames - first_decoded), tuple(transcript), assistant_audio,
                          mismatches, frames - codec_from)


class _OfflineDecoder:
    """Decodes the frames before the exact replay in ``OFFLINE_CHUNK_FRAMES`` pieces from a fresh
    state (``Mimi.decode``'s chunking), writing each frame's audio into its row of ``audio``."""

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
