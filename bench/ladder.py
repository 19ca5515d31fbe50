"""Ladder benchmark (figures printed, nothing asserted): a ladder of 100 bots holding
100k stored 4-seat games.

- the time from the start of `ladder run --games 1` (lock, database, beliefs, plan,
  workers) to its first game starting (target < 1 s), against the same on an empty ladder
  of the same bots (the baseline: what the stored games add);
- `ladder standings` (target < 2 s): from the last run's snapshot, and refitted after
  games were stored since (warm start), against the tournament's fit from zero of the same
  games (the baseline);
- rebuilding the matchmaking's beliefs from every game (never needed by a run, which
  keeps them after each round), for scale;
- the simulated 30-bot ladder of docs/ladder.md: the rank correlation of the fit with the
  true strengths, matchmaking against uniform random tables.

Run: .venv/bin/python bench/ladder.py [--quick]   (--quick: 10k games, fewer seeds)
"""

from __future__ import annotations

import contextlib
import dataclasses
import random
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

# Only the standard library at the top: each worker process of a run imports this script
# again (as multiprocessing's fork server prepares a child), and must not pay for arena's
# rating and CLI code on the way.
if TYPE_CHECKING:
    from arena.ladder.store import LadderStore

BOTS, SEATS, BATCH = 100, 4, 8
LADDER = f"game: machiavelli\nplayers_per_game: {SEATS}\nseed: 3\nbatch: {BATCH}\nsandbox: none\n"


def make_ladder(directory: Path) -> None:
    from arena.ladder import members

    members.init(directory, config_text=LADDER)
    for i in range(BOTS):
        members.add(directory, f"bot{i:03d}", "builtin:random", version="v1")


@contextlib.contextmanager
def one_transaction(store: LadderStore) -> Iterator[None]:
    """Commit many games at once (a bench shortcut: a run commits each game on its own)."""
    with store.store.transaction():
        plain = store.store.transaction
        store.store.transaction = contextlib.nullcontext  # type: ignore[method-assign, assignment]
        try:
            yield
        finally:
            store.store.transaction = plain  # type: ignore[method-assign]


