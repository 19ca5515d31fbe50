"""The stdio bridge relays JSON lines to and from a ZeroMQ DEALER, byte for byte."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
import zmq

from arena.referee import stdio_bridge
from arena.referee.stdio_bridge import _Lines, bridge_argv, is_stdio
from tests.conditions import PATIENCE_S


def test_bridge_argv_wraps_only_stdio_commands() -> None:
    assert bridge_argv(["./bot", "x"]) == ["./bot", "x"]
    wrapped = bridge_argv(["stdio:./bot.sh", "x"])
    assert wrapped[0] == sys.executable
    assert wrapped[-3:] == ["--", "./bot.sh", "x"]
    assert bridge_argv(["stdio:", "perl", "bot.pl"])[-3:] == ["--", "perl", "bot.pl"]
    assert is_stdio(["stdio:x"]) and not is_stdio([]) and not is_stdio(["x"])


def test_lines_split_chunks_drop_blanks_and_cr() -> None:
    lines = _Lines()
    assert lines.feed(b'{"a":') == []
    assert lines.feed(b'1}\r\n\n  \n{"b"') == [b'{"a":1}']
    assert lines.feed(b":2}\n") == [b'{"b":2}']
    assert lines.feed(b"tail") == [] and lines.rest() == [b"tail"]


def test_lines_cap_an_unterminated_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stdio_bridge, "MAX_LINE_BYTES", 10)
    assert _Lines().feed(b"x" * 11) == [b"x" * 11]


def test_main_without_endpoint_is_a_usage_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ARENA_ENDPOINT", raising=False)
    assert stdio_bridge.main(["--", "true"]) == stdio_bridge.EXIT_USAGE


ECHO_BOT = textwrap.dedent("""\
    import json, os, sys
    print(json.dumps({"type": "hello", "token": os.environ["ARENA_TOKEN"]}), flush=True)
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "shutdown":
            sys.exit(7)
        # two replies in one write, one with CRLF: the bridge must split them
        sys.stdout.write(json.dumps({"echo": message}) + "\\r\\n" + '{"second": true}\\n')
        sys.stdout.flush()
""")


@pytest.fixture
def router() -> Iterator[tuple[zmq.Socket[bytes], str]]:
    context = zmq.Context()
    socket = context.socket(zmq.ROUTER)
    with tempfile.TemporaryDirectory() as tmp:
        endpoint = f"ipc://{tmp}/r.sock"
        socket.bind(endpoint)
        yield socket, endpoint
        socket.close(linger=0)
        context.term()


def _recv(socket: zmq.Socket[bytes]) -> tuple[bytes, bytes]:
    assert socket.poll(int(PATIENCE_S * 1000)), "no frame from the bridge"  # a bound on a hang
    peer, frame = socket.recv_multipart()
    return peer, frame


def test_relay_round_trip_and_exit_status(router: tuple[zmq.Socket[bytes], str],
                                          tmp_path: Path) -> None:
    socket, endpoint = router
    script = tmp_path / "bot.py"
    script.write_text(ECHO_BOT)
    env = {**os.environ, "ARENA_ENDPOINT": endpoint, "ARENA_TOKEN": "t0k"}
    proc = subprocess.Popen(bridge_argv([f"stdio:{sys.executable}", str(script)]), env=env)
    try:
        peer, hello = _recv(socket)
        assert json.loads(hello) == {"type": "hello", "token": "t0k"}
        request = {"type": "request", "id": 3, "text": "line\nbreak é"}
        socket.send_multipart([peer, json.dumps(request, ensure_ascii=False).encode()])
        assert json.loads(_recv(socket)[1]) == {"echo": request}
        assert _recv(socket)[1] == b'{"second": true}'
        socket.send_multipart([peer, b'{"type": "shutdown"}'])
        assert proc.wait(PATIENCE_S) == 7
    finally:
        proc.kill()
        proc.wait()


def test_relay_reports_a_command_that_cannot_start(router: tuple[zmq.Socket[bytes], str]
                                                   ) -> None:
    _, endpoint = router
    env = {**os.environ, "ARENA_ENDPOINT": endpoint}
    done = subprocess.run(bridge_argv(["stdio:/nonexistent/bot"]), env=env,
                          capture_output=True, text=True, timeout=PATIENCE_S)
    assert done.returncode == stdio_bridge.EXIT_NO_BOT
    assert "cannot start '/nonexistent/bot'" in done.stderr


def test_a_referee_gone_without_shutdown_ends_the_bridge_and_its_bot(
        router: tuple[zmq.Socket[bytes], str]) -> None:
    # pyzmq's DEALER waited for a referee to come back; the bot would wait with it forever
    socket, endpoint = router
    # a bot that says hello, then waits for nothing but a signal (the bridge's SIGKILL)
    bot = "print('{\"type\": \"hello\"}', flush=True); import signal; signal.pause()"
    env = {**os.environ, "ARENA_ENDPOINT": endpoint}
    with subprocess.Popen(bridge_argv([f"stdio:{sys.executable}", "-c", bot]), env=env,
                          stderr=subprocess.PIPE, text=True) as proc:
        try:
            _recv(socket)  # the bot is up and the bridge connected
            socket.close(linger=0)
            _, err = proc.communicate(timeout=PATIENCE_S)  # a bound on a hang
            assert proc.returncode == 128 + 9  # the bot was killed (SIGKILL)
            assert "the referee closed the connection; stopping the bot" in err
        finally:
            proc.kill()


def test_a_referee_that_refuses_the_connection_is_named_not_the_bot(
        tmp_path: Path) -> None:
    # a socket that is no ZeroMQ ROUTER (it hangs up at once): the bridge cannot connect
    import socket as sockets

    path = str(tmp_path / "plain.sock")
    with sockets.socket(sockets.AF_UNIX, sockets.SOCK_STREAM) as server:
        server.bind(path)
        server.listen(1)
        env = {**os.environ, "ARENA_ENDPOINT": f"ipc://{path}"}
        with subprocess.Popen(bridge_argv(["stdio:true"]), env=env, stderr=subprocess.PIPE,
                              text=True) as proc:
            server.accept()[0].close()
            _, err = proc.communicate(timeout=PATIENCE_S)  # a bound on a hang
    assert proc.returncode == stdio_bridge.EXIT_NO_REFEREE
    assert f"cannot reach the referee at ipc://{path}" in err and "cannot start" not in err


TCP_BOT = textwrap.dedent("""\
    import json, os, sys, zmq
    endpoint = os.environ["ARENA_ENDPOINT"]
    assert endpoint.startswith("tcp://127.0.0.1:"), endpoint
    socket = zmq.Context().socket(zmq.DEALER)
    socket.connect(endpoint)
    socket.send_json({"type": "hello", "token": os.environ["ARENA_TOKEN"]})
    while True:
        message = json.loads(socket.recv())
        if message["type"] == "shutdown":
            sys.exit(5)
        socket.send_json({"echo": message})
