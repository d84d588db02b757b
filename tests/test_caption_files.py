"""The person's captions in conversation files (both kinds) and crash journals: kept through save,
open, journal and recovery; a file without them opens as before; a damaged or newer captions field
is refused with a reason, never half read."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest
import torch

import engine
from engine import FRAME_SECONDS, FRAME_SIZE, ConversationFileError, SamplingConfig
from engine.files import conversation
from engine.files import journal as jf
from engine.files.captions import (
    FIELD,
    PIECES_ONLY_VERSION,
    VERSION,
    captions_field,
    most,
    read_captions,
    read_turn_ends,
)

FRAMES = 12
PIECES = ((0.16, " hello"), (0.24, " wor"), (0.32, "ld"), (0.64, " again"))
ENDS = (0.4, 0.72)  # where a caption model's voice-activity heads said the person's turn ended
# A journal written by hand, without a model: its header and silent frames of its stream counts.
HEADER = jf.JournalHeader(model="demo", fingerprint="f" * 32, sampling=SamplingConfig(), seed=3,
                          prompts={"voice": None, "text": None}, user_streams=8, token_streams=9)


def silent_frame(index: int) -> bytes:
    return jf.encode_frame(index, np.zeros(HEADER.user_streams, int), np.zeros(HEADER.token_streams, int),
                           np.zeros(FRAME_SIZE, np.float32))


@pytest.fixture
def session(app_demo_model):
    s = app_demo_model.new_session(SamplingConfig.greedy(), seed=5)
    engine.record_frames(s)  # as the window does: its frames can be saved compact
    rng = np.random.default_rng(0)
    for _ in range(FRAMES):
        s.step(engine.to_16_bit((0.2 * rng.standard_normal(FRAME_SIZE)).astype(np.float32)))
    return s


@pytest.mark.parametrize("compact", [False, True])
def test_a_saved_conversation_keeps_the_person_s_captions(app_demo_model, session, tmp_path, compact):
    assert engine.keep_captions(session, PIECES) == (PIECES, ())
    # A finished captioner's flush dates its words past the last frame: kept at that frame.
    assert engine.keep_captions(session, [(5.0, " late")]) == ((((FRAMES - 1) * FRAME_SECONDS, " late"),), ())
    path = tmp_path / "talk.parley"
    assert engine.save_conversation(session, path, compact=compact) == ("compact" if compact else "full")
    opened = engine.open_conversation(app_demo_model, path)
    assert opened.captions == session.captions and len(opened.captions) == len(PIECES) + 1
    info = engine.read_conversation_info(path)
    assert info.captions == session.captions and info.caption_text == "hello world again late"


def test_a_file_without_captions_opens_as_before_and_has_no_field(app_demo_model, session, tmp_path):
    path = tmp_path / "old.parley"
    session.save(path)
    assert FIELD not in conversation.read_header(path)[1]
    assert engine.open_conversation(app_demo_model, path).captions == ()
    assert engine.read_conversation_info(path).caption_text == ""


@pytest.mark.parametrize(("field", "why"), [
    ({"version": VERSION + 1, "pieces": []}, "newer Parley"),
    ({"version": VERSION, "pieces": [[0.1]]}, "not \\[seconds, text\\]"),
    ({"version": VERSION, "pieces": [[FRAMES * FRAME_SECONDS + 1, "x"]]}, "seconds"),
    ({"version": VERSION, "pieces": [[0.1, "x" * 201]]}, "text"),
    ([[0.1, "x"]], "captions"),
])
def test_a_damaged_or_newer_captions_field_is_refused_with_a_reason(field, why):
    meta = {"captions": field}
    with pytest.raises(ValueError, match=why):
        read_captions(meta, FRAMES)


def test_the_field_round_trips_and_is_absent_when_empty():
    assert captions_field(()) == {}
    meta = json.loads(json.dumps(captions_field(PIECES)))
    assert read_captions(meta, FRAMES) == PIECES


def test_a_journal_keeps_the_captions_and_recovery_restores_them(app_demo_model, tmp_path):
    path = tmp_path / "talk.journal"
    s = app_demo_model.new_session(SamplingConfig.greedy(), seed=5)
    recorder = engine.record_frames(s, path)
    frame = np.zeros(FRAME_SIZE, np.float32)
    for _ in range(4):
        s.step(frame)
    engine.keep_captions(s, PIECES[:2])
    for _ in range(8):
        s.step(frame)
    engine.keep_captions(s, PIECES[2:])
    recorder.journal.close()
    read = engine.read_journal(path)
    assert read.frames == FRAMES and read.damage is None and read.captions == PIECES
    recovered = engine.recover(app_demo_model, path).session
    assert recovered.captions == PIECES

    # A journal started again (after a failed write) holds the captions so far after the frames.
    again = engine.record_frames(recovered, tmp_path / "again.journal")
    again.journal.close()
    assert engine.read_journal(tmp_path / "again.journal").captions == PIECES


def test_a_damaged_caption_record_is_left_out_and_every_frame_after_it_kept():
    """A whole record (its checksum sound) with wrong contents is no damage to the frames: before,
    it ended the journal there, dropping every later frame."""
    frames = [silent_frame(i) for i in range(3)]
    good = jf.encode_caption_record((0.05, " hi"))
    future = jf.encode_caption_record((10.0, " later"))  # dated after every frame journaled before it
    data = jf.encode_start(HEADER) + frames[0] + good + frames[1] + future + frames[2]
    read = jf.parse_journal(data)
    assert read.frames == 3 and read.captions == ((0.05, " hi"),)
    assert read.damage is None and read.lost_frames == 0 and read.dropped_captions == 1


def test_a_tail_damaged_from_a_caption_record_counts_only_the_frames_in_it():
    """Before, the damaged caption record's bytes rounded the lost count up by one frame."""
    frames = [silent_frame(i) for i in range(4)]
    broken = bytearray(jf.encode_caption_record((0.05, " hi")))
    broken[-1] ^= 0xFF  # its checksum fails
    for caption in (bytes(broken), jf.encode_caption_record((0.05, " a longer piece of text to count"))[:-3]):
        read = jf.parse_journal(jf.encode_start(HEADER) + frames[0] + caption + b"".join(frames[1:]))
        assert read.frames == 1 and read.damage is not None and read.lost_frames == 3, read.damage


