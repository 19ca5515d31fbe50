"""The ladder's database, and the read API other commands (`arena report`) use.

One SQLite file per ladder (DIR/results.sqlite, WAL). Games are stored exactly as a
tournament stores them (`arena.tournament.store`: the workers commit each game the moment
it ends), keyed (round, table, 0): a ladder round is one batch of tables planned together,
numbered across runs. Beside them the ladder keeps:

- `versions`: every registered version of every bot (its entry name `BOT@VERSION` is the
  name its seats carry), its command, the version it replaced, and whether it is `active`,
  `superseded` (a newer version took its place) or `retired`;
- `runs`: one row per `arena ladder run` (start, end, games played);
- `beliefs`: the matchmaking's online rating of each entry, the games it has played in each
  seat, and (meta `beliefs_through`) the last round they include;
- `snapshots`: the standings of every entry after each run (rating, interval, counts):
  the rating history, and the table `arena ladder standings` shows while no game was
  stored since.

The read API for `arena report` and scripts is `arena.ladder.read` (versions, standings,
rating history), over the types defined here.
"""

from __future__ import annotations

import contextlib
import json
import secrets
import sqlite3
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.core.errors import StoreError
from arena.core.game import Json
from arena.core.record import GameRecord
from arena.ladder.columns import ROUND_SHIFT, Columns, SeatRow
from arena.tournament.pairing import RoundPlan
from arena.tournament.store import DB_NAME, Advice, GameKey, Store, explain

LADDER_SCHEMA = """
CREATE TABLE IF NOT EXISTS versions (
    id INTEGER PRIMARY KEY, bot TEXT NOT NULL, version TEXT NOT NULL,
    entry TEXT NOT NULL UNIQUE, cmd TEXT NOT NULL, cwd TEXT, env TEXT NOT NULL,
    previous TEXT, added REAL NOT NULL, status TEXT NOT NULL, UNIQUE (bot, version));
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY, started REAL NOT NULL, finished REAL, games INTEGER NOT NULL,
    pid INTEGER NOT NULL, stored INTEGER, rated INTEGER);
CREATE TABLE IF NOT EXISTS beliefs (
    entry TEXT PRIMARY KEY, mu REAL NOT NULL, sigma REAL NOT NULL, games INTEGER NOT NULL,
    seats TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS fitcache (
    id INTEGER PRIMARY KEY CHECK (id = 1), through INTEGER NOT NULL, games INTEGER NOT NULL,
    data BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS snapshots (
    run INTEGER NOT NULL, entry TEXT NOT NULL, rating REAL, interval REAL,
    games INTEGER NOT NULL, wins REAL NOT NULL, placings INTEGER NOT NULL,
    faults INTEGER NOT NULL, timeouts INTEGER NOT NULL, forfeits INTEGER NOT NULL,
    last REAL, PRIMARY KEY (run, entry));
"""
KIND = "ladder"
ADVICE = Advice(
    damaged="restore it from a backup (or save what SQLite can still read with the sqlite3 "
            "shell's .recover); no run plays until it is whole",
    full="free some space, then try again (the next `arena ladder run` finishes a round "
         "that a stopped run left)")
"""What the ladder's database errors tell its user to do (`arena ladder` has no --out or
--resume: the next run goes on by itself)."""
NEXT_RUN = ("; the games stored so far are kept: once that is fixed, the next `arena ladder "
            "run` goes on from there")
"""How a ladder run's stopping error ends (where `arena run`'s says `RESUME_HINT`)."""
ACTIVE, SUPERSEDED, RETIRED = "active", "superseded", "retired"
GAME_KEY, SEATS_KEY = "ladder_game", "ladder_seats"
"""Meta keys: the game and table size a ladder plays, fixed for its life (`identity`)."""


@dataclass(frozen=True, slots=True)
class Version:
    """One registered version of a bot."""

    bot: str
    version: str
    cmd: tuple[str, ...]
    """The command as registered (`{python}` not yet replaced)."""
    cwd: str | None
    env: dict[str, str]
    previous: str | None
    """The entry this version replaced (None for a bot's first version)."""
    added: float
    """Unix time of registration."""
    status: str
    """`active`, `superseded` or `retired`."""

    @property
    def entry(self) -> str:
        """The name this version plays under, `BOT@VERSION`."""
        return entry_name(self.bot, self.version)


