"""Captions of what the person says, on the engine thread: a speech-to-text model beside the
conversation model, stepped on every frame the conversation heard.

``CaptionFeed`` owns the caption model and its ``engine.Captioner``. The model loads on a thread
of its own (a few seconds for the demo, a minute for a real one), so the conversation goes on while
it loads; the loaded model comes back to the engine thread as a command (``CaptionModelLoaded``).
From then on the frame pump gives it each frame after the session's step (``hear``); the pieces
it hears, and the turn ends its voice-activity heads say, are kept with the session (its files and
crash journal hold them: ``engine.keep_captions``)
and sent to the window (``CaptionsAdded``). A pause, a stopped conversation's save or its end
``finish`` the captioner, which lets the last words out from behind the model's delay; the next frames start
a new one at the conversation's frame count (``Captioner.start_frame``), as a resumed, opened or
recovered conversation does.

A caption model that fails (to load, or on a frame) turns captions off and says why; the
conversation never stops for it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import engine
from app.engine_thread import messages as m

log = logging.getLogger(__name__)

CaptionLoader = Callable[[str, str, str], object]  # (name, device, precision) -> engine.SpeechToText
Emit = Callable[[object], None]
Post = Callable[[object], None]


def load_caption_model(name: str, device: str, precision: str):
    """Beside the conversation model, which is loaded already: in the first precision that fits
    what it leaves free (``engine.runtime.pair_memory``'s rule), else a ModelError that says why."""
    return engine.load_captions_beside(name, device=device, captions_precision=precision)


@dataclass(frozen=True)
class CaptionModelLoaded:
    """A caption model's load ended (posted from the loading thread to the engine thread): the
    model, or why not."""

    name: str
    model: object = None
    problem: str = ""


class CaptionFeed:
    def __init__(self, emit: Emit, post: Post, loader: CaptionLoader = load_caption_model) -> None:
        self.emit, self._post, self._load = emit, post, loader
        self._loader = ThreadPoolExecutor(max_workers=1, thread_name_prefix="parley-captions")
        self.wanted = ""  # the caption model the person asked for ("" = captions off)
        self.model = None  # the loaded engine.SpeechToText (None: off, or still loading)
        self.captioner: engine.Captioner | None = None
        self._heard = 0  # frames the captioner heard: a captioner that heard none has nothing to finish
        self._primed = None  # what priming wrote, kept once a frame is heard (engine.CaptionUpdate)

    def want(self, c: m.SetCaptions, session) -> None:
        """Turn captions on with ``c.model`` (loaded off this thread), or off."""
        if c.model == self.wanted:  # loaded, loading, or off already
            return
        self.finish(session)
        self.wanted, self.model, self.captioner = c.model, None, None
        if c.model:
            self.emit(m.CaptionModelLoading(c.model))
            self._loader.submit(self._load_off_thread, c)

    def _load_off_thread(self, c: m.SetCaptions) -> None:
        try:
            model = self._load(c.model, c.device, c.precision)
        except Exception as e:  # said, whatever it is: captions stay off, the conversation goes on
            log.exception("loading the caption model %s failed", c.model)
            self._post(CaptionModelLoaded(c.model, problem=str(e) or type(e).__name__))
            return
        self._post(CaptionModelLoaded(c.model, model))

    def loaded(self, c: CaptionModelLoaded, session) -> None:
        """On the engine thread: a load ended. One the person no longer wants is let go."""
        if c.name != self.wanted:
            return
        if c.problem:
            self._stop(f"Captions are off: the caption model {c.name!r} could not load: {c.problem}")
            return
        self.model = c.model
        self.emit(m.CaptionModelReady(c.name, bool(self.model.has_voice_activity)))
        self.start(session)

    def start(self, session) -> None:
        """Caption ``session`` from its next frame (a new, opened, recovered or resumed conversation)."""
        self.captioner = engine.Captioner(self.model, session.frames) if self.model and session else None
        self._heard, self._primed = 0, None
        if self.captioner is not None:  # now, between frames, not inside the first one's time
            try:
                self._primed = self.captioner.prime()
            except Exception as e:
                log.exception("the caption model failed on its silence prefix")
                self._stop(f"Captions stopped: the caption model failed ({type(e).__name__}: {e}).")

    def hear(self, session, frame) -> None:
        """The frame ``session`` just stepped on (the pump calls this after each step)."""
        if self.captioner is None:
            return
        try:
            update = self.captioner.hear(frame)
        except Exception as e:
            log.exception("the caption model failed on a frame")
            self._stop(f"Captions stopped: the caption model failed on a frame ({type(e).__name__}: {e}).")
            return
        self._heard += 1
        if self._primed is not None:  # a conversation that never goes on keeps nothing of it
            self._keep(session, self._primed)
            self._primed = None
        self._keep(session, update)

    def finish(self, session) -> None:
        """The conversation paused, is saved or ends: the words behind the model's delay come out,
        and the next frames go to a new captioner."""
        if self.captioner is None or not self._heard or session is None:
            return
        try:
            self._keep(session, self.captioner.finish())
        except Exception as e:
            log.exception("the caption model failed while finishing")
            self._stop(f"Captions stopped: the caption model failed ({type(e).__name__}: {e}).")
            return
        self.start(session)

    def close(self) -> None:
        self._loader.shutdown(wait=False, cancel_futures=True)
        self.model = self.captioner = None

    def _keep(self, session, update) -> None:
        if not update.pieces and not update.turn_ends:
            return
        kept, ends = engine.keep_captions(session, ((p.seconds, p.text) for p in update.pieces), update.turn_ends)
        self.emit(m.CaptionsAdded(kept, ends))

    def _stop(self, why: str) -> None:
        self.wanted, self.model, self.captioner = "", None, None
        self.emit(m.CaptionModelFailed(why))
