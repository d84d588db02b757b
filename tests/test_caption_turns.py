"""The person's captions in their turns: each piece in the turn that covers its time, a word never
split between turns; and from the first stored turn end on (Talk pressed or released, a caption
model's voice-activity heads: ``engine.runtime.voice_activity``), the person's turns end at the
ends, not after a silence."""

from __future__ import annotations

import numpy as np
import pytest

from app.audio.levels import SPEECH_DB, level_db
from app.conversation.transcript import ASSISTANT, YOU, FrameObservation, Transcript
from engine import FRAME_SECONDS, FRAME_SIZE, read_audio
from engine.runtime.captioner import Captioner
from engine.runtime.transcriber import load_speech_to_text
from engine.runtime.voice_activity import END_OF_TURN_CLASS, END_OF_TURN_HEAD, TurnEnds
from tests.conftest import SPEECH


def frames(t: Transcript, speaking: range, count: int, start: int = 0) -> None:
    for i in range(start, start + count):
        user = i in speaking
        t.add_frame(FrameObservation(i * FRAME_SECONDS, user, -20.0 if user else -120.0, -120.0, ""))


def spoken(ranges, count: int) -> Transcript:
    """The person speaks in each of ``ranges`` (frame indices); the assistant is silent."""
    t = Transcript()
    for i in range(count):
        user = any(i in r for r in ranges)
        t.add_frame(FrameObservation(i * FRAME_SECONDS, user, -20.0 if user else -120.0, -120.0, ""))
    return t


def your_texts(t: Transcript) -> list[str]:
    return [turn.text for turn in t.turns if turn.speaker == YOU]


def test_a_piece_goes_to_the_turn_that_covers_its_time_and_a_word_stays_whole():
    t = spoken([range(0, 10), range(20, 30)], 30)  # two turns: 0.0-0.8 s and 1.6-2.4 s
    assert len(your_texts(t)) == 2
    t.add_captions([(0.1, " good"), (0.5, " mor")])
    t.add_captions([(1.7, "ning")])  # the rest of "morning", dated in the next turn: stays with its word
    t.add_captions([(1.8, " how"), (2.0, " are"), (2.1, " you")])
    assert your_texts(t) == ["good morning", "how are you"]
    assert t.captions == [(0.1, " good"), (0.5, " mor"), (1.7, "ning"), (1.8, " how"), (2.0, " are"), (2.1, " you")]


def test_a_word_said_as_the_voice_fell_goes_to_the_turn_before_and_one_before_any_turn_to_the_first():
    t = spoken([range(5, 10)], 20)
    t.add_captions([(0.1, " um"), (1.0, " yes")])  # before the turn; after it ended (quiet at 0.8 s)
    turns = [turn for turn in t.turns if turn.speaker == YOU]
    assert [(round(turn.start, 2), turn.text) for turn in turns] == [(0.4, "um yes")]
    alone = Transcript()
    alone.add_captions([(0.1, " hm"), (0.2, "m")])  # none of the person's turns yet: it waits for their first
    assert alone.turns == [] and alone.captions == [(0.1, " hm"), (0.2, "m")]
    frames(alone, range(5, 10), 10)
    alone.add_captions([(0.5, "m"), (0.6, " ok")])
    assert [(round(turn.start, 2), turn.text) for turn in alone.turns] == [(0.4, "hmmm ok")]


def test_captions_come_back_with_a_loaded_conversation():
    t = Transcript()
    user = np.zeros(20 * FRAME_SIZE, np.float32)
    user[5 * FRAME_SIZE:10 * FRAME_SIZE] = 0.3
    t.load([], user, None, captions=[(0.5, " hello"), (0.6, " there")])
    assert your_texts(t) == ["hello there"]


def heads(p_end: float) -> tuple[tuple[float, ...], ...]:
    """One step's four heads of six classes, the end-of-turn probability ``p_end``."""
    rows = [[1 / 6] * 6 for _ in range(4)]
    rows[END_OF_TURN_HEAD][END_OF_TURN_CLASS] = p_end
    return tuple(tuple(r) for r in rows)


def test_the_end_of_turn_rule_fires_once_per_rise_to_one_half():
    rule = TurnEnds()
    sequence = [0.9, 0.9, 0.1, 0.2, 0.5, 0.7, 0.3, 0.49, 0.51, 0.6]
    assert [i for i, p in enumerate(sequence) if rule.observe(heads(p))] == [4, 8]  # a high start ends nothing
    assert not TurnEnds().observe(())  # a model without the heads ends no turn


