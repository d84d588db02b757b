"""Keep what lives as long as a loaded model out of Python's full garbage collections.

A process that imported torch (and, in the app, Qt) and loaded the demo model holds ~236,000
objects the cyclic collector tracks. A full (generation 2) collection walks all of them: ~110 ms
of CPU on a 2-core AMD EPYC (260 ms wall on a busy machine), with the GIL held, so the engine
thread and the GUI both stop. Allocation counts decide when one runs: in an offline run it fell
on the same frame every time (frame 279 of ``bench.frame_trace``: 151 ms of CPU against ~33 for
the others); in the app the GUI's allocations count too.

These objects (modules, parameters' wrappers, what the imports made) live as long as the model,
so ``settle`` moves everything alive after a load to the collector's permanent generation; a full
collection then walks only what was made since (<1 ms). It first gives the frozen objects back and
collects, so the cycles of a model that was dropped since are still freed, never frozen (the demo's
LM is held in such cycles: 410 MB stay until a full collection).

That collection walks everything once more, ~115 ms of CPU with the GIL held at the end of each load:
an audio callback waiting on it misses its 40 ms device buffer, and on ALSA's PulseAudio plugin the
output stream then stalls for 1-2 s (``app.audio.bridge.STALL_SECONDS``; bench/README.md).
"""

from __future__ import annotations

import gc


def settle() -> None:
    """Collect everything unreachable (frozen before or not), then freeze what is left."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()
