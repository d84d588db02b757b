"""The window's conversation with a language model, on its own thread (``app.engine_thread.chat_loop``),
fed by a hand-driven 24 kHz bridge: held Talk's frames reach the speech to text exactly as
``parley chat`` feeds a recording, the real llama.cpp server's answer to the history is the turn's,
the voice's frames reach the speaker's ring as they are made (exactly the voice saying the answer's
clauses), and the history goes on across turns."""

from __future__ import annotations

import contextlib
import time

import numpy as np
import pytest
import soundfile

from app.audio.bridge import AudioBridge
from app.chat.cascade import Conversation
from app.chat.clauses import ClauseSplitter
from app.cli.say import load_voice
from app.engine_thread import chat_loop as c
from engine import FRAME_SIZE, SAMPLE_RATE, PocketSpeaker, TurnEnds, load_pocket_tts, load_speech_to_text
from tests.conftest import SPEECH
from tests.llama_server import whole_answer
from tests.test_chat_cli import voice_folder  # noqa: F401 - a fixture

pytest.importorskip("pocket_tts")
pytest.importorskip("llama_cpp.server", reason="make test installs llama-cpp-python[server]")

MAX_TOKENS = 12


@pytest.fixture(scope="module")
def slow_voice_folder(tmp_path_factory):
    """Released shapes, random weights; its end-of-speech head never fires (each clause lasts its
    frame budget, seconds: long enough to be spoken over)."""
    from bench.pocket_reference import VOICE, build
    from engine.pocket_tts.releases import package_dict

    folder = tmp_path_factory.mktemp("pocket-english-slow")
    build(folder, package_dict("english"), eos_bias=-1e4)
    return folder, VOICE


def speaker_of(voice_folder):  # noqa: F811
    folder, voice = voice_folder
    model = load_pocket_tts(folder)
    return PocketSpeaker(model, load_voice(model, voice), seed=0)


