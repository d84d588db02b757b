"""Hibiki (kyutai's interpreters): greedy token parity with the reference ``moshi`` 0.2.13 path
(``CheckpointInfo.get_moshi`` with ``model_type: "hibiki"``, ``get_condition_tensors`` and
``LMGen`` with ``cfg_coef``, which the ``hibiki-zero`` 0.0.4 package runs unchanged), on tiny
random-weight checkpoints written in the released hub layout: Hibiki-Zero's (grouped-query
attention, RoPE over halves, a scheduled depth transformer with LayerNorms, no conditioner) and
Hibiki 2B's (a lookup-table conditioner), the latter with and without classifier-free guidance.
The end of the source (one frame of the initial token) and silence after it are in the input."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
import torch
from safetensors.torch import save_file

from engine.checkpoint import stack_split_attention
from engine.families import family_named, recognise
from engine.families.hibiki import DESCRIPTION_CONDITIONER, HIBIKI_ZERO_3B_CONFIG, TEXT_END_TOKEN, TEXT_PAD_TOKEN
from engine.lm.generate import HibikiGenerator, SamplingConfig, make_generator
from engine.lm.model import LMConfig, load_lm
from engine.state import flatten
from tests.reference import require_moshi

CARD, TEXT_CARD = 256, 100
ACOUSTIC = [2] * 15
LUT, FUSER = DESCRIPTION_CONDITIONER["conditioners"], DESCRIPTION_CONDITIONER["fuser"]
COMMON = {"model_type": "hibiki", "text_card": TEXT_CARD, "card": CARD, "n_q": 32, "dep_q": 16,
          "delays": [0, 0, *ACOUSTIC, 0, *ACOUSTIC], "existing_text_padding_id": TEXT_PAD_TOKEN, "dim": 64,
          "num_heads": 4, "num_layers": 2, "causal": True, "layer_scale": None, "context": 16, "gating": "silu",
          "norm": "rms_norm_f32", "positional_embedding": "rope", "depformer_dim": 32, "depformer_num_heads": 4,
          "depformer_num_layers": 2,
          "depformer_dim_feedforward": None, "depformer_multi_linear": True, "depformer_pos_emb": "none",
          "depformer_weights_per_step": True, "cross_attention": False,
          "moshi_name": "model.safetensors", "mimi_name": "mimi.safetensors", "tokenizer_name": "tokenizer.model"}
# Hibiki-Zero's architecture at a small width: its released config with the sizes changed.
ZERO = {**HIBIKI_ZERO_3B_CONFIG, **{k: COMMON[k] for k in (
    "text_card", "card", "dim", "num_layers", "context", "depformer_dim", "depformer_num_layers",
    "moshi_name", "mimi_name", "tokenizer_name")}, "num_heads": 4, "depformer_num_heads": 4}
# Hibiki 2B's: interleaved RoPE, each depth step its own weights, the description conditioner.
HIBIKI_2B = {**COMMON, "hidden_scale": 4.125, "max_period": 100000.0, "conditioners": LUT, "fuser": FUSER}
FRAMES = 36  # context 16: the ring wraps twice
END_OF_SOURCE = 26  # the frame that marks the end of the source speech


def randomize(ref, seed: int = 0) -> None:
    """Random weights scaled so that tokens vary (not one argmax forever)."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in ref.named_parameters():
            noise = torch.randn(p.shape, generator=g)
            if "alpha" in name or (name.startswith("depformer_norms.") and name.endswith("weight")):
                p.copy_(1.0 + 0.2 * noise)
            elif name.endswith("bias"):
                p.copy_(0.1 * noise)
            elif "emb" in name:
                p.copy_(noise)
            else:
                p.copy_(noise * p.shape[-1] ** -0.5)


def write_hub_folder(config: dict, folder: Path, seed: int = 0) -> Path:
    """A model folder in the released layout: config.json as kyutai writes it and the LM's weights
    (stacked attention), from a reference model built by the reference loader with random weights."""
    require_moshi()
    from moshi.models import loaders

    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text(json.dumps(config))
    # A copy: the reference's loader writes into the conditioners' dicts it is given (their device and
    # output size), which would then reach every later config made from them.
    lm_kwargs = {k: copy.deepcopy(v) for k, v in config.items()
                 if k not in ("model_type", "moshi_name", "mimi_name", "tokenizer_name")}
    torch.manual_seed(seed)
    ref = loaders.get_moshi_lm(None, lm_kwargs=lm_kwargs, device="cpu", dtype=torch.float32)
    randomize(ref, seed)
    state = {k: v.contiguous() for k, v in ref.state_dict().items()}
    save_file(stack_split_attention(state), str(folder / "model.safetensors"))
    return folder


