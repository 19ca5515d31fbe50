"""A bot that attacks the referee, the other bots or the results in one way (argv[1]), then
plays random legal moves. Every process it starts carries $ZOO_MARKER in its argv, so the
tests can tell that none survived. What it found is printed to its log as `FOUND ...`.

Modes: thief, second_hello, snoop, writer, logbypass, setsid, late_setsid, forkbomb, hog,
flood, start_hog (the memory hog before its hello) and setsid_hang (a grandchild, then it
hangs on its first request); deep and deep_hello (data nested 100,000 levels deep in an
action, in a hello), escape (an action key carrying a terminal's escapes), neighbours (over
tcp: floods and bad hellos on every other endpoint of the machine), sockets (looks for
other bots' endpoints), secrets (reads what it can of /etc for $ZOO_SECRET), fill (writes
outside its scratch), side_connections (big frames on two more connections of its own) and
raw_connections (thousands of connections to its endpoint that never start a handshake);
hello_spam ($ZOO_HELLOS hellos with forged tokens and names of 100 KB before its own);
made_up (actions the engine never offers, each new: 100,000 decoys, a seat of 4,000 digits);
junk_before_hello (1 MiB frames of small lists, one after another, and never a hello) and
stale_storm (three such frames with wrong ids before each of its answers).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import random
import resource
import socket as socket_module
import subprocess
import sys
import time
from pathlib import Path

import zmq

from arena.client import connect
from arena.protocol import Action, Hello, Request, Shutdown, Welcome, decode_referee, encode
from arena.protocol.messages import PROTOCOL_VERSION

MODE = sys.argv[1]
MARKER = os.environ.get("ZOO_MARKER", "zoo")
SLEEPER = [sys.executable, "-c", "import time; time.sleep(600)", MARKER]


def found(what: str) -> None:
    print(f"FOUND {what}", flush=True)


def foreign_environs() -> list[tuple[str, str]]:
    """(endpoint, token) of every other process whose environment we can read."""
    own = os.environ.get("ARENA_TOKEN")
    stolen = []
    for environ in Path("/proc").glob("[0-9]*/environ"):
        with contextlib.suppress(OSError):
            pairs = dict(p.split("=", 1) for p in environ.read_text(errors="replace")
                         .split("\0") if "=" in p)
            token = pairs.get("ARENA_TOKEN")
            if token and token != own:
                stolen.append((pairs.get("ARENA_ENDPOINT", ""), token))
    return stolen


def hello_on(endpoint: str, token: str) -> None:
    """Say hello with `token` on `endpoint` from a fresh socket; report the answer."""
    socket: zmq.Socket[bytes] = zmq.Context.instance().socket(zmq.DEALER)
    socket.setsockopt(zmq.LINGER, 0)
    socket.connect(endpoint)
    socket.send(encode(Hello(token=token, name="impostor", version="x",
                             protocol=PROTOCOL_VERSION)))
    if socket.poll(3000):
        found(f"answer to a hello on {endpoint}: {socket.recv()[:80]!r}")
    socket.close(linger=0)


def thief() -> None:
    stolen = foreign_environs()
    found(f"{len(stolen)} foreign tokens")
    for endpoint, token in stolen:
        hello_on(endpoint, token)
    hello_on(os.environ["ARENA_ENDPOINT"], "guessed-" + os.urandom(8).hex())


def read_or_empty(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError:
        return b""


def snoop() -> None:
    hits = []
    for path in Path("/proc").glob("[0-9]*/cmdline"):
        with contextlib.suppress(OSError):
            text = path.read_bytes().replace(b"\0", b" ").decode(errors="replace")
            # the referee's own command line: `arena play --seed 7`, `arena run`, or pytest
            if any(word in text for word in ("--seed", "pytest", "arena run", "arena play")):
                hits.append(text)
    for fd in Path("/proc").glob("[0-9]*/fd/*"):
        with contextlib.suppress(OSError):
            target = os.readlink(fd)
            if target.endswith((".jsonl", ".sqlite", ".salt")):
                hits.append(target)
    found(f"{len(hits)} seed hints {hits[:3]}")
    # pid 1 is bubblewrap's: its options would name the host paths it binds and masks
    named = [path.parent.name for path in Path("/proc").glob("[0-9]*/cmdline")
             if b"--ro-bind" in read_or_empty(path) or b"--tmpfs" in read_or_empty(path)]
    found(f"{len(named)} command lines naming host paths {named[:3]}")
    secret = os.environ.get("ZOO_RUNDIR", "/nonexistent")
    found(f"run directory visible: {os.path.exists(secret)}")


def writer() -> None:
    rundir = Path(os.environ.get("ZOO_RUNDIR", "/nonexistent"))
    for target in (rundir / "results.sqlite", rundir / "replays" / "forged.jsonl",
                   rundir / "forged.txt"):
        try:
            with open(target, "ab") as out:
                out.write(b"forged\n")
            found(f"wrote {target}")
        except OSError as exc:
            print(f"could not write {target}: {exc}", flush=True)
    for root, _, files in os.walk("/", onerror=lambda e: None):
        if root.startswith(("/proc", "/sys", "/dev", "/usr")):
            continue
        if "results.sqlite" in files:
            found(f"a results database in {root}")


def logbypass() -> None:
    written = 0
    for fd in Path("/proc").glob("[0-9]*/fd/*"):
        with contextlib.suppress(OSError):
            if int(fd.parent.parent.name) == os.getpid():
                continue
            with open(fd, "ab") as out:
                out.write(b"FORGED by logbypass\n")
                written += 1
    found(f"{written} foreign descriptors written")
    chunk = b"x" * 65535 + b"\n"
    for _ in range(80):  # 5 MiB to its own output, far over the test's cap
        sys.stdout.buffer.write(chunk)
    sys.stdout.flush()


def setsid() -> None:
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            os.execv(sys.executable, SLEEPER)
        os._exit(0)
    os.wait()


def setsid_hang() -> None:
    setsid()
    time.sleep(600)


def forkbomb() -> None:
    started = 0
    for _ in range(400):  # bounded: enough to pass any sane limit, never the machine's
        try:
            subprocess.Popen(SLEEPER)
            started += 1
        except OSError:
            break
    found(f"{started} processes started")


RAW_HOLDER = """
import socket, sys
held = []
try:
    while len(held) < int(sys.argv[1]):
        raw = socket.socket(socket.AF_UNIX)
        raw.connect(sys.argv[2])
        held.append(raw)
