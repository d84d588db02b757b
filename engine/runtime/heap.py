"""Keep what lives as long as a loaded model out of Python's full garbage collections, which walk
every tracked object with the GIL held and stall the engine, GUI and audio threads."""

from __future__ import annotations

import gc


def settle() -> None:
    """Collect everything unreachable (frozen before or not), then freeze what is left."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()
