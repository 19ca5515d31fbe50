"""Admission to the bots' ipc endpoints: how many connections each may accept and hold.

Why: every connection to a ROUTER may queue up to 32 frames of up to 4 MiB in the referee
until its endpoint is next read, closed connections included. A sandboxed bot is the only
process that can reach its own endpoint, yet a red-team bot made a worker hold 2 GB by
opening connections while another game played; seeing them at its next request was too
late. ZeroMQ asks an authentication handler (ZAP, https://rfc.zeromq.org/spec/27/) about
each connection to a socket with a ZAP domain, during the handshake, before any message of
that connection is read: the `Gate` answers, on a thread of its own, and refuses each
connection over its channel's allowance, so nothing a refused connection sends is queued.

A connection that never sends ZeroMQ's greeting is never asked about, yet holds one of the
referee's file descriptors until the handshake times out (30 s); libzmq aborts the whole
process when an ipc accept finds none left (`ipc_listener.cpp`, EMFILE), and a bot of 128
processes of 1024 descriptors each outnumbers any referee. So the gate also watches each
endpoint's accepted connections (ZeroMQ's socket monitor): past `OPEN_AT_ONCE` open at
once, it unlinks the endpoint's socket file, and no further connection can be made to it
(the bot's mount of the directory is read-only: no link to the socket survives it). The
referee binds it afresh for the bot's next process (`reopen`).

Refusals are counted per channel for the referee, which holds them against the bot at its
next request (`ZmqTransport.refused`).
"""

from __future__ import annotations

import contextlib
import itertools
import os
import threading

import zmq
from zmq.utils.monitor import parse_monitor_message

ZAP_ENDPOINT = "inproc://zeromq.zap.01"
"""Where libzmq sends the requests, in each context (RFC 27)."""

OPEN_AT_ONCE = 8
"""Connections an endpoint may hold at once before it is closed to new ones: its process's
one, one of a process just stopped whose close is still on its way, and room to spare."""

_VERSION = b"1.0"
_WATCHED = int(zmq.EVENT_ACCEPTED | zmq.EVENT_DISCONNECTED)
_ACCEPTED = int(zmq.EVENT_ACCEPTED)
_numbers = itertools.count()


