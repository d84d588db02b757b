"""An interpreter's offline run equals kyutai's ``hibiki-zero`` 0.0.4 ``generate`` token for token
(greedy, float32): its lead-in of ``max_delay`` silent frames encoded on their own, the source
through a fresh Mimi encoder from its first frame, the end of the source at ``ceil(duration × 12.5)``
and the padding's frames after it. The checkpoint is Hibiki-Zero's architecture at a tiny width with
random weights (``tests.test_hibiki``), beside a full-size random Mimi, in the released hub layout.
``generate`` itself refuses to run without CUDA, so its body is run here on the package's own
functions (``get_lmgen``, ``encode_inputs``, ``stack_and_pad_audio``)."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
import torch

from engine import FRAME_SIZE, SAMPLE_RATE, SamplingConfig, load_model, read_wav
from tests.conftest import SPEECH
from tests.reference import require_moshi
from tests.test_hibiki import ZERO, write_hub_folder

GEN_SECONDS = 1.2  # generate's gen_duration: the source is padded to this and every frame is stepped
GEN_FRAMES = round(GEN_SECONDS * 12.5)


@pytest.fixture(scope="module")
def folder(tmp_path_factory, demo_model_dir):
    """Hibiki-Zero's layout: its config at tiny widths, random LM weights, the demo's Mimi and tokenizer."""
    root = tmp_path_factory.mktemp("hibiki_zero") / "zero"
    write_hub_folder({**ZERO, "card": 2048, "text_card": 1000}, root, seed=3)
    demo = json.loads((demo_model_dir / "config.json").read_text())
    for name in ("mimi_name", "tokenizer_name"):
        shutil.copy(demo_model_dir / demo[name], root / ZERO[name])
    return root


@pytest.fixture(scope="module")
def model(folder):
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PARLEY_KERNELS", "aten")  # an exact kernel, not measured: this is about the stream
        return load_model(str(folder), device="cpu", precision="float32")


def hibiki_zero_generate(folder: Path, source: np.ndarray) -> tuple[list[int], list[list[int]]]:
    """hibiki_zero.run.generate's steps for one file, greedy, on the CPU: (text, audio codes) per frame."""
    require_moshi()
    from hibiki_zero.client_utils import stack_and_pad_audio
    from hibiki_zero.inference import encode_inputs, get_lmgen
    from moshi.models import loaders

    info = loaders.CheckpointInfo.from_hf_repo(
        "local/hibiki-zero", moshi_weights=folder / ZERO["moshi_name"], mimi_weights=folder / ZERO["mimi_name"],
        tokenizer=folder / ZERO["tokenizer_name"], config_path=folder / "config.json")
    info = dataclasses.replace(info, lm_gen_config={**info.lm_gen_config, "use_sampling": False})
    mimi = info.get_mimi(device="cpu")
    lm = info.get_moshi(device="cpu", dtype=torch.float32)
    wav = torch.from_numpy(source)[None]  # audio_read's mono [1, T]
    durations = [wav.shape[-1] / mimi.sample_rate]
    batch_wavs = stack_and_pad_audio([wav], max_len=int(GEN_SECONDS * mimi.sample_rate))
    lm_gen = get_lmgen(lm, info, batch_size=1)
    codes, warmup_codes = encode_inputs(batch_wavs, mimi, lm_gen, durations)
    text, audio = [], []
    with torch.no_grad(), lm_gen.streaming(1):
        for step in range(warmup_codes.shape[-1]):
            lm_gen.step(warmup_codes[:, :, step:step + 1])
        for step in range(codes.shape[-1]):
            tokens = lm_gen.step(codes[:, :, step:step + 1])
            text.append(int(tokens[0, 0, 0]))
            audio.append(tokens[0, 1:, 0].tolist())
    return text, audio


@pytest.mark.reference
@pytest.mark.parametrize("samples", [13440, 17000], ids=["7-frames-ends-at-8", "partial-frame"])
def test_offline_interpretation_equals_hibiki_zero_generate(folder, model, samples):
    source = read_wav(SPEECH["hello_24k.wav"])[:samples]
    assert source.size == samples
    theirs_text, theirs_audio = hibiki_zero_generate(folder, source)
    assert len(theirs_text) == GEN_FRAMES

    source_frames = -(-samples // FRAME_SIZE) + (samples == 13440)  # 7 × 1920 × 12.5 / 24000 is 7.000…01
    tail_s = (GEN_FRAMES - source_frames - 1) * FRAME_SIZE / SAMPLE_RATE
    ours = model.new_session(SamplingConfig.greedy()).process(source, tail_s=tail_s)
    assert len(ours.text_tokens) == ours.frames_in  # the lead-in: the source's first frame is answered
    ended = ours.text_tokens[-1] == model.lm.config.rules.end_of_text_token
    assert ours.frames_in == GEN_FRAMES or ended
    same = [a == b and x == y for a, b, x, y in zip(ours.text_tokens, theirs_text, ours.audio_codes, theirs_audio)]
    assert all(same), f"{same.count(False)} of {len(same)} frames differ, the first at {same.index(False)}"
    assert len(set(theirs_text)) > 3 and len({tuple(a) for a in theirs_audio}) > 10  # not a trivial match

    live = model.new_session(SamplingConfig.greedy())  # the window's frames start as generate does
    first = [live.step(frame) for frame in source[:3 * FRAME_SIZE].reshape(-1, FRAME_SIZE)]
    assert [(r.text_token, list(r.audio_codes)) for r in first] == list(zip(ours.text_tokens, ours.audio_codes))[:3]
