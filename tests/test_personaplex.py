"""PersonaPlex: generator semantics against a literal host-side restatement, the prompt phases
(frame counts, forced tokens; both as docs/architecture.md describes them), voice prompts (.pt -> safetensors) and the
text role prompt with a real SentencePiece model."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest
import torch
from safetensors.torch import save_file

from engine.lm.generate import Forcing, PersonaPlexGenerator, SamplingConfig, make_generator
from engine.lm.model import LMModel
from engine.lm.personaplex import (
    SILENCE_FRAMES,
    SILENCE_TOKENS,
    SINE_TOKENS,
    VoicePrompt,
    converted_voice_path,
    load_voice_prompt,
    run_prompt_phases,
    text_prompt_tokens,
    voice_prompt_from_pcm,
    wrap_with_system_tags,
)
from engine.state import flatten
from tests.test_generate import SyncSpy, assert_traces_as_one_graph
from tests.test_lm import tiny_config

PAD = 3
CARD = 2048  # the real card: the prompt constants are real Mimi codes


@pytest.fixture(scope="module")
def lm() -> LMModel:
    return tiny_personaplex_lm()


def tiny_personaplex_lm() -> LMModel:
    """A tiny PersonaPlex-shaped LM (dep_q 16) with random weights large enough for varied tokens."""
    torch.manual_seed(0)
    model = LMModel(tiny_config(dep_q=16, card=CARD, model_type="personaplex")).eval()
    g = torch.Generator().manual_seed(0)
    with torch.no_grad():
        for name, p in model.named_parameters():
            noise = torch.randn(p.shape, generator=g)
            p.copy_(1.0 + 0.2 * noise if "alpha" in name else noise if "emb" in name else noise * p.shape[-1] ** -0.5)
    return model.requires_grad_(False)


class LiteralPersonaPlex:
    """PersonaPlex's LMGen step written out literally (docs/architecture.md) with host ints (batch 1)
    and a greedy depformer loop of its own; it shares only the LM's layers with the engine."""

    def __init__(self, lm: LMModel):
        self.lm, c = lm, lm.config
        self.delays, self.max_delay = list(c.delays), max(c.delays)
        self.ct = self.max_delay + 3
        self.initial = [c.text_card] + [c.card] * c.n_q
        self.cache = [[-2] * self.ct for _ in self.delays]
        self.provided = [[False] * self.ct for _ in self.delays]
        self.offset = 0
        self.state = lm.init_state(1)

    def step(self, user, agent=None, text=None):
        c, ct, o = self.lm.config, self.ct, self.offset
        writes = [(9 + q, u) for q, u in enumerate(user)]
        writes += [(1 + q, a) for q, a in enumerate(agent)] if agent is not None else []
        writes += [(0, text)] if text is not None else []
        for k, value in writes:
            self.cache[k][(o + self.delays[k]) % ct] = value
            self.provided[k][(o + self.delays[k]) % ct] = True
        for k, d in enumerate(self.delays):
            if o <= d:
                self.cache[k][o % ct] = self.initial[k]
                self.provided[k][o % ct] = True
        if o == 0:
            for k in range(len(self.delays)):
                self.cache[k][0] = self.initial[k]
            self.offset += 1
            return None
        inp, tgt = (o - 1) % ct, o % ct
        codes = torch.tensor([[self.cache[k][inp] for k in range(len(self.delays))]])
        with torch.no_grad():
            h, logits = self.lm.temporal_step(self.lm.embed_codes(codes), self.state)
            sampled_text = int(logits.argmax(-1))
            prev = self.cache[0][tgt] if self.provided[0][tgt] else sampled_text
            self.lm.depformer.reset_state(self.state["depformer"])
            sampled = []
            for cb in range(c.dep_q):
                emb = self.lm.depformer_text_emb if cb == 0 else self.lm.depformer_emb[cb - 1]
                x = self.lm.depformer_in[cb](h) + emb(torch.tensor([[prev]]))
                y = self.lm.depformer(x, self.state["depformer"], step=cb)
                token = int(self.lm.linears[cb](y).argmax(-1))
                sampled.append(token)
                prev = self.cache[1 + cb][tgt] if self.provided[1 + cb][tgt] else token
        for k in range(len(self.delays)):
            self.provided[k][inp] = False
        for k, value in enumerate([sampled_text] + sampled):
            if not self.provided[k][tgt]:
                self.cache[k][tgt] = value
        if o <= self.max_delay:
            self.offset += 1
            return None
        out = [self.cache[k][(o - self.max_delay + d) % ct] for k, d in enumerate(self.delays)]
        self.offset += 1
        return out


