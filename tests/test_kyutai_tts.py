"""Kyutai TTS: greedy parity with the reference ``moshi`` 0.2.13 ``TTSModel.generate`` on a tiny
random-weight model in the released tts-1.6b-en_fr layout (config.json keys, stacked attention,
demultiplexed text embeddings with the second stream two words ahead, low-rank depth embeddings,
a scheduled depth transformer, cross-attention to speaker embeddings with position embeddings,
the summed "control" and distilled "cfg" conditions), in float32 on the CPU: the same text and audio
tokens a frame, the same end and word times. The text machine is driven by Parley's ``Forcing``."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
import torch
from safetensors.torch import save_file

from engine.checkpoint import stack_split_attention
from engine.families import SPEECH_PRESETS, family_named, kyutai_tts, recognise
from engine.families.kyutai_tts import TTS_1_6B_CONFIG, SpeechTiming
from engine.files.demo import ensure_demo_model
from engine.lm.generate import Forcing, SamplingConfig, SpeechGenerator, make_generator
from engine.lm.model import LMConfig, LMModel, load_lm
from engine.lm.tts_generator import FRAME_RATE, speak, speaker_condition
from engine.lm.tts_machine import TextMachine, script_entries
from tests.reference import require_moshi

SCHEDULE = [0, 1, 2, 3, 4, 4, 5, 5]  # the released sharing pattern (own weights, then shared), for 8 codebooks
SPEAKER_DIM, VOICE_FRAMES = 24, 6
# The released config.json with the sizes made small (8 codebooks; a context of 12 wraps).
SMALL = {**TTS_1_6B_CONFIG, "n_q": 8, "dep_q": 8, "delays": [0, 0] + [2] * 7, "dim": 64, "text_card": 1000,
         "num_heads": 4, "num_layers": 2, "context": 12, "depformer_dim": 32, "depformer_num_heads": 4,
         "depformer_num_layers": 2, "depformer_dim_feedforward": 48, "depformer_weights_per_step_schedule": SCHEDULE,
         "depformer_low_rank_embeddings": 8, "tts_config": {"audio_delay": 0.32, "second_stream_ahead": 2},
         "conditioners": {**TTS_1_6B_CONFIG["conditioners"],
                          "speaker_wavs": {"type": "tensor", "tensor": {"dim": SPEAKER_DIM}},
                          "control": {"type": "lut", "lut": {"dim": 64, "n_bins": 1, "tokenizer": "noop",
                                                             "possible_values": ["ok"]}}},
         "moshi_name": "model.safetensors"}
_NOT_LM = ("model_type", "moshi_name", "mimi_name", "tokenizer_name", "tts_config", "model_id", "lm_gen_config")
SCRIPT = ["Hello world, this is a test.", 'Yes: <break time="0.4s"/> it (really) works!']
NEW_WORD_BIAS = 24.0
BONUS = 20.0  # scales the new-word logit's row so that the model asks for words itself, not only when made to


def randomize(ref, seed: int) -> None:
    """Random weights scaled so that tokens vary."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in ref.named_parameters():
            noise = torch.randn(p.shape, generator=g)
            if "alpha" in name or name.endswith("norm_cross.weight"):
                p.copy_(1.0 + 0.2 * noise)
            elif name.endswith("bias"):
                p.copy_(0.1 * noise)
            elif "emb" in name and "out" not in name and "low_rank" not in name:
                p.copy_(noise)
            else:
                p.copy_(noise * p.shape[-1] ** -0.5)
        ref.text_linear.weight[0] *= NEW_WORD_BIAS


def build(folder: Path, seed: int = 0):
    """The released layout (config.json, stacked-attention weights) from the reference loader's model,
    and a voice file as kyutai's (``speaker_wavs`` [1, dim, frames]); returns the reference model."""
    require_moshi()
    from moshi.models import loaders

    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text(json.dumps(SMALL))
    lm_kwargs = {k: copy.deepcopy(v) for k, v in SMALL.items() if k not in _NOT_LM}
    torch.manual_seed(seed)
    ref = loaders.get_moshi_lm(None, lm_kwargs=lm_kwargs, device="cpu", dtype=torch.float32)
    randomize(ref, seed)
    save_file({k: v.contiguous() for k, v in stack_split_attention(ref.state_dict()).items()},
              str(folder / "model.safetensors"))
    g = torch.Generator().manual_seed(seed + 1)
    voice = torch.randn(1, SPEAKER_DIM, VOICE_FRAMES, generator=g)
    save_file({"speaker_wavs": voice}, str(folder / "voice.safetensors"))
    return ref.eval()


