"""The Python client's own DEALER (`arena._zmtp`, ZMTP 3.0 over one stream socket) against the
referee's kind of socket: a libzmq ROUTER through pyzmq."""

from __future__ import annotations

import contextlib
import random
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
import zmq

from arena import _zmtp, client
from arena.protocol import Hello, Shutdown, Welcome, decode_bot, encode
from tests.conditions import PATIENCE_S, wait_until


@contextlib.contextmanager
def bound(kind: int, where: str, curve: bool = False) -> Iterator[zmq.Socket[bytes]]:
    """A socket of `kind` bound at `where` (a CURVE server with `curve`), closed after."""
    context = zmq.Context()
    socket: zmq.Socket[bytes] = context.socket(kind)
    socket.setsockopt(zmq.LINGER, 0)
    socket.setsockopt(zmq.RCVTIMEO, int(PATIENCE_S * 1000))  # a hang fails, not stalls
    if curve:
        socket.curve_secretkey = zmq.curve_keypair()[1]
        socket.curve_server = True
    socket.bind(where)
    try:
        yield socket
    finally:
        socket.close()
        context.term()


@pytest.fixture(params=["ipc", "tcp"])
def router(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[zmq.Socket[bytes]]:
    where = f"ipc://{tmp_path}/r.sock" if request.param == "ipc" else "tcp://127.0.0.1:0"
    with bound(zmq.ROUTER, where) as socket:
        yield socket


def endpoint(socket: zmq.Socket[bytes]) -> str:
    return socket.getsockopt_string(zmq.LAST_ENDPOINT)


def test_frames_of_every_size_class_cross_both_ways_intact(router: zmq.Socket[bytes]) -> None:
    dealer = _zmtp.dial(endpoint(router))
    assert dealer is not None
    rng = random.Random(23)
    sizes = [0, 1, 254, 255, 256, 257, 65_535, 65_536, 200_003, 3 << 20,
             *(rng.randrange(70_000) for _ in range(40))]
    frames = [rng.randbytes(size) for size in sizes]
    dealer.send(b"first")
    peer, first = router.recv_multipart()
    assert first == b"first"  # one frame: a DEALER adds no delimiter
    for frame in frames:
        router.send_multipart([peer, frame])
    assert [dealer.recv() for _ in frames] == frames
    for frame in frames:
        dealer.send(frame)
    assert [router.recv_multipart() for _ in frames] == [[peer, frame] for frame in frames]
    dealer.close()


def test_the_parts_of_a_multipart_message_come_one_by_one_as_from_pyzmq(
        router: zmq.Socket[bytes]) -> None:
    dealer = _zmtp.dial(endpoint(router))
    assert dealer is not None
    dealer.send(b"hi")
    peer, _ = router.recv_multipart()
    router.send_multipart([peer, b"a", b"b" * 300, b"c"])
    assert [dealer.recv(), dealer.recv(), dealer.recv()] == [b"a", b"b" * 300, b"c"]
    dealer.close()


def test_ready_returns_whole_frames_as_they_complete(router: zmq.Socket[bytes]) -> None:
    # the stdio bridge polls the socket beside the bot's pipe and reads what is there
    import select

    dealer = _zmtp.dial(endpoint(router))
    assert dealer is not None
    dealer.send(b"hi")
    peer, _ = router.recv_multipart()
    frames = [b"small", bytes(300_000), b"", b"last"]
    for frame in frames:
        router.send_multipart([peer, frame])
    poller = select.poll()
    poller.register(dealer.fileno(), select.POLLIN)
    got: list[bytes] = []
    reads = 0
    while len(got) < len(frames):
        assert poller.poll(PATIENCE_S * 1000), "the socket never became readable"
        got += dealer.ready()
        reads += 1
    assert got == frames and reads > 1  # the long frame took several reads
    dealer.close()


def test_a_closed_referee_ends_the_link_with_a_reason(router: zmq.Socket[bytes]) -> None:
    dealer = _zmtp.dial(endpoint(router))
    assert dealer is not None
    dealer.send(b"hi")
    router.recv_multipart()
    router.close()
    with pytest.raises(_zmtp.LinkClosed, match="closed the connection"):
        dealer.recv()
    dealer.close()


SIGPIPE_PROBE = """
import signal, sys, zmq
from arena import _zmtp
signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # as a bot may have it
context = zmq.Context()
router = context.socket(zmq.ROUTER)
router.bind(f"ipc://{sys.argv[1]}/pipe.sock")
dealer = _zmtp.dial(f"ipc://{sys.argv[1]}/pipe.sock")
dealer.send(b"hi")
router.recv_multipart()
router.close(linger=0)
try:
    dealer.recv()
except _zmtp.LinkClosed:  # the hang-up has arrived: a send now meets a closed peer (EPIPE)
    pass
try:
    dealer.send(b"x")
except _zmtp.LinkClosed as exc:
    print("closed:", exc)
"""


def test_a_send_to_a_gone_referee_raises_even_with_sigpipe_at_its_default(
        tmp_path: Path) -> None:
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", SIGPIPE_PROBE, str(tmp_path)],
                          capture_output=True, text=True, check=False, timeout=PATIENCE_S)
    assert done.returncode == 0, (done.returncode, done.stderr)  # -13: killed by SIGPIPE
    assert done.stdout.startswith("closed: the referee's connection is gone")


