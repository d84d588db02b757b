"""Memory for a conversation model and a caption model on one device (engine.runtime.pair_memory):
the one rule the model manager and the loader follow, on GPUs of the usual sizes."""

from __future__ import annotations

import pytest

from engine.runtime.gpu_memory import RUNTIME_GB, Gpu, needed_gb
from engine.runtime.pair_memory import (
    CAPTION_RUNTIME_GB,
    HOST_RUNTIME_GB,
    HostMemory,
    ModelShape,
    need,
    plan_pair,
)

FREE_BELOW_TOTAL_GB = 0.5  # what the desktop and the CUDA context of other programs hold


def card(total_gb: float, allowances: dict[str, float] | None = None) -> Gpu:
    return Gpu(f"NVIDIA GPU of {total_gb:g} GB", total_gb, total_gb - FREE_BELOW_TOTAL_GB, (8, 9), allowances or {})


def shapes(conversation: str, captions: str) -> tuple[ModelShape, ModelShape]:
    return ModelShape.of_preset(conversation), ModelShape.of_preset(captions)


# (conversation, captions, GPU GB) -> the precisions planned (None: captions are off), and the
# conversation's own choice alone (None: it does not fit even alone).
EXPECTED = [
    ("moshiko", "stt-1b-en_fr", 8, None, None),
    ("personaplex", "stt-2.6b-en", 8, None, None),
    ("hibiki-zero", "stt-1b-en_fr", 8, None, None),
    ("moshiko", "stt-1b-en_fr", 12, None, None),
    ("hibiki-zero", "stt-1b-en_fr", 12, ("int8", "int8"), "int8"),  # int8 for both: what fits
    ("hibiki-zero", "stt-2.6b-en", 12, None, "int8"),  # the conversation alone, captions off
    ("moshiko", "stt-1b-en_fr", 16, None, "int8"),
    ("personaplex", "stt-2.6b-en", 16, None, "int8"),
    ("hibiki-zero", "stt-1b-en_fr", 16, ("bfloat16", "bfloat16"), "bfloat16"),
    ("hibiki-zero", "stt-2.6b-en", 16, ("int8", "int8"), "bfloat16"),
    ("moshiko", "stt-1b-en_fr", 24, ("int8", "bfloat16"), "bfloat16"),
    ("personaplex", "stt-2.6b-en", 24, ("int8", "bfloat16"), "bfloat16"),
    ("moshiko", "stt-1b-en_fr", 25.4, ("bfloat16", "int8"), "bfloat16"),  # an RTX 4090's 24.9 GB free
    ("personaplex", "stt-2.6b-en", 48, ("bfloat16", "bfloat16"), "bfloat16"),
]


@pytest.mark.parametrize(("conversation", "captions", "total_gb", "planned", "alone"), EXPECTED)
def test_the_pair_takes_the_heaviest_precisions_that_fit_the_gpu(conversation, captions, total_gb, planned, alone):
    gpu = card(total_gb)
    plan = plan_pair(*shapes(conversation, captions), gpu)
    assert (plan.alone and plan.alone.precision) == alone
    assert (plan.chosen and (plan.chosen.conversation.precision, plan.chosen.captions.precision)) == planned
    # Every combination tried says whether it fits; the chosen one is the first that does, in the
    # order heaviest conversation first, then heaviest captions.
    tried = [(o.conversation.precision, o.captions.precision) for o in plan.options]
    assert tried == [("bfloat16", "bfloat16"), ("bfloat16", "int8"), ("int8", "bfloat16"), ("int8", "int8")]
    for option in plan.options:
        assert option.fits == (option.gb <= gpu.free_gb)
        assert option.gb == option.conversation.gb + option.captions.gb
    if planned is None:
        assert plan.summary.startswith(f"Captions are off: {captions} does not fit beside {conversation} on the "
                                       f"{gpu.name} (")
        assert plan.summary.endswith(f"{gpu.free_gb:.1f} GB of {total_gb:.1f} GB is free). The conversation runs "
                                     "without them.")
        assert ("does not fit on its own" in plan.summary) == (alone is None)
        return
    assert plan.chosen.gb <= gpu.free_gb
    assert plan.summary.startswith(f"{conversation} in {planned[0]} ({plan.chosen.conversation.gb:.1f} GB) and "
                                   f"{captions} in {planned[1]} ({plan.chosen.captions.gb:.1f} GB) need about "
                                   f"{plan.chosen.gb:.1f} GB together")
    assert ("leaves room for the captions" in plan.summary) == (planned[0] != alone)


