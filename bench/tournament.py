"""Tournament benchmarks (figures printed, nothing asserted).

- games/s of the demo tournament at concurrency 1 and 2, and their ratio (target >= 1.7
  on 2 cores); the demo's 20 games take about two seconds, mostly starting workers and
  bots, so it is played with LONGER times as many repeats of each table;
- scaling by worker count (issue 16), pinned and unpinned, with where each count's CPU
  goes, and the bot starts of the dispatch simulated: bench/scaling.py says what and why
  (alone: `bench/tournament.py --scaling [GAMES_PER_TABLE [WORKERS,...]]`, and
  `bench/tournament.py --dispatch`); the bot starts of a real run, worker by worker and
  why (`bench/tournament.py --starts [WORKERS [GAMES_PER_TABLE]]`: bench/starts.py);
- the CPU of a many-worker run's games with each worker played alone on a core, against
  one worker's, where the machine has fewer cores than workers (`bench/tournament.py
  --emulate [WORKERS [GAMES_PER_TABLE]]`: bench/emulate.py);

- the time to pair one Swiss round of 1000 bots, 2 seats and tables of 4;
- the share of tables repeating a pair, Swiss against the round-robin design, and the
  round-robin design's spread of meetings, and the time to build each Kirkman triple
  system (tables of 3) up to 99 bots;
- where the field has a perfect resolvable design, the Swiss anchored to it against the
  same Swiss unanchored: tables repeating a pair, and the mean score spread within a
  table (alone: `bench/tournament.py --anchor`);
- the time of the batch rating fit at 200 bots x 100k 4-seat games (target < 5 s) and at
  1,000 bots x 1M games (target < 60 s).

Run: .venv/bin/python bench/tournament.py
"""

from __future__ import annotations

import dataclasses
import math
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

from arena.tournament.config import load_config
from arena.tournament.pairing import History, round_robin, swiss_round
from arena.tournament.ratings import fit
from arena.tournament.runner import Progress, Runner

if TYPE_CHECKING:
    import argparse

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


def swiss_1000(size: int) -> float:
    """Pair round 2 of a 1000-bot Swiss at tables of `size` (after a random first round)."""
    bots = [f"bot{i:04d}" for i in range(1000)]
    first = swiss_round(1, bots, History(), size, size, 1)
    ranked = bots[:]
    random.Random(1).shuffle(ranked)
    points = {b: float(i % 4) for i, b in enumerate(bots)}
    ranked.sort(key=lambda b: -points[b])
    history = History.of([first])
    start = time.perf_counter()
    swiss_round(2, ranked, history, size, size, 1, points)
    return time.perf_counter() - start


def repeat_rates() -> None:
    """Print, per (bots, seats, rounds), the share of tables holding a pair that met at an
    earlier round: Swiss (simulated results) against the round-robin design."""
    sys.path.insert(0, str(ROOT))  # the simulation is the tests' own
    from tests.tournament.test_schedules import names, play_table_swiss, repeated_tables

    for n, size, rounds in ((33, 4, 7), (64, 4, 9), (13, 3, 6), (20, 4, 5)):
        totals = [0, 0, 0, 0]
        for seed in range(5):
            a, b = repeated_tables(play_table_swiss(n, size, rounds, seed))
            c, d = repeated_tables(round_robin(names(n), size, size, 1, seed, rounds))
            totals = [totals[0] + a, totals[1] + b, totals[2] + c, totals[3] + d]
        print(f"  {n} bots, {size} seats, {rounds} rounds: Swiss {totals[0] / totals[1]:.1%}, "
              f"round-robin design {totals[2] / totals[3]:.1%} of tables repeat a pair")


