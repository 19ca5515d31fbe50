"""The stdio bridge: a bot that speaks the protocol as JSON lines on stdin/stdout.

A bot declared as `stdio:CMD ARGS...` is started through this module instead of directly:
`python -m arena.referee.stdio_bridge CMD ARGS...` connects a DEALER to `ARENA_ENDPOINT`
like any bot, starts CMD with pipes, writes every frame the referee sends as one line on
the bot's stdin, and sends every line the bot writes on its stdout as one frame. The bot
speaks the same messages (it sends `hello` with `ARENA_TOKEN` first); the referee times the
round trip through the bridge, so the same time limits apply. The bridge runs in the bot's
process group (stopping the bot stops both) and exits with the bot's exit status.

`--tcp` relays ZeroMQ instead of lines, for bots whose ZeroMQ library cannot reach the
referee's ipc socket (JeroMQ, the pure-Java ZeroMQ, emulates `ipc://` over TCP): the bridge
binds a ROUTER on tcp loopback, starts CMD with `ARENA_ENDPOINT` pointing there, and relays
frames both ways; `python -m arena.referee.stdio_bridge --tcp java -jar bot.jar`.

Only the standard library and `arena._zmtp` (the DEALER the Python client uses, written
over one socket) are imported for lines, pyzmq only for `--tcp`: the bridge starts as fast as
it can. Without pyzmq the interpreter and the bridge's imports cost 0.018 s of CPU instead of
0.033 s (medians of 30, pinned), and no I/O thread is woken at every message. The referee
runs this file as a script (`python -P .../stdio_bridge.py`, see `bridge_argv`), not with
`-m`, which would first import the `arena.referee` package (the referee, the engines):
~0.14 s more CPU at each stdio bot's start (0.22 -> 0.08 s).
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
from collections.abc import Sequence

from arena._zmtp import LinkClosed, dial

PREFIX = "stdio:"
"""The first word of a bot command that marks a stdio bot."""

MAX_LINE_BYTES = 4 << 20
"""A longer line without a newline is sent as it stands (the referee refuses it as
oversize) rather than buffered without bound."""

EXIT_USAGE = 2
EXIT_NO_REFEREE = 1
EXIT_NO_BOT = 127


def is_stdio(cmd: Sequence[str]) -> bool:
    """Return whether a bot command names a stdio bot (`stdio:CMD ...`)."""
    return bool(cmd) and cmd[0].startswith(PREFIX)


def bridge_argv(cmd: Sequence[str]) -> list[str]:
    """Return the argv that runs a `stdio:CMD ...` bot through the bridge.

    Any other command is returned unchanged, so the referee may call this on every bot.
    `stdio:` may stand alone (`stdio: perl bot.pl`) or be glued to the program
    (`stdio:./bot.sh`).
    """
    if not is_stdio(cmd):
        return list(cmd)
    head = cmd[0][len(PREFIX):]
    inner = ([head] if head else []) + list(cmd[1:])
    # -P: the script's directory (arena/referee) must not come first on sys.path
    return [sys.executable, "-P", _SCRIPT, "--", *inner]


_SCRIPT = os.path.abspath(__file__)


class _Lines:
    """Splits a byte stream into lines, capping how much an unfinished line may hold."""

    def __init__(self) -> None:
        self._buffer = bytearray()

    def feed(self, chunk: bytes) -> list[bytes]:
        """Add bytes; return the complete lines (without line ends, blank lines dropped)."""
        self._buffer += chunk
        *lines, rest = bytes(self._buffer).split(b"\n")
        self._buffer = bytearray(rest)
        if len(self._buffer) > MAX_LINE_BYTES:
            lines.append(bytes(self._buffer))
            self._buffer.clear()
        return [line.rstrip(b"\r") for line in lines if line.strip()]

    def rest(self) -> list[bytes]:
        """Return a last line that had no newline, if any."""
        line, self._buffer = bytes(self._buffer), bytearray()
        return [line] if line.strip() else []


def _pdeathsig() -> None:  # in the child: die with the bridge even if it is SIGKILLed
    if sys.platform.startswith("linux"):
        import ctypes
        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def _write_line(bot: subprocess.Popen[bytes], frame: bytes) -> bool:
    """Write one frame as one line on the bot's stdin; False once the pipe is closed."""
    assert bot.stdin is not None
    try:
        bot.stdin.write(frame.replace(b"\n", b" ") + b"\n")
        bot.stdin.flush()
    except (BrokenPipeError, ValueError):
        return False
    return True


