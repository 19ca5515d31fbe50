"""Protocol benchmark: what a referee round trip costs next to a bare ZeroMQ one.

(a)   bare pyzmq ROUTER/DEALER ping-pong (this process <-> an echo process), with the real
      request frames recorded in (b) and an action-sized reply;
(a')  the same, with this process spinning between round trips for the referee's CPU time
      per request of the bot in (b) (engine, other seats);
(a'') the same, busy that long with engine work (random `machiavelli` decisions, each
      observation encoded): what the referee really does between requests, which leaves
      both processes' caches cold for the next round trip where a spin leaves them warm;
(b)   the referee with a persistent bot among three built-ins, over real `machiavelli`
      decisions: the round trip the bot is charged (request sent -> action arrived). The
      bot is the Python random bot through `arena.client` as it is (`--bot python`), or
      the C starter (`--bot c`; `make -C sample_bots/c`);
(b')  the same games (each seed is played with each) with a second process of the same
      bot, timed for the breakdown: the Python bot times itself (frame in -> action out, and
      its decoding of the request) and the referee times its CPU while waiting. Timing
      costs the round trip 5-12 us at `--pin 1`, which (b) does not count (before, it did).
(a), (a'), (a''), (b) and (b') run interleaved in `--rounds` blocks so that a load from elsewhere
hits them alike. Then a breakdown of (b') (engine, encode, bot, referee CPU while waiting
against a bare wait's, and its work after the action arrived, which is off the bot's clock),
and games/s of a 4-player game between four persistent Python random bots.
Target: b/a <= 1.3.

Reading it: (b) - (a'') is what the referee and the client add (the bot's own time, the
referee's receive beyond a bare wait); (a'') - (a) is what any referee that computes between
messages pays on the bare transport (cold caches), and (a') - (a) the part of it that is the
scheduler's view of a busy process. bench/client_path.py times the Python client's part
alone, in one process (at `--pin 1`, ~7 us of (b) - (a''), most of it decoding the request
with cold caches). The C starter parses every request whole (cJSON), which costs it more
than the Python client's lazy decoding: at `--pin 1` its b/a read 1.64-1.71 against the
Python bot's 1.32-1.41 (load 8-9).

`--sandbox on|off`: the bots of (b) and of the games/s run under bubblewrap with the limits a
tournament gives them (`on`, the default; it refuses to run where bubblewrap does not work),
or as plain processes (`off`, `sandbox: none`); run both to read the sandbox's share of the
round trip.

`--pin CPU`: everything on one CPU. On a shared 2-core machine the scheduler places the two
processes of a round trip on one core or on two, per process pair and for seconds at a time,
and (a) and (b) are different pairs: unpinned medians then jump by 2x between runs, while
pinned ones repeat within a few microseconds. Unpinned is what a run of `arena` gets. On one
CPU the referee's work between requests (engine, the other seats) evicts the bot's caches, so
the bot's own time per request is about twice what it is in a tight loop (client_path.py).

`--pin A,B`: the placement of a many-core machine (where the issue's figures were taken) on
two cores: this process (the referee and (a)'s ROUTER, every thread they start, ZeroMQ's I/O
thread included) on CPU A, the bots and the echo process (their threads and I/O threads) on
CPU B, with or without the sandbox (bench/placement.py says how). Each round trip then
crosses cores, as it does on a big machine, and the referee's work between requests no
longer runs on the bot's CPU (other users' work still may). The figures are larger in
absolute terms (a cross-core wake-up each way) and shift with what other users run on
either CPU; read the ratios. Both pinned placements print what each thread of every process
was allowed to run on, read from /proc during the run. Measured (6 runs each, load 5-5.5,
pyzmq's compiled send in the referee and the client): `--pin 0,1` b/a 1.10-1.32, b/a''
0.94-1.05; `--pin 1` b/a 1.24-1.46, b/a'' 1.01-1.30. With the client's own DEALER
(arena/_zmtp.py; (a) is still pyzmq on both sides), another machine, load 0.6: `--pin 1`
b/a 1.03-1.24 over 3 runs (the pyzmq client in the same hour: 1.23), `--pin 0,1` 1.09-1.10
(1.05); games/s of four Python bots at `--pin 1` 55-60 (51.6).

Run: `.venv/bin/python bench/protocol.py [--games N] [--rounds R] [--sandbox on|off]
[--bot python|c] [--pin CPU|A,B]`. Prints figures; asserts nothing. On a loaded machine run it
2-3 times and read the ranges.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import msgspec
import zmq
from args import positive  # bench/args.py
from placement import Placement, snapshot  # bench/placement.py, next to this script

import arena.referee.match as match
import arena.referee.process as process
from arena.core.errors import ConfigError
from arena.core.registry import Registry
from arena.games import REGISTRY
from arena.protocol import Request
from arena.referee import BotSpec, FaultPolicy, Referee, TimeControl
from arena.referee.replay import Step
from arena.referee.sandbox import SandboxMode, SandboxPolicy
from arena.referee.transport import ZmqTransport

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_bots" / "python"
SANDBOX = {"on": SandboxMode.BWRAP, "off": SandboxMode.NONE}
"""`--sandbox`: what a tournament file's `sandbox: bwrap` or `sandbox: none` gives its bots,
with a tournament's default limits (`Limits()`)."""
RANDOM_BOT = (sys.executable, str(SAMPLES / "random_bot.py"))
encode_json = msgspec.json.Encoder().encode
C_BOT = ROOT / "sample_bots" / "c" / "bot"
"""The C starter (`make -C sample_bots/c`): a compiled bot with a full JSON parse (cJSON) of
every request, for `--bot c`."""
ACTION = b'{"type":"action","id":123,"action":{"type":"pick_character","character":"king"}}'
ECHO = """
import sys, zmq
socket = zmq.Context().socket(zmq.DEALER)
socket.connect(sys.argv[1])
reply = b"x" * int(sys.argv[2])
socket.send(b"ready")
while (frame := socket.recv()) != b"stop":
    socket.send(reply)
"""
TIMED_BOT = """
import atexit, json, os, statistics, sys, time
sys.path.insert(0, sys.argv[1])
MARK = sys.argv[2]
import arena._zmtp as zmtp
import arena.client as client
import random_bot
wall, cpu, decode = [], [], []
mark = [0.0, 0.0]
real_send, real_recv, real_decode = zmtp.Dealer.send, zmtp.Dealer.recv, client.decode_message
def timed_decode(frame):
    start = time.perf_counter()
    message = real_decode(frame)
    decode.append(time.perf_counter() - start)
    return message
def recv(self):
    frame = real_recv(self)
    mark[0], mark[1] = time.perf_counter(), time.thread_time()
    return frame
def send(self, data):
    if mark[0]:
        wall.append(time.perf_counter() - mark[0])
        cpu.append(time.thread_time() - mark[1])
    return real_send(self, data)
client.decode_message, zmtp.Dealer.recv, zmtp.Dealer.send = timed_decode, recv, send
def report():
    if wall:  # to stderr, which the referee keeps in the bot's log: the sandbox hides the rest
        print(MARK + json.dumps({"wall": statistics.median(wall), "cpu": statistics.median(cpu),
              "decode": statistics.median(decode), "n": len(wall)}), file=sys.stderr, flush=True)
atexit.register(report)
client.run(random_bot.act, name="random", version="1.0", argv=[])
"""
"""The sample random bot, timing in its own process the time from a frame received to the
action sent (wall and CPU) and the decoding of the request (~1 us of overhead per message).
Its figures come back as one line of its stderr, which the referee keeps in the bot's log
(a sandboxed bot cannot write to the bench's directory)."""
BOT_MARK = "bench-bot-figures: "
LABELS = {"bot": "b", "timed": "b'"}
"""The bots of (b) by name -> their samples: the bot as it is, and the same bot timing itself
in its process for the breakdown (in alternate games)."""


