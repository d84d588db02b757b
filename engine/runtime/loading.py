"""Loading a model: resolve its files, choose the device and precision, build Mimi, the LM and the
tokenizer once, and pick the kernels the precision implies."""

from __future__ import annotations

import logging
from dataclasses import replace

import torch

from ..checkpoint import checkpoint_shapes
from ..codec.mimi import load_mimi
from ..errors import ModelError
from ..families import family_named
from ..files.fingerprint import model_fingerprint
from ..files.models import ModelFiles, resolve_model
from ..kernels.int4_tiled import Tiling, prepare_tiles
from ..kernels.packed import pack_linears
from ..kernels.quantize import quantizer
from ..lm.generate import SamplingConfig
from ..lm.model import LMConfig, LMModel, load_lm
from ..lm.sampling import DEFAULT_SEED
from ..lm.tokenizer import TextTokenizer
from . import gpu_allowance, heap
from .gpu_memory import Gpu, choose_precision, model_bytes, out_of_memory_error
from .kernel_plan import KernelPlan, plan_kernels, silent_frame_runner
from .model_info import ModelInfo, Precision
from .session import Session
from .thread_cache import choice_key, read_choice, write_choice
from .threads import ThreadChoice, choose_threads, use_threads

log = logging.getLogger(__name__)


def resolve_device(device: str) -> torch.device:
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if device == "cuda" and not torch.cuda.is_available():
        raise ModelError("--device cuda was asked for, but no CUDA device is available (use --device cpu)")
    if device not in ("cpu", "cuda"):
        raise ModelError(f"unknown device {device!r}: expected auto, cpu or cuda")
    return torch.device(device)


class LoadedModel:
    """Mimi + LM + tokenizer on one device, shared by the sessions opened on it."""

    def __init__(self, files: ModelFiles, device: torch.device, precision: Precision, cuda_graph: bool = True,
                 on_stage=None, allow_int4: bool = False):
        if family_named(files.family).speech_to_text:
            raise ModelError(f"{files.name} is a speech-to-text model (captions of what a person says), not a "
                             f"conversation model: transcribe with `parley transcribe --model {files.name}`, and "
                             "choose a Moshi or PersonaPlex model (or the demo) to talk to.")
        if family_named(files.family).text_to_speech:
            raise ModelError(f"{files.name} is a text-to-speech model (a voice that reads text), not a conversation "
                             "model: choose a Moshi or PersonaPlex model (or the demo) to talk to.")
        self.lm_config = LMConfig.from_hub_config(files.lm_config)
        reason = ""
        if precision is Precision.AUTO and device.type == "cuda":
            choice = choose_precision(files.name, self.lm_config, Gpu.of(device), allow_int4,
                                      checkpoint_shapes(files.lm_path))
            precision, reason = Precision(choice.precision), choice.reason
            log.warning("%s", reason)  # said where the app's and the command's messages go
        precision = precision.resolve(device)
        self.files, self.device, self.precision = files, device, precision
        self.dtype = precision.activation_dtype(device)
        self.cuda_graph = device.type == "cuda" and cuda_graph
        self.tokenizer = TextTokenizer(files.tokenizer_path)
        if self.tokenizer.vocab_size > self.lm_config.text_card:
            raise ModelError(f"the text tokenizer ({self.tokenizer.vocab_size} pieces) does not belong to this "
                             f"model (text_card {self.lm_config.text_card})")
        self.runtime_unmeasured = device.type == "cuda"
        self._outside_torch_gb = gpu_allowance.start_measuring(device) if self.runtime_unmeasured else 0.0
        self._unless_out_of_memory(self._load_weights)
        self.info = ModelInfo(
            name=files.name, family=files.family, device=str(device),
            precision=precision, dtype=str(self.dtype).removeprefix("torch."), cuda_graph_allowed=self.cuda_graph,
            fingerprint=model_fingerprint(files), precision_reason=reason)
        self.kernel_plan: KernelPlan | None = None
        self._allow_bf16 = precision is Precision.BFLOAT16
        self.thread_choice: ThreadChoice | None = None
        if device.type == "cpu":
            self.thread_choice = read_choice(self._thread_choice_key())
            if on_stage is not None:
                on_stage("Choosing the fastest kernels for this computer...")
            self._plan_kernels()
        else:
            # CUDA's context, cuBLAS handles and first allocator blocks: paid while loading, not on the first frame
            if on_stage is not None:
                on_stage("Warming up the GPU...")
            self._unless_out_of_memory(self._warm_up)

    def _load_weights(self) -> None:
        self.mimi = load_mimi(self.files.mimi_path, num_codebooks=self.lm_config.codec_codebooks, device=self.device)
        self.lm = load_lm_weights(self.files, self.lm_config, self.device, self.dtype, self.precision)
        self.int4_tiling: Tiling | None = getattr(self.lm, TILING_ATTRIBUTE, None)

    def _warm_up(self) -> None:
        with torch.inference_mode():
            self._silent_frame()()

    def measure_runtime_memory(self) -> None:
        """Once, on CUDA, when frames first run as they will: keep what this precision needed beyond the tensors."""
        self.runtime_unmeasured = False
        allowance = gpu_allowance.measured_gb(self.device, model_bytes(self.lm, self.mimi), self._outside_torch_gb)
        gpu_allowance.remember(Gpu.of(self.device).key, self.precision.value, allowance)
        log.info("%s in %s needed %.2f GB beyond its tensors here", self.files.name, self.precision.value, allowance)

    def _unless_out_of_memory(self, step) -> None:
        """Run ``step``; if the GPU runs out of memory, let go of everything loaded and raise a
        ``ModelError`` saying what the model needs. Raised after the handler ends, so the failed
        step's traceback no longer holds its tensors and "free" in the message is true."""
        try:
            step()
            return
        except torch.OutOfMemoryError:
            pass
        self.mimi = self.lm = None
        release_memory()
        raise out_of_memory_error(self.files.name, self.lm_config, self.precision.value, self.dtype, self.device,
                                  checkpoint_shapes(self.files.lm_path))

    def _silent_frame(self):
        return silent_frame_runner(lambda: self.new_session(record_audio=False, run_prompts=False))

    def _plan_kernels(self) -> None:
        """The kernel plan for torch's current thread count (kernels that win with one thread may lose with two)."""
        self.kernel_plan = plan_kernels([self.mimi, self.lm], self._silent_frame(), self.info.fingerprint, self.dtype,
                                        self._allow_bf16)
        if self._allow_bf16:  # says float32 when float32 measured faster everywhere
            self.precision = Precision.BFLOAT16 if self.kernel_plan.uses_bf16 else Precision.FLOAT32
            self.info = replace(self.info, precision=self.precision)

    def use_best_threads(self) -> ThreadChoice | None:
        """On the CPU, set torch's thread count to what this model's frame runs fastest with here
        (measured once, then cached) and replan the kernels if the plan was for another; None on a GPU."""
        if self.device.type != "cpu":
            return None
        if self.thread_choice is None:
            self.thread_choice = choose_threads(self)
            if self.thread_choice.measured:
                write_choice(self._thread_choice_key(), self.thread_choice)
        use_threads(self.thread_choice.threads)
        if self.kernel_plan is not None and self.kernel_plan.key["threads"] != str(self.thread_choice.threads):
            self._plan_kernels()
        return self.thread_choice

    def _thread_choice_key(self) -> dict[str, str]:
        return choice_key(self.info.fingerprint, self.dtype, self._allow_bf16)

    def new_session(self, sampling: SamplingConfig = SamplingConfig(), seed: int = DEFAULT_SEED,
                    voice_prompt: str | None = None, text_prompt: str | None = None, **options):
        """A new conversation; ``options`` are ``Session``'s keyword options."""
        return Session(self, sampling, seed, voice_prompt=voice_prompt, text_prompt=text_prompt, **options)


