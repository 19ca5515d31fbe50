"""Bot processes against the size of the field: peak processes, peak memory, games/s.

For the demo (5 bots), a 32-bot Swiss and a 100-bot Swiss of the Python random bot (tables
of 4), at 1 and 2 workers, bounded (`max_bots` = twice the table size per worker, the
default) against unbounded (every bot alive in every worker). A sampler thread counts the
run's bot processes and their resident memory (RSS from /proc) as often as it can.
Goal: for the 100-bot Swiss, peak bot processes <= workers x 2 x table size, with games/s
within 15% of the unbounded run.

Run: `.venv/bin/python bench/processes.py [--rounds N] [--quick]`. Prints figures as
ratios against the unbounded run of the same field; asserts nothing.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

from arena.tournament.config import TournamentConfig, load_config
from arena.tournament.runner import Runner

ROOT = Path(__file__).resolve().parents[1]
RANDOM = ROOT / "sample_bots" / "python" / "random_bot.py"
PAGE = 4096


class Sampler(threading.Thread):
    """Peak count and total RSS of the processes whose command line holds `marker`."""

    def __init__(self, marker: str) -> None:
        super().__init__(daemon=True)
        self.marker = marker.encode()
        self.peak = self.peak_rss = 0
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.is_set():
            count = rss = 0
            for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
                try:
                    if self.marker not in cmdline.read_bytes():
                        continue
                    pages = int((cmdline.parent / "statm").read_text().split()[1])
                except (OSError, IndexError, ValueError):
                    continue
                count, rss = count + 1, rss + pages * PAGE
            self.peak, self.peak_rss = max(self.peak, count), max(self.peak_rss, rss)
            time.sleep(0.02)


def field(bots: int, swiss_rounds: int | None, marker: str, tmp: Path) -> TournamentConfig:
    fmt = f"format: swiss\nrounds: {swiss_rounds}" if swiss_rounds else \
        "format: round-robin\ngames_per_pairing: 4"
    lines = [f"  - {{name: r{i}, cmd: '{sys.executable} {RANDOM} --marker={marker}'}}"
             for i in range(bots)]
    path = tmp / f"field-{bots}.yaml"
    path.write_text(f"name: field{bots}\ngame: machiavelli\nplayers_per_game: 4\n{fmt}\n"
                    "seed: 5\nsandbox: none\nbots:\n" + "\n".join(lines) + "\n")
    return load_config(path)


def measure(config: TournamentConfig, workers: int, bound: int | None,
            marker: str, out: Path) -> tuple[int, int, float]:
    """(peak bot processes, peak bot RSS in MiB, games/s) of one run."""
    config = dataclasses.replace(config, max_bots=bound)
    sampler = Sampler(marker)
    sampler.start()
    started = time.perf_counter()
    table = Runner(config, out, concurrency=workers).run()
    elapsed = time.perf_counter() - started
    sampler.done.set()
    sampler.join()
    return sampler.peak, sampler.peak_rss >> 20, table.games / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="Swiss rounds (default 3)")
    parser.add_argument("--quick", action="store_true", help="the demo and 32 bots only")
    args = parser.parse_args()
    fields = [(5, None), (32, args.rounds)] + ([] if args.quick else [(100, args.rounds)])
    print("field          workers  bound        peak procs  peak RSS MiB  games/s  "
          "(bounded / unbounded)")
    with tempfile.TemporaryDirectory(prefix="arena-bench-processes-") as scratch:
        tmp = Path(scratch)
        for bots, rounds in fields:
            for workers in (1, 2):
                marker = f"bench-{uuid.uuid4().hex}"
                config = field(bots, rounds, marker, tmp)
                label = f"{bots} bots " + ("swiss" if rounds else "rr")
                free = measure(config, workers, bots, marker, tmp / f"u{bots}-{workers}")
                held = measure(config, workers, None, marker, tmp / f"b{bots}-{workers}")
                bound = 2 * config.table.size
                for name, (procs, rss, rate) in (("unbounded", free),
                                                 (f"max_bots {bound}", held)):
                    print(f"{label:14} {workers:7}  {name:12} {procs:10} {rss:13} "
                          f"{rate:8.1f}")
                print(f"{'':14} {'':7}  {'ratio':12} {held[0] / free[0]:10.2f} "
                      f"{held[1] / max(1, free[1]):13.2f} {held[2] / free[2]:8.2f}   "
                      f"(goal: procs <= {workers * bound}, games/s >= 0.85)")


if __name__ == "__main__":
    main()
