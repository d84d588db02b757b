"""A media player on a private session bus, as MPRIS describes one: its PlaybackStatus, Pause and
Play. A test reads what it was asked through ``org.parley.test.FakePlayer.Calls``. A "Silent"
player never answers what it is asked (it counts the questions), a "Malformed" one says its
status is a number; ``--names N``: the one process is N players (NAME0 .. NAME<N-1>).

    python -m tests.fake_player BUS_ADDRESS NAME STATUS [--names N]   (STATUS: Playing, Paused,
                                                                        Silent or Malformed)
"""

from __future__ import annotations

import sys

from jeepney import HeaderFields, MessageType, new_error, new_method_return
from jeepney.bus_messages import message_bus
from jeepney.io.blocking import Proxy, open_dbus_connection

PLAYER = "org.mpris.MediaPlayer2.Player"


def main(address: str, name: str, status: str, copies: int | None) -> None:
    connection = open_dbus_connection(address)
    bus = Proxy(message_bus, connection)
    bus.RequestName(f"org.parley.test.FakePlayer.{name}", 4)
    for player in ([name] if copies is None else [f"{name}{i}" for i in range(copies)]):
        bus.RequestName(f"org.mpris.MediaPlayer2.{player}", 4)  # last: a test waits for it
    calls: list[str] = []
    while True:
        message = connection.receive()
        if message.header.message_type != MessageType.method_call:
            continue
        member = message.header.fields.get(HeaderFields.member)
        if status == "Silent" and member != "Calls":
            calls.append(member)
        elif status == "Malformed" and member == "Get":
            connection.send(new_method_return(message, "i", (7,)))
        elif member == "Get" and message.body == (PLAYER, "PlaybackStatus"):
            connection.send(new_method_return(message, "v", (("s", status),)))
        elif member in ("Pause", "Play"):
            calls.append(member)
            status = "Paused" if member == "Pause" else "Playing"
            connection.send(new_method_return(message))
        elif member == "Calls":
            connection.send(new_method_return(message, "as", (calls,)))
        else:
            connection.send(new_error(message, "org.freedesktop.DBus.Error.UnknownMethod"))


if __name__ == "__main__":
    main(*sys.argv[1:4], int(sys.argv[sys.argv.index("--names") + 1]) if "--names" in sys.argv else None)
