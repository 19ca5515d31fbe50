"""`arena ladder run`: play more games, cron-safe, and leave a rating snapshot.

One run at a time: the run holds an exclusive `flock` on DIR/ladder.lock, which the kernel
releases however the process ends (SIGKILL included); a second run exits at once
(`LadderBusy`) or, with `wait`, blocks until the first is done. Each worker process holds
a shared lock on DIR/workers.lock for its life and is sent SIGTERM if the run dies
(`PR_SET_PDEATHSIG`), so the next run first waits until no worker of a killed run is left.

A run plays rounds: a round is `batch` tables planned at once by `matchmaking` from the
beliefs after the previous round, recorded before its games start, played by the
tournament layer's workers (`Runner.play`: the one call that hands games to workers), and
absorbed into the beliefs once all its games are stored. A round cut short by a killed
run is finished first by the next run (the same games, seeds and seats; entries no longer
active are dropped). After the last round the batch fit's table is stored as the run's
snapshot (`arena ladder history`).
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import json
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO

from arena.core.errors import ArenaError, ConfigError, StoreError
from arena.core.record import GameRecord
from arena.core.words import count_of, plural
from arena.ladder import rating
from arena.ladder.config import LadderConfig, check_fixed, expand_cmd, load_ladder, played
from arena.ladder.matchmaking import Entrant, plan_round
from arena.ladder.read import compute_table
from arena.ladder.store import ACTIVE, NEXT_RUN, RETIRED, LadderStore, Version, reading
from arena.ladder.worker import WORKERS_LOCK, WorkerReferee
from arena.referee.sandbox import SandboxMode, SandboxPolicy
from arena.referee.spec import BotSpec
from arena.tournament.config import TournamentConfig, bot_problems
from arena.tournament.executor import Executor, open_executor
from arena.tournament.pairing import RoundPlan, Table
from arena.tournament.runner import (
    AfterStore,
    Job,
    Progress,
    RefereeFactory,
    Runner,
    isolation_warning,
)
from arena.tournament.secret import SALT_NAME, game_seed, read_salt
from arena.tournament.store import GameKey
from arena.tournament.workers import RESUME_HINT, DiskFull

log = logging.getLogger(__name__)

LOCK_NAME = "ladder.lock"


class LadderBusy(ArenaError):
    """Another `arena ladder run` holds the ladder."""


@dataclass(frozen=True, slots=True)
class RunResult:
    """What one run did."""

    run: int
    played: int
    """Games played and stored by this run."""
    resumed: int
    """Of those, games of a round that a killed run had left unfinished."""
    stored: int
    """Games in the ladder after the run."""
    skipped: tuple[str, ...] = ()
    """One line per active version left out of this run (its command is missing)."""
    dropped: tuple[str, ...] = ()
    """One line per version retired or superseded while this run played: its later rounds
    leave it out (a version added meanwhile plays from the next run on)."""


@dataclass(frozen=True, slots=True)
class Budget:
    """When a run stops planning rounds: after `games`, or once `minutes` have passed."""

    games: int | None = None
    minutes: float | None = None

    def left(self, played: int, started: float) -> int:
        """How many more games may be planned now."""
        if self.minutes is not None and time.monotonic() - started >= self.minutes * 60:
            return 0
        return self.games - played if self.games is not None else 1 << 30


@contextlib.contextmanager
def ladder_lock(directory: Path, wait: bool,
                on_wait: Callable[[str], None] = lambda line: None) -> Iterator[None]:
    """Hold the ladder's run lock; with `wait`, block until the run holding it ends.

    Raises:
        LadderBusy: another run holds it and `wait` is False.
    """
    handle = open(directory / LOCK_NAME, "a+")  # noqa: SIM115 - held for the run
    try:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _holder(handle)
            if not wait:
                raise LadderBusy(f"another `arena ladder run` is playing in {directory} "
                                 f"({holder}); this run exits without playing (add --wait "
                                 "to wait for it)") from None
            on_wait(f"waiting for the run in progress in {directory} ({holder}) to finish")
            fcntl.flock(handle, fcntl.LOCK_EX)
        handle.seek(0)
        handle.truncate()
        handle.write(json.dumps({"pid": os.getpid(), "since": time.time()}))
        handle.flush()
        _wait_for_orphans(directory, on_wait)
        yield
    finally:
        handle.close()


def _holder(handle: IO[str]) -> str:
    handle.seek(0)
    try:
        data = json.loads(handle.read() or "{}")
        since = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(float(data["since"])))
        return f"pid {int(data['pid'])}, since {since}"
    except (ValueError, KeyError, TypeError):
        return "pid unknown"


def _wait_for_orphans(directory: Path, on_wait: Callable[[str], None]) -> None:
    """Block until no worker of an earlier (killed) run is alive."""
    with open(directory / WORKERS_LOCK, "a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            on_wait("waiting for the workers of a stopped run to exit")
            fcntl.flock(handle, fcntl.LOCK_EX)


class LadderRun:
    """One run over one ladder directory (the caller holds `ladder_lock`)."""

    def __init__(self, directory: Path, budget: Budget, *, concurrency: int | None = None,
                 referee: RefereeFactory | None = None,
                 on_progress: Callable[[Progress], None] | None = None,
                 sandbox: str | None = None, cluster: str | None = None,
                 after_store: AfterStore | None = None, pin_workers: bool = False) -> None:
        """`sandbox` (auto, bwrap, none) overrides ladder.yaml's; `cluster` plays the games
        on that Dask cluster (docs/cluster.md); `after_store` is the runner's (each worker
        calls it on each game it stored); `pin_workers` pins the local workers even where
        ladder.yaml's `pin_workers` does not."""
        self.directory, self.budget = directory, budget
        self.config: LadderConfig = load_ladder(directory)
        if sandbox is not None:
            base = self.config.base
            policy = SandboxPolicy(SandboxMode(sandbox), base.sandbox.limits)
            self.config = replace(self.config, base=replace(base, sandbox=policy))
        if pin_workers:
            self.config = replace(self.config, base=replace(self.config.base,
                                                            pin_workers=True))
        self.concurrency, self.referee, self.on_progress = concurrency, referee, on_progress
        self.cluster, self.after_store = cluster, after_store
        self.played = self.resumed = 0
        self.before: int | None = None
        """The games stored when this run began to play (None: before it got that far)."""
        self.stored: int | None = None
        """After an interrupt: how many games this run stored, counted in the database
        once its workers have stopped (None: not known)."""
        self.dropped: list[str] = []
        """A line per version that stopped being active while this run played."""

    def isolation_note(self) -> str | None:
        """The loud line to print when bots will run without a sandbox (None: they won't).

        Raises:
            ConfigError: `sandbox: bwrap` where bubblewrap does not work.
        """
        return isolation_warning(self.config.base)

    def run(self) -> RunResult:
        """Play the budget's games; store the snapshot.

        Raises:
            ConfigError: fewer playable active bots than seats, or a ladder.yaml whose
                `game` or `players_per_game` is not the ladder's.
            StoreError: the database is damaged (before any game) or not a ladder's.
            ArenaError: the run stopped (games killed their workers, a full disk); its
                stored games are kept and the next run goes on.
        """
        store = LadderStore.open(self.directory, check=False)
        try:
            with reading(store.store.path):
                return self._run(store)
        except ArenaError as exc:
            raise _for_ladder(exc) from None
        except KeyboardInterrupt:
            self._count_stored(store)
            raise
        finally:
            store.close()

    def _count_stored(self, store: LadderStore) -> None:
        """Count the games this interrupted run stored: a worker may commit a game after
        the last one the run was told of, while it is being stopped."""
        if self.before is None:
            self.stored = 0
            return
        with contextlib.suppress(sqlite3.Error):
            self.stored = store.game_count() - self.before

    def _run(self, store: LadderStore) -> RunResult:
        started = time.monotonic()
        checker = _Check(self.directory)
        checker.start()  # reads every page while the workers start
        known = store.identity()
        check_fixed(self.config, known, self.directory)
        versions, skipped = _playable(store.active())
        for line in skipped:  # at the start of the night's log, whatever happens next; and
            log.warning("%s", line)  # above an error, which is then the last line (tail -1)
        if len(versions) < self.config.seats:
            raise ConfigError(f"{count_of(len(versions), 'active bot')} can play in "
                              f"{self.directory}; a "
                              f"table needs {self.config.seats}: add bots with `arena ladder "
                              "add`" + (" or fix those above" if skipped else ""))
        tournament = self.config.tournament([_spec(v) for v in versions], self.directory,
                                            store.fingerprint)
        salt = _salt(self.directory)
        runner = self._runner(tournament)
        with open_executor(runner, store.store,
                           functools.partial(_stored, store)) as pool:
            checker.result()  # before a byte is written: a damaged file plays no game
            if known is None:
                store.save_identity(*played(self.config))
            number = store.start_run(os.getpid())
            self.before = store.game_count()
            runner.progress.total = self.budget.games or 0
            self._rounds(runner, store, pool, versions, salt, started)
        return self._finish(store, number, tuple(skipped))

    def _rounds(self, runner: Runner, store: LadderStore, pool: Executor,
                versions: Sequence[Version], salt: str, started: float) -> None:
        """Finish a killed run's round, then plan and play rounds while the budget lasts."""
        pending = self._pending(store, {v.entry for v in versions})
        if pending:
            complete = self._play(runner, store, pool, pending, salt,
                                  self.budget.left(0, started))
            self.resumed = self.played
            if not complete:
                return
        while (left := self.budget.left(self.played, started)) > 0:
            versions = self._still_active(store, versions)
            if len(versions) < self.config.seats:
                return
            plan = self._plan(store, versions, min(left, self.config.batch))
            store.store.add_round(plan)
            self._play(runner, store, pool, plan, salt, left)

    def _still_active(self, store: LadderStore, versions: Sequence[Version]) -> list[Version]:
        """The run's versions that are still active: one retired, or superseded by a new
        version, while the run plays (`arena ladder retire` or `add` meanwhile) is left out
        of the rounds planned after that, with a line (`dropped`). A version added
        meanwhile is not among the workers' bots: it plays from the next run on."""
        status = {v.entry: v.status for v in store.versions()}
        kept = []
        for version in versions:
            now = status.get(version.entry, RETIRED)
            if now == ACTIVE:
                kept.append(version)
                continue
            self.dropped.append(f"{version.entry} was {now} while this run played: its "
                                "later rounds leave it out")
        if len(kept) < self.config.seats and len(kept) < len(versions):
            self.dropped.append(f"{count_of(len(kept), 'bot')} of this run "
                                f"{plural('is', len(kept))} still active and a table needs "
                                f"{self.config.seats}: the run plans no more rounds")
        return kept

    def _finish(self, store: LadderStore, number: int,
                skipped: tuple[str, ...] = ()) -> RunResult:
        """Store the run's snapshot: the batch fit's table after its games."""
        stored = store.game_count()
        table, rated, complete = compute_table(store, self.config.window)
        store.finish_run(number, self.played, table, stored, rated)
        store.save_columns(complete)
        return RunResult(number, self.played, self.resumed, stored, skipped,
                         tuple(self.dropped))

    def _runner(self, tournament: TournamentConfig) -> Runner:
        base = self.referee
        if base is None:
            base = Runner(tournament, self.directory).referee
        runner = Runner(tournament, self.directory, concurrency=self.concurrency,
                        referee=WorkerReferee(self.directory, base),
                        on_progress=self.on_progress, cluster=self.cluster)
        runner.after_store = self.after_store
        return runner

    def _pending(self, store: LadderStore, entries: set[str]) -> RoundPlan | None:
        """The unfinished last round of a killed run, without its games that can no longer
        be played (an entry left); None when every round is complete and absorbed."""
        through, _ = store.beliefs()
        last = store.last_round()
        if last <= through:
            return None
        plan = store.round(last)
        tables = tuple(t for t in plan.tables if entries.issuperset(t.seatings[0]))
        return RoundPlan(plan.round, tables)

    def _plan(self, store: LadderStore, versions: Sequence[Version], tables: int) -> RoundPlan:
        _, beliefs = store.beliefs()
        size = self.config.seats
        entrants = [Entrant(v.entry, b.mu, b.sigma, b.games, b.seats)
                    for v in versions for b in [beliefs.get(v.entry) or rating.fresh(size)]]
        number = store.last_round() + 1
        seatings = plan_round(entrants, tables, size, self.config.explore,
                              self.config.base.seed, number)
        return RoundPlan(number, tuple(Table(i, (s,)) for i, s in enumerate(seatings)))

    def _play(self, runner: Runner, store: LadderStore, pool: Executor, plan: RoundPlan,
              salt: str, limit: int) -> bool:
        """Play the round's games not yet stored (at most `limit`); absorb the round once
        they are all stored, and say whether they are."""
        held = store.keys_of(plan.round)
        missing = [Job(key, t.seatings[0], game_seed(self.config.base.seed, salt, key))
                   for t in plan.tables for key in [GameKey(plan.round, t.index, 0)]
                   if key not in held]
        jobs = missing[:limit]
        runner.play(pool, jobs)
        self.played += len(jobs)
        if len(jobs) < len(missing):
            return False
        self._absorb(store, plan.round)
        return True

    def _absorb(self, store: LadderStore, number: int) -> None:
        """Add every stored game up to round `number` to the beliefs (in key order)."""
        through, beliefs = store.beliefs()
        games = store.seatings_after(through)
        store.save_beliefs(number, rating.absorb(beliefs, games, self.config.seats))


