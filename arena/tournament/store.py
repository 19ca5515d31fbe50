"""The results database: one SQLite file (WAL) per tournament, the source of truth.

Every finished game is committed the moment it ends, with its seats and the sha256 digest
of its (then complete) replay file; each round's pairing is stored before its games are
played. Standings and ratings are always derived from
these rows. A database belongs to one tournament fingerprint; opening it with another
file, or while another run holds it, or when it is damaged, raises `StoreError` and never
changes what is stored.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from arena.core.errors import StoreError
from arena.core.game import Json
from arena.core.record import GameRecord, SeatRecord
from arena.core.words import count_of, plural
from arena.tournament.pairing import RoundPlan

SCHEMA_VERSION = "2"
"""2 added `games.digest` and the `seeds` meta key; a version-1 database is migrated when a
run opens it (readers cope with either)."""
SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS rounds (round INTEGER PRIMARY KEY, pairing TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS games (
    round INTEGER NOT NULL, tbl INTEGER NOT NULL, repeat INTEGER NOT NULL,
    seed INTEGER NOT NULL, game TEXT NOT NULL, termination TEXT NOT NULL,
    decisions INTEGER NOT NULL, faults TEXT NOT NULL, replay TEXT, record TEXT NOT NULL,
    finished REAL NOT NULL, digest TEXT, PRIMARY KEY (round, tbl, repeat));
CREATE TABLE IF NOT EXISTS seats (
    round INTEGER NOT NULL, tbl INTEGER NOT NULL, repeat INTEGER NOT NULL,
    seat INTEGER NOT NULL, bot TEXT NOT NULL, version TEXT NOT NULL,
    placing INTEGER NOT NULL, score INTEGER NOT NULL, faults INTEGER NOT NULL,
    timeouts INTEGER NOT NULL, forfeit TEXT, time_ms REAL NOT NULL,
    PRIMARY KEY (round, tbl, repeat, seat));
"""
DB_NAME = "results.sqlite"
LADDER_NAME = "ladder.yaml"
"""The file that makes a directory a ladder: `arena.ladder` writes it, and the rings
inside it recognise a ladder by it (a ladder has no results.json to verify)."""
COMPARE_NAME = "compare.json"
"""The verdict and figures `arena compare` writes beside its games; the report leads with
them."""
SCORED = "scored"
"""The meta key of the fingerprinted keys of the file a run was begun with: what --resume
with an edited file names as changed."""


class OtherRun(StoreError):
    """The directory holds the run of another tournament file."""

    def __init__(self, message: str, scored: dict[str, Any] | None) -> None:
        super().__init__(message)
        self.scored = scored
        """The other file's fingerprinted keys, where the run kept them."""
TABLES = frozenset({"meta", "rounds", "games", "seats"})
"""The tables SCHEMA makes: a database without one of them is damaged, not new."""


@dataclass(frozen=True, slots=True)
class Advice:
    """What an error about a results database tells its user to do next: a tournament's
    options (`--out`, `--resume`) are not a ladder's (`arena.ladder.store.ADVICE`)."""

    damaged: str
    """For a damaged file, after "committed games were left as they are: "."""
    full: str
    """For a full disk, after "what it held is kept: "."""


RUN_ADVICE = Advice(damaged="move it aside or pick another --out",
                    full="free some space, then run again (with --resume if it holds games)")
WORKERS_SUFFIX = ".workers"
"""DIR/results.workers: the lock file a run's workers share while they may commit."""
SALTED, PUBLIC = "salted", "public"
"""Values of the `seeds` meta key: game seeds derive from the tournament seed and the run's
secret salt, or (databases from before salts) from the tournament seed alone."""


@dataclass(frozen=True, slots=True)
class GameKey:
    """Where a game sits in the schedule: round, table, repeat."""

    round: int
    table: int
    repeat: int

    def __str__(self) -> str:
        return f"r{self.round}-t{self.table}-g{self.repeat}"


@dataclass(frozen=True, slots=True)
class StoredGame:
    """A committed game and its place in the schedule."""

    key: GameKey
    record: GameRecord


