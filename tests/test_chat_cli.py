"""`parley chat` end to end on recordings: the demo speech to text, a real llama.cpp server on a
tiny GGUF model, and Pocket TTS (random weights at the released English shapes): each turn's words
are the speech to text's, its answer the server's to the whole history, its audio the voice
speaking the answer's clauses in order; the JSON's timings hold together. A failure part-way keeps
and speaks what was received; bad options are one sentence and exit code 2."""

from __future__ import annotations

import json
import time
from datetime import datetime

import numpy as np
import pytest
import soundfile

from app.chat.clauses import ClauseSplitter
from app.cli.command import main
from engine import PocketSpeaker, load_pocket_tts, load_speech_to_text, read_audio, read_wav, words
from tests.bad_chat_server import PIECES, BadServer, free_port
from tests.conftest import SPEECH
from tests.llama_server import whole_answer

pytest.importorskip("pocket_tts")
pytest.importorskip("llama_cpp.server", reason="make test installs llama-cpp-python[server]")

SYSTEM = "You answer in a few words."
MAX_TOKENS = 16
GAP = 12000  # the CLI's half second between answers


@pytest.fixture(scope="module")
def voice_folder(tmp_path_factory):
    """Released shapes, random weights; its end-of-speech head fires at once (short clauses)."""
    from bench.pocket_reference import VOICE, build
    from engine.pocket_tts.releases import package_dict

    folder = tmp_path_factory.mktemp("pocket-english")
    build(folder, package_dict("english"), eos_bias=1e4)
    return folder, VOICE


@pytest.fixture(scope="module")
def recordings(tmp_path_factory):
    """Two short turns cut from the project's recordings (one at 16 kHz: read as any input is)."""
    folder = tmp_path_factory.mktemp("turns")
    out = []
    for name, seconds in (("hello_24k.wav", 2.0), ("story_16k.wav", 1.6)):
        audio, rate = soundfile.read(SPEECH[name], dtype="float32")
        path = folder / name
        soundfile.write(path, audio[:int(seconds * rate)], rate)
        out.append(str(path))
    return out


def chat(url: str, voice_folder, inputs, tmp_path, *extra) -> tuple[int, dict | None, np.ndarray | None]:
    folder, voice = voice_folder
    out, report = tmp_path / "answers.wav", tmp_path / "turns.json"
    argv = ["chat", "--llm", url, "--llm-model", "tiny", "--llm-temperature", "0", "--llm-max-tokens",
            str(MAX_TOKENS), "--system", SYSTEM, "--stt-model", "demo-stt", "--device", "cpu", "--tts-model",
            str(folder), "--voice", voice, "--output", str(out), "--json", str(report), *extra]
    for path in inputs:
        argv += ["--input", path]
    code = main(argv)
    return (code, json.loads(report.read_text()) if report.exists() else None,
            read_wav(str(out)) if out.exists() else None)


def respoken(voice_folder, clauses: list[list[str]]) -> np.ndarray:
    """The voice saying the clauses in order, as the command's one speaker does (seed 0)."""
    folder, voice = voice_folder
    from app.cli.say import load_voice

    model = load_pocket_tts(folder)
    speaker = PocketSpeaker(model, load_voice(model, voice), seed=0)
    turns = [np.concatenate([f.audio for c in turn for f in speaker.speak(c)]) for turn in clauses]
    return np.concatenate([p for i, t in enumerate(turns) for p in ((np.zeros(GAP, np.float32),) if i else ()) + (t,)])


def test_two_spoken_turns_with_the_servers_answers_to_the_history(llama, voice_folder, recordings, tmp_path):
    code, report, audio = chat(llama.url, voice_folder, recordings, tmp_path)
    assert code == 0
    stt = load_speech_to_text("demo-stt", device="cpu")
    history = [{"role": "system", "content": SYSTEM}]
    for turn, path in zip(report["turns"], recordings, strict=True):
        stream = stt.new_stream()  # a turn's end flushes only the model's delay (a live finish)
        heard = words(stream.feed(read_audio(path)) + stream.finish(live=True))
        assert turn["heard"] == " ".join(w.text for w in heard) != ""
        history.append({"role": "user", "content": turn["heard"]})
        want = whole_answer(llama.url, history, MAX_TOKENS)
        assert turn["answer"] == want["message"]["content"] and turn["finish_reason"] == want["finish_reason"]
        history.append({"role": "assistant", "content": turn["answer"]})
        splitter = ClauseSplitter()
        assert turn["clauses"] == [c.text for c in splitter.feed(turn["answer"]) + splitter.flush()]
        assert turn["error"] is None and len(turn["clauses"]) >= 1
        t = turn["timings_ms"]
        assert 0 < t["stt_flush"] < t["first_audio"] <= t["total"]
        assert 0 < t["model_first_token"] <= t["first_clause"] and t["voice_first_frame"] > 0
        assert t["parley_share"] == pytest.approx(t["first_audio"] - t["model_first_token"], abs=1e-2)
        split = [t[k] for k in ("stt_flush", "model_first_token", "clause_wait", "voice_first_frame", "handoffs")]
        assert min(split) >= 0 and sum(split) == pytest.approx(t["first_audio"], abs=1e-2)
    want_audio = respoken(voice_folder, [t["clauses"] for t in report["turns"]])
    assert audio.size == want_audio.size == round(report["totals"]["audio_s"] * 24000)
    assert np.abs(np.clip(want_audio, -1, 1) - audio).max() <= 2 / 32768 + 1e-5
    second = report["turns"][1]
    assert second["audio_start_s"] == pytest.approx(report["turns"][0]["audio_s"] + 0.5)
    assert report["llm"]["model"] == "tiny" and report["totals"]["turns"] == 2
    firsts = sorted(t["timings_ms"]["first_audio"] for t in report["turns"])
    assert report["totals"]["timings_ms"]["first_audio"] == {"median": pytest.approx(sum(firsts) / 2, abs=1e-3),
                                                            "p95": firsts[1]}