def relay(endpoint: str, cmd: Sequence[str]) -> int:
    """Run `cmd` and relay between its stdio and a DEALER on `endpoint` until it exits (or
    the referee goes away, which ends the bot too).

    Returns the bot's exit status (128 + signal number when it was killed).
    """
    link = dial(endpoint)
    if link is None:
        raise LinkClosed(f"the endpoint {endpoint!r} is neither ipc:// nor tcp://")
    bot = subprocess.Popen(list(cmd), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                           preexec_fn=_pdeathsig)
    assert bot.stdout is not None
    upstream, out = link.fileno(), bot.stdout.fileno()
    poller = select.poll()
    poller.register(upstream, select.POLLIN)
    poller.register(out, select.POLLIN)
    lines, stdin_open, bot_open = _Lines(), True, True
    try:
        while bot_open:
            for fd, _ in poller.poll():
                if fd == upstream:
                    for frame in link.ready():
                        stdin_open = stdin_open and _write_line(bot, frame)
                elif fd == out:
                    chunk = os.read(out, 1 << 16)
                    for line in lines.feed(chunk) if chunk else lines.rest():
                        link.send(line)
                    bot_open = bool(chunk)
    except LinkClosed as exc:
        print(f"stdio bridge: {exc}; stopping the bot", file=sys.stderr, flush=True)
        bot.kill()
    finally:
        status = bot.wait()
        link.close()
    return 128 - status if status < 0 else status


def relay_tcp(endpoint: str, cmd: Sequence[str]) -> int:
    """Run `cmd` against a tcp loopback ROUTER and relay its frames to a DEALER on `endpoint`.

    Returns the bot's exit status (128 + signal number when it was killed).
    """
    import zmq  # only here: a line bot's bridge starts without it

    context = zmq.Context()
    upstream = context.socket(zmq.DEALER)
    upstream.setsockopt(zmq.LINGER, 2000)
    upstream.connect(endpoint)
    local = context.socket(zmq.ROUTER)
    local.setsockopt(zmq.LINGER, 2000)
    local.bind("tcp://127.0.0.1:*")
    env = {**os.environ, "ARENA_ENDPOINT": local.getsockopt_string(zmq.LAST_ENDPOINT)}
    try:
        bot = subprocess.Popen(list(cmd), env=env, stdin=subprocess.DEVNULL,
                               preexec_fn=_pdeathsig)
    except OSError:
        local.close()
        upstream.close()
        context.term()
        raise
    poller = zmq.Poller()
    poller.register(upstream, zmq.POLLIN)
    poller.register(local, zmq.POLLIN)
    peer: bytes | None = None  # the bot's connection: the first peer that speaks
    backlog: list[bytes] = []
    try:
        while bot.poll() is None:
            ready = dict(poller.poll(100))
            if local in ready:
                sender, *frames = local.recv_multipart()
                if peer is None or sender == peer:
                    peer = sender
                    upstream.send_multipart(frames)
                    for frame in backlog:
                        local.send_multipart([peer, frame])
                    backlog.clear()
            if upstream in ready:
                frame = upstream.recv()
                if peer is None:
                    backlog.append(frame)
                else:
                    local.send_multipart([peer, frame])
    finally:
        status = bot.wait()
        local.close()
        upstream.close()
        context.term()
    return 128 - status if status < 0 else status


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: `python -m arena.referee.stdio_bridge [--tcp] [--] CMD ARGS...`."""
    args = list(sys.argv[1:] if argv is None else argv)
    tcp = args[:1] == ["--tcp"]
    if tcp:
        args = args[1:]
    if args[:1] == ["--"]:
        args = args[1:]
    endpoint = os.environ.get("ARENA_ENDPOINT")
    if not args or not endpoint:
        print("usage: ARENA_ENDPOINT=... python -m arena.referee.stdio_bridge [--tcp] [--] "
              "CMD ARGS...", file=sys.stderr)
        return EXIT_USAGE
    try:
        return relay_tcp(endpoint, args) if tcp else relay(endpoint, args)
    except LinkClosed as exc:  # an OSError too, but the bot's command is not to blame
        print(f"stdio bridge: cannot reach the referee at {endpoint}: {exc}", file=sys.stderr)
        return EXIT_NO_REFEREE
    except OSError as exc:
        print(f"stdio bridge: cannot start {args[0]!r}: {exc}", file=sys.stderr)
        return EXIT_NO_BOT


if __name__ == "__main__":
    # SIGPIPE stays ignored here, as Python leaves it: a write to a bot that closed its
    # stdin is an error the relay handles, not the bridge's death (the referee would name
    # SIGPIPE instead of what the bot did); the bot gets the default (Popen restores it)
    sys.exit(main())