def reference_generator(folder: Path, cfg_coef: float, batch: int):
    """The reference's LM (its own loader, the EOS -> PAD rule included) and ``LMGen``, greedy."""
    from moshi.models import loaders
    from moshi.models.lm import LMGen
    from moshi.run_inference import get_condition_tensors

    weights = folder / "model.safetensors"
    info = loaders.CheckpointInfo.from_hf_repo("local/hibiki", moshi_weights=weights, mimi_weights=weights,
                                               tokenizer=weights, config_path=folder / "config.json")
    assert info.model_type == "hibiki"
    lm = info.get_moshi(device="cpu", dtype=torch.float32)
    conditions = get_condition_tensors(info.model_type, lm, batch_size=batch, cfg_coef=cfg_coef)
    return LMGen(lm, use_sampling=False, cfg_coef=cfg_coef, condition_tensors=conditions)


def ours(folder: Path) -> LMConfig:
    config = json.loads((folder / "config.json").read_text())
    return LMConfig.from_hub_config(config)


def source_codes(frames: int, batch: int, seed: int = 0) -> torch.Tensor:
    """[T, B, 16] source speech codes: varied, a held stretch, the end-of-source frame (the initial
    token on every codebook, as the reference marks it), then a repeated "silence" frame."""
    g = torch.Generator().manual_seed(seed)
    codes = torch.randint(0, CARD, (max(frames, FRAMES), batch, 16), generator=g)
    codes[10:18] = codes[10]
    codes[END_OF_SOURCE] = CARD
    codes[END_OF_SOURCE + 1:] = torch.arange(16) * 7 + 3
    return codes[:frames]


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    root = tmp_path_factory.mktemp("hibiki")
    return {"zero": write_hub_folder(ZERO, root / "zero", seed=1),
            "2b": write_hub_folder(HIBIKI_2B, root / "2b", seed=2)}


def run_both(folder: Path, cfg_coef: float, batch: int = 2):
    ref_gen = reference_generator(folder, cfg_coef, batch)
    lm = load_lm(folder / "model.safetensors", ours(folder), dtype=torch.float32)
    gen = HibikiGenerator(lm, SamplingConfig.greedy(), cfg_coef=cfg_coef)
    state = gen.init_state(batch)
    codes = source_codes(FRAMES, batch)
    theirs, mine = [], []
    with torch.no_grad(), ref_gen.streaming(batch):
        for t in range(FRAMES):
            ref_out = ref_gen.step(codes[t][:, :, None])
            text, audio = gen.step(codes[t], state)
            if t < gen.first_output_frame:
                assert ref_out is None and (text == -2).all() and (audio == -2).all()
                continue
            theirs.append(ref_out[:, :, 0])
            mine.append(torch.cat([text[:, None], audio], dim=1))
    return torch.stack(theirs), torch.stack(mine)


@pytest.fixture(scope="module")
def runs(folders):
    """run_both's results, each computed once for the module's tests."""
    done = {}

    def get(layout: str, cfg_coef: float):
        if (layout, cfg_coef) not in done:
            done[layout, cfg_coef] = run_both(folders[layout], cfg_coef)
        return done[layout, cfg_coef]
    return get


@pytest.mark.reference
@pytest.mark.parametrize("layout, cfg_coef", [("zero", 1.0), ("2b", 1.0), ("2b", 3.0)],
                         ids=["zero", "2b", "2b-guided"])
def test_greedy_tokens_match_the_reference(runs, layout, cfg_coef):
    theirs, mine = runs(layout, cfg_coef)
    equal = sum(torch.equal(a, b) for a, b in zip(theirs, mine))
    assert equal == len(theirs) == FRAMES - 2, f"{equal}/{len(theirs)} frames equal"
    # Only meaningful if the streams vary: many distinct tokens per stream over time.
    assert all(len(torch.unique(mine[:, :, k])) > 5 for k in range(mine.shape[2]))


