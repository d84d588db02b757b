"""The family registry: every family module declares all a family is, and a model folder's
``config.json`` is recognised as the right family (or refused with a clear error)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

import engine.families as families
from engine.errors import ModelError
from engine.families import ALL_PRESETS, FAMILIES, GENERATORS, PRESETS, SPEECH_PRESETS, Family, family_named, recognise
from engine.families.demo import load_recipe
from engine.files.models import read_model_dir
from engine.lm.model import LMConfig
from tests.test_models import moshi_config

FAMILY_MODULES = sorted(p.stem for p in Path(families.__file__).parent.glob("*.py")
                        if p.stem not in ("__init__", "family", "rules"))


def test_every_speech_model_family_names_a_generator_kind_with_rules():
    """The text-to-speech families (Pocket TTS) have a generator of their own, not a language model's step."""
    for family in (f for f in FAMILIES if not f.text_to_speech):
        rules = families.rules_of(family.generator)
        assert rules.kind == family.generator
    with pytest.raises(ModelError, match="unknown generator kind"):
        families.rules_of("nonesuch")


def test_every_family_module_is_registered_once():
    assert sorted(f.name for f in FAMILIES) == FAMILY_MODULES
    for name in FAMILY_MODULES:
        module = getattr(families, name)
        assert isinstance(module.FAMILY, Family) and family_named(name) is module.FAMILY


@pytest.mark.parametrize("family", [f for f in FAMILIES if not f.text_to_speech], ids=lambda f: f.name)
def test_every_family_is_complete(family):
    assert family.title and family.label("x") and family.generator in GENERATORS
    assert family.refines is None or family_named(family.refines) is not family
    assert family.presets and all(p.family == family.name for p in family.presets)
    assert all(isinstance(name, str) and name for name in family.extra_files)
    assert isinstance(family.takes_prompts, bool) and isinstance(family.is_demo, bool)
    # its streams and delays are those of the architecture its folders load as
    built = load_recipe(family.recipe)["config"] if family.is_demo else family.config_defaults
    config = LMConfig.from_hub_config(built)
    assert config.delays == family.delays and config.dep_q == family.dep_q
    assert config.model_type == family.generator
    assert recognise(built, hint=family.name) is family
    for preset in family.presets:
        assert preset.licence and preset.approx_gb > 0
        # where it runs: the demos on the CPU in real time, the caption models on the CPU too, slowly
        assert preset.runs_on == ("cpu" if family.is_demo else "gpu_or_cpu" if family.speech_to_text else "gpu")
        # as measured (both precisions), or not yet: the STT models' and Hibiki's, where no GPU was lent
        measured = set() if family.is_demo or family.speech_to_text or family.interprets else {"bfloat16", "int8"}
        assert set(preset.memory_gb) == measured
        assert (preset.repo is None) == family.is_demo  # only the demos are built here


def test_preset_names_are_unique_across_families():
    names = [p.name for f in FAMILIES for p in f.presets]
    assert len(names) == len(set(names)) == len(ALL_PRESETS) + len(SPEECH_PRESETS)
    assert all(not family_named(p.family).speech_to_text for p in PRESETS.values())  # conversation models only


def test_the_rl_aligned_presets_say_their_terms():
    for name, family in (("moshika-rl-seamless", "moshi"), ("personaplex-rl-seamless", "personaplex")):
        preset = PRESETS[name]
        assert preset.family == family and preset.repo == f"kyutai/{name}"
        assert preset.gated and preset.non_commercial and "CC BY-NC 4.0" in preset.licence
        assert preset.approx_gb == next(p for p in PRESETS.values() if p.family == family and p.revision).approx_gb
    assert not PRESETS["moshiko"].non_commercial and not PRESETS["moshiko"].gated


DEMO = load_recipe()["config"]


@pytest.mark.parametrize(("config", "hint", "expected"), [
    (None, "moshi", "moshi"),  # no config.json: Moshi 7B, as the reference loader assumes
    (None, "personaplex", "personaplex"),  # ... or the preset's own family
    ({"model_type": "personaplex"}, "moshi", "personaplex"),  # only model_type, as PersonaPlex ships
    ({"model_type": "personaplex", "version": "7b-v1"}, "moshi", "personaplex"),
    (moshi_config(), "moshi", "moshi"),  # moshiko/moshika's
    (moshi_config(), "personaplex", "moshi"),  # a config that names its type wins over the hint
    (moshi_config(dep_q=16), "moshi", "personaplex"),  # PersonaPlex's 16 depth-transformer steps
    ({"moshi_name": "model.safetensors"}, "moshi", "moshi"),  # file names only: the hint decides
    ({"moshi_name": "model.safetensors"}, "personaplex", "personaplex"),
    (DEMO, "moshi", "demo"),  # exactly the recipe's
    ({**DEMO, "dim": 512}, "moshi", "moshi"),  # another Moshi-architecture model
    ({**DEMO, "model_type": "personaplex", "dep_q": 16}, "moshi", "personaplex"),  # the demo-size PersonaPlex
])
def test_recognition_picks_the_family(config, hint, expected):
    assert recognise(config, hint=hint).name == expected


