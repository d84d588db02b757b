"""The text side of the models: SentencePiece ids <-> text pieces, as the reference servers use them."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from ..errors import ModelError

SILENT_IDS = frozenset({0, 3})  # EPAD and PAD: produced while the model is not writing words
_WORD_START = "\u2581"


class TextTokenizer:
    """A SentencePiece model file, loaded once (sentencepiece reads a protobuf; nothing is unpickled)."""

    def __init__(self, path: str | Path):
        import sentencepiece

        self.path = Path(path)
        if not self.path.is_file():
            raise ModelError(f"text tokenizer not found: {self.path}. Expected the SentencePiece model "
                             "named by 'tokenizer_name' in the model's config.json "
                             "(tokenizer_spm_32k_3.model for the released models).")
        self._sp = sentencepiece.SentencePieceProcessor()
        try:
            self._sp.LoadFromSerializedProto(self.path.read_bytes())
        except (RuntimeError, OSError) as e:
            raise ModelError(f"{self.path} is not a valid SentencePiece model ({e}). The file is probably "
                             "corrupt or incompletely downloaded: delete it and fetch it again.") from e

    @property
    def vocab_size(self) -> int:
        return self._sp.vocab_size()

    def piece(self, token_id: int) -> str:
        """The text a sampled token adds to the transcript ("" for silence, control and unknown pieces)."""
        if not 0 <= token_id < self.vocab_size:
            raise ValueError(f"text token {token_id} is outside this tokenizer's vocabulary "
                             f"(0..{self.vocab_size - 1}): the model and tokenizer do not belong together")
        if token_id in SILENT_IDS or self._sp.IsControl(token_id) or self._sp.IsUnknown(token_id):
            return ""
        return self._sp.id_to_piece(token_id).replace(_WORD_START, " ")

    def encode(self, text: str) -> list[int]:
        """Plain ids, no BOS/EOS (how PersonaPlex feeds its text role prompt)."""
        return list(self._sp.encode(text))


def train_tokenizer(lines: Iterable[str], vocab_size: int) -> bytes:
    """Train a small BPE SentencePiece model deterministically; returns the serialized model. Ids 0..3
    are as in the released tokenizer, so 0 and 3 keep their meaning (EPAD, PAD)."""
    import io

    import sentencepiece

    out = io.BytesIO()
    sentencepiece.SentencePieceTrainer.train(
        sentence_iterator=iter(list(lines)), model_writer=out, vocab_size=vocab_size, model_type="bpe",
        unk_id=0, bos_id=1, eos_id=2, pad_id=3, normalization_rule_name="identity",
        character_coverage=1.0, num_threads=1, minloglevel=2)
    return out.getvalue()