@pytest.mark.parametrize("record", [lambda i: jf.encode_turn_end_record(0.05),
                                    lambda i: jf.encode_caption_record((0.05, f" w{i}"))], ids=["turn end", "caption"])
def test_records_past_what_the_frames_hold_are_left_out_and_the_frames_kept(record):
    """C and E records had no bound: a journal of millions of them took minutes and gigabytes to read
    and recovered into a file no Parley opens."""
    extra = 50
    data = (jf.encode_start(HEADER) + silent_frame(0) + silent_frame(1)
            + b"".join(record(i) for i in range(most(2) + extra)) + silent_frame(2))
    read = jf.parse_journal(data)
    assert read.frames == 3 and read.damage is None and read.dropped_captions == extra
    assert len(read.captions) + len(read.turn_ends) == most(2)


def test_a_field_holds_at_most_what_its_frames_hold_and_the_writer_keeps_to_it():
    pieces = tuple((0.0, f" w{i}") for i in range(most(1) + 1))
    with pytest.raises(ValueError, match="captions|pieces"):
        read_captions({FIELD: {"version": PIECES_ONLY_VERSION, "pieces": [list(p) for p in pieces]}}, 1)
    with pytest.raises(ValueError, match="turn_ends"):
        read_turn_ends({FIELD: {"version": VERSION, "pieces": [], "turn_ends": [0.0] * (most(1) + 1)}}, 1)
    meta = json.loads(json.dumps(captions_field(pieces, [0.0] * (most(1) + 1), frames=1)))
    assert read_captions(meta, 1) == pieces[:most(1)] and len(read_turn_ends(meta, 1)) == most(1)


def test_an_older_journal_version_without_captions_still_reads(tmp_path):
    body = json.loads(HEADER.to_json())
    body["version"] = 2
    data = jf.MAGIC + jf._record(jf._HEADER, json.dumps(body).encode()) + silent_frame(0)
    read = jf.parse_journal(data)
    assert read.frames == 1 and read.captions == ()


def test_a_journal_from_a_newer_parley_is_refused():
    body = json.loads(HEADER.to_json())
    body["version"] = jf.FORMAT_VERSION + 1
    with pytest.raises(ConversationFileError, match="newer Parley"):
        jf.parse_journal(jf.MAGIC + jf._record(jf._HEADER, json.dumps(body).encode()))


def test_a_short_conversation_may_hold_many_pieces():
    """A captioner's first frame steps over its silence prefix and each pause flushes its delay:
    one frame's conversation can hold dozens of pieces, all dated at its frame."""
    pieces = tuple((0.0, f" w{i}") for i in range(40))
    assert read_captions(json.loads(json.dumps(captions_field(pieces))), 1) == pieces


@pytest.mark.parametrize("compact", [False, True])
def test_a_saved_conversation_keeps_the_person_s_turn_ends(app_demo_model, session, tmp_path, compact):
    assert engine.keep_captions(session, PIECES, ENDS) == (PIECES, ENDS)
    assert engine.keep_captions(session, (), [5.0]) == ((), ((FRAMES - 1) * FRAME_SECONDS,))  # kept at the last frame
    path = tmp_path / "talk.parley"
    engine.save_conversation(session, path, compact=compact)
    assert conversation.read_header(path)[1][FIELD]["version"] == VERSION
    opened = engine.open_conversation(app_demo_model, path)
    assert opened.turn_ends == session.turn_ends == ENDS + ((FRAMES - 1) * FRAME_SECONDS,)
    assert opened.captions == PIECES


