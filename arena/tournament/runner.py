"""The runner: schedule games, play them in worker processes, commit each as it ends, resume.

Each worker process owns one referee (and so its own bot processes, reused across its
games), takes jobs from a queue, plays them and commits every finished game to the
database itself, so a game is stored the moment it ends even if this process dies. Game
seeds are derived from (tournament seed, the run's secret salt, round, table, repeat), so a
game's result never depends on the worker that ran it, nobody can compute a deal from the
published file (`arena.tournament.secret`), and `--resume` plays exactly the missing games.
A Swiss round is paired from the stored results of the earlier rounds only, so a resumed run
recomputes the same pairings (and checks them against the recorded ones).
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import sqlite3
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import TracebackType
from typing import Any, Protocol

from arena.core.errors import ArenaError, StoreError
from arena.core.game import Json
from arena.core.record import GameRecord
from arena.core.words import count_of
from arena.referee.spec import LOOPBACK_TCP, BotSpec, FaultPolicy, TimeControl
from arena.tournament import changes
from arena.tournament.config import TournamentConfig, preflight
from arena.tournament.executor import Executor, open_executor
from arena.tournament.filediff import summary
from arena.tournament.formats import schedule_for
from arena.tournament.outputs import write_outputs
from arena.tournament.pairing import History, RoundPlan
from arena.tournament.secret import ensure_salt, game_seed, read_salt
from arena.tournament.settings import RULES, Settings
from arena.tournament.standings import Standings, ranking
from arena.tournament.store import DB_NAME, PUBLIC, SCORED, GameKey, OtherRun, Store, StoredGame
from arena.tournament.workers import DiskFull, disk_full

log = logging.getLogger(__name__)


class RefereeLike(Protocol):
    """What the runner needs of `arena.referee.Referee` (tests inject a fake)."""

    def __enter__(self) -> RefereeLike: ...

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None: ...

    def play(self, game: str, rules: Any, seed: int, seating: Sequence[str],
             replay: Path | None = None) -> GameRecord: ...


RefereeFactory = Callable[[Sequence[BotSpec], TimeControl, FaultPolicy, Path], RefereeLike]


class Interrupted(ArenaError):
    """The run was stopped (Ctrl-C); committed games are kept and `--resume` continues."""


@dataclass(frozen=True, slots=True)
class Job:
    """One game to play."""

    key: GameKey
    seating: tuple[str, ...]
    seed: int


@dataclass
class Progress:
    """What the live view shows; updated as events arrive."""

    total: int = 0
    done: int = 0
    resumed: int = 0
    running: dict[int, GameKey] = field(default_factory=dict)
    faults: int = 0
    timeouts: int = 0
    forfeits: int = 0
    started: float = field(default_factory=time.monotonic)
    last: GameRecord | None = None
    bots: dict[int, int] = field(default_factory=dict)
    """Worker -> its bot processes alive after its last game."""
    bundles: list[str] = field(default_factory=list)
    """The digests of the bot bundles sent to a cluster's workers, once per send."""

    @property
    def bots_alive(self) -> int:
        """Bot processes alive in all workers (as of each worker's last game)."""
        return sum(self.bots.values())


def jobs_of(plan: RoundPlan, seed: int, salt: str | None) -> list[Job]:
    """Return the games of one round, with their seeds (`salt` None: the public derivation)."""
    keys = [(GameKey(plan.round, t.index, r), seating)
            for t in plan.tables for r, seating in enumerate(t.seatings)]
    return [Job(key, seating, game_seed(seed, salt, key)) for key, seating in keys]


def static_schedule(config: TournamentConfig) -> list[RoundPlan] | None:
    """Return the whole schedule of a round-robin or gauntlet (None for Swiss)."""
    return schedule_for(config).fixed()


def settings(config: TournamentConfig) -> dict[str, Json]:
    """Return what `arena standings` needs to rebuild the table from the database alone."""
    return Settings.of(config).to_json()


def standings_of(config: TournamentConfig, games: Sequence[StoredGame],
                 rounds: Sequence[RoundPlan], with_fit: bool = True) -> Standings:
    """Return the standings of a tournament after `games`."""
    return Settings.of(config).standings(games, rounds, with_fit)


AfterStore = Callable[[str, Path], None]
"""Work a worker does on a committed game (it must not raise; picklable: sent to workers)."""