class _Check(threading.Thread):
    """The database's whole-file check, in a thread with its own connection (SQLite lets
    go of the GIL), started with the run: it reads every page (a second or more at 100k
    games) while the workers start, and `result`, called before the run writes anything,
    raises what it found, so that a damaged file gets no game (the nightly run would
    otherwise go on adding games to it, and commit each, until a read met the damage)."""

    def __init__(self, directory: Path) -> None:
        super().__init__(name="ladder-check", daemon=True)
        self.directory = directory
        self.error: StoreError | None = None

    def run(self) -> None:
        try:
            LadderStore.open(self.directory, check=True).close()
        except StoreError as exc:
            self.error = exc

    def result(self) -> None:
        """Wait for the check.

        Raises:
            StoreError: the database is damaged.
        """
        self.join()
        if self.error is not None:
            raise self.error


def _for_ladder(exc: ArenaError) -> ArenaError:
    """The error with a ladder's advice: a stopped run's words (`RESUME_HINT`, from the
    workers or the cluster) name `--resume`, which `arena ladder run` has no need of."""
    text = str(exc)
    if RESUME_HINT not in text:
        return exc
    again = text.replace(RESUME_HINT, NEXT_RUN)
    return DiskFull(again) if isinstance(exc, DiskFull) else ArenaError(again)


