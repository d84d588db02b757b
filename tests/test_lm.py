"""The Moshi / PersonaPlex LM: config parsing, checkpoint key layout (7B on the meta device),
loading both attention layouts and PersonaPlex's 8-step rule, and the temporal + depformer step
against the reference ``moshi.models.lm.LMModel``.

The tiny models here (``tiny_reference``, ``save_hub_checkpoint``) are shared by the generator tests.
"""

from __future__ import annotations

import pytest
import torch
from safetensors.torch import save_file

from engine.checkpoint import distinct_tensors, stack_split_attention
from engine.lm.model import MOSHI_DELAYS, LMConfig, LMModel, load_lm, share_stored_steps
from tests.reference import require_moshi

TINY = dict(dim=128, num_heads=4, num_layers=2, hidden_scale=4.125, context=20, text_card=100, card=256,
            n_q=16, dep_q=8, depformer_dim=64, depformer_dim_feedforward=int(4.125 * 64),
            depformer_num_heads=4, depformer_num_layers=2)


def tiny_config(**overrides) -> LMConfig:
    return LMConfig(**{**TINY, **overrides})


def reference_kwargs(config: LMConfig) -> dict:
    """The reference ``LMModel`` kwargs in the ``loaders._lm_kwargs`` naming for ``config``."""
    return dict(
        dim=config.dim, num_heads=config.num_heads, num_layers=config.num_layers,
        hidden_scale=config.hidden_scale, gating=config.gating, norm=config.norm,
        positional_embedding=config.positional_embedding, max_period=config.max_period,
        layer_scale=config.layer_scale, context=config.context, causal=True, text_card=config.text_card,
        card=config.card, n_q=config.n_q, dep_q=config.dep_q, delays=list(config.delays),
        existing_text_padding_id=config.existing_text_padding_id, depformer_dim=config.depformer_dim,
        depformer_dim_feedforward=config.depformer_dim_feedforward, depformer_num_heads=config.depformer_num_heads,
        depformer_num_layers=config.depformer_num_layers, depformer_multi_linear=True, depformer_context=8,
        depformer_max_period=config.depformer_max_period, depformer_gating=config.depformer_gating,
        depformer_pos_emb=config.depformer_pos_emb, depformer_weights_per_step=True,
        depformer_layer_scale=None)


def tiny_reference(config: LMConfig, seed: int = 0):
    """A reference LMModel with random weights scaled so that tokens vary (not one argmax forever)."""
    require_moshi()
    from moshi.models.lm import LMModel as Reference

    torch.manual_seed(seed)
    ref = Reference(**reference_kwargs(config)).eval()
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in ref.named_parameters():
            noise = torch.randn(p.shape, generator=g)
            if "alpha" in name:
                p.copy_(1.0 + 0.2 * noise)
            elif "emb" in name:
                p.copy_(noise)
            else:
                p.copy_(noise * p.shape[-1] ** -0.5)
    return ref


def save_hub_checkpoint(ref, path, stacked: bool = True):
    """Write the reference weights as a hub ``model.safetensors`` (released stacked layout by default)."""
    sd = {k: v.contiguous() for k, v in ref.state_dict().items()}
    if stacked:
        sd = stack_split_attention(sd)
    save_file(sd, str(path))
    return path


# -------------------------------------------------------------------------------------- config

def test_from_hub_config_defaults_and_reference_kwargs():
    require_moshi()
    from moshi.models import loaders

    assert LMConfig.from_hub_config({}) == LMConfig.moshi_7b()
    assert LMConfig.from_hub_config(dict(loaders._lm_kwargs)) == LMConfig.moshi_7b()
    cfg = LMConfig.from_hub_config({**loaders._lm_kwargs, "moshi_name": "x.safetensors", "something_new": 1})
    assert cfg == LMConfig.moshi_7b()
    tiny = LMConfig.from_hub_config(reference_kwargs(tiny_config()))
    assert tiny == tiny_config()