def frame_plan(frames: int, seed: int = 0):
    """Per-frame (user [8], forced agent [8] or None, forced text or None): prompt-like then live."""
    g = torch.Generator().manual_seed(seed)
    plan = []
    for i in range(frames):
        user = torch.randint(0, CARD, (8,), generator=g).tolist()
        if i < 6:
            plan.append((user, torch.randint(0, CARD, (8,), generator=g).tolist(), PAD))
        elif i < 12:
            plan.append((list(SINE_TOKENS[:8]), list(SILENCE_TOKENS), 10 + i))
        else:
            plan.append((user, None, None))
    return plan


def test_generator_matches_literal_personaplex_semantics(lm):
    plan = frame_plan(40)
    literal = LiteralPersonaPlex(lm)
    assert literal.step(*plan[0]) is None  # the seed call: no model run, no output
    gen = PersonaPlexGenerator(lm, SamplingConfig.greedy())
    state = gen.init_state(1)
    outputs = []
    for i, (user, agent, text) in enumerate(plan[1:]):
        expected = literal.step(user, agent, text)
        given = Forcing(agent=None if agent is None else torch.tensor([agent]),
                        text=None if text is None else torch.tensor([text]))
        got_text, got_audio = gen.step(torch.tensor([user]), state, given)
        assert got_audio.shape == (1, 16)
        if i < gen.first_output_frame:
            assert expected is None and (got_text == -2).all() and (got_audio == -2).all()
            continue
        assert [int(got_text)] + got_audio[0].tolist() == expected, f"step {i}"
        outputs.append(expected)
    agent = torch.tensor(outputs)[:, 1:9]
    assert len(torch.unique(agent[-20:])) > 10  # live frames really are generated


def test_user_frame_influences_output_one_step_later(lm):
    """A user frame given at step j first changes the agent's output at step j + 1."""
    gen = PersonaPlexGenerator(lm, SamplingConfig.greedy())
    plan = [torch.tensor([u]) for u, _, _ in frame_plan(14)]
    j = 8
    runs = []
    for change in (False, True):
        state = gen.init_state(1)
        outs = []
        for i, user in enumerate(plan):
            if change and i == j:
                user = (user + 7) % CARD
            text, audio = gen.step(user, state)
            outs.append(torch.cat([text, audio[0, :8]]))
        runs.append(torch.stack(outs))
    assert torch.equal(runs[0][:j + 1], runs[1][:j + 1])
    assert not torch.equal(runs[0][j + 1], runs[1][j + 1])


def test_state_layout_and_errors(lm):
    gen = make_generator(lm)
    assert isinstance(gen, PersonaPlexGenerator)
    state = gen.init_state(2)
    assert state["tokens"]["cache"].shape == (2, 17, 4) and state["tokens"]["provided"].dtype == torch.bool
    assert int(state["tokens"]["offset"]) == 1  # the offset-0 seed call is part of init_state
    with pytest.raises(ValueError, match="forced agent audio"):
        gen.step(torch.zeros(2, 8, dtype=torch.long), state, Forcing(agent=torch.zeros(2, 7, dtype=torch.long)))
    with pytest.raises(ValueError, match="embedding"):
        user, voice = gen.voice_step(torch.zeros(2, 1, 64))
        gen.step(user, state, voice)


