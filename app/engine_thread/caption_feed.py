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

What is kept is only what the person can have said: a word dated where the model heard nothing at
all (push-to-talk released, whose frames are digital silence; the model's silence prefix) is not
theirs, and a turn end dated while Talk was held is not an end (holding Talk says the turn goes on).
A caption model with random weights (the demo's) writes words and ends on silence too; a real one
writes none there, so the rule only drops what no one said. What is kept is what the file holds, so
an opened conversation's turns are the live ones.

The turn ends that do not need a caption model are kept here too, captions on or off
(``report``, before the frame's report reaches the window): where Talk was pressed and where it was
released, so a held Talk is one turn; and where a caption model with voice-activity heads began to
listen to a conversation without ends, so that its turns follow the ends from there, live and
opened alike (``app.conversation.transcript``).

A caption model that fails (to load, or on a frame) turns captions off and says why; the
conversation never stops for it.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import engine
from app.engine_thread import messages as m
from engine import FRAME_SECONDS

log = logging.getLogger(__name__)

CaptionLoader = Callable[[str, str, str], object]  # (name, device, precision) -> engine.SpeechToText
Emit = Callable[[object], None]
Post = Callable[[object], None]

RECENT_FRAMES = 512  # frames remembered for dating what the model writes (41 s: beyond any caption delay)
WORD_SLACK_FRAMES = 1  # a word dated this many frames beside a frame with sound is still the person's


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
        self._recent: dict[int, tuple[bool, bool]] = {}  # frame index -> (had sound, Talk held), recent ones
        self._word_kept: bool | None = None  # whether the word being written is kept (its rest goes with it)
        self._talk: tuple[object, bool] = (None, False)  # (session, Talk held in its last frame)

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
        self._recent.clear()
        self._word_kept = None
        if self.captioner is not None:  # now, between frames, not inside the first one's time
            try:
                self._primed = self.captioner.prime()
            except Exception as e:
                log.exception("the caption model failed on its silence prefix")
                self._stop(f"Captions stopped: the caption model failed ({type(e).__name__}: {e}).")

    def hear(self, session, frame, talk_held: bool = False) -> None:
        """The frame ``session`` just stepped on (the pump calls this after each step), and whether
        Talk was held in it."""
        if self.captioner is None:
            return
        index = session.frames - 1
        self._recent[index] = (bool(frame.any()), talk_held)
        self._recent.pop(index - RECENT_FRAMES, None)
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

    def report(self, session, talk_held: bool) -> None:
        """After ``session`` stepped a frame, before the window hears of it: the turn ends it makes, kept
        (Talk pressed or released in it; a caption model with heads listening to a conversation that has
        no end yet), dated at its start, so the window ends the person's turn before adding the frame."""
        index = session.frames - 1
        held_before = self._talk[1] if self._talk[0] is session else False
        self._talk = (session, talk_held)
        heads = self.captioner is not None and bool(self.model.has_voice_activity)
        if talk_held != held_before or (heads and not session.turn_ends):
            self.emit(m.CaptionsAdded(*engine.keep_captions(session, (), (index * FRAME_SECONDS,))))

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
        pieces = [(p.seconds, p.text) for p in update.pieces if self._said(p.seconds, p.text)]
        ends = [seconds for seconds in update.turn_ends if not self._inside_held_talk(seconds)]
        if not pieces and not ends:
            return
        kept, ends = engine.keep_captions(session, pieces, ends)
        self.emit(m.CaptionsAdded(kept, ends))

    def _said(self, seconds: float, text: str) -> bool:
        """Whether a piece can be the person's: a word's first piece dated by a frame with sound;
        the rest of a word goes with its first piece."""
        if text and not text[0].isspace() and self._word_kept is not None:
            return self._word_kept
        at = math.floor(seconds / FRAME_SECONDS + 1e-6)
        self._word_kept = any(self._recent.get(i, (False, False))[0]
                              for i in range(at - WORD_SLACK_FRAMES, at + WORD_SLACK_FRAMES + 1))
        return self._word_kept

    def _inside_held_talk(self, seconds: float) -> bool:
        """Whether an end at ``seconds`` would cut a stretch of held Talk (the frames on both sides held)."""
        cut = math.ceil(seconds / FRAME_SECONDS - 1e-6)
        return all(self._recent.get(i, (False, False))[1] for i in (cut - 1, cut))

    def _stop(self, why: str) -> None:
        self.wanted, self.model, self.captioner = "", None, None
        self.emit(m.CaptionModelFailed(why))
