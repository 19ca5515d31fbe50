"""A cheap, deterministic simulation of local workers taking games, to count bot starts
without playing a game (bench/tournament.py prints it; a test bounds it).

Each simulated worker holds bots as `arena.referee.Referee` does with `max_bots` (the
least recently used stopped first, the hinted game's bots started ahead within the
bound); games last a time drawn from their seed, each start adds to it, and the worker
that finishes first asks next (all of them at the start, whose groups are formed together,
as the pool does). `groups` is the pool's dispatch (`Dispatcher`);
`window` is the one it replaced (the least starts among the first 64 queued, the first
games handed out as they were queued), kept here to compare with.
"""

from __future__ import annotations

import heapq
import itertools
import math
import random
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from arena.tournament.dispatch import Dispatcher, start_cost
from arena.tournament.pairing import round_robin
from arena.tournament.runner import Job, jobs_of

START_TIME = 1.0
"""A bot start's wall time, in the mean game's (a Python bot's start ~0.1 s, a game of
the benchmark ~0.1 s of a worker's time at 14 workers)."""


def field_jobs(bots: int, size: int = 4, repeats: int = 16, seed: int = 16) -> list[Job]:
    """The round-robin's games, in the order the runner queues them."""
    names = [f"bot{i:02d}" for i in range(bots)]
    return [j for plan in round_robin(names, size, size, repeats, seed)
            for j in jobs_of(plan, seed, None)]


@dataclass
class SimReferee:
    """The bots one worker holds, as the referee keeps them under `max_bots`."""

    max_bots: int
    running: set[str] = field(default_factory=set)
    used: dict[str, int] = field(default_factory=dict)
    games: int = 0
    starts: int = 0

    def play(self, seating: Sequence[str], upcoming: Sequence[str]) -> int:
        """Play one game; return the bots started for it (not those started ahead)."""
        self.games += 1
        self.used.update((name, self.games) for name in seating)
        self._evict(set(seating))
        started = self._start([n for n in seating if n not in self.running])
        wanted = [n for n in dict.fromkeys(upcoming) if n not in self.running]
        self._evict(set(seating) | set(upcoming))
        self._start(wanted[:max(0, self.max_bots - len(self.running))])
        return started

    def _evict(self, keep: set[str]) -> None:
        excess = len(self.running) + len(keep - self.running) - self.max_bots
        if excess > 0:
            idle = sorted(self.running - keep, key=lambda n: (self.used.get(n, 0), n))
            self.running -= set(idle[:excess])

    def _start(self, names: Sequence[str]) -> int:
        self.running |= set(names)
        self.starts += len(names)
        return len(names)


class Design(Protocol):
    def take(self, worker: int, live: Iterable[str]) -> Job | None: ...

    def next_for(self, worker: int, live: Iterable[str]) -> Job | None: ...


class Window:
    """The dispatch before home groups: the queued game among the first 64 that needs the
    fewest starts, the earliest among equals; the hint is the same search."""

    def __init__(self, jobs: Sequence[Job]) -> None:
        self.queue = deque(jobs)

    def take(self, worker: int, live: Iterable[str]) -> Job | None:
        return self._affine(frozenset(live), take=True)

    def next_for(self, worker: int, live: Iterable[str]) -> Job | None:
        return self._affine(frozenset(live), take=False)

    def _affine(self, live: frozenset[str], take: bool) -> Job | None:
        window = list(itertools.islice(self.queue, 64))
        if not window:
            return None
        best = min(range(len(window)),
                   key=lambda i: (sum(n not in live for n in window[i].seating), i))
        if take:
            del self.queue[best]
        return window[best]


@dataclass(frozen=True)
class Outcome:
    starts: int
    makespan: float
    """When the last game ends, in mean games' time."""
    played: tuple[tuple[tuple[Job, tuple[str, ...]], ...], ...] = ()
    """Each worker's games in the order it played them, with the bots hinted after each
    (bench/emulate.py plays them again)."""


def simulate(jobs: Sequence[Job], workers: int, design: str = "groups",
             max_bots: int = 8, spread: float = 0.0, draw: int = 0,
             start_time: float = START_TIME) -> Outcome:
    """Play `jobs` on `workers` simulated workers with `design` (`groups` or `window`).

    With `spread`, each worker's games and starts take its own multiple of their time,
    drawn between 1 - spread and 1 + spread: real workers are not equal (a core shared
    with the coordinator or another worker, an interrupt, a cache), and the dispatch's
    end, where a worker out of games helps another, depends on who runs out first.
    `draw` picks another draw of the games' lengths and the workers' speeds (0: the
    lengths of every earlier figure). `start_time`: how long a start holds its worker up,
    in mean games; the dispatch weighs a start by it as the pool does (`start_cost`)."""
    chosen: Design
    if design == "groups":
        dispatcher = Dispatcher(workers)
        for queued in jobs:
            dispatcher.add(queued)
        # every worker is idle at the start, as in the pool: their groups formed together
        dispatcher.form({w: () for w in range(workers)})
        chosen = dispatcher
    else:
        chosen = Window(jobs)
    refs = [SimReferee(max_bots) for _ in range(workers)]
    played: list[list[tuple[Job, tuple[str, ...]]]] = [[] for _ in range(workers)]
    speeds = random.Random(f"speeds:{draw}")
    speed = [1 + spread * (2 * speeds.random() - 1) for _ in range(workers)]
    ready: list[tuple[float, int]] = [(0.0, w) for w in range(workers)]
    end = 0.0
    paces: tuple[float, int, float, int] = (0.0, 0, 0.0, 0)
    # the old pool handed the first games out as they were queued, one to each worker
    fresh = set(range(workers)) if isinstance(chosen, Window) else set()
    while ready:
        now, w = heapq.heappop(ready)
        end = max(end, now)
        ref = refs[w]
        if w in fresh:
            fresh.discard(w)
            job = _first(chosen)
        else:
            job = chosen.take(w, ref.running)
        if job is None:
            continue
        hint = chosen.next_for(w, ref.running | set(job.seating))
        started = ref.play(job.seating, hint.seating if hint else ())
        played[w].append((job, tuple(hint.seating) if hint else ()))
        game, wait = _duration(job, draw) * speed[w], start_time * started * speed[w]
        if isinstance(chosen, Dispatcher):
            paces = (paces[0] + game, paces[1] + 1, paces[2] + wait, paces[3] + started)
            chosen.start_games = start_cost(*paces)
        heapq.heappush(ready, (now + game + wait, w))
    return Outcome(sum(r.starts for r in refs), end, tuple(map(tuple, played)))


def _first(design: Design) -> Job | None:
    """The game the old pool handed a worker at the start: the queue's next, since it
    dispatched each game as it was queued (a queue of one)."""
    assert isinstance(design, Window)
    return design.queue.popleft() if design.queue else None


def _duration(job: Job, draw: int = 0) -> float:
    """A game's length (mean 1), the same for a game whichever design plays it."""
    return 0.5 + random.Random(f"{job.seed}:{draw}" if draw else job.seed).random()


def floor_starts(bots: int, size: int, games: int, repeats: int, workers: int) -> int:
    """A lower bound on the bot starts of any dispatch: every bot starts somewhere, and a
    worker with its share of the games (equal shares) plays at least that many tables'
    worth, which need at least the least b bots with C(b, size) * repeats >= its share."""
    share = math.ceil(games / workers)
    held = next(b for b in itertools.count(size) if math.comb(b, size) * repeats >= share)
    return max(bots, workers * min(held, bots))
