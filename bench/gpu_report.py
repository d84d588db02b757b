"""The GPU benchmarks' JSON report: every stage isolated, written as it ends, skipped when the
time left cannot hold it.

A device machine is lent for one short call, so nothing may lose what came before it: a stage
that raises is recorded with its error and the next runs; the file is rewritten (atomically)
after every stage, so a kill loses at most the stage that was running; and with a budget
(``--budget-s``) a stage whose estimate would not finish in what is left, beside the time
``reserve_s`` keeps for the stages still to come (the next models' own), is recorded as skipped
instead of started.
"""

from __future__ import annotations

import json
import time
import traceback
from collections.abc import Callable
from pathlib import Path

from engine.atomic import write_atomically


class Report:
    """``Report(path, data, budget_s, estimate_s)``: ``data["models"][model][stage]`` (or
    ``data[stage]`` for a stage of no model) holds each stage's record, its error, or why it was
    skipped. ``estimate_s(model, stage)`` is the seconds a stage is expected to take."""

    def __init__(self, path: Path, data: dict, budget_s: float | None = None,
                 estimate_s: Callable[[str | None, str], float] = lambda model, stage: 0.0):
        self.path, self.data, self.budget_s, self.estimate_s = path, data, budget_s, estimate_s
        self.started = time.perf_counter()
        self.reserve_s = 0.0  # kept for what comes after the current model
        self.data.setdefault("models", {})
        self.write()

    def elapsed_s(self) -> float:
        return time.perf_counter() - self.started

    def write(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(self.path, (json.dumps(self.data, indent=2) + "\n").encode())

    def fits(self, model: str | None, name: str) -> str | None:
        """None when the stage may start; else why it is skipped."""
        if self.budget_s is None:
            return None
        estimate, spent = self.estimate_s(model, name), self.elapsed_s()
        if spent + estimate + self.reserve_s <= self.budget_s:
            return None
        return (f"--budget-s {self.budget_s:g}: {spent:.0f} s spent, this stage takes about {estimate:g} s"
                + (f" and {self.reserve_s:.0f} s are kept for the stages after this model" if self.reserve_s else ""))

    def stage(self, model: str | None, name: str, fn, record=None):
        """Run one stage: ``record(result)`` (default: the result without its tokens), or
        ``{"error": ...}``, or ``{"skipped": ...}`` goes under models/model/name (``data[name]`` for
        ``model=None``), with the seconds it took (``stage_s``). Returns the full result (``None``
        on failure or skip)."""
        entry = self.data if model is None else self.data["models"].setdefault(model, {})
        skipped = self.fits(model, name)
        if skipped is not None:
            entry[name] = {"skipped": skipped}
            self.write()
            return None
        t0 = time.perf_counter()
        try:
            full = fn()
        except Exception as e:  # a failed stage is a result too; the next stages still run
            traceback.print_exc()
            entry[name] = {"error": f"{type(e).__name__}: {e}", "stage_s": round(time.perf_counter() - t0, 1)}
            self.write()
            return None
        kept = record(full) if record else {k: v for k, v in full.items() if k != "tokens"}
        entry[name] = {**kept, "stage_s": round(time.perf_counter() - t0, 1)} if isinstance(kept, dict) else kept
        self.write()
        return full