def test_each_need_is_its_weights_its_kv_cache_at_its_context_its_mimi_and_an_allowance():
    moshiko, stt_1b = shapes("moshiko", "stt-1b-en_fr")
    stt_2_6b = ModelShape.of_preset("stt-2.6b-en")
    # Keys and values in bfloat16 for the whole context: layers x context x dim x 2 (k, v) x 2 bytes.
    for model, layers, context, dim in ((moshiko, 32, 3000, 4096), (stt_1b, 16, 750, 2048), (stt_2_6b, 48, 375, 2048)):
        assert need(model, "bfloat16").tensors.kv_cache == pytest.approx(layers * context * dim * 2 * 2 / 1e9)
    # The 2.6B's weights: 2.6 billion parameters in bfloat16, twice that in float32.
    assert 5.0 < need(stt_2_6b, "bfloat16").tensors.weights < 5.5
    assert need(stt_2_6b, "float32").tensors.weights == pytest.approx(2 * need(stt_2_6b, "bfloat16").tensors.weights,
                                                                      rel=0.01)
    # The conversation's allowance is auto's alone (measured on this GPU plus a margin, else
    # RUNTIME_GB); the caption model's is its own, whatever the GPU measured.
    measured = card(24, {"int8": 2.0})
    assert need(moshiko, "int8", measured).allowance_gb == pytest.approx(2.5)
    assert need(moshiko, "bfloat16", measured).allowance_gb == RUNTIME_GB
    assert need(moshiko, "bfloat16", measured).gb == pytest.approx(needed_gb(moshiko.config, "bfloat16"))
    assert need(stt_1b, "int8", measured, captions=True).allowance_gb == CAPTION_RUNTIME_GB
    # A smaller allowance measured on this GPU lets the pair fit where the default would not.
    assert plan_pair(moshiko, stt_1b, card(16)).chosen is None
    planned = plan_pair(moshiko, stt_1b, card(16, {"int8": 1.0}))
    assert (planned.chosen.conversation.precision, planned.chosen.captions.precision) == ("int8", "bfloat16")


def test_captions_never_push_the_conversation_below_what_it_needs_alone():
    moshiko, stt_1b = shapes("moshiko", "stt-1b-en_fr")
    gpu = card(16)  # int8 alone fits; int4 + captions would fit too, but int4 is never taken for them
    assert need(moshiko, "int4").gb + need(stt_1b, "int8", gpu, captions=True).gb < gpu.free_gb
    plan = plan_pair(moshiko, stt_1b, gpu, allow_int4=True)
    assert plan.alone.precision == "int8" and plan.chosen is None
    assert {o.conversation.precision for o in plan.options} == {"bfloat16", "int8"}
    # Where the person opted in and int4 is what the conversation needs alone, the pair may use it.
    small = card(12.5)
    tight = plan_pair(moshiko, stt_1b, small, allow_int4=True)
    assert tight.alone.precision == "int4"
    assert {o.conversation.precision for o in tight.options} == {"int4"}
    # A precision the person named is the conversation's only one: captions are off rather than lower it.
    named = plan_pair(moshiko, stt_1b, card(24), precision="bfloat16")
    assert named.alone.precision == "bfloat16" and named.chosen is None
    assert named.summary.startswith("Captions are off: stt-1b-en_fr does not fit beside moshiko")
    assert plan_pair(moshiko, stt_1b, card(24), captions_precision="int8").chosen.captions.precision == "int8"


def test_on_the_cpu_the_pair_is_planned_in_this_computer_s_memory():
    demo, demo_stt = shapes("demo", "demo-stt")
    roomy = plan_pair(demo, demo_stt, HostMemory(64.0, 32.0))
    assert roomy.chosen.captions.precision == "float32"  # the speech-to-text model's weights on the CPU
    assert roomy.chosen.conversation.allowance_gb == roomy.chosen.captions.allowance_gb == HOST_RUNTIME_GB
    assert roomy.summary.endswith("and this computer has 32.0 GB free.")
    int8 = need(demo_stt, "int8", HostMemory(64.0, 32.0), captions=True).gb
    assert int8 < roomy.chosen.captions.gb
    room = roomy.alone.gb + (int8 + roomy.chosen.captions.gb) / 2  # int8 captions fit, float32 ones do not
    assert plan_pair(demo, demo_stt, HostMemory(room, room)).chosen.captions.precision == "int8"
    room = roomy.alone.gb + int8 / 2  # the conversation alone
    cramped = plan_pair(demo, demo_stt, HostMemory(room, room))
    assert cramped.alone is not None and cramped.chosen is None
    nothing = plan_pair(demo, demo_stt, HostMemory(0.5, 0.5))
    assert nothing.chosen is None and "demo does not fit on its own" in nothing.summary


def test_a_preset_whose_architecture_is_not_known_says_so():
    from engine import ModelError

    with pytest.raises(ModelError, match="hibiki-2b's architecture is not known before its download"):
        ModelShape.of_preset("hibiki-2b")
