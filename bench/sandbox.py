"""Sandbox benchmark: what bubblewrap (and a cgroup) cost a bot, against no sandbox.

(1) Start-up: the time from starting a bot process to its welcome, through the referee,
    for a Python random bot and, when built, the C starter; `--rounds` interleaved trials
    of each mode so that a load from elsewhere hits both alike. Target: the median with
    bwrap at most 50 ms more than without.
(2) Round trip: the per-decision time the referee charges a persistent Python random bot
    (send -> action parsed) over whole `machiavelli` games, both modes interleaved game by
    game. Target: bwrap/none within 5% (the socket is the same; only the process is
    confined).

Run: `.venv/bin/python bench/sandbox.py [--rounds N] [--games N]`. Prints figures as
ratios and differences against the no-sandbox baseline measured in the same run; asserts
nothing.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from arena.referee import BotSpec, FaultPolicy, Referee, TimeControl
from arena.referee.replay import Step
from arena.referee.sandbox import SandboxMode, SandboxPolicy, probe_bwrap

ROOT = Path(__file__).resolve().parents[1]
PYTHON_BOT = (sys.executable, str(ROOT / "sample_bots" / "python" / "random_bot.py"))
C_BOT = (str(ROOT / "sample_bots" / "c" / "bot"),)
MODES = (SandboxMode.NONE, SandboxMode.BWRAP)
TIME = TimeControl(move_ms=5000, startup_ms=20_000)


def start_once(cmd: tuple[str, ...], mode: SandboxMode, workdir: Path) -> float:
    """Seconds from starting the bot to its welcome (the referee's whole launch)."""
    bots = [BotSpec("bot", cmd), BotSpec("other", ("builtin:random",))]
    referee = Referee(bots, TIME, FaultPolicy(), workdir, sandbox=SandboxPolicy(mode))
    started = time.perf_counter()
    with referee:
        elapsed = time.perf_counter() - started
        if not referee.versions()["bot"]:
            raise SystemExit(f"the bot did not connect with sandbox {mode}")
    return elapsed


def startup(cmd: tuple[str, ...], rounds: int, workdir: Path) -> dict[SandboxMode, list[float]]:
    times: dict[SandboxMode, list[float]] = {m: [] for m in MODES}
    for trial in range(rounds):
        for mode in MODES if trial % 2 == 0 else MODES[::-1]:
            times[mode].append(start_once(cmd, mode, workdir / f"s{trial}{mode}"))
    return times


def _collector(steps: list[float]) -> Callable[[Step], None]:
    """Collect the round trip of each decision the process bot answered."""
    def collect(step: Step) -> None:
        if step.source == "bot":
            steps.append(step.time_ms)
    return collect


def child_round_trips(mode: SandboxMode, games: int, workdir: Path) -> list[float]:
    """Milliseconds charged to the process bot for each decision it answered."""
    bots = [BotSpec("bot", PYTHON_BOT), BotSpec("b", ("builtin:random",)),
            BotSpec("c", ("builtin:random",)), BotSpec("d", ("builtin:random",))]
    steps: list[float] = []
    with Referee(bots, TIME, FaultPolicy(), workdir, sandbox=SandboxPolicy(mode)) as referee:
        for game in range(games):
            referee.play("machiavelli", {}, game, ["bot", "b", "c", "d"],
                         on_step=_collector(steps))
    return steps


def round_trips(games: int, workdir: Path) -> dict[SandboxMode, list[float]]:
    """Per-decision round trips of each mode, each mode's referee alone in a process of
    its own (two referees in one process disturb each other), blocks interleaved."""
    per: dict[SandboxMode, list[float]] = {m: [] for m in MODES}
    blocks = max(2, games // 4)
    for block in range(blocks):
        for mode in MODES if block % 2 == 0 else MODES[::-1]:
            out = subprocess.run(
                [sys.executable, __file__, "--child", mode.value, "--games",
                 str(max(1, games // blocks)), "--workdir", str(workdir / f"rt{block}{mode}")],
                check=True, capture_output=True, text=True).stdout
            per[mode].extend(float(x) for x in out.split())
    return per


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15, help="start-up trials per mode")
    parser.add_argument("--games", type=int, default=20, help="games per mode")
    parser.add_argument("--child", choices=[m.value for m in MODES], help=argparse.SUPPRESS)
    parser.add_argument("--workdir", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        trips = child_round_trips(SandboxMode(args.child), args.games, args.workdir)
        print(" ".join(f"{t:.4f}" for t in trips))
        return
    path, why = probe_bwrap()
    if path is None:
        raise SystemExit(f"no sandbox to measure: {why}")
    with tempfile.TemporaryDirectory(prefix="arena-bench-sandbox-") as scratch:
        workdir = Path(scratch)
        print(f"(1) start-up to welcome, median of {args.rounds} interleaved trials "
              "(target: bwrap <= none + 50 ms)")
        bots: list[tuple[str, tuple[str, ...]]] = [("python random bot", PYTHON_BOT)]
        if Path(C_BOT[0]).exists():
            bots.append(("C starter", C_BOT))
        for label, cmd in bots:
            times = startup(cmd, args.rounds, workdir / label.replace(" ", "-"))
            none, bwrap = (statistics.median(times[m]) * 1000 for m in MODES)
            print(f"    {label:18} none {none:6.1f} ms   bwrap {bwrap:6.1f} ms   "
                  f"+{bwrap - none:5.1f} ms ({bwrap / none:.2f}x)")
        per = round_trips(args.games, workdir)
        none, bwrap = (statistics.median(per[m]) for m in MODES)
        print(f"(2) round trip charged to a Python random bot, median of every decision in "
              f"{args.games} games per mode (target: ratio within 5%)")
        print(f"    none {none * 1000:6.1f} us   bwrap {bwrap * 1000:6.1f} us   "
              f"bwrap/none {bwrap / none:.3f}")


if __name__ == "__main__":
    main()
