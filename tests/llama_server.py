"""A real llama.cpp server (``llama-cpp-python[server]``, installed by ``make test``) on a tiny
random-weight model that the test writes: the LLaMA layout in GGUF (2 layers, width 64), a
SentencePiece vocabulary of words, marks and the 256 byte tokens, and a chatml template. It answers
the same words every time at temperature 0. The server runs with a clean environment (it reads its
settings from variables by name) and one thread (two busy-wait on a 2-core machine)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import numpy as np

from tests.bad_chat_server import free_port

WIDTH, LAYERS, HEADS, FEED_FORWARD, CONTEXT = 64, 2, 4, 128, 4096
SOME_WORDS = ("hello there my friend the sun is bright today and we can talk about music books rivers trees "
              "what would you like to know it seems good very small model answer yes no maybe soon always here "
              "light sound voice city garden morning evening")
WORDS = tuple(SOME_WORDS.split())
MARKS = [",", ".", "!", "?"]
CHATML = ("{% for message in messages %}{{'<|im_start|>' + message['role'] + '\n' + message['content'] + "
          "'<|im_end|>' + '\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}")


def vocabulary() -> tuple[list[str], list[float], list[int]]:
    from gguf import TokenType

    tokens = ["<unk>", "<s>", "</s>"] + [f"<0x{b:02X}>" for b in range(256)]
    types = [TokenType.UNKNOWN, TokenType.CONTROL, TokenType.CONTROL] + [TokenType.BYTE] * 256
    tokens += ["\u2581"] + ["\u2581" + w for w in WORDS] + MARKS
    types += [TokenType.NORMAL] * (len(tokens) - len(types))
    scores = [0.0] * 3 + [0.0] * 256 + [-float(i) for i in range(len(tokens) - 259)]
    return tokens, scores, [int(t) for t in types]


def write_tiny_llama(path: Path, seed: int = 2) -> Path:
    """The GGUF file of a random LLaMA model whose greedy answers are words and marks only (with
    seed 2, varied ones; seed 0 repeats a comma)."""
    import gguf

    tokens, scores, types = vocabulary()
    rng = np.random.default_rng(seed)
    w = gguf.GGUFWriter(str(path), "llama")
    w.add_name("parley-test-tiny-llama")
    w.add_context_length(CONTEXT)
    w.add_embedding_length(WIDTH)
    w.add_block_count(LAYERS)
    w.add_feed_forward_length(FEED_FORWARD)
    w.add_head_count(HEADS)
    w.add_head_count_kv(HEADS)
    w.add_rope_dimension_count(WIDTH // HEADS)
    w.add_layer_norm_rms_eps(1e-5)
    w.add_file_type(gguf.LlamaFileType.ALL_F32)
    w.add_tokenizer_model("llama")
    w.add_token_list(tokens)
    w.add_token_scores(scores)
    w.add_token_types(types)
    w.add_bos_token_id(1)
    w.add_eos_token_id(2)
    w.add_unk_token_id(0)
    w.add_chat_template(CHATML)

    def matrix(rows: int, cols: int) -> np.ndarray:
        return (rng.standard_normal((rows, cols)) / np.sqrt(cols)).astype(np.float32)

    out = matrix(len(tokens), WIDTH) * 4
    out[:259] = 0  # special and byte tokens: logit 0, below the best word's (greedy answers are words)
    w.add_tensor("token_embd.weight", matrix(len(tokens), WIDTH))
    w.add_tensor("output_norm.weight", np.ones(WIDTH, np.float32))
    w.add_tensor("output.weight", out)
    for i in range(LAYERS):
        w.add_tensor(f"blk.{i}.attn_norm.weight", np.ones(WIDTH, np.float32))
        for name in ("attn_q", "attn_k", "attn_v", "attn_output"):
            w.add_tensor(f"blk.{i}.{name}.weight", matrix(WIDTH, WIDTH))
        w.add_tensor(f"blk.{i}.ffn_norm.weight", np.ones(WIDTH, np.float32))
        w.add_tensor(f"blk.{i}.ffn_gate.weight", matrix(FEED_FORWARD, WIDTH))
        w.add_tensor(f"blk.{i}.ffn_up.weight", matrix(FEED_FORWARD, WIDTH))
        w.add_tensor(f"blk.{i}.ffn_down.weight", matrix(WIDTH, FEED_FORWARD))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path


class LlamaServer:
    """``python -m llama_cpp.server`` on ``model`` at ``.url`` (``/v1``) until ``close``; ``chat_format``
    "chatml-function-calling" lets the model call tools."""

    def __init__(self, model: Path, log: Path, start_seconds: float = 120.0, chat_format: str | None = None):
        port = free_port()
        self.url = f"http://127.0.0.1:{port}/v1"
        env = {k: os.environ[k] for k in ("PATH", "HOME", "LANG", "TMPDIR") if k in os.environ}
        self._log = open(log, "wb")  # noqa: SIM115 - open as long as the server runs
        self.process = subprocess.Popen(
            [sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--host", "127.0.0.1",
             "--port", str(port), "--n_threads", "1", "--n_threads_batch", "1", "--n_ctx", str(CONTEXT)]
            + (["--chat_format", chat_format] if chat_format else []),
            env=env, stdout=self._log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + start_seconds
        while True:
            try:
                with urllib.request.urlopen(self.url + "/models", timeout=2) as r:
                    if r.status == 200:
                        return
            except OSError:
                pass
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.close()
                raise RuntimeError(f"the llama.cpp server did not start: {log.read_text(errors='replace')[-2000:]}")
            time.sleep(0.1)

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._log.close()


def whole_answer(url: str, messages, max_tokens: int) -> dict:
    """The server's answer without streaming (urllib, not the client under test)."""
    body = json.dumps({"model": "any", "messages": messages, "max_tokens": max_tokens, "temperature": 0}).encode()
    request = urllib.request.Request(url + "/chat/completions", body, {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as r:
        return json.loads(r.read())["choices"][0]
