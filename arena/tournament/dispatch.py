"""Which queued game an idle local worker takes: home groups of tables that share bots.

Every local worker starts the bots its games need and keeps them (up to `max_bots`), so the
bot processes started grow with the number of distinct bots each worker meets. A Python
bot's start costs ~0.1 s of CPU, two games' worth, so at many workers the starts alone
were ~17% of the run's CPU (8-bot round-robin at 4 seats, 14 workers: ~100 processes
started where 70 would do). An idle worker therefore gets a *home group* of the queued
tables, grown greedily from the tables that need the fewest bots it does not hold yet
(the earliest among equals), up to its share of the queue. It plays first the tables
of its group whose bots it runs, the others in queue order; only once the queue holds nothing
unassigned does it take a game from another worker's group (the one needing the fewest
starts for it, from the far end of the group with the most left, and only where that
group has more games left than the game needs starts).

What it costs: the order in which games are played is no longer the queue's, only each
group's (every worker still plays at once, so progress and the live view move over the
whole field); no result changes, since a game's seed is its job's whichever worker plays
it, in whatever order. Pure: no I/O, no processes (bench/tournament.py simulates it).
"""

from __future__ import annotations

import itertools
import math
from collections import deque
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from arena.tournament.runner import Job

Table = frozenset[str]
"""The bots of a game, whatever their seats: games at one table need the same processes."""

PLAN_TABLES = 256
"""How many unassigned tables (from the front of the queue) a new group is chosen among:
bounds the cost of forming a group in a very long queue, and keeps groups near the
queue's front (the 8-, 16- and 33-bot round-robins of the benchmarks have 70, 20 and 88)."""

LOOKAHEAD = 64
"""How many of the tables tied on the fewest new bots are compared by what they would let
the group add for free (each comparison scans the tied ones)."""


class Dispatcher:
    """The queue of games not yet handed out, as home groups per worker and a shared rest.

    Workers are named by index; each says which bots it holds when it asks for a game.
    """

    def __init__(self, workers: int) -> None:
        self.workers = max(1, workers)
        self.again: deque[Job] = deque()
        """Games to play again (their worker died): taken first, by any worker."""
        self.rest: dict[Table, deque[Job]] = {}
        """Unassigned games by table, tables in the order of their first game (dicts keep
        insertion order), games in queue order."""
        self.groups: dict[int, dict[Table, deque[Job]]] = {}
        self.share = 1
        """The games a new group is given: the unassigned queue over the workers, as of the
        last games queued (so the groups formed from one batch are equal)."""
        self._unassigned = 0

    def __len__(self) -> int:
        return len(self.again) + self._unassigned + sum(
            len(jobs) for group in self.groups.values() for jobs in group.values())

    def add(self, job: Job) -> None:
        """Queue a game behind every other."""
        self.rest.setdefault(frozenset(job.seating), deque()).append(job)
        self._unassigned += 1
        self.share = math.ceil(self._unassigned / self.workers)

    def again_first(self, job: Job) -> None:
        """Queue a game to be played again before any other."""
        self.again.appendleft(job)

    def take(self, worker: int, live: Iterable[str]) -> Job | None:
        """Hand `worker`, whose running bots are `live`, its next game (None: nothing queued,
        or nothing another group can spare at the price of its starts)."""
        if self.again:
            return self.again.popleft()
        held = frozenset(live)
        group = self.groups.setdefault(worker, {})
        if not group and self.rest:
            self._form(group, held)
        if group:
            return _pop(group, _cheapest(group, held), first=True)
        return self._steal(worker, held)

    def next_for(self, worker: int, live: Iterable[str]) -> Job | None:
        """Name, without taking it, the game `worker` would take next from its own group
        (a hint to start its bots early; a game from elsewhere is never hinted, since
        another worker may well take it first)."""
        group = self.groups.get(worker)
        if not group:
            return None
        return group[_cheapest(group, frozenset(live))][0]

    def _form(self, group: dict[Table, deque[Job]], held: Table) -> None:
        """Give `group` its share of the unassigned games: tables added one at a time, each
        the one needing the fewest bots that neither the worker nor the group has yet."""
        bots = set(held)
        room = self.share
        window = list(itertools.islice(self.rest, PLAN_TABLES))
        while room > 0 and window:
            best = _next_table(window, bots)
            table = window[best]
            jobs = self.rest[table]
            mine = group.setdefault(table, deque())
            while jobs and room > 0:
                mine.append(jobs.popleft())
                room -= 1
                self._unassigned -= 1
            if not jobs:
                del self.rest[table], window[best]
            bots |= table

    def _steal(self, worker: int, held: Table) -> Job | None:
        """Take a game from another worker's group: the one needing the fewest starts, from
        the group with the most games left, the latest game of its table. Not a game that
        needs more starts than its group has games left: a start costs about as much as a
        game, so its owner would play it sooner (simulated: fewer starts, and an earlier
        end)."""
        best: tuple[tuple[int, int], int, Table] | None = None
        for other, group in self.groups.items():
            left = sum(len(jobs) for jobs in group.values())
            for table in group:
                key = (len(table - held), -left)
                if other != worker and key[0] < left and (best is None or key < best[0]):
                    best = (key, other, table)
        if best is None:
            return None
        return _pop(self.groups[best[1]], best[2], first=False)


def _cheapest(group: dict[Table, deque[Job]], held: Table) -> Table:
    """The group's table needing the fewest bot starts; the earliest among equals."""
    return min(enumerate(group), key=lambda it: (len(it[1] - held), it[0]))[1]


def _next_table(window: list[Table], bots: set[str]) -> int:
    """The index of the table in `window` needing the fewest bots beyond `bots`; among
    equals needing some, the one after which most tables need none (which packs a group
    into fewer bots: simulated, 87 -> 84 starts at 14 workers in the benchmark), then the
    earliest."""
    new = [len(table - bots) for table in window]
    fewest = min(new)
    tied = [i for i, n in enumerate(new) if n == fewest]
    if fewest == 0 or len(tied) == 1 or not bots:  # then every choice packs alike
        return tied[0]
    # a table needing more than the fewest cannot fit once one of the tied ones is added
    return min(tied[:LOOKAHEAD],
               key=lambda i: (-sum(1 for j in tied if window[j] <= bots | window[i]), i))


def _pop(group: dict[Table, deque[Job]], table: Table, first: bool) -> Job:
    jobs = group[table]
    job = jobs.popleft() if first else jobs.pop()
    if not jobs:
        del group[table]
    return job

