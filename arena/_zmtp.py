"""The Python client's connection to the referee: a ZeroMQ DEALER written in Python over one
stream socket, speaking ZMTP 3.0 with the NULL mechanism (rfc.zeromq.org/spec/23), which is
what the referee's ROUTER (libzmq, through pyzmq) speaks to any DEALER.

Why not pyzmq in a bot (it stays the referee's, and `arena.client.connect` still returns a
pyzmq socket for bots that want one):
- start-up: a Python bot starts once per worker that plays it (a 14-worker run of 8 bots
  starts ~80), and importing pyzmq and making its context was ~15 ms of the ~40 ms of CPU
  from the interpreter's start to `import arena.client` done (pinned, medians of 30);
- the round trip: a libzmq socket hands every message to its I/O thread and back through a
  mailbox, so each request woke two threads of the bot instead of one. Against the same
  pyzmq ROUTER, 1.4 KB requests, medians of 20,000: 86 -> 44 us with the bot on another
  core, 23 -> 18 us on the same core.

The standard library's `socket` module is not imported either: it turns `_socket`'s
constants into enums at import (~5 ms of CPU a start); `_socket` alone is what is used.

What it does not do, because the referee never asks for it: CURVE or PLAIN security,
heartbeats (ZMTP 3.1's PING, which a 3.0 peer is never sent), reconnecting once connected (a
bot's session is its connection: the referee knows a bot by the connection it said hello
on), transports other than `ipc://` and `tcp://` (`open_link` gives those to pyzmq).
"""

from __future__ import annotations

import _socket
import sys
import time

TYPE_CHECKING = False  # not typing's: the stdio bridge imports this module without typing
if TYPE_CHECKING:
    from typing import Any

SIGNATURE = b"\xff" + bytes(8) + b"\x7f"
GREETING = SIGNATURE + b"\x03\x00" + b"NULL".ljust(20, b"\x00") + b"\x00" + bytes(31)
"""ZMTP 3.0's 64-byte greeting: signature, version 3.0, mechanism NULL, as-server 0, filler."""

MORE, LONG, COMMAND = 0x01, 0x02, 0x04
"""A frame's flag bits."""
CHUNK = 1 << 16
NO_SIGNAL = getattr(_socket, "MSG_NOSIGNAL", 0)
"""Send flag: a peer that has hung up gives EPIPE, never SIGPIPE, whatever this process does
with that signal (a bot may well restore its default action)."""
RETRY_S = 0.05
"""How often a bot started before its referee binds the endpoint tries again to connect."""


class LinkClosed(ConnectionError):
    """The referee closed the connection, or refused the handshake at the ZMTP level."""


def command(name: bytes, properties: dict[bytes, bytes]) -> bytes:
    """Return a command frame: its name, then each property as name and value."""
    body = bytearray([len(name)]) + name
    for key, value in properties.items():
        body += bytes([len(key)]) + key + len(value).to_bytes(4, "big") + value
    return frame_header(len(body), COMMAND) + body


def frame_header(size: int, flags: int = 0) -> bytes:
    """Return the flags and size that precede a frame's body (short below 256 bytes)."""
    if size < 256:
        return bytes((flags, size))
    return bytes((flags | LONG,)) + size.to_bytes(8, "big")


def properties(body: bytes) -> dict[bytes, bytes]:
    """Return the properties of a READY command's body (after its name).

    Raises:
        LinkClosed: the body is not a well-formed READY.
    """
    props: dict[bytes, bytes] = {}
    at = 1 + body[0]
    while at < len(body):
        value = at + 1 + body[at]
        end = value + 4 + int.from_bytes(body[value:value + 4], "big")
        if end > len(body):
            raise LinkClosed(f"the referee sent a malformed ZMTP READY {body[:40]!r}")
        props[body[at + 1:value]] = body[value + 4:end]
        at = end
    return props


