"""The runner: schedule games, play them in worker processes, commit each as it ends, resume.

Each worker process owns one referee (and so its own bot processes, reused across its
games), takes jobs from a queue, plays them and commits every finished game to the
database itself, so a game is stored the moment it ends even if this process dies. Game
seeds are derived from (tournament seed, round, table, repeat), so a game's result never
depends on the worker that ran it, and `--resume` plays exactly the missing games. A Swiss
round is paired from the stored results of the earlier rounds only, so a resumed run
recomputes the same pairings (and checks them against the recorded ones).
"""

from __future__ import annotations

import contextlib
import functools
import logging
import multiprocessing as mp
import os
import queue
import signal
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from multiprocessing.process import BaseProcess
from pathlib import Path
from types import FrameType, TracebackType
from typing import Any, Protocol

from arena.core.errors import ArenaError, StoreError
from arena.core.game import Json
from arena.core.record import GameRecord
from arena.core.rng import derive_seed
from arena.referee.spec import LOOPBACK_TCP, BotSpec, FaultPolicy, TimeControl
from arena.tournament.config import Format, TournamentConfig, preflight
from arena.tournament.outputs import write_outputs
from arena.tournament.pairing import History, RoundPlan, gauntlet, round_robin, swiss_round
from arena.tournament.standings import PointsRule, Standings, compute, ranking
from arena.tournament.store import GameKey, Store, StoredGame

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
    crashes: int = 0
    started: float = field(default_factory=time.monotonic)
    last: GameRecord | None = None


def jobs_of(plan: RoundPlan, seed: int) -> list[Job]:
    """Return the games of one round, with their derived seeds."""
    return [Job(GameKey(plan.round, t.index, r), seating,
                derive_seed(seed, plan.round, t.index, r))
            for t in plan.tables for r, seating in enumerate(t.seatings)]


def static_schedule(config: TournamentConfig) -> list[RoundPlan] | None:
    """Return the whole schedule of a round-robin or gauntlet (None for Swiss)."""
    names = [b.name for b in config.bots]
    size, smallest = config.table.size, config.table.smallest
    if config.format is Format.ROUND_ROBIN:
        return round_robin(names, size, smallest, config.games_per_pairing, config.seed,
                           config.rounds)
    if config.format is Format.GAUNTLET:
        field_bots = [n for n in names if n not in config.challengers]
        return gauntlet(list(config.challengers), field_bots, size, smallest,
                        config.games_per_pairing, config.seed)
    return None


def points_rule(config: TournamentConfig) -> PointsRule:
    """Return the points rule of a tournament."""
    return PointsRule(config.points, config.bye_points)


def settings(config: TournamentConfig) -> dict[str, Json]:
    """Return what `arena standings` needs to rebuild the table from the database alone."""
    return {"name": config.name, "game": config.game, "format": config.format.value,
            "bots": [b.name for b in config.bots], "points": config.points,
            "bye_points": config.bye_points, "table_size": config.table.size,
            "seed": config.seed, "rounds": config.rounds}


def standings_of(config: TournamentConfig, games: Sequence[StoredGame],
                 rounds: Sequence[RoundPlan], with_fit: bool = True) -> Standings:
    """Return the standings of a tournament after `games`."""
    return compute([b.name for b in config.bots], games, rounds, points_rule(config),
                   config.table.size, config.format is Format.SWISS, with_fit, config.seed)


