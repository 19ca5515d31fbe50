"""The Python client's per-request path in one process: frame in -> action out, no sockets.

bench/protocol.py reads the client's share of a round trip as the difference of two noisy
round trips; this bench times that share alone, steadily enough to compare client changes
(a few tenths of a microsecond). `arena.client.run` plays the sample random bot against a
stand-in socket that hands it the request frames of real `machiavelli` games (the referee's
own encoding, recorded from `run_game`) and notes when each action is sent:

- cold: before each request, `--busy` microseconds of the referee's kind of work (random
  decisions of other games, each observation encoded), as on one CPU (`protocol.py --pin 1`
  prints the referee's CPU per request of the bot: 150-250 us), which leaves the client's
  code and data out of the caches;
- warm: the requests back to back.

Each is given for the whole path and for the decoding of the request alone
(`decode_message`). Measured on the shared 2-core machine (pinned, load 3, 4 runs): the path
6.7-8.0 us cold, 3.8-3.9 us warm, of which decoding 4.6-5.4 us cold and 2.8-3.0 us warm:
the client's own share of (b) in bench/protocol.py is mostly msgspec decoding a request
with cold caches. Tried with `--compare` and left (same runs; the differences are within
what two copies of the same code differ by, ~0.2 us):
- a decoder that cuts the observation and events out of the frame and parses them on first
  read (no scan of most of the bytes): decoding 0.15-0.26 us faster warm, 0.0-0.4 us
  slower cold, the path cold -0.2 to +0.4 us: its extra Python steps cost about what the
  scan did;
- calling a function bot's strategy from the loop directly (two Python frames fewer): the
  path 0.0-0.4 us faster cold, under 1% of a round trip.

`--compare FILE` times another version of arena/client.py (e.g. `git show
main:arena/client.py > /tmp/client_main.py`) in the same process, the two interleaved in
blocks of requests: read the difference within one run, not across runs.

Run: `taskset -c 1 .venv/bin/python bench/client_path.py [--games N] [--busy US]
[--compare FILE]`. Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import msgspec

import arena.client as client
from arena.games import REGISTRY
from arena.protocol import Action, GameStart, Request, Shutdown, encode
from arena.referee.match import run_game
from arena.referee.players import SeatPlayer
from arena.referee.transport import ScriptedReply, ScriptedTransport

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "sample_bots" / "python"))
import random_bot  # noqa: E402  (the sample bot, found through the path set above)

BOT = b"bot"
BLOCK = 40
"""Requests per block when clients are interleaved."""


def request_frames(games: int) -> list[bytes]:
    """The frames of every request to seat 0 of `games` 4-player games (three built-ins)."""
    frames: list[bytes] = []
    rng = random.Random(0)

    def answer(message: Any) -> list[ScriptedReply]:
        if not isinstance(message, Request):
            return []
        frames.append(encode(message))
        action = rng.choice(message.options) if message.options else None
        return [(0.0, encode(Action(id=message.id, action=action)))]

    game = REGISTRY.get("machiavelli")
    for seed in range(games):
        transport = ScriptedTransport()
        transport.add(BOT, answer)
        players = [SeatPlayer.remote("bot", BOT),
                   *(SeatPlayer(f"b{i}", builtin="random") for i in range(3))]
        run_game(game, {}, seed, players, transport, clock=transport.clock)
    return frames


class Work:
    """One decision of a random `machiavelli` game per call, its observation encoded."""

    def __init__(self) -> None:
        self._game, self._seeds, self._rng = REGISTRY.get("machiavelli"), iter(range(10**9)), \
            random.Random(0)
        self._state = self._game.new_game(4, {}, next(self._seeds))
        self._encode = msgspec.json.Encoder().encode

    def __call__(self) -> None:
        game, state = self._game, self._state
        decision = game.to_act(state)
        if decision is None:
            self._state = game.new_game(4, {}, next(self._seeds))
            return
        self._encode(game.observation(state, decision.seat))
        game.apply(state, decision.seat, game.random_action(state, decision.seat, self._rng))


class StandIn:
    """A socket for `client.run`: hands out `frames` after `busy_s` of `work`, notes how long
    after each frame the bot sent its answer."""

    def __init__(self, frames: list[bytes], busy_s: float, work: Callable[[], None]) -> None:
        start = encode(GameStart(game="machiavelli@1", rules={}, seat=0, players=["bot"] * 4,
                                 move_ms=5000, bank_ms=0, max_faults=3, bot_seed=1))
        self._frames = iter([start, *frames, encode(Shutdown())])
        self._busy, self._work = busy_s, work
        self._received = 0.0
        self.times: list[float] = []

    def recv(self) -> bytes:
        until = time.perf_counter() + self._busy
        while time.perf_counter() < until:
            self._work()
        frame = bytes(memoryview(next(self._frames)))  # fresh, as a socket's copy would be
        self._received = time.perf_counter()
        return frame

    def send(self, data: bytes) -> None:
        self.times.append(time.perf_counter() - self._received)

    def close(self, linger: int | None = None) -> None:
        """Nothing to release."""


def path(module: ModuleType, frames: list[bytes], busy_s: float,
         work: Callable[[], None]) -> list[float]:
    """Run a client module over `frames`; return each request's time, frame in -> action
    out."""
    socket = StandIn(frames, busy_s, work)
    # arena.client talks through open_link; a version from before it through connect and
    # the compiled send (--compare with an older arena/client.py)
    seam = "open_link" if hasattr(module, "open_link") else "connect"
    opened, compiled = getattr(module, seam), getattr(module, "_compiled_send", None)
    setattr(module, seam, lambda *args, **kwargs: (socket, None))
    if seam == "connect" and compiled is not None:  # the stand-in is no ZeroMQ socket
        setattr(module, "_compiled_send", lambda stand_in: stand_in.send)  # noqa: B010
    try:
        module.run(random_bot.act, name="random", version="1.0")
    finally:
        setattr(module, seam, opened)
        if compiled is not None:
            setattr(module, "_compiled_send", compiled)  # noqa: B010
        gc.unfreeze()  # run() froze this process's objects at shutdown, as a bot's exit
    return socket.times


def decoding(module: ModuleType, frames: list[bytes], busy_s: float,
             work: Callable[[], None]) -> list[float]:
    """Time a client module's `decode_message` alone over `frames`, each after `busy_s` of
    `work`."""
    times = []
    for frame in frames:
        until = time.perf_counter() + busy_s
        while time.perf_counter() < until:
            work()
        fresh = bytes(memoryview(frame))
        start = time.perf_counter()
        module.decode_message(fresh)
        times.append(time.perf_counter() - start)
    return times


def load(path: Path) -> ModuleType:
    """Import another version of arena/client.py from `path`, as `client_<stem>`."""
    name = f"client_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"bench/client_path.py: cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # msgspec resolves the module's annotations through it
    spec.loader.exec_module(module)
    return module


Timer = Callable[[ModuleType, list[bytes], float, Callable[[], None]], list[float]]


def interleaved(timer: Timer, clients: dict[str, ModuleType], frames: list[bytes],
                busy_s: float, work: Callable[[], None]) -> dict[str, list[float]]:
    """Time each client over `frames` three times, in alternate blocks of 40 requests, so
    that a load from elsewhere hits them alike."""
    times: dict[str, list[float]] = {name: [] for name in clients}
    for start in range(0, 3 * len(frames), BLOCK):
        block = [frames[(start + k) % len(frames)] for k in range(BLOCK)]
        for name, module in clients.items():
            times[name] += timer(module, block, busy_s, work)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=6, help="games whose requests are used")
    parser.add_argument("--busy", type=float, default=150.0,
                        help="microseconds of engine work before each cold request")
    parser.add_argument("--compare", type=Path, action="append", default=[], metavar="FILE",
                        help="another version of arena/client.py, timed interleaved with it "
                             "(repeatable)")
    args = parser.parse_args()
    frames, work = request_frames(args.games), Work()
    clients = {"arena.client": client, **{str(p): load(p) for p in args.compare}}
    print(f"{len(frames)} requests, median {statistics.median(map(len, frames)):.0f} B; "
          f"cold: {args.busy:.0f} us of engine work before each")
    for label, timer in (("frame in -> action out", path), ("decode_message", decoding)):
        for mode, busy in (("cold", args.busy / 1e6), ("warm", 0.0)):
            for name, samples in interleaved(timer, clients, frames, busy, work).items():
                quartile = sorted(samples)[len(samples) // 4]
                print(f"{label:23} {mode}: median {statistics.median(samples) * 1e6:5.2f} us, "
                      f"p25 {quartile * 1e6:5.2f} us  ({name})")


if __name__ == "__main__":
    main()
