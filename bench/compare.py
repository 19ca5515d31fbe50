"""`arena compare` benchmark (figures printed, nothing asserted).

For the sample bots, plays a fixed number of duplicate deals through the real command's
machinery (worker pool, referee, store) and prints:

- the variance reduction factor of duplicate deals, (var c + var b) / var(c - b): how many
  times fewer games the same precision takes than with a fresh deal for every game;
- games per second of `compare` (wall time, worker and bot start-up included).

Pairings: `machiavelli` with 4 players (greedy against random, among random opponents and
among greedy opponents) and `machiavelli-rummy` with 2 players (the solver against random,
head-to-head, and each against a solver). The hypotheses are set so that the test never
stops early: every deal is played.

Run: .venv/bin/python bench/compare.py [DEALS]   (default 50 deals, 100 games, per line)
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

from arena.referee.sandbox import SandboxMode, SandboxPolicy
from arena.referee.spec import BotSpec
from arena.tournament.compare import CompareSetup, fill_opponents
from arena.tournament.compare_run import CompareRun
from arena.tournament.sprt import Hypotheses

ROOT = Path(__file__).resolve().parents[1]
BOTS = ROOT / "sample_bots" / "python"
NEVER = Hypotheses(-1, 1, 1e-9, 1e-9)
"""Bounds of +-20.7 on the LLR of a 2-Elo gap: not reached in a benchmark's deals."""


def bot(name: str, script: str) -> BotSpec:
    return BotSpec(name, (sys.executable, str(BOTS / script)))


def measure(setup: CompareSetup, deals: int) -> tuple[float | None, float, int]:
    """Return (variance reduction, games/s, games) of `deals` deals."""
    with tempfile.TemporaryDirectory() as out:
        start = time.perf_counter()
        result = CompareRun(setup, Path(out), max_games=2 * deals,
                            concurrency=os.cpu_count()).run()
        seconds = time.perf_counter() - start
    return result.status.variance_reduction, result.stored / seconds, result.stored


def main() -> None:
    deals = int(sys.argv[1]) if len(sys.argv) > 1 else 50
    none = SandboxPolicy(SandboxMode.NONE)
    greedy, rand = bot("greedy", "greedy_bot.py"), bot("random", "random_bot.py")
    solver = bot("solver", "rummy_solver_bot.py")
    cases = {
        "machiavelli, 4 players: greedy vs random, random opponents": CompareSetup(
            "machiavelli", 4, greedy, rand,
            fill_opponents([BotSpec("opp", ("builtin:random",))], 3),
            hypotheses=NEVER, sandbox=none),
        "machiavelli, 4 players: greedy vs random, greedy opponents": CompareSetup(
            "machiavelli", 4, greedy, rand, fill_opponents([bot("opp", "greedy_bot.py")], 3),
            hypotheses=NEVER, sandbox=none),
        "machiavelli-rummy, 2 players: solver vs random, head-to-head": CompareSetup(
            "machiavelli-rummy", 2, solver, rand, hypotheses=NEVER, sandbox=none),
        "machiavelli-rummy, 2 players: solver vs random, each against a solver": CompareSetup(
            "machiavelli-rummy", 2, solver, rand, (bot("opp", "rummy_solver_bot.py"),),
            hypotheses=NEVER, sandbox=none),
    }
    print(f"{deals} deals per line, {os.cpu_count()} workers")
    for label, setup in cases.items():
        factor, rate, games = measure(setup, deals)
        shown = f"{factor:.2f}" if factor is not None else "undefined (no variance)"
        print(f"{label}: variance reduction x{shown}; {rate:.1f} games/s ({games} games)")


if __name__ == "__main__":
    main()