def test_voice_activity_ends_the_person_s_turns_instead_of_their_silence():
    by_energy = spoken([range(0, 10), range(20, 30)], 40)
    assert len(your_texts(by_energy)) == 2  # 0.8 s of quiet ends the first turn

    t = Transcript()
    t.add_captions([], turn_ends=[0.0])  # a caption model with heads began to listen
    frames(t, range(0, 10), 15)  # speaking, then quiet: without an end from the heads the turn goes on
    frames(t, range(20, 30), 25, start=15)
    assert len(your_texts(t)) == 1
    # The heads say the turn ended at 0.5 s (frame 6.25): frames 7 on begin the next turn.
    t.add_captions([(0.1, " one"), (0.3, " two"), (0.6, " three")], turn_ends=[0.5])
    turns = [turn for turn in t.turns if turn.speaker == YOU]
    assert [(round(x.start, 2), round(x.end, 2), x.text) for x in turns] == [(0.0, 0.56, "one two"),
                                                                            (0.56, 2.4, "three")]
    assert turns[0].heard == set(range(0, 7)) and turns[1].heard == set(range(7, 10)) | set(range(20, 30))
    assert len(turns[0].levels) == 7 and len(turns[1].levels) == 30 - 7
    frames(t, range(40, 45), 5, start=40)  # no end said: the quiet 1.6 s does not end the open turn
    assert len(your_texts(t)) == 2
    t.add_captions([], turn_ends=[3.6])  # at the end of its last frame: nothing moves
    frames(t, range(45, 50), 5, start=45)
    assert [round(x.start, 2) for x in t.turns if x.speaker == YOU] == [0.0, 0.56, 3.6]


def test_silence_ends_the_person_s_turns_until_the_first_stored_end_and_the_ends_after_it():
    t = spoken([range(0, 10), range(20, 30)], 30)  # 0.8 s of quiet ends the first turn
    t.add_captions([(0.1, " one")], turn_ends=[2.4])  # Talk pressed: ends from here on
    assert t.by_ends and len(your_texts(t)) == 2
    frames(t, range(30, 40), 10, start=30)
    frames(t, range(55, 60), 30, start=40)  # 1.2 s of quiet inside held Talk: the same turn
    t.add_captions([], turn_ends=[4.8])  # released
    frames(t, range(65, 70), 10, start=60)
    starts = [round(x.start, 2) for x in t.turns if x.speaker == YOU]
    assert starts == [0.0, 1.6, 2.4, 5.2] and t.turns[2].heard == set(range(30, 40)) | set(range(55, 60))


