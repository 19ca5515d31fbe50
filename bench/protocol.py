"""Protocol benchmark: (a) bare pyzmq ROUTER/DEALER ping-pong with frames the size of real
requests and actions, (b) the referee with a persistent Python random bot over real
`machiavelli` decisions; median and p99 per round trip, the ratio b/a (target <= 1.3), and
games/s of a 4-player game between four persistent Python random bots.

Run: `.venv/bin/python bench/protocol.py [--games N]`. Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import zmq

from arena.referee import BotSpec, FaultPolicy, Referee, TimeControl
from arena.referee.replay import Step

ROOT = Path(__file__).resolve().parents[1]
RANDOM_BOT = (sys.executable, str(ROOT / "sample_bots" / "python" / "random_bot.py"))
ECHO = """
import sys, zmq
socket = zmq.Context().socket(zmq.DEALER)
socket.connect(sys.argv[1])
reply = b"x" * int(sys.argv[2])
socket.send(b"ready")
while (frame := socket.recv()) != b"stop":
    socket.send(reply)
"""


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def referee_round_trips(games: int, workdir: Path) -> tuple[list[float], list[int]]:
    """(b): round trips (ms) of one process bot among built-ins, and the request sizes."""
    times: list[float] = []
    bots = [BotSpec("bot", RANDOM_BOT), *(BotSpec(f"b{i}", ("builtin:random",)) for i in range(3))]

    def keep(step: Step) -> None:
        if step.source == "bot":
            times.append(step.time_ms)

    with Referee(bots, TimeControl(move_ms=5000), FaultPolicy(), workdir) as referee:
        for seed in range(games):
            referee.play("machiavelli", {}, seed, ["bot", "b0", "b1", "b2"], on_step=keep)
        sizes = _request_sizes(referee, workdir)
    return times, sizes


def _request_sizes(referee: Referee, workdir: Path) -> list[int]:
    """Sizes of real request frames, from one game with a replay and the same engine."""
    from arena.games import REGISTRY
    from arena.protocol import Request, encode
    from arena.referee.replay import read_replay
    from arena.referee.review import resimulate

    path = workdir / "sizes.jsonl"
    referee.play("machiavelli", {}, 999, ["bot", "b0", "b1", "b2"], replay=path)
    game = REGISTRY.get("machiavelli")
    sizes = []
    for item in resimulate(read_replay(path), game):
        decision = item.decision
        assert decision is not None
        request = Request(id=1, kind=decision.kind, seat=decision.seat,
                          observation=game.observation(item.before, decision.seat), events=[],
                          options=list(decision.options or []), context=dict(decision.context),
                          move_ms=1000, bank_ms=0)
        sizes.append(len(encode(request)))
    return sizes


def bare_round_trips(request_size: int, action_size: int, count: int) -> list[float]:
    """(a): ROUTER in this process, DEALER echo in another, frames of the given sizes."""
    context = zmq.Context()
    router = context.socket(zmq.ROUTER)
    with tempfile.TemporaryDirectory() as tmp:
        endpoint = f"ipc://{tmp}/bench.sock"
        router.bind(endpoint)
        child = subprocess.Popen([sys.executable, "-c", ECHO, endpoint, str(action_size)])
        peer, _ = router.recv_multipart()
        payload = b"x" * request_size
        poller = zmq.Poller()
        poller.register(router, zmq.POLLIN)
        times = []
        for _ in range(count):
            start = time.monotonic()
            router.send_multipart([peer, payload])
            poller.poll(5000)
            router.recv_multipart()
            times.append((time.monotonic() - start) * 1000)
        router.send_multipart([peer, b"stop"])
        child.wait()
    router.close(linger=0)
    context.term()
    return times


def games_per_second(games: int, workdir: Path) -> float:
    """Four persistent Python random bots, 4-player games."""
    bots = [BotSpec(f"r{i}", RANDOM_BOT) for i in range(4)]
    with Referee(bots, TimeControl(move_ms=5000), FaultPolicy(), workdir) as referee:
        start = time.monotonic()
        for seed in range(games):
            referee.play("machiavelli", {}, seed, ["r0", "r1", "r2", "r3"])
        return games / (time.monotonic() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=20, help="games per measurement")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        referee_ms, sizes = referee_round_trips(args.games, Path(tmp))
        request_size = int(statistics.median(sizes))
        action_size = 48  # e.g. {"type":"action","id":123,"action":{"type":"gather_gold"}}
        bare_ms = bare_round_trips(request_size, action_size, len(referee_ms))
        rate = games_per_second(args.games, Path(tmp))
    a_med, b_med = statistics.median(bare_ms), statistics.median(referee_ms)
    print(f"request frames: median {request_size} B, p99 {percentile(sizes, 0.99)} B; "
          f"action frames ~{action_size} B")
    print(f"(a) bare pyzmq ROUTER/DEALER round trip: median {a_med * 1000:.0f} us, "
          f"p99 {percentile(bare_ms, 0.99) * 1000:.0f} us  ({len(bare_ms)} round trips)")
    print(f"(b) referee + Python random bot:          median {b_med * 1000:.0f} us, "
          f"p99 {percentile(referee_ms, 0.99) * 1000:.0f} us  ({len(referee_ms)} decisions)")
    print(f"ratio b/a (median): {b_med / a_med:.2f}  (target <= 1.3)")
    print(f"4 persistent Python random bots, 4 players: {rate:.1f} games/s")


if __name__ == "__main__":
    main()
