"""The Dask executor's cost against local worker processes (figures printed, nothing asserted).

- games/s of the demo tournament (each table played LONGER times as often) with 2 local
  worker processes and on a 2-worker Dask LocalCluster, overall (start-up included) and
  once every worker plays, and the cluster's ratio to the local pool's (same run, same
  machine: the cost of the scheduler round trip and of results travelling back);
- the time to pack the demo's bot bundles, and their size.

Run: .venv/bin/python bench/cluster.py [--quick]
"""

from __future__ import annotations

import dataclasses
import os
import sys
import tempfile
import time
from pathlib import Path

from arena.tournament.bundles import CACHE_ENV, pack
from arena.tournament.config import TournamentConfig, load_config
from arena.tournament.runner import Progress, Runner

ROOT = Path(__file__).resolve().parents[1]
WORKERS = 2


def rate(config: TournamentConfig, cluster: str | None) -> tuple[float, float, float, int]:
    """Play `config`; return (games/s overall, games/s once every worker plays, seconds,
    games)."""
    finished: list[float] = []

    def seen(progress: Progress) -> None:
        if len(finished) < progress.done:
            finished.append(time.perf_counter())

    with tempfile.TemporaryDirectory() as out:
        start = time.perf_counter()
        table = Runner(config, Path(out), concurrency=WORKERS, on_progress=seen,
                       cluster=cluster).run()
        seconds = time.perf_counter() - start
    steady = (len(finished) - WORKERS) / (finished[-1] - finished[WORKERS - 1])
    return table.games / seconds, steady, seconds, table.games


def main() -> None:
    longer = 1 if "--quick" in sys.argv else 4
    config = load_config(ROOT / "tournaments" / "demo.yaml")
    config = dataclasses.replace(config, games_per_pairing=config.games_per_pairing * longer)
    home = ROOT / "tournaments"
    start = time.perf_counter()
    bundles = {b.digest: b for b in (pack(bot, default_cwd=home) for bot in config.bots) if b}
    packed = time.perf_counter() - start
    size = sum(len(b.data) for b in bundles.values())
    print(f"bundles: {len(bundles)} distinct for {len(config.bots)} bots, {size / 1024:.0f} "
          f"KiB, packed in {packed * 1000:.0f} ms")
    with tempfile.TemporaryDirectory() as cache:
        os.environ[CACHE_ENV] = cache  # the cluster's first run: bundles are sent
        local = rate(config, None)
        dask = rate(config, f"local:{WORKERS}")
    for name, (overall, steady, seconds, games) in (("local pool", local), ("dask local", dask)):
        print(f"demo x{longer} ({games} games), {WORKERS} workers, {name}: "
              f"{overall:.1f} games/s overall ({seconds:.1f} s), {steady:.1f} once all play")
    print(f"dask / local: {dask[0] / local[0]:.2f} overall, {dask[1] / local[1]:.2f} once all "
          "play (the cluster's start-up and per-game round trip; no target: a cluster pays "
          "off with more machines)")


if __name__ == "__main__":
    main()
