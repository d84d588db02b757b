"""Pocket TTS: Parley's frame against the package's (``pocket-tts``), paired in one run, at the
released English shapes with random weights in the released layout, one thread.

    python -m bench.bench_tts --paired [--frames 60] [--precision float32]

A frame is the FlowLM step (backbone, flow head, end-of-speech head) and the codec's decoding of
its latent; the two implementations alternate frame by frame from the same voice and text, and
each frame's CPU time (this thread's) is recorded. Also timed (wall): the first audio, from a
chunk's text to its first decoded frame, for the text and for one clause. Writes
bench/results/pocket-tts-<precision>.json (with the CPU).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import torch

from bench.common import cpu_model, load_average, summary
from bench.pocket_reference import ROW, VOICE, build
from engine.pocket_tts.releases import package_dict

TEXT = "Hello world. I am a pocket sized voice, fast enough to run on small computers."
CLAUSE = "Hello world."  # the first audio after a clause: what a caller streaming text waits for


def _cpu_ms(fn) -> float:
    start = time.thread_time()
    fn()
    return (time.thread_time() - start) * 1000


class PackageFrames:
    """The package's own modules and state, frame by frame, as its generation thread and its
    decoder thread run them (one latent decoded per call)."""

    def __init__(self, ref, voice_path: Path, text: str):
        from pocket_tts.models.text_chunking import prepare_text_prompt
        from pocket_tts.modules.stateful_module import increment_steps, init_states

        self.ref, self.increment = ref, increment_steps
        prompt, _ = prepare_text_prompt(text, False, False)
        self.state = ref.get_state_for_audio_prompt(str(voice_path))
        tokens = ref.flow_lm.conditioner.prepare(prompt)
        self.max_frames = ref._estimate_max_gen_len(tokens.shape[1])
        ref._expand_kv_cache(self.state, ref._flow_lm_current_end(self.state) + tokens.shape[1] + self.max_frames)
        ref._run_flow_lm_and_increment_step(model_state=self.state, text_tokens=tokens)
        self.mimi_state = init_states(ref.mimi, batch_size=1, sequence_length=self.max_frames * 16)
        self.latent = torch.full((1, 1, ref.flow_lm.ldim), float("nan"))

    def frame(self) -> None:
        ref = self.ref
        latent, _ = ref._run_flow_lm_and_increment_step(model_state=self.state, backbone_input_latents=self.latent)
        ref.mimi.decode_from_latent(latent * ref.flow_lm.emb_std + ref.flow_lm.emb_mean, self.mimi_state)
        self.increment(ref.mimi, self.mimi_state, increment=16)
        self.latent = latent


class OurFrames:
    def __init__(self, model, voice, text: str):
        from engine.pocket_tts.speech import Speaker
        from engine.pocket_tts.text import prepare

        self.model = model
        speaker = Speaker(model, voice, temperature=0.0)
        tokens = model.tokenizer.encode(prepare(text, model.config.text).text)
        self.state = model.flow_lm.init_state(voice.length + len(tokens) + 400)
        voice.write_into(self.state)
        model.flow_lm.read_text(torch.tensor([tokens]), self.state)
        self.decoder = model.codec.init_state()
        self.noise = speaker._noise
        self.latent = None

    def frame(self) -> None:
        flow = self.model.flow_lm
        latent, _ = flow.step(self.latent, self.state, self.noise())
        self.model.codec.decode(latent * flow.emb_std + flow.emb_mean, self.decoder)
        self.latent = latent.view(1, 1, -1)


def first_audio_ms(make_frames) -> float:
    """Wall time from a chunk's text (the voice already read) to its first decoded frame."""
    start = time.perf_counter()
    make_frames().frame()
    return (time.perf_counter() - start) * 1000


def run(frames: int, precision: str, folder: Path | None) -> dict:
    from engine.pocket_tts.loading import load_pocket_tts
    from engine.pocket_tts.voices import read_voice_file, voice_file

    torch.set_num_threads(1)
    with tempfile.TemporaryDirectory() as tmp:
        folder = folder or Path(tmp)
        if not (folder / "languages" / ROW / "model.safetensors").is_file():
            build(folder, package_dict(ROW))
        from pocket_tts.models.tts_model import TTSModel

        ref = TTSModel.load_model(config=str(folder / "package_config.yaml"), temp=0)
        ours = load_pocket_tts(folder, ROW, precision=precision)
        voice_path = folder / "languages" / ROW / "embeddings" / f"{VOICE}.safetensors"
        voice = read_voice_file(ours, voice_file(ours, VOICE))
        with torch.no_grad():
            first = {(text, side): [] for text in (TEXT, CLAUSE) for side in ("package", "parley")}
            for _ in range(3):
                for text in (TEXT, CLAUSE):
                    first[text, "package"].append(first_audio_ms(lambda t=text: PackageFrames(ref, voice_path, t)))
                    first[text, "parley"].append(first_audio_ms(lambda t=text: OurFrames(ours, voice, t)))
            package, parley = PackageFrames(ref, voice_path, TEXT), OurFrames(ours, voice, TEXT)
            times = {"package": [], "parley": []}
            for i in range(frames + 3):
                p, o = _cpu_ms(package.frame), _cpu_ms(parley.frame)
                if i >= 3:  # warm-up frames left out
                    times["package"].append(p)
                    times["parley"].append(o)
    pairs = sorted(o / p for o, p in zip(times["parley"], times["package"]))
    return {
        "what": "Pocket TTS frame (FlowLM step + codec decode), CPU ms of one thread, paired",
        "cpu": cpu_model(), "load_average": load_average(), "threads": torch.get_num_threads(),
        "precision": precision, "shapes": "released English (random weights)",
        "package": summary(times["package"]), "parley": summary(times["parley"]),
        "ratio_of_medians": round(summary(times["parley"])["median_ms"] / summary(times["package"])["median_ms"], 3),
        "median_paired_ratio": round(pairs[len(pairs) // 2], 3),
        "first_audio": {side: summary(first[TEXT, side]) for side in ("package", "parley")},
        "first_audio_clause": {"text": CLAUSE, **{side: summary(first[CLAUSE, side])
                                                  for side in ("package", "parley")}},
        "frame_ms_real_time": 80.0,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--paired", action="store_true", help="time both implementations in this run (the only mode)")
    parser.add_argument("--frames", type=int, default=60)
    parser.add_argument("--precision", default="float32", choices=["float32", "bfloat16"])
    parser.add_argument("--model-folder", type=Path, help="reuse a random model built here before")
    parser.add_argument("--out", type=Path, help="the report (default: bench/results/pocket-tts-<precision>.json)")
    args = parser.parse_args()
    result = run(args.frames, args.precision, args.model_folder)
    out = args.out or Path(__file__).parent / "results" / f"pocket-tts-{args.precision}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(result, indent=1))
    print(f"-> {out}")


if __name__ == "__main__":
    main()