except OSError:
    pass
print(len(held), flush=True)
sys.stdin.read()  # held until the bot is stopped
"""
HOLDERS: list[subprocess.Popen[str]] = []


def raw_connections() -> None:
    """Connections that never send ZeroMQ's greeting, so no handshake is ever asked about,
    from six processes of 900 each: more than the referee has descriptors (the test lowers
    its limit), each held open."""
    path = os.environ["ARENA_ENDPOINT"].removeprefix("ipc://")
    HOLDERS.extend(subprocess.Popen([sys.executable, "-c", RAW_HOLDER, "900", path, MARKER],
                                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
                   for _ in range(6))
    held = sum(int(holder.stdout.readline() or 0) for holder in HOLDERS if holder.stdout)
    found(f"{held} raw connections held")


def hog() -> None:
    block = bytearray(2 << 30)  # 2 GiB, every page touched
    for i in range(0, len(block), 4096):
        block[i] = 1
    found(f"{len(block)} bytes allocated")


def flood(socket: zmq.Socket[bytes]) -> int:
    stray = encode(Action(id=10**9, action=None))
    sent = 0
    with contextlib.suppress(zmq.Again):
        for _ in range(5000):
            socket.send(stray, zmq.NOBLOCK)
            sent += 1
    return sent


DEEP = 100_000


def deep_hello() -> zmq.Socket[bytes]:
    """A hello whose unknown field nests deeper than any decoder goes, then a good one on
    the same connection (the one its endpoint accepts); return the connection."""
    socket: zmq.Socket[bytes] = zmq.Context.instance().socket(zmq.DEALER)
    socket.setsockopt(zmq.LINGER, 1000)
    socket.connect(os.environ["ARENA_ENDPOINT"])
    token = os.environ["ARENA_TOKEN"]
    socket.send(b'{"type":"hello","token":"%s","name":"deep","protocol":%d,"x":%s1%s}' % (
        token.encode(), PROTOCOL_VERSION, b'{"a":' * DEEP, b"}" * DEEP))
    socket.send(encode(Hello(token=token, name="deep", version="0",
                             protocol=PROTOCOL_VERSION)))
    decode_referee(socket.recv())  # the welcome
    return socket


def hello_spam() -> zmq.Socket[bytes]:
    """Hellos with unknown tokens and names of 100 KB, each an alarm, then its own hello on
    the same connection (the one its endpoint accepts); return the connection."""
    socket: zmq.Socket[bytes] = zmq.Context.instance().socket(zmq.DEALER)
    socket.setsockopt(zmq.LINGER, 1000)
    socket.connect(os.environ["ARENA_ENDPOINT"])
    name = "N" * (100 << 10)
    for _ in range(int(os.environ["ZOO_HELLOS"])):
        socket.send(encode(Hello(token="forged-" + os.urandom(8).hex(), name=name,
                                 version="x", protocol=PROTOCOL_VERSION)))
    socket.send(encode(Hello(token=os.environ["ARENA_TOKEN"], name="spam", version="0",
                             protocol=PROTOCOL_VERSION)))
    while not isinstance(decode_referee(socket.recv()), Welcome):
        pass  # the answers to the forged ones
    return socket


def listening_ports() -> set[int]:
    """The loopback ports listening on the machine (the other bots' endpoints among them)."""
    ports = set()
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        local, state = line.split()[1], line.split()[3]
        address, hex_port = local.split(":")
        if state == "0A" and address == "0100007F":  # LISTEN
            ports.add(int(hex_port, 16))
    return ports


def neighbours() -> None:
    """Over tcp bots share the network: flood every other listening loopback port."""
    own = int(os.environ["ARENA_ENDPOINT"].rsplit(":", 1)[1])
    ports = listening_ports() - {own}
    stray = encode(Action(id=10**9, action=None))
    for port in sorted(ports):
        socket: zmq.Socket[bytes] = zmq.Context.instance().socket(zmq.DEALER)
        socket.setsockopt(zmq.LINGER, 0)
        socket.connect(f"tcp://127.0.0.1:{port}")
        socket.send(encode(Hello(token="guessed", name="impostor", version="x",
                                 protocol=PROTOCOL_VERSION)))
        with contextlib.suppress(zmq.Again):
            for _ in range(3000):
                socket.send(stray, zmq.NOBLOCK)
        NEIGHBOURS.append(socket)  # kept open: its frames stay queued there
    found(f"{len(ports)} other endpoints flooded")


NEIGHBOURS: list[zmq.Socket[bytes]] = []


def handshake_passed(monitor: zmq.Socket[bytes]) -> bool:
    """Whether the monitored connection's handshake was accepted (its frames can reach the
    referee) or refused; waits for the one or the other."""
    from zmq.utils.monitor import recv_monitor_message

    while True:
        event = recv_monitor_message(monitor)["event"]
        if event == zmq.EVENT_HANDSHAKE_SUCCEEDED:
            return True
        if event in (zmq.EVENT_HANDSHAKE_FAILED_AUTH, zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL,
                     zmq.EVENT_HANDSHAKE_FAILED_NO_DETAIL):
            return False


def sockets() -> None:
    """Every ipc socket it can find outside its own /run/arena."""
    seen = []
    for top in {str(Path(__file__).resolve().parent), os.getcwd(), "/tmp"}:
        for root, _, files in os.walk(top, onerror=lambda e: None):
            seen += [os.path.join(root, f) for f in files if f == "referee.sock"]
    found(f"{len(seen)} foreign sockets {seen[:3]}")
    here = Path(__file__).resolve().parent
    found(f"{len(list(here.glob('tmp/arena-ipc-*')))} endpoint directories in its own")


def secrets() -> None:
    secret, hits = os.environ["ZOO_SECRET"].encode(), 0
    for root, _, files in os.walk("/etc", onerror=lambda e: None):
        for name in files:
            with contextlib.suppress(OSError):
                hits += secret in Path(root, name).read_bytes()
    found(f"{hits} secrets read")


NAMESPACES = {"user": 0x10000000, "mount": 0x00020000, "network": 0x40000000,
              "pid": 0x20000000}
"""unshare(2)'s flags: CLONE_NEWUSER, CLONE_NEWNS, CLONE_NEWNET, CLONE_NEWPID."""


def probe() -> None:
    """What the sandbox leaves it: uid, capabilities, the namespaces it may make (each tried
    in a child of its own), its limits, its environment, how much /tmp takes."""
    found(f"uid {os.getuid()}")
    status = dict(line.split(":\t", 1) for line in
                  Path("/proc/self/status").read_text().splitlines() if ":\t" in line)
    found(f"capabilities {status['CapEff'].strip()} {status['CapPrm'].strip()}")
    libc = ctypes.CDLL(None, use_errno=True)
    made = []
    for name, flag in NAMESPACES.items():
        child = os.fork()
        if child == 0:
            os._exit(0 if libc.unshare(flag) == 0 else 1)
        if os.waitpid(child, 0)[1] == 0:
            made.append(name)
    found(f"namespaces made {made}")
    found(f"limits nofile {resource.getrlimit(resource.RLIMIT_NOFILE)} "
          f"core {resource.getrlimit(resource.RLIMIT_CORE)}")
    found(f"environment {' '.join(sorted(os.environ))}")
    block, written = b"x" * (1 << 20), 0
    with contextlib.suppress(OSError), open("/tmp/zoo-scratch", "wb") as out:
        while written < 1024:  # bounded: the test's scratch is a few MiB
            out.write(block)
            out.flush()
            written += 1
    with contextlib.suppress(OSError):
        os.unlink("/tmp/zoo-scratch")
    found(f"/tmp took {written} MiB")


def cpu_burn() -> None:
    """Three processes spinning until the bot is stopped: CPU far past its limit per game
    while the move clock still runs."""
    HOLDERS.extend(subprocess.Popen([sys.executable, "-c", "while True: pass", MARKER],
                                    stdin=subprocess.PIPE, text=True) for _ in range(3))
    while True:
        pass


def wrong_endpoint() -> None:
    """Over tcp: a hello with its own token on every other listening loopback port, then a
    signal to the neighbour waiting in `after_signal` (its endpoint's hello still to come,
    so the referee reads the forged one as a hello, not as a stray message in a game)."""
    own = int(os.environ["ARENA_ENDPOINT"].rsplit(":", 1)[1])
    for port in listening_ports() - {own, int(os.environ["ZOO_SIGNAL_PORT"])}:
        hello_on(f"tcp://127.0.0.1:{port}", os.environ["ARENA_TOKEN"])
    signal = socket_module.create_server(("127.0.0.1", int(os.environ["ZOO_SIGNAL_PORT"])))
    NEIGHBOURS_SIGNAL.append(signal)


NEIGHBOURS_SIGNAL: list[socket_module.socket] = []


def after_signal() -> None:
    """An honest bot that says hello once the port $ZOO_SIGNAL_PORT accepts a connection."""
    while True:
        try:
            socket_module.create_connection(("127.0.0.1", int(os.environ["ZOO_SIGNAL_PORT"]))
                                            ).close()
            return
        except OSError:
            time.sleep(0.05)  # a polling step; the signal decides


GLOBAL_KNOBS = ("/proc/sys/kernel/core_pattern", "/proc/sys/kernel/modprobe",
                "/proc/sys/vm/overcommit_memory", "/proc/sysrq-trigger")
"""The machine's own settings: the sandbox's uid is the organiser's outside, and for root
a sysctl asks no more than that (core_pattern set to `|/proc/%P/root/tmp/x` runs the bot's
program as the host's root at its next crash). Opened for writing, never written: the
open is where the refusal comes, and a write that went through would change the host."""


def fill() -> None:
    block = b"x" * (1 << 20)
    for where in ("/", "/run", "/dev", "/etc"):
        with contextlib.suppress(OSError):
            Path(where, "zoo-fill").write_bytes(block)
            found(f"wrote into {where}")
    for knob in GLOBAL_KNOBS:
        with contextlib.suppress(OSError):
            os.close(os.open(knob, os.O_WRONLY))
            found(f"wrote into {knob}")
    written = 0
    with contextlib.suppress(OSError), open("/dev/shm/zoo-fill", "wb") as out:
        for _ in range(64):
            out.write(block)
            out.flush()
            written += 1
    found(f"/dev/shm took {written} MiB")


ATTACKS = {"thief": thief, "snoop": snoop, "writer": writer, "logbypass": logbypass,
           "setsid": setsid, "neighbours": neighbours,
           "sockets": sockets, "secrets": secrets, "fill": fill, "probe": probe,
           "wrong_endpoint": wrong_endpoint, "after_signal": after_signal}
IN_GAME = {"forkbomb": forkbomb, "hog": hog, "late_setsid": setsid,
           "setsid_hang": setsid_hang, "raw_connections": raw_connections,
           "cpu_burn": cpu_burn}
"""Attacks made at the first request, once the bot holds its seat."""


SMALL_LISTS = b"[" + b",".join([b"[" * 30 + b"]" * 30] * 17_000) + b"]"
"""1 MiB of lists nested 30 deep, within the depth allowed: decoded whole, 0.4-0.6 s of the
referee's CPU a frame, for a few microseconds of the bot's to send it again."""


def junk_before_hello() -> None:
    """Its one connection kept full of frames that are no hello, until it is stopped."""
    socket: zmq.Socket[bytes] = zmq.Context.instance().socket(zmq.DEALER)
    socket.connect(os.environ["ARENA_ENDPOINT"])
    junk = b'{"type":"action","id":1,"action":%s}' % SMALL_LISTS
    while True:
        socket.send(junk)


def main() -> None:
    if MODE == "junk_before_hello":
        junk_before_hello()
    if MODE == "start_hog":
        hog()
    if MODE in ATTACKS:
        ATTACKS[MODE]()
    socket = deep_hello() if MODE == "deep_hello" else hello_spam() \
        if MODE == "hello_spam" else connect(MODE, "0")[0]
    flooded = 0
    while True:
        message = decode_referee(socket.recv())
        if isinstance(message, Shutdown):
            break
        if not isinstance(message, Request):
            continue
        if MODE in IN_GAME and flooded == 0:
            IN_GAME[MODE]()
            flooded = 1
        if MODE == "second_hello" and message.id and flooded == 0:
            hello_on(os.environ["ARENA_ENDPOINT"], os.environ["ARENA_TOKEN"])
            flooded = 1
        if MODE == "flood" and flooded < 100_000:
            flooded += flood(socket)
        assert message.options, "the zoo plays machiavelli's option decisions only"
        if MODE == "side_connections" and flooded == 0:
            flooded = 1
            socket.send(encode(Action(id=message.id, action=random.choice(message.options))))
            big = encode(Action(id=10**9, action="x" * (900 << 10)))
            accepted = 0
            for _ in range(2):  # sent after its answer: queued between its turns
                side: zmq.Socket[bytes] = zmq.Context.instance().socket(zmq.DEALER)
                side.setsockopt(zmq.LINGER, 0)
                monitor = side.get_monitor_socket()
                side.connect(os.environ["ARENA_ENDPOINT"])
                accepted += handshake_passed(monitor)
                with contextlib.suppress(zmq.Again):  # refused: no connection to send on
                    for _ in range(5):
                        side.send(big, zmq.NOBLOCK)
                NEIGHBOURS.append(side)
            found(f"{accepted} of 2 side connections accepted")
            continue
        if MODE == "made_up" and message.kind == "turn" and flooded < 3:
            flooded += 1  # each a fault: the third forfeits; each new, game after game
            made = {"type": "place_warrants", "character": "king",
                    "decoys": ["king"] * random.randrange(100_000, 110_000)} if flooded < 3 \
                else {"type": "swap_hands", "seat": 10**4000 + random.randrange(10**9)}
            socket.send(encode(Action(id=message.id, action=made)))
            continue
        if MODE == "stale_storm":  # sent in its own time: the clock runs
            for _ in range(3):
                socket.send(b'{"type":"action","id":%d,"action":%s}' % (
                    message.id + 10**6, SMALL_LISTS))
        if MODE in ("deep", "escape") and flooded == 0:
            flooded = 1
            action = {**message.options[0], "\x1b]0;PWNED\x07\x1b[2J": 1}
            socket.send(b'{"type":"action","id":%d,"action":%s}' % (
                message.id, b"[" * DEEP + b"]" * DEEP) if MODE == "deep" else
                encode(Action(id=message.id, action=action)))
            continue  # a fault: the next request comes as usual
        socket.send(encode(Action(id=message.id, action=random.choice(message.options))))
    found(f"{flooded} stray messages")
    socket.close(linger=0)
    time.sleep(0)


if __name__ == "__main__":
    main()