def test_step_is_graph_safe(lm):
    """Live and forced (prompt) steps: one dynamo graph each, no recompiles, no host syncs."""
    gen = PersonaPlexGenerator(lm, SamplingConfig())
    users = [torch.tensor([u]) for u, _, _ in frame_plan(5)]
    silence, pad = torch.tensor([SILENCE_TOKENS]), torch.tensor([PAD])
    live = [lambda st, u=u: (u, st) for u in users]
    given = Forcing(agent=silence, text=pad)
    forced = [lambda st, u=u: (u, st, given) for u in users]
    for calls in (live, forced):
        assert_traces_as_one_graph(gen, gen.init_state(1, seed=2), gen.init_state(1, seed=2), calls)
    state = gen.init_state(1)
    spy = SyncSpy()
    with spy:
        for u in users:
            gen.step(u, state)
            gen.step(u, state, Forcing(agent=silence, text=pad))
            user, voice = gen.voice_step(torch.zeros(1, 1, 128))
            gen.step(user, state, replace(voice, sample=True))
    assert spy.bad == []


# ------------------------------------------------------------------------------ prompt phases

def record_embeddings(lm: LMModel, gen: PersonaPlexGenerator, state, voice: VoicePrompt):
    """What PersonaPlex stores in a .pt voice: each voice step's summed input embedding and the token
    cache after the voice phase (recorded by wrapping ``embed_codes``), one step at a time as PersonaPlex runs."""
    recorded = []
    original = lm.embed_codes

    def recording(codes):
        recorded.append(original(codes))
        return recorded[-1]

    lm.embed_codes = recording
    try:
        steps = run_prompt_phases(gen, state, voice, [], silence_frames=0, chunk_steps=1)
    finally:
        del lm.embed_codes
    return torch.stack(recorded), state["tokens"]["cache"].clone(), steps


def test_prompt_phases_frame_counts_and_forced_tokens(lm):
    gen = PersonaPlexGenerator(lm, SamplingConfig())
    voice = VoicePrompt(codes=torch.randint(0, CARD, (9, 8)))
    text = [40, 41, 42, 43, 44]
    state = gen.init_state(1, seed=5)
    steps = run_prompt_phases(gen, state, voice, text)
    phases = [s.phase for s in steps]
    assert phases == ["voice"] * 8 + ["silence"] * SILENCE_FRAMES + ["text"] * 5 + ["silence2"] * SILENCE_FRAMES
    forced_agent = [voice.codes[i + 1] for i in range(8)] + [torch.tensor(SILENCE_TOKENS)] * (SILENCE_FRAMES * 2 + 5)
    forced_text = [PAD] * (8 + SILENCE_FRAMES) + text + [PAD] * SILENCE_FRAMES
    for i in range(1, len(steps)):  # step i shows the fully aligned frame of step i - 1
        assert int(steps[i].text) == forced_text[i - 1]
        assert torch.equal(steps[i].audio[0, :8], forced_agent[i - 1])
        assert steps[i].audio[0, 8:].tolist() == list(SINE_TOKENS)
    assert int(state["tokens"]["offset"]) == 1 + len(steps)

    # Without a voice prompt the first silence frame is PersonaPlex's seed call.
    fresh = gen.init_state(1)
    assert len(run_prompt_phases(gen, fresh, None, text)) == 2 * SILENCE_FRAMES + len(text) - 1
    with pytest.raises(ValueError, match="fresh state"):
        run_prompt_phases(gen, fresh, None, text)


@pytest.mark.parametrize("stored_voice", [False, True], ids=["voice-codes", "voice-embeddings"])
def test_prompt_steps_without_sampling_leave_the_state_of_sampled_steps(lm, stored_voice, monkeypatch):
    """The prompt phases skip the text head, sampling and the depth transformer on every step but
    the last (every stream is forced): one step at a time, the whole state, RNG counter included,
    equals that of running each step in full, bit for bit, and so does everything the model does
    afterwards (chunks of steps: tests/test_prompt_steps.py)."""
    gen = PersonaPlexGenerator(lm, SamplingConfig())
    voice = VoicePrompt(codes=torch.randint(0, CARD, (6, 8), generator=torch.Generator().manual_seed(4)))
    if stored_voice:
        embeddings, cache, _ = record_embeddings(lm, gen, gen.init_state(1, seed=9), voice)
        voice = VoicePrompt(embeddings=embeddings, cache=cache)
    text = [40, 41, 42]
    skipping = gen.init_state(1, seed=9)
    fast = run_prompt_phases(gen, skipping, voice, text, chunk_steps=1)
    full = gen.init_state(1, seed=9)
    sampled = []

    def in_full(state, frames, chunk_steps):  # each forced step as a complete, sampled step
        sampled.extend(frames)
        return [gen.step(user, state, replace(forcing, sample=True)) for user, forcing in frames]

    monkeypatch.setattr(gen, "forced_steps", in_full)
    slow = run_prompt_phases(gen, full, voice, text)
    monkeypatch.undo()
    assert len(sampled) == len(slow) - 1 > 10  # every step but the last went through forced_steps
    assert [(s.phase, s.text.tolist(), s.audio.tolist()) for s in fast] == \
        [(s.phase, s.text.tolist(), s.audio.tolist()) for s in slow]
    a, b = flatten(skipping), flatten(full)
    assert not [name for name in a if not torch.equal(a[name], b[name])]
    g = torch.Generator().manual_seed(6)
    for _ in range(4):
        user = torch.randint(0, CARD, (1, 8), generator=g)
        assert all(torch.equal(x, y) for x, y in zip(gen.step(user, skipping), gen.step(user, full)))


