"""engine.runtime.heap: what lives as long as a loaded model is kept out of the full garbage
collections that ran during frames (~110 ms of CPU with the GIL held, one frame in a few hundred
offline), and a dropped model's cycles are still freed."""

from __future__ import annotations

import gc
import weakref

import engine
from engine.runtime import heap


class _Cycle:
    def __init__(self) -> None:
        self.me = self


def test_a_loaded_model_is_out_of_the_collectors_generations(demo_model_dir):
    model = engine.load_model(str(demo_model_dir), device="cpu", precision="float32")
    scanned = {id(o) for generation in range(3) for o in gc.get_objects(generation)}
    modules = [*model.lm.modules(), *model.mimi.modules()]
    assert not [m for m in modules if id(m) in scanned]  # frozen: a full collection does not walk them
    assert len(scanned) < 0.1 * gc.get_freeze_count()  # what a full collection walks right after a load


def test_settling_again_frees_the_cycles_of_what_was_dropped():
    kept = _Cycle()
    dropped = weakref.ref(kept)
    heap.settle()  # frozen while alive
    del kept
    gc.collect()
    assert dropped() is not None  # a plain collection does not see frozen cycles...
    engine.release_memory()  # ...settling again (after a model is dropped, or another loaded) does
    assert dropped() is None
    assert gc.get_freeze_count() > 0  # and what is alive is frozen again