def bot_figures(workdir: Path, name: str) -> dict[str, float] | None:
    """The timed bot's figures from its log, or None when it wrote none."""
    log = workdir / "logs" / f"{name}.log"
    lines = log.read_text(errors="replace").splitlines() if log.exists() else []
    found = [line.split(BOT_MARK, 1)[1] for line in lines if BOT_MARK in line]
    return json.loads(found[-1]) if found else None


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def us(seconds: float) -> str:
    return f"{seconds * 1e6:.0f} us"


class Samples(defaultdict[str, list[float]]):
    """Durations in seconds by label."""

    def __init__(self) -> None:
        super().__init__(list)

    def median(self, label: str) -> float:
        return statistics.median(self[label]) if self[label] else 0.0


class TimedGame:
    """An engine whose every method call is timed into `samples["engine:NAME"]`."""

    def __init__(self, game: Any, samples: Samples) -> None:
        self._game, self._samples, self.info = game, samples, game.info

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._game, name)
        if not callable(attr):
            return attr
        sink = self._samples[f"engine:{name}"]

        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return attr(*args, **kwargs)
            finally:
                sink.append(time.perf_counter() - start)

        setattr(self, name, timed)  # found directly next time
        return timed


def instrument(samples: Samples, frames: list[bytes]) -> Callable[[], None]:
    """Time the referee's request encoding (before the bot's clock starts) and its decoding of
    the action (after it stopped); keep the request frames.

    Returns the function that undoes it.
    """
    # monkeypatching the names run_game calls (bench only)
    encode, decode = getattr(match, "encode"), getattr(match, "decode_bot")  # noqa: B009

    def timed_encode(message: Any) -> bytes:
        start = time.perf_counter()
        frame: bytes = encode(message)
        if isinstance(message, Request):
            samples["encode"].append(time.perf_counter() - start)
            frames.append(frame)
        return frame

    def timed_decode(frame: bytes, *args: Any) -> Any:
        start = time.perf_counter()
        try:
            return decode(frame, *args)
        finally:
            samples["decode"].append(time.perf_counter() - start)

    setattr(match, "encode", timed_encode)  # noqa: B010
    setattr(match, "decode_bot", timed_decode)  # noqa: B010

    def undo() -> None:
        setattr(match, "encode", encode)  # noqa: B010
        setattr(match, "decode_bot", decode)  # noqa: B010
    return undo


