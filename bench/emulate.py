"""The CPU a many-worker run's games cost when each worker has a core of its own, measured on
a machine with fewer cores (issue 16: "CPU per game at 14 workers within 15% of 1
worker's", a goal stated for a 16-core machine).

On 2 cores, 14 pinned workers share a core seven at a time, and each pays for it: caches
and TLBs refilled after every switch between workers and bots, a bot's start waiting
behind six others. That cost is the machine's, not the run's: a 16-core machine gives each
worker a core. What grows with the worker count in the run itself is the work: every
worker starts its own copy of the bots it plays, and warms its own referee. This bench
measures that work alone:
1. which worker plays which game, in which order (with the hint of the next game's bots),
   three times: as the run really gave them out, played with `pin_workers` and WORKERS
   workers and referees noting each game (`bench/starts.py`'s), where sharing cores makes
   workers unequal (at 14 workers on 2 cores, 40-150 games each); as the pool's dispatch
   gives them to equal workers, each with a core (`tests/tournament/dispatch_sim`); and
   as it gives them to workers each with a core but of speeds within +-20% (the
   simulation's first draw), as on a machine with the cores, where games differ in length
   and a worker that runs out first takes games of another (starting their bots);
2. for each of the three, each worker's games played again, one worker after another, each
   in a worker process forked as a run's are (the fork server) with a referee of its own,
   it and its bots pinned to one core: the same games, the same bots started (the
   sandbox, the limits, the referee options of the run's workers), no other worker there;
3. the 1-worker run the same way, once beside each of the three: one worker process plays
   all the games in the queue's order, a part of them before each of (2)'s workers (its
   bots idle in between), so that it and they share the same stretch of time: on a shared
   machine the others' load comes and goes (one worker's CPU a game read 13.8 to 21.0 ms
   in three runs of the same code on one day), and a baseline measured before all the
   rest moved the ratios by up to 0.04.
Printed: CPU per game of (2) and (3) (each worker process's from its fork, by getrusage,
and its bots' from their cgroups, so it needs a machine where bots get cgroups; the
coordinator's ~1 ms a game, flat with the worker count, is in neither) and how it splits
between the worker processes and the bots, their ratio (goal <= 1.15) and the bot
processes each started; `--scaling` prints the real run's, oversubscribed. It also
prints the speed-up's upper bound: 1 worker's CPU over a worker's even share of the many
workers' (a worker and its bots take turns on its core, so its CPU is its time). Only a
machine with the cores can show the speed-up itself: cores there share caches, memory
and, with all of them busy, a lower clock.

Run: `.venv/bin/python bench/tournament.py --emulate [WORKERS [GAMES_PER_TABLE]]` (14 and
16: the issue's 1,120 games).
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import os
import resource
import sys
import tempfile
from collections.abc import Sequence
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any

from arena.referee import Referee
from arena.referee.limits import Cgroup, Enforcer, detect
from arena.referee.sandbox import SandboxPolicy
from arena.referee.spec import BotSpec, FaultPolicy, TimeControl
from arena.tournament.workers import worker_context

Game = tuple[int, list[str], list[str]]
"""A game as a worker played it: seed, seating, the hinted bots of the next."""


_BOTS_CPU = [0.0]
"""The CPU of every bot cgroup removed so far, in seconds."""


_REMOVE = Cgroup.remove


def _remove_counted(group: Cgroup) -> None:
    """`Cgroup.remove`, first adding the cgroup's CPU to `_BOTS_CPU`. Why: a bot's CPU never
    reaches this process's getrusage (bubblewrap's processes inside its pid namespace are
    killed, not waited for, so their times are dropped); its cgroup holds bubblewrap and
    everything it started, and is removed once they are all gone."""
    _BOTS_CPU[0] += group.cpu_ns() / 1e9
    _REMOVE(group)


@dataclasses.dataclass(frozen=True)
class Setup:
    """What a run's worker is given (as `arena.tournament.workers` passes it)."""

    bots: tuple[BotSpec, ...]
    time: TimeControl
    faults: FaultPolicy
    sandbox: SandboxPolicy
    max_bots: int
    game: str
    rules: dict[str, Any]


