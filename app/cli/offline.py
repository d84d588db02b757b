"""`parley offline`: run a wav through a model, write the reply (wav + optional JSON); `parley
recover`: rebuild a conversation file from a crash journal."""

from __future__ import annotations

import json
import logging
import os
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from app.cli.rebuild_progress import RebuildProgress

MAX_TRANSLATION_TAIL_S = 600.0  # ten minutes of silence after the input: far past any translation's end


class UsageError(Exception):
    """A problem the user can fix; printed as one line, exit code 2."""


class Cancelled(KeyboardInterrupt):
    """Ctrl+C during a rebuild: its message says how far it got and what was kept (exit code 130)."""


def run_offline(args) -> int:
    return _one_line_errors(_run, args)


def run_recover(args) -> int:
    return _one_line_errors(_recover, args)


def run_compare_precision(args) -> int:
    return _one_line_errors(_compare_precision, args)


def _one_line_errors(command, args) -> int:
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.WARNING)
    try:
        command(args)
    except KeyboardInterrupt as e:
        print(f"parley: {e}" if isinstance(e, Cancelled) else "parley: interrupted", file=sys.stderr)
        return 130
    except Exception as e:  # every failure becomes one actionable line unless --verbose
        if args.verbose:
            raise
        message = str(e) if _is_user_facing(e) else f"{type(e).__name__}: {e} (run with --verbose for details)"
        print(f"parley: error: {message}", file=sys.stderr)
        return 2
    return 0


def _is_user_facing(e: Exception) -> bool:
    from engine import ModelError, WriteError

    return isinstance(e, (UsageError, ModelError, FileNotFoundError, ValueError, WriteError))


def _check_writable(*outputs: str | None) -> None:
    """Before a run, not after it: each output's folder exists and can be written, what is at the
    output's path is a file Parley may replace (never a folder, FIFO or device), and no two outputs
    name the same file."""
    from engine import replaceable

    named: dict[Path, str] = {}
    for out in outputs:
        if not out:
            continue
        folder = Path(out).resolve().parent
        if not folder.is_dir():
            raise UsageError(f"the folder for {out} does not exist")
        if not os.access(folder, os.W_OK):
            raise UsageError(f"the folder for {out} ({folder}) cannot be written: choose another")
        target = Path(os.path.normcase(os.path.abspath(replaceable(out))))
        if target in named:
            raise UsageError(f"{named[target]} and {out} name the same file: give each output its own")
        named[target] = out


def _run(args) -> None:
    from app.engine_thread.real_time import FrameTimeSummary
    from engine import (
        PersonaLibrary,
        SamplingConfig,
        load_model,
        open_conversation,
        read_audio,
        record_frames,
        save_conversation,
        write_atomically,
        write_wav,
    )

    if not args.input or not args.output:
        raise UsageError("offline needs --input IN.wav and --output OUT.wav")
    if args.resume and (args.voice_prompt or args.text_prompt or args.persona):
        raise UsageError("--persona/--voice-prompt/--text-prompt apply to a new conversation, not to --resume")
    pcm = read_audio(args.input)
    if pcm.size == 0:
        raise UsageError(f"{args.input} contains no audio")
    if args.resume and args.journal:
        raise UsageError("--journal records a new conversation; it cannot continue a --resume'd one")
    _check_writable(args.output, args.json, args.text, args.save_state, args.journal)

    model = load_model(args.model, device=args.device, precision=args.precision, cuda_graph=not args.no_cuda_graph)
    if args.translation_tail is not None and not 0 <= args.translation_tail <= MAX_TRANSLATION_TAIL_S:
        raise UsageError(f"--translation-tail must be between 0 and {MAX_TRANSLATION_TAIL_S:g} seconds")
    if args.compact and not args.save_state:
        raise UsageError("--compact applies to --save-state")
    if args.resume:
        progress = RebuildProgress(Path(args.resume).name)
        try:
            session = open_conversation(model, args.resume, progress=progress)  # a compact file is rebuilt by replay
        except KeyboardInterrupt:
            raise Cancelled(f"cancelled {progress.where()} of opening {args.resume}; nothing was written") from None
    else:
        persona = PersonaLibrary().get(args.persona) if args.persona else None
        voice, role = persona.applies(model.info.takes_prompts) if persona else (None, None)
        chosen = {name: getattr(args, name) for name in ("temp", "temp_text", "top_k", "top_k_text")}
        sampling = replace(persona.sampling if persona else SamplingConfig(),
                           **{name: value for name, value in chosen.items() if value is not None})
        session = model.new_session(sampling=sampling, seed=args.seed, voice_prompt=args.voice_prompt or voice,
                                    text_prompt=args.text_prompt or role, persona=persona)

    # A new conversation records its frames (it can then be saved compact), journaled with --journal.
    recorder = None if args.resume else record_frames(session, args.journal)
    t0 = time.perf_counter()
    try:  # the outputs first, then the journal is closed: it is best effort (a full disk there loses no output)
        result = session.process(pcm) if args.translation_tail is None else \
            session.process(pcm, tail_s=args.translation_tail)
        elapsed = time.perf_counter() - t0
        if model.info.interprets:  # the whole translation, which goes on after the source
            write_wav(args.output, result.pcm)
        else:  # the reply over the input's duration
            write_wav(args.output, result.pcm[: pcm.size] if result.pcm.size >= pcm.size
                      else np.pad(result.pcm, (0, pcm.size - result.pcm.size)))
        if args.text:
            write_atomically(args.text, (result.text.strip() + "\n").encode("utf-8"), private=True)
        if args.json:
            timing = FrameTimeSummary.of(result.frame_ms)
            payload = {
                "text": result.text,
                "text_tokens": result.text_tokens,
                "audio_codes": result.audio_codes,
                "frames_in": result.frames_in,
                "ms_per_frame": 1000 * elapsed / max(result.frames_in, 1),  # wall time over all frames
                # Compute per frame after the warm-up (app.engine_thread.real_time.WARMUP_FRAMES); null when the input
                # is no longer than the warm-up.
                "ms_per_frame_median": timing.median_ms,
                "ms_per_frame_p95": timing.p95_ms,
                "warmup_frames": len(timing.warmup_ms),
                "warmup_ms": list(timing.warmup_ms),
            }
            write_atomically(args.json, json.dumps(payload).encode("utf-8"), private=True)
        if args.save_state:
            save_conversation(session, args.save_state, compact=True if args.compact else None)
    finally:
        if recorder is not None:
            recorder.close()
    if recorder is not None and recorder.journal is not None and recorder.journal.error:
        print(f"parley: warning: {recorder.journal.error}; the outputs were written", file=sys.stderr)
    print(f"{result.frames_in} frames, {1000 * elapsed / max(result.frames_in, 1):.1f} ms/frame"
          f" -> {args.output}", file=sys.stderr)