def time_waits(samples: Samples) -> Callable[[], None]:
    """Time the referee's CPU in its waits (the transport's receive: on the bot's clock, so
    only in the games of (b')) and what it does after the action arrived (off the clock).

    Returns the function that undoes it.
    """
    wait, receive = match._Match._await, ZmqTransport.recv
    received = [0.0]  # CPU time in the transport's receive during the current wait

    def timed_receive(self: Any, *args: Any) -> Any:
        start = time.thread_time()
        try:
            return receive(self, *args)
        finally:
            received[0] += time.thread_time() - start

    def timed_wait(self: Any, *args: Any) -> Any:
        start, received[0] = time.thread_time(), 0.0
        try:
            return wait(self, *args)
        finally:
            samples["wait cpu"].append(received[0])
            samples["after cpu"].append(time.thread_time() - start - received[0])

    setattr(match._Match, "_await", timed_wait)  # noqa: B010
    setattr(ZmqTransport, "recv", timed_receive)  # noqa: B010

    def undo() -> None:
        setattr(match._Match, "_await", wait)  # noqa: B010
        setattr(ZmqTransport, "recv", receive)  # noqa: B010
    return undo


class EngineWork:
    """(a''): one decision of a random 4-player `machiavelli` game per call, its observation
    encoded as the referee would: the referee's own kind of work between round trips, which
    (unlike a spin) leaves the caches to the next round trip as the referee's does."""

    def __init__(self) -> None:
        self._game = REGISTRY.get("machiavelli")
        self._seed = itertools.count()
        self._rng = random.Random(0)
        self._state = self._game.new_game(4, {}, next(self._seed))

    def __call__(self) -> None:
        game, state = self._game, self._state
        decision = game.to_act(state)
        if decision is None:
            self._state = game.new_game(4, {}, next(self._seed))
            return
        encode_json(game.observation(state, decision.seat))
        game.apply(state, decision.seat, game.random_action(state, decision.seat, self._rng))


