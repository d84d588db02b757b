"""How far a lighter precision's model is from a reference precision's on the same conversation:
each runs teacher-forced on the reference's greedy tokens (free runs part at the first differing
token); reported are token agreements and the mean KL(reference || precision) of the text."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass

import numpy as np
import torch

from ..audio import FRAME_SIZE
from ..lm.generate import NO_FORCING, Forcing, Probe, SamplingConfig
from .frame_step import FrameOptions

MAX_FRAMES = 3000  # the reference's text distributions are kept for every frame (~128 KB a frame)


@dataclass(frozen=True)
class PrecisionAgreement:
    precision: str
    loaded_as: str  # the precision the model loaded in (``auto`` resolved, say)
    frames: int
    text_agreement: float  # frames whose greedy text token equals the reference's
    audio_agreement: float  # the assistant's audio tokens (all codebooks, all frames) equal to the reference's
    frame_agreement: float  # frames whose every assistant token equals the reference's
    mean_text_kl: float  # nats: KL(reference || this) of the text distribution, mean over frames

    def as_json(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class _Run:
    user_codes: torch.Tensor  # [frames, user streams]
    tokens: torch.Tensor  # [frames, 1 + agent streams]: what the reference wrote
    log_probs: torch.Tensor  # [frames, text_card] float32


def compare_precisions(load: Callable[[str], object], pcm: np.ndarray, precisions: Sequence[str],
                       seed: int = 0) -> list[PrecisionAgreement]:
    """``load(precision)`` gives the same model in that precision (each released before the next);
    ``pcm`` is the user's side at 24 kHz, float32."""
    if not precisions:
        raise ValueError("name at least one precision")
    pcm = np.asarray(pcm, np.float32).reshape(-1)
    frames = -(-pcm.size // FRAME_SIZE)
    if not 0 < frames <= MAX_FRAMES:
        raise ValueError(f"the recording must hold 1 to {MAX_FRAMES} frames of {FRAME_SIZE} samples, got {frames}")
    padded = np.zeros(frames * FRAME_SIZE, np.float32)
    padded[:pcm.size] = pcm
    reference = _reference_run(load(precisions[0]), padded, seed)
    results = []
    for precision in precisions:
        results.append(_agreement(precision, load(precision), reference, seed))
    return results


def _session(model, seed: int):
    """A greedy conversation on ``model`` kept out of the journal and recording."""
    return model.new_session(SamplingConfig.greedy(), seed=seed, record_audio=False)


def _run_frames(frame, user_codes: torch.Tensor, forcing: Forcing, probe: Probe, before=None) -> None:
    """Each row of ``user_codes`` as one frame (given codes, no codec), ``before(i)`` first."""
    options = FrameOptions(encode=False, codes_given=True, decode=False, forcing=forcing)
    for i in range(user_codes.shape[0]):
        if before is not None:
            before(i)
        frame.user_codes.copy_(user_codes[i:i + 1])
        frame.run(options, probe)


def _reference_run(model, pcm: np.ndarray, seed: int) -> _Run:
    session = _session(model, seed)
    generator = session.generator
    mimi = model.mimi
    with torch.inference_mode():
        codes = mimi.encode(torch.from_numpy(pcm).to(model.device, mimi.pcm_dtype).view(1, 1, -1))
    user = codes[0, :generator.user_streams].T.contiguous()
    agent = 1 + generator.agent_streams
    tokens, log_probs = [], []

    def keep(text_logits: torch.Tensor, sampled: torch.Tensor) -> None:
        tokens.append(sampled[0, :agent].to("cpu", copy=True))
        log_probs.append(torch.log_softmax(text_logits[0].float(), -1).cpu())

    _run_frames(session.frame_step, user, NO_FORCING, Probe(sampled=keep))
    return _Run(user.cpu(), torch.stack(tokens), torch.stack(log_probs))


def _agreement(precision: str, model, reference: _Run, seed: int) -> PrecisionAgreement:
    session = _session(model, seed)
    generator = session.generator
    device, frames = model.device, reference.tokens.shape[0]
    streams = torch.zeros(generator.config.token_streams, dtype=torch.bool, device=device)
    agent = 1 + generator.agent_streams
    streams[:agent] = True  # PersonaPlex's user streams stay its own (the user's codes are provided)
    written = torch.zeros(1, generator.config.token_streams, dtype=torch.long, device=device)
    forcing = Forcing(written, streams)
    predicted, kl = [], []

    def compare(text_logits: torch.Tensor, sampled: torch.Tensor) -> None:
        predicted.append(sampled[0, :agent].to("cpu", copy=True))
        log_p = torch.log_softmax(text_logits[0].float(), -1).cpu()
        ref = reference.log_probs[len(kl)]
        kl.append(max(0.0, float((ref.exp() * (ref - log_p)).sum())))  # >= 0 but for float rounding

    def force(i: int) -> None:
        written[0, :agent] = reference.tokens[i].to(device)

    _run_frames(session.frame_step, reference.user_codes.to(device), forcing, Probe(sampled=compare), force)
    same = torch.stack(predicted) == reference.tokens
    return PrecisionAgreement(precision, model.info.precision.value, frames, float(same[:, 0].float().mean()),
                              float(same[:, 1:].float().mean()), float(same.all(dim=1).float().mean()),
                              float(np.mean(kl)))
