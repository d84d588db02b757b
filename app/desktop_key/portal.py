"""The talk key on Wayland: the desktop portal's GlobalShortcuts interface, over the session bus.

The desktop, not Parley, owns the key: Parley opens a session, asks for a shortcut with the chord as
its preferred trigger (the desktop may show the person a question and may choose another key),
and is told when it is pressed (``Activated``) and released (``Deactivated``). Each portal call
answers through a ``Response`` signal on a request object, whose path follows from the token Parley
sends (so it is followed before the call is sent; the reply names it too, and wins where it differs).
Any program on the bus can send signals, so tokens are random and only signals sent by the
connection that answered Parley's calls (the portal's unique name) are heard.

D-Bus goes through jeepney (pure Python), not QtDBus: PySide6 cannot marshal BindShortcuts'
``a(sa{sv})`` argument (no struct type can be registered from Python). The connection's socket is
read by a ``QSocketNotifier`` on the GUI thread; nothing here blocks on the portal.
"""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import Callable

from PySide6.QtCore import QT_TRANSLATE_NOOP, QObject

from app.desktop_key.chord import Chord
from app.desktop_key.grab import KeyGrab

PORTAL_PATH = "/org/freedesktop/portal/desktop"
PORTAL_NAME = "org.freedesktop.portal.Desktop"
SHORTCUTS = "org.freedesktop.portal.GlobalShortcuts"
REQUEST = "org.freedesktop.portal.Request"
SESSION = "org.freedesktop.portal.Session"
SHORTCUT_ID = "talk"
CANCELLED = 1  # a Response's code when the person said no
NO_PORTAL_WHY = QT_TRANSLATE_NOOP("PortalGrab", "This desktop offers programs no desktop-wide keys (its portal has "
                                  "no GlobalShortcuts interface: {detail}).")  # translated where said


def token() -> str:
    """A handle token no other program can guess (the portal allows letters, digits and '_')."""
    return f"parley_{secrets.token_hex(16)}"