class Echo:
    """(a): a ROUTER here, a DEALER echo process there."""

    def __init__(self, reply_size: int, placement: Placement | None) -> None:
        self._tmp = tempfile.TemporaryDirectory()
        self._context = zmq.Context()
        self._router = self._context.socket(zmq.ROUTER)
        endpoint = f"ipc://{self._tmp.name}/bench.sock"
        self._router.bind(endpoint)
        self._child = subprocess.Popen(
            [sys.executable, "-c", ECHO, endpoint, str(reply_size)],
            preexec_fn=placement.child_setup() if placement is not None else None)
        self.pid = self._child.pid
        self._peer, _ = self._router.recv_multipart()
        self._poller = zmq.Poller()
        self._poller.register(self._router, zmq.POLLIN)

    def round_trips(self, frames: Iterator[bytes], count: int, busy_s: float = 0.0,
                    cpu: list[float] | None = None,
                    work: Callable[[], object] | None = None) -> list[float]:
        """Time `count` round trips, each after `busy_s` of spinning (or of calls to `work`);
        append the CPU time of each wait (poll, receive) to `cpu`."""
        times, waits = [], cpu if cpu is not None else []
        for _ in range(count):
            if busy_s:
                until = time.perf_counter() + busy_s
                while time.perf_counter() < until:
                    if work is not None:
                        work()
            frame = next(frames)
            start = time.perf_counter()
            self._router.send_multipart([self._peer, frame])
            waited = time.thread_time()
            self._poller.poll(5000)
            self._router.recv_multipart()
            times.append(time.perf_counter() - start)
            waits.append(time.thread_time() - waited)
        return times

    def close(self) -> None:
        self._router.send_multipart([self._peer, b"stop"])
        self._child.wait()
        self._router.close(linger=0)
        self._context.term()
        self._tmp.cleanup()


def placed_now(echo: Echo) -> list[str]:
    """Where each thread of this process and of its children may run, named."""
    watchdog = getattr(process._watchdog, "pid", 0)
    return snapshot({echo.pid: "echo of (a)", watchdog: "the referee's watchdog"},
                    {"bwrap --": "bubblewrap, around a bot", BOT_MARK: "timed bot of (b')",
                     "random_bot.py": "bot of (b)", str(C_BOT): "C bot of (b) or (b')"})


def play(referee: Referee, seed: int, bot: str, keep: Callable[[Step], None],
         samples: Samples) -> int:
    """Play one game of `bot` against three built-ins, the referee's waits timed in the games
    of (b') only; return its number of decisions."""
    undo = time_waits(samples) if bot == "timed" else None
    try:
        return referee.play("machiavelli", {}, seed, [bot, "b0", "b1", "b2"],
                            on_step=keep).decisions
    finally:
        if undo is not None:
            undo()