def test_a_captioner_dates_its_turn_ends_in_the_conversation_by_the_rule():
    stt = load_speech_to_text("demo-stt", device="cpu")
    pcm = read_audio(SPEECH["hello_24k.wav"])
    steps = stt.transcribe(pcm[:pcm.size // FRAME_SIZE * FRAME_SIZE])
    rule = TurnEnds()
    expected = [s.seconds + 10 * FRAME_SECONDS for s in steps if rule.observe(s.voice_activity)]
    captioner = Captioner(stt, start_frame=10)
    updates = [captioner.hear(pcm[i:i + FRAME_SIZE]) for i in range(0, pcm.size - FRAME_SIZE + 1, FRAME_SIZE)]
    updates.append(captioner.finish())
    assert [e for u in updates for e in u.turn_ends] == pytest.approx(expected)
    assert expected  # the demo's random heads do cross one half on this recording


def test_overlapping_sides_keep_the_captions_on_the_person_s_side():
    t = Transcript()
    for i in range(20):
        t.add_frame(FrameObservation(i * FRAME_SECONDS, 5 <= i < 15, -20.0, -20.0, " blah" if i == 8 else ""))
    t.add_captions([(0.7, " me")])
    assert [(turn.speaker, turn.text) for turn in t.turns] == [(ASSISTANT, "blah"), (YOU, "me")]


def test_pieces_of_one_time_keep_their_order():
    """A finished captioner's flush dates its last pieces at the conversation's last frame: all alike."""
    t = spoken([range(0, 10)], 10)
    t.add_captions([(0.72, " zebra"), (0.72, " apple"), (0.72, "s")])
    assert your_texts(t) == ["zebra apples"]


def test_a_loaded_conversation_has_the_person_s_turns_it_had_live_with_the_demo_stt_s_heads():
    """Live: each frame, then what the caption model heard in it (``CaptionsAdded``); loaded: the
    recording, the captions and the stored turn ends. The turns are the same; without the ends
    the silence splits them differently."""
    speech = read_audio(SPEECH["hello_24k.wav"])
    quiet = np.zeros(12 * FRAME_SIZE, np.float32)
    pcm = np.concatenate([speech, quiet, speech, quiet, speech, quiet])
    pcm = pcm[:pcm.size // FRAME_SIZE * FRAME_SIZE]
    stt = load_speech_to_text("demo-stt", device="cpu")
    live, captioner = Transcript(), Captioner(stt)
    assert stt.has_voice_activity  # the feed keeps an end where it began to listen: the heads' ends from there
    live.add_captions([], [0.0])
    captioner.prime()
    pieces, ends = [], [0.0]
    for i in range(pcm.size // FRAME_SIZE):
        frame = pcm[i * FRAME_SIZE:(i + 1) * FRAME_SIZE]
        db = level_db(frame)
        live.add_frame(FrameObservation(i * FRAME_SECONDS, db > SPEECH_DB, db, level_db(np.zeros(0)), ""))
        update = captioner.hear(frame)
        kept = [(round(p.seconds, 3), p.text) for p in update.pieces]
        live.add_captions(kept, update.turn_ends)
        pieces += kept
        ends += update.turn_ends
    assert len(ends) > 1 and live.by_ends  # the demo's random heads end turns on this recording

    def shape(t: Transcript):
        return [(x.speaker, round(x.start, 3), round(x.end, 3), x.text, sorted(x.heard), x.levels) for x in t.turns]

    loaded = Transcript()
    loaded.load([], pcm, None, captions=pieces, turn_ends=ends)
    assert shape(loaded) == shape(live)
    by_silence = Transcript()
    by_silence.load([], pcm, None, captions=pieces)
    assert shape(by_silence) != shape(live)


def _as_built(t: Transcript) -> list[tuple]:
    return [(turn.speaker, round(turn.start, 6), round(turn.end, 6), turn.text, turn.levels, sorted(turn.heard))
            for turn in t.turns]


def test_a_loaded_conversation_is_the_one_built_frame_by_frame():
    """``load`` skips the quiet frames, measures the levels all at once and joins each turn's text
    once: the turns are those that stepping every frame, as the window does live, builds."""
    rng = np.random.default_rng(4)
    frames = 600
    loud = rng.random(frames) < 0.4
    scale = np.repeat(np.where(loud, 0.2, 1e-4), FRAME_SIZE)
    user = (rng.standard_normal(frames * FRAME_SIZE) * scale).astype(np.float32)
    assistant = (rng.standard_normal(frames * FRAME_SIZE + 700) * 0.1).astype(np.float32)  # a cut last frame
    assistant[: 100 * FRAME_SIZE] = 0.0
    entries = [(i, i * FRAME_SECONDS, rng.choice([" a", "b", " cd"])) for i in range(0, frames + 30, 3)]
    ends = sorted(rng.uniform(0, frames * FRAME_SECONDS, 20).round(3).tolist())
    pieces = [(s, rng.choice([" x", "y"])) for s in rng.uniform(0, frames * FRAME_SECONDS, 80).round(3).tolist()]
    loaded = Transcript()
    loaded.load(entries, user, assistant, captions=pieces, turn_ends=ends)

    live = Transcript()
    texts = {i: text for i, _s, text in entries}
    pending = list(ends)
    for i in range(frames + 30 + 1):
        while pending and np.ceil(pending[0] / FRAME_SECONDS - 1e-6) <= i:
            live.add_captions([], [pending.pop(0)])
        u = level_db(user[i * FRAME_SIZE:(i + 1) * FRAME_SIZE])
        live.add_frame(FrameObservation(i * FRAME_SECONDS, u > SPEECH_DB, u,
                                        level_db(assistant[i * FRAME_SIZE:(i + 1) * FRAME_SIZE]), texts.get(i, "")))
    live.add_captions([], pending)
    live.add_captions(pieces)
    assert _as_built(loaded) == _as_built(live) and len(loaded.turns) > 20


@pytest.mark.parametrize("case", ["one word", "many turns", "turn ends"])
def test_loading_is_linear_in_what_a_file_holds(case):
    """A received file's captions froze the window: joining each piece to its turn's text, finding
    its turn among all turns, and taking each turn end off the front of a list were quadratic
    (300k turn ends took 23 s, 200k pieces over an hour's turns 86 s, 600k in one word ~30 s)."""
    import time

    frames = 45_000 if case == "many turns" else 20
    user = np.zeros(frames * FRAME_SIZE, np.float32)
    for start in range(0, frames, 40):
        user[start * FRAME_SIZE:(start + 20) * FRAME_SIZE] = 0.3
    n = {"one word": 600_000, "many turns": 200_000, "turn ends": 300_000}[case]
    captions = {"one word": [(0.1, "ab")] * n,
                "many turns": [(i * frames * FRAME_SECONDS / n, " w") for i in range(n)], "turn ends": []}[case]
    ends = [0.5] * n if case == "turn ends" else []
    t = Transcript()
    began = time.perf_counter()
    t.load([], user, None, captions=captions, turn_ends=ends)
    assert time.perf_counter() - began < 15.0
    assert len(t.captions) == len(captions) and all(turn.speaker == YOU for turn in t.turns)