def load_model(spec: str, device: str = "auto", precision: Precision | str = Precision.AUTO,
               cuda_graph: bool = True, progress=None, on_stage=None, allow_int4: bool = False) -> LoadedModel:
    """Resolve (and if needed fetch) a model, then load it. ``allow_int4``: ``auto`` may choose 4-bit
    weights where nothing else fits; ``cuda_graph``: capture each frame as a CUDA graph;
    ``progress``: a ``tqdm`` class for downloads; ``on_stage(text)`` is told of slow loading steps."""
    return load_files(resolve_model(spec, progress=progress), resolve_device(device), Precision.parse(precision),
                      cuda_graph, on_stage, allow_int4)


def load_files(files: ModelFiles, device: torch.device, precision: Precision, cuda_graph: bool = True,
               on_stage=None, allow_int4: bool = False) -> LoadedModel:
    """``load_model`` for files already resolved."""
    with torch.inference_mode(False):
        model = LoadedModel(files, device, precision, cuda_graph, on_stage, allow_int4)
    heap.settle()  # its objects out of the frames' garbage collections
    return model


def release_memory() -> None:
    """Free what unreferenced models and sessions held, and hand CUDA's cached blocks back to the driver."""
    heap.settle()
    if torch.cuda.is_available():
        torch.cuda.empty_cache()


TILING_ATTRIBUTE = "int4_tiling"  # what ``prepare_tiles`` did to an int4 LM, kept on it


def load_lm_weights(files: ModelFiles, config: LMConfig, device: torch.device, dtype: torch.dtype,
             precision: Precision) -> LMModel:
    """Quantised precisions quantise each weight as it streams from the file (no float copy of the
    LM exists). On the CPU, float weights are packed for the kernel plan; int4 is tiled for torch's
    fused kernel."""
    quantize = quantizer(precision.value)
    lm = load_lm(files.lm_path, config, device=device, dtype=dtype, quantize=quantize)
    if quantize is None and device.type == "cpu" and dtype == torch.float32:
        pack_linears(lm, "aten")  # no copies yet: the kernel plan makes those its kernels need
    if precision is Precision.INT4:
        # tiled once here; on a GPU each tiled weight lets go of its stored copy
        tiling = prepare_tiles(lm)
        setattr(lm, TILING_ATTRIBUTE, tiling)
        log.log(logging.WARNING if tiling.refused else logging.INFO, "%s", tiling.summary())
    return lm
