"""The Captioner: the speech-to-text model stepped beside a conversation on the frames its session
heard gives the transcriber's own text, dated in the conversation's time, and flushes the words
still behind its delay when the conversation stops."""

from __future__ import annotations

import numpy as np
import pytest

from engine import FRAME_SECONDS, FRAME_SIZE, SamplingConfig, load_model, read_audio
from engine.runtime.captioner import Captioner
from engine.runtime.transcriber import load_speech_to_text, text_of
from tests.conftest import SPEECH

START_FRAME = 10  # as if the conversation had been resumed after 10 frames


@pytest.fixture(scope="module")
def stt():
    return load_speech_to_text("demo-stt", device="cpu")


def frames_of(path: str) -> list[np.ndarray]:
    pcm = read_audio(path)
    return [pcm[i:i + FRAME_SIZE] for i in range(0, pcm.size - FRAME_SIZE + 1, FRAME_SIZE)]


def test_captions_beside_a_conversation_are_the_transcriber_s(stt):
    conversation = load_model("demo", device="cpu", precision="float32")
    session = conversation.new_session(SamplingConfig.greedy())
    captioner = Captioner(stt, start_frame=START_FRAME)
    frames = frames_of(SPEECH["hello_24k.wav"])
    updates = []
    for frame in frames:  # what the engine thread's pump would do each frame
        session.step(frame)
        updates.append(captioner.hear(frame))
    updates.append(captioner.finish())
    assert session.frames == len(frames)

    alone = stt.transcribe(np.concatenate(frames))
    assert captioner.text == text_of(alone) and captioner.text
    pieces = [p for u in updates for p in u.pieces]
    assert [p.token for p in pieces] == [s.token for s in alone if s.text]
    assert [p.seconds for p in pieces] == pytest.approx([s.seconds + START_FRAME * FRAME_SECONDS
                                                        for s in alone if s.text])
    assert "".join(u.text for u in updates).strip() == captioner.text
    assert all(len(u.voice_activity) == 4 for u in updates)  # the demo has the 1B's 4 heads
    # the delay: the last words came only with the flush
    assert updates[-1].pieces


def test_a_captioner_hears_one_frame_at_a_time(stt):
    captioner = Captioner(stt)
    with pytest.raises(ValueError, match="one frame of 1920 samples"):
        captioner.hear(np.zeros(100, np.float32))
    with pytest.raises(ValueError, match="start_frame"):
        Captioner(stt, start_frame=-1)


def test_priming_steps_the_silence_prefix_ahead_and_changes_nothing(stt):
    """The window primes a captioner between frames (a dozen steps of prefix would otherwise run in
    the first frame's time): the pieces are the same as without priming, and the first frame then
    steps once."""
    frames = frames_of(SPEECH["hello_24k.wav"])[:20]
    plain, primed = Captioner(stt, start_frame=3), Captioner(stt, start_frame=3)
    ahead = primed.prime()
    assert ahead.pieces or ahead.voice_activity  # the prefix's steps ran now
    first = primed.hear(frames[0])
    assert len(first.pieces) <= 1
    rest_plain = [plain.hear(f) for f in frames] + [plain.finish()]
    rest_primed = [ahead, first] + [primed.hear(f) for f in frames[1:]] + [primed.finish()]
    assert [(p.token, p.seconds) for u in rest_primed for p in u.pieces] == \
        [(p.token, p.seconds) for u in rest_plain for p in u.pieces]
    assert [e for u in rest_primed for e in u.turn_ends] == [e for u in rest_plain for e in u.turn_ends]