class Runner:
    """Runs one tournament into one output directory."""

    def __init__(self, config: TournamentConfig, out: Path, *, concurrency: int | None = None,
                 resume: bool = False, referee: RefereeFactory | None = None,
                 on_progress: Callable[[Progress], None] | None = None) -> None:
        self.config, self.out, self.resume = config, out, resume
        self.concurrency = concurrency or config.concurrency or os.cpu_count() or 1
        self.referee = referee if referee is not None else _default_referee(config.transport)
        self.on_progress = on_progress or (lambda progress: None)
        self.progress = Progress()
        self.games: list[StoredGame] = []
        self.rounds: list[RoundPlan] = []

    def run(self) -> Standings:
        """Play every missing game, write results.json and standings.csv, return the table.

        Raises:
            ConfigError: a bot command is missing (before any game starts).
            StoreError: the database is damaged, locked, or from another file.
            Interrupted: Ctrl-C; committed games are kept.
        """
        preflight(self.config)
        store = self._open()
        try:
            self.games = store.games()
            self.rounds = store.rounds()
            self.progress.resumed = self.progress.done = len(self.games)
            try:
                with _Pool(self) as pool:
                    self._play_all(store, pool)
            except KeyboardInterrupt:
                raise Interrupted(
                    f"interrupted: {len(self.games)} of {self.progress.total or '?'} games are "
                    f"stored in {store.path}") from None
            table = standings_of(self.config, self.games, self.rounds)
            write_outputs(self.out, settings(self.config), table, self.games, self.rounds)
            return table
        finally:
            store.close()

    def live_standings(self) -> Standings:
        """Return the standings so far without the batch fit (cheap, for the live view)."""
        return standings_of(self.config, self.games, self.rounds, with_fit=False)

    def _open(self) -> Store:
        for sub in ("replays", "logs"):
            (self.out / sub).mkdir(parents=True, exist_ok=True)
        store = Store.open(self.out, self.config.fingerprint, self.config.name, create=True)
        try:
            store.lock()
            held = len(store.keys())
            if held and not self.resume:
                raise StoreError(f"{self.out} already holds {held} game(s) of this "
                                 "tournament: add --resume to continue it, or pick another --out")
            store.set_meta("settings", settings(self.config))
        except BaseException:
            store.close()
            raise
        return store

    def _play_all(self, store: Store, pool: _Pool) -> None:
        plans = static_schedule(self.config)
        if plans is not None:
            self.progress.total = sum(len(jobs_of(p, 0)) for p in plans)
            for plan in plans:
                self._record_round(store, plan)
            self._play(store, pool, [j for p in plans for j in jobs_of(p, self.config.seed)])
            return
        rounds = self.config.rounds or 1
        for number in range(1, rounds + 1):
            plan = self._swiss_plan(number)
            if number == 1:
                self.progress.total = len(jobs_of(plan, 0)) * rounds
            self._record_round(store, plan)
            self._play(store, pool, jobs_of(plan, self.config.seed))

    def _swiss_plan(self, number: int) -> RoundPlan:
        earlier = [p for p in self.rounds if p.round < number]
        games = [g for g in self.games if g.key.round < number]
        ranked = ranking(standings_of(self.config, games, earlier, with_fit=False))
        return swiss_round(number, ranked, History.of(earlier), self.config.table.size,
                           self.config.table.smallest, self.config.games_per_pairing)

    def _record_round(self, store: Store, plan: RoundPlan) -> None:
        stored = next((p for p in self.rounds if p.round == plan.round), None)
        if stored is None:
            store.add_round(plan)
            self.rounds.append(plan)
        elif stored != plan:
            raise StoreError(f"round {plan.round} was recorded with another pairing than the "
                             "one this run computes: the database does not match this "
                             "tournament's results")

    def _play(self, store: Store, pool: _Pool, jobs: list[Job]) -> None:
        held = {g.key for g in self.games}
        todo = [j for j in jobs if j.key not in held]
        for job in todo:
            pool.submit(job)
        waiting = {j.key for j in todo}
        while waiting:
            event = pool.next_event()
            if event is None:
                continue
            kind, worker, key, payload = event
            if kind == "start":
                self.progress.running[worker] = key
            elif kind == "done":
                self.progress.running.pop(worker, None)
                waiting.discard(key)
                self._finished(key, GameRecord.from_json(payload))
            self.on_progress(self.progress)

    def _finished(self, key: GameKey, record: GameRecord) -> None:
        self.games.append(StoredGame(key, record))
        self.progress.done += 1
        self.progress.last = record
        for seat in record.seats:
            self.progress.faults += seat.faults
            self.progress.timeouts += seat.timeouts
            self.progress.crashes += 1 if seat.forfeit is not None else 0


