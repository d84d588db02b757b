"""Regenerate the MOSS-Audio-Tokenizer reference trace (run by hand; never by the tests).

    PYTHONPATH=<site with transformers 5.0.0> python tests/data/moss_codec/make_trace.py \
        <checkout of OpenMOSS/MOSS-Audio-Tokenizer> tests/data/moss_codec

It builds the reference's own ``MossAudioTokenizerModel`` from ``config.json`` here (a small
config in the released format, 0.4 s context so the ring caches wrap), fills every parameter from
a seeded generator, writes the state dict unchanged as ``model.safetensors`` (the released
layout), and decodes random 16-codebook codes the way MOSS-TTS-Realtime streams them: inside
``codec.streaming()``, ``decode`` on 3 frames a call, the remainder last (``pcm``), and ramping
1, 2, 3, 4, 4, ... frames a call (``pcm_ramp``). ``trace.safetensors`` keeps the codes and both PCMs;
its metadata the seed, the chunkings and the reference commit.
"""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
import types
from pathlib import Path

import torch
from safetensors.torch import save_file

SEED = 20261207
FRAMES = 20
CODEBOOKS = 16
CHUNK_FRAMES = 3
# AudioStreamDecoder(chunk_frames=4, initial_chunk_frames=1), as fast_api.py ramps (it to 6 frames);
# its calls cross the 3-frame calls' boundaries from frame 6 on
RAMP = [1, 2, 3, 4, 4, 4, 2]


def randomize(model: torch.nn.Module, gen: torch.Generator) -> None:
    """Weights of a size that keeps every path (attention, layer scales, norms) visible in the output."""
    with torch.no_grad():
        for name, p in model.named_parameters():
            noise = torch.randn(p.shape, generator=gen)
            if name.endswith("layer_scale_1.scale") or name.endswith("layer_scale_2.scale"):
                p.copy_(0.3 + 0.2 * noise.abs())
            elif ".norm" in name and name.endswith(".weight"):
                p.copy_(1 + 0.1 * noise)
            elif name.endswith("bias"):
                p.copy_(0.1 * noise)
            elif name.endswith("original0"):  # weight norm's g
                p.copy_(1 + 0.2 * noise)
            elif p.dim() >= 2 and "codebook" not in name:
                p.copy_(noise / p.shape[1] ** 0.5)
            else:
                p.copy_(noise)


def decode(model, codes: torch.Tensor, sizes: list[int]) -> torch.Tensor:
    """``decode`` on calls of ``sizes`` frames inside one ``streaming()``."""
    pieces, start = [], 0
    with torch.no_grad(), model.streaming(batch_size=1):
        for size in sizes:
            pieces.append(model.decode(codes[:, start:start + size]).audio)
            start += size
    assert start == codes.shape[1]
    return torch.cat(pieces, dim=-1)


def main(reference: Path, out: Path) -> None:
    package = types.ModuleType("moss_reference")  # the checkout's files as one package (relative imports)
    package.__path__ = [str(reference)]
    sys.modules["moss_reference"] = package
    modeling = importlib.import_module("moss_reference.modeling_moss_audio_tokenizer")
    configuration = importlib.import_module("moss_reference.configuration_moss_audio_tokenizer")
    config = configuration.MossAudioTokenizerConfig(**json.loads((out / "config.json").read_text()))
    model = modeling.MossAudioTokenizerModel(config).eval()
    gen = torch.Generator().manual_seed(SEED)
    randomize(model, gen)
    state = {k: v.detach().contiguous() for k, v in model.state_dict().items()}
    save_file(state, str(out / "model.safetensors"))

    codes = torch.randint(0, config.quantizer_kwargs["codebook_size"], (CODEBOOKS, FRAMES), generator=gen)
    pcm = decode(model, codes, [CHUNK_FRAMES] * (FRAMES // CHUNK_FRAMES) + [FRAMES % CHUNK_FRAMES])
    pcm_ramp = decode(model, codes, RAMP)
    commit = subprocess.run(["git", "-C", str(reference), "rev-parse", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    import transformers
    meta = {"seed": str(SEED), "chunk_frames": str(CHUNK_FRAMES), "ramp": json.dumps(RAMP),
            "codebooks": str(CODEBOOKS),
            "reference": "github.com/OpenMOSS/MOSS-Audio-Tokenizer", "reference_commit": commit or "unknown",
            "torch": torch.__version__, "transformers": transformers.__version__}
    save_file({"codes": codes.contiguous(), "pcm": pcm.contiguous(), "pcm_ramp": pcm_ramp.contiguous()},
              str(out / "trace.safetensors"), metadata=meta)
    print(json.dumps(meta), tuple(pcm.shape), float(pcm.abs().max()))


if __name__ == "__main__":
    main(Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve())