def demo_tokenizer_path() -> Path:
    demo = ensure_demo_model()
    return demo / json.loads((demo / "config.json").read_text())["tokenizer_name"]


def tokenizer():
    import sentencepiece

    return sentencepiece.SentencePieceProcessor(str(demo_tokenizer_path()))


def reference_run(ref, folder: Path, sp, cfg: float, max_steps: int, n_q: int = SMALL["n_q"],
                  padding_bonus: float = 0.0):
    from moshi.models.tts import StateMachine, TokenIds, TTSModel, script_to_entries

    timing = SMALL["tts_config"]
    machine = StateMachine(TokenIds(ref.text_card + 1), second_stream_ahead=timing["second_stream_ahead"],
                           max_padding=8, initial_padding=2)
    tts = TTSModel(lm=ref, mimi=None, tokenizer=sp, voice_suffix="", voice_repo="", machine=machine,
                   delay_steps=int(timing["audio_delay"] * FRAME_RATE), n_q=n_q, temp=0.0,
                   max_gen_length=max_steps, padding_bonus=padding_bonus)
    entries = script_to_entries(sp, machine.token_ids, FRAME_RATE, SCRIPT, multi_speaker=True, padding_between=1)
    attributes = tts.make_condition_attributes([folder / "voice.safetensors"], cfg_coef=cfg)
    try:
        with torch.no_grad():
            result = tts.generate([entries], [attributes])
    finally:
        ref.dep_q = SMALL["dep_q"]  # ``generate`` sets the model's to ``n_q``
    return entries, result


@pytest.fixture(autouse=True)
def one_thread():
    """Tiny matrices: threads only contend (tens of times slower on a busy machine)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tts")
    return folder, build(folder)


@pytest.mark.reference
@pytest.mark.parametrize("cfg", [2.0, None])
def test_greedy_tokens_equal_the_reference_tts(built, cfg):
    """Guided by the distilled "cfg" condition (2.0, as ``simple_generate``) and unguided (its padding)."""
    folder, ref = built
    sp = tokenizer()
    max_steps = 120
    ref_entries, ref_result = reference_run(ref, folder, sp, cfg, max_steps)
    ref_frames = torch.cat(ref_result.frames, dim=2)[0]  # [1 + Q, T]

    config = json.loads((folder / "config.json").read_text())
    assert recognise(config) is kyutai_tts.FAMILY
    lm = load_lm(folder / "model.safetensors", LMConfig.from_hub_config(config), dtype=torch.float32)
    timing = SpeechTiming.of(config)
    generator = SpeechGenerator(lm, SamplingConfig.greedy(), delay_steps=timing.delay_steps(FRAME_RATE))
    state = generator.init_state(1)
    from safetensors.torch import load_file
    generator.condition(state, speaker_condition([load_file(str(folder / "voice.safetensors"))["speaker_wavs"]]), cfg)
    entries = script_entries(sp.encode, SCRIPT, FRAME_RATE, padding_between=1)
    assert [(list(e.tokens), e.text, e.padding) for e in entries] == \
        [(e.tokens, e.text, e.padding) for e in ref_entries]
    machine = TextMachine(lm.config.text_card + 1, timing.second_stream_ahead, entries)
    asked = []
    frames = speak(generator, state, machine, max_steps,
                   on_step=lambda step, _: asked.append(bool(state["text_machine"]["asked_word"][0])))
    ours = torch.stack([torch.cat([f.text, f.audio[0]]) for f in frames], dim=1)

    assert machine.end_step == ref_result.end_steps[0] is not None
    assert machine.transcript == ref_result.all_transcripts[0]
    assert ours.shape == ref_frames.shape
    assert torch.equal(ours, ref_frames)
    logged = ref_result.logged_text_tokens[0]
    assert asked == [t == 0 for t, _ in logged]
    assert sum(asked) >= 3 and len(set(ours[1].tolist())) > 5  # the model asks for words; the audio varies
    assert (ours[0] >= lm.config.text_card + 1).any()  # the second stream is multiplexed in


def test_the_released_layout_is_pinned():
    """418 tensors (410 of the LM, 8 float32 conditioner tensors) and 1.84 B parameters, as the
    released file holds; the preset is a text-to-speech one."""
    config = LMConfig.from_hub_config(TTS_1_6B_CONFIG)
    assert config.model_type == "tts" and config.dep_q == config.n_q == 32 and config.cross_attention
    model = LMModel(config, device="meta")
    state = model.state_dict()
    assert len(state) == 418 and sum(k.startswith("condition_provider.") for k in state) == 8
    assert sum(v.numel() for v in state.values()) == 1_836_550_272
    assert "kyutai-tts" in SPEECH_PRESETS and family_named("kyutai_tts").generator == "tts"
    assert SpeechTiming.of(TTS_1_6B_CONFIG).delay_steps(FRAME_RATE) == 16


def test_a_step_needs_the_voice_and_takes_a_text_choice_only_as_tts(built):
    folder, _ = built
    lm = load_lm(folder / "model.safetensors", LMConfig.from_hub_config(SMALL), dtype=torch.float32)
    generator = make_generator(lm, SamplingConfig.greedy())
    assert isinstance(generator, SpeechGenerator)
    state = generator.init_state(1)
    user = torch.empty(1, 0, dtype=torch.long)
    with pytest.raises(ValueError, match="voice first"):
        generator.step(user, state)
    with pytest.raises(ValueError, match="text choice"):
        generator.condition(state, (torch.zeros(1, 5, SPEAKER_DIM), torch.ones(1, 5, dtype=torch.bool)))
        generator.step(user, state, Forcing(text_choice=torch.zeros(1, 3, dtype=torch.long)))


def hub_folder(folder: Path, target: Path) -> Path:
    """``folder`` completed with the demo's Mimi and tokenizer under the released names."""
    import shutil

    from engine.files.hub_layout import MIMI_NAME

    shutil.copytree(folder, target)
    shutil.copy(ensure_demo_model() / MIMI_NAME, target / SMALL["mimi_name"])
    shutil.copy(demo_tokenizer_path(), target / SMALL["tokenizer_name"])
    return target


