"""How frames reach bots: the `Transport` protocol, the ZeroMQ ROUTER, and a scripted fake.

The referee binds one ROUTER; each bot connects a DEALER and is known by its routing id.
Every receive is bounded by a timeout. `ScriptedTransport` plays scripted bots on a fake
clock, so referee logic is tested without processes or sleeping.
"""

from __future__ import annotations

import contextlib
import heapq
import itertools
import logging
import math
import os
import resource
import shutil
import tempfile
from collections.abc import Callable, Collection
from typing import NamedTuple, Protocol, cast

import zmq

from arena.protocol.codec import decode_referee
from arena.protocol.messages import MAX_MESSAGE_BYTES, RefereeMessage
from arena.referee.gate import OPEN_AT_ONCE, Gate

log = logging.getLogger("arena.referee.wire")

HARD_LIMIT_FACTOR = 4
"""libzmq drops a connection whose frame exceeds this many times the protocol limit; frames
between the two limits arrive and are refused as `oversize` faults, which the bot survives."""
RCV_HWM = 32
"""Messages queued per connection before ZeroMQ stops reading that bot's socket: a flooding
bot then blocks on its own sends, and draining its backlog stays cheap. Each may be up to
`HARD_LIMIT_FACTOR` x 1 MiB, so this bounds what one connection can make the referee hold
(128 MiB; at 256 a bot's three connections held 2 GiB)."""

# Flags and options as plain ints, computed once: pyzmq's constants are IntEnums, and an
# enum `|` (or its conversion at each call) costs ~1-2 us per message on the round trip.
_NOBLOCK = int(zmq.NOBLOCK)
_MORE_NOBLOCK = int(zmq.SNDMORE | zmq.NOBLOCK)
_POLLIN = int(zmq.POLLIN)

_send_part = cast(Callable[["zmq.Socket[bytes]", bytes, int], None], zmq.backend.Socket.send)
"""pyzmq's compiled send. `zmq.Socket.send` is a Python method around it that only adds
draft sockets' `routing_id` and `group`; calling the compiled one for the two parts of each
request leaves that Python call off the bot's clock: 1.1 us less per request with cold caches
(the two sends after 150 us of engine work, pinned, 3 runs: 13.5 -> 12.4 us)."""