def test_captions_without_turn_ends_stay_a_version_1_field_that_opens_as_before(app_demo_model, session, tmp_path):
    """A model without the heads: the field an older Parley reads, and no ends when it is opened."""
    engine.keep_captions(session, PIECES)
    path = tmp_path / "talk.parley"
    session.save(path)
    field = conversation.read_header(path)[1][FIELD]
    assert field == {"version": PIECES_ONLY_VERSION, "pieces": [list(p) for p in PIECES]}
    opened = engine.open_conversation(app_demo_model, path)
    assert opened.captions == PIECES and opened.turn_ends == ()


@pytest.mark.parametrize(("field", "why"), [
    ({"version": VERSION, "pieces": [], "turn_ends": [FRAMES * FRAME_SECONDS + 1]}, "turn end 0"),
    ({"version": VERSION, "pieces": [], "turn_ends": ["0.5"]}, "turn end 0"),
    ({"version": VERSION, "pieces": [], "turn_ends": [True]}, "turn end 0"),
    ({"version": VERSION, "pieces": []}, "turn_ends"),
    ({"version": PIECES_ONLY_VERSION, "pieces": [], "turn_ends": [0.5]}, "version 1"),
])
def test_damaged_turn_ends_are_refused_with_a_reason(field, why):
    with pytest.raises(ValueError, match=why):
        read_turn_ends({"captions": field}, FRAMES)


def test_turn_ends_round_trip_in_the_field():
    meta = json.loads(json.dumps(captions_field(PIECES, ENDS)))
    assert read_captions(meta, FRAMES) == PIECES and read_turn_ends(meta, FRAMES) == ENDS
    assert captions_field((), ENDS)[FIELD] == {"version": VERSION, "pieces": [], "turn_ends": list(ENDS)}


def test_a_journal_keeps_the_turn_ends_and_recovery_restores_them(app_demo_model, tmp_path):
    path = tmp_path / "talk.journal"
    s = app_demo_model.new_session(SamplingConfig.greedy(), seed=5)
    recorder = engine.record_frames(s, path)
    frame = np.zeros(FRAME_SIZE, np.float32)
    for _ in range(6):
        s.step(frame)
    engine.keep_captions(s, PIECES[:2], ENDS[:1])
    for _ in range(6):
        s.step(frame)
    engine.keep_captions(s, PIECES[2:], ENDS[1:])
    recorder.journal.close()
    read = engine.read_journal(path)
    assert read.damage is None and read.captions == PIECES and read.turn_ends == ENDS
    recovered = engine.recover(app_demo_model, path).session
    assert recovered.turn_ends == ENDS and recovered.captions == PIECES
    again = engine.record_frames(recovered, tmp_path / "again.journal")
    again.journal.close()
    assert engine.read_journal(tmp_path / "again.journal").turn_ends == ENDS


def test_a_damaged_turn_end_record_is_left_out_and_every_frame_after_it_kept():
    frames = [silent_frame(i) for i in range(3)]
    data = (jf.encode_start(HEADER) + frames[0] + jf.encode_turn_end_record(0.05) + frames[1]
            + jf.encode_turn_end_record(10.0) + frames[2])  # dated after every frame journaled before it
    read = jf.parse_journal(data)
    assert read.frames == 3 and read.turn_ends == (0.05,)
    assert read.damage is None and read.dropped_captions == 1


def test_a_version_3_journal_with_captions_still_recovers_without_turn_ends():
    body = json.loads(HEADER.to_json())
    body["version"] = 3
    data = (jf.MAGIC + jf._record(jf._HEADER, json.dumps(body).encode()) + silent_frame(0)
            + jf.encode_caption_record((0.05, " hi")))
    read = jf.parse_journal(data)
    assert read.frames == 1 and read.damage is None
    assert read.captions == ((0.05, " hi"),) and read.turn_ends == ()


def test_a_captions_field_from_a_newer_parley_is_named_so_not_damaged(tmp_path):
    path = tmp_path / "newer.parley"
    conversation.write_conversation(path, {"audio.user": torch.zeros(4, dtype=torch.int16)},
                                    {"kind": "full", "model": "demo", "fingerprint": "f" * 32, "frames": 5,
                                     "transcript": [], FIELD: {"version": VERSION + 1, "pieces": []}})
    with pytest.raises(ConversationFileError, match="made by a newer Parley") as refused:
        engine.read_conversation_info(path)
    assert "damaged" not in str(refused.value)


def test_scanning_a_journal_counts_what_reading_it_keeps_and_keeps_nothing():
    """The offer at start read every journal in full (its audio and every caption)."""
    import tracemalloc

    frames = [silent_frame(i) for i in range(300)]
    body = b"".join(f + jf.encode_caption_record((i * FRAME_SECONDS, " w" * 20)) for i, f in enumerate(frames))
    for data in (jf.encode_start(HEADER) + body, jf.encode_start(HEADER) + body[:-5000]):
        read = jf.parse_journal(data)
        tracemalloc.start()
        scan = jf.read_journal_from(io.BytesIO(data), len(data), keep=False)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert (scan.frames, scan.lost_frames, scan.damage) == (read.frames, read.lost_frames, read.damage)
        assert peak < 200_000  # a few records: the journal is 1.2 MB, its frames as float32 2.3 MB