class Runner:
    """Runs one tournament into one output directory."""

    def __init__(self, config: TournamentConfig, out: Path, *, concurrency: int | None = None,
                 resume: bool = False, referee: RefereeFactory | None = None,
                 on_progress: Callable[[Progress], None] | None = None,
                 withdraw: Sequence[str] = (), enter: Sequence[str] = (),
                 cluster: str | None = None, checked: bool = False) -> None:
        self.config, self.out, self.resume = config, out, resume
        self.checked = checked
        """The caller has made `preflight`'s checks (`arena run`, dry run or not): `run`
        does not look every bot's command up again."""
        self.cluster = cluster if cluster is not None else config.cluster
        """The Dask cluster's address (`--cluster`, else the file's); None: local workers."""
        self.withdraw, self.enter = list(withdraw), list(enter)
        self.settings = Settings.of(config)
        """The run's settings: the file's, with the withdrawals and entries recorded."""
        self.concurrency = concurrency or config.concurrency or os.cpu_count() or 1
        self.referee = referee if referee is not None else _default_referee(config, out)
        self.on_progress = on_progress or (lambda progress: None)
        self.progress = Progress()
        self.games: list[StoredGame] = []
        self.rounds: list[RoundPlan] = []
        self.salt: str | None = None
        self.after_store: AfterStore | None = None
        """Called in the worker with (game key, replay file) once each game is committed
        (`arena run` makes the report's view data there); never on a cluster."""

    def run(self) -> Standings:
        """Play every missing game, write results.json and standings.csv, return the table.

        Raises:
            ConfigError: a bot command is missing (before any game starts; unless
                `checked`).
            StoreError: the database is damaged, locked, or from another file, or --resume
                names a directory that holds no run.
            ArenaError: a game failed in a worker, or killed its worker `MAX_DEATHS` times.
            DiskFull: a write failed for lack of space; committed games are kept.
            Interrupted: Ctrl-C; committed games are kept.
        """
        if not self.checked:
            preflight(self.config)
        try:
            return self._run()
        except (OSError, sqlite3.OperationalError) as exc:
            full = disk_full(exc, self.out)
            if full is None:
                raise
            raise DiskFull(f"{full}; the games committed so far are kept in {self.out}: free "
                           "some space, then run again with --resume") from None

    def _run(self) -> Standings:
        store = self._open()
        try:
            self.games = store.games()
            self.rounds = store.rounds()
            _check_keys(store, self.games, self.rounds)
            self.progress.resumed = self.progress.done = len(self.games)
            try:
                with open_executor(self, store) as pool:
                    self._play_all(store, pool)
            except KeyboardInterrupt:
                when = f": {len(self.games)} of {self.progress.total} games" if \
                    self.progress.total else \
                    f" before this run's first game: {count_of(len(self.games), 'game')}"
                raise Interrupted(f"interrupted{when} stored in {store.path}") \
                    from None
            if self.settings.rules != RULES:  # finished: every round is paired as today's
                self.settings = replace(self.settings, rules=RULES)
                store.set_meta("settings", self.settings.to_json())
            table = self.settings.standings(self.games, self.rounds)
            write_outputs(self.out, self.settings.to_json(), table, self.games, self.rounds)
            return table
        finally:
            store.close()

    def live_standings(self) -> Standings:
        """Return the standings so far without the batch fit (cheap, for the live view)."""
        return self.settings.standings(self.games, self.rounds, with_fit=False)

    def check_store(self) -> str | None:
        """Make the checks against the output directory's run (`--resume`, its `--withdraw`
        and `--enter`) that `run` makes before a game, writing nothing: a dry run of a
        resume the run would refuse fails too. Return what the run would refuse without
        --resume (games of this file there already): a dry run shows such a run's schedule.

        Raises:
            StoreError, ArenaError: as `run` would, before its first game.
        """
        if not self.resume and not (self.out / DB_NAME).is_file():
            return None
        with contextlib.closing(self._store(create=False)) as store:
            try:
                self._fresh(store)
            except StoreError as exc:
                return str(exc)
            changes.apply(self.config, store, self.withdraw, self.enter)
        return None

    def _fresh(self, store: Store) -> None:
        """Refuse to add a run's games to another run's without --resume."""
        held = len(store.keys())
        if held and not self.resume:
            raise StoreError(f"{self.out} already holds {count_of(held, 'game')} of this "
                             "tournament: add --resume to continue it, or pick another --out")

    def _store(self, create: bool) -> Store:
        """The run's database, once the file and the options are checked against it."""
        if self.resume and not (self.out / DB_NAME).is_file():
            raise StoreError(f"{self.out} holds no run of {self.config.name!r} to resume; "
                             "drop --resume to start one")
        changes.check_entries(self.config, self.enter)
        # a bot that entered late is in the file, not in the run's fingerprint; the workers
        # open the database with the config's fingerprint
        self.config = replace(self.config, fingerprint=self._fingerprint())
        for sub in ("replays", "logs") if create else ():
            (self.out / sub).mkdir(parents=True, exist_ok=True)
        try:
            return self._open_store(create)
        except OtherRun as exc:
            changed = summary(exc.scored, self.config.scored or {}) if exc.scored else ""
            if not changed:
                raise
            raise StoreError(f"{exc}. What this file changes: {changed} (a run continues "
                             "only with the file it began with; who plays changes with "
                             "--withdraw BOT, in any format, and --enter BOT, in a Swiss)"
                             ) from None

    def _open_store(self, create: bool) -> Store:
        try:
            return Store.open(self.out, self.config.fingerprint, self.config.name,
                              create=create, existing=self.resume)
        except OtherRun as exc:
            adopted = self.config.adopting(exc.scored) if exc.scored else None
            if adopted is None:
                raise
        # only keys that change nothing differ (`rounds` added or removed where the format
        # reads none): the run goes on under its first file's values
        self.config = adopted
        self.config = replace(adopted, fingerprint=self._fingerprint())
        return Store.open(self.out, self.config.fingerprint, self.config.name,
                          create=create, existing=self.resume)

    def _open(self) -> Store:
        store = self._store(create=True)
        try:
            store.lock(waiting=orphans_waited)
            held = len(store.keys())
            if store.meta(SCORED) is None and self.config.scored is not None:
                store.set_meta(SCORED, dict(self.config.scored))
            self._fresh(store)
            self.settings = changes.apply(self.config, store, self.withdraw, self.enter)
            store.set_meta("settings", self.settings.to_json())
            self.salt = self._salt(store, held)
        except BaseException:
            store.close()
            raise
        return store

    def _salt(self, store: Store, held: int) -> str | None:
        if store.seeds == PUBLIC:  # begun before salts: the rest is seeded the same way
            return None
        return read_salt(self.out) if held else ensure_salt(self.out)

    def _fingerprint(self) -> str:
        """The file's fingerprint without the bots that entered late (recorded or now)."""
        return self.config.fingerprint_without(
            changes.entered(self.out) | set(self.enter) if self.resume else set())

    def _play_all(self, store: Store, pool: Executor) -> None:
        plans = static_schedule(self.config)
        if plans is not None:
            for plan in plans:
                self._record_round(store, plan)
            seed = self.config.seed
            jobs = [j for p in plans for j in self._playable(jobs_of(p, seed, self.salt))]
            self.progress.total = len(jobs)
            self._play(pool, jobs)
            return
        rounds = self.config.rounds or 1
        for number in range(1, rounds + 1):
            plan = self._swiss_plan(number)
            jobs = self._playable(jobs_of(plan, self.config.seed, self.salt))
            # the rounds before, as played, and this round's field for the rest: a bot that
            # withdrew or entered changes the count from its round on
            before = sum(len(self._playable(jobs_of(p, 0, None))) for p in self.rounds
                         if p.round < number)
            self.progress.total = before + len(jobs) * (rounds - number + 1)
            self._record_round(store, plan)
            self._play(pool, jobs)

    def _playable(self, jobs: list[Job]) -> list[Job]:
        """The jobs left once a withdrawn bot's unplayed games are dropped (stored ones stay)."""
        gone = {c.bot for c in self.settings.withdrawn}
        held = {g.key for g in self.games}
        return [j for j in jobs if j.key in held or gone.isdisjoint(j.seating)]

    def _swiss_plan(self, number: int) -> RoundPlan:
        earlier = [p for p in self.rounds if p.round < number]
        games = [g for g in self.games if g.key.round < number]
        table = self.settings.standings(games, earlier, with_fit=False)
        points = {row.bot: row.points for row in table.rows}
        active = set(self.settings.active(number))
        ranked = [b for b in ranking(table) if b in active]
        return schedule_for(self.config).next_round(number, ranked, points,
                                                    History.of(earlier))

    def _record_round(self, store: Store, plan: RoundPlan) -> None:
        stored = next((p for p in self.rounds if p.round == plan.round), None)
        if stored is None:
            store.add_round(plan)
            self.rounds.append(plan)
        elif stored != plan and self.settings.rules != RULES:
            raise StoreError(
                f"{self.out} was begun by an older arena (tournament rules "
                f"{self.settings.rules}, this one follows {RULES}) that paired round "
                f"{plan.round} otherwise: a run cannot change its pairing rules midway; "
                "finish it with the arena that began it, or start it again in a new "
                f"directory (its stored games still give standings: arena standings {self.out})")
        elif stored != plan:
            raise StoreError(f"round {plan.round} was recorded with another pairing than the "
                             "one this run computes: the database does not match this "
                             "tournament's results")

    def play(self, pool: Executor, jobs: list[Job]) -> None:
        """Play `jobs` on `pool` until each is stored (the games are committed by the
        workers); the one call through which a ladder hands its rounds to the workers."""
        self._play(pool, jobs)

    def _play(self, pool: Executor, jobs: list[Job]) -> None:
        held = {g.key for g in self.games}
        todo = [j for j in jobs if j.key not in held]
        for job in todo:
            pool.submit(job)
        waiting = {j.key for j in todo}
        while waiting:
            event = pool.next_event()
            if event is None:  # nothing for a while: a view that redraws at most so often
                self.on_progress(self.progress)  # shows what it left out
                continue
            kind, worker, key, payload = event
            if kind == "start" and key is not None:
                self.progress.running[worker] = key
            elif kind == "done" and key is not None:
                self.progress.running.pop(worker, None)
                waiting.discard(key)
                self._finished(key, GameRecord.from_json(payload))
            elif kind == "retry":
                self.progress.running.pop(worker, None)
                self.progress.bots.pop(worker, None)
                log.warning("%s", payload)
            elif kind == "bots":
                self.progress.bots[worker] = len(payload)
            elif kind == "bundle":
                self.progress.bundles.append(payload)
            self.on_progress(self.progress)

    def _finished(self, key: GameKey, record: GameRecord) -> None:
        self.games.append(StoredGame(key, record))
        self.progress.done += 1
        self.progress.last = record
        for seat in record.seats:
            self.progress.faults += seat.faults
            self.progress.timeouts += seat.timeouts
            self.progress.forfeits += 1 if seat.forfeit is not None else 0


