"""The text tokenizer wrapper, on the demo SentencePiece model shipped in assets/."""

from __future__ import annotations

import pytest
import sentencepiece

from engine.files.demo import ASSETS, load_recipe, train_demo_tokenizer
from engine.files.models import ModelError
from engine.lm.tokenizer import TextTokenizer

DEMO_MODEL = ASSETS / "demo_tokenizer.model"


@pytest.fixture(scope="module")
def tok() -> TextTokenizer:
    return TextTokenizer(DEMO_MODEL)


def test_shipped_model_is_what_the_recipe_trains():
    shipped = sentencepiece.SentencePieceProcessor(model_file=str(DEMO_MODEL))
    retrained = sentencepiece.SentencePieceProcessor(model_proto=train_demo_tokenizer())
    assert shipped.vocab_size() == retrained.vocab_size() == load_recipe()["tokenizer"]["vocab_size"]
    pieces = [(shipped.id_to_piece(i), shipped.get_score(i)) for i in range(shipped.vocab_size())]
    assert pieces == [(retrained.id_to_piece(i), retrained.get_score(i)) for i in range(retrained.vocab_size())]


def test_special_ids_keep_the_released_meaning(tok):
    assert tok.vocab_size == 1000
    assert [tok._sp.id_to_piece(i) for i in range(4)] == ["<unk>", "<s>", "</s>", "<pad>"]
    assert tok.piece(0) == "" and tok.piece(3) == ""  # EPAD and PAD are never shown


def test_control_and_unknown_pieces_never_reach_the_text(tok):
    specials = [i for i in range(tok.vocab_size) if tok._sp.IsControl(i) or tok._sp.IsUnknown(i)]
    assert {1, 2} <= set(specials)  # <s> and </s> are control pieces of the released layout
    assert all(tok.piece(i) == "" for i in specials)
    assert not {"<s>", "</s>", "<unk>", "<pad>"} & {tok.piece(i) for i in range(tok.vocab_size)}


def test_pieces_rebuild_the_text_with_spaces(tok):
    text = "Hello, how is the weather today?"
    ids = tok.encode(text)
    assert ids and ids[0] != 1  # no BOS
    assert "".join(tok.piece(i) for i in ids) == " " + text
    assert tok.piece(ids[0]).startswith(" ")


def test_out_of_range_id_is_explained(tok):
    with pytest.raises(ValueError, match="outside this tokenizer's vocabulary"):
        tok.piece(1000)


def test_missing_file(tmp_path):
    with pytest.raises(ModelError, match="text tokenizer not found.*tokenizer_name"):
        TextTokenizer(tmp_path / "nope.model")


def test_corrupt_file(tmp_path):
    bad = tmp_path / "tokenizer_spm_32k_3.model"
    bad.write_bytes(DEMO_MODEL.read_bytes()[:500])
    with pytest.raises(ModelError, match="not a valid SentencePiece model.*download"):
        TextTokenizer(bad)
