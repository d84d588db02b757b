"""The Interpreter mode: what the window says and does when the loaded model interprets (Hibiki).

An interpreter listens all the time while it runs (Start, Pause): push-to-talk makes no sense for
a call or a video. It listens to the microphone or to what this computer plays
(``app.audio.playback_capture``), speaks the English translation on the chosen speaker, and its
English text goes into the conversation.

The echo rule: when it listens to what the device it speaks on plays, its own voice would come back
in as input and be translated again. There, echo cancellation against its own output is always on
(whatever the Audio menu says): the canceller is given exactly what it played. Where echo
cancellation cannot run, the window says to choose another speaker (headphones).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from app.audio.echo import ProcessingSettings
from app.audio.playback_capture import PlaybackSource, PlaybackSources, plays_where_it_listens
from app.i18n import translate


@dataclass(frozen=True)
class Listening:
    """What the interpreter listens to, and whether that is where it speaks."""

    source: PlaybackSource | None  # None: a microphone
    echoes: bool = False  # it listens to the device it speaks on

    @classmethod
    def of(cls, input_label: str, output_label: str, playback: PlaybackSources) -> Listening:
        source = playback.named(input_label)
        return cls(source, source is not None and plays_where_it_listens(source, output_label, playback))


def processing_for(listening: Listening, processing: ProcessingSettings) -> ProcessingSettings:
    """The microphone processing the worker runs: echo cancellation on where its own voice comes back."""
    return replace(processing, echo_cancellation=True) if listening.echoes else processing


def interpreter_note(listening: Listening, processing: ProcessingSettings, problem: str,
                     playback: PlaybackSources) -> tuple[str, bool]:
    """(what the window says under the controls in Interpreter mode, whether it is a warning)."""
    source = listening.source
    if source is None:
        head = translate("Interpreter", "The interpreter listens to the microphone while it runs.")
        if playback.unavailable:
            head += " " + translate("Interpreter", "Listening to what this computer plays is not available here: "
                                    "{reason}.").format(reason=playback.unavailable)
        elif playback.sources:
            head += " " + translate("Interpreter", "To follow a call or a video, choose \"What … plays\" as the "
                                    "input.")
        if processing.echo_cancellation and not problem:
            return head + " " + translate("Interpreter", "Echo cancellation keeps it from hearing its own voice."), \
                False
        return head + " " + translate("Interpreter", "Echo cancellation is off or unavailable: use headphones, or "
                                      "it will hear its own voice."), True
    if not listening.echoes:
        return translate("Interpreter", "The interpreter listens to what {device} plays and speaks on another "
                         "output: its own voice does not come back in.").format(device=source.device), False
    if problem:
        return translate("Interpreter", "The interpreter listens to what {device} plays and speaks there too, so its "
                         "own voice would come back in, and echo cancellation is unavailable ({problem}): choose "
                         "another speaker, such as headphones.").format(device=source.device, problem=problem), True
    return translate("Interpreter", "The interpreter listens to what {device} plays and speaks there too: echo "
                     "cancellation against its own voice is always on here, so it does not hear itself.").format(
                         device=source.device), False


def input_title(interpreting: bool) -> str:
    """The input picker's name."""
    return translate("Interpreter", "Listen to") if interpreting else translate("DevicesPanel", "Microphone")


def mode_line() -> str:
    """The line that says who speaks, in Interpreter mode (personas do not apply to an interpreter)."""
    return translate("Interpreter", "Interpreter mode: it speaks and writes in English what it hears · personas "
                     "do not apply")


def continuous_tip() -> str:
    """Why Talk and open mic are off in Interpreter mode."""
    return translate("Interpreter", "The interpreter listens all the time while it runs: Start and Pause control it.")


def placeholder() -> str:
    """What the empty conversation says in Interpreter mode."""
    return translate("Interpreter", "Press Start: the interpreter listens and speaks the English translation. Its "
                     "English text appears here.")
