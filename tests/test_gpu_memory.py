"""GPU memory a model needs, and the plain error when a load runs out of it (engine.runtime.gpu_memory).
The real out-of-memory path runs on a GPU in ``bench/gpu_load.py`` (its ``16gb_gpu`` stage); here
the estimate, the message and the load's handling of the error are checked on the CPU."""

from __future__ import annotations

import gc
import weakref

import pytest
import torch

from app.models.pair_fit import least_gpu_gb
from engine import PRESETS, ModelError, load_model
from engine.lm.model import LMConfig, LMModel, released_personaplex_shapes
from engine.runtime import loading
from engine.runtime.gpu_memory import Gpu, choose_precision, needed_gb, too_big_message

# In use on an NVIDIA H200 after live frames (bench/results/gpu_check.json and gpu_load.json): what
# each family's tested presets say.
MEASURED_GB = {(p.family, precision == "int8"): gb for p in PRESETS.values() if p.revision
               for precision, gb in p.memory_gb.items()}


def test_the_presets_say_what_was_measured():
    assert MEASURED_GB == {("moshi", False): 19.1, ("moshi", True): 13.1, ("personaplex", False): 22.1,
                           ("personaplex", True): 15.1}


def own_shapes(config: LMConfig) -> dict[str, tuple[int, ...]]:
    """The shapes of a file that stores every step the model has (PersonaPlex's 16 depth steps)."""
    return {k: tuple(v.shape) for k, v in LMModel(config, device="meta").state_dict().items()}


@pytest.mark.parametrize(("family", "int8"), list(MEASURED_GB))
def test_the_estimate_errs_high_but_not_by_much(family, int8):
    """Measured with PersonaPlex's steps 8..15 held as copies, so estimated as for a 16-step file."""
    config = LMConfig.personaplex_7b() if family == "personaplex" else LMConfig.moshi_7b()
    measured = MEASURED_GB[family, int8]
    assert measured <= needed_gb(config, "int8" if int8 else "bfloat16", file_shapes=own_shapes(config)) \
        <= measured + 3


def eight_step_shapes() -> dict[str, tuple[int, ...]]:
    """The shapes of PersonaPlex's released file, written out: the Moshi 7B layout plus ``depformer_emb.7``."""
    return {**own_shapes(LMConfig.moshi_7b()), "depformer_emb.7.weight": (2049, 1024)}


def test_the_estimate_counts_each_stored_weight_once_and_falls_with_the_precision():
    pp = LMConfig.personaplex_7b()
    separate = needed_gb(pp, "bfloat16", file_shapes=own_shapes(pp))
    shared = needed_gb(pp, "bfloat16", file_shapes=eight_step_shapes())
    assert 1.3 < separate - shared < 1.4  # 0.68 B bfloat16 weights of steps 8..15
    assert abs(shared - needed_gb(LMConfig.moshi_7b(), "bfloat16")) < 0.01  # the same weights as Moshi, + 1 table
    assert needed_gb(pp, "int4") < needed_gb(pp, "int8") < separate


def test_before_the_file_exists_personaplex_is_estimated_as_its_released_file_stores_it():
    """The model manager's need and ``auto``'s choice before a download: the released file's
    8 stored steps, not 16 (which overstated PersonaPlex by 1.4 GB in bfloat16)."""
    pp = LMConfig.personaplex_7b()
    assert released_personaplex_shapes(pp) == eight_step_shapes()
    for precision in ("bfloat16", "int8"):
        assert needed_gb(pp, precision) == needed_gb(pp, precision, file_shapes=eight_step_shapes())
    assert least_gpu_gb("personaplex") == least_gpu_gb("moshiko") == 15


GB = {p: needed_gb(LMConfig.personaplex_7b(), p, file_shapes=eight_step_shapes()) for p in ("bfloat16", "int8", "int4")}


