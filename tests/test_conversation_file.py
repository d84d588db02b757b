"""The conversation file format: atomic writes, and refusal of damaged, foreign or hostile files."""

from __future__ import annotations

import json
import multiprocessing as mp
import os
import struct

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.files import conversation
from engine.files.conversation import ConversationFileError, read_conversation, write_conversation

SHAPES = {"lm.k": (1, 2, 8, 4), "lm.offset": (1,), "rng": (2,)}


def sample_tensors(filled: int = 5) -> dict[str, torch.Tensor]:
    g = torch.Generator().manual_seed(0)
    return {"lm.k": torch.randn(1, 2, filled, 4, generator=g), "lm.offset": torch.tensor([filled]),
            "rng": torch.tensor([7, 9], dtype=torch.int64)}


def write_sample(path, **meta):
    write_conversation(path, sample_tensors(), {"frames": 5, **meta})


def test_round_trip(tmp_path):
    path = tmp_path / "talk.parley"
    write_sample(path, transcript=[[3, 0.24, "hi"]])
    got = read_conversation(path, SHAPES)
    for name, t in sample_tensors().items():
        assert torch.equal(got.tensors[name], t)
    assert got.meta["frames"] == 5 and got.meta["transcript"] == [[3, 0.24, "hi"]]
    assert got.meta["version"] == conversation.FORMAT_VERSION
    assert not [p for p in os.listdir(tmp_path) if p.endswith(".tmp")]


def test_truncated_file_is_refused(tmp_path):
    path = tmp_path / "t.parley"
    write_sample(path)
    data = path.read_bytes()
    for cut in (0, 5, 12, len(data) // 2, len(data) - 1):
        path.write_bytes(data[:cut])
        with pytest.raises(ConversationFileError, match="not a readable Parley conversation"):
            read_conversation(path, SHAPES)


def test_bit_flip_in_data_is_detected(tmp_path):
    path = tmp_path / "t.parley"
    write_sample(path)
    data = bytearray(path.read_bytes())
    data[-3] ^= 0x10
    path.write_bytes(bytes(data))
    with pytest.raises(ConversationFileError, match="checksum"):
        read_conversation(path, SHAPES)


def test_foreign_model_state_is_refused(tmp_path):
    path = tmp_path / "t.parley"
    write_conversation(path, {**sample_tensors(), "other.k": torch.zeros(2)}, {"frames": 1})
    with pytest.raises(ConversationFileError, match="different model"):
        read_conversation(path, SHAPES)
    write_conversation(path, {**sample_tensors(filled=9)}, {"frames": 1})  # larger than this model's ring
    with pytest.raises(ConversationFileError, match="different model configuration"):
        read_conversation(path, SHAPES)


def test_newer_version_and_other_files_are_refused(tmp_path):
    path = tmp_path / "t.parley"
    write_sample(path)
    data = path.read_bytes()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    meta = json.loads(header["__metadata__"]["parley"])
    meta["version"] = conversation.FORMAT_VERSION + 1
    header["__metadata__"]["parley"] = json.dumps(meta)
    new_header = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(new_header)) + new_header + data[8 + n:])
    with pytest.raises(ConversationFileError, match="newer Parley"):
        read_conversation(path, SHAPES)
    from safetensors.torch import save_file

    save_file({"x": torch.zeros(2)}, tmp_path / "plain.safetensors")
    with pytest.raises(ConversationFileError, match="not a Parley conversation"):
        read_conversation(tmp_path / "plain.safetensors", SHAPES)


def test_absurd_sizes_are_rejected_before_allocation(tmp_path):
    header = {"__metadata__": {"parley": json.dumps({"format": conversation.FORMAT_NAME, "version": 1})},
              "lm.k": {"dtype": "F32", "shape": [1, 2, 2**38, 4], "data_offsets": [0, 2**43]}}
    raw = json.dumps(header).encode()
    path = tmp_path / "hostile.parley"
    path.write_bytes(struct.pack("<Q", len(raw)) + raw + b"\0" * 64)
    with pytest.raises(ConversationFileError, match="inconsistent size"):
        read_conversation(path, SHAPES)
    path.write_bytes(struct.pack("<Q", 2**62) + b"{}")
    with pytest.raises(ConversationFileError, match="header declares"):
        read_conversation(path, SHAPES)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_fuzzed_files_never_crash_the_reader(tmp_path, data):
    path = tmp_path / "fuzz.parley"
    if not path.exists():
        write_sample(path)
    original = (tmp_path / "fuzz.parley").read_bytes()
    mutated = bytearray(original)
    for _ in range(data.draw(st.integers(1, 8))):
        i = data.draw(st.integers(0, len(mutated) - 1))
        mutated[i] = data.draw(st.integers(0, 255))
    cut = data.draw(st.integers(0, len(mutated)))
    candidate = tmp_path / "candidate.parley"
    candidate.write_bytes(bytes(mutated[:cut]))
    try:
        got = read_conversation(candidate, SHAPES)
    except ConversationFileError:
        return
    # Accepted: then it must be exactly the original content (mutations that changed nothing).
    for name, t in sample_tensors().items():
        assert torch.equal(got.tensors[name], t)


def _write_then_die(path: str) -> None:
    def crash(*_args, **_kwargs):
        os._exit(9)  # the process dies between writing the temp file and the rename

    conversation.os.replace = crash
    write_conversation(path, {k: v + 1 for k, v in sample_tensors().items()}, {"frames": 6})


def test_crash_during_save_leaves_the_old_file_readable(tmp_path):
    path = tmp_path / "t.parley"
    write_sample(path)
    ctx = mp.get_context("spawn")
    proc = ctx.Process(target=_write_then_die, args=(str(path),))
    proc.start()
    proc.join(60)
    assert proc.exitcode == 9
    got = read_conversation(path, SHAPES)
    assert got.meta["frames"] == 5
    assert torch.equal(got.tensors["lm.k"], sample_tensors()["lm.k"])


def test_failure_during_save_cleans_up_and_keeps_old_file(tmp_path, monkeypatch):
    path = tmp_path / "t.parley"
    write_sample(path)

    def failing_fsync(_fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(conversation.os, "fsync", failing_fsync)
    with pytest.raises(OSError, match=f"^{path} could not be written: the disk is full. Free some space"):
        write_conversation(path, sample_tensors(), {"frames": 6})  # the file asked for, not the temp file
    monkeypatch.undo()
    assert read_conversation(path, SHAPES).meta["frames"] == 5
    assert sorted(os.listdir(tmp_path)) == ["t.parley"]


def test_a_header_no_reader_would_open_is_refused_before_anything_is_written(tmp_path):
    """Parley wrote a 19 MB header (a recovered journal of turn ends) that every reader then called damaged."""
    path = tmp_path / "long.parley"
    meta = {"kind": "full", "frames": 10, "transcript": [[0, 0.0, "x" * 1000]] * 20_000}
    with pytest.raises(ConversationFileError, match="not saved.*at most 16 MB"):
        write_conversation(path, {"a": torch.zeros(1)}, meta)
    assert list(tmp_path.iterdir()) == []