def fill(directory: Path, games: int) -> float:
    """Store `games` games among the bots (stronger numbers win more) as runs would leave
    them: rounds, games, beliefs and a snapshot. Return the seconds the beliefs took."""
    from arena.core.game import Termination
    from arena.core.record import GameRecord, SeatRecord
    from arena.ladder import rating, read
    from arena.ladder.store import LadderStore
    from arena.tournament.pairing import RoundPlan, Table
    from arena.tournament.store import GameKey

    rng = random.Random(1)
    store = LadderStore.open(directory)
    entries = [v.entry for v in store.active()]
    template = GameRecord("machiavelli", {}, 0, Termination.COMPLETED, (), 200, (), {}, None)
    seatings: list[list[tuple[str, int]]] = []
    with one_transaction(store):
        for number in range(1, games // BATCH + 1):
            tables = [tuple(rng.sample(entries, SEATS)) for _ in range(BATCH)]
            store.store.add_round(RoundPlan(number, tuple(Table(i, (s,))
                                                          for i, s in enumerate(tables))))
            for index, seating in enumerate(tables):
                order = sorted(seating, key=lambda e: -(int(e[3:6]) / 30 + rng.gauss(0, 1)))
                seats = tuple(SeatRecord(s, e, "1", order.index(e) + 1, 30 - order.index(e),
                                         time_ms=50.0) for s, e in enumerate(seating))
                record = dataclasses.replace(template, seed=rng.getrandbits(62), seats=seats)
                store.store.add_game(GameKey(number, index, 0), record)
                seatings.append([(s.bot, s.placing) for s in seats])
    started = time.perf_counter()
    beliefs = rating.absorb({}, seatings, SEATS)
    took = time.perf_counter() - started
    store.save_beliefs(games // BATCH, beliefs)
    run = store.start_run(0)
    table, rated, complete = read.compute_table(store, None)
    store.finish_run(run, games, table, store.game_count(), rated)
    store.save_columns(complete)
    store.close()
    return took


def first_game(directory: Path) -> float:
    """Seconds from the start of a one-game run to its first game starting."""
    from arena.ladder.run import Budget, LadderRun, ladder_lock
    from arena.tournament.runner import Progress

    seen: list[float] = []

    def progress(state: Progress) -> None:
        if state.running and not seen:
            seen.append(time.perf_counter())

    started = time.perf_counter()
    with ladder_lock(directory, wait=False):
        LadderRun(directory, Budget(games=1), concurrency=1, on_progress=progress).run()
    return seen[0] - started


def worker_start() -> float:
    """Seconds to start a bare worker process as a run starts its workers: forked from the
    fork server (started here first, so that this is the warm cost a run's later workers
    pay), importing what a worker imports."""
    from arena.tournament.workers import worker_context

    context = worker_context()
    warm_up = context.Process(target=_worker_imports)
    warm_up.start()
    warm_up.join()
    process = context.Process(target=_worker_imports)
    started = time.perf_counter()
    process.start()
    process.join()
    return time.perf_counter() - started


def _worker_imports() -> None:
    import arena.ladder.worker
    import arena.referee
    import arena.tournament.workers  # noqa: F401


def timed(call: object) -> float:
    started = time.perf_counter()
    assert callable(call)
    call()
    return time.perf_counter() - started


def main() -> None:
    from arena.ladder import read
    from arena.ladder.store import LadderStore
    from arena.tournament.ratings import fit
    from tests.ladder.simulation import simulate

    quick = "--quick" in sys.argv
    games = 10_000 if quick else 100_000
    with tempfile.TemporaryDirectory() as tmp:
        empty, full = Path(tmp, "empty"), Path(tmp, "full")
        make_ladder(empty)
        make_ladder(full)
        started = time.perf_counter()
        beliefs_s = fill(full, games)
        print(f"ladder of {BOTS} bots, {games:,} stored {SEATS}-seat games (built in "
              f"{time.perf_counter() - started:.0f} s)")
        base = first_game(empty)
        loaded = first_game(full)
        bare = worker_start()
        print(f"ladder run --games 1, start to first game: {loaded:.2f} s (target < 1 s); "
              f"empty ladder {base:.2f} s, x{loaded / base:.2f}; a bare worker process "
              f"(from the warm fork server) {bare:.2f} s, x{loaded / bare:.2f}")
        cached = timed(lambda: read.standings(full))
        play_more(full)
        refit = timed(lambda: read.standings(full))
        store = LadderStore.open(full)
        seated: dict[int, list[tuple[str, int]]] = {}
        for key, entry, placing, *_ in store.seat_rows_after(0):
            seated.setdefault(key, []).append((entry, placing))
        store.close()
        scratch = timed(lambda: fit(list(seated.values())))
        print(f"ladder standings: {cached:.2f} s from the snapshot, {refit:.2f} s refitted "
              f"after new games (target < 2 s); the tournament fit from zero {scratch:.2f} s;"
              f" x{cached / scratch:.3f} and x{refit / scratch:.2f}")
        print(f"beliefs rebuilt from all {games:,} games: {beliefs_s:.1f} s (a run never "
              "does this: it keeps them after each round)")
    seeds = range(4 if quick else 12)
    for spread, seats, count in ((7.0, 2, 600), (7.0, 4, 300), (2.0, 2, 600), (2.0, 4, 300)):
        matched = [simulate(30, count, seats, matchmaking=True, seed=s, spread=spread)
                   for s in seeds]
        uniform = [simulate(30, count, seats, matchmaking=False, seed=s, spread=spread)
                   for s in seeds]
        better = sum(m > u for m, u in zip(matched, uniform, strict=True))
        print(f"30 bots over {spread:g} log units, {count} games of {seats}: Spearman "
              f"{sum(matched) / len(seeds):.4f} matchmaking vs {sum(uniform) / len(seeds):.4f}"
              f" uniform tables (better on {better} of {len(seeds)} seeds)")


def play_more(directory: Path) -> None:
    """Store one more round (as a run that was killed before its snapshot would)."""
    from arena.ladder.run import Budget, LadderRun, ladder_lock
    from arena.ladder.store import LadderStore

    with ladder_lock(directory, wait=False):
        LadderRun(directory, Budget(games=BATCH), concurrency=2).run()
    store = LadderStore.open(directory)
    with one_transaction(store):  # forget that run's snapshot: standings must refit
        store.db.execute("DELETE FROM snapshots WHERE run = (SELECT MAX(id) FROM runs)")
        store.db.execute("UPDATE runs SET stored = NULL WHERE id = (SELECT MAX(id) FROM runs)")
    store.close()


if __name__ == "__main__":
    main()
