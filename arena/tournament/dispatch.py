"""Which queued game an idle local worker takes: home groups of tables that share bots.

Every local worker starts the bots its games need and keeps them (up to `max_bots`), so the
bot processes started grow with the number of distinct bots each worker meets. A Python
bot's start costs ~0.1 s of CPU, two games' worth, so at many workers the starts alone
were ~17% of the run's CPU (8-bot round-robin at 4 seats, 14 workers: ~100 processes
started where 70 would do). An idle worker therefore gets a *home group* of the queued
tables, grown greedily from the tables that need the fewest bots it does not hold yet
(the earliest among equals), up to its share of the queue; the groups of the workers idle
together (all of them, at a run's start) are then improved together, by swapping tables
between them (`Dispatcher.form`). A worker plays first the tables of its group whose bots it
runs, the others in queue order, except that a worker ahead of another group plays that
group's games that need no start (`_lend`); once its group is empty and the queue holds
nothing unassigned, it takes a share of another worker's group, paying its starts once
(`_steal`).

What it costs: the order in which games are played is no longer the queue's, only each
group's (every worker still plays at once, so progress and the live view move over the
whole field); no result changes, since a game's seed is its job's whichever worker plays
it, in whatever order. Pure: no I/O, no processes (bench/tournament.py simulates it).
"""

from __future__ import annotations

import itertools
import math
from collections import Counter, deque
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from arena.tournament.runner import Job

Table = frozenset[str]
"""The bots of a game, whatever their seats: games at one table need the same processes."""

PLAN_TABLES = 256
"""How many unassigned tables (from the front of the queue) a new group is chosen among:
bounds the cost of forming a group in a very long queue, and keeps groups near the
queue's front (the 8-, 16- and 33-bot round-robins of the benchmarks have 70, 20 and 88)."""

REGROUP_SWAPS = 20_000
"""How many table swaps `_regroup` tries at most: bounds the coordinator's CPU in forming
the groups of a large field: ~0.1 s for a 100-bot, 1,650-game round-robin at 14 workers
(the benchmark's 14 groups need ~5,000)."""

START_GAMES = 2
"""What a bot's start costs, in games: a worker takes games from another's group only
where it gets at least this many games per start they need. A Python bot's start is
~90 ms of CPU, a benchmark game ~45 ms at 14 workers (and it holds the thief up about a
game's time)."""

LEND_TABLES = 256
"""How many tables of other groups a worker looks through for one it could play without a
start (`Dispatcher._lend`), each time it takes a game: bounds the cost in a large field."""

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
        self.hinted: dict[int, Job] = {}
        """The game each worker was last hinted (`next_for`): no other worker steals it."""
        self.start_games = START_GAMES
        """What a bot's start costs, in games (`start_cost`: the pool measures it)."""

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
            lent = self._lend(worker, group, held)
            return lent or _pop(group, _cheapest(group, held), first=True)
        return self._steal(worker, held)

    def form(self, idle: Mapping[int, Iterable[str]]) -> None:
        """Give each worker of `idle` (worker -> the bots it runs) that has no group its
        share of the unassigned games, the groups chosen together: formed in turn as `take`
        forms one, then tables swapped between them while that lowers the bots they need
        in all (`_regroup`)."""
        formed: list[tuple[dict[Table, deque[Job]], Table]] = []
        for worker, live in idle.items():
            group = self.groups.setdefault(worker, {})
            if not group and self.rest:
                held = frozenset(live)
                self._form(group, held)
                formed.append((group, held))
        _regroup(formed)

    def next_for(self, worker: int, live: Iterable[str]) -> Job | None:
        """Name, without taking it, the game `worker` would take next from its own group
        (a hint to start its bots early, so no other worker takes that game; a game from
        elsewhere is never hinted, since another worker may well take it first)."""
        group = self.groups.get(worker)
        if not group:
            self.hinted.pop(worker, None)
            return None
        hint = self.hinted[worker] = group[_cheapest(group, frozenset(live))][0]
        return hint

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

    def _lend(self, worker: int, group: dict[Table, deque[Job]], held: Table) -> Job | None:
        """A game of a group with more games left than `group` that `worker` plays
        without a start (from the group with the most left, the latest game of its
        table), or None. Groups start equal, but workers are not: games differ in length
        and cores in load. Evened out while each group has many tables, a worker ahead
        can do it for free; left to the end, few tables remain, and a worker that runs
        out must start bots to help."""
        mine = sum(len(jobs) for jobs in group.values())
        best: tuple[int, int, Table] | None = None
        seen = 0
        for other, theirs in self.groups.items():
            left = sum(len(jobs) for jobs in theirs.values())
            if other == worker or left <= mine + 1 or (best is not None and left <= best[0]):
                continue
            for table, jobs in theirs.items():
                seen += 1
                if table <= held and self._spare(other, jobs):
                    best = (left, other, table)
                    break
            if seen > LEND_TABLES:
                break
        if best is None:
            return None
        return _pop(self.groups[best[1]], best[2], first=False)

    def _steal(self, worker: int, held: Table) -> Job | None:
        """Move games of another worker's group into this one's and take the first: from
        the table needing the fewest starts, of the group with the most games left, as
        many games (from the table's far end) as even out the two workers' games left
        counting a start as a game, and never the game its owner was hinted. Only where
        that share holds at least `start_games` games per start the table needs (else
        its owner plays them sooner, or for less CPU). Taking a share, not a game, pays a
        start once: one game at a time, each idle worker paid the same start for a game of
        the same table (an instrumented run at 14 workers on 2 cores: 11 starts over the
        home groups' 82), and at the very end two starts bought two games."""
        best: tuple[tuple[int, int], int, Table, int] | None = None
        for other, group in self.groups.items():
            left = sum(len(jobs) for jobs in group.values())
            for table, jobs in group.items():
                key = (len(table - held), -left)
                share = min(self._spare(other, jobs), math.ceil((left - key[0]) / 2))
                if other != worker and share >= max(1, self.start_games * key[0]) \
                        and (best is None or key < best[0]):
                    best = (key, other, table, share)
        if best is None:
            return None
        _, other, table, share = best
        jobs = self.groups[other][table]
        mine = self.groups[worker].setdefault(table, deque())
        for _ in range(share):
            mine.appendleft(jobs.pop())
        if not jobs:
            del self.groups[other][table]
        return _pop(self.groups[worker], table, first=True)

    def _spare(self, owner: int, jobs: deque[Job]) -> int:
        """The games of `jobs` another worker may take: not the one `owner` was hinted
        (its bots may be starting already)."""
        return len(jobs) - (1 if self.hinted.get(owner) is jobs[0] else 0)


