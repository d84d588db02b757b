"""A stand-in for the desktop portal's GlobalShortcuts interface on a private bus, run as a child
process by the tests: what a desktop that has the portal answers, by the portal's documented
protocol. It grants (or with --refuse, declines) the shortcut it is asked for, and a test presses
and releases it through its own interface ``org.parley.test.FakePortal`` (Press, Release, Trigger:
the preferred trigger Parley asked for).

    python -m tests.fake_portal BUS_ADDRESS [--refuse]
"""

from __future__ import annotations

import sys

from jeepney import DBusAddress, HeaderFields, MessageType, new_error, new_method_return, new_signal
from jeepney.bus_messages import message_bus
from jeepney.io.blocking import Proxy, open_dbus_connection

PORTAL_PATH = "/org/freedesktop/portal/desktop"
SHORTCUTS = "org.freedesktop.portal.GlobalShortcuts"
CONTROL_PATH, CONTROL = "/org/parley/test", "org.parley.test.FakePortal"


def main(address: str, refuse: bool) -> None:
    connection = open_dbus_connection(address)
    Proxy(message_bus, connection).RequestName("org.freedesktop.portal.Desktop", 4)
    Proxy(message_bus, connection).RequestName("org.parley.test.FakePortal", 4)
    state = {"session": "", "shortcut": "", "trigger": ""}

    def request_path(message, options) -> str:
        sender = message.header.fields[HeaderFields.sender][1:].replace(".", "_")
        return f"{PORTAL_PATH}/request/{sender}/{options['handle_token'][1]}"

    def respond(path: str, code: int, results: dict) -> None:
        connection.send(new_signal(DBusAddress(path, interface="org.freedesktop.portal.Request"), "Response",
                                   "ua{sv}", (code, results)))

    def shortcut_signal(member: str) -> None:
        connection.send(new_signal(DBusAddress(PORTAL_PATH, interface=SHORTCUTS), member, "osta{sv}",
                                   (state["session"], state["shortcut"], 0, {})))

    while True:
        message = connection.receive()
        fields = message.header.fields
        if message.header.message_type != MessageType.method_call:
            continue
        member, interface = fields.get(HeaderFields.member), fields.get(HeaderFields.interface)
        if interface == SHORTCUTS and member == "CreateSession":
            (options,) = message.body
            path = request_path(message, options)
            session = f"{PORTAL_PATH}/session/{path.rsplit('/', 2)[1]}/{options['session_handle_token'][1]}"
            connection.send(new_method_return(message, "o", (path,)))
            respond(path, 0, {"session_handle": ("s", session)})
        elif interface == SHORTCUTS and member == "BindShortcuts":
            session, shortcuts, _parent, options = message.body
            path = request_path(message, options)
            connection.send(new_method_return(message, "o", (path,)))
            if refuse:
                respond(path, 1, {})
                continue
            name, props = shortcuts[0]
            state.update(session=session, shortcut=name, trigger=props["preferred_trigger"][1])
            respond(path, 0, {"shortcuts": ("a(sa{sv})", [(name, {"description": props["description"],
                                                                  "trigger_description": ("s", state["trigger"])})])})
        elif interface == "org.freedesktop.portal.Session" and member == "Close":
            state.update(session="", shortcut="", trigger="closed")
            connection.send(new_method_return(message))
        elif interface == CONTROL and member in ("Press", "Release"):
            shortcut_signal("Activated" if member == "Press" else "Deactivated")
            connection.send(new_method_return(message))
        elif interface == CONTROL and member == "Trigger":
            connection.send(new_method_return(message, "s", (state["trigger"],)))
        else:
            connection.send(new_error(message, "org.freedesktop.DBus.Error.UnknownMethod", "s",
                                      (f"No such method {interface}.{member}",)))


if __name__ == "__main__":
    main(sys.argv[1], "--refuse" in sys.argv[2:])
