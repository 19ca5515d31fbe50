"""The ladder's read API: versions, standings and rating history of a ladder directory.

For `arena ladder list|standings|history` and `arena report` alike; each call opens the
database, reads, and closes it, and works while a run is writing (SQLite WAL).

- `versions(DIR) -> list[Version]`: every registered version, oldest first.
- `standings(DIR, all_versions=False) -> Standings`: rows ranked by rating (the batch fit
  with its 95% interval), counts, last game and the trend since the previous snapshot.
- `history(DIR, bot=None) -> list[Snapshot]`: every version's rating after each run,
  oldest run first (the points of a rating-history plot: x `taken`, y `rating`, one line
  per `(bot, version)`, error bars `interval`).
- `damage(DIR) -> str | None`: one line when the database is damaged (the readers above
  read only the pages they need, and may not meet the damage).

Raises `StoreError` (no ladder there, damaged database) or `ConfigError` (ladder.yaml).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from arena.core.errors import StoreError
from arena.ladder import rating
from arena.ladder.columns import ROUND_SHIFT, Columns
from arena.ladder.config import check_fixed, load_ladder
from arena.ladder.store import (
    ACTIVE,
    EntryStats,
    LadderStore,
    Row,
    Snapshot,
    Standings,
    Version,
    reading,
)


def versions(directory: Path) -> list[Version]:
    """Return every registered version of every bot, oldest first."""
    with _opened(directory) as store:
        return store.versions()


def standings(directory: Path, all_versions: bool = False) -> Standings:
    """Return the ladder's table: the active versions (every version with `all_versions`).

    The last run's snapshot answers when no game was stored since; else the table is
    refitted from it (a Newton step or two).
    """
    config = load_ladder(directory)
    window = config.window
    with _opened(directory) as store:
        check_fixed(config, store.identity(), directory)
        stored = store.game_count()
        snaps = store.last_snapshots(2)
        if snaps and snaps[0][1] == stored and snaps[0][2] == _rated(stored, window):
            current, rated = snaps[0][3], snaps[0][2]
            previous = snaps[1][3] if len(snaps) > 1 else {}
        else:
            table, rated, _ = compute_table(store, window)
            current = {s.entry: s for s in table}
            previous = snaps[0][3] if snaps else {}
        listed = [v for v in store.versions() if all_versions or v.status == ACTIVE]
        return Standings(_ranked(listed, current, previous), stored, rated,
                         store.runs_finished())


def history(directory: Path, bot: str | None = None) -> list[Snapshot]:
    """Return each version's rating after every run (of `bot` only, if given)."""
    with _opened(directory) as store:
        known = {v.entry: v for v in store.versions(bot)}
        return [Snapshot(run, taken, known[entry].bot, known[entry].version, value, interval,
                         games)
                for run, taken, entry, value, interval, games
                in store.snapshot_history(list(known)) if entry in known]


def damage(directory: Path) -> str | None:
    """One line saying how the ladder's database is damaged, or None when it is whole (or
    cannot be opened: the read that follows says why). It reads every page (`PRAGMA
    quick_check`, the check a run makes before it plays): about 0.15 s per 200 MB."""
    try:
        store = LadderStore.open(directory, check=False)
    except StoreError:
        return None
    try:
        store.check()
    except StoreError as exc:
        return str(exc)
    finally:
        store.close()
    return None


@contextmanager
def _opened(directory: Path) -> Iterator[LadderStore]:
    """The ladder's database, opened without reading every page (a reader meets a damaged
    page as a `StoreError`); closed on the way out."""
    store = LadderStore.open(directory, check=False)
    try:
        with reading(store.store.path):
            yield store
    finally:
        store.close()


def compute_table(store: LadderStore,
                  window: int | None) -> tuple[list[EntryStats], int, Columns]:
    """Fit the stored games now, from the last snapshot's ratings: the table, the number
    of games rated, and the columns of the complete rounds (for `save_columns`)."""
    snaps = store.last_snapshots(1)
    start = {e: s.rating for e, s in snaps[0][3].items()} if snaps else {}
    cached = store.cached_columns()
    rows = store.seat_rows_after(cached.through)
    columns = cached.extended(rows, cached.through)
    ratings = rating.fit_columns(columns, start, window)
    table = []
    for entry, (games, wins, placings, faults, timeouts, forfeits, last) in sorted(
            columns.sums.items()):
        value, interval = ratings.get(entry, (None, None))
        table.append(EntryStats(entry, value, interval, int(games), wins, int(placings),
                                int(faults), int(timeouts), int(forfeits), last or None))
    through, _ = store.beliefs()
    complete = cached.extended([r for r in rows if r[0] >> ROUND_SHIFT <= through], through)
    return table, min(columns.games, window or columns.games), complete


def _rated(stored: int, window: int | None) -> int:
    return min(stored, window) if window else stored


def _ranked(listed: list[Version], current: Mapping[str, EntryStats],
            previous: Mapping[str, EntryStats]) -> tuple[Row, ...]:
    def line(version: Version) -> tuple[Version, EntryStats]:
        return version, current.get(version.entry) or EntryStats(version.entry, None, None)

    lines = sorted((line(v) for v in listed),
                   key=lambda p: (p[1].rating is None, -(p[1].rating or 0.0), -p[1].games,
                                  p[0].entry))
    rows = []
    for rank, (version, s) in enumerate(lines, start=1):
        before = previous.get(version.entry)
        trend = (s.rating - before.rating if s.rating is not None and before is not None
                 and before.rating is not None else None)
        rows.append(Row(rank, version.bot, version.version, version.status, s.rating,
                        s.interval, s.games, s.wins / s.games if s.games else None,
                        s.placings / s.games if s.games else None, s.faults, s.timeouts,
                        s.forfeits, s.last, trend))
    return tuple(rows)