def test_a_tts_folder_is_recognised_and_refused_as_a_conversation_model(built, tmp_path):
    from engine.errors import ModelError
    from engine.files.models import read_model_dir
    from engine.runtime.loading import LoadedModel
    from engine.runtime.model_info import Precision

    folder, _ = built
    files = read_model_dir(hub_folder(folder, tmp_path / "tts"))
    assert files.family == "kyutai_tts"
    with pytest.raises(ModelError, match="text-to-speech model"):
        LoadedModel(files, torch.device("cpu"), Precision.FLOAT32)


def _ours(folder: Path, entries, before_step=None, closed=True, cfg=2.0):
    from safetensors.torch import load_file

    lm = load_lm(folder / "model.safetensors", LMConfig.from_hub_config(SMALL), dtype=torch.float32)
    timing = SpeechTiming.of(SMALL)
    generator = SpeechGenerator(lm, SamplingConfig.greedy(), delay_steps=timing.delay_steps(FRAME_RATE))
    state = generator.init_state(1)
    generator.condition(state, speaker_condition([load_file(str(folder / "voice.safetensors"))["speaker_wavs"]]), cfg)
    machine = TextMachine(lm.config.text_card + 1, timing.second_stream_ahead, entries, closed=closed)
    frames = speak(generator, state, machine, 120, before_step=None if before_step is None else
                   lambda step: before_step(step, machine))
    return torch.stack([torch.cat([f.text, f.audio[0]]) for f in frames], dim=1), machine


def test_words_streamed_in_ahead_of_the_voice_give_the_whole_script_s_tokens(built):
    """Words arriving one at a time, each while at least three words are still waiting (what the
    second stream's lookahead of two reads), give what the whole script gives; the text is closed
    when the last word has arrived."""
    folder, _ = built
    entries = script_entries(tokenizer().encode, SCRIPT, FRAME_RATE, padding_between=1)
    whole, _ = _ours(folder, entries)
    waiting = list(entries)

    def feed(step, machine):
        while waiting and machine.pending_words < 3:
            machine.add([waiting.pop(0)])
        if not waiting and not machine.closed:
            machine.close()

    streamed, machine = _ours(folder, [], feed, closed=False)
    assert torch.equal(streamed, whole) and machine.end_step is not None