def interleaved(games: int, rounds: int, workdir: Path, sandbox: SandboxPolicy,
                bots: dict[str, tuple[str, ...]], placement: Placement | None) -> dict[str, Any]:
    """Run (b) (each seed once with each of `bots`: label -> command), (a), (a') and (a'')
    in `rounds` blocks; return every sample (and, when pinned, where each thread was allowed
    to run during the first block)."""
    samples, frames = Samples(), list[bytes]()
    registry = Registry()
    registry.register(TimedGame(REGISTRY.get("machiavelli"), samples))  # type: ignore[arg-type]
    specs = [*(BotSpec(label, cmd) for label, cmd in bots.items()),
             *(BotSpec(f"b{i}", ("builtin:random",)) for i in range(3))]
    seated = [""]

    def keep(step: Step) -> None:
        if step.source == "bot":
            samples[LABELS[seated[0]]].append(step.time_ms / 1000)

    echo, work = Echo(len(ACTION), placement), EngineWork()
    placed: list[str] = []
    undo = instrument(samples, frames)
    decisions = 0
    try:
        with Referee(specs, TimeControl(move_ms=5000), FaultPolicy(), workdir,
                     registry=registry, sandbox=sandbox) as referee:
            isolation = referee.isolation
            seeds = iter(range(games))
            for block in range(rounds):
                before, start, cpu = len(samples["b"]), time.perf_counter(), time.thread_time()
                asked_all = sum(len(samples[LABELS[name]]) for name in bots)
                for seed in itertools.islice(seeds, games // rounds + (block < games % rounds)):
                    for seated[0] in bots:  # the same game for each: same seed, same bot seed
                        decisions += play(referee, seed, seated[0], keep, samples)
                asked = len(samples["b"]) - before
                asked_all = sum(len(samples[LABELS[name]]) for name in bots) - asked_all
                if placement is not None and not placed:  # the bots and the echo still run
                    placed = placed_now(echo)
                wall = time.perf_counter() - start
                # the referee's CPU time per request of a bot (its send/recv part is small)
                busy = (time.thread_time() - cpu) / max(asked_all, 1)
                samples["busy"].append(busy)
                samples["a"] += echo.round_trips(itertools.cycle(frames), asked)
                samples["a'"] += echo.round_trips(itertools.cycle(frames), asked, busy,
                                                  samples["a2 wait cpu"])
                samples["a''"] += echo.round_trips(itertools.cycle(frames), asked, busy,
                                                   samples["a3 wait cpu"], work)
                samples["wall"].append(wall)
    finally:
        undo()
        echo.close()
    return {"samples": samples, "frames": frames, "decisions": decisions,
            "bot": bot_figures(workdir, "timed"), "isolation": isolation, "placed": placed,
            "bot name": "C starter bot" if bots["bot"][0] == str(C_BOT) else "Python random bot"}


def games_per_second(games: int, workdir: Path, sandbox: SandboxPolicy) -> float:
    """Four persistent Python random bots, 4-player games."""
    bots = [BotSpec(f"r{i}", RANDOM_BOT) for i in range(4)]
    with Referee(bots, TimeControl(move_ms=5000), FaultPolicy(), workdir,
                 sandbox=sandbox) as referee:
        start = time.monotonic()
        for seed in range(games):
            referee.play("machiavelli", {}, seed, ["r0", "r1", "r2", "r3"])
        return games / (time.monotonic() - start)


def report(result: dict[str, Any], rate: float) -> None:
    """Print the figures."""
    s: Samples = result["samples"]
    sizes = [len(f) for f in result["frames"]]
    a, a2, a3, b = s.median("a"), s.median("a'"), s.median("a''"), s.median("b")
    isolation = result["isolation"]
    cpus = len(os.sched_getaffinity(0))
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores ({cpus} for this "
          f"process); bots: sandbox {isolation.mode}, limits by {isolation.enforcer.value}")
    if result["placed"]:
        print("placement (CPUs each thread may run on, read from /proc during the run):")
        print("\n".join(result["placed"]))
    print(f"request frames: median {int(statistics.median(sizes))} B, p99 "
          f"{percentile(sizes, 0.99)} B; action frames {len(ACTION)} B")
    for label, name in (("a", "(a)   bare round trip"), ("a'", "(a')  bare, referee busy"),
                        ("a''", "(a'') bare, busy with engine work"),
                        ("b", f"(b)   referee + {result['bot name']}"),
                        ("b'", "(b')  the same, timed")):
        if not s[label]:
            continue
        print(f"{name:34} median {us(s.median(label)):>7}, p99 {us(percentile(s[label], .99)):>8}"
              f"  ({len(s[label])} round trips)")
    timed = s.median("b'")
    print(f"ratio b/a (median): {b / a:.2f}  (target <= 1.3); b/a'': {b / a3:.2f}; timed, "
          f"b'/a: {timed / a:.2f}, b'/a'': {timed / a3:.2f}")
    print(f"referee CPU per request of the bot (a', a'' busy that long): "
          f"{us(statistics.mean(s['busy']))}")
    bot = result["bot"]
    encode, decode = s.median("encode"), s.median("decode")
    print("breakdown (the bot and the referee's waits timed in (b')), medians per request of "
          "the bot:")
    print(f"  before the clock starts: engine observation {us(s.median('engine:observation'))}, "
          f"encode request {us(encode)}")
    wait, bare_wait = s.median("wait cpu"), s.median("a3 wait cpu")
    if bot is not None:
        print(f"  bot process, frame in -> action out: {us(bot['wall'])} "
              f"(CPU {us(bot['cpu'])}; of which decoding the request {us(bot['decode'])})")
    print(f"  referee CPU while waiting (receive): {us(wait)}; a bare wait in (a'') (poll, "
          f"receive): {us(bare_wait)}")
    print(f"  after the action arrived, off the bot's clock: decode {us(decode)}, with the "
          f"checks {us(s.median('after cpu'))} of referee CPU")
    if bot is not None:
        unexplained = timed - a3 - bot["wall"] - (wait - bare_wait)
        print(f"  (b') - (a'') = {us(timed - a3)}: bot process {us(bot['wall'])} + referee "
              f"beyond a bare wait {us(wait - bare_wait)} + the rest {us(unexplained)}; "
              f"the timing itself (b') - (b) = {us(timed - b)}")
    print(f"  (a'') - (a) = {us(a3 - a)}: the caches the referee's work between round trips "
          f"leaves cold,\n    of which (a') - (a) = {us(a2 - a)} is the scheduler's view of a "
          "busy process; b/a'' is the referee's and client's own share")
    engine = sum(sum(v) for k, v in s.items() if k.startswith("engine:"))
    wall = sum(s["wall"])
    calls = ", ".join(f"{k.removeprefix('engine:')} {us(statistics.mean(v))}"
                      for k, v in sorted(s.items()) if k.startswith("engine:") and len(v) > 100)
    n = result["decisions"]
    print(f"per decision of any seat ({n}): wall {us(wall / n)}, of which engine "
          f"{us(engine / n)} (mean per call: {calls})")
    print(f"4 persistent Python random bots, 4 players: {rate:.1f} games/s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=positive, default=30,
                        help="games in (b), each played again in (b')")
    parser.add_argument("--rounds", type=positive, default=10, help="interleaved blocks")
    parser.add_argument("--sandbox", choices=sorted(SANDBOX), default="on",
                        help="bots under bubblewrap with a tournament's limits, or plain "
                             "processes (default: on)")
    parser.add_argument("--bot", choices=("python", "c"), default="python",
                        help="the bot of (b): the Python random bot through arena.client, "
                             "timed in its process (default), or the C starter bot (its "
                             "random strategy; build it with `make -C sample_bots/c`)")
    parser.add_argument("--pin", type=Placement.parse, metavar="CPU|A,B",
                        help="run the bench and every process it starts on this CPU only, "
                             "or the bench on A and the bots and echo process on B (steady "
                             "figures on a shared machine: see above)")
    args = parser.parse_args()
    if args.pin is not None:  # before any ZeroMQ context: its I/O thread inherits it
        args.pin.apply()
    sandbox = SandboxPolicy(SANDBOX[args.sandbox])
    bots = {"bot": RANDOM_BOT, "timed": (sys.executable, "-c", TIMED_BOT, str(SAMPLES), BOT_MARK)}
    if args.bot == "c":
        if not C_BOT.exists():
            sys.exit(f"bench/protocol.py: no {C_BOT}: build it with `make -C sample_bots/c`")
        bots = {"bot": (str(C_BOT),), "timed": (str(C_BOT),)}
    with tempfile.TemporaryDirectory() as tmp:
        try:
            result = interleaved(args.games, args.rounds, Path(tmp), sandbox, bots, args.pin)
        except ConfigError as exc:  # `on` where bubblewrap does not work
            sys.exit(f"bench/protocol.py: {exc}")
        rate = games_per_second(args.games, Path(tmp), sandbox)
    report(result, rate)


if __name__ == "__main__":
    main()