""")


def test_tcp_relay_round_trip(router: tuple[zmq.Socket[bytes], str], tmp_path: Path) -> None:
    socket, endpoint = router
    script = tmp_path / "bot.py"
    script.write_text(TCP_BOT)
    env = {**os.environ, "ARENA_ENDPOINT": endpoint, "ARENA_TOKEN": "t1"}
    argv = [sys.executable, "-m", "arena.referee.stdio_bridge", "--tcp", sys.executable,
            str(script)]
    proc = subprocess.Popen(argv, env=env)
    try:
        peer, hello = _recv(socket)
        assert json.loads(hello) == {"type": "hello", "token": "t1"}
        for n in range(3):
            socket.send_multipart([peer, json.dumps({"type": "request", "id": n}).encode()])
            assert json.loads(_recv(socket)[1]) == {"echo": {"type": "request", "id": n}}
        socket.send_multipart([peer, b'{"type": "shutdown"}'])
        assert proc.wait(PATIENCE_S) == 5
    finally:
        proc.kill()
        proc.wait()


def test_the_bridge_starts_without_importing_arena_or_pyzmq() -> None:
    # `-m arena.referee.stdio_bridge` imported the whole referee package first: ~0.14 s of
    # CPU more at every stdio bot's start; pyzmq (and typing) another ~0.015 s
    argv = bridge_argv(["stdio:true"])
    assert "-m" not in argv and argv[1] == "-P"
    code = ("import sys; path = sys.argv[1]; "  # exec, not runpy, which imports typing
            "exec(compile(open(path).read(), path, 'exec'), "
            "{'__name__': 'imported', '__file__': path}); "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('arena', 'zmq') "
            "or m == 'typing'))")
    done = subprocess.run([sys.executable, "-P", "-c", code, argv[2]], capture_output=True,
                          text=True, check=True, cwd="/")
    assert done.stdout.strip() == "['arena', 'arena._zmtp']"


CLOSING_BOT = textwrap.dedent("""\
    import json, os, signal, sys
    def bye(signum, frame):
        print(json.dumps({"bye": True}), flush=True)
        sys.exit(3)
    signal.signal(signal.SIGUSR1, bye)
    print(json.dumps({"type": "hello"}), flush=True)
    os.close(0)  # reads no more: the bridge's next write to it finds no reader
    print(json.dumps({"closed": os.getpid()}), flush=True)
    while True:
        signal.pause()
""")


def test_a_bot_that_stops_reading_gets_its_own_exit_status_reported(
        router: tuple[zmq.Socket[bytes], str], tmp_path: Path) -> None:
    # the bridge ran with SIGPIPE's default action: its write of a frame to a bot that had
    # closed its stdin killed the bridge (status -13, and the bot with it), so the
    # referee named SIGPIPE instead of what the bot did; the bot keeps SIGPIPE's default
    socket, endpoint = router
    script = tmp_path / "bot.py"
    script.write_text(CLOSING_BOT)
    env = {**os.environ, "ARENA_ENDPOINT": endpoint}
    proc = subprocess.Popen(bridge_argv([f"stdio:{sys.executable}", str(script)]), env=env)
    try:
        peer, _ = _recv(socket)
        bot = json.loads(_recv(socket)[1])["closed"]
        socket.send_multipart([peer, b'{"type": "request", "id": 1}'])  # into a closed pipe
        socket.send_multipart([peer, b'{"type": "request", "id": 2}'])
        os.kill(bot, signal.SIGUSR1)
        assert proc.wait(PATIENCE_S) == 3
        assert json.loads(_recv(socket)[1]) == {"bye": True}  # relayed to the end
    finally:
        proc.kill()
        proc.wait()


def test_the_bot_under_the_bridge_keeps_sigpipe_s_default(
        router: tuple[zmq.Socket[bytes], str]) -> None:
    # a shell keeps the signals it was started with ignored (a Python bot would
    # ignore SIGPIPE of its own accord): its mask of ignored signals is what it was given
    socket, endpoint = router
    env = {**os.environ, "ARENA_ENDPOINT": endpoint}
    done = subprocess.run(bridge_argv(["stdio:sh", "-c", "grep SigIgn /proc/$$/status"]),
                          env=env, timeout=PATIENCE_S)
    assert done.returncode == 0
    ignored = int(_recv(socket)[1].split()[1], 16)
    assert not ignored & (1 << (signal.SIGPIPE - 1))
