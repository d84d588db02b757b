"""`parley personas`: list the personas (shipped with Parley, edited, and the user's own)."""

from __future__ import annotations

import argparse
import json

ROLE_CHARS = 60  # of the role a line shows


def add_personas_parser(sub) -> None:
    personas = sub.add_parser("personas", help="list the personas (edit them in the app: Model > Personas)")
    personas.add_argument("--json", action="store_true",
                          help="one JSON object per line: name, kind (shipped, edited or user), voice, role, "
                               "sampling, wait_for_user (or error for a damaged file)")


def personas_command(args: argparse.Namespace) -> int:
    from engine import PersonaLibrary  # here: `parley --help` need not import torch

    for entry in PersonaLibrary().entries():
        print(json.dumps(entry.as_json(), ensure_ascii=False) if args.json else persona_line(entry))
    return 0


def persona_line(entry) -> str:
    persona = entry.persona
    if persona is None:
        return f"{entry.name}\t{entry.kind}\tdamaged: {entry.problem}"
    role = persona.role or "(the model's default role)"
    role = role if len(role) <= ROLE_CHARS else role[:ROLE_CHARS - 1] + "…"
    return "\t".join((entry.name, entry.kind, persona.voice or "default voice",
                      "waits for you" if persona.wait_for_user else "", role))
