"""PersonaPlex prompts: the text role prompt, voice prompts, and the prompt phase sequence.

Before live audio, with a 440 Hz sine as user audio throughout: the voice prompt (its Mimi codes,
or a released voice's stored embeddings and token cache), ``SILENCE_FRAMES`` of silence, the text
prompt one token per frame, then ``SILENCE_FRAMES`` more. Released ``.pt`` voices are read once
with ``torch.load(weights_only=True)`` and converted to safetensors for every later load.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import torch
from safetensors import SafetensorError, safe_open
from safetensors.torch import save

from ..atomic import write_atomically
from ..audio import FRAME_SECONDS, FRAME_SIZE
from ..state import StateTree
from .personaplex_generator import PROMPT_CHUNK_STEPS, PersonaPlexGenerator
from .state_values import all_finite, check_token_cache
from .step import Forcing

log = logging.getLogger(__name__)

SILENCE_TOKENS = (948, 243, 1178, 546, 1736, 1030, 1978, 2008)  # Mimi codes of a silent frame
SINE_TOKENS = (430, 1268, 381, 1611, 1095, 1495, 56, 472)  # Mimi codes of a 440 Hz frame
SILENCE_FRAMES = 6  # int(0.5 s * 12.5 Hz)
VOICE_FORMAT = "parley-voice-prompt-1"
SYSTEM_TAG = "<system>"
MAX_VOICE_SECONDS = 120.0  # the longest voice prompt (PersonaPlex's own are ~10 s)
MAX_VOICE_FRAMES = int(MAX_VOICE_SECONDS / FRAME_SECONDS)
MAX_VOICE_DIM = 32768  # an embedding's width (the 7B's is 4096)
MAX_VOICE_CACHE = (64, 64)  # a voice's token cache: streams, columns (the 7B's: 17, 4)


def wrap_with_system_tags(text: str) -> str:
    """``"<system> {text} <system>"`` (stripped), unless the text is already wrapped."""
    text = text.strip()
    if text.startswith(SYSTEM_TAG) and text.endswith(SYSTEM_TAG) and len(text) > len(SYSTEM_TAG):
        return text
    return f"{SYSTEM_TAG} {text} {SYSTEM_TAG}"


def text_prompt_tokens(text: str, tokenizer) -> list[int]:
    """Token ids of the role prompt: the wrapped text encoded (plain ids, no BOS)."""
    if not isinstance(text, str):
        raise ValueError(f"expected the text prompt as a str, got {type(text).__name__}")
    return [int(t) for t in tokenizer.encode(wrap_with_system_tags(text))]


# ------------------------------------------------------------------------------ voice prompts

@dataclass(frozen=True)
class VoicePrompt:
    """Either Mimi codes of a voice recording (``codes`` [N, 8] long, one row per frame) or a
    released voice's replay data (``embeddings`` [N, 1, 1, dim] float + ``cache`` [1, 17, 4] long)."""

    codes: torch.Tensor | None = None
    embeddings: torch.Tensor | None = None
    cache: torch.Tensor | None = None

    def __post_init__(self):
        if (self.codes is None) == (self.embeddings is None):
            raise ValueError("a voice prompt has either codes or embeddings (with a cache)")
        if self.embeddings is not None:
            _check_voice_tensors(self.embeddings, self.cache, "voice prompt")
        elif self.codes.dtype != torch.long or self.codes.dim() != 2 or self.codes.shape[1] != 8:
            raise ValueError(f"expected voice codes as a long tensor [frames, 8], got "
                             f"{tuple(self.codes.shape)} {self.codes.dtype}")
        elif self.codes.shape[0] > MAX_VOICE_FRAMES:
            raise ValueError(f"a voice prompt of {self.codes.shape[0]} frames; at most {MAX_VOICE_FRAMES} "
                             f"({MAX_VOICE_SECONDS:.0f} s)")


def _check_voice_tensors(embeddings, cache, where: str) -> None:
    if not isinstance(embeddings, torch.Tensor) or not embeddings.is_floating_point() or embeddings.dim() != 4 \
            or embeddings.shape[0] < 1 or tuple(embeddings.shape[1:3]) != (1, 1):
        got = f"{tuple(embeddings.shape)} {embeddings.dtype}" if isinstance(embeddings, torch.Tensor) else \
            type(embeddings).__name__
        raise ValueError(f"{where}: expected 'embeddings' as a float tensor [N, 1, 1, dim], got {got}")
    if not isinstance(cache, torch.Tensor) or cache.dtype != torch.long or cache.dim() != 3 or cache.shape[0] != 1:
        got = f"{tuple(cache.shape)} {cache.dtype}" if isinstance(cache, torch.Tensor) else type(cache).__name__
        raise ValueError(f"{where}: expected 'cache' as a long tensor [1, streams, columns], got {got}")
    _check_voice_sizes(tuple(embeddings.shape), tuple(cache.shape), where)
    if not all_finite(embeddings):
        raise ValueError(f"{where}: its embeddings hold NaN or infinite values")