def test_from_hub_config_personaplex_markers():
    assert LMConfig.from_hub_config({"model_type": "personaplex"}) == LMConfig.personaplex_7b()
    assert LMConfig.from_hub_config({"dep_q": 16}).model_type == "personaplex"
    assert LMConfig.from_hub_config({"model_type": "moshi"}).model_type == "moshi"
    pp = LMConfig.personaplex_7b()
    assert pp.dep_q == 16 and pp.delays == MOSHI_DELAYS and pp.depformer.weights_per_step == 16


@pytest.mark.parametrize("bad, word", [
    ({"demux_second_stream": "yes"}, "demux_second_stream"),
    ({"cross_attention": True}, "cross_attention"),
    ({"conditioners": {"x": 1}}, "conditioners"),
    ({"depformer_weights_per_step": False}, "depformer_weights_per_step"),
    ({"delays": [0, 1]}, "delays"),
    ({"dep_q": 20}, "dep_q"),
    ({"causal": False}, "causal"),
])
def test_from_hub_config_rejects_unsupported(bad, word):
    with pytest.raises(ValueError, match=word):
        LMConfig.from_hub_config(bad)


# ------------------------------------------------------------------- 7B key layout (meta device)

def _expected_7b_shapes(dep_q: int) -> dict[str, tuple[int, ...]]:
    """The released 7B checkpoint's key/shape table, written out from its formulas."""
    shapes = {"text_emb.weight": (32001, 4096), "out_norm.alpha": (1, 1, 4096),
              "text_linear.weight": (32000, 4096), "depformer_text_emb.weight": (32001, 1024)}
    for k in range(16):
        shapes[f"emb.{k}.weight"] = (2049, 4096)
    for i in range(32):
        p = f"transformer.layers.{i}."
        shapes.update({p + "self_attn.in_proj_weight": (12288, 4096), p + "self_attn.out_proj.weight": (4096, 4096),
                       p + "norm1.alpha": (1, 1, 4096), p + "norm2.alpha": (1, 1, 4096),
                       p + "gating.linear_in.weight": (22528, 4096), p + "gating.linear_out.weight": (4096, 11264)})
    for k in range(dep_q):
        shapes[f"depformer_in.{k}.weight"] = (1024, 4096)
        shapes[f"linears.{k}.weight"] = (2048, 1024)
    for k in range(dep_q - 1):
        shapes[f"depformer_emb.{k}.weight"] = (2049, 1024)
    for layer in range(6):
        p = f"depformer.layers.{layer}."
        shapes.update({p + "self_attn.in_proj_weight": (dep_q * 3072, 1024),
                       p + "self_attn.out_proj.weight": (dep_q * 1024, 1024),
                       p + "norm1.alpha": (1, 1, 1024), p + "norm2.alpha": (1, 1, 1024)})
        for s in range(dep_q):
            shapes[p + f"gating.{s}.linear_in.weight"] = (5632, 1024)
            shapes[p + f"gating.{s}.linear_out.weight"] = (1024, 2816)
    return shapes


@pytest.mark.reference
@pytest.mark.parametrize("preset", ["moshi_7b", "personaplex_7b"])
def test_7b_keys_match_notes_and_reference(preset):
    require_moshi()
    from moshi.models import loaders
    from moshi.models.lm import LMModel as Reference

    cfg = getattr(LMConfig, preset)()
    ours = {k: tuple(v.shape) for k, v in LMModel(cfg, device="meta").state_dict().items()}
    assert ours == _expected_7b_shapes(cfg.dep_q)
    ref = Reference(**{**loaders._lm_kwargs, "dep_q": cfg.dep_q}, device="meta")
    ref_sd = stack_split_attention(ref.state_dict())
    assert ours == {k: tuple(v.shape) for k, v in ref_sd.items()}
    params = sum(v.numel() for v in LMModel(cfg, device="meta").parameters())
    assert abs(params / 1e9 - (7.688 if cfg.dep_q == 8 else 8.371)) < 0.001