def anchor_figures() -> None:
    """Print, for fields with a perfect resolvable design and all its rounds, the share of
    tables repeating a pair (Swiss anchored to the design, the same Swiss unanchored, the
    design) and the mean score spread within a table (most points minus fewest before the
    round, rounds 2 on), anchored against unanchored in the same run."""
    sys.path.insert(0, str(ROOT))
    from arena.tournament import anchor
    from tests.tournament.test_schedules import names, play_table_swiss, repeated_tables

    limits = anchor.ANCHOR_FIELD, anchor.TRIPLES_FIELD, anchor.FIXED_FIELD
    variants = (limits, (0, 0, limits[2]), (0, 0, 0))  # searched, round 1's placing, none
    for n, size, rounds in ((9, 3, 4), (15, 3, 7), (16, 4, 5), (21, 3, 10), (25, 5, 6),
                            (27, 3, 13), (33, 3, 16)):
        seeds = range(10)
        figures = []
        for field in variants:
            anchor.ANCHOR_FIELD, anchor.TRIPLES_FIELD, anchor.FIXED_FIELD = field
            spreads: list[int] = []
            repeats = tables = worst = 0
            for seed in seeds:
                a, b = repeated_tables(play_table_swiss(n, size, rounds, seed, spreads))
                repeats, tables, worst = repeats + a, tables + b, max(worst, a)
            figures.append((repeats / tables, worst, sum(spreads) / len(spreads)))
        anchor.ANCHOR_FIELD, anchor.TRIPLES_FIELD, anchor.FIXED_FIELD = limits
        design = sum(repeated_tables(round_robin(names(n), size, size, 1, s, rounds))[0]
                     for s in seeds)
        (on, on_worst, on_spread), (fix, fix_worst, fix_spread), (off, off_worst, off_spread) \
            = figures
        print(f"  {n} bots, {size} seats, {rounds} rounds: tables repeating a pair: "
              f"anchored {on:.1%} (at most {on_worst} in a tournament), round 1's placing "
              f"{fix:.1%} (at most {fix_worst}), unanchored {off:.1%} (at most {off_worst}), "
              f"design {design / tables:.1%}; mean score spread within a table {on_spread:.2f}"
              f", {fix_spread:.2f} and {off_spread:.2f} ({on_spread / off_spread:.2f} x and "
              f"{fix_spread / off_spread:.2f} x unanchored)")


def design_spread() -> None:
    """Print the round-robin design's meeting spread for the issue's fields (3 seeds)."""
    sys.path.insert(0, str(ROOT))
    from tests.tournament.test_schedules import meeting_spread

    for n, size in ((12, 6), (13, 3), (15, 3), (16, 4), (21, 3), (27, 3), (28, 4), (33, 3),
                    (40, 4), (45, 3)):
        spread = [meeting_spread(n, size, seed) for seed in range(3)]
        print(f"  {n} bots, tables of {size}: pairs never met {[s[0] for s in spread]}, "
              f"met twice or more {[s[1] for s in spread]}, squared meetings "
              f"{[s[2] for s in spread]}")


def kirkman_build_times() -> None:
    """Print how long building each Kirkman triple system up to 99 bots takes (the best
    of 3, nothing cached; a dry run builds one)."""
    from arena.tournament.kirkman import built, rounds_of

    times = []
    for v in built(99):
        best = math.inf
        for _ in range(3):
            rounds_of.cache_clear()
            start = time.perf_counter()
            rounds_of(v)
            best = min(best, time.perf_counter() - start)
        times.append(f"{v}: {best * 1000:.2f}")
    print("  " + ", ".join(times) + " ms")


def fit_time(bots: int, games: int, seats: int = 4) -> float:
    """Fit `games` synthetic games of `seats` among `bots` bots (placings drawn from
    Plackett-Luce); return the seconds of the fit alone."""
    rng = random.Random(5)
    names = [f"bot{i:04d}" for i in range(bots)]
    strength = {b: rng.gauss(0, 1) for b in names}
    played = []
    for _ in range(games):
        table = rng.sample(names, seats)
        order = sorted(table, key=lambda b: strength[b] - math.log(-math.log(rng.random())),
                       reverse=True)
        played.append([(b, order.index(b) + 1) for b in table])
    start = time.perf_counter()
    fit(played)
    return time.perf_counter() - start