@pytest.mark.parametrize("model_type", ["vits", "", 7])
def test_an_unknown_model_type_is_a_clear_error(model_type):
    with pytest.raises(ModelError, match=f"describes a {model_type!r} model; Parley runs the speech-to-speech "
                                         r"models \(hibiki, moshi, personaplex\). Pick a Moshi, PersonaPlex or "
                                         "Hibiki model"):
        recognise({"model_type": model_type}, "x/config.json")


def test_families_that_claim_one_config_without_refining_each_other_are_refused(monkeypatch):
    moshi = family_named("moshi")
    twin = dataclasses.replace(moshi, name="twin", presets=())
    monkeypatch.setattr(families, "FAMILIES", (*FAMILIES, twin))
    with pytest.raises(ModelError, match=r"fits several model families \(moshi, twin\)"):
        recognise(moshi_config(), "x/config.json")


def test_an_unknown_family_name_is_a_clear_error():
    with pytest.raises(ModelError, match="unknown model family 'tts': Parley runs demo, moshi, personaplex, "
                                         "hibiki, demo_interpreter, demo_stt, stt, pocket_tts"):
        family_named("tts")


@pytest.mark.parametrize(("config", "family", "generator", "dep_q"), [
    ({"model_type": "personaplex"}, "personaplex", "personaplex", 16),
    (moshi_config(), "moshi", "moshi", 8),
    (moshi_config(dep_q=16), "personaplex", "personaplex", 16),
    (DEMO, "demo", "moshi", 8),
    (None, "moshi", "moshi", 8),
    ({**DEMO, "model_type": "stt", "n_q": 32, "dep_q": 0, "delays": [0] * 33}, "stt", "moshi", 0),
])
def test_a_model_folder_is_read_as_its_family(tmp_path, config, family, generator, dep_q):
    names = ("model.safetensors", "tokenizer-e351c8d8-checkpoint125.safetensors", "tokenizer_spm_32k_3.model")
    if config is not None:
        (tmp_path / "config.json").write_text(json.dumps(config))
        names = (config.get("moshi_name", names[0]), config.get("mimi_name", names[1]),
                 config.get("tokenizer_name", names[2]))
    for name in names:
        (tmp_path / name).write_bytes(b"x")
    files = read_model_dir(tmp_path)
    assert files.family == family
    lm = LMConfig.from_hub_config(files.lm_config)
    assert lm.model_type == generator and lm.dep_q == dep_q


def test_a_folder_of_an_unknown_model_type_is_refused_naming_it(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "vits", "dim": 2048}))
    with pytest.raises(ModelError, match=r"config.json describes a 'vits' model"):
        read_model_dir(tmp_path)


def test_the_command_s_help_names_every_preset():
    from app.cli.command import MODEL_HELP

    assert MODEL_HELP.startswith(f"a preset ({', '.join(PRESETS)}) ")


def test_the_text_to_speech_family_has_a_pinned_preset_per_released_row():
    from engine.pocket_tts.hub import preset_row
    from engine.pocket_tts.releases import released_rows, revisions

    family = family_named("pocket_tts")
    assert family.text_to_speech and not family.claims({})
    assert list(family.presets) == [p for p in SPEECH_PRESETS.values() if p.family == family.name]
    assert [preset_row(p.name) for p in family.presets] == list(released_rows())
    for preset in family.presets:
        assert preset.revision == revisions(preset_row(preset.name))[1] and len(preset.revision) == 40
        assert preset.licence and preset.runs_on == "cpu" and preset.approx_gb > 0 and not preset.gated
    assert family.runs_on_cpu  # the family's word for what each of its presets' runs_on says
    assert not any(f.runs_on_cpu for f in FAMILIES if f is not family)
    assert not set(SPEECH_PRESETS) & set(ALL_PRESETS)  # not a model the LM runtime loads
