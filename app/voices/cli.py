"""`parley voices`: list the voices (shipped with PersonaPlex, and the user's own), import, rename, remove."""

from __future__ import annotations

import argparse
import json
import sys

SHIPPED_FROM = "personaplex"  # whose voices folder lists the shipped voices, unless --model says another


def add_voices_parser(sub) -> None:
    voices = sub.add_parser("voices", help="list your voices and the shipped ones; add, rename or remove yours")
    voices.add_argument("--json", action="store_true",
                        help="one JSON object per line: name, kind (shipped or user), and for yours path, seconds")
    voices.add_argument("--model", default=SHIPPED_FROM,
                        help="the PersonaPlex preset or folder whose shipped voices to list (never downloaded)")
    actions = voices.add_subparsers(dest="voices_action")
    add = actions.add_parser("add", help="import a recording (WAV, FLAC, Ogg, MP3; 10-30 s of your own voice, "
                                         "or used with its owner's consent) as a voice")
    add.add_argument("name")
    add.add_argument("file")
    rename = actions.add_parser("rename", help="rename one of your voices")
    rename.add_argument("name")
    rename.add_argument("new_name")
    remove = actions.add_parser("remove", help="delete one of your voices (its recording and cached prompts)")
    remove.add_argument("name")


def voices_command(args: argparse.Namespace) -> int:
    from engine import VoiceLibrary  # here: `parley --help` need not import torch

    library = VoiceLibrary()
    try:
        if args.voices_action == "add":
            voice = library.import_file(args.name, args.file)
            print(f"added {voice.name} ({voice.seconds:.1f} s) to {library.folder}")
        elif args.voices_action == "rename":
            print(f"renamed {args.name} to {library.rename(args.name, args.new_name).name}")
        elif args.voices_action == "remove":
            library.remove(args.name)
            print(f"removed {args.name}")
        else:
            list_voices(library, args.model, args.json)
    except (ValueError, OSError) as e:  # VoiceLibraryError, AudioFileError: said plainly, nothing changed
        print(f"parley: {e}", file=sys.stderr)
        return 1
    return 0


def list_voices(library, model: str, as_json: bool) -> None:
    import engine

    try:
        shipped = engine.shipped_voices(engine.resolve_model(model, download=False).voices_dir)
    except engine.ModelError as e:
        shipped = []
        print(f"parley: no shipped voices listed ({model}): {str(e).split('. ')[0]}.", file=sys.stderr)
    entries = [{"name": name, "kind": "shipped"} for name in shipped] + [v.as_json() for v in library.voices()]
    for entry in entries:
        if as_json:
            print(json.dumps(entry, ensure_ascii=False))
        else:
            seconds = f"{entry['seconds']:.1f} s" if "seconds" in entry else ""
            print("\t".join([entry["name"], entry["kind"], seconds, entry.get("error", "")]).rstrip())