def test_a_step_without_sampling_needs_every_stream_forced(lm):
    gen = PersonaPlexGenerator(lm, SamplingConfig())
    with pytest.raises(ValueError, match="every stream forced"):
        gen.step(torch.tensor([SINE_TOKENS]), gen.init_state(1), Forcing(sample=False))


def test_replayed_voice_embeddings_equal_the_codes_path(lm):
    """A .pt-style voice (recorded embeddings + cache) conditions the model exactly like its codes."""
    gen = PersonaPlexGenerator(lm, SamplingConfig.greedy())
    voice = VoicePrompt(codes=torch.randint(0, CARD, (7, 8), generator=torch.Generator().manual_seed(2)))
    a = gen.init_state(1)
    embeddings, cache, voice_steps = record_embeddings(lm, gen, a, voice)
    assert embeddings.shape == (6, 1, 1, 128) and len(voice_steps) == 6
    stored = VoicePrompt(embeddings=embeddings, cache=cache)
    b = gen.init_state(1)
    replay = run_prompt_phases(gen, b, stored, [], silence_frames=0, chunk_steps=1)
    assert len(replay) == 6
    for name in ("temporal",):
        for x, y in zip(a["lm"][name]["layers"].values(), b["lm"][name]["layers"].values()):
            assert torch.equal(x["k"], y["k"]) and torch.equal(x["v"], y["v"])
    assert torch.equal(a["tokens"]["cache"], b["tokens"]["cache"])
    assert torch.equal(a["tokens"]["provided"], b["tokens"]["provided"])
    sine = torch.tensor([SINE_TOKENS])
    for i in range(6):
        user = sine if i < 3 else torch.tensor([[i] * 8])
        assert all(torch.equal(x, y) for x, y in zip(gen.step(user, a), gen.step(user, b)))


# ------------------------------------------------------------------------------ voice files

def write_pt(path, embeddings, cache):
    torch.save({"embeddings": embeddings, "cache": cache}, path)
    return path


def test_voice_pt_is_converted_once_and_never_unpickled_again(tmp_path, monkeypatch):
    emb, cache = torch.randn(5, 1, 1, 128).to(torch.bfloat16), torch.randint(0, CARD, (1, 17, 4))
    pt = write_pt(tmp_path / "NATF2.pt", emb, cache)
    voice = load_voice_prompt(pt)
    assert torch.equal(voice.embeddings, emb) and torch.equal(voice.cache, cache)
    assert (tmp_path / "NATF2.safetensors").is_file()

    def no_unpickling(*args, **kwargs):
        raise AssertionError("the pickle was read again")

    monkeypatch.setattr(torch, "load", no_unpickling)
    again = load_voice_prompt(pt)
    assert torch.equal(again.embeddings, emb)
    direct = load_voice_prompt(tmp_path / "NATF2.safetensors")
    assert torch.equal(direct.cache, cache)
    monkeypatch.undo()

    cached = load_voice_prompt(pt, cache_dir=tmp_path / "cache")
    assert converted_voice_path(pt, tmp_path / "cache").is_file() and torch.equal(cached.cache, cache)
    write_pt(pt, emb * 2, cache)  # an edited .pt is converted again
    assert torch.equal(load_voice_prompt(pt).embeddings, emb * 2)