def test_the_voice_waits_for_a_word_that_has_not_arrived():
    """An open text with no word left pads (no end), whatever the model asks; closed, it ends."""
    machine = TextMachine(1001, 2, [], closed=False, initial_padding=0, max_padding=0)
    word, pad = machine.choices(0)
    assert word == pad == 3 and machine.advance(0, True) == 3 and machine.end_step is None
    machine.add(script_entries(lambda w: [10 + len(w)], ["hi"], FRAME_RATE))
    assert machine.advance(1, True) == (0 + 1) * 1001 + 1  # the new word on the second stream, the speaker token
    machine.close()
    with pytest.raises(ValueError, match="closed"):
        machine.add([])
    # the word's token; then, no pad allowed, a word is asked for and there is none: the end (on the second stream)
    assert [machine.advance(s, False) for s in (2, 3)] == [12, 1001 + 3]
    assert machine.end_step == 3


@pytest.mark.reference
def test_fewer_codebooks_and_a_padding_bonus_equal_the_reference(built):
    """The reference's ``n_q`` below the model's: only the first codebooks are generated, the rest
    read as "no token"; and its ``padding_bonus`` on the pad's logit."""
    folder, ref = built
    sp = tokenizer()
    _, ref_result = reference_run(ref, folder, sp, 2.0, 120, n_q=4, padding_bonus=BONUS)
    ref_frames = torch.cat(ref_result.frames, dim=2)[0]
    assert ref_frames.shape[0] == 5
    from safetensors.torch import load_file

    lm = load_lm(folder / "model.safetensors", LMConfig.from_hub_config(SMALL), dtype=torch.float32)
    generator = SpeechGenerator(lm, SamplingConfig.greedy(), delay_steps=SpeechTiming.of(SMALL).delay_steps(FRAME_RATE),
                                codebooks=4, padding_bonus=BONUS)
    state = generator.init_state(1)
    generator.condition(state, speaker_condition([load_file(str(folder / "voice.safetensors"))["speaker_wavs"]]))
    machine = TextMachine(lm.config.text_card + 1, 2, script_entries(sp.encode, SCRIPT, FRAME_RATE, padding_between=1))
    frames = speak(generator, state, machine, 120)
    ours = torch.stack([torch.cat([f.text, f.audio[0]]) for f in frames], dim=1)
    assert machine.end_step == ref_result.end_steps[0]
    assert torch.equal(ours[:5], ref_frames)
    assert (ours[5:] == -1).all()
    _, unbiased = reference_run(ref, folder, sp, 2.0, 120, n_q=4)
    assert unbiased.end_steps[0] < machine.end_step  # the bonus slows the speech
    with pytest.raises(ValueError, match="codebooks"):
        SpeechGenerator(lm, codebooks=9)


def test_a_replay_of_the_written_tokens_rebuilds_the_state_bit_for_bit(built):
    """What a journal keeps (the tokens each step wrote) forced without sampling (but the last step,
    which refills the depth transformer's cache) rebuilds the live state and outputs exactly: the
    conditions and the voice are in the replayed steps too."""
    from safetensors.torch import load_file

    from engine.state import flatten

    folder, _ = built
    lm = load_lm(folder / "model.safetensors", LMConfig.from_hub_config(SMALL), dtype=torch.float32)
    generator = SpeechGenerator(lm, SamplingConfig.greedy(), delay_steps=SpeechTiming.of(SMALL).delay_steps(FRAME_RATE),
                                codebooks=6)
    voice = speaker_condition([load_file(str(folder / "voice.safetensors"))["speaker_wavs"]])
    live, replayed = generator.init_state(1), generator.init_state(1)
    for state in (live, replayed):
        generator.condition(state, voice)
    machine = TextMachine(lm.config.text_card + 1, 2, script_entries(tokenizer().encode, SCRIPT, FRAME_RATE))
    written, outputs = [], []

    def keep(step, result):
        written.append(generator.written_tokens(live).clone())
        outputs.append(result)

    speak(generator, live, machine, 40, on_step=keep)
    user = torch.empty(1, 0, dtype=torch.long)
    for i, tokens in enumerate(written):
        text, audio = generator.step(user, replayed, Forcing(tokens, sample=i == len(written) - 1))
        assert torch.equal(text, outputs[i].text) and torch.equal(audio, outputs[i].audio)
    ours, theirs = flatten(live), flatten(replayed)
    different = [k for k in ours if "text_machine" not in k and not torch.equal(ours[k], theirs[k])]
    assert different == []


