"""The runner's worker processes: each owns one referee and plays one game at a time.

Each worker talks to the parent over its own pipe, and writes on it synchronously, so a
message is in the pipe before the worker goes on (or dies): when the parent reads the end
of a worker's pipe, it has read everything that worker said. A worker that dies without a
word (killed, crashed, out of memory) is replaced, and the game it held is played again
from the start by the next free worker; seeds come from the job, so the result is the same.
Only a game that kills its worker `MAX_DEATHS` times stops the run.

The parent hands a job to a worker only when it is idle, so it always knows which game
each worker holds.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import multiprocessing as mp
import os
import resource
import signal
import sys
import threading
import time
import traceback
from collections import Counter, deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from multiprocessing import forkserver
from multiprocessing.connection import Connection, wait
from multiprocessing.context import ForkServerContext
from multiprocessing.process import BaseProcess
from pathlib import Path
from types import FrameType, TracebackType
from typing import TYPE_CHECKING, Any

from arena.core.errors import ArenaError
from arena.core.game import Json
from arena.core.record import GameRecord
from arena.referee.limits import Cgroup
from arena.referee.process import exit_when_safe
from arena.referee.spec import BotSpec, FaultPolicy, TimeControl
from arena.tournament.dispatch import Dispatcher, start_cost
from arena.tournament.store import DB_NAME, GameKey, Store, full_database
from arena.tournament.worker_logs import SEND_LOCK, Sink, forward

if TYPE_CHECKING:
    from arena.tournament.runner import AfterStore, Job, RefereeFactory, Runner

log = logging.getLogger(__name__)

MAX_DEATHS = 3
"""A game whose worker dies this many times stops the run (the cause is not bad luck)."""
POLL_S = 0.5
"""How long `Pool.next_event` waits for a message before it returns None."""

Event = tuple[str, int, GameKey | None, Any]
"""(kind, worker index, game, payload). Kinds: `start`, `bots` (payload: the names of the
bots whose process is alive in that worker, sent before its `done`), `done` (payload: the
record's JSON), `retry` (payload: what happened, one line), `bundle` (a cluster's worker
received a bot bundle; payload: its digest); `error` is raised, never returned, and `pace`
(payload: a `Pace`, sent before `done`) and `log` (a record of the worker's:
`worker_logs`) are kept by the pool, never returned."""

Pace = tuple[float, int, float]
"""One game's wall seconds without its waits for bots, the bot starts it waited for, and
the seconds it waited for them (`Referee.waits`)."""


class DiskFull(ArenaError):
    """A write failed for lack of space; committed games are kept and `--resume` goes on."""


def disk_full(exc: BaseException, out: Path, doing: str = "") -> str | None:
    """Return one line saying what could not be written, when `exc` is a full disk or quota.

    `out` is the run's directory (named when the error has no file name); `doing` says
    when, e.g. " while playing game r1-t0-g2".
    """
    if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
        target = exc.filename or f"in {out}"
        return (f"the disk is full: could not write {target}{doing} "
                f"({exc.strerror or os.strerror(exc.errno)})")
    if full_database(exc, out / DB_NAME):
        return f"the disk is full: could not commit to {out / DB_NAME}{doing} ({exc})"
    return None


def exit_text(code: int | None) -> str:
    """Say how a process ended: `exited with status 1`, `was killed by SIGKILL`."""
    if code is None:
        return "stopped answering"
    if code < 0:
        with contextlib.suppress(ValueError):
            return f"was killed by {signal.Signals(-code).name}"
        return f"was killed by signal {-code}"
    return f"exited with status {code}"


@dataclass
class _Worker:
    process: BaseProcess
    conn: Connection
    job: Job | None = None
    started: bool = False
    """The worker said `start` for its job (a death before that is not the game's fault)."""
    live: frozenset[str] = frozenset()
    """The bots whose process is alive in this worker, as of its last game."""


def worker_context() -> ForkServerContext:
    """The multiprocessing context workers start in: forked from a server process that has
    already imported what a worker runs.

    Why not `spawn`: each spawned worker imports the runner, the engines, the store and
    ZeroMQ afresh (~0.5 s of CPU), a cost that grows with the worker count and made CPU per
    game grow with it (bench/tournament.py measures both). The fork server imports them
    once, then forks each worker from that single-threaded process, so the workers start
    as cleanly as spawned ones (no thread or lock of the parent's is inherited).
    """
    ctx = mp.get_context("forkserver")
    ctx.set_forkserver_preload(list(_PRELOAD))
    _start_fork_server()
    return ctx


_SERVER_START = threading.Lock()
"""Held while the fork server starts under `_server_environ` (os.environ is the process's)."""


def _start_fork_server() -> None:
    """Start the fork server now (unless it runs) on the module search path of this process.

    Why: multiprocessing starts the server as `python -c ...`, and `-c` puts the current
    directory first on the server's sys.path; Python 3.11's server imports the preloaded
    modules from there, ignoring the parent's sys.path that it is handed (later Pythons
    replace theirs with it). A folder named `arena/` in the directory a run was started
    from then replaced the installed package in every worker (a worker's own sys.path is
    the parent's, but the preloaded modules are already imported by then).
    PYTHONSAFEPATH=1 keeps `-c` from adding the directory; PYTHONPATH puts this process's
    first entry (its script's directory) first, where this process has it. Neither reaches
    a worker's bots: a worker takes the parent's environment (`worker_main`).
    """
    with _SERVER_START:
        saved = {name: os.environ.get(name) for name in ("PYTHONSAFEPATH", "PYTHONPATH")}
        os.environ.update(_server_environ())
        try:
            forkserver.ensure_running()
        finally:
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value


def _server_environ() -> dict[str, str]:
    """The variables the fork server starts with: no current directory on its sys.path,
    this process's first entry instead (none where this process has none: `python -P`)."""
    first = [] if sys.flags.safe_path or not sys.path else [os.path.abspath(sys.path[0])]
    inherited = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    return {"PYTHONSAFEPATH": "1", "PYTHONPATH": os.pathsep.join(first + inherited)}


_PRELOAD = ("arena.tournament.runner", "arena.referee", "arena.games",
            "arena.tournament.forkprep")
"""What a worker imports: the runner (its jobs and referee factory are unpickled from
there, and it imports this module), the referee and the engines; last, what prepares the
server's state for sharing (`forkprep`)."""


def worker_core(index: int) -> int | None:
    """The core worker `index` and its bots run on with `pin_workers`: the cores this
    process may use, in turn (None where affinity cannot be read).

    Why pin: a worker and its bots take turns (one waits while another thinks), so on one
    core each message wakes a process on a warm core; left to float, the wake-ups cross to
    other cores, idle or busy with other workers, at the price of an interrupt, a wake from
    idle (an exit to the host on a VM) and cold caches, all counted as CPU. On the 2-core
    VM, 2 workers pinned played 1.4-1.5 x the games/s of floating ones for 0.7-0.9 x the
    CPU per game (bench/tournament.py --scaling prints both).
    """
    try:
        cores = sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not Linux
        return None
    return cores[index % len(cores)] if cores else None


def _pin(core: int | None) -> None:
    """Run this worker, and every bot it starts from now on, on `core`."""
    if core is not None:
        with contextlib.suppress(OSError):  # the core went away (a cpuset changed): float
            os.sched_setaffinity(0, {core})


def startup_cpu(conn: Connection, *_imports: object) -> None:
    """Send the CPU seconds this process spent before it could run (bench/tournament.py
    starts it as a worker would be started, to compare start methods; `_imports` are
    values whose unpickling imports what a worker's arguments import)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)  # a forked child's starts at zero
    conn.send(usage.ru_utime + usage.ru_stime)
    conn.close()


class Pool:
    """Worker processes, each handed one job at a time; stopped cleanly on exit or interrupt."""

    def __init__(self, runner: Runner, stored: Callable[[GameKey], GameRecord | None]) -> None:
        self.runner, self.stored = runner, stored
        self.ctx = worker_context()
        self.workers: dict[int, _Worker] = {}
        self.queue = Dispatcher(runner.concurrency)
        self.ready: deque[Event] = deque()
        self.deaths: Counter[GameKey | None] = Counter()
        self.paces: tuple[float, int, float, int] = (0.0, 0, 0.0, 0)
        """Games' wall seconds without waits, games, seconds waited for bots, starts."""
        self.logs = Sink()

    def __enter__(self) -> Pool:
        for index in range(self.runner.concurrency):
            self._start(index)
        return self

    def _start(self, index: int) -> None:
        config, runner = self.runner.config, self.runner
        mine, theirs = self.ctx.Pipe()
        process = self.ctx.Process(
            target=worker_main, name=f"arena-worker-{index}", daemon=True,
            args=(index, config.bots, config.time, config.faults, config.game,
                  dict(config.rules), runner.out, config.fingerprint, runner.referee, theirs,
                  dict(os.environ), runner.after_store,
                  worker_core(index) if config.pin_workers else None,
                  logging.getLogger("arena").getEffectiveLevel()))
        process.start()
        theirs.close()  # else the parent would never read the end of the worker's pipe
        self.workers[index] = _Worker(process, mine)

    def submit(self, job: Job) -> None:
        """Queue a game; idle workers take queued games at the next `next_event` (or
        `dispatch`), so that games queued together are shared out as a whole."""
        self.queue.add(job)

    def dispatch(self) -> None:
        """Hand each idle worker its next game (`Dispatcher`: its home group first, the
        groups of the workers idle together chosen together)."""
        self.queue.form({index: worker.live for index, worker in self.workers.items()
                         if worker.job is None})
        for index, worker in self.workers.items():
            if worker.job is not None:
                continue
            job = self.queue.take(index, worker.live)
            if job is None:  # nothing queued, or nothing worth its starts to this worker
                continue
            worker.job, worker.started = job, False
            # a hint: the bots of the game this worker would take next, to start them
            # while it plays this one (nothing is promised; results never depend on it)
            hint = self.queue.next_for(index, worker.live | set(job.seating))
            # a worker that just died is found at the end of its pipe; its job goes back
            with contextlib.suppress(OSError):
                worker.conn.send((job, hint.seating if hint else ()))

    def next_event(self) -> Event | None:
        """Return the next event, or None when no worker said anything for `POLL_S`.

        Raises:
            ArenaError: a game failed in a worker (one line; a traceback goes to a file), or
                a game killed its worker `MAX_DEATHS` times.
            DiskFull: a worker could not write its game for lack of space.
        """
        self.dispatch()
        if not self.ready:
            by_conn = {w.conn: i for i, w in self.workers.items()}
            for conn in wait(list(by_conn), timeout=POLL_S):
                self._read(by_conn[conn])  # type: ignore[index]
        return self.ready.popleft() if self.ready else None

    def _read(self, index: int) -> None:
        """Take every message waiting from one worker; at the end of its pipe, replace it."""
        worker = self.workers[index]
        try:
            while worker.conn.poll():
                self._take(worker, worker.conn.recv())
        except (EOFError, OSError):
            self._died(index)

    def _take(self, worker: _Worker, event: Event) -> None:
        kind, index, key, payload = event
        if kind == "error":
            where = f"game {key} failed in worker {index}" if key else f"worker {index} failed"
            raise ArenaError(f"{where}: {payload}")
        if kind == "full":
            raise DiskFull(f"{payload}{_RESUME}")
        if kind == "start":
            worker.started = True
        elif kind == "bots":
            worker.live = frozenset(payload)
        elif kind == "pace":
            self._paced(payload)
            return
        elif kind == "log":
            self.logs.log(payload)
            return
        elif kind == "done":
            worker.job = None
            self.dispatch()
        self.ready.append(event)

    def _paced(self, pace: Pace) -> None:
        """Weigh a start in games as this run measures them (`start_cost`): where a start
        holds a worker up for many games (more workers than cores, pinned: seconds, for
        games of ~25 ms), taking another group's games at the price of a start slows the
        run as well as costing CPU."""
        played, starts, waited = pace
        self.paces = (self.paces[0] + played, self.paces[1] + 1, self.paces[2] + waited,
                      self.paces[3] + starts)
        self.queue.start_games = start_cost(*self.paces)

    def _died(self, index: int) -> None:
        worker = self.workers.pop(index)
        worker.conn.close()
        worker.process.join(5)
        if worker.process.is_alive():  # it closed its pipe but hangs on the way out
            worker.process.kill()
            worker.process.join(5)
        how, job = exit_text(worker.process.exitcode), worker.job
        if worker.process.pid is not None:
            for group in Cgroup.left_by(worker.process.pid):  # what its bots' left, if any
                group.kill_all()
                group.remove()
        if job is None or not worker.started:
            self._idle_death(index, how)
            if job is not None:
                self.queue.again_first(job)
        elif (record := self.stored(job.key)) is not None:
            # it died between its commit and its word: the game is not played twice
            self.ready.append(("done", index, job.key, record.to_json()))
        else:
            self._game_death(index, how, job)
        self._start(index)
        self.dispatch()

    def _game_death(self, index: int, how: str, job: Job) -> None:
        self.deaths[job.key] += 1
        tries = self.deaths[job.key]
        (self.runner.out / "replays" / f"{job.key}.jsonl").unlink(missing_ok=True)
        if tries >= MAX_DEATHS:
            raise ArenaError(
                f"game {job.key} ({', '.join(job.seating)}) killed its worker {tries} times "
                f"(the last {how}); the run stops here{_RESUME}")
        self.queue.again_first(job)
        self.ready.append(("retry", index, job.key,
                           f"worker {index} {how} while playing game {job.key}; a new worker "
                           f"plays it again from the start (try {tries + 1} of {MAX_DEATHS})"))

    def _idle_death(self, index: int, how: str) -> None:
        self.deaths[None] += 1
        if self.deaths[None] >= MAX_DEATHS:
            raise ArenaError(f"worker processes died {self.deaths[None]} times outside any "
                             f"game (the last {how}); the run stops here{_RESUME}")
        self.ready.append(("retry", index, None, f"worker {index} {how} outside a game; "
                                                 "a new worker takes its place"))

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        workers = list(self.workers.values())
        if kind is None:
            for worker in workers:
                with contextlib.suppress(OSError):
                    worker.conn.send(None)
            deadline = time.monotonic() + 30
        else:
            for worker in workers:
                if worker.process.is_alive():
                    os.kill(worker.process.pid or 0, signal.SIGTERM)
            deadline = time.monotonic() + 10
        self._drain(workers, deadline)
        for worker in workers:
            worker.process.join(max(0.1, deadline - time.monotonic()))
            if worker.process.is_alive():
                worker.process.kill()
                worker.process.join(1)
            worker.conn.close()

    def _drain(self, workers: Sequence[_Worker], deadline: float) -> None:
        """Print what stopping workers still log, until each closes its pipe or `deadline`
        passes: a worker that logs more than a pipe holds while it stops its bots would
        otherwise wait on the pipe until it is killed."""
        pipes = [worker.conn for worker in workers]
        while pipes and (left := deadline - time.monotonic()) > 0:
            ready = wait(pipes, timeout=left)
            for conn in [c for c in pipes if c in ready]:
                try:
                    while conn.poll():
                        event: Event = conn.recv()
                        if event[0] == "log":
                            self.logs.log(event[3])
                except Exception:  # noqa: BLE001 - its end (EOF), or a frame cut by a
                    pipes.remove(conn)  # SIGTERM mid-send: either way nothing more to read


RESUME_HINT = ("; the games committed so far are kept: once that is fixed, run again with "
               "--resume")
"""How a run's stopping error ends (`arena run`'s words: a ladder says its own)."""
_RESUME = RESUME_HINT


class _ParentGone(Exception):
    """The parent's end of the pipe is closed: nobody is left to tell anything."""


def _exit_on_sigterm(signum: int, frame: FrameType | None) -> None:
    exit_when_safe(128 + signum)


def worker_main(index: int, bots: Sequence[BotSpec], time_control: TimeControl,
                faults: FaultPolicy, game: str, rules: dict[str, Json], out: Path,
                fingerprint: str, referee: RefereeFactory, conn: Connection,
                environ: dict[str, str] | None = None,
                after_store: AfterStore | None = None, core: int | None = None,
                log_level: int = logging.WARNING) -> None:
    """Play the jobs the parent sends on `conn` until it sends None; commit each game and
    report it. Any error is reported in one line before the worker exits.

    `environ` is the parent's environment now: a worker forked from the fork server would
    otherwise inherit the server's, as it was when the server started. `after_store` runs
    on each game once it is committed, before the parent hears of it. With `core`, the
    worker and its bots run on that core alone (`worker_core`). Log records at
    `log_level` or above go to the parent, which prints them (`worker_logs`).

    Ctrl-C is left to the parent (which stops the workers); SIGTERM exits through the
    referee's context manager, so no bot process is left behind.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    _release_fork_server()
    forward(conn, index, log_level)
    _pin(core)
    if environ is not None:
        os.environ.clear()
        os.environ.update(environ)
    key: GameKey | None = None
    try:
        store = Store.open(out, fingerprint, check=False)  # the parent checked it
        store.hold_as_worker()  # a later run waits for this game's commit
        try:
            # every worker logs into OUT/logs/NAME.log: one log file per bot per run
            with referee(bots, time_control, faults, out) as ref:
                while (got := _receive(conn)) is not None:
                    job, upcoming = got
                    key = job.key
                    _send(conn, ("start", index, key, None))
                    record, pace = _timed(ref, store, game, rules, job, out, upcoming)
                    if after_store is not None:
                        after_store(str(job.key), out / "replays" / f"{job.key}.jsonl")
                    live = ref.live_bots() if hasattr(ref, "live_bots") else []
                    _send(conn, ("bots", index, None, live))
                    if pace is not None:
                        _send(conn, ("pace", index, None, pace))
                    _send(conn, ("done", index, key, record.to_json()))
                    key = None
        finally:
            with contextlib.suppress(Exception):
                store.close()
    except _ParentGone:
        pass
    except Exception as exc:  # noqa: BLE001 - our bug, a bad setup or a full disk: say it
        full = disk_full(exc, out, f" while playing game {key}" if key else "")
        event = ("full", index, key, full) if full else \
            ("error", index, key, _failure(exc, out, index))
        with contextlib.suppress(_ParentGone):
            _send(conn, event)
    finally:
        conn.close()


def _release_fork_server() -> None:
    """Close this worker's end of the pipe that keeps the fork server alive.

    multiprocessing hands every child of the fork server that end (so that it could start
    processes through the server too; a worker never does), and the server exits only when
    every copy is closed. Kept, a run killed with SIGKILL left its server running as long
    as its workers did, so the SIGTERM a ladder's workers ask for at their parent's death
    (`arena.ladder.worker`) never came: each played its game out and committed it, up to
    half a minute later (found by a scheduler's audit)."""
    server = getattr(forkserver, "_forkserver", None)
    fd = getattr(server, "_forkserver_alive_fd", None)
    if isinstance(fd, int):
        with contextlib.suppress(OSError):
            os.close(fd)
        server._forkserver_alive_fd = None  # type: ignore[union-attr]


def _receive(conn: Connection) -> tuple[Job, tuple[str, ...]] | None:
    """The next job and the bots of the one likely to follow it, or None to stop."""
    try:
        got: tuple[Job, tuple[str, ...]] | None = conn.recv()
    except (EOFError, OSError) as exc:
        raise _ParentGone from exc
    return got


def _send(conn: Connection, event: Event) -> None:
    try:
        with SEND_LOCK:  # a log record may be on its way from another thread
            conn.send(event)
    except OSError as exc:
        raise _ParentGone from exc


def _timed(ref: Any, store: Store, game: str, rules: dict[str, Json], job: Job,
           out: Path, upcoming: Sequence[str]) -> tuple[GameRecord, Pace | None]:
    """`_play`, and the game's `Pace` (None from a referee that keeps no `waits`)."""
    waits = getattr(ref, "waits", None)
    before = (waits.starts, waits.seconds) if waits is not None else (0, 0.0)
    began = time.monotonic()
    record = _play(ref, store, game, rules, job, out, upcoming)
    if waits is None:
        return record, None
    waited = waits.seconds - before[1]
    return record, (time.monotonic() - began - waited, waits.starts - before[0], waited)


def _play(ref: Any, store: Store, game: str, rules: dict[str, Json], job: Job,
          out: Path, upcoming: Sequence[str] = ()) -> GameRecord:
    """Play and commit one game; a game that did not get committed leaves no replay file."""
    replay = out / "replays" / f"{job.key}.jsonl"
    try:
        record: GameRecord = (ref.play(game, rules, job.seed, job.seating, replay,
                                       upcoming=upcoming) if upcoming and
                              hasattr(ref, "live_bots") else
                              ref.play(game, rules, job.seed, job.seating, replay))
        store.add_game(job.key, record)
    except BaseException:
        with contextlib.suppress(OSError):
            replay.unlink(missing_ok=True)
        raise
    return record


def _failure(exc: Exception, out: Path, index: int) -> str:
    """Describe a failed game in one line; an unexpected error's traceback goes to a file."""
    if isinstance(exc, ArenaError):
        return str(exc)
    path = out / "logs" / f"worker-{index}" / "error.log"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(traceback.format_exc())
    except OSError:
        return f"{type(exc).__name__}: {exc}"
    return f"{type(exc).__name__}: {exc} (traceback in {path})"