def recording(name: str, seconds: float) -> np.ndarray:
    audio, rate = soundfile.read(SPEECH[name], dtype="float32")
    assert rate == SAMPLE_RATE
    return audio[:int(seconds * rate) // FRAME_SIZE * FRAME_SIZE]  # whole frames: nothing left in the assembler


class Speaker:
    """Drains the bridge's output ring as a sound card would, and keeps what it played."""

    def __init__(self, bridge: AudioBridge) -> None:
        self.bridge, self.played = bridge, []

    def drain(self) -> None:
        out = np.zeros((self.bridge.output.available(), 1), np.float32)
        got = self.bridge.output.read_into(out)
        self.played.append(out[:got, 0].copy())

    def audio(self) -> np.ndarray:
        return np.concatenate(self.played) if self.played else np.zeros(0, np.float32)


def wait_for(events: list, kind, speaker: Speaker, timeout: float = 180.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        speaker.drain()
        found = [e for e in events if isinstance(e, kind)]
        if found:
            return found[-1]
        failed = [e for e in events if isinstance(e, c.ChatFailed)]
        assert not failed, failed
        time.sleep(0.01)
    raise AssertionError(f"no {kind.__name__} within {timeout} s: {events}")


@contextlib.contextmanager
def running_loop(stt, voice, url: str, model: str = "m", **setup):
    """A chat loop with ``stt`` and a Pocket TTS ``voice`` folder on a hand-driven 24 kHz bridge,
    talking with ``model`` at ``url``: (the loop, its events, the bridge, its speaker, ChatReady);
    closed after."""
    events: list = []
    bridge = AudioBridge(SAMPLE_RATE, 1, SAMPLE_RATE, 1)
    speaker = Speaker(bridge)
    loop = c.ChatLoop(events.append, loader=lambda _setup: (stt, speaker_of(voice)))
    try:
        loop.set_bridge(bridge)
        loop.start(c.ChatSetup(url, model, "demo-stt", "", "", "", **setup))
        yield loop, events, bridge, speaker, wait_for(events, c.ChatReady, speaker)
    finally:
        assert loop.close()


def talk_turn(loop, bridge: AudioBridge, speaker: Speaker, events: list, pcm: np.ndarray):
    """Hold Talk while ``pcm`` arrives from the microphone, release it: (Heard, Answered, the clauses said)."""
    bridge.input.write(np.zeros((FRAME_SIZE, 1), np.float32))  # said before Talk: not this turn's
    del events[:]
    loop.talk(True)
    wait_for(events, c.Listening, speaker)
    for block in np.split(pcm, len(pcm) // 480):  # 20 ms blocks, as a callback delivers them
        bridge.input_callback(block[:, None], len(block), None, None)
    while bridge.input.available():
        time.sleep(0.01)
    loop.talk(False)
    heard = wait_for(events, c.Heard, speaker)
    answered = wait_for(events, c.Answered, speaker)
    speaker.drain()
    return heard.text, answered, [e.text for e in events if isinstance(e, c.Said)]


def test_held_talk_is_heard_as_the_cli_hears_it_and_the_answer_is_spoken_into_the_speaker(llama, voice_folder):  # noqa: F811
    stt = load_speech_to_text("demo-stt", device="cpu")
    with running_loop(stt, voice_folder, llama.url, "tiny", max_tokens=MAX_TOKENS,
                      temperature=0) as (loop, events, bridge, speaker, _ready):
        history = []
        for turn, (name, seconds) in enumerate((("hello_24k.wav", 2.0), ("hello_24k.wav", 1.2))):
            pcm = recording(name, seconds)
            heard, answered, said = talk_turn(loop, bridge, speaker, events, pcm)
            assert heard == Conversation(stt, None, None).hear(pcm).text != ""
            history.append({"role": "user", "content": heard})
            want = whole_answer(llama.url, history, MAX_TOKENS)["message"]["content"]
            assert answered.text == want and answered.problem == ""
            history.append({"role": "assistant", "content": want})
            splitter = ClauseSplitter()
            clauses = [x.text for x in splitter.feed(want) + splitter.flush()]
            assert said == clauses
            if turn == 0:  # a fresh voice (seed 0) says what the loop's voice said first
                fresh = speaker_of(voice_folder)
                said = np.concatenate([f.audio for clause in clauses for f in fresh.speak(clause)])
                played = speaker.audio()
                assert played.size == said.size
                # the same frames, up to float rounding (another thread: 3e-6 seen here)
                assert np.abs(np.clip(said, -1, 1) - played).max() <= 1e-4
            t = answered.times
            print(f"turn {turn}: stt flush {t.stt_flush:.0f} ms, model's first token {t.first_token:.0f} ms, "
                  f"first audio {t.first_audio:.0f} ms after Talk's release")
            assert 0 < t.stt_flush < t.first_audio <= t.total
        assert loop.conversation.messages == history


def test_a_connection_lost_mid_answer_keeps_and_speaks_what_came_and_the_next_turn_goes_on(voice_folder):  # noqa: F811
    from tests.bad_chat_server import PIECES, BadServer

    stt = load_speech_to_text("demo-stt", device="cpu")
    with (BadServer("drop") as server,
          running_loop(stt, voice_folder, server.url) as (loop, events, bridge, speaker, ready)):
        for _turn in range(2):
            heard, answered, said = talk_turn(loop, bridge, speaker, events, recording("hello_24k.wav", 1.2))
            assert answered.text == "".join(PIECES) and said == ["Hello there, my friend."]
            assert answered.problem.startswith("The connection to the language model was lost")
        assert speaker.audio().size > 0 and len(server.requests) == 2
        assert [m["role"] for m in loop.conversation.messages] == ["user", "assistant"] * 2


def test_talk_pressed_while_the_answer_is_spoken_silences_it_at_once_and_keeps_only_the_words_heard(slow_voice_folder):
    """Barge-in: the server sends a clause and then nothing for a minute; Talk pressed while the voice
    speaks mutes what the speaker still had queued, closes the stream (the answer ends at once, not
    after the minute), keeps the words heard ending in the cut mark, in the turn and in the history
    the next request sends, and the press is the next turn's: twice in a row."""
    from app.chat.cascade import CUT_MARK
    from tests.bad_chat_server import PIECES, BadServer

    stt = load_speech_to_text("demo-stt", device="cpu")
    clause = "".join(PIECES).split()
    pcm = recording("hello_24k.wav", 1.2)
    with (BadServer("pause", stall=60.0) as server,
          running_loop(stt, slow_voice_folder, server.url) as (loop, events, bridge, speaker, ready)):
        loop.talk(True)
        wait_for(events, c.Listening, speaker)
        history = []
        for _cycle in range(2):
            del events[:]
            for block in np.split(pcm, len(pcm) // 480):
                bridge.input_callback(block[:, None], len(block), None, None)
            loop.talk(False)
            heard = wait_for(events, c.Heard, speaker).text
            assert heard
            wait_for(events, c.Said, speaker)
            start, deadline = speaker.audio().size, time.monotonic() + 60
            while speaker.audio().size - start < 0.8 * SAMPLE_RATE:  # the speaker plays 0.8 s of it
                assert time.monotonic() < deadline, "the voice stopped before 0.8 s"
                speaker.drain()
                time.sleep(0.005)
            while bridge.output.available() < 0.2 * SAMPLE_RATE:  # the voice queues ahead of the speaker
                assert time.monotonic() < deadline, "the voice stopped"
                time.sleep(0.005)
            mark, pressed = len(speaker.played), time.monotonic()
            loop.talk(True)  # over the answer: the next turn
            answered = wait_for(events, c.Answered, speaker, timeout=20.0)
            assert time.monotonic() - pressed < 10.0  # the silent stream was closed, not waited out
            wait_for(events, c.Listening, speaker)
            speaker.drain()
            after = np.concatenate(speaker.played[mark:])
            assert after.size >= 0.2 * SAMPLE_RATE and not after.any()  # what was queued is muted
            assert answered.cut and answered.problem == "" and answered.text.endswith(CUT_MARK)
            words = answered.text.removesuffix(CUT_MARK).split()
            assert words == clause[:len(words)] and len(words) < len(clause)  # heard: part of the clause
            history += [{"role": "user", "content": heard}, {"role": "assistant", "content": answered.text}]
            assert loop.conversation.messages == history
        assert server.requests[1]["messages"] == history[:3]  # the cut answer is the model's, as heard


def open_mic_turn(stt, pcm: np.ndarray) -> str:
    """What open mic hears of ``pcm``: frame by frame until the voice-activity heads end the turn
    (kyutai's rule, ``engine.TurnEnds``) after a word, then flushed ("" where they never do)."""
    stream, steps, rule = stt.new_stream(), [], TurnEnds()
    for i in range(0, len(pcm) - FRAME_SIZE + 1, FRAME_SIZE):
        new = stream.feed(pcm[i:i + FRAME_SIZE])
        steps += new
        if any([rule.observe(s.voice_activity) for s in new]) and any(s.text for s in steps):
            return Conversation.finish_hearing(stream, steps).text
    return ""


def test_open_mic_ends_the_turn_where_the_voice_activity_heads_say_and_listens_again_after_the_answer(voice_folder):  # noqa: F811
    from tests.bad_chat_server import PIECES, BadServer

    stt = load_speech_to_text("demo-stt", device="cpu")
    pcm = recording("hello_24k.wav", 5.2)
    want = open_mic_turn(stt, pcm)
    assert want  # the demo's random heads end a turn on this recording, after words (frame 14 of 65)
    with (BadServer("ok") as server,
          running_loop(stt, voice_folder, server.url) as (loop, events, bridge, speaker, ready)):
        assert ready.turn_ends
        loop.set_open_mic(True)
        for _turn in range(2):
            wait_for(events, c.Listening, speaker)  # nothing held: it listens
            del events[:]
            for block in np.split(pcm, len(pcm) // 480):  # all at once: the heads decide, not the timing
                bridge.input_callback(block[:, None], len(block), None, None)
            assert wait_for(events, c.Heard, speaker).text == want
            answered = wait_for(events, c.Answered, speaker)
            assert answered.text == "".join(PIECES) and not answered.cut
        wait_for(events, c.Listening, speaker)
        del events[:]
        loop.set_open_mic(False)
        wait_for(events, c.StoppedListening, speaker)
        assert [m["content"] for m in loop.conversation.messages] == [want, "".join(PIECES)] * 2


def test_closing_while_a_silent_server_is_asked_ends_at_once_not_after_its_silence(voice_folder):  # noqa: F811
    """Quitting the window (or Stop) while the server has sent its headers and then nothing for a
    minute: the answer's stream is closed and the loop's thread ends at once."""
    from tests.bad_chat_server import BadServer

    stt = load_speech_to_text("demo-stt", device="cpu")
    pcm = recording("hello_24k.wav", 1.2)
    with (BadServer("slow-start", stall=60.0) as server,
          running_loop(stt, voice_folder, server.url) as (loop, events, bridge, speaker, _ready)):
        loop.talk(True)
        wait_for(events, c.Listening, speaker)
        for block in np.split(pcm, len(pcm) // 480):
            bridge.input_callback(block[:, None], len(block), None, None)
        loop.talk(False)
        assert wait_for(events, c.Heard, speaker).text
        deadline = time.monotonic() + 10
        while not server.requests:
            assert time.monotonic() < deadline
            time.sleep(0.01)
        time.sleep(0.5)  # its headers arrive, then nothing
        closing = time.monotonic()
        assert loop.close(timeout=20.0)
        assert time.monotonic() - closing < 3.0


def test_open_mic_chosen_before_the_devices_are_lent_waits_for_them(voice_folder):  # noqa: F811
    from tests.bad_chat_server import BadServer

    stt = load_speech_to_text("demo-stt", device="cpu")
    events: list = []
    bridge = AudioBridge(SAMPLE_RATE, 1, SAMPLE_RATE, 1)
    with BadServer("ok") as server:
        loop = c.ChatLoop(events.append, loader=lambda _setup: (stt, speaker_of(voice_folder)))
        try:
            loop.start(c.ChatSetup(server.url, "m", "demo-stt", "", "", ""))
            speaker = Speaker(bridge)
            wait_for(events, c.ChatReady, speaker)
            loop.set_open_mic(True)
            time.sleep(0.5)  # no devices yet: nothing to listen to, and nothing is said to be wrong
            assert not [e for e in events if isinstance(e, (c.Listening, c.ChatFailed))]
            loop.set_bridge(bridge)
            wait_for(events, c.Listening, speaker, timeout=10.0)
        finally:
            assert loop.close()