def test_voice_pt_extra_entries_are_ignored_not_copied(tmp_path):
    emb, cache = torch.randn(3, 1, 1, 16), torch.randint(0, CARD, (1, 17, 4))
    pt = tmp_path / "VARF1.pt"
    torch.save({"embeddings": emb, "cache": cache, "text_tokens": torch.arange(4), "note": "v2"}, pt)
    voice = load_voice_prompt(pt)
    assert torch.equal(voice.embeddings, emb) and torch.equal(voice.cache, cache)
    from safetensors import safe_open

    with safe_open(str(tmp_path / "VARF1.safetensors"), framework="pt") as f:
        assert set(f.keys()) == {"embeddings", "cache"}  # noqa: SIM118 (not a dict)


class NotATensor:
    pass


@pytest.mark.parametrize("content, word", [
    ({"embeddings": torch.randn(2, 1, 1, 8)}, "keys"),
    ({"embeddings": torch.zeros(2, 1, 1, 8, dtype=torch.long), "cache": torch.zeros(1, 17, 4, dtype=torch.long)},
     "embeddings"),
    ({"embeddings": torch.randn(2, 8), "cache": torch.zeros(1, 17, 4, dtype=torch.long)}, "embeddings"),
    ({"embeddings": torch.randn(2, 1, 1, 8), "cache": torch.zeros(1, 17, 4)}, "cache"),
    ([torch.randn(2)], "keys"),
    ({"embeddings": NotATensor(), "cache": torch.zeros(1)}, "tensors-only"),
])
def test_voice_pt_validation(tmp_path, content, word):
    path = tmp_path / "bad.pt"
    torch.save(content, path)
    with pytest.raises(ValueError, match=word):
        load_voice_prompt(path)
    assert not (tmp_path / "bad.safetensors").exists()


def test_voice_file_errors(tmp_path):
    with pytest.raises(ValueError, match="does not exist"):
        load_voice_prompt(tmp_path / "none.pt")
    (tmp_path / "v.wav").write_bytes(b"RIFF")
    with pytest.raises(ValueError, match="voice_prompt_from_pcm"):
        load_voice_prompt(tmp_path / "v.wav")
    save_file({"a": torch.zeros(1)}, str(tmp_path / "other.safetensors"))
    with pytest.raises(ValueError, match="not a converted voice prompt"):
        load_voice_prompt(tmp_path / "other.safetensors")


def test_voice_prompt_from_pcm_frames_and_pads():
    seen = []

    def encode(pcm):  # a deterministic per-frame quantiser standing in for Mimi's encoder
        seen.append(pcm.shape)
        frames = pcm.view(-1, 1920)
        levels = (frames.abs().mean(-1) * 1000).long() % 2048
        return torch.stack([levels + q for q in range(8)])[None]

    pcm = torch.linspace(-1, 1, 1920 * 3 + 100)
    voice = voice_prompt_from_pcm(pcm, encode)
    assert seen == [(1, 1, 1920 * 4)] and voice.codes.shape == (4, 8) and voice.codes.dtype == torch.long
    assert voice.codes[:, 3].tolist() == [c + 3 for c in voice.codes[:, 0].tolist()]
    with pytest.raises(ValueError, match="codes"):
        voice_prompt_from_pcm(pcm, lambda x: torch.zeros(1, 8, 2, dtype=torch.long))
    with pytest.raises(ValueError, match="float tensor"):
        voice_prompt_from_pcm(torch.zeros(0), encode)


# ------------------------------------------------------------------------------- text prompt

