"""How frames reach bots: the `Transport` protocol, the ZeroMQ ROUTER, and a scripted fake.

The referee binds one ROUTER; each bot connects a DEALER and is known by its routing id.
Every receive is bounded by a timeout. `ScriptedTransport` plays scripted bots on a fake
clock, so referee logic is tested without processes or sleeping.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import math
import shutil
import tempfile
from collections.abc import Callable
from typing import Protocol

import zmq

from arena.protocol.codec import decode_referee
from arena.protocol.messages import MAX_MESSAGE_BYTES, RefereeMessage

log = logging.getLogger("arena.referee.wire")

HARD_LIMIT_FACTOR = 4
"""libzmq drops a connection whose frame exceeds this many times the protocol limit; frames
between the two limits arrive and are refused as `oversize` faults, which the bot survives."""


class Transport(Protocol):
    """Frames to and from bots, addressed by peer id."""

    def send(self, peer: bytes, frame: bytes) -> bool:
        """Send one frame; return False when the peer is gone."""
        ...

    def recv(self, timeout_ms: float) -> tuple[bytes, list[bytes]] | None:
        """Return the next (peer, frames) within `timeout_ms`, or None."""
        ...

    def close(self) -> None:
        """Release the transport (and remove its ipc directory)."""
        ...


def _preview(frame: bytes) -> str:
    return frame[:300].decode("utf-8", "replace") + ("..." if len(frame) > 300 else "")


class ZmqTransport:
    """A ROUTER socket bound to `endpoint`, or to ipc in a private temporary directory."""

    def __init__(self, endpoint: str | None = None,
                 max_message_bytes: int = MAX_MESSAGE_BYTES) -> None:
        self._dir = None if endpoint else tempfile.mkdtemp(prefix="arena-ipc-")
        self._context = zmq.Context()
        self._socket = self._context.socket(zmq.ROUTER)
        self._socket.setsockopt(zmq.LINGER, 0)
        self._socket.setsockopt(zmq.ROUTER_MANDATORY, 1)
        self._socket.setsockopt(zmq.MAXMSGSIZE, max_message_bytes * HARD_LIMIT_FACTOR)
        try:
            self._socket.bind(endpoint or f"ipc://{self._dir}/referee.sock")
        except zmq.ZMQError:
            self.close()
            raise
        self._timeout = -1  # the socket's RCVTIMEO, set only when a wait needs another one
        self.endpoint: str = self._socket.getsockopt_string(zmq.LAST_ENDPOINT)
        """Where bots connect (a tcp port 0 is resolved to the bound port)."""

    def send(self, peer: bytes, frame: bytes) -> bool:
        """Send one frame without blocking; False when the peer is unknown or saturated."""
        if log.isEnabledFor(logging.DEBUG):
            log.debug("-> %s %s", peer.hex(), _preview(frame))
        try:  # two sends, not send_multipart: it costs a Python loop per message
            self._socket.send(peer, zmq.SNDMORE | zmq.NOBLOCK)
            self._socket.send(frame, zmq.NOBLOCK)
        except zmq.ZMQError as exc:  # EHOSTUNREACH (gone) or EAGAIN (not reading)
            log.info("cannot send to %s: %s", peer.hex(), exc)
            return False
        return True

    def recv(self, timeout_ms: float) -> tuple[bytes, list[bytes]] | None:
        """Wait at most `timeout_ms` for one message."""
        # A blocking receive bounded by RCVTIMEO, not poll + recv_multipart: fewer calls on
        # the round trip's critical path (the referee wakes with cold caches, each counts).
        timeout = max(0, math.ceil(timeout_ms))
        socket = self._socket
        if timeout != self._timeout:
            socket.setsockopt(zmq.RCVTIMEO, timeout)
            self._timeout = timeout
        try:
            peer = socket.recv()
        except zmq.Again:
            return None
        # A message's parts arrive together. Frame.more, not the RCVMORE option: reading a
        # socket option costs microseconds in pyzmq.
        part = socket.recv(zmq.NOBLOCK, copy=False)
        frames = [part.bytes]
        while part.more:
            part = socket.recv(zmq.NOBLOCK, copy=False)
            frames.append(part.bytes)
        if log.isEnabledFor(logging.DEBUG):
            log.debug("<- %s %s", peer.hex(), " | ".join(_preview(f) for f in frames))
        return peer, frames

    def close(self) -> None:
        """Close the socket and context and remove the ipc directory."""
        self._socket.close(linger=0)
        self._context.term()
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

    def recv(self, timeout_ms: float) -> tuple[bytes, list[bytes]] | None:
        """Pop the next frame due within the timeout, advancing the fake clock."""
        limit = self.now + timeout_ms / 1000
        if self._queue and self._queue[0][0] <= limit:
            at, _, peer, frames = heapq.heappop(self._queue)
            self.now = max(self.now, at)
            return peer, frames
        self.now = limit
        return None

    def close(self) -> None:
        """Nothing to release."""