def _salt(directory: Path) -> str:
    """The ladder's secret salt.

    Raises:
        StoreError: it is missing or malformed (one line saying what a ladder can do), or
            readable by others.
    """
    try:
        return read_salt(directory)
    except StoreError as exc:
        if "--out" not in str(exc):  # its mode: `chmod 600` is a ladder's remedy too
            raise
        path = directory / SALT_NAME
        what = "is malformed (64 lowercase hex digits expected)" if path.exists() \
            else "is missing"
        raise StoreError(f"{path} {what}: this ladder's game seeds derive from it, and "
                         "`arena verify` checks its stored games against it: restore it from "
                         "a backup (without one, start a new ladder with `arena ladder "
                         "init`)") from None


def _spec(version: Version) -> BotSpec:
    return BotSpec(version.entry, expand_cmd(version.cmd), version.cwd, version.env)


def _playable(active: Sequence[Version]) -> tuple[list[Version], list[str]]:
    """The active versions whose command exists, and a line for each one that does not
    (one member's broken bot does not stop the ladder)."""
    playable, skipped = [], []
    for version in active:
        problems = bot_problems(_spec(version))
        if problems:
            skipped.append(f"{version.entry} is not scheduled in this run: "
                           f"{'; '.join(problems)}")
            continue
        playable.append(version)
    return playable, skipped


def _stored(store: LadderStore, key: GameKey) -> GameRecord | None:
    return store.record(key)