class PortalGrab(KeyGrab):
    def __init__(self, parent: QObject | None = None, bus: str = "SESSION") -> None:
        """``bus``: "SESSION" ($DBUS_SESSION_BUS_ADDRESS) or a bus address."""
        super().__init__(parent)
        self.bus = bus
        self.connection = None
        self.portal = ""  # the portal's unique bus name, from its first reply: the only sender heard
        self.replies: dict[int, Callable] = {}  # serial of a call -> what its reply does
        self.responses: dict[str, Callable] = {}  # request path -> what its Response does
        self.session = ""

    def grab(self, chord: Chord) -> None:
        self.ungrab()
        try:
            from jeepney import MatchRule, message_bus, new_method_call
            from jeepney.io.blocking import open_dbus_connection
        except ImportError:
            self.refused.emit(self.tr("A desktop-wide key on Wayland needs the Python package jeepney, which is not "
                                      "installed."))
            return
        try:
            self.connection = open_dbus_connection(self.bus)
        except (OSError, KeyError, ValueError, RuntimeError) as e:
            self.refused.emit(self.tr("Parley could not reach the desktop's session bus for a desktop-wide key "
                                      "({problem}).").format(problem=e))
            return
        for rule in (MatchRule(type="signal", interface=REQUEST, member="Response"),
                     MatchRule(type="signal", interface=SHORTCUTS, path=PORTAL_PATH)):
            self.connection.send(new_method_call(message_bus, "AddMatch", "s", (rule.serialise(),)))
        self._watch(self.connection.sock.fileno(), self._read)
        self.chord = chord
        self._call("CreateSession", "a{sv}", ({"session_handle_token": ("s", token())},), self._session_created)

    # -- the portal's calls --------------------------------------------------------------------
    def _call(self, method: str, signature: str, body: tuple, then: Callable[[int, dict], None]) -> None:
        """Call a portal method whose answer is a Response; ``then(code, results)`` gets it."""
        from jeepney import DBusAddress, new_method_call

        handle = token()
        options = body[-1]
        options["handle_token"] = ("s", handle)
        sender = self.connection.unique_name[1:].replace(".", "_")
        request = f"{PORTAL_PATH}/request/{sender}/{handle}"
        self.responses[request] = then
        address = DBusAddress(PORTAL_PATH, bus_name=PORTAL_NAME, interface=SHORTCUTS)
        serial = next(self.connection.outgoing_serial)
        self.replies[serial] = lambda message: self._replied(message, request)
        self.connection.send(new_method_call(address, method, signature, body), serial=serial)

    def _replied(self, message, request: str) -> None:
        """A call's reply: the request's path (followed already), or the error that stops the grab."""
        from jeepney import HeaderFields, MessageType

        if message.header.message_type == MessageType.method_return:
            self.portal = self.portal or message.header.fields.get(HeaderFields.sender, "")
            named = message.body[0] if message.body else request
            if named != request and request in self.responses:
                self.responses[named] = self.responses.pop(request)
            return
        if message.header.message_type == MessageType.error:
            name = message.header.fields.get(HeaderFields.error_name, "")
            detail = message.body[0] if message.body and isinstance(message.body[0], str) else name
            self._refuse((self.tr(NO_PORTAL_WHY) if name.startswith("org.freedesktop.DBus.Error.")
                          else self.tr("The desktop refused a desktop-wide key: {detail}.")).format(detail=detail))

    def _session_created(self, code: int, results: dict) -> None:
        if code != 0 or "session_handle" not in results:
            self._refuse(self.tr("The desktop would not open a session for desktop-wide keys."))
            return
        self.session = results["session_handle"][1]
        shortcut = (SHORTCUT_ID, {"description": ("s", self.tr("Talk to Parley")),
                                  "preferred_trigger": ("s", self.chord.portal_trigger)})
        self._call("BindShortcuts", "oa(sa{sv})sa{sv}", (self.session, [shortcut], "", {}), self._bound)

    def _bound(self, code: int, results: dict) -> None:
        if code == CANCELLED:
            self._refuse(self.tr("You turned the desktop-wide key down in the desktop's question; choose it again in "
                                 "Audio → Talk key to be asked again."))
            return
        bound = [name for name, _props in results.get("shortcuts", ("", []))[1]]
        if code != 0 or SHORTCUT_ID not in bound:
            self._refuse(self.tr("The desktop did not give Parley {key} or another key.").format(key=self.chord.text))
            return
        self.grabbed.emit()

    def _refuse(self, why: str) -> None:
        self.ungrab()
        self.refused.emit(why)

    # -- reading -------------------------------------------------------------------------------
    def _read(self, *_args) -> None:
        from jeepney import HeaderFields, MessageType

        while self.connection is not None:
            try:
                message = self.connection.receive(timeout=0)
            except TimeoutError:
                return
            except (OSError, ValueError) as e:
                self._refuse(self.tr("The desktop's session bus went away ({problem}); the desktop-wide key "
                                     "stopped.").format(problem=e))
                return
            fields = message.header.fields
            if message.header.message_type in (MessageType.method_return, MessageType.error):
                reply = self.replies.pop(fields.get(HeaderFields.reply_serial), None)
                if reply is not None:
                    reply(message)
            elif message.header.message_type == MessageType.signal and self.portal \
                    and fields.get(HeaderFields.sender) == self.portal:
                self._signal(fields.get(HeaderFields.path), fields.get(HeaderFields.member), message.body)

    def _signal(self, path: str, member: str, body: tuple) -> None:
        if member == "Response":
            then = self.responses.pop(path, None)
            if then is not None:
                then(*body)
        elif member in ("Activated", "Deactivated") and body[:2] == (self.session, SHORTCUT_ID):
            self._chord_went(member == "Activated")

    def _disconnect(self) -> None:
        if self.connection is not None:
            if self.session:
                from jeepney import DBusAddress, new_method_call

                with contextlib.suppress(OSError):  # the bus is gone: so is the session
                    self.connection.send(new_method_call(DBusAddress(self.session, bus_name=PORTAL_NAME,
                                                                     interface=SESSION), "Close"))
            self.connection.close()
            self.connection = None
        self.session = self.portal = ""
        self.replies.clear()
        self.responses.clear()
