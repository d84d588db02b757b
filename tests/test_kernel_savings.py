"""The per-frame kernel savings keep the bits: RMSNorm's cached float32 weight follows the weight,
and the additive mask built once per chunk gives attention exactly what a boolean mask gives."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from engine.streaming.layers import RMSNorm
from engine.streaming.transformer import additive_mask


def test_the_cached_float32_weight_follows_loads_and_moves():
    norm = RMSNorm(16, eps=1e-8, dtype=torch.bfloat16)
    x = torch.randn(1, 3, 16, dtype=torch.bfloat16)

    def uncached(n, x):
        x32 = x.float()
        return (x32 * (n.alpha.float() * torch.rsqrt(1e-8 + (x32 * x32).mean(-1, keepdim=True)))).to(x.dtype)

    assert torch.equal(norm(x), uncached(norm, x))
    with torch.no_grad():
        norm.alpha.copy_(torch.randn(1, 1, 16))  # what a checkpoint load does
    assert torch.equal(norm(x), uncached(norm, x))
    norm.alpha.data = torch.randn(1, 1, 16, dtype=torch.bfloat16)  # a new tensor (a move, to_empty)
    assert torch.equal(norm(x), uncached(norm, x))
    float_norm = RMSNorm(16, eps=1e-8)
    assert float_norm.alpha_f32() is float_norm.alpha  # float32 weights need no copy


def test_the_additive_mask_gives_attention_the_same_bits():
    torch.manual_seed(0)
    allowed = torch.rand(2, 40) > 0.4
    allowed[:, 0] = True
    for dtype in (torch.float32, torch.bfloat16):
        q, k, v = (torch.randn(1, 4, 2, 32, dtype=dtype) if i == 0 else torch.randn(1, 4, 40, 32, dtype=dtype)
                   for i in range(3))
        want = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
        assert torch.equal(F.scaled_dot_product_attention(q, k, v, attn_mask=additive_mask(allowed, dtype)), want)


# Kernels of one aligned frame (Mimi included) at the 7B layer counts, counted at the dispatch level
# (bench/op_count.py; bench/results/op_count.json): as a CUDA bfloat16 frame runs it, and on the
# exact path (float32, the CPU), each with a margin of 4. Before the depth transformer's fixed
# slots, the pair-wise RoPE, PersonaPlex's early exit and the fused RMSNorm on CUDA: 2946 and 4239
# (both paths then); before the embedding's zero row: 1818 and 1831 (2623 and 2636 exact).
CEILINGS = {"moshi-7b": 1795, "personaplex-7b": 1808}
EXACT_CEILINGS = {"moshi-7b": 2600, "personaplex-7b": 2613}


@pytest.fixture(scope="module")
def frame_counts():
    from bench.op_count import counts, released_mimi

    mimi = released_mimi()
    return {name: counts(name, mimi=mimi) for name in CEILINGS}


@pytest.mark.parametrize("model", sorted(CEILINGS))
def test_a_frame_launches_no_more_kernels_than_its_ceiling(frame_counts, model):
    """A change that adds kernels to a frame fails here (lower the ceiling when one removes some)."""
    counted = frame_counts[model]
    assert counted["kernels_per_frame"] <= CEILINGS[model], counted
    assert counted["exact_path_kernels_per_frame"] <= EXACT_CEILINGS[model], counted
    assert sum(counted["stages"].values()) == counted["kernels_per_frame"]
    # attention no longer turns a boolean mask into a float one (a scalar_tensor + where per call: 169 before)
    assert "aten::scalar_tensor" not in counted["top"]


# Kyutai TTS's frame past its audio delay (bench/op_count.py, ``kyutai-tts``): 16 temporal layers
# with cross-attention, 32 codebooks through the scheduled depth transformer, Mimi's decode.
TTS_CEILING, TTS_EXACT_CEILING = 2683, 4128


def test_a_kyutai_tts_frame_launches_no_more_kernels_than_its_ceiling():
    from bench.op_count import tts_counts

    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # tiny matrices: threads only contend on a busy machine
    try:
        counted = tts_counts()
    finally:
        torch.set_num_threads(threads)
    assert counted["kernels_per_frame"] <= TTS_CEILING, counted
    assert counted["exact_path_kernels_per_frame"] <= TTS_EXACT_CEILING, counted
    assert sum(counted["stages"].values()) == counted["kernels_per_frame"]
    assert set(counted["stages"]) == {"temporal", "depth", "decode"} and counted["stages"]["decode"] > 0
    # the temporal layers attend to themselves and to the voice, the depth layers once a codebook; Mimi 8
    assert counted["top"]["aten::scaled_dot_product_attention"] == 16 * 2 + 32 * 4 + 8


def test_personaplex_computes_only_the_assistants_codebooks(frame_counts):
    """Its depth transformer stops after the assistant's 8 codebooks, as Moshi's does: the same
    kernels for that stage (the user's 8, which the user's own tokens replace, are not computed)."""
    moshi, personaplex = frame_counts["moshi-7b"]["stages"], frame_counts["personaplex-7b"]["stages"]
    assert personaplex["depth"] - moshi["depth"] <= 2  # the given user tokens joined to the output
    assert personaplex["encode"] == moshi["encode"] and personaplex["decode"] == moshi["decode"]


def test_the_fused_rms_norm_agrees_with_the_reference_form_within_bfloat16_rounding():
    """The CUDA bfloat16 path's one-kernel RMSNorm (taken here on the CPU as on CUDA) against the
    reference's float32 form: at most one bfloat16 rounding step apart; float32 and the CPU's own
    bfloat16 keep the reference form (the test above: bit for bit)."""
    from bench.op_count import KernelCounter, cuda_paths

    torch.manual_seed(0)
    norm = RMSNorm(256, eps=1e-8, dtype=torch.bfloat16)
    with torch.no_grad():
        norm.alpha.copy_(1 + 0.3 * torch.randn(1, 1, 256))
    x = (3 * torch.randn(4, 7, 256)).to(torch.bfloat16)
    with torch.inference_mode():  # as frames run
        reference = norm(x)
        with cuda_paths(), KernelCounter() as fused_kernels:
            fused = norm(x)
        with KernelCounter() as reference_kernels:
            norm(x)
    assert fused_kernels.total == 1 and reference_kernels.total >= 6
    assert fused.dtype == torch.bfloat16  # (the CPU's F.rms_norm even gives the same bits; CUDA's need not)
    assert ((fused.float() - reference.float()).abs() <= reference.float().abs() * 2 ** -7).all()


def test_the_depth_transformers_fixed_slots_equal_its_ring_bit_for_bit():
    """``fixed_slot_step`` (constant slot and mask per step) against ``reset_state`` + ``forward``
    (the ring's bookkeeping), in float32 and bfloat16: the same outputs and the same state."""
    from engine.state import flatten
    from engine.streaming.transformer import StreamingTransformer, TransformerConfig

    for dtype in (torch.float32, torch.bfloat16):
        torch.manual_seed(0)
        model = StreamingTransformer(TransformerConfig(32, 4, 2, 128, norm="rms_norm_f32", gating="silu",
                                                       positional_embedding="none", weights_per_step=8),
                                     dtype=dtype).eval()
        ring, fixed = model.init_state(1), model.init_state(1)
        x = torch.randn(3, 8, 1, 1, 32).to(dtype)
        with torch.inference_mode():
            for frame in range(3):
                model.reset_state(ring)
                steps = 8 if frame != 1 else 5  # a frame may stop early (PersonaPlex after 8 of 16)
                for step in range(steps):
                    want = model(x[frame, step], ring, step=step)
                    assert torch.equal(model.fixed_slot_step(x[frame, step], fixed, step), want)
                model.fill_fixed_slots(fixed, steps)
                for name, tensor in flatten(ring).items():
                    assert torch.equal(flatten(fixed)[name], tensor), name


def test_rope_in_four_kernels_gives_the_textbook_rotation_bit_for_bit():
    import math

    from engine.streaming.layers import apply_rope, rope_tables

    def textbook(x, positions, head_dim, max_period):
        ds = torch.arange(head_dim // 2, dtype=torch.float32)
        angles = torch.exp(ds * (-math.log(max_period) * 2 / head_dim)) * positions.float().view(-1, 1)
        cos, sin = torch.cos(angles), torch.sin(angles)
        pairs = x.unflatten(-1, (-1, 2)).float()
        real, imag = pairs[..., 0], pairs[..., 1]
        out = torch.stack([(real * cos - imag * sin).to(x.dtype), (real * sin + imag * cos).to(x.dtype)], dim=-1)
        return out.flatten(-2)

    torch.manual_seed(0)
    for dtype, bits in ((torch.float32, torch.int32), (torch.bfloat16, torch.int16)):
        for steps in (1, 3):
            positions = torch.arange(steps) + 2995
            x = torch.randn(2, 1, 4, steps, 64).to(dtype)
            x[0, 0, 0, 0, :4] = torch.tensor([0.0, -0.0, -0.0, 0.0])  # the signs of zeros too
            got = apply_rope(x, rope_tables(positions, 64, 10_000.0))
            assert torch.equal(got.view(bits), textbook(x, positions, 64, 10_000.0).view(bits))


def test_personaplex_samples_the_tokens_the_full_depth_transformer_samples(monkeypatch):
    """Stopping after the assistant's codebooks changes no sampled token: the same noise is drawn
    and the user's codebooks, never written, influence none before them (sampling on)."""
    from engine.lm.generate import Forcing, SamplingConfig, make_generator
    from engine.lm.model import LMModel
    from tests.test_personaplex import frame_plan, tiny_personaplex_lm

    def run(lm):
        gen = make_generator(lm, SamplingConfig(temp=1.0, temp_text=1.0))
        state = gen.init_state(1, seed=5)
        out = []
        for user, agent, text in frame_plan(24):
            given = Forcing(agent=None if agent is None else torch.tensor([agent]),
                            text=None if text is None else torch.tensor([text]))
            t, a = gen.step(torch.tensor([user]), state, given)
            out.append(torch.cat([t, a[0]]))
        return torch.stack(out)

    lm = tiny_personaplex_lm()
    early = run(lm)
    full_frame = LMModel.depformer_frame

    def all_steps(self, *args, steps=None, **kwargs):  # what it computed before: every codebook
        return full_frame(self, *args, **kwargs)[:, :steps]

    monkeypatch.setattr(LMModel, "depformer_frame", all_steps)
    assert torch.equal(run(lm), early)
    assert len(torch.unique(early[-10:, 1:9])) > 10  # varied sampled tokens were compared


# A whole PersonaPlex prompt (a 10 s stored voice, the silences, a 30-token role: 167 steps) at the
# 7B layer counts (bench/op_count.py, ``prompt_kernels``): 93,240 kernels step by step, 10,599 with
# the temporal transformer over 64 steps a call (most of what remains is each step's token bookkeeping).
PROMPT_CEILING = 10_610


def test_a_chunked_prompt_launches_no_more_kernels_than_its_ceiling():
    from bench.op_count import MODELS, count_prompt, cuda_paths
    from engine.lm.generate import PROMPT_CHUNK_STEPS

    with cuda_paths():
        counted = count_prompt(MODELS["personaplex-7b"], PROMPT_CHUNK_STEPS)
    assert counted.total <= PROMPT_CEILING, counted.kernels.most_common(10)


def previous_embedding(table: torch.nn.Embedding, tokens: torch.Tensor) -> torch.Tensor:
    """The zero token as the reference computes it: clamp, look up, then ``where`` for -1."""
    y = F.embedding(tokens.clamp(min=0), table.weight)
    return torch.where((tokens == -1).unsqueeze(-1), 0.0, y)


def test_the_zero_row_embedding_reads_the_previous_bits_in_one_kernel():
    """Token -1 reads the table's zero row (+0.0, as ``where`` gave) and every other token its
    stored row, bit for bit, in float32 and bfloat16; the lookup is one kernel (it was four);
    the zero row costs one row of memory; the state dict has the stored shape."""
    from bench.op_count import KernelCounter
    from engine.lm.model import TokenEmbedding

    tokens = torch.tensor([[-1, 0, 5, 99, -1], [3, -1, 1, 2, 99]])
    for dtype, bits in ((torch.float32, torch.int32), (torch.bfloat16, torch.int16)):
        torch.manual_seed(0)
        emb = TokenEmbedding(100, 48, dtype=dtype).eval()
        with torch.inference_mode():
            with KernelCounter() as kernels:
                got = emb(tokens)
            assert torch.equal(got.view(bits), previous_embedding(emb, tokens).view(bits))
        assert kernels.total == 1, kernels.kernels
        assert not got[0, 0].view(bits).any()  # +0.0, not -0.0
        assert emb.weight.untyped_storage().nbytes() == 101 * 48 * emb.weight.element_size()
        assert {k: tuple(v.shape) for k, v in emb.state_dict().items()} == {"weight": (100, 48)}


def test_the_zero_row_follows_moves_casts_copies_and_loads(tmp_path):
    """What gives the weight new storage holds the zero row with it: a cast, ``to_empty`` (whose
    rows are unset: here NaN), a copy of the module; a load writes the stored rows in place; a
    save writes the stored shape."""
    import copy

    from safetensors.torch import load_file, save_file

    from engine.lm.model import TokenEmbedding

    def zero_row_is_read(emb):
        got = emb(torch.tensor([-1, 2]))
        return not got[0].float().view(torch.int32).any() and torch.equal(got[1], emb.weight[2])

    torch.manual_seed(0)
    emb = TokenEmbedding(10, 8)
    emb.to(torch.bfloat16)
    assert emb.weight.dtype == torch.bfloat16 and zero_row_is_read(emb)
    emb._apply(lambda t: torch.full_like(t, float("nan")))  # storage as ``to_empty`` may leave it
    assert emb.weight.isnan().all() and not emb(torch.tensor([-1])).float().view(torch.int32).any()
    with torch.no_grad():
        emb.weight.copy_(torch.randn(10, 8))
    assert zero_row_is_read(emb)
    copied = copy.deepcopy(emb)
    assert torch.equal(copied.weight, emb.weight) and copied.weight.data_ptr() != emb.weight.data_ptr()
    assert zero_row_is_read(copied)
    empty = TokenEmbedding(10, 8, device="meta").to_empty(device="cpu")
    with torch.no_grad():
        empty.weight.copy_(emb.weight.float())
    assert zero_row_is_read(empty)
    save_file({k: v.contiguous() for k, v in empty.state_dict().items()}, str(tmp_path / "e.safetensors"))
    assert torch.equal(load_file(str(tmp_path / "e.safetensors"))["weight"], empty.weight)


def test_the_input_embedding_sums_the_previous_bits():
    """``embed_codes`` with zero tokens in some streams equals the previous path (each stream's
    clamp/where lookup, summed in the reference's order) bit for bit, in float32 and bfloat16."""
    from engine.lm.model import LMConfig, LMModel

    config = LMConfig(dim=32, num_heads=2, num_layers=1, hidden_scale=4.125, context=8, text_card=50,
                      card=40, n_q=16, dep_q=8, depformer_dim=16, depformer_num_heads=2, depformer_num_layers=1)
    codes = torch.randint(0, 40, (3, 17), generator=torch.Generator().manual_seed(1))
    codes[0, [0, 3, 16]] = -1
    codes[2] = -1  # every stream "no input": an exact zero sum
    for dtype, bits in ((torch.float32, torch.int32), (torch.bfloat16, torch.int16)):
        torch.manual_seed(0)
        lm = LMModel(config, dtype=dtype).eval()
        want = previous_embedding(lm.emb[0], codes[:, 1:2])
        for k in range(1, 16):
            want = want + previous_embedding(lm.emb[k], codes[:, 1 + k:2 + k])
        want = want + previous_embedding(lm.text_emb, codes[:, 0:1])
        with torch.inference_mode():
            got = lm.embed_codes(codes)
        assert torch.equal(got.view(bits), want.view(bits))
        assert not got[2].view(bits).any()


def test_bfloat16_frames_sample_the_tokens_of_the_previous_embedding_path(monkeypatch):
    """Whole frames in bfloat16, sampling on, with zero tokens among the user's codes (a stream
    now and then, a whole frame once): the tokens the clamp/where lookups gave, every frame."""
    from engine.lm.generate import SamplingConfig, make_generator
    from engine.lm.model import LMModel, TokenEmbedding
    from tests.test_lm import tiny_config

    torch.manual_seed(0)
    lm = LMModel(tiny_config(), dtype=torch.bfloat16).eval().requires_grad_(False)
    user = torch.randint(0, 256, (24, 1, 8), generator=torch.Generator().manual_seed(4))
    user[::3, 0, 2] = -1
    user[7] = -1

    def run():
        gen = make_generator(lm, SamplingConfig(temp=1.0, temp_text=1.0))
        state = gen.init_state(1, seed=5)
        return torch.stack([torch.cat([t, a[0]]) for t, a in (gen.step(codes, state) for codes in user)])

    now = run()

    def previous_embed_codes(self, codes):
        x = previous_embedding(self.emb[0], codes[:, 1:2])
        for k in range(1, self.config.n_q):
            x = x + previous_embedding(self.emb[k], codes[:, 1 + k:2 + k])
        return x + previous_embedding(self.text_emb, codes[:, 0:1])

    monkeypatch.setattr(TokenEmbedding, "forward", previous_embedding)
    monkeypatch.setattr(LMModel, "embed_codes", previous_embed_codes)
    assert torch.equal(run(), now)
    assert len(torch.unique(now[-10:, 1:])) > 10  # varied sampled tokens were compared