def play_alone(setup: Setup, games: Sequence[Game], workdir: Path,
               core: int) -> tuple[float, float, int]:
    """Play `games` in order in a worker process of its own on `core`; return the CPU it
    took (the process from its fork; its bots) and how many bot processes it started."""
    worker, conn = _start(setup, games, workdir, core)
    conn.send(len(games))
    conn.recv()
    return _finish(worker, conn)


def _start(setup: Setup, games: Sequence[Game], workdir: Path,
           core: int) -> tuple[BaseProcess, Connection]:
    """A worker process (`_serve`) ready to play `games`, and the pipe that tells it when."""
    context = worker_context()
    here, there = context.Pipe()
    worker = context.Process(target=_serve, args=(setup, games, workdir, core, there))
    worker.start()
    there.close()
    return worker, here


def _finish(worker: BaseProcess, conn: Connection) -> tuple[float, float, int]:
    """End a `_serve` worker; return its figures."""
    conn.send(None)
    got: tuple[float, float, int] = conn.recv()
    worker.join()
    return got


def _serve(setup: Setup, games: Sequence[Game], workdir: Path, core: int,
           conn: Connection) -> None:
    """In a worker process forked as a run's are: play `games` in order with one referee,
    as many at a time as `conn` asks for (the bots stay up, idle, in between); on None,
    send back the process's CPU since its fork, its bots', and the bot processes started."""
    os.sched_setaffinity(0, {core})
    Cgroup.remove = _remove_counted  # type: ignore[method-assign, assignment]
    started = 0

    class Counting(Referee):
        def _spawn(self, bot: Any) -> bool:
            nonlocal started
            started += 1
            return super()._spawn(bot)

    workdir.mkdir(parents=True)
    queue = iter(enumerate(games))
    with Counting(setup.bots, setup.time, setup.faults, workdir, sandbox=setup.sandbox,
                  hide=(workdir,), announce=False, max_bots=setup.max_bots) as referee:
        while (count := conn.recv()) is not None:
            for n, (seed, seating, upcoming) in itertools.islice(queue, count):
                referee.play(setup.game, setup.rules, seed, seating, workdir / f"g{n}.jsonl",
                             upcoming=upcoming)
            conn.send(count)
    usage = resource.getrusage(resource.RUSAGE_SELF)
    conn.send((usage.ru_utime + usage.ru_stime, _BOTS_CPU[0], started))
    conn.close()


