"""Text as Pocket TTS speaks it: the prompt rules (spaces, capital, final period, character
rewrites) and the cut into chunks of at most ``MAX_TOKENS_PER_CHUNK`` tokens on sentence ends,
with the package's results (its model was trained on single sentences)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from .config import TextRules

TERMINAL = ".!?\u2026"
WEAK = ",;:-\u2013\u2014"
CLOSERS = "\"'\u201d\u2019)]\u00bb"


class PocketTokenizer:
    """``tokenizer.json`` (HuggingFace tokenizers) or ``tokenizer.model`` (SentencePiece)."""

    def __init__(self, path: Path, vocabulary: int):
        if path.suffix == ".json":
            import tokenizers

            tok = tokenizers.Tokenizer.from_file(str(path))
            size = tok.get_vocab_size()
            self.encode = lambda text: tok.encode(text).ids
            self.decode = tok.decode
        else:
            import sentencepiece

            sp = sentencepiece.SentencePieceProcessor(str(path))
            size = sp.vocab_size()
            self.encode = lambda text: sp.encode(text, out_type=int)
            self.decode = sp.decode
        if size != vocabulary:
            raise ValueError(f"the tokenizer {path.name} has {size} tokens where the model has {vocabulary}")


@dataclass(frozen=True)
class Prompt:
    text: str
    frames_after_eos_guess: int


def prepare(text: str, rules: TextRules) -> Prompt:
    """The prompt the package feeds the model for ``text`` (ValueError when nothing is left)."""
    text = text.strip()
    if rules.replace_characters:
        text = " ".join(text.translate(str.maketrans(dict(rules.replace_characters))).split())
        text = re.sub(r"([.!?\u2026])\s*[,;:]", r"\1", text)
    if not text:
        raise ValueError("There is no text to speak.")
    text = text.replace("\n", " ").replace("\r", " ").replace("  ", " ")
    if rules.remove_semicolons:
        text = text.replace(";", ",")
    guess = 3 if len(text.split()) <= 4 else 1
    if rules.capitalize_first_letter and not text[0].isupper():
        text = text[0].upper() + text[1:]
    if rules.append_terminal_punctuation:
        text = _end_sentence(text)
    if rules.pad_with_spaces_for_short_inputs and len(text.split()) < 5:
        text = " " * 8 + text
    return Prompt(text, guess)


def _end_sentence(text: str) -> str:
    core = text.rstrip(CLOSERS + " ")
    closers = text[len(core):].strip()
    if not core or core[-1] in TERMINAL:
        return text
    if core[-1] in WEAK:
        return core.rstrip(WEAK + " ") + "." + closers
    return text + "."


def _after_decimal_point(tokens: list[int], start: int, tok: PocketTokenizer) -> bool:
    before, after = tok.decode(tokens[:start]), tok.decode(tokens[start:])
    return len(before) >= 2 and before[-1] == "." and before[-2].isdigit() and bool(after) and after[0].isdigit()


def _boundaries(tokens: list[int], ends: set[int], tok: PocketTokenizer | None = None) -> list[int]:
    """0, each index where a run of end tokens is followed by another token, and len(tokens)."""
    cuts, after_end = [0], False
    for i, token in enumerate(tokens):
        if token in ends:
            after_end = True
            continue
        if after_end and not (tok is not None and _after_decimal_point(tokens, i, tok)):
            cuts.append(i)
        after_end = False
    return cuts + [len(tokens)]


def _segments(tokens: list[int], cuts: list[int], tok: PocketTokenizer) -> list[tuple[int, str]]:
    return [(b - a, tok.decode(tokens[a:b])) for a, b in zip(cuts, cuts[1:])]


def split_chunks(text: str, tok: PocketTokenizer, rules: TextRules, max_tokens: int) -> list[str]:
    """The chunks the package generates one after another, each from a fresh copy of the voice."""
    tokens = tok.encode(prepare(text, rules).text.strip())
    sentence_ends = set(tok.encode(".!...?")[1:])
    pieces = []
    for count, sentence in _segments(tokens, _boundaries(tokens, sentence_ends, tok), tok):
        if count > max_tokens:
            sub = tok.encode(sentence.strip())
            parts = _segments(sub, _boundaries(sub, set(tok.encode(",;:")[1:])), tok)
            if len(parts) > 1:
                pieces += parts
                continue
        pieces.append((count, sentence))
    chunks: list[str] = []
    current, count = "", 0
    for n, sentence in pieces:
        if current == "":
            current, count = sentence, n
        elif count + n > max_tokens:
            chunks.append(current.strip())
            current, count = sentence, n
        else:
            current, count = current + " " + sentence, count + n
    if current != "":
        chunks.append(current.strip())
    return chunks