def _check_voice_sizes(embeddings: tuple[int, ...], cache: tuple[int, ...], where: str) -> None:
    """A voice's tensor shapes within ``MAX_VOICE_*`` (checked from a file's header before reading)."""
    if len(embeddings) != 4 or not 1 <= embeddings[0] <= MAX_VOICE_FRAMES or not 1 <= embeddings[3] <= MAX_VOICE_DIM:
        raise ValueError(f"{where}: embeddings {embeddings}; at most {MAX_VOICE_FRAMES} frames "
                         f"({MAX_VOICE_SECONDS:.0f} s) of width {MAX_VOICE_DIM}")
    if len(cache) != 3 or cache[1] > MAX_VOICE_CACHE[0] or cache[2] > MAX_VOICE_CACHE[1]:
        raise ValueError(f"{where}: a token cache {cache}; at most {MAX_VOICE_CACHE} streams and columns")


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def converted_voice_path(pt_path: str | Path, cache_dir: str | Path | None = None) -> Path:
    """Where the safetensors copy of a ``.pt`` voice lives: next to it, or in ``cache_dir``."""
    pt_path = Path(pt_path)
    if cache_dir is None:
        return pt_path.with_suffix(".safetensors")
    return Path(cache_dir) / f"{pt_path.stem}-{_sha256(pt_path)[:12]}.safetensors"