def main() -> None:
    # imported here, not at the top: every worker process of a run runs this script again
    # (as `__mp_main__`, before its first game), and their imports cost each worker ~12 ms
    # of CPU (~16 ms against ~4 for a worker of the `arena` command, whose script imports
    # arena.entry alone): CPU per game grew with the worker count by the bench's own cost;
    # argparse with gettext cost each ~8 ms more (`_options`)
    from args import counts, positive  # bench/args.py
    from emulate import emulate  # bench/emulate.py, next to this script
    from scaling import scaling, simulated_starts  # bench/scaling.py
    from starts import starts as real_starts  # bench/starts.py

    options = _options()
    if options.anchor:
        print("Swiss anchored to a resolvable design (10 seeds each):")
        anchor_figures()
        return
    if options.dispatch is not None:
        simulated_starts(options.dispatch)
        return
    if options.emulate is not None:
        emulate(*options.emulate)
        return
    if options.starts is not None:
        real_starts(*options.starts)
        return
    if options.scaling is not None:
        games, *workers = options.scaling or [1]
        scaling(positive(str(games)), counts(workers[0]) if workers else [])
        return
    scaling(options.games)
    one, steady1, games, s1 = demo_rate(1)
    two, steady2, _, s2 = demo_rate(2)
    print(f"demo tournament ({games} games), start-up included: concurrency 1: {one:.1f} "
          f"games/s ({s1:.2f} s), concurrency 2: {two:.1f} games/s ({s2:.2f} s), "
          f"ratio {two / one:.2f} (target >= 1.7 on 2 cores)")
    print(f"  steady state (after start-up): {steady1:.1f} and {steady2:.1f} games/s, "
          f"ratio {steady2 / steady1:.2f}")
    print(f"swiss round of 1000 bots, 2 seats: {swiss_1000(2):.2f} s; tables of 4: "
          f"{swiss_1000(4):.2f} s")
    print("repeated meetings (5 seeds each):")
    repeat_rates()
    print("Swiss anchored to a resolvable design (10 seeds each):")
    anchor_figures()
    print("round-robin design, default rounds (seeds 0-2):")
    design_spread()
    print("Kirkman triple systems at tables of 3, build time by bots:")
    kirkman_build_times()
    print(f"batch fit, 200 bots x 100k 4-seat games: {fit_time(200, 100_000):.2f} s "
          "(target < 5 s)")
    sys.stdout.flush()
    print(f"batch fit, 1,000 bots x 1M 4-seat games: {fit_time(1000, 1_000_000):.1f} s "
          "(target < 60 s)")
    sys.stdout.flush()


def _options() -> argparse.Namespace:
    import argparse

    from args import counts, positive

    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], epilog="With no option: every figure, the "
        "scaling run with GAMES_PER_PAIRING games per table (default 1).")
    parser.add_argument("games", nargs="?", type=positive, default=1,
                        metavar="GAMES_PER_PAIRING")
    alone = parser.add_mutually_exclusive_group()
    alone.add_argument("--anchor", action="store_true",
                       help="only the Swiss anchored to a resolvable design")
    alone.add_argument("--dispatch", nargs="?", type=positive, const=16,
                       metavar="GAMES_PER_TABLE", help="only the simulated dispatch")
    alone.add_argument("--emulate", nargs="*", type=positive, metavar="N",
                       help="[WORKERS [GAMES_PER_TABLE]]: only the emulated many-worker CPU")
    alone.add_argument("--starts", nargs="*", type=positive, metavar="N",
                       help="[WORKERS [GAMES_PER_TABLE]]: only a real run's bot starts")
    alone.add_argument("--scaling", nargs="*", metavar="ARG",
                       help="[GAMES_PER_PAIRING [WORKERS,...]]: only the scaling run")
    options = parser.parse_args()
    for name in ("emulate", "starts", "scaling"):
        given = getattr(options, name)
        if given is not None and len(given) > 2:
            parser.error(f"--{name} takes at most 2 values, not {len(given)}")
    if options.scaling:
        try:
            positive(options.scaling[0])
            if len(options.scaling) > 1:
                counts(options.scaling[1])
        except argparse.ArgumentTypeError as exc:
            parser.error(f"--scaling: {exc}")
    return options


if __name__ == "__main__":
    main()