@dataclass(frozen=True, slots=True)
class GameRow:
    """A stored game as its rows hold it, for checking them against each other and the replay."""

    key: GameKey
    columns: dict[str, Json]
    """`seed`, `game`, `termination`, `decisions` and `replay` of the games row."""
    seats: tuple[SeatRecord, ...]
    """The seats rows."""
    record: GameRecord | None
    """The stored record (what standings are computed from); None when it does not parse."""
    error: str | None
    """Why the record does not parse."""
    digest: str | None
    """The sha256 of the replay file when the game was committed (None before schema 2)."""


def file_digest(path: Path) -> str:
    """Return the sha256 hex digest of a file."""
    with path.open("rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


class Store:
    """A connection to one tournament's results database."""

    def __init__(self, path: Path, connection: sqlite3.Connection,
                 advice: Advice = RUN_ADVICE) -> None:
        self.path = path
        self.db = connection
        self.advice = advice
        self._lock: IO[str] | None = None
        self._worker: IO[str] | None = None

    @classmethod
    def open(cls, directory: Path, fingerprint: str | None, name: str = "",
             create: bool = False, check: bool = True, existing: bool = False,
             advice: Advice = RUN_ADVICE) -> Store:
        """Open DIR/results.sqlite, creating it (with `fingerprint`) when `create` is set
        and `existing` (`--resume`: it must hold a run already) is not.

        `fingerprint` None skips the tournament check (read-only use, e.g. standings).
        `check` False skips the whole-file `quick_check` (it reads every page: seconds at
        100k games), for a process whose parent checked the file, or a reader that turns
        a damaged page into a `StoreError` when it meets one (`explain`). `advice` is
        what its errors tell the user to do.

        Raises:
            StoreError: missing, damaged, locked, or from another tournament file.
        """
        path = directory / DB_NAME
        if not path.exists() and not create:
            raise StoreError(f"no results database at {path}")
        directory.mkdir(parents=True, exist_ok=True)
        try:
            db = sqlite3.connect(path, timeout=5.0, isolation_level=None)
            store = cls(path, db, advice)
            store._setup(fingerprint, name, create, check, existing)
        except sqlite3.DatabaseError as exc:
            raise _explain(path, exc, advice) from exc
        return store

    def _setup(self, fingerprint: str | None, name: str, create: bool, check: bool,
               existing: bool = False) -> None:
        db = self.db
        if check:
            self.check()
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master")}
        if "meta" not in tables and (not create or existing or tables & TABLES):
            raise StoreError(self._no_meta(tables, existing))  # before a byte is written
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        if "meta" not in tables:
            self._create(fingerprint, name)
            tables |= TABLES
        if TABLES - tables:
            raise StoreError(f"{self.path} is damaged: its "
                             f"{plural('table', len(TABLES - tables))} "
                             f"{', '.join(sorted(TABLES - tables))} "
                             f"{plural('is', len(TABLES - tables))} gone; {self._kept}")
        stored = self.meta("fingerprint")
        if fingerprint is not None and stored != fingerprint:
            raise OtherRun(
                f"{self.path} holds the results of another tournament file (tournament "
                f"{self.meta('name')!r}, fingerprint {stored}; this file has {fingerprint}): "
                "its games were left untouched; use another --out", self.scored())
        self._check_schema(migrate=create)

    def _create(self, fingerprint: str | None, name: str) -> None:
        """Make the tables and the meta rows, unless another run made them since this one
        looked (two runs starting into one new directory: the second then finds the first's
        run, and its lock says so, rather than a clash on meta's rows)."""
        with self.transaction():
            if self.db.execute("SELECT 1 FROM sqlite_master WHERE name = 'meta'").fetchone():
                return
            for statement in SCHEMA.split(";"):
                if statement.strip():
                    self.db.execute(statement)
            self.db.executemany("INSERT INTO meta VALUES (?, ?)", [
                ("schema", SCHEMA_VERSION), ("fingerprint", fingerprint or ""),
                ("name", name), ("created", str(time.time())), ("seeds", SALTED)])

    def _no_meta(self, tables: set[str], existing: bool) -> str:
        if tables & TABLES:  # games without the tournament they belong to
            return (f"{self.path} is damaged: its meta table (which tournament file its "
                    f"games belong to) is gone; {self._kept}")
        if existing:
            return (f"{self.path} holds no run to resume (it is empty); drop --resume to "
                    "start one")
        return f"{self.path} is not an arena results database"

    def _check_schema(self, migrate: bool) -> None:
        version = self.meta("schema")
        if version == SCHEMA_VERSION:
            return
        if version != "1":
            raise StoreError(f"{self.path} has schema version {version}, which this arena "
                             f"(schema {SCHEMA_VERSION}) does not know: use a newer arena")
        if not migrate:  # readers cope with version 1; only a run writes the migration
            return
        with self.transaction():
            if self.meta("schema") == SCHEMA_VERSION:  # another run migrated it meanwhile
                return
            self.db.execute("ALTER TABLE games ADD COLUMN digest TEXT")
            held = self.db.execute("SELECT COUNT(*) FROM games").fetchone()[0]
            self.db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", [
                ("schema", SCHEMA_VERSION), ("seeds", PUBLIC if held else SALTED)])

    @property
    def _kept(self) -> str:
        return f"committed games were left as they are: {self.advice.damaged}"

    def check(self) -> None:
        """Read the whole file (`PRAGMA quick_check`).

        Raises:
            StoreError: it is damaged (one line: the first problem SQLite names, and how
                many more it found).
        """
        try:
            found = [line.strip() for row in self.db.execute("PRAGMA quick_check")
                     for line in str(row[0]).splitlines()
                     if line.strip() and not line.startswith("*** in database")]
        except sqlite3.DatabaseError as exc:
            code = getattr(exc, "sqlite_errorcode", None)
            if code is None or code & 0xFF != sqlite3.SQLITE_CORRUPT:  # not a database...
                raise _explain(self.path, exc, self.advice) from exc
            found = [_one_line(exc)]  # ... or a page it could not even read
        if found != ["ok"]:
            more = f"; {count_of(len(found) - 1, 'more problem')}" if len(found) > 1 else ""
            raise StoreError(f"{self.path} is damaged ({found[0] if found else 'no answer'}"
                             f"{more}); {self._kept}")

    @property
    def seeds(self) -> str:
        """How this run's game seeds derive: `SALTED` or `PUBLIC` (before salts)."""
        return self.meta("seeds") or PUBLIC

    def scored(self) -> dict[str, Any] | None:
        """The fingerprinted keys of the file (or the command line) the run was begun with
        (`SCORED`), if kept."""
        try:
            found = json.loads(self.meta(SCORED) or "null")
        except ValueError:
            return None
        return found if isinstance(found, dict) else None

    def meta(self, key: str) -> str | None:
        """Return a meta value."""
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: object) -> None:
        """Store a JSON meta value (replacing an older one)."""
        with self.transaction():
            self.db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)",
                            (key, json.dumps(value, sort_keys=True)))

    def lock(self, waiting: Callable[[], None] | None = None) -> None:
        """Take the run lock, so that two runs never write one tournament; then wait until
        no worker of an earlier run is left (`waiting` is called first when one is).

        Why wait: a run killed outright (SIGKILL) leaves its workers to finish and commit
        the game in hand; a run resumed meanwhile would play that game too, and one of the
        two commits would lose. Each worker holds a shared lock on DIR/results.workers for
        its life (`hold_as_worker`), which the kernel drops when it exits.

        Raises:
            StoreError: another run holds it.
        """
        # opened without truncating: the holder's pid, written there, names it to the others
        handle = open(self.path.with_suffix(".lock"), "a+")  # noqa: SIM115 - held for the run
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            handle.seek(0)
            holder = handle.read().strip()
            handle.close()
            who = f"pid {holder}" if holder.isdigit() else "a process"
            raise StoreError(f"{self.path} is in use by another arena command ({who}: a run, "
                             "a comparison or a ladder run; wait for it to finish, or stop it "
                             "first)") from exc
        handle.seek(0)
        handle.truncate()
        handle.write(str(os.getpid()))
        handle.flush()
        self._lock = handle
        with open(self.path.with_suffix(WORKERS_SUFFIX), "a") as workers:
            try:
                fcntl.flock(workers, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                if waiting is not None:
                    waiting()
                fcntl.flock(workers, fcntl.LOCK_EX)  # a worker ends after its one game

    @staticmethod
    def in_use(directory: Path) -> bool:
        """Whether a run holds the lock of the run in `directory` now (it is still going)."""
        try:
            handle = open(directory / Path(DB_NAME).with_suffix(".lock"))  # noqa: SIM115
        except OSError:  # none: no run ever took it here
            return False
        with handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                return True
            fcntl.flock(handle, fcntl.LOCK_UN)
        return False

    def hold_as_worker(self) -> None:
        """Say, until this process exits or closes the store, that it may commit games (a
        shared lock on DIR/results.workers, which `lock` waits for)."""
        handle = open(self.path.with_suffix(WORKERS_SUFFIX), "a")  # noqa: SIM115 - held
        fcntl.flock(handle, fcntl.LOCK_SH)
        self._worker = handle

    def close(self) -> None:
        """Close the connection and release the run lock."""
        self.db.close()
        for handle in (self._lock, self._worker):
            if handle is not None:
                handle.close()
        self._lock = self._worker = None

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """Run statements in one IMMEDIATE transaction.

        Raises:
            StoreError: the database stayed locked or is damaged.
        """
        try:
            self.db.execute("BEGIN IMMEDIATE")
        except sqlite3.DatabaseError as exc:
            raise _explain(self.path, exc, self.advice) from exc
        try:
            yield
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    # rounds ------------------------------------------------------------------------------
    def add_round(self, plan: RoundPlan) -> None:
        """Record a round's pairing (kept if already there)."""
        with self.transaction():
            self.db.execute("INSERT OR IGNORE INTO rounds VALUES (?, ?)",
                            (plan.round, json.dumps(plan.to_json(), sort_keys=True)))

    def rounds(self) -> list[RoundPlan]:
        """Return the recorded pairings, in round order.

        Raises:
            StoreError: a stored pairing is not what a run writes (the file was edited).
        """
        try:
            rows = self.db.execute("SELECT round, pairing FROM rounds ORDER BY round")
            plans = []
            for number, text in rows:
                try:
                    plans.append(RoundPlan.from_json(json.loads(text)))
                except (ValueError, TypeError, KeyError, AttributeError) as exc:
                    raise StoreError(f"{self.path}: the stored pairing of round {number} is "
                                     f"not valid ({type(exc).__name__}: {exc}); the games "
                                     "were left as they are") from None
            return plans
        except sqlite3.DatabaseError as exc:
            raise _explain(self.path, exc, self.advice) from exc

    # games -------------------------------------------------------------------------------
    def add_game(self, key: GameKey, record: GameRecord) -> bool:
        """Commit one finished game and its seats; False if that game was already stored.

        The replay, complete once the referee returns the record, is digested here.
        """
        replay = Path(record.replay) if record.replay else None
        digest = file_digest(replay) if replay is not None and replay.is_file() else None
        with self.transaction():
            cursor = self.db.execute(
                "INSERT OR IGNORE INTO games (round, tbl, repeat, seed, game, termination, "
                "decisions, faults, replay, record, finished, digest) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (key.round, key.table, key.repeat, record.seed, record.game,
                 record.termination.value, record.decisions,
                 json.dumps([f.to_json() for f in record.faults]), record.replay,
                 json.dumps(record.to_json(), sort_keys=True), time.time(), digest))
            if cursor.rowcount == 0:
                return False
            self.db.executemany(
                "INSERT INTO seats VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(key.round, key.table, key.repeat, s.seat, s.bot, s.version, s.placing,
                  s.score, s.faults, s.timeouts, s.forfeit.value if s.forfeit else None,
                  s.time_ms) for s in record.seats])
        return True

    def games(self) -> list[StoredGame]:
        """Return every committed game in schedule order (never in completion order)."""
        try:
            rows = self.db.execute(
                "SELECT round, tbl, repeat, record FROM games ORDER BY round, tbl, repeat")
            games = []
            for r, t, g, text in rows:
                record, error = _parse_record(text)
                if record is None:
                    raise StoreError(f"{self.path}: the stored record of game "
                                     f"{GameKey(r, t, g)} is not valid ({error})")
                games.append(StoredGame(GameKey(r, t, g), record))
            return games
        except sqlite3.DatabaseError as exc:
            raise _explain(self.path, exc, self.advice) from exc

    def game_rows(self) -> list[GameRow]:
        """Return every stored game as its rows hold it, in schedule order."""
        columns = {r[1] for r in self.db.execute("PRAGMA table_info(games)")}
        digest = "digest" if "digest" in columns else "NULL"
        try:
            seats: dict[GameKey, list[SeatRecord]] = {}
            for r, t, g, *rest in self.db.execute(
                    "SELECT round, tbl, repeat, seat, bot, version, placing, score, faults, "
                    "timeouts, forfeit, time_ms FROM seats ORDER BY round, tbl, repeat, seat"):
                names = ("seat", "bot", "version", "placing", "score", "faults", "timeouts",
                         "forfeit", "time_ms")
                seats.setdefault(GameKey(r, t, g), []).append(
                    SeatRecord.from_json(dict(zip(names, rest, strict=True))))
            rows = []
            for r, t, g, seed, game, term, decisions, replay, text, dig in self.db.execute(
                    "SELECT round, tbl, repeat, seed, game, termination, decisions, replay, "
                    f"record, {digest} FROM games ORDER BY round, tbl, repeat"):
                key = GameKey(r, t, g)
                record, error = _parse_record(text)
                rows.append(GameRow(key, {"seed": seed, "game": game, "termination": term,
                                          "decisions": decisions, "replay": replay},
                                    tuple(seats.get(key, ())), record, error, dig))
            return rows
        except (sqlite3.DatabaseError, KeyError, ValueError, TypeError) as exc:
            if isinstance(exc, sqlite3.DatabaseError):
                raise _explain(self.path, exc, self.advice) from exc
            raise StoreError(f"{self.path}: a seats row is not valid ({exc!r})") from exc

    def finished(self) -> dict[GameKey, float]:
        """Return when each committed game was stored (seconds since the epoch)."""
        try:
            rows = self.db.execute("SELECT round, tbl, repeat, finished FROM games")
            return {GameKey(r, t, g): float(f) for r, t, g, f in rows
                    if isinstance(f, int | float)}
        except sqlite3.DatabaseError as exc:
            raise _explain(self.path, exc, self.advice) from exc

    def keys(self) -> set[GameKey]:
        """Return the keys of the committed games."""
        rows = self.db.execute("SELECT round, tbl, repeat FROM games")
        return {GameKey(r, t, g) for r, t, g in rows}


