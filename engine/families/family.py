"""What a model family is: one object that says everything Parley needs to know about it (nothing
else tests a family's name). Pure data, importing nothing of the engine but its errors."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

GENERATORS = ("moshi", "personaplex", "hibiki", "tts")
UNTRAINED = "(untrained, babbles)"  # after a demo model's name (the app translates it)
MEASURED_ON = "NVIDIA H200"  # the GPU Preset.memory_gb was measured on, after live frames
# Where a preset runs: only on an NVIDIA GPU; on one or, slowly, on the CPU; on the CPU in real time.
RUNS_ON = ("gpu", "gpu_or_cpu", "cpu")


@dataclass(frozen=True)
class Preset:
    """A model Parley knows by name: where it comes from, where it runs and on what terms (facts only:
    the window words them, ``app.models.model_texts``). ``revision`` is the tested commit; a hub preset
    without one is pinned to the commit first downloaded, never the moving ``main``."""

    name: str
    repo: str | None  # None: built locally (the demo)
    family: str
    gated: bool
    licence: str  # its name ("A + B": both apply)
    approx_gb: float  # the download (the weight files)
    runs_on: str  # one of RUNS_ON
    revision: str | None = None
    non_commercial: bool = False
    memory_gb: Mapping[str, float] = field(default_factory=dict)  # GB in use per precision on MEASURED_ON
    # config.json keys differing from the family's ``config_defaults``; None: unknown until downloaded.
    config: Mapping[str, Any] | None = field(default_factory=dict)

    @property
    def page(self) -> str | None:
        return f"https://huggingface.co/{self.repo}" if self.repo else None

    @property
    def pinned_on_first_download(self) -> bool:
        return self.repo is not None and self.revision is None

    def __post_init__(self) -> None:
        if self.runs_on not in RUNS_ON:
            raise ValueError(f"{self.name}: runs_on {self.runs_on!r} is not one of {RUNS_ON}")


@dataclass(frozen=True)
class Family:
    """One model family. Where several claim a ``config.json``, the one that ``refines`` the other wins."""

    name: str
    title: str
    generator: str  # one of GENERATORS
    claims: Callable[[Mapping[str, Any]], bool]
    config_defaults: Mapping[str, Any]  # what a config.json naming no architecture is taken to say
    delays: tuple[int, ...]  # of the text stream, then each audio stream (the released model's)
    dep_q: int  # the depth transformer's steps (the audio codebooks a step writes)
    takes_prompts: bool
    presets: tuple[Preset, ...]
    forced_config: Mapping[str, Any] = field(default_factory=dict)  # set whatever config.json says
    extra_files: tuple[str, ...] = ()
    refines: str | None = None  # the family whose claims this one narrows
    is_demo: bool = False
    recipe: Path | None = None  # where its presets without a repository are built from (the demos)
    speech_to_text: bool = False  # captions: text out, no voice (``CAPTION_PRESETS``)
    interprets: bool = False
    text_to_speech: bool = False  # text in, speech out (``SPEECH_PRESETS``)
    runs_on_cpu: bool = False  # its released models run in real time on any CPU (no GPU asked for)

    def label(self, name: str) -> str:
        """What the window calls a model of this family named ``name``."""
        return f"{self.presets[0].name} {UNTRAINED}" if self.is_demo else name
