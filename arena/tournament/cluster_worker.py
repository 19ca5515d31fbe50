"""What runs on a Dask worker: one game per task, played by a referee the worker keeps.

Each worker thread keeps one referee per run (and so its own bot processes, reused across
the games it plays, in its own sandboxes), built the first time a game of that run reaches
it and closed when the coordinator ends the run (`close_run`). A bot sent as a bundle runs
from the machine's bundle cache (`arena.tournament.bundles`); a task that finds a bundle
missing answers `Need` and the coordinator sends it the bytes with the next try.

The worker never opens the coordinator's database: a task returns the record and the
replay's bytes, and the coordinator writes both.
"""

from __future__ import annotations

import contextlib
import logging
import shutil
import threading
import time
import traceback
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.core.errors import ArenaError
from arena.core.game import Json
from arena.referee.sandbox import SandboxPolicy
from arena.referee.spec import LOOPBACK_TCP, BotSpec, FaultPolicy, TimeControl
from arena.tournament.bundles import Placed, place, unpack, unpacked
from arena.tournament.worker_logs import LogPayload, kept

if TYPE_CHECKING:
    from arena.referee import Referee
    from arena.tournament.runner import Job


@dataclass(frozen=True, slots=True)
class WorkSpec:
    """Everything a worker needs to play the games of one run (sent with each task)."""

    token: str
    """Names the run on the workers (its referees, its event topic)."""
    bots: tuple[BotSpec, ...]
    placed: Mapping[str, Placed]
    """Bot name -> where its bundle puts its files; a bot not named runs as written (a
    built-in, or files on a filesystem every worker shares)."""
    time: TimeControl
    faults: FaultPolicy
    game: str
    rules: Mapping[str, Json]
    sandbox: SandboxPolicy
    tcp: bool
    max_bots: int
    log_level: int = logging.WARNING
    """The coordinator's: a game's records at this level or above go back with its result."""

    @property
    def topic(self) -> str:
        """The Dask event topic on which the workers say which game they start."""
        return f"arena-{self.token}"


@dataclass(frozen=True, slots=True)
class Need:
    """The task did not play: these bundles are not on the worker's machine."""

    digests: tuple[str, ...]
    worker: str
    logs: tuple[LogPayload, ...] = ()
    """What the task logged (`worker_logs.kept`), for the coordinator to print."""


@dataclass(frozen=True, slots=True)
class Done:
    """A played game: the record's JSON, the replay's bytes, and the worker's state."""

    record: dict[str, Json]
    replay: bytes
    live: tuple[str, ...]
    """The bots whose process is alive in that worker thread after the game."""
    unpacked: tuple[str, ...]
    """The bundles this task received and unpacked."""
    worker: str
    thread: int
    """The worker thread that played it (each has its own referee)."""
    logs: tuple[LogPayload, ...] = ()


@dataclass(frozen=True, slots=True)
class Failed:
    """The game could not be played: one line (a traceback, if any, on the worker's log)."""

    message: str
    worker: str
    logs: tuple[LogPayload, ...] = ()


@dataclass
class _Seat:
    """One worker thread's referee for one run."""

    referee: Referee
    workdir: Path
    lock: threading.Lock
    thread: int
    used: float = 0.0
    """When it last finished a game (monotonic seconds)."""
    closed: bool = False


_SEATS: dict[tuple[str, int], _Seat] = {}
_SEATS_LOCK = threading.Lock()
_CLOSED: set[str] = set()
"""Runs `close_run` ended here: a task of one still queued (Ctrl-C cancels the games not
started, but one may start meanwhile) must not start a referee, whose bots nobody would
stop for `IDLE_S`."""
_THREADS: dict[int, int] = {}
"""Thread ident -> its small number in this worker (names its logs' directory)."""


def play(spec: WorkSpec, job: Job, upcoming: Sequence[str],
         data: Mapping[str, bytes]) -> Need | Done | Failed:
    """Play one game (the Dask task); `data` holds the bytes of bundles the worker lacked.
    What it logs goes back with its outcome."""
    with kept(spec.log_level) as logs:
        outcome = _task(spec, job, upcoming, data)
    return replace(outcome, logs=tuple(logs))


def _task(spec: WorkSpec, job: Job, upcoming: Sequence[str],
          data: Mapping[str, bytes]) -> Need | Done | Failed:
    from distributed import get_worker

    worker = get_worker()
    try:
        for digest, raw in data.items():
            unpack(digest, raw)
        missing = sorted({p.digest for p in spec.placed.values() if unpacked(p.digest) is None})
        if missing:
            return Need(tuple(missing), worker.address)
        done = None
        while done is None:  # a referee the reaper closed meanwhile: take a fresh one
            done = _play_on(_seat(spec, Path(worker.local_directory)), spec, job, upcoming,
                            worker)
        return replace(done, unpacked=tuple(data))
    except ArenaError as exc:
        return Failed(str(exc), worker.address)
    except Exception as exc:  # noqa: BLE001 - our bug or a broken machine: say it in one line
        worker_log(worker.local_directory, traceback.format_exc())
        return Failed(f"{type(exc).__name__}: {exc} (traceback in "
                      f"{worker.local_directory}/arena-error.log on that worker)",
                      worker.address)