def test_a_curve_referee_is_refused_by_name(tmp_path: Path) -> None:
    with bound(zmq.ROUTER, f"ipc://{tmp_path}/curve.sock", curve=True):
        # libzmq may hang up before its whole greeting (which names CURVE) is read
        with pytest.raises(_zmtp.LinkClosed, match="CURVE"):
            _zmtp.dial(f"ipc://{tmp_path}/curve.sock")


def test_an_endpoint_that_is_no_router_is_refused(tmp_path: Path) -> None:
    with bound(zmq.DEALER, f"ipc://{tmp_path}/dealer.sock"):
        with pytest.raises(_zmtp.LinkClosed, match="DEALER socket, not the referee's ROUTER"):
            _zmtp.dial(f"ipc://{tmp_path}/dealer.sock")


@pytest.mark.parametrize(("says", "refusal"), [
    (b"HTTP/1.1 400 Bad Request\r\n\r\n" + bytes(40), "does not speak ZMTP 3"),
    (b"", "during the ZeroMQ handshake"),  # closed, or reset (our greeting unread)
])
def test_a_peer_that_is_no_zeromq_socket_is_refused(tmp_path: Path, says: bytes,
                                                   refusal: str) -> None:
    import socket

    path = str(tmp_path / "plain.sock")
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:
        server.bind(path)
        server.listen(1)

        def answer() -> None:
            peer, _ = server.accept()
            with peer:
                peer.sendall(says)

        answering = threading.Thread(target=answer, daemon=True)
        answering.start()
        with pytest.raises(_zmtp.LinkClosed, match=refusal):
            _zmtp.dial(f"ipc://{path}")
        answering.join()


def test_a_bot_started_before_its_referee_waits_for_the_endpoint(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    where = f"ipc://{tmp_path}/late.sock"
    got: list[_zmtp.Dealer | None] = []
    dialing = threading.Thread(target=lambda: got.append(_zmtp.dial(where)), daemon=True)
    dialing.start()
    seen: list[str] = []

    def said_waiting() -> bool:
        seen.append(capsys.readouterr().err)
        return "waiting" in "".join(seen)

    wait_until(said_waiting, "the dealer says it waits")
    with bound(zmq.ROUTER, where) as late:
        dialing.join()
        assert got and got[0] is not None
        got[0].send(b"here")
        assert late.recv_multipart()[1] == b"here"
        got[0].close()
    assert f"waiting for the referee at {where}" in "".join(seen)


def test_ready_properties_round_trip_and_a_truncated_ready_is_refused() -> None:
    props = {b"Socket-Type": b"ROUTER", b"Identity": b"", b"X": b"y" * 300}
    body = _zmtp.command(b"READY", props)[9:]  # a long frame: flags and 8 size bytes
    assert _zmtp.properties(body) == props
    with pytest.raises(_zmtp.LinkClosed, match="malformed ZMTP READY"):
        _zmtp.properties(body[:-1])  # the last value one byte short of its size


@pytest.mark.parametrize(("given", "expected"), [
    ("ipc:///run/arena/referee.sock", "/run/arena/referee.sock"),
    ("ipc://@arena-x", "\0arena-x"),
    ("tcp://127.0.0.1:40123", ("127.0.0.1", 40123)),
    ("tcp://[::1]:5555", ("::1", 5555)),
    ("tcp://bots.example.org:7", ("bots.example.org", 7)),
    ("tcp://*:5555", None),  # a bind address, not one to connect to
    ("tcp://eth0;10.0.0.1:5555", None),  # a source address: left to libzmq
    ("tcp://127.0.0.1", None),
    ("inproc://x", None),
    ("ws://127.0.0.1:80", None),
    ("/run/arena/referee.sock", None),
])
def test_endpoints_it_speaks_and_those_it_leaves_to_pyzmq(
        given: str, expected: object) -> None:
    assert _zmtp.address(given) == expected


def referee_side(socket: zmq.Socket[bytes], out: list[object]) -> None:
    """Answer one hello with a welcome, then say shutdown."""
    peer, frame = socket.recv_multipart()
    out.append(decode_bot(frame))
    socket.send_multipart([peer, encode(Welcome(protocol=1, name="b", max_message_bytes=1 << 20))])
    socket.send_multipart([peer, encode(Shutdown(reason="done"))])


@pytest.mark.parametrize("through", ["zmtp", "pyzmq"])
def test_open_link_says_hello_through_either_connection(
        router: zmq.Socket[bytes], through: str, monkeypatch: pytest.MonkeyPatch) -> None:
    if through == "pyzmq":  # as for an endpoint arena._zmtp does not speak
        monkeypatch.setattr(client, "dial", lambda where: None)
    seen: list[object] = []
    referee = threading.Thread(target=referee_side, args=(router, seen), daemon=True)
    referee.start()
    link, welcome = client.open_link("b", "1", ["--endpoint", endpoint(router), "--token", "t"])
    referee.join()
    assert isinstance(link, _zmtp.Dealer) == (through == "zmtp")
    assert welcome.name == "b"
    assert isinstance(seen[0], Hello) and seen[0].token == "t"
    assert isinstance(client.decode_message(link.recv()), Shutdown)
    link.close(linger=100)
