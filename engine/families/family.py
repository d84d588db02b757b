"""What a model family is: one object that says everything Parley needs to know about it.

A family (Moshi, PersonaPlex, Hibiki, the demo) says how its folder is recognised from its
``config.json``, the streams and delays of its released model, whether it takes prompts, the
files it ships beyond the LM, codec and tokenizer, its presets (hub repository, pinned commit,
licence, gating, download size) and how the window names it. The generators, the model files and
the window ask the family; nothing else tests a family's name. Adding a family means adding one
module beside this one (and its tests) and naming it in ``engine.families.FAMILIES``.

This package is pure data: it imports nothing of the engine but its errors, so every other part
can ask it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# The generator semantics a family's LM runs with (``LMConfig.model_type``, ``make_generator``).
GENERATORS = ("moshi", "personaplex", "hibiki")
MEASURED_ON = "an NVIDIA H200 after live frames"  # where Preset.memory_gb was measured (bench/results)


@dataclass(frozen=True)
class Preset:
    """A model Parley knows by name: where it comes from and on what terms.

    ``revision`` is the commit of ``repo`` Parley was tested with (its snapshot folder's name in a
    Hugging Face cache). A hub preset without one is pinned to the commit first downloaded on this
    machine: that commit is recorded then (``engine.files.model_revisions``) and read thereafter,
    never the repository's moving ``main``.
    """

    name: str
    repo: str | None  # None: built locally (the demo)
    family: str
    gated: bool
    licence: str
    approx_gb: float  # the download (the weight files)
    description: str
    revision: str | None = None
    non_commercial: bool = False
    # GPU memory in use per precision (GB, CUDA included), as last measured on MEASURED_ON; empty:
    # runs on the CPU, or not measured yet (Hibiki's). The estimate for any GPU is
    # engine.runtime.gpu_memory's.
    memory_gb: Mapping[str, float] = field(default_factory=dict)
    # The released model's config.json keys where they differ from its family's ``config_defaults``
    # (what a memory estimate reads before the download); None: not known here (its estimate waits
    # for its config.json). A demo's is its recipe's.
    config: Mapping[str, Any] | None = field(default_factory=dict)

    @property
    def page(self) -> str | None:
        return f"https://huggingface.co/{self.repo}" if self.repo else None

    @property
    def pinned_on_first_download(self) -> bool:
        return self.repo is not None and self.revision is None

    @property
    def terms(self) -> str:
        """The licence and what it asks of a person, in plain words (shown before a download)."""
        words = [f"Licence: {self.licence}."]
        if self.non_commercial:
            words.append("Non-commercial use only: not for work you are paid for or a product you sell.")
        if self.gated:
            words.append("Gated: accept its terms on Hugging Face (logged in) and give Parley your access "
                         "token before downloading.")
        return " ".join(words)

    @property
    def memory_text(self) -> str:
        """``memory_gb`` in words ("" where it runs on the CPU or was not measured)."""
        if not self.memory_gb:
            return ""
        each = ", ".join(f"{gb:.1f} GB in {precision}" for precision, gb in self.memory_gb.items())
        return f"GPU memory in use, as measured on {MEASURED_ON}: {each}."

    @property
    def terms_short(self) -> str:
        """``terms`` in the few words of a table cell."""
        notes = [n for n, on in (("non-commercial", self.non_commercial),
                                 ("gated: accept on Hugging Face", self.gated)) if on]
        return self.licence + (f" ({'; '.join(notes)})" if notes else "")


@dataclass(frozen=True)
class Family:
    """One model family. ``claims(config)`` says whether a ``config.json`` (a parsed dict) names
    this family; where several families claim one, the one that ``refines`` the other wins
    (a PersonaPlex config is also a Moshi one: PersonaPlex refines Moshi)."""

    name: str
    title: str  # what the window calls the family ("Moshi", "PersonaPlex", ...)
    generator: str  # one of GENERATORS
    claims: Callable[[Mapping[str, Any]], bool]
    # What a folder of this family without config.json, or whose config.json names no
    # architecture, is taken to say (the family's released 7B: ``LMConfig``'s defaults plus these).
    config_defaults: Mapping[str, Any]
    delays: tuple[int, ...]  # of the text stream, then each audio stream (the released model's)
    dep_q: int  # the depth transformer's steps (the audio codebooks a step writes)
    takes_prompts: bool  # a voice prompt and a text role prompt condition it before the conversation
    presets: tuple[Preset, ...]
    # Keys the family's own loader sets whatever a config.json says (PersonaPlex always builds 16 steps).
    forced_config: Mapping[str, Any] = field(default_factory=dict)
    extra_files: tuple[str, ...] = ()  # what its presets ship beyond the LM, codec and tokenizer
    refines: str | None = None  # the family whose claims this one narrows
    is_demo: bool = False  # random weights: the window says that it babbles
    recipe: Path | None = None  # where its presets without a repository are built from (the demos)
    # Speech to text (captions of what the person says): text out, no voice; not a conversation
    # model (``engine.families.PRESETS`` lists the conversation models, ``CAPTION_PRESETS`` these).
    speech_to_text: bool = False
    # An interpreter: its input is speech to translate (a person, or what the computer plays), its
    # output the translation; not a partner in a conversation (``engine.lm.hibiki``).
    interprets: bool = False

    def label(self, name: str) -> str:
        """What the window calls a model of this family named ``name``."""
        return f"{self.presets[0].name} (untrained, babbles)" if self.is_demo else name