def raise_open_files() -> None:
    """Raise this process's soft limit of open descriptors to its hard one (1,024 is a
    common soft default, against 524,288 or more hard). Why: libzmq aborts the referee when
    an ipc accept finds no descriptor free; the gate closes an endpoint past a few
    connections at once (`arena.referee.gate`), and this is the margin its thread has to
    see them while a bot connects as fast as it can."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


class Transport(Protocol):
    """Frames to and from bots, addressed by peer id."""

    def send(self, peer: bytes, frame: bytes) -> bool:
        """Send one frame; return False when the peer is gone."""
        ...

    def recv(self, timeout_ms: float,
             peer: bytes | None = None) -> tuple[bytes, list[bytes]] | None:
        """Return the next (peer, frames) within `timeout_ms`, or None.

        With `peer`, wait on that peer's channel only: messages of other channels stay
        queued, so that one bot's messages never cost another bot's clock.
        """
        ...

    def drain(self, peer: bytes) -> int:
        """Drop what is queued on `peer`'s channel; return how many messages `peer` sent
        (another connection's are dropped too, but not counted: not its flood)."""
        ...

    def stranger(self, peer: bytes) -> bytes | None:
        """Another connection whose messages a `drain` of `peer`'s channel dropped since
        the last call (its peer id), or None."""
        ...

    def refused(self, peer: bytes) -> int:
        """How many connections to `peer`'s channel were refused since the last call (over
        the number its bot may hold)."""
        ...

    def close(self) -> None:
        """Release the transport (and remove its ipc directory)."""
        ...


def _preview(frame: bytes) -> str:
    return frame[:300].decode("utf-8", "replace") + ("..." if len(frame) > 300 else "")


class Channel(NamedTuple):
    """One bot's own endpoint: a ROUTER socket that only this bot is given."""

    number: int
    endpoint: str
    directory: str | None
    """The private directory holding the ipc socket (mounted into that bot's sandbox alone);
    None over tcp."""


def _domain(channel: int) -> bytes:
    """A channel's ZAP domain: how the gate tells the channels apart."""
    return b"c%d" % channel


def peer_channel(peer: bytes) -> int:
    """Return the channel a peer id belongs to (its first two bytes)."""
    return int.from_bytes(peer[:2], "big")


class ZmqTransport:
    """ROUTER sockets, one per channel: ipc in a private temporary directory, or tcp.

    Channel 0 is opened at once (`endpoint`); `open_channel` gives each bot an endpoint of
    its own, so that a bot can only reach the socket it was given, a hello on the wrong
    endpoint is visible, and waiting for one bot never reads another bot's messages. A peer
    id is the channel number (2 bytes) followed by ZeroMQ's routing id.
    """

    def __init__(self, endpoint: str | None = None,
                 max_message_bytes: int = MAX_MESSAGE_BYTES) -> None:
        self._base = endpoint
        self._dir = None if endpoint else tempfile.mkdtemp(prefix="arena-ipc-")
        self._context = zmq.Context()
        self._max = max_message_bytes * HARD_LIMIT_FACTOR
        self._sockets: list[zmq.Socket[bytes]] = []
        self._timeouts: list[int] = []  # each socket's RCVTIMEO, set only when it changes
        self._strangers: dict[int, bytes] = {}  # channel -> another connection, until asked
        self._served = -1  # the channel `recv_from` read last
        self._poller = zmq.Poller()
        if self._dir is not None:
            raise_open_files()
        self._gate = Gate(self._context) if self._dir is not None else None
        try:
            self.first: Channel = self.open_channel()
            """Channel 0, for a referee with one bot (check-bot) or bots started by hand."""
            self.endpoint: str = self.first.endpoint
            """Channel 0's endpoint (a tcp port 0 is resolved to the bound port)."""
        except zmq.ZMQError:
            self.close()
            raise

    @property
    def directory(self) -> str | None:
        """The private directory of the ipc sockets (None over tcp): hidden from every
        sandbox that could otherwise see it (a bot's own directory holding the referee's
        TMPDIR), since its sockets are the other bots' endpoints."""
        return self._dir

    def open_channel(self) -> Channel:
        """Bind one more ROUTER socket and return its endpoint."""
        index = len(self._sockets)
        directory = None
        if self._dir is not None:
            directory = os.path.join(self._dir, f"c{index}")
            os.mkdir(directory, 0o755)
        socket = self._context.socket(zmq.ROUTER)
        socket.setsockopt(zmq.LINGER, 0)
        socket.setsockopt(zmq.ROUTER_MANDATORY, 1)
        socket.setsockopt(zmq.MAXMSGSIZE, self._max)
        socket.setsockopt(zmq.RCVHWM, RCV_HWM)
        if self._gate is not None:  # each connection asks the gate first (`admit`)
            socket.setsockopt(zmq.ZAP_DOMAIN, _domain(index))
            # connections waiting to be accepted, beyond those the gate counts
            socket.setsockopt(zmq.BACKLOG, OPEN_AT_ONCE)
        socket.bind(f"ipc://{directory}/referee.sock" if directory else str(self._base))
        self._sockets.append(socket)
        self._timeouts.append(-1)
        self._poller.register(socket, zmq.POLLIN)
        endpoint = socket.getsockopt_string(zmq.LAST_ENDPOINT)
        if self._gate is not None and directory is not None:
            self._gate.watch(socket, _domain(index), f"{directory}/referee.sock")
        return Channel(index, endpoint, directory)

    def send(self, peer: bytes, frame: bytes) -> bool:
        """Send one frame without blocking; False when the peer is unknown or saturated."""
        if log.isEnabledFor(logging.DEBUG):
            log.debug("-> %s %s", peer.hex(), _preview(frame))
        try:  # two sends, not send_multipart: it costs a Python loop per message
            socket = self._sockets[int.from_bytes(peer[:2], "big")]
            _send_part(socket, peer[2:], _MORE_NOBLOCK)
            _send_part(socket, frame, _NOBLOCK)
        except (zmq.ZMQError, IndexError) as exc:  # EHOSTUNREACH (gone) or EAGAIN
            log.info("cannot send to %s: %s", peer.hex(), exc)
            return False
        return True

    def recv(self, timeout_ms: float,
             peer: bytes | None = None) -> tuple[bytes, list[bytes]] | None:
        """Wait at most `timeout_ms` for one message: on `peer`'s channel only, or on any."""
        if peer is None and len(self._sockets) > 1:
            ready = dict(self._poller.poll(max(0, math.ceil(timeout_ms))))
            index = next((i for i, s in enumerate(self._sockets) if s in ready), None)
            return None if index is None else self._take(index, 0)
        index = 0 if peer is None else int.from_bytes(peer[:2], "big")
        return self._take(index, max(0, math.ceil(timeout_ms)))

    def recv_from(self, channels: Collection[int],
                  timeout_ms: float) -> tuple[bytes, list[bytes]] | None:
        """Wait at most `timeout_ms` for one message on any of `channels` (the others'
        messages stay queued for their own bots' turns)."""
        poller = zmq.Poller()
        for number in channels:
            poller.register(self._sockets[number], zmq.POLLIN)
        ready = dict(poller.poll(max(0, math.ceil(timeout_ms))))
        live = [n for n in channels if self._sockets[n] in ready]
        if not live:
            return None
        # in turn: the first ready channel after the one read last. Always the first of the
        # list, a bot that kept its channel full (of junk before its hello) left the hellos
        # of the channels after it unread until their bots' startup_ms ran out
        later = [n for n in live if n > self._served]
        self._served = min(later) if later else min(live)
        return self._take(self._served, 0)

    def drain(self, peer: bytes, limit: int = 10_000) -> int:
        """Drop the messages queued on `peer`'s channel (at most `limit`); return how many
        came from `peer` itself. Over tcp any local process can connect to a bot's endpoint:
        its messages must not count as that bot's flood."""
        channel = int.from_bytes(peer[:2], "big")
        socket = self._sockets[channel]
        # Runs before every request and almost always finds nothing: asking ZMQ_EVENTS first
        # avoids pyzmq building and raising a zmq.Again (~5 us against ~17 us per request on
        # a loaded 2-core machine, referee CPU that no round trip needs).
        if not cast(int, socket.getsockopt(zmq.EVENTS)) & _POLLIN:
            return 0
        dropped = own = 0
        routing = peer[2:]
        try:  # NOBLOCK rather than RCVTIMEO 0: no socket option churn on the hot path
            while dropped < limit:
                parts = socket.recv_multipart(_NOBLOCK, copy=False)
                dropped += 1
                sender = parts[0].bytes
                if sender == routing:
                    own += 1
                else:
                    self._strangers[channel] = peer[:2] + sender
        except zmq.Again:
            pass
        return own

    def stranger(self, peer: bytes) -> bytes | None:
        """Another connection whose messages a `drain` of `peer`'s channel dropped since the
        last call (then forgotten); almost always none, found without a lookup."""
        if not self._strangers:
            return None
        return self._strangers.pop(int.from_bytes(peer[:2], "big"), None)

    def admit(self, channel: int, connections: int | None) -> None:
        """From now on `channel` accepts `connections` more (None: any number) and refuses
        the others' handshakes, before anything they send is queued (`arena.referee.gate`);
        its refusals so far are forgotten. Over tcp every channel accepts any number."""
        if self._gate is not None:
            self._gate.limit(_domain(channel), connections)
            if self._gate.sealed(_domain(channel)):  # closed to its last process's flood
                self._rebind(channel)

    def _rebind(self, channel: int) -> None:
        socket = self._sockets[channel]
        endpoint = socket.getsockopt_string(zmq.LAST_ENDPOINT)
        with contextlib.suppress(zmq.ZMQError):  # its file is gone: libzmq may say so
            socket.unbind(endpoint)
        socket.bind(endpoint)
        assert self._gate is not None
        self._gate.reopen(_domain(channel))

    def refused(self, peer: bytes) -> int:
        """How many connections `peer`'s channel refused since the last call."""
        return self.refused_on(peer_channel(peer))

    def refused_on(self, channel: int) -> int:
        """How many connections `channel` refused since the last call."""
        if self._gate is None or not self._gate.any_refused():  # the common case, at once
            return 0
        return self._gate.refused(_domain(channel))

    def clear(self, channel: int) -> int:
        """Drop everything queued on `channel` (its bot stopped, or about to start afresh);
        return how many messages. Why: frames a bot's connections queued stay in memory
        after they close, until the channel is read (up to 32 of 4 MiB a connection)."""
        socket, dropped = self._sockets[channel], 0
        with contextlib.suppress(zmq.Again):
            while True:
                socket.recv_multipart(_NOBLOCK, copy=False)
                dropped += 1
        self._strangers.pop(channel, None)
        return dropped

    def _take(self, index: int, timeout: int) -> tuple[bytes, list[bytes]] | None:
        # A blocking receive bounded by RCVTIMEO, not poll + recv_multipart: fewer calls on
        # the round trip's critical path (the referee wakes with cold caches, each counts).
        socket = self._sockets[index]
        if timeout != self._timeouts[index]:
            socket.setsockopt(zmq.RCVTIMEO, timeout)
            self._timeouts[index] = timeout
        try:
            routing = socket.recv()
        except zmq.Again:
            return None
        # A message's parts arrive together. Frame.more, not the RCVMORE option: reading a
        # socket option costs microseconds in pyzmq.
        part = socket.recv(_NOBLOCK, copy=False)
        frames = [part.bytes]
        while part.more:
            part = socket.recv(_NOBLOCK, copy=False)
            frames.append(part.bytes)
        peer = index.to_bytes(2, "big") + routing
        if log.isEnabledFor(logging.DEBUG):
            log.debug("<- %s %s", peer.hex(), " | ".join(_preview(f) for f in frames))
        return peer, frames

    def close(self) -> None:
        """Close the sockets and context and remove the ipc directory."""
        for socket in self._sockets:
            socket.close(linger=0)
        self._sockets = []
        if self._gate is not None:
            self._gate.close()
        self._context.term()
        if self._gate is not None:
            self._gate.join()
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None


ScriptedReply = tuple[float, bytes]
"""(milliseconds after the message that triggered it, frame)."""
Script = Callable[[RefereeMessage], list[ScriptedReply]]


class ScriptedTransport:
    """Bots as functions of the messages they receive, on a fake clock (`clock()`, seconds).

    Waiting for nothing advances the clock by the timeout; a reply arrives `delay` ms after
    the message that triggered it.
    """

    def __init__(self) -> None:
        self.now = 0.0
        self.sent: list[tuple[bytes, RefereeMessage]] = []
        self._scripts: dict[bytes, Script] = {}
        self._queue: list[tuple[float, int, bytes, list[bytes]]] = []
        self._seq = itertools.count()

    def clock(self) -> float:
        """The fake monotonic clock."""
        return self.now

    def add(self, peer: bytes, script: Script) -> None:
        """Connect a scripted bot under `peer`."""
        self._scripts[peer] = script

    def disconnect(self, peer: bytes) -> None:
        """Make `peer` vanish (sends to it fail from now on)."""
        self._scripts.pop(peer, None)

    def inject(self, peer: bytes, frames: list[bytes], delay_ms: float = 0.0) -> None:
        """Queue frames from `peer` (known or not) `delay_ms` from now."""
        at = self.now + delay_ms / 1000
        heapq.heappush(self._queue, (at, next(self._seq), peer, frames))

    def send(self, peer: bytes, frame: bytes) -> bool:
        """Record the message and queue the script's replies."""
        script = self._scripts.get(peer)
        if script is None:
            return False
        message = decode_referee(frame)
        self.sent.append((peer, message))
        for delay, reply in script(message):
            self.inject(peer, [reply], delay)
        return True

    def recv(self, timeout_ms: float,
             peer: bytes | None = None) -> tuple[bytes, list[bytes]] | None:
        """Pop the next frame due within the timeout (from `peer` only, when given),
        advancing the fake clock."""
        limit = self.now + timeout_ms / 1000
        due = [item for item in self._queue if peer is None or item[2] == peer]
        if due:
            first = min(due)
            if first[0] <= limit:
                self._queue.remove(first)
                heapq.heapify(self._queue)
                self.now = max(self.now, first[0])
                return first[2], first[3]
        self.now = limit
        return None

    def stranger(self, peer: bytes) -> bytes | None:
        """None: scripted peers have no channels to share."""
        return None

    def refused(self, peer: bytes) -> int:
        """0: scripted peers connect once."""
        return 0

    def drain(self, peer: bytes) -> int:
        """Drop the frames of `peer` that are already due; return how many."""
        keep = [item for item in self._queue if item[2] != peer or item[0] > self.now]
        dropped = len(self._queue) - len(keep)
        self._queue = keep
        heapq.heapify(self._queue)
        return dropped

    def close(self) -> None:
        """Nothing to release."""