@pytest.mark.parametrize(("free", "allow_int4", "chosen"), [
    (GB["bfloat16"] + 0.1, False, "bfloat16"), (GB["bfloat16"] - 0.1, False, "int8"), (GB["int8"], True, "int8"),
    (GB["int8"] - 0.1, True, "int4"), (GB["int8"] - 0.1, False, None), (GB["int4"] - 0.1, True, None)])
def test_auto_chooses_the_heaviest_precision_that_fits_and_says_why(free, allow_int4, chosen):
    gpu = Gpu("NVIDIA GeForce RTX 4070", free + 0.5, free, (8, 9))
    config = LMConfig.personaplex_7b()
    if chosen is None:
        with pytest.raises(ModelError, match="personaplex does not fit in this GPU's memory: in "
                                             f"{'int4' if allow_int4 else 'int8'} it needs about"):
            choose_precision("personaplex", config, gpu, allow_int4, eight_step_shapes())
        return
    choice = choose_precision("personaplex", config, gpu, allow_int4, eight_step_shapes())
    assert choice.precision == chosen
    assert choice.reason.startswith(f"{chosen}: personaplex needs about {GB[chosen]:.1f} GB in {chosen}, and the "
                                    f"NVIDIA GeForce RTX 4070 has {free:.1f} GB free")
    assert ("experimental" in choice.reason) == (chosen == "int4")
    assert "no native bfloat16" not in choice.reason


def test_auto_says_what_a_gpu_without_native_bfloat16_can_do():
    gpu = Gpu("NVIDIA GeForce RTX 2080 Ti", 40.0, 39.0, (7, 5))
    choice = choose_precision("moshiko", LMConfig.moshi_7b(), gpu)
    assert choice.reason.endswith("this GPU (compute capability 7.5) has no native bfloat16, which it emulates: "
                                  "the frame may not run in real time.")


def test_the_message_names_the_need_the_gpu_and_what_helps():
    needs = {"bfloat16": 21.8, "int8": 14.4, "int4": 10.9}
    bf16 = too_big_message("moshiko", "bfloat16", needs, Gpu("NVIDIA GeForce RTX 4080", 16.0, 15.2, (8, 9)))
    assert bf16 == ("moshiko does not fit in this GPU's memory: in bfloat16 it needs about 22 GB, and the NVIDIA "
                    "GeForce RTX 4080 has 16.0 GB (15.2 GB free). Try to load it in int8 (about 14 GB: precision "
                    "int8 in Model → Model manager, or --precision int8), or load it in int4, which is "
                    "experimental and can lower its quality (about 11 GB: --precision int4), or close other "
                    "programs that use the GPU, or use a GPU with more memory.")
    # Already int8, or int8 and int4 would not fit either: only what can still help.
    small = Gpu("GPU", 10.0, 9.0, (8, 6))
    for message in (too_big_message("personaplex", "int4", needs, small),
                    too_big_message("personaplex", "bfloat16", needs, small)):
        assert "int8 (about" not in message and message.endswith(
            "Try to close other programs that use the GPU, or use a GPU with more memory.")


def test_a_load_that_runs_out_of_memory_frees_it_before_saying_so(monkeypatch):
    """The error is raised after the handler: the failed load's tensors (held by its traceback
    inside the handler) are gone when the message reads the free memory."""
    held = []

    def running_out(*args, **kwargs):
        weights = torch.zeros(1000)
        held.append(weakref.ref(weights))
        raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 128.00 MiB")

    def message(name, config, precision, dtype, device, file_shapes):
        gc.collect()
        assert held and held[0]() is None, "the failed load's tensors are still alive"
        assert "text_emb.weight" in file_shapes  # the estimate counts the file's weights (PersonaPlex's shared steps)
        return ModelError(f"{name} does not fit ({precision})")

    monkeypatch.setattr(loading, "load_lm_weights", running_out)
    monkeypatch.setattr(loading, "out_of_memory_error", message)
    with pytest.raises(ModelError, match=r"^demo does not fit \(float32\)$") as caught:
        load_model("demo", device="cpu", precision="float32")
    assert caught.value.__context__ is None and caught.value.__cause__ is None