def test_the_voice_speaks_before_the_model_has_finished(voice_folder, recordings, tmp_path):
    pause = 4000
    with BadServer("pause", stall=pause / 1000) as server:
        code, report, _ = chat(server.url, voice_folder, recordings[:1], tmp_path)
    assert code == 0
    (turn,) = report["turns"]
    assert turn["clauses"] == ["Hello there, my friend.", "And goodbye."]
    t = turn["timings_ms"]  # the first clause's audio came while the model was still answering
    assert t["first_audio"] - t["stt_flush"] < pause <= t["total"] - t["stt_flush"]


def test_an_enabled_tool_is_called_and_the_answer_follows_its_result(voice_folder, recordings, tmp_path):
    with BadServer("tool-call") as server:
        code, report, audio = chat(server.url, voice_folder, recordings[:1], tmp_path, "--tool", "clock")
        first, second = server.requests
    assert code == 0
    (turn,) = report["turns"]
    (call,) = turn["tool_calls"]
    assert call["name"] == "clock" and call["arguments"] == '{"query": "rivers trees"}' and not call["failed"]
    assert str(datetime.now().year) in call["result"]
    assert [t["function"]["name"] for t in first["tools"]] == ["clock"]
    asked, answered = second["messages"][-2:]
    assert asked["role"] == "assistant" and asked["tool_calls"][0]["function"]["name"] == "clock"
    assert answered == {"role": "tool", "tool_call_id": "call_7", "content": call["result"]}
    assert turn["answer"] == "".join(PIECES) and turn["clauses"] == ["Hello there, my friend."] and audio.size


def test_no_tool_is_offered_unless_enabled(voice_folder, recordings, tmp_path):
    with BadServer("tool-call") as server:
        code, report, _ = chat(server.url, voice_folder, recordings[:1], tmp_path)
        (request,) = server.requests
    assert code == 0 and "tools" not in request and report["turns"][0]["tool_calls"] == []


def test_a_connection_lost_mid_answer_speaks_and_keeps_what_came(voice_folder, recordings, tmp_path, capsys):
    with BadServer("drop") as server:
        code, report, audio = chat(server.url, voice_folder, recordings, tmp_path)
    assert code == 2
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last.startswith("parley: error: The connection to the language model was lost") and "answers.wav" in last
    (turn,) = report["turns"]  # the second turn is not started
    assert turn["answer"] == "".join(PIECES) and turn["error"]["kind"] == "dropped"
    assert turn["clauses"] == ["Hello there, my friend."] and audio.size == round(turn["audio_s"] * 24000) > 0


@pytest.mark.parametrize(("options", "message"), [
    (["--llm", "localhost:11434"], "is not a language model server's"),
    (["--llm", "http://127.0.0.1:{port}/v1"], "No language model server answers"),
    (["--llm", "http://127.0.0.1:{port}", "--llm-timeout", "0"], "--llm-timeout must be"),
    (["--llm", "http://127.0.0.1:{port}", "--llm-temperature", "3"], "--llm-temperature must be"),
    (["--llm", "http://127.0.0.1:{port}", "--input", "MISSING.wav"], "MISSING.wav"),
])
def test_bad_options_are_one_sentence_before_any_model_loads(tmp_path, capsys, options, message):
    port = free_port()
    options = [o.format(port=port) for o in options]
    argv = ["chat", "--llm-model", "m", "--output", str(tmp_path / "o.wav"), *options]
    if "--input" not in options:
        argv += ["--input", SPEECH["hello_24k.wav"]]
    start = time.perf_counter()
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err
    assert time.perf_counter() - start < 30 and not (tmp_path / "o.wav").exists()


def test_save_writes_a_conversation_the_window_lists_replays_and_continues(voice_folder, recordings, tmp_path,
                                                                          monkeypatch):
    import engine
    from app.cli.chat import KEY_VARIABLE

    monkeypatch.setenv(KEY_VARIABLE, "sk-never-in-a-file-42")
    saved = tmp_path / "chat.parley"
    with BadServer("ok") as server:
        code, report, audio = chat(server.url, voice_folder, recordings, tmp_path, "--save", str(saved))
    assert code == 0
    got = engine.read_chat_conversation(saved)
    assert "sk-never-in-a-file-42" not in saved.read_bytes().decode("latin-1")
    history = [{"role": "system", "content": SYSTEM}]
    for turn in report["turns"]:
        history += [{"role": "user", "content": turn["heard"]}, {"role": "assistant", "content": turn["answer"]}]
    assert list(got.messages) == history and len(got.turn_ends) == 2
    assert (got.side.model, got.side.speech_to_text, got.side.voice) == ("tiny", "demo-stt", voice_folder[1])
    first = engine.to_16_bit(read_audio(recordings[0]))
    assert np.array_equal(got.user_audio[:first.size], first)  # the person's side: what the command heard
    spoken = got.assistant_audio[np.abs(got.assistant_audio) > 0]
    said = audio[np.abs(audio) > 0]
    assert spoken.size == said.size and np.abs(spoken - said).max() <= 1 / 32768  # the answers, as written
    info = engine.read_conversation_info(saved)
    assert info.text == " ".join(t["answer"] for t in report["turns"]).strip()
    assert info.caption_text == " ".join(t["heard"] for t in report["turns"])
