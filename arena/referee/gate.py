"""Admission to the bots' ipc endpoints: how many connections each may accept.

Why: every connection to a ROUTER may queue up to 32 frames of up to 4 MiB in the referee
until its endpoint is next read, closed connections included. A sandboxed bot is the only
process that can reach its own endpoint, yet a red-team bot made a worker hold 2 GB by
opening connections while another game played; seeing them at its next request was too
late. ZeroMQ asks an authentication handler (ZAP, https://rfc.zeromq.org/spec/27/) about
each connection to a socket with a ZAP domain, during the handshake, before any message of
that connection is read: the `Gate` answers, on a thread of its own, and refuses each
connection over its channel's allowance, so nothing a refused connection sends is queued.

Refusals are counted per channel for the referee, which holds them against the bot at its
next request (`ZmqTransport.refused`).
"""

from __future__ import annotations

import threading

import zmq

ZAP_ENDPOINT = "inproc://zeromq.zap.01"
"""Where libzmq sends the requests, in each context (RFC 27)."""

_VERSION = b"1.0"


class Gate:
    """A ZAP handler in `context`: each domain (a channel) accepts any number of connections
    until `limit` says otherwise. Ends when the context is terminated."""

    def __init__(self, context: zmq.Context[zmq.Socket[bytes]]) -> None:
        self._context = context
        self._lock = threading.Lock()
        self._left: dict[bytes, int] = {}
        """domain -> connections it may still accept (absent: any number)."""
        self._refused: dict[bytes, int] = {}
        self._failure: BaseException | None = None
        bound = threading.Event()
        self._thread = threading.Thread(target=self._serve, args=(bound,), name="arena-gate",
                                        daemon=True)
        self._thread.start()
        bound.wait()  # a connection before the handler is bound would be let in unasked
        if self._failure is not None:
            raise self._failure

    def limit(self, domain: bytes, connections: int | None) -> None:
        """From now on `domain` accepts `connections` more (None: any number), and its
        refusals so far are forgotten (a new process of the bot starts afresh)."""
        with self._lock:
            self._refused.pop(domain, None)
            if connections is None:
                self._left.pop(domain, None)
            else:
                self._left[domain] = connections

    def any_refused(self) -> bool:
        """Whether any domain refused a connection not yet asked about (read without the
        lock: asked before each request, and almost always false)."""
        return bool(self._refused)

    def refused(self, domain: bytes) -> int:
        """How many connections `domain` refused since the last call."""
        with self._lock:
            return self._refused.pop(domain, 0)

    def join(self) -> None:
        """Wait for the handler's thread (after the context is terminated)."""
        self._thread.join()

    def _serve(self, bound: threading.Event) -> None:
        # the socket lives and dies on this thread: ZeroMQ sockets are not thread-safe
        try:
            socket = self._context.socket(zmq.REP)
            socket.setsockopt(zmq.LINGER, 0)
            socket.bind(ZAP_ENDPOINT)
        except zmq.ZMQError as exc:
            self._failure = exc
            bound.set()
            return
        bound.set()
        try:
            while True:
                socket.send_multipart(self._answer(socket.recv_multipart()))
        except zmq.ContextTerminated:
            pass
        finally:
            socket.close(linger=0)

    def _answer(self, request: list[bytes]) -> list[bytes]:
        """RFC 27: version, request id, domain, address, identity, mechanism, credentials."""
        if len(request) < 3 or request[0] != _VERSION:
            return [_VERSION, request[1] if len(request) > 1 else b"", b"500",
                    b"malformed ZAP request", b"", b""]
        request_id, domain = request[1], request[2]
        with self._lock:
            left = self._left.get(domain)
            if left is None or left > 0:
                if left is not None:
                    self._left[domain] = left - 1
                return [_VERSION, request_id, b"200", b"OK", b"", b""]
            self._refused[domain] = self._refused.get(domain, 0) + 1
        return [_VERSION, request_id, b"400", b"over this endpoint's connection limit", b"",
                b""]
