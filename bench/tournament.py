"""Tournament benchmarks (figures printed, nothing asserted).

- games/s of the demo tournament at concurrency 1 and 2, and their ratio (target >= 1.7
  on 2 cores); the demo's 20 games take about two seconds, mostly starting workers and
  bots, so it is played with LONGER times as many repeats of each table;
- the time to pair one Swiss round of 1000 bots at tables of 4 (target < 1 s);
- the time of the batch rating fit over 100k synthetic 4-player games (target < 5 s).

Run: .venv/bin/python bench/tournament.py
"""

from __future__ import annotations

import dataclasses
import random
import sys
import tempfile
import time
from pathlib import Path

from arena.tournament.config import load_config
from arena.tournament.pairing import History, swiss_round
from arena.tournament.ratings import fit
from arena.tournament.runner import Progress, Runner

ROOT = Path(__file__).resolve().parents[1]
LONGER = 4


def demo_rate(concurrency: int) -> tuple[float, float, int, float]:
    """Run the demo tournament; return (games/s overall, games/s once every worker is
    playing, games, seconds including worker and bot start-up)."""
    config = load_config(ROOT / "tournaments" / "demo.yaml")
    config = dataclasses.replace(config, games_per_pairing=config.games_per_pairing * LONGER)
    finished: list[float] = []

    def seen(progress: Progress) -> None:
        if len(finished) < progress.done:
            finished.append(time.perf_counter())

    with tempfile.TemporaryDirectory() as out:
        start = time.perf_counter()
        table = Runner(config, Path(out), concurrency=concurrency, on_progress=seen).run()
        seconds = time.perf_counter() - start
    first = concurrency  # steady state: from the first round of games to the last game
    steady = (len(finished) - first) / (finished[-1] - finished[first - 1])
    return table.games / seconds, steady, table.games, seconds


def swiss_1000() -> float:
    """Pair round 2 of a 1000-bot Swiss at tables of 4 (after a random first round)."""
    bots = [f"bot{i:04d}" for i in range(1000)]
    first = swiss_round(1, bots, History(), 4, 3, 1)
    ranked = bots[:]
    random.Random(1).shuffle(ranked)
    history = History.of([first])
    start = time.perf_counter()
    swiss_round(2, ranked, history, 4, 3, 1)
    return time.perf_counter() - start


def fit_100k() -> float:
    """Fit 100k synthetic 4-player games among 64 bots."""
    rng = random.Random(5)
    bots = [f"bot{i:02d}" for i in range(64)]
    strength = {b: rng.gauss(0, 1) for b in bots}
    games = []
    for _ in range(100_000):
        table = rng.sample(bots, 4)
        order = sorted(table, key=lambda b: strength[b] + rng.gauss(0, 1.5), reverse=True)
        games.append([(b, order.index(b) + 1) for b in table])
    start = time.perf_counter()
    fit(games)
    return time.perf_counter() - start


def main() -> None:
    one, steady1, games, s1 = demo_rate(1)
    two, steady2, _, s2 = demo_rate(2)
    print(f"demo tournament ({games} games), start-up included: concurrency 1: {one:.1f} "
          f"games/s ({s1:.2f} s), concurrency 2: {two:.1f} games/s ({s2:.2f} s), "
          f"ratio {two / one:.2f} (target >= 1.7 on 2 cores)")
    print(f"  steady state (after start-up): {steady1:.1f} and {steady2:.1f} games/s, "
          f"ratio {steady2 / steady1:.2f}")
    print(f"swiss round of 1000 bots, tables of 4: {swiss_1000() * 1000:.1f} ms (target < 1 s)")
    print(f"batch fit of 100k 4-player games: {fit_100k():.2f} s (target < 5 s)")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
