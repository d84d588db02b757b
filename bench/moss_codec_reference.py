"""MOSS-Audio-Tokenizer's decoder at the released shapes: the reference and ours on the same random
weights (ours aliases the reference's tensors), 3 frames a call as MOSS-TTS-Realtime decodes; prints
the largest difference and each call's time. Run by hand (the reference is no package):

    PYTHONPATH=<site with transformers 5.0.0> python -m bench.moss_codec_reference \
        <checkout of OpenMOSS/MOSS-Audio-Tokenizer> [calls] [threads]

The encoder's transformers are left out of the reference's config (its patches stay: they set
the decoder's rates), so both hold one copy of the 887 M decoder parameters (3.5 GB).
"""

from __future__ import annotations

import importlib
import json
import sys
import time
import types
from pathlib import Path

import torch

from engine.checkpoint import stack_split_attention
from engine.moss_tts.codec import REALTIME_CHUNK_FRAMES, MossCodecDecoder
from engine.moss_tts.codec_config import CodecConfig


def reference_modules(checkout: Path):
    package = types.ModuleType("moss_reference")  # the checkout's files as one package (relative imports)
    package.__path__ = [str(checkout)]
    sys.modules["moss_reference"] = package
    return (importlib.import_module("moss_reference.modeling_moss_audio_tokenizer"),
            importlib.import_module("moss_reference.configuration_moss_audio_tokenizer"))


def decoder_only(config: dict) -> dict:
    return {**config, "encoder_kwargs": [e for e in config["encoder_kwargs"]
                                         if e["module_type"] == "PatchedPretransform"]}


def ours_aliasing(reference: torch.nn.Module, cfg: CodecConfig) -> MossCodecDecoder:
    with torch.device("meta"):
        ours = MossCodecDecoder(cfg)
    state = {k: v for k, v in reference.state_dict().items()
             if k.startswith("decoder.") or (k.startswith("quantizer.") and "in_proj" not in k
                                             and not k.startswith("quantizer.input_proj."))}
    ours.load_state_dict(stack_split_attention(state), strict=True, assign=True)
    return ours.eval()


@torch.no_grad()
def main(checkout: Path, calls: int, threads: int) -> None:
    torch.set_num_threads(threads)
    modeling, configuration = reference_modules(checkout)
    config = decoder_only(json.loads((checkout / "config.json").read_text()))
    torch.manual_seed(0)
    reference = modeling.MossAudioTokenizerModel(configuration.MossAudioTokenizerConfig(**config)).eval()
    for name, p in reference.named_parameters():
        if "layer_scale" in name:
            p.uniform_(0.05, 0.2)  # past the 0.01 init, so attention shows in the output
    ours = ours_aliasing(reference, CodecConfig.from_json(config))
    chunk = REALTIME_CHUNK_FRAMES
    codes = torch.randint(0, 1024, (16, calls * chunk), generator=torch.Generator().manual_seed(1))
    state = ours.init_state(1)
    outs: dict[str, list[torch.Tensor]] = {"reference": [], "ours": []}
    times: dict[str, list[float]] = {"reference": [], "ours": []}
    with reference.streaming(batch_size=1):
        for start in range(0, codes.shape[1], chunk):
            part = codes[:, start:start + chunk]
            for who in ("reference", "ours"):
                begin = time.perf_counter()
                if who == "reference":
                    pcm = reference.decode(part).audio.reshape(1, -1)
                else:
                    pcm = ours.decode(part[None], state)
                times[who].append(time.perf_counter() - begin)
                outs[who].append(pcm)
    want, got = torch.cat(outs["reference"], 1), torch.cat(outs["ours"], 1)
    print(f"max |ours - reference| {float((got - want).abs().max()):.3g} (max |reference| "
          f"{float(want.abs().max()):.3g}); {threads} threads")
    for who, seconds in times.items():
        print(f"{who}: seconds per {chunk}-frame call ({chunk * 80} ms of audio):", [round(s, 3) for s in seconds])


if __name__ == "__main__":
    main(Path(sys.argv[1]).resolve(), int(sys.argv[2]) if len(sys.argv) > 2 else 4,
         int(sys.argv[3]) if len(sys.argv) > 3 else 2)