def entry_name(bot: str, version: str) -> str:
    """Return the name a version plays under."""
    return f"{bot}@{version}"


@dataclass(frozen=True, slots=True)
class Belief:
    """The matchmaking's view of one entry: an online rating and its games per seat."""

    mu: float
    sigma: float
    games: int = 0
    seats: tuple[int, ...] = ()
    """Games played in each seat (index 0 is the first seat)."""


@dataclass(frozen=True, slots=True)
class EntryStats:
    """An entry's line of a standings table, as a snapshot stores it."""

    entry: str
    rating: float | None
    """Elo scale, the batch fit (None: no game yet)."""
    interval: float | None
    """Half-width of the 95% interval."""
    games: int = 0
    wins: float = 0.0
    """Wins, a shared first place counting as a fraction."""
    placings: int = 0
    """The sum of the placings (mean placing = placings / games)."""
    faults: int = 0
    timeouts: int = 0
    forfeits: int = 0
    last: float | None = None
    """Unix time of the entry's last game."""


@dataclass(frozen=True, slots=True)
class Row:
    """One line of `arena ladder standings`."""

    rank: int
    bot: str
    version: str
    status: str
    rating: float | None
    interval: float | None
    games: int
    win_rate: float | None
    mean_placing: float | None
    faults: int
    timeouts: int
    forfeits: int
    last_played: float | None
    """Unix time of the last game."""
    trend: float | None
    """Rating change since the previous snapshot (None: no earlier rating)."""

    def to_json(self) -> dict[str, Json]:
        """Return the row as JSON-ready data."""
        def rounded(value: float | None, digits: int) -> float | None:
            return None if value is None else round(value, digits)

        return {"rank": self.rank, "bot": self.bot, "version": self.version,
                "status": self.status, "rating": rounded(self.rating, 1),
                "interval": rounded(self.interval, 1), "games": self.games,
                "win_rate": rounded(self.win_rate, 4),
                "mean_placing": rounded(self.mean_placing, 4), "faults": self.faults,
                "timeouts": self.timeouts, "forfeits": self.forfeits,
                "last_played": rounded(self.last_played, 3), "trend": rounded(self.trend, 1)}


@dataclass(frozen=True, slots=True)
class Standings:
    """The ladder's table: rows ranked by rating, and how current it is."""

    rows: tuple[Row, ...]
    games: int
    """Games stored in the ladder."""
    rated: int
    """Games the ratings are fitted to (fewer than `games` with a `window`)."""
    runs: int
    """Runs finished so far."""


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A version's rating after one run: a point of the rating-history plot."""

    run: int
    taken: float
    """Unix time at the end of the run."""
    bot: str
    version: str
    rating: float | None
    interval: float | None
    games: int