def _default_referee(transport: str) -> RefereeFactory:
    from arena.referee import Referee

    if transport == "tcp":
        return functools.partial(Referee, endpoint=LOOPBACK_TCP)
    return Referee



class _Pool:
    """Worker processes fed through a queue; stopped cleanly on exit or interrupt."""

    def __init__(self, runner: Runner) -> None:
        self.runner = runner
        self.ctx = mp.get_context("spawn")
        self.tasks: Any = self.ctx.Queue()
        self.events: Any = self.ctx.Queue()
        self.workers: list[BaseProcess] = []
        self.pending = 0

    def __enter__(self) -> _Pool:
        config, runner = self.runner.config, self.runner
        for index in range(runner.concurrency):
            process = self.ctx.Process(
                target=worker_main, name=f"arena-worker-{index}", daemon=True,
                args=(index, config.bots, config.time, config.faults, config.game,
                      dict(config.rules), runner.out, config.fingerprint, runner.referee,
                      self.tasks, self.events))
            process.start()
            self.workers.append(process)
        return self

    def submit(self, job: Job) -> None:
        self.tasks.put(job)

    def next_event(self) -> tuple[str, int, GameKey, Any] | None:
        try:
            event: tuple[str, int, GameKey, Any] = self.events.get(timeout=0.2)
        except queue.Empty:
            dead = [w for w in self.workers if not w.is_alive()]
            if dead:
                raise ArenaError(f"worker {dead[0].name} died (exit code {dead[0].exitcode}); "
                                 "the games committed so far are kept: run again with "
                                 "--resume") from None
            return None
        if event[0] == "error":
            raise ArenaError(f"game {event[2]} failed in worker {event[1]}: {event[3]}")
        return event

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if kind is None:
            for _ in self.workers:
                self.tasks.put(None)
            deadline = time.monotonic() + 30
        else:
            for worker in self.workers:
                if worker.is_alive():
                    os.kill(worker.pid or 0, signal.SIGTERM)
            deadline = time.monotonic() + 10
        for worker in self.workers:
            worker.join(max(0.1, deadline - time.monotonic()))
            if worker.is_alive():
                worker.kill()
                worker.join(1)
        for q in (self.tasks, self.events):
            q.cancel_join_thread()
            q.close()


def _exit_on_sigterm(signum: int, frame: FrameType | None) -> None:
    raise SystemExit(128 + signum)


def worker_main(index: int, bots: Sequence[BotSpec], time_control: TimeControl,
                faults: FaultPolicy, game: str, rules: dict[str, Json], out: Path,
                fingerprint: str, referee: RefereeFactory, tasks: Any, events: Any) -> None:
    """Play jobs from `tasks` until told to stop; commit each game, report it on `events`.

    Ctrl-C is left to the parent (which stops the workers); SIGTERM exits through the
    referee's context manager, so no bot process is left behind.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    events.cancel_join_thread()
    parent = mp.parent_process()
    store = Store.open(out, fingerprint)
    try:
        with referee(bots, time_control, faults, out / "logs" / f"worker-{index}") as ref:
            while parent is None or parent.is_alive():
                try:
                    job: Job | None = tasks.get(timeout=0.5)
                except queue.Empty:
                    continue
                if job is None:
                    break
                events.put(("start", index, job.key, None))
                try:
                    record = ref.play(game, rules, job.seed, job.seating,
                                      out / "replays" / f"{job.key}.jsonl")
                except Exception as exc:  # our bug or a bad setup: tell the parent, stop
                    events.put(("error", index, job.key, _failure(exc, out, index)))
                    break
                store.add_game(job.key, record)
                events.put(("done", index, job.key, record.to_json()))
    finally:
        with contextlib.suppress(Exception):
            store.close()


def _failure(exc: Exception, out: Path, index: int) -> str:
    """Describe a failed game in one line; an unexpected error's traceback goes to a file."""
    if isinstance(exc, ArenaError):
        return str(exc)
    path = out / "logs" / f"worker-{index}" / "error.log"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(traceback.format_exc())
    return f"{type(exc).__name__}: {exc} (traceback in {path})"

