"""Compact conversation files: the journal's contents (codes, tokens, the user's exact samples,
the header's fields) instead of the state snapshot, rebuilt by replaying them (``engine.runtime.replay``).
The assistant's audio is not stored: the replay decodes it again.
"""

from __future__ import annotations

import io
import os
from dataclasses import asdict
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import torch

from ..audio import FRAME_SIZE, SAMPLE_RATE, exact_int16, int16_to_pcm
from ..errors import ConversationFileError
from ..host_memory import check_rebuild_fits
from ..lm.state_values import all_finite
from ..version import VERSION
from . import untrusted
from .captions import Caption, captions_field, read_captions, read_turn_ends
from .conversation import COMPACT, KIND_VERSIONS, MAX_FRAMES, made_by_newer, read_conversation
from .journal import Journal, JournalHeader
from .personas import persona_field

_FLAC, _PCM = "compact.user_flac", "compact.user_pcm"


def compact_contents(header: JournalHeader, user_codes: np.ndarray, tokens: np.ndarray, user_pcm: np.ndarray,
                     transcript: list[tuple[int, float, str]], captions: tuple[Caption, ...] = (),
                     turn_ends: tuple[float, ...] = ()) -> tuple[dict[str, torch.Tensor], dict]:
    """A compact file's tensors and metadata (``write_conversation`` writes them)."""
    frames = len(tokens)
    if user_codes.shape[0] != frames or user_pcm.size != frames * FRAME_SIZE:
        raise ValueError(f"compact file: {frames} frames of tokens, {user_codes.shape[0]} of user codes and "
                         f"{user_pcm.size / FRAME_SIZE:g} of user audio")
    ints = np.int16 if max(int(tokens.max(initial=0)), int(user_codes.max(initial=0))) < 2**15 else np.int32
    tensors = {"compact.user_codes": torch.from_numpy(user_codes.astype(ints)),
               "compact.tokens": torch.from_numpy(tokens.astype(ints))}
    samples = exact_int16(user_pcm)
    if samples is not None:
        tensors[_FLAC] = torch.from_numpy(np.frombuffer(_flac(samples), np.uint8).copy())
    else:  # not 16-bit samples: kept exactly, uncompressed
        tensors[_PCM] = torch.from_numpy(np.ascontiguousarray(user_pcm, np.float32))
    meta = {"version": KIND_VERSIONS[COMPACT], "kind": COMPACT, "model": header.model,
            "fingerprint": header.fingerprint, "frames": frames, "sampling": asdict(header.sampling),
            "seed": header.seed, "prompts": header.prompts, **persona_field(header.persona),
            "user_streams": header.user_streams, "token_streams": header.token_streams, "threads": header.threads,
            "transcript": [list(e) for e in transcript], **captions_field(captions, turn_ends, frames),
            "app_version": VERSION, "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "sample_rate": SAMPLE_RATE}
    return tensors, meta


def read_compact(path: str | os.PathLike, fingerprint: str) -> Journal:
    """The frames of a compact file, as a journal to replay, checked (and that its rebuild fits in
    free memory) before anything is decoded."""
    path = Path(path)
    shapes = {"compact.user_codes": (MAX_FRAMES, 64), "compact.tokens": (MAX_FRAMES, 64)}
    file = read_conversation(path, shapes, allowed_prefixes=(_FLAC, _PCM), fingerprint=fingerprint)
    meta, tensors = file.meta, file.tensors
    try:
        if meta.get("kind") != COMPACT:
            raise ValueError("not a compact conversation")
        header = JournalHeader.from_meta(meta)
        frames = untrusted.integer(meta, "frames", 0, MAX_FRAMES)
        user, tokens = tensors["compact.user_codes"], tensors["compact.tokens"]
        if user.shape != (frames, header.user_streams) or tokens.shape != (frames, header.token_streams):
            raise ValueError("token tables do not match the frame count")
        if user.dtype not in (torch.int16, torch.int32) or tokens.dtype != user.dtype:
            raise ValueError("token tables are not integers")
        check_rebuild_fits(frames, path.name)
        pcm = _user_audio(tensors, frames)
        captions, turn_ends = read_captions(meta, frames), read_turn_ends(meta, frames)
    except ConversationFileError:
        raise
    except untrusted.NewerVersionError as e:
        raise made_by_newer(path, e) from e
    except (KeyError, ValueError) as e:
        raise ConversationFileError(f"{path.name} is a damaged compact conversation ({e}); open another copy.") from e
    return Journal(header, user.numpy().astype(np.int64), tokens.numpy().astype(np.int64),
                   pcm.reshape(frames, FRAME_SIZE), lost_frames=0, damage=None, captions=captions,
                   turn_ends=turn_ends)


def _user_audio(tensors, frames: int) -> np.ndarray:
    if _PCM in tensors:
        pcm = tensors[_PCM]
        if pcm.dtype != torch.float32 or pcm.shape != (frames * FRAME_SIZE,):
            raise ValueError("user audio has the wrong type or length")
        if not all_finite(pcm):
            raise ValueError("user audio holds NaN or infinite samples")
        return pcm.numpy()
    import soundfile

    flac = tensors[_FLAC]
    if flac.dtype != torch.uint8 or flac.dim() != 1:
        raise ValueError("user audio is not a byte string")
    expected = frames * FRAME_SIZE
    try:  # the stream's own header is checked before anything is decoded, and no more than it is read
        with soundfile.SoundFile(io.BytesIO(flac.numpy().tobytes())) as f:
            if (f.samplerate, f.channels, f.frames) != (SAMPLE_RATE, 1, expected):
                raise ValueError(f"user audio is {f.frames} samples at {f.samplerate} Hz in {f.channels} channels, "
                                 f"expected {expected} at {SAMPLE_RATE} Hz in 1")
            samples = f.read(expected, dtype="int16")
    except (RuntimeError, soundfile.LibsndfileError, MemoryError) as e:
        raise ValueError(f"user audio does not decode: {type(e).__name__}: {e}") from e
    if samples.shape != (expected,):
        raise ValueError("user audio is shorter than its header says")
    return int16_to_pcm(samples)


def _flac(samples: np.ndarray) -> bytes:
    import soundfile

    out = io.BytesIO()
    soundfile.write(out, samples, SAMPLE_RATE, format="FLAC", subtype="PCM_16")
    return out.getvalue()