def test_personaplex_holds_an_8_step_file_once_on_meta():
    """The 8-step file rule on the full-size shapes: the 16-step model, its shared steps held once,
    has exactly the file's tensors (and ``depformer_emb.7``, which the rule cannot produce: the
    released files hold it), about 0.68 B parameters fewer than 16 separate steps."""
    eight = {k: tuple(v.shape) for k, v in LMModel(LMConfig.moshi_7b(), device="meta").state_dict().items()}
    model = LMModel(LMConfig.personaplex_7b(), device="meta")
    share_stored_steps(model, eight)
    got = {k: tuple(v.shape) for k, v in distinct_tensors(model).items()}
    assert set(got) - set(eight) == {"depformer_emb.7.weight"}
    assert {k: v for k, v in got.items() if k != "depformer_emb.7.weight"} == eight
    assert set(model.state_dict()) == set(LMModel(LMConfig.personaplex_7b(), device="meta").state_dict())
    params = sum(v.numel() for v in model.parameters())
    assert abs(params / 1e9 - 7.690) < 0.001  # 8.371 with 16 separate steps


# ---------------------------------------------------------------------------------- loading

@pytest.mark.reference
def test_load_both_layouts_and_cast(tmp_path):
    cfg = tiny_config()
    ref = tiny_reference(cfg)
    stacked = load_lm(save_hub_checkpoint(ref, tmp_path / "stacked.safetensors"), cfg, dtype=torch.float32)
    split = load_lm(save_hub_checkpoint(ref, tmp_path / "split.safetensors", stacked=False), cfg,
                    dtype=torch.float32)
    ref_sd = stack_split_attention(ref.state_dict())
    for name, p in stacked.state_dict().items():
        assert torch.equal(p, ref_sd[name]), name
        assert torch.equal(p, split.state_dict()[name]), name
    half = load_lm(tmp_path / "stacked.safetensors", cfg, dtype=torch.bfloat16)
    assert all(p.dtype == torch.bfloat16 for p in half.parameters())
    assert torch.equal(half.text_emb.weight, ref.text_emb.weight.to(torch.bfloat16))
    assert not any(p.requires_grad for p in half.parameters())


@pytest.mark.reference
def test_released_layout_streams_tensor_by_tensor(tmp_path, monkeypatch):
    """A released (stacked-key) file is copied one tensor at a time: the whole-file reader, which
    would hold all 15 GB of a 7B checkpoint in host memory at once, is never called."""
    import safetensors.torch

    cfg = tiny_config()
    ref = tiny_reference(cfg)
    path = save_hub_checkpoint(ref, tmp_path / "stacked.safetensors")

    def whole_file_read(*_args, **_kwargs):
        raise AssertionError("the whole checkpoint was read at once")

    monkeypatch.setattr(safetensors.torch, "load_file", whole_file_read)
    model = load_lm(path, cfg, dtype=torch.float32)
    ref_sd = stack_split_attention(ref.state_dict())
    assert all(torch.equal(p, ref_sd[name]) for name, p in model.state_dict().items())


@pytest.mark.reference
def test_load_errors_name_the_keys(tmp_path):
    cfg = tiny_config()
    sd = stack_split_attention(tiny_reference(cfg).state_dict())
    missing = {k: v for k, v in sd.items() if k != "linears.3.weight"}
    save_file(missing, str(tmp_path / "missing.safetensors"))
    with pytest.raises(ValueError, match=r"missing keys.*linears\.3\.weight"):
        load_lm(tmp_path / "missing.safetensors", cfg, dtype=torch.float32)
    save_file({**sd, "extra_heads.0.weight": torch.zeros(6, 128)}, str(tmp_path / "extra.safetensors"))
    with pytest.raises(ValueError, match=r"unexpected keys.*extra_heads\.0\.weight"):
        load_lm(tmp_path / "extra.safetensors", cfg, dtype=torch.float32)
    with pytest.raises(ValueError, match="text_emb.weight"):
        load_lm(tmp_path / "extra.safetensors", tiny_config(text_card=50), dtype=torch.float32)
    with pytest.raises(ValueError, match="does not exist"):
        load_lm(tmp_path / "nope.safetensors", cfg)
    (tmp_path / "junk.safetensors").write_bytes(b"not a safetensors file at all")
    with pytest.raises(ValueError, match="not a readable safetensors"):
        load_lm(tmp_path / "junk.safetensors", cfg)


