"""Loading a conversation model with captions beside it (engine.load_with_captions): the real demo
models on the CPU, planned against this computer's memory or a smaller one given to the plan."""

from __future__ import annotations

import numpy as np
import pytest

from engine import FRAME_SIZE, Captioner, SpeechToText, load_with_captions, resolve_model
from engine.runtime.pair_memory import HostMemory, ModelShape, plan_pair


def shapes():
    return ModelShape.of_files(resolve_model("demo")), ModelShape.of_files(resolve_model("demo-stt"))


def test_captions_load_beside_the_conversation_where_the_pair_fits():
    roomy = HostMemory(64.0, 32.0)
    pair = load_with_captions("demo", "demo-stt", device="cpu", precision="float32", memory=roomy)
    assert isinstance(pair.captions, SpeechToText) and pair.captions.precision.value == "float32"
    assert pair.message == plan_pair(*shapes(), roomy, "float32").summary
    assert pair.message.startswith("demo in float32 (") and "demo-stt in float32" in pair.message
    frame = np.zeros(FRAME_SIZE, dtype=np.float32)
    pair.model.new_session(record_audio=False).step(frame)  # both run
    Captioner(pair.captions).hear(frame)


def test_captions_are_dropped_with_a_message_where_the_pair_does_not_fit_and_the_conversation_loads():
    plan = plan_pair(*shapes(), HostMemory(64.0, 32.0), "float32")
    room = plan.alone.gb + 0.1  # the conversation fits, the pair in no precision does
    assert room < plan.least_gb
    pair = load_with_captions("demo", "demo-stt", device="cpu", precision="float32", memory=HostMemory(room, room))
    assert pair.captions is None
    assert pair.message == (f"Captions are off: demo-stt does not fit beside demo on this computer (the pair needs at "
                            f"least {plan.least_gb:.1f} GB; {room:.1f} GB of {room:.1f} GB is free). The conversation "
                            "runs without them.")
    result = pair.model.new_session(record_audio=False).step(np.zeros(FRAME_SIZE, dtype=np.float32))
    assert result.pcm.shape == (FRAME_SIZE,)


@pytest.mark.parametrize("captions", ["demo", "no-such-model"])
def test_a_caption_model_that_cannot_be_had_turns_captions_off_not_the_conversation(captions):
    pair = load_with_captions("demo", captions, device="cpu", precision="float32")
    assert pair.captions is None and pair.model.info.name == "demo"
    assert pair.message.startswith("Captions are off: ")
    assert ("not a speech-to-text one" in pair.message) if captions == "demo" else ("unknown model" in pair.message)


def test_a_caption_model_that_runs_out_of_gpu_memory_while_loading_turns_captions_off(monkeypatch):
    """Where the plan said the pair fits and the GPU still runs out (another program took memory
    meanwhile): the caption model's tensors are let go, the conversation stays loaded. Out of
    memory happens only on CUDA; here the caption model's load raises it as CUDA would."""
    import torch

    from engine.runtime import pair_loading

    def out_of_memory(files, device, precision):
        raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 64.00 MiB")

    monkeypatch.setattr(pair_loading, "SpeechToText", out_of_memory)
    pair = load_with_captions("demo", "demo-stt", device="cpu", precision="float32", memory=HostMemory(64.0, 32.0))
    assert pair.captions is None and pair.model.info.name == "demo"
    assert pair.message == ("Captions are off: demo-stt ran out of GPU memory while loading beside the conversation "
                            "model (other programs may be using the GPU). The conversation runs without them.")


def test_captions_turned_on_beside_a_loaded_conversation_take_the_precision_that_fits():
    """The window's path (``load_captions_beside``): the conversation runs already, so the plan is
    the caption model alone against what it leaves free; float32 where it fits, else int8, else a
    sentence."""
    from engine import ModelError, load_captions_beside
    from engine.runtime.pair_memory import need

    captions = shapes()[1]
    float32, int8 = (need(captions, p, HostMemory(64.0, 32.0), captions=True).gb for p in ("float32", "int8"))
    assert int8 < float32
    assert load_captions_beside("demo-stt", device="cpu", memory=HostMemory(64.0, 32.0)).precision.value == "float32"
    between = (int8 + float32) / 2  # room for int8 only
    squeezed = HostMemory(between, between)
    assert load_captions_beside("demo-stt", device="cpu", memory=squeezed).precision.value == "int8"
    full = HostMemory(int8 - 0.1, int8 - 0.1)
    with pytest.raises(ModelError) as refused:
        load_captions_beside("demo-stt", device="cpu", memory=full)
    assert str(refused.value) == (f"demo-stt does not fit beside the conversation model on this computer: it needs at "
                                  f"least {int8:.1f} GB and {full.free_gb:.1f} GB is free. The conversation runs "
                                  "without captions.")