class Dealer:
    """A connected, handshaken ZMTP 3.0 DEALER over one stream socket (blocking)."""

    def __init__(self, sock: _socket.socket) -> None:
        """Shake hands over `sock` (closed if that fails).

        Raises:
            LinkClosed: the peer closed, speaks no ZMTP 3, asks for security or is no ROUTER.
        """
        self._sock = sock
        self._buf = b""
        self._missing = CHUNK
        try:
            self._handshake()
        except BaseException:
            sock.close()
            raise

    def _handshake(self) -> None:
        unsent: OSError | None = None
        try:
            self._sock.sendall(GREETING + command(b"READY", {b"Socket-Type": b"DEALER",
                                                             b"Identity": b""}), NO_SIGNAL)
        except OSError as exc:  # a peer that hung up at once may still have said what it is
            unsent = exc
        try:
            greeting = self._exact(64)
        except LinkClosed as exc:  # libzmq hangs up on a mechanism it was not set up for
            _check_greeting(self._buf)  # names the mechanism if that much arrived
            raise LinkClosed(f"{exc} during the ZeroMQ handshake (a referee that asks for "
                             "CURVE or PLAIN security, which arena.client does not speak, "
                             "does this)") from None
        _check_greeting(greeting)
        if unsent is not None:
            raise LinkClosed(f"the referee's connection is gone ({unsent})")
        while True:
            flags, body = self._frame()
            if not flags & COMMAND or not body:
                continue
            name = body[1:1 + body[0]]
            if name == b"ERROR":  # name, then the reason as a short string
                raise LinkClosed("the referee refused the connection: "
                                 + body[7:].decode(errors="replace"))
            if name == b"READY":
                kind = properties(body).get(b"Socket-Type", b"?")
                if kind != b"ROUTER":
                    raise LinkClosed(f"the endpoint is a {kind.decode(errors='replace')} "
                                     "socket, not the referee's ROUTER")
                return

    def send(self, frame: bytes) -> None:
        """Send one frame; it is in the kernel's buffer when this returns."""
        try:
            self._sock.sendall(frame_header(len(frame)) + frame, NO_SIGNAL)
        except OSError as exc:
            raise LinkClosed(f"the referee's connection is gone ({exc})") from None

    def recv(self) -> bytes:
        """Return the next message frame (the parts of a multi-part message one by one, as
        pyzmq's `recv` does); commands between them are read and ignored."""
        while True:
            flags, body = self._frame()
            if not flags & COMMAND:
                return body

    def close(self, linger: int | None = None) -> None:
        """Close the socket: what was sent is already with the kernel, which delivers it."""
        self._sock.close()

    def fileno(self) -> int:
        """The socket's descriptor, to poll beside others (see `ready`)."""
        return self._sock.fileno()

    def ready(self) -> list[bytes]:
        """Read once (for a caller whose poll said the socket is readable) and return the
        message frames complete now, perhaps none."""
        self._buf += self._read(CHUNK)
        frames = []
        while (got := self._take()) is not None:
            if not got[0] & COMMAND:
                frames.append(got[1])
        return frames

    def _frame(self) -> tuple[int, bytes]:
        while (got := self._take()) is None:
            self._buf += self._read(self._missing)
        return got

    def _take(self) -> tuple[int, bytes] | None:
        """The next frame if the buffer holds all of it (else `_missing` says how much more
        to read: a long frame is then read at once, not in chunks)."""
        buf = self._buf
        have = len(buf)
        self._missing = CHUNK
        if have < 2 or (buf[0] & LONG and have < 9):
            return None
        start, end = (9, 9 + int.from_bytes(buf[1:9], "big")) if buf[0] & LONG \
            else (2, 2 + buf[1])
        if have < end:
            self._missing = end - have
            return None
        self._buf = buf[end:]
        return buf[0], buf[start:end]

    def _exact(self, size: int) -> bytes:
        while len(self._buf) < size:
            self._buf += self._read(CHUNK)
        out, self._buf = self._buf[:size], self._buf[size:]
        return out

    def _read(self, size: int) -> bytes:
        try:
            chunk = self._sock.recv(max(size, CHUNK))
        except OSError as exc:
            raise LinkClosed(f"the referee's connection is gone ({exc})") from None
        if not chunk:
            raise LinkClosed("the referee closed the connection")
        return chunk


def _check_greeting(greeting: bytes) -> None:
    """Refuse a peer's greeting (or as much of it as came) that is not ZMTP 3 with NULL
    security.

    Raises:
        LinkClosed: with what is wrong.
    """
    if len(greeting) >= 11 and (greeting[0] != 0xFF or greeting[9] != 0x7F
                                or greeting[10] < 3):
        raise LinkClosed(f"the peer does not speak ZMTP 3: {greeting[:12]!r}")
    mechanism = greeting[12:32].rstrip(b"\x00")
    if len(greeting) >= 32 and mechanism != b"NULL":
        raise LinkClosed(f"the referee asks for {mechanism.decode(errors='replace')} "
                         "security, which arena.client does not speak")


def address(endpoint: str) -> str | tuple[str, int] | None:
    """Return the path of an `ipc://` endpoint or the (host, port) of a `tcp://host:port`
    one; None for any other kind (left to pyzmq)."""
    scheme, sep, rest = endpoint.partition("://")
    if scheme == "ipc" and sep and rest:
        return "\0" + rest[1:] if rest.startswith("@") else rest  # @: the abstract namespace
    host, colon, port = rest.rpartition(":")
    if scheme != "tcp" or not sep or not colon or not port.isdigit() or not host \
            or ";" in host or host == "*":
        return None
    return host.strip("[]"), int(port)


def dial(endpoint: str) -> Dealer | None:
    """Connect to the referee at `endpoint` and shake hands; None when the endpoint is not
    one this module speaks.

    A referee binds a bot's endpoint before starting it; a bot started by hand before its
    referee waits for the endpoint to appear, as a ZeroMQ DEALER would.

    Raises:
        LinkClosed: the connection failed during the handshake.
        OSError: the endpoint cannot be connected to (not for want of a listener yet).
    """
    where = address(endpoint)
    if where is None:
        return None
    said = False
    while True:
        sock = _connect(where)
        if sock is not None:
            return Dealer(sock)
        if not said:
            print(f"waiting for the referee at {endpoint}", file=sys.stderr, flush=True)
            said = True
        time.sleep(RETRY_S)


def _connect(where: str | tuple[str, int]) -> _socket.socket | None:
    """A connected socket, or None while nobody listens at `where` yet."""
    if isinstance(where, str):
        candidates: list[tuple[int, str | tuple[Any, ...]]] = [(_socket.AF_UNIX, where)]
    else:
        candidates = [(info[0], info[4]) for info in
                      _socket.getaddrinfo(where[0], where[1], 0, _socket.SOCK_STREAM)]
    for family, target in candidates:
        sock = _socket.socket(family, _socket.SOCK_STREAM)
        try:
            sock.connect(target)
        except (ConnectionRefusedError, FileNotFoundError):
            sock.close()
            continue
        except BaseException:
            sock.close()
            raise
        if family != _socket.AF_UNIX:
            sock.setsockopt(_socket.IPPROTO_TCP, _socket.TCP_NODELAY, 1)
        return sock
    return None