def _default_referee(config: TournamentConfig, out: Path) -> RefereeFactory:
    from arena.referee import Referee

    # The run directory is hidden from every sandboxed bot; the parent says once whether
    # bots run without a sandbox (see `isolation_warning`), not each worker.
    return functools.partial(Referee, endpoint=LOOPBACK_TCP if config.transport == "tcp"
                             else None, sandbox=config.sandbox, hide=(out,), announce=False,
                             max_bots=config.bot_bound())


def _check_keys(store: Store, games: Sequence[StoredGame], rounds: Sequence[RoundPlan]) -> None:
    """Refuse stored games that no stored round has a seat for: a run pairs and stores a
    round before it plays a game of it, so such a game was put there by hand (or by another
    program), and counting it would change the standings.

    Raises:
        StoreError: naming the first such game.
    """
    seats = {(plan.round, n): len(table.seatings)
             for plan in rounds for n, table in enumerate(plan.tables)}
    for game in games:
        key = game.key
        if key.repeat >= seats.get((key.round, key.table), 0):
            raise StoreError(f"{store.path} holds game {key}, which no round of this run "
                             "pairs (the file was edited?): its games were left as they "
                             "are; move it aside or pick another --out")


def orphans_waited() -> None:
    """Say why a run does not start at once (`Store.lock` waits for a killed run's workers)."""
    log.warning("waiting for the workers of an interrupted run to commit the games they "
                "were playing")


def isolation_warning(config: TournamentConfig) -> str | None:
    """The loud line to print once per run when bots will run without a sandbox.

    Raises:
        ConfigError: `sandbox: bwrap` where bubblewrap does not work.
    """
    from arena.referee.sandbox import resolve, warning

    return warning(resolve(config.sandbox))