def _parse_record(text: object) -> tuple[GameRecord | None, str | None]:
    try:
        return GameRecord.from_json(json.loads(str(text))), None
    except (ValueError, KeyError, TypeError) as exc:
        return None, f"{type(exc).__name__}: {exc}"


def explain(path: Path, exc: sqlite3.DatabaseError,
            advice: Advice = RUN_ADVICE) -> StoreError:
    """One line for an SQLite error on the database at `path` (locked, full, or damaged)."""
    return _explain(path, exc, advice)


MIN_FREE = 1 << 20
"""Bytes free below which an I/O error of SQLite's is taken for a full disk."""


def full_database(exc: BaseException, path: Path | None = None) -> bool:
    """Whether SQLite failed for lack of space (a full disk or quota).

    SQLite says "database or disk is full" only where a write of the database or its
    journal fails; where it cannot grow the shared-memory file (`-shm`) beside the database,
    which even a reader of a WAL database writes, it says "disk I/O error". Such an error on
    a file system with (almost) no space left, where the database at `path` lives, is a full
    disk too, not a damaged file.
    """
    if not isinstance(exc, sqlite3.OperationalError):
        return False
    code = getattr(exc, "sqlite_errorcode", None)
    if code == sqlite3.SQLITE_FULL or "disk is full" in str(exc):
        return True
    io_error = code is not None and code & 0xFF == sqlite3.SQLITE_IOERR
    return io_error and path is not None and _space_left(path) < MIN_FREE


def _space_left(path: Path) -> int:
    """Bytes an unprivileged writer may still use on the file system holding `path`."""
    try:
        stats = os.statvfs(path if path.is_dir() else path.parent)
    except OSError:
        return MIN_FREE
    return stats.f_bavail * stats.f_frsize


def _one_line(exc: BaseException) -> str:
    return "; ".join(line.strip() for line in str(exc).splitlines() if line.strip())


def _explain(path: Path, exc: sqlite3.DatabaseError,
             advice: Advice = RUN_ADVICE) -> StoreError:
    text = _one_line(exc)
    if "locked" in text or "busy" in text:
        return StoreError(f"{path} is locked by another process ({text}); try again when it "
                          "is done")
    if full_database(exc, path):
        return StoreError(f"the disk is full: could not write {path} ({text}); what it "
                          f"held is kept: {advice.full}")
    return StoreError(f"{path} is not a usable results database ({text}); committed games "
                      f"were left as they are: {advice.damaged}")