class Gate:
    """A ZAP handler in `context`: each domain (a channel) accepts any number of connections
    until `limit` says otherwise. Ends when the context is terminated, after `close`."""

    def __init__(self, context: zmq.Context[zmq.Socket[bytes]]) -> None:
        self._context = context
        self._lock = threading.Lock()
        self._left: dict[bytes, int] = {}
        """domain -> connections it may still accept (absent: any number)."""
        self._refused: dict[bytes, int] = {}
        self._open: dict[bytes, set[int]] = {}
        """domain -> the descriptors of its connections now open (the monitor's count)."""
        self._paths: dict[bytes, str] = {}
        self._sealed: set[bytes] = set()
        self._prefix = f"inproc://arena-gate-{os.getpid()}-{next(_numbers)}"
        self._control = context.socket(zmq.PAIR)  # the referee's thread's end
        self._control.setsockopt(zmq.LINGER, 0)
        self._control.bind(f"{self._prefix}-control")
        self._failure: BaseException | None = None
        bound = threading.Event()
        self._thread = threading.Thread(target=self._serve, args=(bound,), name="arena-gate",
                                        daemon=True)
        self._thread.start()
        bound.wait()  # a connection before the handler is bound would be let in unasked
        if self._failure is not None:
            self._control.close(linger=0)
            raise self._failure

    def watch(self, socket: zmq.Socket[bytes], domain: bytes, path: str) -> None:
        """Count `socket`'s open connections from now on; past `OPEN_AT_ONCE`, unlink `path`
        (its ipc socket file). Returns once the gate listens: a bot started afterwards
        cannot connect unseen."""
        endpoint = f"{self._prefix}-{domain.decode()}"
        socket.monitor(endpoint, _WATCHED)
        with self._lock:
            self._paths[domain] = path
        self._control.send_multipart([domain, endpoint.encode()])
        while not self._control.poll(1000):  # a polling step: the gate's answer decides
            if not self._thread.is_alive():
                raise RuntimeError(f"the connection gate stopped: {self._failure!r}")
        self._control.recv()

    def limit(self, domain: bytes, connections: int | None) -> None:
        """From now on `domain` accepts `connections` more (None: any number), and its
        refusals so far are forgotten (a new process of the bot starts afresh)."""
        with self._lock:
            self._refused.pop(domain, None)
            if connections is None:
                self._left.pop(domain, None)
            else:
                self._left[domain] = connections

    def sealed(self, domain: bytes) -> bool:
        """Whether `domain`'s socket file was unlinked (its connections too many at once)."""
        with self._lock:
            return domain in self._sealed

    def reopen(self, domain: bytes) -> None:
        """`domain`'s socket file is bound again: count afresh. Connections of the stopped
        process that are still open stop counting; their closes are ignored."""
        with self._lock:
            self._sealed.discard(domain)
            self._open[domain] = set()

    def any_refused(self) -> bool:
        """Whether any domain refused a connection not yet asked about (read without the
        lock: asked before each request, and almost always false)."""
        return bool(self._refused)

    def refused(self, domain: bytes) -> int:
        """How many connections `domain` refused since the last call."""
        with self._lock:
            return self._refused.pop(domain, 0)

    def close(self) -> None:
        """Close the referee's end of the control channel (before the context ends)."""
        self._control.close(linger=0)

    def join(self) -> None:
        """Wait for the handler's thread (after the context is terminated)."""
        self._thread.join()

    def _serve(self, bound: threading.Event) -> None:
        # the sockets live and die on this thread: ZeroMQ sockets are not thread-safe
        sockets: list[zmq.Socket[bytes]] = []
        try:
            zap = self._context.socket(zmq.REP)
            sockets.append(zap)
            zap.setsockopt(zmq.LINGER, 0)
            zap.bind(ZAP_ENDPOINT)
            control = self._context.socket(zmq.PAIR)
            sockets.append(control)
            control.setsockopt(zmq.LINGER, 0)
            control.connect(f"{self._prefix}-control")
        except zmq.ZMQError as exc:
            self._failure = exc
            bound.set()
            for socket in sockets:
                socket.close(linger=0)
            return
        bound.set()
        try:
            self._loop(zap, control, sockets)
        except zmq.ContextTerminated:
            pass
        except Exception as exc:  # said by `watch`: a referee must not wait on a dead gate
            self._failure = exc
            raise
        finally:
            for socket in sockets:
                socket.close(linger=0)

    def _loop(self, zap: zmq.Socket[bytes], control: zmq.Socket[bytes],
              sockets: list[zmq.Socket[bytes]]) -> None:
        poller = zmq.Poller()
        poller.register(zap, zmq.POLLIN)
        poller.register(control, zmq.POLLIN)
        monitors: dict[zmq.Socket[bytes], bytes] = {}
        while True:
            for socket, _ in poller.poll():
                if socket is zap:
                    zap.send_multipart(self._answer(zap.recv_multipart()))
                elif socket is control:
                    domain, endpoint = control.recv_multipart()
                    monitor = self._context.socket(zmq.PAIR)
                    sockets.append(monitor)
                    monitor.setsockopt(zmq.LINGER, 0)
                    # no high-water mark: a dropped event would miscount the connections
                    monitor.setsockopt(zmq.RCVHWM, 0)
                    monitor.connect(endpoint.decode())
                    monitors[monitor] = domain
                    poller.register(monitor, zmq.POLLIN)
                    control.send(b"")
                else:
                    self._event(monitors[socket], socket.recv_multipart())

    def _event(self, domain: bytes, frames: list[bytes]) -> None:
        """One monitor event: a connection accepted or closed (its descriptor)."""
        event = parse_monitor_message(frames)
        descriptor = int(event["value"])
        with self._lock:
            open_now = self._open.setdefault(domain, set())
            if event["event"] != _ACCEPTED:
                open_now.discard(descriptor)
                return
            open_now.add(descriptor)
            if len(open_now) <= OPEN_AT_ONCE:
                return
            self._refused[domain] = self._refused.get(domain, 0) + 1
            if domain in self._sealed:
                return
            self._sealed.add(domain)
            path = self._paths.get(domain)
        if path is not None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)

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
