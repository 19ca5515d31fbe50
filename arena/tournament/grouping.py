"""Grouping bots into tables of k seats so that meetings spread evenly.

A table of k bots puts k(k-1)/2 pairs together; the sum over pairs of (meetings)^2 is
lowest when every pair meets as equally often as the games allow. Putting a pair that has
met m times together again adds 2m + 1 to that sum, so a round is best when the sum of
earlier meetings over the pairs it seats is least. Tables are filled greedily, then
improved by swapping two bots of different tables while that lowers the cost (a local
search, as used for social-golfer designs). A Swiss round adds a cost for the rank
distance of the bots seated together, so that tables stay within score groups.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Mapping, Sequence

Met = Callable[[str, str], int]
NEAR_TABLES = 24
"""A swap is tried between tables at most this far apart in the table order (when there are
many tables); enough for the search to reach every table of a score group."""


def greedy(ranked: Sequence[str], sizes: Sequence[int], met: Met,
           window: int) -> list[list[str]]:
    """Fill tables top-down: each takes the highest remaining bot, then, one by one, the
    candidate (among the next `window`) with the fewest earlier meetings with those seated."""
    remaining = list(ranked)
    tables: list[list[str]] = []
    for k in sizes:
        table = [remaining.pop(0)]
        while len(table) < k:
            candidates = remaining[:window]
            best = min(range(len(candidates)), key=lambda i: (
                sum(met(candidates[i], t) for t in table), i))
            table.append(remaining.pop(best))
        tables.append(table)
    return tables


def improve(tables: list[list[str]], met: Met, rank: Mapping[str, int] | None = None,
            weight: int = 1, near: int = NEAR_TABLES, passes: int = 20) -> None:
    """Swap bots between tables (in place) while a swap lowers the cost.

    The cost of a table is `weight` x the earlier meetings of its pairs, plus (with `rank`)
    the rank distance of its pairs. Tables at most `near` apart in the list are tried.
    """

    def cost(table: Sequence[str]) -> int:
        total = 0
        for i, a in enumerate(table):
            for b in table[i + 1:]:
                total += weight * met(a, b)
                if rank is not None:
                    total += abs(rank[a] - rank[b])
        return total

    costs = [cost(t) for t in tables]
    for _ in range(passes):
        better = False
        for i, first in enumerate(tables):
            for j in range(i + 1, min(len(tables), i + 1 + near)):
                second = tables[j]
                for x in range(len(first)):
                    for y in range(len(second)):
                        first[x], second[y] = second[y], first[x]
                        new_first, new_second = cost(first), cost(second)
                        if new_first + new_second < costs[i] + costs[j]:
                            costs[i], costs[j] = new_first, new_second
                            better = True
                        else:
                            first[x], second[y] = second[y], first[x]
        if not better:
            return


def search(tables: list[list[str]], met: Met, rank: Mapping[str, int] | None,
           weight: int, rng: random.Random, kicks: int, near: int = NEAR_TABLES) -> None:
    """`improve`, then `kicks` times: swap two random bots of nearby tables, improve, and
    keep the result when it costs less (an iterated local search; in place)."""
    improve(tables, met, rank, weight, near)
    best = _total(tables, met, rank, weight)
    for _ in range(kicks if len(tables) > 1 else 0):
        trial = [list(t) for t in tables]
        i = rng.randrange(len(trial))
        j = rng.choice([x for x in range(max(0, i - near), min(len(trial), i + near + 1))
                        if x != i])
        x, y = rng.randrange(len(trial[i])), rng.randrange(len(trial[j]))
        trial[i][x], trial[j][y] = trial[j][y], trial[i][x]
        improve(trial, met, rank, weight, near)
        cost = _total(trial, met, rank, weight)
        if cost < best:
            best = cost
            tables[:] = trial


def _total(tables: Sequence[Sequence[str]], met: Met, rank: Mapping[str, int] | None,
           weight: int) -> int:
    total = 0
    for table in tables:
        for i, a in enumerate(table):
            for b in table[i + 1:]:
                total += weight * met(a, b) + (abs(rank[a] - rank[b]) if rank else 0)
    return total


def pair_counts(rounds: Sequence[Sequence[Sequence[str]]],
                skip: int | None = None) -> Counter[tuple[str, str]]:
    """Return meetings per pair (sorted names) over `rounds`, leaving out round `skip`."""
    out: Counter[tuple[str, str]] = Counter()
    for number, tables in enumerate(rounds):
        if number == skip:
            continue
        for table in tables:
            for i, a in enumerate(table):
                for b in table[i + 1:]:
                    out[(a, b) if a < b else (b, a)] += 1
    return out


def counter_met(counts: Counter[tuple[str, str]]) -> Met:
    """Return a `Met` reading `counts`."""
    return lambda a, b: counts[(a, b) if a < b else (b, a)]


def spread_rounds(rounds: list[list[list[str]]], rng: random.Random, sweeps: int = 3) -> None:
    """Improve a whole design (in place): each round in turn is re-grouped against the
    meetings of all the other rounds, a few sweeps over the rounds."""
    for _ in range(sweeps):
        for number, tables in enumerate(rounds):
            order = list(range(len(tables)))
            rng.shuffle(order)
            shuffled = [tables[i] for i in order]
            improve(shuffled, counter_met(pair_counts(rounds, skip=number)))
            rounds[number] = shuffled
