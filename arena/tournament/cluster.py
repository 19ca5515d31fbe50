"""The `dask` executor: games as tasks on a Dask distributed cluster.

The coordinator (this process) submits one task per game (`cluster_worker.play`) and alone
writes the database: a task returns the record and the replay, written here the moment
its result arrives, as a local worker would. A worker lost mid-game is Dask's to handle:
the scheduler gives the task to another worker, which plays the game again from the start
with the same seed (the first try left nothing behind). A game whose workers die
`distributed.scheduler.allowed-failures` + 1 times stops the run, like `MAX_DEATHS`.

Bots reach the workers as bundles (`arena.tournament.bundles`) unless the file says
`bot_files: shared`. A bundle travels only to a machine whose cache lacks it: the first
task there answers `Need`, and its second try carries the bytes.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import queue
import re
import secrets
import sqlite3
import time
import warnings
from collections import deque
from dataclasses import replace
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from arena import __version__
from arena.core.errors import ArenaError
from arena.core.record import GameRecord
from arena.tournament.bundles import Bundle, pack
from arena.tournament.cluster_connect import check_host, connect
from arena.tournament.cluster_worker import (
    IDLE_S,
    Done,
    Failed,
    Need,
    WorkSpec,
    close_run,
    play,
)
from arena.tournament.store import DB_NAME, GameKey, Store
from arena.tournament.worker_logs import Sink
from arena.tournament.workers import POLL_S, DiskFull, Event, disk_full

if TYPE_CHECKING:
    from distributed import Client, Future

    from arena.tournament.config import TournamentConfig
    from arena.tournament.runner import Job, Runner

log = logging.getLogger(__name__)

AHEAD = 3
"""Games on the cluster per worker thread: one playing, the next ones already there."""
RECOUNT_S = 5.0
"""How often, at most, the cluster's worker threads are counted again."""
_RESUME = ("; the games committed so far are kept: once that is fixed, run again with "
           "--resume")