def load_voice_prompt(path: str | Path, cache_dir: str | Path | None = None) -> VoicePrompt:
    """Load a converted ``.safetensors`` or a released ``.pt`` voice; a ``.pt`` is converted on first
    use, and again when its SHA-256 no longer matches the copy's record."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"voice prompt {path} does not exist")
    if path.suffix == ".safetensors":
        return _read_converted(path, expected_source=None)
    if path.suffix != ".pt":
        raise ValueError(f"voice prompt {path.name}: expected a .pt or .safetensors file "
                         "(for a recording, encode it with voice_prompt_from_pcm)")
    target = converted_voice_path(path, cache_dir)
    digest = _sha256(path)
    if target.is_file():
        try:
            return _read_converted(target, expected_source=digest)
        except ValueError as e:
            log.info("re-converting voice prompt %s (%s)", path.name, e)
    embeddings, cache = _read_pickle(path)
    converted = save({"embeddings": embeddings.contiguous(), "cache": cache.contiguous()},
                     metadata={"format": VOICE_FORMAT, "source": path.name, "source_sha256": digest})
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(target, converted)
        log.info("converted voice prompt %s to %s; later loads read that file, never the pickle", path, target)
    except OSError as e:  # the voice is usable all the same; the next load converts it again
        log.warning("cannot keep the converted voice prompt %s (%s): it is converted again next time", target,
                    e.strerror or e)
    return VoicePrompt(embeddings=embeddings, cache=cache)


def _read_pickle(path: Path) -> tuple[torch.Tensor, torch.Tensor]:
    try:
        content = torch.load(path, weights_only=True, map_location="cpu")
    except Exception as e:  # the restricted unpickler refuses anything but tensors and containers
        raise ValueError(f"voice prompt {path.name} is not a tensors-only torch file: {e}") from e
    if not isinstance(content, dict) or not {"embeddings", "cache"} <= set(content):
        keys = sorted(map(str, content)) if isinstance(content, dict) else type(content).__name__
        raise ValueError(f"voice prompt {path.name}: expected a dict with keys 'embeddings' and 'cache', got {keys}")
    extra = sorted(map(str, set(content) - {"embeddings", "cache"}))
    if extra:
        log.info("voice prompt %s: ignoring entries %s (only 'embeddings' and 'cache' are used)", path.name, extra)
    _check_voice_tensors(content["embeddings"], content["cache"], f"voice prompt {path.name}")
    return content["embeddings"], content["cache"]


def _read_converted(path: Path, expected_source: str | None) -> VoicePrompt:
    try:
        with safe_open(str(path), framework="pt", device="cpu") as f:
            meta, keys = f.metadata() or {}, set(f.keys())
            if meta.get("format") != VOICE_FORMAT:
                raise ValueError(f"{path.name} is not a converted voice prompt (format {meta.get('format')!r})")
            if expected_source is not None and meta.get("source_sha256") != expected_source:
                raise ValueError(f"{path.name} was converted from a different file")
            if keys != {"embeddings", "cache"}:
                raise ValueError(f"{path.name}: expected tensors 'embeddings' and 'cache', got {sorted(keys)}")
            _check_voice_sizes(tuple(f.get_slice("embeddings").get_shape()), tuple(f.get_slice("cache").get_shape()),
                               f"voice prompt {path.name}")
            tensors = {k: f.get_tensor(k) for k in keys}
    except (SafetensorError, OSError) as e:
        raise ValueError(f"voice prompt {path.name} is not a readable safetensors file: {e}") from e
    return VoicePrompt(embeddings=tensors["embeddings"], cache=tensors["cache"])


def voice_prompt_from_pcm(pcm: torch.Tensor, encode: Callable[[torch.Tensor], torch.Tensor]) -> VoicePrompt:
    """Voice prompt from a 24 kHz mono recording ``pcm`` [samples] at -24 LUFS (last frame zero-padded);
    ``encode`` maps PCM [1, 1, n * 1920] to Mimi codes [1, 8, n]."""
    if not isinstance(pcm, torch.Tensor) or pcm.dim() != 1 or not pcm.is_floating_point() or pcm.numel() == 0:
        raise ValueError("expected the voice recording as a non-empty float tensor [samples] at 24 kHz")
    frames = -(-pcm.numel() // FRAME_SIZE)
    padded = torch.zeros(frames * FRAME_SIZE, dtype=torch.float32, device=pcm.device)
    padded[:pcm.numel()] = pcm.float()
    codes = encode(padded.view(1, 1, -1))
    if tuple(codes.shape) != (1, 8, frames):
        raise ValueError(f"the encoder returned codes {tuple(codes.shape)}, expected (1, 8, {frames})")
    return VoicePrompt(codes=codes[0].T.contiguous().long())


# ------------------------------------------------------------------------------ prompt phases

@dataclass(frozen=True)
class PromptStep:
    """One generator step of the prompt sequence and what it returned."""

    phase: str  # "voice", "silence", "text", "silence2"
    text: torch.Tensor  # [B]
    audio: torch.Tensor  # [B, dep_q]


def run_prompt_phases(gen: PersonaPlexGenerator, state: StateTree, voice: VoicePrompt | None,
                      text_tokens: Sequence[int], silence_frames: int = SILENCE_FRAMES,
                      chunk_steps: int = PROMPT_CHUNK_STEPS) -> list[PromptStep]:
    """Drive a fresh generator state through PersonaPlex's prompt phases.

    PersonaPlex's first call only seeds the token cache, which ``init_state`` already is, so a
    sequence of token frames drops its first (N voice frames give N - 1 steps, as PersonaPlex stores
    N - 1 embeddings). All but the last step are forced, ``chunk_steps`` at a time; the last is
    sampled in full, since its depth-transformer cache is the state's.
    """
    if int(state["tokens"]["offset"]) != 1:  # a host read, fine: prompts run outside the frame loop
        raise ValueError("run_prompt_phases needs a fresh state from PersonaPlexGenerator.init_state")
    batch = state["tokens"]["cache"].shape[0]
    device = state["tokens"]["cache"].device
    pad = gen.config.existing_text_padding_id

    def column(values) -> torch.Tensor:
        return torch.as_tensor(values, dtype=torch.long, device=device).expand(batch, -1).contiguous()

    sine, silence = column(SINE_TOKENS), column(SILENCE_TOKENS)
    frames: list[tuple[str, torch.Tensor, int]] = []  # (phase, agent audio [B, 8], text token)
    done: list[PromptStep] = []
    if voice is not None and voice.embeddings is not None:
        if voice.cache.shape[1:] != state["tokens"]["cache"].shape[1:]:
            raise ValueError(f"the voice prompt's token cache {tuple(voice.cache.shape)} does not fit this "
                             f"model's {tuple(state['tokens']['cache'].shape)}")
        if voice.embeddings.shape[3] != gen.config.dim:
            raise ValueError(f"the voice prompt's embeddings are {voice.embeddings.shape[3]} wide, this model's "
                             f"{gen.config.dim}")
        check_token_cache(voice.cache, gen.config, "the voice prompt's token cache")
        stored = [gen.voice_step(e.expand(batch, -1, -1).to(device)) for e in voice.embeddings]
        done += [PromptStep("voice", *out) for out in gen.forced_steps(state, stored, chunk_steps)]
        state["tokens"]["cache"].copy_(voice.cache.expand(batch, -1, -1))
    elif voice is not None:
        frames += [("voice", row.to(device).expand(batch, -1), pad) for row in voice.codes]
    frames += [("silence", silence, pad)] * silence_frames
    frames += [("text", silence, int(t)) for t in text_tokens]
    frames += [("silence2", silence, pad)] * silence_frames
    if not done:
        frames = frames[1:]  # consumed by PersonaPlex's seed call
    steps = [(sine, Forcing(agent=agent, text=torch.full((batch,), token, dtype=torch.long, device=device),
                            sample=False)) for _, agent, token in frames]
    outputs = gen.forced_steps(state, steps[:-1], chunk_steps)
    done += [PromptStep(phase, *out) for (phase, _, _), out in zip(frames, outputs)]
    if steps:  # sampled in full: its depth-transformer cache is the state's
        user, forcing = steps[-1]
        done.append(PromptStep(frames[-1][0], *gen.step(user, state, replace(forcing, sample=True))))
    return done