@pytest.mark.reference
def test_a_loaded_folder_says_a_text_as_the_reference_simple_generate(built, tmp_path):
    """The folder loaded as a whole (``KyutaiSpeech``) against the reference's own loader and
    ``simple_generate`` (greedy, guidance 2.0): the same voice, within float32 rounding."""
    from moshi.models import loaders
    from moshi.models.tts import TTSModel

    from engine.files.kyutai_voices import read_voice
    from engine.files.models import read_model_dir
    from engine.runtime.kyutai_speech import KyutaiSpeech
    from engine.runtime.model_info import Precision

    folder = hub_folder(built[0], tmp_path / "tts")
    text = "Hello world, this is a test."
    info = loaders.CheckpointInfo.from_hf_repo(
        "local", moshi_weights=folder / SMALL["moshi_name"], mimi_weights=folder / SMALL["mimi_name"],
        tokenizer=folder / SMALL["tokenizer_name"], config_path=folder / "config.json")
    tts = TTSModel.from_checkpoint_info(info, n_q=SMALL["n_q"], temp=0.0, device="cpu", dtype=torch.float32)
    expected = tts.simple_generate(text, str(folder / "voice.safetensors"), cfg_coef=2.0, show_progress=False)[0]

    speech = KyutaiSpeech(read_model_dir(folder), torch.device("cpu"), Precision.FLOAT32, SamplingConfig.greedy())
    got = speech.say(text, [read_voice(folder / "voice.safetensors")])
    assert got.shape == expected.shape and got.numel() > 0
    torch.testing.assert_close(got, expected)


@pytest.mark.parametrize("temp", [0.0, 0.8])
def test_the_audio_delay_skips_the_depth_transformer_and_changes_no_token(built, temp):
    """As the reference's ``depformer_replace_tokens``: in the first ``delay_steps`` steps the depth
    transformer does not run (their audio is "no token" anyway); every token, and at a temperature
    the seeded noise of the steps after, is what running it gives."""
    from safetensors.torch import load_file

    from engine.lm.step import Forcing as StepForcing

    folder, _ = built
    lm = load_lm(folder / "model.safetensors", LMConfig.from_hub_config(SMALL), dtype=torch.float32)
    sampling = SamplingConfig(temp=temp, temp_text=temp) if temp else SamplingConfig.greedy()
    delay = SpeechTiming.of(SMALL).delay_steps(FRAME_RATE)
    generator = SpeechGenerator(lm, sampling, delay_steps=delay)
    voice = speaker_condition([load_file(str(folder / "voice.safetensors"))["speaker_wavs"]])
    entries = script_entries(tokenizer().encode, SCRIPT, FRAME_RATE)
    depth_frames = []
    running = lm.depformer_frame
    lm.depformer_frame = lambda *a, **k: depth_frames.append(1) or running(*a, **k)

    def run(silent_delay: bool):
        state = generator.init_state(1, seed=3)
        generator.condition(state, voice)
        machine = TextMachine(lm.config.text_card + 1, SpeechTiming.of(SMALL).second_stream_ahead, entries)
        user, out = torch.empty(1, 0, dtype=torch.long), []
        for step in range(delay + 24):
            choice = torch.tensor([machine.choices(step)], dtype=torch.long)
            result = generator.step(user, state, StepForcing(text_choice=choice,
                                                             audio_silent=silent_delay and step < delay))
            machine.advance(step, bool(state["text_machine"]["asked_word"][0]))
            out.append(torch.cat([result.text, result.audio[0]]))
        return torch.stack(out)

    skipped = run(True)
    assert len(depth_frames) == 24
    assert torch.equal(skipped, run(False)) and len(depth_frames) == 24 + delay + 24
    assert (skipped[-8:, 1:] >= 0).all() and len(set(skipped[-8:, 1].tolist())) > 1  # real audio after the delay
    state = generator.init_state(1)
    generator.condition(state, voice)
    depth_frames.clear()
    speak(generator, state, TextMachine(lm.config.text_card + 1, 2, entries), delay + 24)
    assert len(depth_frames) == 24  # ``speak`` skips them too