def start_cost(played: float, games: int, waited: float, starts: int) -> int:
    """What a bot's start costs, in games, from what a run measured: the wall seconds its
    games waited for each bot start over a game's seconds without waits; at least
    `START_GAMES` (a start's CPU). Simulated at 14 workers whose starts hold them up 100
    games (more workers than cores, pinned): starts 86.9 -> 77.5 and the last
    game 590 -> 497 games' time with this weight instead of 2 (10 draws)."""
    if games == 0 or starts == 0 or played <= 0:
        return START_GAMES
    return max(START_GAMES, math.ceil(waited / starts / (played / games)))


def _regroup(formed: list[tuple[dict[Table, deque[Job]], Table]]) -> None:
    """Swap tables of as many games between the groups (each with the bots its worker
    holds) while a swap lowers the bots they need in all, within `REGROUP_SWAPS` swaps
    tried. Formed one after another, the first groups take the tightest sets of bots and
    leave the last ones scattered tables (the benchmark's 14 groups: 82 bots, 78 once
    swapped)."""
    counts = [Counter(bot for table in group for bot in table) for group, _ in formed]
    budget = REGROUP_SWAPS
    better = True
    while better and budget > 0:
        better = False
        for a, b in itertools.combinations(range(len(formed)), 2):
            for ta in list(formed[a][0]):
                budget -= len(formed[b][0])
                tb = _swap_for(formed[a], formed[b], counts[a], counts[b], ta)
                if tb is not None:
                    _exchange(formed[a][0], ta, formed[b][0], tb)
                    for count, out, into in ((counts[a], ta, tb), (counts[b], tb, ta)):
                        count.subtract(out)
                        count.update(into)
                    better = True
            if budget <= 0:
                return


def _swap_for(first: tuple[dict[Table, deque[Job]], Table],
              second: tuple[dict[Table, deque[Job]], Table], have: Counter[str],
              other: Counter[str], table: Table) -> Table | None:
    """A table of `second` whose swap with `table` of `first` lowers the bots the two
    need in all (tables of as many games, neither in both groups), or None."""
    (group, held), (theirs, their_held) = first, second
    games = len(group[table])
    if table in theirs:
        return None
    for candidate, jobs in theirs.items():
        if len(jobs) == games and candidate not in group and \
                _change(have, held, table, candidate) + \
                _change(other, their_held, candidate, table) < 0:
            return candidate
    return None


def _change(counts: Counter[str], held: Table, out: Table, into: Table) -> int:
    """How many more bots than now a group needs (its bots counted by table in `counts`,
    beside `held`) once `out` is swapped for `into`."""
    gone = sum(1 for bot in out - into if counts[bot] == 1 and bot not in held)
    new = sum(1 for bot in into - out if counts[bot] <= 0 and bot not in held)
    return new - gone


def _exchange(first: dict[Table, deque[Job]], mine: Table, second: dict[Table, deque[Job]],
              theirs: Table) -> None:
    """Swap two tables (and their games) between two groups, each in the other's place."""
    moved = {mine: first[mine], theirs: second[theirs]}
    for group, old, new in ((first, mine, theirs), (second, theirs, mine)):
        items, jobs = list(group.items()), moved[new]
        group.clear()
        group.update((new, jobs) if key == old else (key, value) for key, value in items)


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

