"""Media players on the session bus (MPRIS, org.mpris.MediaPlayer2.*): which are playing, pause
them, play them again. Blocking jeepney calls, run off the GUI thread: each question goes to every
player at once and waits ``TIMEOUT_S`` in all, so players that never answer cost that once, not
once each; an answer that is not what MPRIS says (an error, another type) skips that player only."""

from __future__ import annotations

import time

PREFIX = "org.mpris.MediaPlayer2."
PATH = "/org/mpris/MediaPlayer2"
PLAYER = "org.mpris.MediaPlayer2.Player"
TIMEOUT_S = 0.5  # the players that have not answered by then are left alone


def _ask_all(connection, names: list[str], interface: str, method: str, signature=None, body=()) -> dict[str, tuple]:
    """Send ``method`` to each of ``names`` at once; the bodies of the replies that came within
    ``TIMEOUT_S`` (errors left out), by name."""
    from jeepney import DBusAddress, HeaderFields, MessageType, new_method_call

    waiting = {}
    for name in names:
        serial = next(connection.outgoing_serial)
        address = DBusAddress(PATH, bus_name=name, interface=interface)
        connection.send(new_method_call(address, method, signature, body), serial=serial)
        waiting[serial] = name
    replies = {}
    deadline = time.monotonic() + TIMEOUT_S
    while waiting and (left := deadline - time.monotonic()) > 0:
        try:
            message = connection.receive(timeout=left)
        except TimeoutError:
            break
        name = waiting.pop(message.header.fields.get(HeaderFields.reply_serial), None)
        if name is not None and message.header.message_type == MessageType.method_return:
            replies[name] = message.body
    return replies


def playing_players(connection) -> list[str]:
    """The bus names of the players whose PlaybackStatus is "Playing"."""
    from jeepney import new_method_call
    from jeepney.bus_messages import message_bus

    names = connection.send_and_get_reply(new_method_call(message_bus, "ListNames"), timeout=TIMEOUT_S).body[0]
    players = [name for name in names if name.startswith(PREFIX)]
    statuses = _ask_all(connection, players, "org.freedesktop.DBus.Properties", "Get", "ss",
                        (PLAYER, "PlaybackStatus"))
    return [name for name in players if statuses.get(name) == (("s", "Playing"),)]


def send_to_players(connection, names: list[str], method: str) -> None:
    """"Pause" or "Play" each of ``names``; one that went away or does not answer is skipped."""
    _ask_all(connection, names, PLAYER, method)