def _play_on(seat: _Seat, spec: WorkSpec, job: Job, upcoming: Sequence[str],
             worker: Any) -> Done | None:
    """Play one game on this thread's referee; None when the reaper closed it first."""
    with seat.lock:
        if seat.closed:
            return None
        worker.log_event(spec.topic, {"start": [job.key.round, job.key.table, job.key.repeat],
                                      "thread": seat.thread})
        replay = seat.workdir / "replays" / f"{job.key}.jsonl"
        try:
            record = seat.referee.play(spec.game, spec.rules, job.seed, job.seating, replay,
                                       upcoming=upcoming)
            raw_replay = replay.read_bytes()
        finally:
            replay.unlink(missing_ok=True)
        live = tuple(seat.referee.live_bots())
        seat.used = time.monotonic()
    return Done(record.to_json(), raw_replay, live, (), worker.address, seat.thread)


def _seat(spec: WorkSpec, local: Path) -> _Seat:
    """This thread's referee for the run, started on its first game."""
    from arena.referee import Referee

    key = (spec.token, threading.get_ident())
    with _SEATS_LOCK:
        seat = _SEATS.get(key)
        if spec.token in _CLOSED:
            raise ArenaError("the coordinator closed this run: its game is not played")
    if seat is not None:
        return seat
    bots = tuple(place(b, spec.placed[b.name], _home(spec.placed[b.name]))
                 if b.name in spec.placed else b for b in spec.bots)
    with _SEATS_LOCK:
        number = _THREADS.setdefault(threading.get_ident(), len(_THREADS))
    workdir = local / "arena" / spec.token / f"thread-{number}"
    (workdir / "replays").mkdir(parents=True, exist_ok=True)
    # the run's directory on this worker (logs, replays in flight) is hidden from every bot;
    # a worker without the sandbox `auto` wants says so once, in its own log
    referee = Referee(bots, spec.time, spec.faults, workdir,
                      endpoint=LOOPBACK_TCP if spec.tcp else None, sandbox=spec.sandbox,
                      hide=(workdir.parent,), announce=True, max_bots=spec.max_bots)
    referee.__enter__()
    seat = _Seat(referee, workdir, threading.Lock(), number, time.monotonic())
    with _SEATS_LOCK:
        closed = spec.token in _CLOSED  # close_run may have come while it started
        if not closed:
            _SEATS[key] = seat
    if closed:
        _close(seat)
        raise ArenaError("the coordinator closed this run: its game is not played")
    _start_reaper()
    return seat


def _home(placed: Placed) -> Path:
    home = unpacked(placed.digest)
    if home is None:  # checked by `play` just before
        raise ArenaError(f"bundle {placed.digest[:12]} vanished from the worker's cache")
    return home


def close_run(token: str) -> dict[str, bytes]:
    """Stop the referees (and bots) of run `token` in this worker; return the bots' logs
    (path under the run's log directory -> bytes) for the coordinator to keep.

    Run by the coordinator on every worker when the run ends (`Client.run`). A referee's
    lock is taken first: its thread is then between games, and the memory barrier lets
    another thread close its sockets.
    """
    with _SEATS_LOCK:
        _CLOSED.add(token)  # a task of this run that starts after this plays nothing
        mine = [(k, s) for k, s in _SEATS.items() if k[0] == token]
        for key, _ in mine:
            del _SEATS[key]
    logs: dict[str, bytes] = {}
    for _, seat in mine:
        logs.update(_close(seat))
    for _, seat in mine:  # the run's directory holds every thread's: removed once all read
        shutil.rmtree(seat.workdir.parent, ignore_errors=True)
    return logs


def _close(seat: _Seat) -> dict[str, bytes]:
    """Stop one referee and its bots; return its bots' logs (thread-N/NAME.log -> bytes)."""
    logs: dict[str, bytes] = {}
    with seat.lock:
        seat.closed = True
        with contextlib.suppress(Exception):
            seat.referee.__exit__(None, None, None)
    for path in sorted((seat.workdir / "logs").rglob("*")):
        with contextlib.suppress(OSError):
            if path.is_file():
                logs[f"{seat.workdir.name}/{path.relative_to(seat.workdir / 'logs')}"] = \
                    path.read_bytes()
    return logs


IDLE_S = 600.0
"""A referee that played no game this long is closed: the coordinator that would close it
is most likely gone (killed, or its machine lost), and its bots would live on. A run that
merely waited gets a fresh referee with its next game (its bots start again)."""
REAP_EVERY_S = 60.0
_reaper: threading.Thread | None = None


def reap(now: float | None = None) -> list[tuple[str, int]]:
    """Close every referee idle for `IDLE_S` and not playing; return (run, thread) of each."""
    now = time.monotonic() if now is None else now
    with _SEATS_LOCK:
        stale = [(k, s) for k, s in _SEATS.items()
                 if now - s.used > IDLE_S and not s.lock.locked()]
        for key, _ in stale:
            del _SEATS[key]
    for _, seat in stale:
        _close(seat)
        shutil.rmtree(seat.workdir, ignore_errors=True)
    return [(token, seat.thread) for (token, _), seat in stale]


def _start_reaper() -> None:
    """Start this worker process's reaper thread, once."""
    global _reaper
    with _SEATS_LOCK:
        if _reaper is not None:
            return
        _reaper = threading.Thread(target=_reap_forever, name="arena-reaper", daemon=True)
    _reaper.start()


def _reap_forever() -> None:
    while not threading.Event().wait(REAP_EVERY_S):
        reap()


def worker_log(local: str, text: str) -> None:
    """Append a traceback to the worker's arena-error.log (best effort)."""
    with contextlib.suppress(OSError), open(Path(local) / "arena-error.log", "a") as f:
        f.write(text)

