"""The ZeroMQ transport on a real socket: bounded waits, whole messages, unknown peers."""

from __future__ import annotations

import socket as socket_module
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import cast

import pytest
import zmq

from arena.referee.gate import OPEN_AT_ONCE
from arena.referee.transport import ZmqTransport
from tests.conditions import wait_until


@pytest.fixture
def pair() -> Iterator[tuple[ZmqTransport, zmq.Socket[bytes]]]:
    transport = ZmqTransport()
    context = zmq.Context()
    dealer: zmq.Socket[bytes] = context.socket(zmq.DEALER)
    dealer.connect(transport.endpoint)
    yield transport, dealer
    dealer.close(linger=0)
    context.term()
    transport.close()


def test_a_wait_with_nothing_sent_ends_empty_after_its_timeout(
        pair: tuple[ZmqTransport, zmq.Socket[bytes]]) -> None:
    transport, _ = pair
    assert transport.recv(0) is None
    start = time.monotonic()
    assert transport.recv(30) is None
    assert time.monotonic() - start >= 0.025


def test_messages_arrive_whole_with_the_sender(
        pair: tuple[ZmqTransport, zmq.Socket[bytes]]) -> None:
    transport, dealer = pair
    dealer.send(b"one")
    got = transport.recv(2000)
    assert got is not None and got[1] == [b"one"]
    peer = got[0]
    dealer.send_multipart([b"a", b"b", b"c"])
    dealer.send(b"two")
    assert transport.recv(2000) == (peer, [b"a", b"b", b"c"])
    assert transport.recv(2000) == (peer, [b"two"])
    assert transport.send(peer, b"back")
    assert dealer.recv() == b"back"


def test_a_short_wait_then_a_long_one_still_receives(
        pair: tuple[ZmqTransport, zmq.Socket[bytes]]) -> None:
    transport, dealer = pair
    assert transport.recv(1) is None
    sender = threading.Timer(0.05, lambda: dealer.send(b"late"))
    sender.start()
    try:
        got = transport.recv(5000)
    finally:
        sender.join()
    assert got is not None and got[1] == [b"late"]


def connected(transport: ZmqTransport, dealer: zmq.Socket[bytes]) -> bytes:
    """The peer id of `dealer`, once its first message has come."""
    dealer.send(b"hello")
    got = transport.recv(2000)
    assert got is not None
    return got[0]


def test_drain_counts_only_the_peers_own_and_names_another_connection(
        pair: tuple[ZmqTransport, zmq.Socket[bytes]]) -> None:
    transport, dealer = pair
    peer = connected(transport, dealer)
    other: zmq.Socket[bytes] = zmq.Context.instance().socket(zmq.DEALER)
    other.setsockopt(zmq.LINGER, 0)
    other.connect(transport.endpoint)
    try:
        for _ in range(3):
            other.send(b"not yours")
        dealer.send(b"mine")
        own, strangers = [0], set()

        def all_dropped() -> bool:  # they reach the socket in their own time
            own[0] += transport.drain(peer)
            if (stranger := transport.stranger(peer)) is not None:
                strangers.add(stranger)
            return own[0] >= 1 and bool(strangers)

        wait_until(all_dropped, "both connections' messages dropped")
        assert own[0] == 1  # the other's three are not its flood
        [stranger] = strangers
        assert stranger != peer and stranger[:2] == peer[:2]  # another on the same channel
        assert transport.stranger(peer) is None  # named once: asking again finds none
    finally:
        other.close()


def test_clear_frees_what_closed_connections_left_queued(
        pair: tuple[ZmqTransport, zmq.Socket[bytes]]) -> None:
    # a closed connection's frames stay queued, in memory, until the channel is read
    transport, _ = pair
    gone: zmq.Socket[bytes] = zmq.Context.instance().socket(zmq.DEALER)
    gone.connect(transport.endpoint)
    for _ in range(3):
        gone.send(b"left behind")
    gone.close(linger=5000)  # sent before it closes
    dropped = [0]

    def cleared() -> bool:
        dropped[0] += transport.clear(0)
        return dropped[0] >= 3

    wait_until(cleared, "the closed connection's frames dropped")
    assert dropped[0] == 3 and transport.recv(0) is None


def test_sending_to_an_unknown_peer_fails(
        pair: tuple[ZmqTransport, zmq.Socket[bytes]]) -> None:
    transport, _ = pair
    assert not transport.send(b"\x00nobody", b"x")


def test_drain_drops_whole_queued_messages_and_nothing_sent_later(
        pair: tuple[ZmqTransport, zmq.Socket[bytes]]) -> None:
    transport, dealer = pair
    peer = connected(transport, dealer)
    assert transport.drain(peer) == 0  # the common case: nothing queued
    dealer.send(b"one")
    dealer.send_multipart([b"two", b"parts"])
    dealer.send(b"three")
    dropped = [0]

    def all_dropped() -> bool:  # they reach the socket in their own time
        dropped[0] += transport.drain(peer)
        return dropped[0] >= 3

    wait_until(all_dropped, "three queued messages dropped")
    assert dropped[0] == 3
    assert transport.recv(0, peer) is None
    dealer.send(b"after")
    assert transport.recv(2000, peer) == (peer, [b"after"])