def interleaved(setup: Setup, one_worker: Sequence[Game], lists: Sequence[Sequence[Game]],
                workdir: Path, core: int) -> tuple[tuple[float, float, int],
                                                    list[tuple[float, float, int]]]:
    """Play each list of games alone in a worker process of its own on `core` (as
    `play_alone`), and between them, an equal part of `one_worker` in one more worker
    process that plays all of it: one worker's baseline measured over the same stretch of
    time, so that a load from elsewhere that comes and goes weighs on both alike. Return
    the baseline's figures and each list's."""
    baseline, conn = _start(setup, one_worker, workdir / "one", core)
    try:
        alone = []
        for n, games in enumerate(lists):
            # the baseline's part n: its games from n/len to (n+1)/len of the queue
            conn.send((n + 1) * len(one_worker) // len(lists)
                      - n * len(one_worker) // len(lists))
            conn.recv()
            alone.append(play_alone(setup, games, workdir / f"w{n}", core))
    except BaseException:
        # a worker that failed (or an interrupt): the baseline waits on its pipe, and the
        # process could not exit while it lives; closed, the pipe ends it (its bots stopped)
        conn.close()
        baseline.join()
        raise
    return _finish(baseline, conn), alone


def worker_games(notes: Path) -> list[list[Game]]:
    """Each worker's games in the order it played them, from the noting referees."""
    lists = []
    for path in sorted(notes.glob("*.jsonl")):
        plays = [json.loads(line) for line in path.read_text().splitlines()]
        lists.append([(p["seed"], p["seating"], p["upcoming"]) for p in plays
                      if p["ev"] == "play"])
    return [games for games in lists if games]


def queue_order(config: Any) -> list[Game]:
    """All the games in the order the runner queues them, each hinting the next (as one
    worker plays them)."""
    # imported here, not at the top: each worker process imports this module (`_serve` is
    # here), and bench/starts.py with the dispatch simulation would cost it ~10 ms of CPU
    # that a real worker never pays (so in every function the workers do not call)
    from starts import queued_jobs  # bench/starts.py

    jobs = queued_jobs(config)
    return [(job.seed, list(job.seating), list(jobs[n + 1].seating) if n + 1 < len(jobs)
             else []) for n, job in enumerate(jobs)]


def simulated_games(config: Any, workers: int, spread: float = 0.0) -> list[list[Game]]:
    """Each worker's games as the pool's dispatch gives them out to workers each with its
    own core, equal or (`spread`) of speeds drawn within 1 +- spread
    (`tests/tournament/dispatch_sim`, its first draw)."""
    from starts import queued_jobs

    root = str(Path(__file__).resolve().parents[1])  # the simulation is the tests'
    if root not in sys.path:
        sys.path.insert(0, root)
    from tests.tournament.dispatch_sim import simulate

    played = simulate(queued_jobs(config), workers, max_bots=config.bot_bound(),
                      spread=spread, draw=1 if spread else 0).played
    return [[(job.seed, list(job.seating), list(hint)) for job, hint in games]
            for games in played if games]


def emulate(workers: int = 14, games_per_pairing: int = 16) -> None:
    """Print the figures of the module docstring."""
    from starts import noted_run

    enforcer, why = detect()
    if enforcer is Enforcer.RLIMIT:
        raise SystemExit(f"bench/emulate.py counts each bot's CPU by its cgroup: {why}")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        config = noted_run(out, workers, games_per_pairing)
        setup = Setup(config.bots, config.time, config.faults, config.sandbox,
                      config.bot_bound(), config.game, dict(config.rules))
        core = max(os.sched_getaffinity(0))
        one_worker = queue_order(config)
        games = len(one_worker)
        print(f"{workers} workers' games, each worker's played alone on one core, "
              f"interleaved with one worker playing them all ({games} games, "
              f"{config.table.size}-seat round-robin of 8 Python bots):")
        for label, lists, bounded in (
                ("the run's dispatch", worker_games(out / "notes"), False),
                ("equal workers' (simulated)", simulated_games(config, workers), True),
                ("workers +-20% (simulated)", simulated_games(config, workers, 0.2), False)):
            assert sum(map(len, lists)) == games
            base, alone = interleaved(setup, one_worker, lists, out / label[:3], core)
            base_cpu = base[0] + base[1]
            total = tuple(sum(figures) for figures in zip(*alone, strict=True))
            per_game = (total[0] + total[1]) / games
            print(f"  1 worker, beside {label}: CPU per game {base_cpu / games * 1e3:5.1f} ms "
                  f"({_split(base, games)}), {base[2]} bot processes")
            print(f"  {workers} workers, {label}: CPU per game {per_game * 1e3:5.1f} ms = "
                  f"{per_game * games / base_cpu:.2f} x 1 worker's (goal <= 1.15; "
                  f"{_split(total, games)}), {int(total[2])} bot processes; games per "
                  f"worker {min(map(len, lists))}-{max(map(len, lists))}")
            if bounded:
                print(_bound(base_cpu, total[0] + total[1], workers))


def _bound(one: float, all_workers: float, workers: int) -> str:
    """The speed-up's upper bound: 1 worker's CPU over each worker's share of the many
    workers' CPU. Not over the slowest worker's here: which worker plays which game comes
    from the simulation, whose game lengths are not these games' (a run's dispatch gives
    the last games to the workers that run out first)."""
    share = all_workers / workers
    bound = one / share
    return (f"    speed-up at most x{bound:.1f} ({bound / workers:.0%} of linear; goal >= 80%):"
            f" {share:.2f} s of CPU a worker, shared evenly, against 1 worker's {one:.2f} s,"
            " a core each and nothing else shared (cache, memory, clock)")


def _split(figures: Sequence[float], games: int) -> str:
    """Where a game's CPU went: the worker processes', the bots'."""
    return f"workers {figures[0] / games * 1e3:.1f} + bots {figures[1] / games * 1e3:.1f}"
