"""Helpers for the hostile-bot zoo: play one game with an attacker and honest neighbours in
bubblewrap, and find what the attacker left behind."""

from __future__ import annotations

import os
import sys
import uuid
from dataclasses import dataclass
from pathlib import Path

from arena.core.record import GameRecord
from arena.referee import BotSpec, FaultPolicy, Referee, TimeControl
from arena.referee.limits import Limits
from arena.referee.sandbox import SandboxMode, SandboxPolicy, probe_bwrap
from tests.polyglot.starters import missing

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
HOSTILE = str(HERE / "bots" / "hostile.py")
RANDOM = str(ROOT / "sample_bots" / "python" / "random_bot.py")
TIME = TimeControl(move_ms=20_000, bank_ms=0, startup_ms=60_000)
"""Limits no honest bot misses on a machine however busy (a fork bomb next door starts 30
Python processes): a timeout of an honest seat must mean an attack got through."""
SEATING = ["attacker", "honest-1", "honest-2", "builtin"]


def need_bwrap() -> None:
    """Skip without bubblewrap, except in CI, where a skipped sandbox test is a failure."""
    path, why = probe_bwrap()
    if path is None:
        missing(f"no sandbox: {why}")


@dataclass
class Outcome:
    record: GameRecord
    logs: dict[str, str]
    marker: str
    referee: Referee


def play_attack(mode: str, run_dir: Path, *, limits: Limits | None = None,
                mode_sandbox: SandboxMode = SandboxMode.BWRAP, time: TimeControl = TIME,
                endpoint: str | None = None, seed: int = 3, hostile: str = HOSTILE,
                env: dict[str, str] | None = None,
                neighbour: tuple[str, ...] | None = None) -> Outcome:
    """One machiavelli game: the attacker in seat 0 (`hostile`, with `env`), two honest
    process bots (the first run by `neighbour`, with `env`, when given), a built-in."""
    marker = f"zoo-{uuid.uuid4().hex}"
    # a Python run on another interpreter's packages (the unprivileged run) passes them on
    path = {"PYTHONPATH": os.environ["PYTHONPATH"]} if "PYTHONPATH" in os.environ else {}
    env = {"ZOO_MARKER": marker, "ZOO_RUNDIR": str(run_dir), **path, **(env or {})}
    bots = [BotSpec("attacker", (sys.executable, hostile, mode), env=env),
            BotSpec("honest-1", neighbour or (sys.executable, RANDOM),
                    env=env if neighbour else path),
            BotSpec("honest-2", (sys.executable, RANDOM), env=path),
            BotSpec("builtin", ("builtin:random",))]
    policy = SandboxPolicy(mode_sandbox, limits or Limits())
    with Referee(bots, time, FaultPolicy(max_faults=3), run_dir, sandbox=policy,
                 endpoint=endpoint) as referee:
        record = referee.play("machiavelli", {}, seed, SEATING,
                              run_dir / "replays" / "game.jsonl")
    logs = {p.stem: p.read_text(errors="replace") for p in (run_dir / "logs").glob("*.log")}
    return Outcome(record, logs, marker, referee)


def survivors(marker: str) -> list[int]:
    """Processes whose command line carries `marker`: what an attacker left running."""
    left = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if marker.encode() in cmdline.read_bytes():
                left.append(int(cmdline.parent.name))
        except OSError:
            continue
    return left


def leftover_cgroups() -> list[Path]:
    """The per-bot cgroups of this process still present (each bot's is removed)."""
    root = Path("/sys/fs/cgroup")
    return [p for c in ("pids", "memory", "cpuacct", "cpu")
            for p in (root / c).glob(f"arena-{os.getpid()}-*")]


def assert_neighbours_unharmed(outcome: Outcome) -> None:
    """The honest seats kept their seats and played clean games."""
    for seat in outcome.record.seats[1:]:
        assert seat.forfeit is None, f"{seat.bot} forfeited: {outcome.record.details}"
        assert seat.faults == 0 and seat.timeouts == 0, outcome.record.faults
        assert seat.version in ("1.0", ""), seat  # the honest bot itself said hello
    assert not survivors(outcome.marker)
    assert not leftover_cgroups()


def found(outcome: Outcome, what: str) -> list[str]:
    """The attacker's `FOUND ...` lines that mention `what`."""
    return [line for line in outcome.logs.get("attacker", "").splitlines()
            if line.startswith("FOUND") and what in line]