def test_a_channel_refuses_connections_over_its_number_before_their_frames_queue(
        pair: tuple[ZmqTransport, zmq.Socket[bytes]]) -> None:
    transport, _ = pair
    channel = transport.open_channel()
    transport.admit(channel.number, 1)
    context: zmq.Context[zmq.Socket[bytes]] = zmq.Context.instance()
    sockets = [context.socket(zmq.DEALER) for _ in range(3)]
    try:
        for socket in sockets:
            socket.setsockopt(zmq.LINGER, 0)
            socket.connect(channel.endpoint)
        for index, socket in enumerate(sockets):
            socket.send(b"from %d" % index)
        got = transport.recv(5000, channel.number.to_bytes(2, "big"))
        assert got is not None
        own = got[0]
        refused = [0]

        def both_refused() -> bool:
            refused[0] += transport.refused(own)
            return refused[0] >= 2

        wait_until(both_refused, "two connections refused at their handshake")
        assert refused[0] == 2 and transport.refused(own) == 0  # counted once
        # what the refused ones sent was never queued: nothing but the first's is there
        assert transport.clear(channel.number) == 0
        transport.admit(channel.number, None)  # any number again: a late one is let in
        late = context.socket(zmq.DEALER)
        sockets.append(late)
        late.connect(channel.endpoint)
        late.send(b"late")
        got = transport.recv(5000, own)
        assert got is not None and got[1] == [b"late"] and got[0] != own
    finally:
        for socket in sockets:
            socket.close(linger=0)


def test_an_endpoint_holding_too_many_connections_at_once_is_closed_to_new_ones(
        pair: tuple[ZmqTransport, zmq.Socket[bytes]]) -> None:
    """Raw connections never reach the handshake the gate answers, yet each holds one of
    the referee's descriptors, and libzmq aborts the process when an ipc accept finds none
    left: past OPEN_AT_ONCE the endpoint's socket file is gone, until its bot's next
    process is admitted."""
    transport, _ = pair
    channel = transport.open_channel()
    transport.admit(channel.number, 1)
    assert channel.directory is not None
    path = Path(channel.directory) / "referee.sock"
    held: list[socket_module.socket] = []
    try:
        while len(held) <= OPEN_AT_ONCE:  # one more than it may hold
            raw = socket_module.socket(socket_module.AF_UNIX)
            held.append(raw)
            raw.connect(str(path))
        wait_until(lambda: not path.exists(), "the endpoint's socket file removed")
        with socket_module.socket(socket_module.AF_UNIX) as late, \
                pytest.raises(FileNotFoundError):
            late.connect(str(path))
        refused = [0]

        def counted() -> bool:
            refused[0] += transport.refused_on(channel.number)
            return refused[0] >= 1

        wait_until(counted, "the connection over the limit counted as refused")
        for raw in held:
            raw.close()
        transport.admit(channel.number, 1)  # its next process: the endpoint is back
        assert path.exists()
        dealer: zmq.Socket[bytes] = zmq.Context.instance().socket(zmq.DEALER)
        try:
            dealer.setsockopt(zmq.LINGER, 0)
            dealer.connect(channel.endpoint)
            dealer.send(b"back")
            got = transport.recv(5000, channel.number.to_bytes(2, "big"))
            assert got is not None and got[1] == [b"back"]
        finally:
            dealer.close(linger=0)
    finally:
        for raw in held:
            raw.close()


def test_channels_waited_on_together_are_read_in_turn() -> None:
    # always the first ready channel of the list: a bot keeping its own full (junk before
    # its hello) left the hellos on the channels after it unread until startup_ms ran out
    transport = ZmqTransport()
    context = zmq.Context()
    dealers: list[zmq.Socket[bytes]] = []
    try:
        channels = [transport.open_channel() for _ in range(2)]
        for channel in channels:
            dealer: zmq.Socket[bytes] = context.socket(zmq.DEALER)
            dealer.setsockopt(zmq.LINGER, 0)
            dealer.connect(channel.endpoint)
            dealers.append(dealer)
        for _ in range(10):
            dealers[0].send(b"junk")
        dealers[1].send(b"hello")
        numbers = [c.number for c in channels]
        wait_until(lambda: all(cast(int, transport._sockets[n].getsockopt(zmq.EVENTS))
                               & zmq.POLLIN for n in numbers), "both channels hold a frame")
        read = []
        for _ in range(3):
            got = transport.recv_from(numbers, 2000)
            assert got is not None
            read.append(got[1])
        assert [b"hello"] in read, read
    finally:
        for dealer in dealers:
            dealer.close(linger=0)
        context.term()
        transport.close()