@pytest.mark.reference
def test_guidance_changes_the_tokens(runs):
    """The guided run is not the unguided one (so its parity test tests the guidance)."""
    assert not torch.equal(runs("2b", 1.0)[1], runs("2b", 3.0)[1])


def test_a_released_config_is_recognised_and_builds(folders):
    config = json.loads((folders["zero"] / "config.json").read_text())
    assert recognise(config) is family_named("hibiki")
    assert recognise(HIBIKI_ZERO_3B_CONFIG) is family_named("hibiki")
    released = LMConfig.released(family_named("hibiki"))
    assert released.model_type == "hibiki" and released.kv_repeat == 2 and released.codec_codebooks == 16
    assert released.depformer.stored_steps == 9 and released.conditioners == ()
    two_b = ours(folders["2b"])
    assert [c.name for c in two_b.conditioners] == ["description"] and two_b.codec_codebooks == 16
    # A 16-step depth transformer alone still says PersonaPlex; a Hibiki config never does.
    assert recognise({"dep_q": 16}) is family_named("personaplex")


def test_end_of_text_reads_as_padding(folders):
    """Only the temporal transformer's input embedding of the end token changes."""
    from safetensors.torch import load_file

    stored = load_file(str(folders["2b"] / "model.safetensors"))
    lm = load_lm(folders["2b"] / "model.safetensors", ours(folders["2b"]), dtype=torch.float32)
    text = stored["text_emb.weight"]
    assert not torch.equal(text[TEXT_END_TOKEN], text[TEXT_PAD_TOKEN])
    assert torch.equal(lm.text_emb.weight[TEXT_END_TOKEN], text[TEXT_PAD_TOKEN])
    others = [i for i in range(TEXT_CARD + 1) if i != TEXT_END_TOKEN]
    assert torch.equal(lm.text_emb.weight[others], text[others])
    assert torch.equal(lm.depformer_text_emb.weight, stored["depformer_text_emb.weight"])


@pytest.mark.parametrize("cfg_coef", [1.0, 3.0], ids=["plain", "guided"])
def test_state_resume_continues_exactly(folders, cfg_coef):
    """Copying the state tree (what a conversation file stores) continues the stream identically,
    guided (the doubled LM state) or not, sampled."""
    lm = load_lm(folders["2b"] / "model.safetensors", ours(folders["2b"]), dtype=torch.float32)
    gen = HibikiGenerator(lm, SamplingConfig(), cfg_coef=cfg_coef)
    codes = source_codes(20, 1)
    state = gen.init_state(1, seed=3)
    for i in range(8):
        gen.step(codes[i], state)
    snapshot = {k: v.clone() for k, v in flatten(state).items()}
    first = [torch.cat([t.view(-1) for t in gen.step(codes[i], state)]) for i in range(8, 20)]
    other = gen.init_state(1, seed=99)
    for name, value in flatten(other).items():
        value.copy_(snapshot[name])
    second = [torch.cat([t.view(-1) for t in gen.step(codes[i], other)]) for i in range(8, 20)]
    assert all(torch.equal(x, y) for x, y in zip(first, second))


def test_generator_choice_and_refusals(folders):
    zero = load_lm(folders["zero"] / "model.safetensors", ours(folders["zero"]), dtype=torch.float32)
    assert isinstance(make_generator(zero), HibikiGenerator)
    with pytest.raises(ValueError, match="no conditioner"):
        HibikiGenerator(zero, cfg_coef=3.0)
    with pytest.raises(ValueError, match="cfg_coef"):
        HibikiGenerator(zero, cfg_coef=0.0)
    with pytest.raises(ValueError, match="does not step as hibiki"):
        HibikiGenerator(load_lm(folders["zero"] / "model.safetensors",
                                LMConfig.from_hub_config({**ZERO, "model_type": "moshi"}), dtype=torch.float32))
    with pytest.raises(ValueError, match="cross-attended: it must be of type 'tensor'"):
        LMConfig.from_hub_config({**HIBIKI_2B, "fuser": {**FUSER, "sum": [], "cross": ["description"]}})
    with pytest.raises(ValueError, match="lookup table"):
        LMConfig.from_hub_config({**HIBIKI_2B, "conditioners": {"description": {"type": "tensor"}}})