class LadderStore:
    """A connection to one ladder's database (games through `store`, the rest here)."""

    def __init__(self, store: Store, directory: Path) -> None:
        self.store, self.db, self.directory = store, store.db, directory

    @classmethod
    def create(cls, directory: Path, name: str) -> LadderStore:
        """Create the database of a new ladder in `directory`.

        Raises:
            StoreError: `directory` already holds a database.
        """
        if (directory / DB_NAME).exists():
            raise StoreError(f"{directory} already holds a results database: pick another "
                             "directory for a new ladder")
        store = Store.open(directory, f"ladder-{secrets.token_hex(8)}", name, create=True,
                           advice=ADVICE)
        ladder = cls(store, directory)
        ladder._create_tables()
        with store.transaction():
            store.db.execute("INSERT INTO meta VALUES ('kind', ?)", (KIND,))
        return ladder

    @classmethod
    def open(cls, directory: Path, check: bool = True) -> LadderStore:
        """Open the database of the ladder in `directory`; `check` False leaves out the
        whole-file check (`check()` does it later, `reading` turns a damaged page into a
        `StoreError` when a read meets one).

        Raises:
            StoreError: no database, a damaged one, or a tournament's.
        """
        store = Store.open(directory, None, check=check, advice=ADVICE)
        if store.meta("kind") != KIND:
            store.close()
            raise StoreError(f"{directory / DB_NAME} holds a tournament, not a ladder")
        ladder = cls(store, directory)
        tables = {r[0] for r in store.db.execute("SELECT name FROM sqlite_master")}
        if "fitcache" not in tables:  # a ladder made before the cache
            ladder._create_tables()
        return ladder

    def _create_tables(self) -> None:
        with self.store.transaction():
            for statement in LADDER_SCHEMA.split(";"):
                if statement.strip():
                    self.db.execute(statement)

    def check(self) -> None:
        """Read the whole file.

        Raises:
            StoreError: it is damaged.
        """
        with reading(self.store.path):
            self.store.check()

    @property
    def fingerprint(self) -> str:
        """The ladder's identity, which the workers check when they open the database."""
        return self.store.meta("fingerprint") or ""

    def close(self) -> None:
        """Close the connection."""
        self.store.close()

    # versions ----------------------------------------------------------------------------
    def versions(self, bot: str | None = None) -> list[Version]:
        """Return the registered versions (of `bot`), oldest first."""
        query = ("SELECT bot, version, cmd, cwd, env, previous, added, status FROM versions"
                 + (" WHERE bot = ?" if bot is not None else "") + " ORDER BY id")
        return [Version(b, v, tuple(json.loads(c)), w, json.loads(e), p, a, s)
                for b, v, c, w, e, p, a, s in self.db.execute(query, (bot,) if bot else ())]

    def active(self) -> list[Version]:
        """Return the versions that are scheduled, in entry order."""
        return sorted((v for v in self.versions() if v.status == ACTIVE),
                      key=lambda v: v.entry)

    def register(self, version: Version) -> None:
        """Store a new version as the active one of its bot (the old one is superseded)."""
        with self.store.transaction():
            self.db.execute("UPDATE versions SET status = ? WHERE bot = ? AND status = ?",
                            (SUPERSEDED, version.bot, ACTIVE))
            self.db.execute(
                "INSERT INTO versions (bot, version, entry, cmd, cwd, env, previous, added, "
                "status) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (version.bot, version.version, version.entry, json.dumps(list(version.cmd)),
                 version.cwd, json.dumps(version.env, sort_keys=True), version.previous,
                 version.added, ACTIVE))

    def relocate(self, bot: str, version: str, cmd: Sequence[str], cwd: str) -> None:
        """Give a version its command and folder anew (the same files, moved)."""
        with self.store.transaction():
            self.db.execute("UPDATE versions SET cmd = ?, cwd = ? WHERE bot = ? AND version = ?",
                            (json.dumps(list(cmd)), cwd, bot, version))

    def set_status(self, bot: str, version: str, status: str) -> None:
        """Change a version's status (an activated one supersedes its bot's active one)."""
        with self.store.transaction():
            if status == ACTIVE:
                self.db.execute("UPDATE versions SET status = ? WHERE bot = ? AND status = ?",
                                (SUPERSEDED, bot, ACTIVE))
            self.db.execute("UPDATE versions SET status = ? WHERE bot = ? AND version = ?",
                            (status, bot, version))

    # runs --------------------------------------------------------------------------------
    def start_run(self, pid: int) -> int:
        """Record the start of a run; return its number."""
        with self.store.transaction():
            cursor = self.db.execute("INSERT INTO runs (started, games, pid) VALUES (?, 0, ?)",
                                     (time.time(), pid))
        return int(cursor.lastrowid or 0)

    def finish_run(self, run: int, games: int, table: Iterable[EntryStats], stored: int,
                   rated: int) -> None:
        """Record the end of a run and its standings snapshot, in one transaction: `games`
        played by the run, `stored` in the ladder, `rated` by the snapshot's fit."""
        with self.store.transaction():
            self.db.execute("UPDATE runs SET finished = ?, games = ?, stored = ?, rated = ? "
                            "WHERE id = ?", (time.time(), games, stored, rated, run))
            self.db.executemany(
                "INSERT OR REPLACE INTO snapshots VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(run, s.entry, s.rating, s.interval, s.games, s.wins, s.placings, s.faults,
                  s.timeouts, s.forfeits, s.last) for s in table])

    def last_snapshots(self, count: int = 2) -> list[tuple[int, int, int, dict[str, EntryStats]]]:
        """The last `count` snapshots, newest first: (run, games stored then, games rated,
        the rows by entry)."""
        runs = self.db.execute("SELECT id, stored, rated FROM runs WHERE finished IS NOT NULL "
                               "AND stored IS NOT NULL ORDER BY id DESC LIMIT ?", (count,))
        return [(run, stored, rated, self._snapshot(run)) for run, stored, rated in runs]

    def _snapshot(self, run: int) -> dict[str, EntryStats]:
        rows = self.db.execute("SELECT entry, rating, interval, games, wins, placings, faults, "
                               "timeouts, forfeits, last FROM snapshots WHERE run = ?", (run,))
        return {r[0]: EntryStats(*r) for r in rows}

    def runs_finished(self) -> int:
        """How many runs finished."""
        return int(self.db.execute(
            "SELECT COUNT(*) FROM runs WHERE finished IS NOT NULL").fetchone()[0])

    def game_count(self) -> int:
        """How many games are stored."""
        return int(self.db.execute("SELECT COUNT(*) FROM games").fetchone()[0])

    # what the ladder plays ---------------------------------------------------------------
    def identity(self) -> tuple[str, int] | None:
        """The game and table size this ladder plays: as `init` (or the first run after it)
        stored them, else as its first stored game says (None: neither is known yet)."""
        game, seats = self.store.meta(GAME_KEY), self.store.meta(SEATS_KEY)
        if game is not None and seats is not None:
            return json.loads(game), int(json.loads(seats))
        first = self.db.execute("SELECT round, tbl, repeat, game FROM games "
                                "ORDER BY round, tbl, repeat LIMIT 1").fetchone()
        if first is None:
            return None
        size = self.db.execute("SELECT COUNT(*) FROM seats WHERE round = ? AND tbl = ? AND "
                               "repeat = ?", first[:3]).fetchone()[0]
        return str(first[3]).partition("@")[0], int(size)

    def save_identity(self, game: str, seats: int) -> None:
        """Store the game and table size this ladder plays (`identity`)."""
        self.store.set_meta(GAME_KEY, game)
        self.store.set_meta(SEATS_KEY, seats)

    # beliefs -----------------------------------------------------------------------------
    def beliefs(self) -> tuple[int, dict[str, Belief]]:
        """The matchmaking's beliefs and the last round they include (0: none)."""
        through = int(json.loads(self.store.meta("beliefs_through") or "0"))
        rows = self.db.execute("SELECT entry, mu, sigma, games, seats FROM beliefs")
        return through, {e: Belief(m, s, g, tuple(json.loads(t))) for e, m, s, g, t in rows}

    def save_beliefs(self, through: int, beliefs: dict[str, Belief]) -> None:
        """Replace the beliefs, now including every game up to round `through`."""
        with self.store.transaction():
            self.db.executemany(
                "INSERT OR REPLACE INTO beliefs VALUES (?, ?, ?, ?, ?)",
                [(e, b.mu, b.sigma, b.games, json.dumps(list(b.seats)))
                 for e, b in sorted(beliefs.items())])
            self.db.execute("INSERT OR REPLACE INTO meta VALUES ('beliefs_through', ?)",
                            (json.dumps(through),))

    def seatings_after(self, round_: int) -> list[tuple[tuple[str, int], ...]]:
        """Every stored game of a round after `round_`, in key order: (entry, placing) by
        seat."""
        rows = self.db.execute("SELECT round, tbl, repeat, bot, placing FROM seats WHERE "
                               "round > ? ORDER BY round, tbl, repeat, seat", (round_,))
        return [tuple((bot, placing) for *_, bot, placing in seats)
                for seats in _by_game(rows)]

    def round(self, number: int) -> RoundPlan:
        """The recorded plan of round `number`."""
        row = self.db.execute("SELECT pairing FROM rounds WHERE round = ?", (number,)).fetchone()
        if row is None:
            raise StoreError(f"{self.store.path}: round {number} is not recorded")
        return RoundPlan.from_json(json.loads(row[0]))

    def keys_of(self, number: int) -> set[GameKey]:
        """The keys of the stored games of round `number`."""
        rows = self.db.execute("SELECT tbl, repeat FROM games WHERE round = ?", (number,))
        return {GameKey(number, t, g) for t, g in rows}

    def record(self, key: GameKey) -> GameRecord | None:
        """The stored record of one game, if it is stored."""
        row = self.db.execute("SELECT record FROM games WHERE round = ? AND tbl = ? AND "
                              "repeat = ?", (key.round, key.table, key.repeat)).fetchone()
        return None if row is None else GameRecord.from_json(json.loads(row[0]))

    def seat_rows_after(self, round_: int) -> list[SeatRow]:
        """The seats of every stored game of a round after `round_`, in key order."""
        return self.db.execute(
            "SELECT (s.round << 26) + (s.tbl << 6) + s.repeat, s.bot, s.placing, s.faults, "
            "s.timeouts, s.forfeit IS NOT NULL, g.finished FROM seats s JOIN games g ON "
            "g.round = s.round AND g.tbl = s.tbl AND g.repeat = s.repeat WHERE s.round > ? "
            "ORDER BY s.round, s.tbl, s.repeat, s.seat", (round_,)).fetchall()

    def cached_columns(self) -> Columns:
        """The stored columns of the complete rounds (rebuilt when missing or stale)."""
        row = self.db.execute("SELECT through, games, data FROM fitcache").fetchone()
        if row is not None:
            through, games, blob = row
            held = self.db.execute("SELECT COUNT(*) FROM games WHERE round <= ?",
                                   (through,)).fetchone()[0]
            if held == games:
                with contextlib.suppress(ValueError):
                    return Columns.from_bytes(blob)
        through = int(json.loads(self.store.meta("beliefs_through") or "0"))
        return Columns().extended([r for r in self.seat_rows_after(0)
                                   if r[0] >> ROUND_SHIFT <= through], through)

    def save_columns(self, columns: Columns) -> None:
        """Keep `columns` (complete rounds only) for the next reader."""
        with self.store.transaction():
            self.db.execute("INSERT OR REPLACE INTO fitcache VALUES (1, ?, ?, ?)",
                            (columns.through, columns.games, columns.to_bytes()))

    def last_round(self) -> int:
        """The number of the last planned round (0: none)."""
        row = self.db.execute("SELECT MAX(round) FROM rounds").fetchone()
        return int(row[0] or 0)

    def snapshot_history(self, entries: Sequence[str] | None = None) -> list[tuple[
            int, float, str, float | None, float | None, int]]:
        """(run, end time, entry, rating, interval, games) of every snapshot, oldest first."""
        rows = self.db.execute(
            "SELECT s.run, r.finished, s.entry, s.rating, s.interval, s.games FROM snapshots s "
            "JOIN runs r ON r.id = s.run ORDER BY s.run, s.entry").fetchall()
        wanted = None if entries is None else set(entries)
        return [r for r in rows if wanted is None or r[2] in wanted]


@contextmanager
def reading(path: Path) -> Iterator[None]:
    """Turn an SQLite error met while reading the database at `path` into one line.

    Raises:
        StoreError: the database is damaged or locked.
    """
    try:
        yield
    except sqlite3.DatabaseError as exc:
        raise explain(path, exc, ADVICE) from None


def _by_game(rows: Iterable[tuple[Any, ...]]) -> Iterator[list[tuple[Any, ...]]]:
    """Group rows (round, table, repeat, ...) ordered by game key into one list per game."""
    current: list[tuple[Any, ...]] = []
    for row in rows:
        if current and row[:3] != current[0][:3]:
            yield current
            current = []
        current.append(row)
    if current:
        yield current