class DaskExecutor:
    """Plays a runner's jobs on a Dask cluster (`local:N` starts a LocalCluster)."""

    def __init__(self, runner: Runner, store: Store, address: str) -> None:
        self.runner, self.store, self.address = runner, store, address
        self.token = secrets.token_hex(8)
        self.client: Client | None = None
        self.cluster: Any = None
        self.spec: WorkSpec | None = None
        self.bundles: dict[str, Bundle] = {}
        self.inbox: queue.Queue[tuple[str, Any]] = queue.Queue()
        self.ready: deque[Event] = deque()
        self.jobs: dict[GameKey, Job] = {}
        self.futures: dict[GameKey, Future[Any]] = {}
        self.where: dict[GameKey, int] = {}
        """The worker thread that last said it started each game not yet done."""
        self.playing: dict[int, GameKey] = {}
        """Worker thread -> the game it said it started, until that game's result came."""
        self.deferred: dict[int, GameKey] = {}
        """Worker thread -> a game it started before its last game's result came."""
        self.numbers: dict[tuple[str, int], int] = {}
        self.tries = itertools.count()
        self.delivered: set[tuple[str, str]] = set()
        """(worker, digest) of each bundle a worker received."""
        self.queue: deque[Job] = deque()
        """Games not yet sent to the cluster."""
        self.room = 0
        """How many games may be on the cluster at once (`AHEAD` per worker thread)."""
        self.counted = -RECOUNT_S
        self.logs = Sink()
        """Prints what the games logged on the workers, as a local run's pool does."""
        self.workerless_said = False
        self.probed = 0.0
        """When `_check_scheduler` last asked for the workers (monotonic seconds)."""
        self.lost: set[GameKey] = set()
        """Games whose result was lost with its worker, waiting to be played again."""
        self.checked: set[str] = set()
        """The workers found to run this arena (`_check_arena`)."""
        self.sending: dict[GameKey, tuple[str, tuple[str, ...]]] = {}
        """Game -> the machine and the bundles its task carries there, until its outcome."""
        self.held: dict[GameKey, str] = {}
        """Game -> the machine whose worker lacked bundles already on their way there."""

    def __enter__(self) -> DaskExecutor:
        self.client, self.cluster = connect(self.address, self.runner.concurrency)
        try:
            self._threads()  # and each worker there runs this arena
            self.spec = self._spec()
            self.client.subscribe_topic(self.spec.topic, self._on_topic)
        except BaseException:
            self._close()
            raise
        return self

    def _spec(self) -> WorkSpec:
        config = self.runner.config
        placed = {}
        for name, bundle in bundles(config, self.runner.out).items():
            self.bundles[bundle.digest] = bundle
            placed[name] = bundle.placed
        return WorkSpec(self.token, config.bots, placed, config.time, config.faults,
                        config.game, dict(config.rules), config.sandbox,
                        config.transport == "tcp", config.bot_bound(),
                        logging.getLogger("arena").getEffectiveLevel())

    def submit(self, job: Job) -> None:
        """Queue a game; it goes to the cluster when fewer than `AHEAD` games per worker
        thread are there (a 100,000-game schedule is not 100,000 tasks at once)."""
        self.jobs[job.key] = job
        self.queue.append(job)
        self._fill()

    def _fill(self) -> None:
        assert self.client is not None
        if self.queue and time.monotonic() - self.counted > RECOUNT_S:
            # workers may have joined since (or left): count their threads again
            self.counted = time.monotonic()
            threads = self._threads()
            if threads is not None:
                self.room = AHEAD * max(1, threads)
        while self.queue and len(self.futures) < self.room:
            self._submit(self.queue.popleft(), {})

    def _submit(self, job: Job, data: dict[str, bytes]) -> None:
        assert self.client is not None and self.spec is not None
        with warnings.catch_warnings():
            # a bundle in the task is large on purpose (see `_send`); Dask would warn
            warnings.filterwarnings("ignore", message=".*[Ll]arge (object|graph)")
            future = self.client.submit(play, self.spec, job, (), data, pure=False,
                                        key=f"arena-{self.token}-{job.key}-"
                                            f"{next(self.tries)}")
        self.futures[job.key] = future
        future.add_done_callback(lambda f, key=job.key: self.inbox.put(("result", key)))

    def _on_topic(self, event: tuple[float, dict[str, Any]]) -> None:
        """Called on the client's thread: hand the event to the coordinator's thread."""
        self.inbox.put(("topic", event[1]))

    def next_event(self) -> Event | None:
        """Return the next event, or None when the cluster said nothing for `POLL_S`.

        Raises:
            ArenaError: a game failed on a worker, or killed too many workers.
        """
        self._found_again()
        if not self.ready:
            try:
                kind, payload = self.inbox.get(timeout=POLL_S)
            except queue.Empty:
                self._check_scheduler()
                return None
            if kind == "topic":
                self._started(payload)
            else:
                self._result(payload)
        return self.ready.popleft() if self.ready else None

    def _check_scheduler(self) -> None:
        """Raise once Dask's client has given up on the scheduler (it tries to reconnect for
        a while, then closes): no result would ever come. While it reconnects, wait.

        Raises:
            ArenaError: the scheduler is gone.
        """
        if self.client is None:
            return
        status = self.client.status
        if status in ("closing", "closed"):
            raise self._scheduler_lost()
        if status != "running" or self.workerless_said or not self.jobs or \
                time.monotonic() - self.probed < RECOUNT_S:
            return
        self.probed = time.monotonic()
        if self._threads() == 0:
            self.workerless_said = True
            log.warning("the scheduler at %s has no workers now: the games wait for one "
                        "(start `dask worker %s --nthreads 1` on each machine, "
                        "docs/cluster.md)", self.address, self.address)

    def _threads(self) -> int | None:
        """The worker threads the scheduler has now; None while it cannot be asked."""
        assert self.client is not None
        if self.client.status != "running":
            return None
        try:
            threads = self.client.nthreads()
        except OSError:  # the connection went while asking: _check_scheduler says why
            return None
        self._check_arena([w for w in threads if w not in self.checked])
        return int(sum(threads.values()))

    def _check_arena(self, workers: list[str]) -> None:
        """Stop the run where a worker lacks this arena (not installed, or another version).

        Why: Dask's check at connection compares Python, dask, distributed and a few more,
        not arena; a worker without it fails to read each game it is given and stops, and
        the run waited for ever, saying only that the scheduler had no workers.

        Raises:
            ArenaError: a worker runs no arena, or another version.
        """
        if not workers or self.client is None:
            return
        # eval, a builtin, travels by name: a function of arena's could not even be read
        # by a worker without arena, and would fail there before saying why
        found = self.client.run(eval, "__import__('arena').__version__", workers=workers,
                                on_error="return")
        for worker, version in sorted(found.items()):
            if version == __version__:
                self.checked.add(worker)
            elif isinstance(version, ImportError):
                raise ArenaError(f"worker {worker} cannot play arena's games: arena is not "
                                 f"installed there ({version}); install arena {__version__},"
                                 " the one this machine runs, on every worker "
                                 f"(docs/cluster.md){_RESUME}")
            elif isinstance(version, str):
                raise ArenaError(f"worker {worker} runs arena {version}, this machine "
                                 f"{__version__}: install the same arena on every worker "
                                 f"(docs/cluster.md){_RESUME}")
            # anything else (the worker went while asked): asked again at the next count

    def _scheduler_lost(self, doing: str = "") -> ArenaError:
        return ArenaError(f"lost the Dask scheduler at {self.address}{doing} (it stopped "
                          "answering and did not come back); the games committed so far are "
                          "kept: once a scheduler runs there again, run again with --resume")

    def _found_again(self) -> None:
        """Read again the games whose result was lost (`_lost`) once their future is no
        longer waiting on it: played again, failed, or cancelled."""
        for key in [k for k in self.lost if self.futures.get(k) is None
                    or self.futures[k].status not in ("lost", "pending")]:
            self.lost.discard(key)
            self.inbox.put(("result", key))

    def _number(self, worker: str, thread: int) -> int:
        """The live view's number for one worker thread (a referee of its own)."""
        return self.numbers.setdefault((worker, thread), len(self.numbers))

    def _started(self, message: dict[str, Any]) -> None:
        key = GameKey(*message["start"])
        slot = self._number(str(message.get("worker", "?")), int(message.get("thread", 0)))
        if key not in self.jobs:
            return  # already done (the word came after the result)
        before = self.where.get(key)
        if before is not None and before != slot:
            self.playing.pop(before, None)
            self.ready.append(("retry", before, key,
                               f"worker {self._name(before)} was lost while playing game "
                               f"{key}; worker {self._name(slot)} plays it again from the "
                               "start"))
        self.where[key] = slot
        if self.playing.get(slot, key) != key:
            # the result of this thread's last game is still on its way: say `done` first
            self.deferred[slot] = key
            return
        self.playing[slot] = key
        self.ready.append(("start", slot, key, None))

    def _name(self, slot: int) -> str:
        return next(f"{w}" + (f" (thread {t})" if t else "")
                    for (w, t), n in self.numbers.items() if n == slot)

    def _result(self, key: GameKey) -> None:
        future = self.futures.get(key)
        if future is None:
            return
        if future.status == "cancelled":
            return
        if future.status == "error":
            raise ArenaError(f"game {key} {_failure(future.exception())}{_RESUME}")
        if future.status != "finished":
            self._lost(key)
            return
        try:
            outcome = future.result()
        except OSError as exc:  # the connection to the scheduler went while fetching it
            raise self._scheduler_lost(f" while fetching game {key}'s result ({exc})") \
                from None
        for level, name, kind, message in outcome.logs:
            # which machine: a bot missing on one, a worker without the sandbox
            self.logs.log((level, name, kind, f"worker {outcome.worker}: {message}"))
        self._delivered(key)
        if isinstance(outcome, Need):
            self._send(key, outcome.digests, _host(outcome.worker))
        elif isinstance(outcome, Failed):
            raise ArenaError(f"game {key} failed on worker {outcome.worker}: "
                             f"{outcome.message}{_RESUME}")
        else:
            self._done(key, outcome)

    def _lost(self, key: GameKey) -> None:
        """A game whose result was lost with the worker that held it (killed between the
        game's end and the result's fetch): the scheduler plays it again elsewhere; its
        future is read again once it has an outcome (`_found_again`, polled: a future's
        done-callback fires once, and at once while it is lost)."""
        if key in self.lost:
            return
        self.lost.add(key)
        slot = self.where.pop(key, None)
        if slot is not None and self.playing.get(slot) == key:
            del self.playing[slot]
        self.ready.append(("retry", -1 if slot is None else slot, key,
                           f"the result of game {key} was lost with the worker that played "
                           "it; another worker plays it again from the start"))

    def _send(self, key: GameKey, digests: tuple[str, ...], host: str) -> None:
        """Try a game again with the bundles its worker lacked, unless all of them are on
        their way to its machine in another game's task: then the game waits for that
        task's outcome (`_delivered`) and goes again without them. Why: the workers of one
        machine share its cache, and at a run's start each of them lacked each bundle: a
        machine of 7 workers was sent a 149 MB bot 7 times.

        The bytes travel inside the task, not as scattered data: scattered data lives on
        one worker and dies with it, and a task waiting for it would wait forever.
        """
        unknown = [d for d in digests if d not in self.bundles]
        if unknown:
            raise ArenaError(f"a worker asked for bundle {unknown[0][:12]}, which this run "
                             "never made")
        coming = {d for there, sent in self.sending.values() if there == host for d in sent}
        if set(digests) <= coming:
            self.held[key] = host
            return
        self.sending[key] = (host, digests)
        self._submit(self.jobs[key], {d: self.bundles[d].data for d in digests})

    def _delivered(self, key: GameKey) -> None:
        """A game whose task carried bundles has an outcome (played, failed, asked again):
        the games held for its machine go again, without the bytes; one that still lacks a
        bundle (a worker with a cache of its own) asks for it again."""
        sent = self.sending.pop(key, None)
        if sent is None:
            return
        for waiting in [k for k, host in self.held.items() if host == sent[0]]:
            del self.held[waiting]
            if waiting in self.jobs:
                self._submit(self.jobs[waiting], {})

    def _done(self, key: GameKey, done: Done) -> None:
        """Write the replay and commit the game, as a local worker does."""
        worker = self.where.pop(key, None)
        if worker is None:
            worker = self._number(done.worker, done.thread)
        for digest in done.unpacked:
            if (done.worker, digest) in self.delivered:
                continue  # Dask sends a task's data to a worker that holds it only once
            self.delivered.add((done.worker, digest))
            log.info("bundle %s (%s) sent to %s", digest[:12], self._owners(digest),
                     done.worker)
            self.ready.append(("bundle", worker, None, digest))
        record = self._commit(key, done)
        del self.jobs[key]
        self.futures.pop(key, None)
        self._fill()
        self.ready.append(("bots", worker, None, list(done.live)))
        self.ready.append(("done", worker, key, record.to_json()))
        if self.playing.get(worker) == key:
            del self.playing[worker]
        waiting = self.deferred.pop(worker, None)
        if waiting is not None and waiting in self.jobs:
            self.playing[worker] = waiting
            self.ready.append(("start", worker, waiting, None))

    def _commit(self, key: GameKey, done: Done) -> GameRecord:
        """Write a game's replay and commit it; a game not committed leaves no replay, as
        in a local worker.

        Raises:
            DiskFull: no space for the replay or the commit (the game named).
            ArenaError: the database refused the commit (damaged, its tables gone).
        """
        out = self.runner.out
        replay = out / "replays" / f"{key}.jsonl"
        try:
            replay.write_bytes(done.replay)
            record = replace(GameRecord.from_json(done.record), replay=str(replay))
            self.store.add_game(key, record)
        except BaseException as exc:  # a StoreError (locked), Ctrl-C: no replay left either
            with contextlib.suppress(OSError):
                replay.unlink(missing_ok=True)
            if not isinstance(exc, (OSError, sqlite3.Error)):
                raise
            full = disk_full(exc, out, f" while storing game {key}")
            if full is not None:
                raise DiskFull(f"{full}{_RESUME}") from None
            if isinstance(exc, OSError):
                raise
            raise ArenaError(f"could not commit game {key} to {out / DB_NAME}: "
                             f"{exc}{_RESUME}") from None
        return record

    def _owners(self, digest: str) -> str:
        spec = self.spec
        names = [n for n, p in (spec.placed.items() if spec else []) if p.digest == digest]
        return ", ".join(names)

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self._close()

    def _close(self) -> None:
        """Cancel what is left, stop the workers' referees (keeping their bots' logs)."""
        client = self.client
        if client is None:
            return
        with contextlib.suppress(Exception):
            client.cancel(list(self.futures.values()))
        with contextlib.suppress(Exception):
            client.unsubscribe_topic(f"arena-{self.token}")
        logs: dict[str, dict[str, bytes]] = {}
        if client.status != "running":  # the scheduler is gone, or going: nobody to ask
            log.warning("the bots' logs stay on the workers (the scheduler is gone; each "
                        "worker stops the run's bots after %d minutes without a game)",
                        IDLE_S // 60)
        else:
            logs = self._collect_logs(client)
        self._keep_logs(logs)
        with contextlib.suppress(Exception):
            client.close()
        if self.cluster is not None:
            with contextlib.suppress(Exception):
                self.cluster.close()
        self.client = None

    def _collect_logs(self, client: Client) -> dict[str, dict[str, bytes]]:
        """Stop the run's referees on the workers and return their bots' logs, saying which
        workers that played games had none to give (gone, or failing to answer)."""
        try:
            found = client.run(close_run, self.token, on_error="return")
        except Exception as exc:  # noqa: BLE001 - the scheduler went while asking
            log.warning("could not collect the bots' logs from the workers: %s", exc)
            return {}
        logs = {w: files for w, files in found.items() if isinstance(files, dict)}
        for worker in sorted({w for w, _ in self.numbers} - set(logs) - {"?"}):
            why = found.get(worker, "the worker is gone, and its bots with it")
            log.warning("the bots' logs of worker %s are lost: %s", worker, why)
        return logs

    def _keep_logs(self, logs: dict[str, dict[str, bytes]]) -> None:
        """Add each worker's bot logs to OUT/logs/WORKER/ (best effort): after what an
        earlier run into OUT left there (a resumed run's worker may have the same address
        and thread), as a local run's logs grow."""
        for worker, files in logs.items():
            folder = self.runner.out / "logs" / re.sub(r"[^A-Za-z0-9.-]+", "_", worker)
            for name, data in files.items():
                with contextlib.suppress(OSError):
                    path = folder / name
                    path.parent.mkdir(parents=True, exist_ok=True)
                    with path.open("ab") as file:
                        file.write(data)


def _host(worker: str) -> str:
    """The machine of a worker's address (`tcp://10.0.0.7:40123` -> `10.0.0.7`)."""
    return worker.partition("://")[2].rpartition(":")[0] or worker


def bundles(config: TournamentConfig, out: Path) -> dict[str, Bundle]:
    """Each bot's bundle, by the bot's name, where the bots travel as bundles (`pack`: a
    built-in or a system command has none).

    Raises:
        ConfigError: a bot cannot be bundled (a file beside the tournament file, too large).
    """
    if config.bot_files != "bundle":
        return {}
    home = Path(config.source).resolve().parent if Path(config.source).is_file() else None
    packed = {bot.name: pack(bot, skip=[out], default_cwd=home) for bot in config.bots}
    return {name: bundle for name, bundle in packed.items() if bundle is not None}


def preflight(config: TournamentConfig, address: str, out: Path) -> None:
    """What a run on the cluster at `address` refuses before it plays, checked without
    playing (`--dry-run`): each bot's bundle, and the scheduler's host name.

    Raises:
        ArenaError: a bot cannot be bundled, or the host name is unknown.
    """
    bundles(config, out)
    check_host(address)


def _failure(exc: BaseException | None) -> str:
    """One line for a task that raised (a worker lost too often, or cancelled)."""
    name = type(exc).__name__
    if name == "KilledWorker":
        # Dask's own words are a paragraph: what it says is how many, and the last machine
        tries = getattr(exc, "allowed_failures", -1) + 1
        last = getattr(getattr(exc, "last_worker", None), "address", None)
        said = ", ".join(([f"{tries} workers"] if tries > 0 else [])
                         + ([f"the last {last}"] if last else []))
        return (f"killed every worker that played it ({said or exc}); the run stops here: a "
                "game that kills its worker this often is not bad luck")
    return f"failed on the cluster: {name}: {exc}"