@pytest.mark.reference
def test_personaplex_loads_8_step_file(tmp_path):
    """dep_q 16 from an 8-step file: steps 8..15 repeat steps 0..7 (attention, FFN, in/out heads)."""
    ref = tiny_reference(tiny_config())
    path = save_hub_checkpoint(ref, tmp_path / "m8.safetensors")
    with pytest.raises(ValueError, match=r"missing keys.*depformer_emb\.7\.weight"):
        load_lm(path, tiny_config(dep_q=16, model_type="personaplex"))
    sd = stack_split_attention(ref.state_dict())
    sd["depformer_emb.7.weight"] = torch.randn(257, 64)
    save_file(sd, str(tmp_path / "m8.safetensors"))
    pp = load_lm(path, tiny_config(dep_q=16, model_type="personaplex"), dtype=torch.float32)
    assert torch.equal(pp.depformer_emb[7].weight, sd["depformer_emb.7.weight"])
    assert len(pp.linears) == 16 and len(pp.depformer_emb) == 15
    for i in range(8, 16):  # the same weights, stored once
        assert pp.linears[i].weight.data_ptr() == pp.linears[i - 8].weight.data_ptr()
        assert pp.depformer_in[i].weight.data_ptr() == pp.depformer_in[i - 8].weight.data_ptr()
        assert (pp.depformer.layers[1].gating[i].linear_in.weight.data_ptr()
                == pp.depformer.layers[1].gating[i - 8].linear_in.weight.data_ptr())
    for i in range(8, 15):
        assert pp.depformer_emb[i].weight.data_ptr() == pp.depformer_emb[i - 8].weight.data_ptr()
    assert pp.depformer_emb[7].weight.data_ptr() != pp.depformer_emb[6].weight.data_ptr()
    assert pp.depformer.layers[0].self_attn.in_proj_weight.shape == (8 * 192, 64)  # steps 8..15 read 0..7
    assert sum(p.numel() for p in pp.parameters()) == sum(t.numel() for t in sd.values())
    # A genuine 16-step file loads unchanged.
    ref16 = tiny_reference(tiny_config(dep_q=16), seed=1)
    path16 = save_hub_checkpoint(ref16, tmp_path / "m16.safetensors")
    pp16 = load_lm(path16, tiny_config(dep_q=16, model_type="personaplex"), dtype=torch.float32)
    assert torch.equal(pp16.linears[12].weight, ref16.linears[12].weight)
    assert not torch.equal(pp16.linears[12].weight, pp16.linears[4].weight)


# ------------------------------------------------------------------------ step vs reference

@pytest.mark.reference
def test_temporal_and_depformer_match_reference(tmp_path):
    """Teacher-forced: our temporal step and depformer logits equal the reference's bit for bit."""
    cfg = tiny_config()
    ref = tiny_reference(cfg)
    ours = load_lm(save_hub_checkpoint(ref, tmp_path / "m.safetensors"), cfg, dtype=torch.float32)
    g = torch.Generator().manual_seed(3)
    codes = torch.randint(0, cfg.card, (2, 17, 30), generator=g)
    codes[:, 0] = torch.randint(0, cfg.text_card, (2, 30), generator=g)
    codes[0, 5, 3] = -1  # the zero token
    state = ours.init_state(2)
    with torch.no_grad(), ref.streaming(2):
        for t in range(codes.shape[2]):
            h_ref, logits_ref = ref.forward_text(codes[:, :, t:t + 1])
            h, logits = ours.temporal_step(ours.embed_codes(codes[:, :, t]), state)
            assert torch.equal(h, h_ref) and torch.equal(logits, logits_ref[:, 0, 0])
            text = logits.argmax(-1)
            seen: list[torch.Tensor] = []

            def greedy(lg, cb, seen=seen):
                seen.append(lg)
                return lg.argmax(-1)

            tokens = ours.depformer_frame(h, text, state["depformer"], greedy)
            prev = text
            with ref.depformer.streaming(2):
                for cb in range(cfg.dep_q):
                    lg = ref.forward_depformer(cb, prev[:, None, None], h_ref)[:, 0, 0]
                    assert torch.equal(lg, seen[cb])
                    prev = lg.argmax(-1)
                    assert torch.equal(prev, tokens[:, cb])