def test_text_prompt_wrapping_and_sentencepiece(tmp_path):
    import sentencepiece as spm

    assert wrap_with_system_tags("  Be kind. ") == "<system> Be kind. <system>"
    assert wrap_with_system_tags("<system> Be kind. <system>") == "<system> Be kind. <system>"
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(["<system> You are a wise and friendly teacher. <system>",
                                 "You enjoy having a good conversation.",
                                 "Answer questions or provide advice in a clear and engaging way."] * 30))
    spm.SentencePieceTrainer.train(input=str(corpus), model_prefix=str(tmp_path / "sp"), vocab_size=40,
                                   model_type="unigram", user_defined_symbols=["<system>"],
                                   num_threads=1, minloglevel=2)
    sp = spm.SentencePieceProcessor(model_file=str(tmp_path / "sp.model"))
    tokens = text_prompt_tokens("You are a wise and friendly teacher.", sp)
    assert tokens == sp.encode("<system> You are a wise and friendly teacher. <system>")
    assert sp.decode(tokens) == "<system> You are a wise and friendly teacher. <system>"
    assert sp.piece_to_id("<system>") in tokens and sp.bos_id() not in tokens
    with pytest.raises(ValueError, match="str"):
        text_prompt_tokens(["x"], sp)


# ------------------------------------------------------------------------ weights stored once

_STEP = re.compile(r"(?:gating|linears|depformer_in|depformer_emb)\.(\d+)\.")


def eight_step_file(path, lm: LMModel) -> dict[str, torch.Tensor]:
    """``lm``'s steps 0..7 as an 8-step file (PersonaPlex's released layout; ``depformer_emb.7``
    included); returns the 16-step state that the rule expands it to (steps 8..15 = 0..7)."""
    state = lm.state_dict()
    eight, expanded = {}, {}
    for key, tensor in state.items():
        m = _STEP.search(key)
        if m is not None and int(m[1]) >= 8:
            expanded[key] = state[key[:m.start(1)] + str(int(m[1]) - 8) + key[m.end(1):]]
        elif key.startswith("depformer.") and ".self_attn." in key:
            eight[key] = tensor[:tensor.shape[0] // 2].clone()
            expanded[key] = torch.cat([eight[key]] * 2)
        else:
            eight[key] = expanded[key] = tensor
    save_file(eight, str(path))
    return expanded


@pytest.mark.parametrize("precision", ["float32", "int8"])
def test_an_8_step_file_is_held_once_and_gives_the_tokens_of_16_copied_steps(lm, tmp_path, precision):
    """The model loaded from an 8-step file holds each depformer weight once (steps 8..15 share
    0..7's storage), also quantised as it streams, and generates, frame by frame, the tokens of a
    model holding 16 separate steps with the copies (what loading did before), quantised after."""
    from engine.kernels.quantize import quantizer, weight_bytes
    from engine.lm.model import load_lm

    quantize = quantizer(precision)
    expanded = eight_step_file(tmp_path / "m8.safetensors", lm)
    shared = load_lm(tmp_path / "m8.safetensors", lm.config, dtype=torch.float32, quantize=quantize)
    separate = LMModel(lm.config).eval().requires_grad_(False)
    separate.load_state_dict(expanded)
    if quantize is not None:
        quantize(separate)
    first = {"float32": lambda m: m.linears[11].weight, "int8": lambda m: m.linears[11].weight.q}[precision]
    copy = {"float32": lambda m: m.linears[3].weight, "int8": lambda m: m.linears[3].weight.q}[precision]
    assert first(shared).data_ptr() == copy(shared).data_ptr()
    assert first(separate).data_ptr() != copy(separate).data_ptr()
    attn = shared.depformer.layers[0].self_attn
    assert attn.in_proj_weight.shape[0] == 8 * 3 * lm.config.depformer_dim  # stored once
    for heads in ("linears", "depformer_in"):
        assert 2 * weight_bytes(getattr(shared, heads))["total"] == weight_bytes(getattr(separate, heads))["total"]
    runs = []
    for model in (shared, separate):
        gen = PersonaPlexGenerator(model, SamplingConfig.greedy())
        state = gen.init_state(1)
        frames = []
        for user, agent, text in frame_plan(20):
            given = Forcing(agent=None if agent is None else torch.tensor([agent]),
                            text=None if text is None else torch.tensor([text]))
            text_token, audio = gen.step(torch.tensor([user]), state, given)
            frames.append(torch.cat([text_token.view(1), audio.view(-1)]))
        runs.append(frames)
    assert all(torch.equal(a, b) for a, b in zip(*runs))
    assert len(torch.unique(torch.cat(runs[0][-10:]))) > 10  # real, varied tokens were compared