def _recover(args) -> None:
    from engine import ConversationFileError, load_model, read_journal, recover, write_atomically

    _check_writable(args.save_state, args.json)
    if not Path(args.journal).is_file():
        raise UsageError(f"{args.journal} does not exist")
    try:  # read before the model loads: a journal that cannot be read is said at once
        journal = read_journal(args.journal)
    except ConversationFileError as e:
        raise UsageError(f"{e} {_offer_to_delete(Path(args.journal))}") from None
    if journal.frames == 0:
        raise UsageError(f"{args.journal} holds no whole frame ({journal.damage or 'empty'}); nothing to recover")
    model = load_model(args.model, device=args.device, precision=args.precision, cuda_graph=not args.no_cuda_graph)
    progress = RebuildProgress(Path(args.journal).name)
    try:
        recovery = recover(model, args.journal, progress=progress, journal=journal)
    except KeyboardInterrupt:
        raise Cancelled(f"recovery cancelled {progress.where()}; nothing was written and {args.journal} "
                        "is kept") from None
    if recovery.frames == 0:  # its frames name tokens this model does not have
        raise UsageError(f"{args.journal} holds no frame {model.info.name} can replay ({recovery.damage}); "
                         "nothing to recover")
    recovery.session.save(args.save_state)
    if args.json:
        payload = {"frames": recovery.frames, "lost_frames": recovery.lost_frames, "damage": recovery.damage,
                   "encoder_mismatches": recovery.encoder_mismatches, "differs": recovery.differs,
                   "rebuild_seconds": round(recovery.rebuild_seconds, 3)}
        write_atomically(args.json, json.dumps(payload).encode("utf-8"), private=True)
    lost = f", {recovery.lost_frames} frames lost ({recovery.damage})" if recovery.damage else ""
    print(f"recovered {recovery.frames} frames in {recovery.rebuild_seconds:.1f} s{lost} -> {args.save_state}",
          file=sys.stderr)


def _offer_to_delete(journal: Path) -> str:
    """Asks, on a terminal, whether to delete a journal nothing can be recovered from (unless a
    running window holds it); says what became of it."""
    from app.journals.lock import JournalLock

    if not sys.stdin.isatty():
        return f"Delete {journal} if you do not need it for anything else."
    lock = JournalLock.try_acquire(journal)
    if lock is None:
        return f"A running Parley window is writing {journal}: it is kept."
    try:
        sys.stderr.write(f"parley: {journal} cannot be read; nothing can be recovered from it. Delete it? [y/N] ")
        sys.stderr.flush()
        if sys.stdin.readline().strip().lower() not in ("y", "yes"):
            return f"{journal} is kept."
        journal.unlink(missing_ok=True)
        return f"{journal} was deleted."
    finally:
        lock.release()


def _compare_precision(args) -> None:
    from engine import compare_precisions, load_model, read_audio, release_memory, write_atomically

    _check_writable(args.json)
    pcm = read_audio(args.input)
    if pcm.size == 0:
        raise UsageError(f"{args.input} contains no audio")

    def load(precision: str):
        release_memory()  # the previous precision's model, before the next is loaded
        return load_model(args.model, device=args.device, precision=precision, cuda_graph=False)

    results = compare_precisions(load, pcm, args.precisions)
    for r in results:
        print(f"{r.precision:>9}: text {r.text_agreement:.3f}, audio {r.audio_agreement:.3f}, whole frames "
              f"{r.frame_agreement:.3f} agree with {args.precisions[0]}; text KL {r.mean_text_kl:.4f} nats "
              f"({r.frames} frames, teacher-forced)")
    if args.json:
        payload = {"model": args.model, "input": str(args.input), "reference": args.precisions[0],
                   "results": [r.as_json() for r in results]}
        write_atomically(args.json, json.dumps(payload, indent=1).encode("utf-8"), private=True)
