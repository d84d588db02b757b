"""Media players on the session bus (MPRIS, org.mpris.MediaPlayer2.*): which are playing, pause
them, play them again. Blocking jeepney calls with short timeouts: run them off the GUI thread."""

from __future__ import annotations

PREFIX = "org.mpris.MediaPlayer2."
PATH = "/org/mpris/MediaPlayer2"
PLAYER = "org.mpris.MediaPlayer2.Player"
TIMEOUT_S = 0.5  # a player that does not answer in this time is left alone


def _call(connection, destination: str, interface: str, method: str, signature=None, body=()):
    from jeepney import DBusAddress, MessageType, new_method_call

    address = DBusAddress(PATH, bus_name=destination, interface=interface)
    reply = connection.send_and_get_reply(new_method_call(address, method, signature, body), timeout=TIMEOUT_S)
    return None if reply.header.message_type == MessageType.error else reply.body


def playing_players(connection) -> list[str]:
    """The bus names of the players whose PlaybackStatus is "Playing"."""
    from jeepney import new_method_call
    from jeepney.bus_messages import message_bus

    names = connection.send_and_get_reply(new_method_call(message_bus, "ListNames"), timeout=TIMEOUT_S).body[0]
    playing = []
    for name in (n for n in names if n.startswith(PREFIX)):
        try:
            status = _call(connection, name, "org.freedesktop.DBus.Properties", "Get", "ss", (PLAYER, "PlaybackStatus"))
        except TimeoutError:
            continue
        if status and status[0][1] == "Playing":
            playing.append(name)
    return playing


def send_to_players(connection, names: list[str], method: str) -> None:
    """"Pause" or "Play" each of ``names``; one that went away or does not answer is skipped."""
    for name in names:
        try:
            _call(connection, name, PLAYER, method)
        except TimeoutError:
            continue
