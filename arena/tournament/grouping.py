"""Grouping bots into tables of k seats so that meetings spread evenly.

A table of k bots puts k(k-1)/2 pairs together; the sum over pairs of (meetings)^2 is
lowest when every pair meets as equally often as the games allow. Putting a pair that has
met m times together again adds 2m + 1 to that sum, so a round is best when the sum of
earlier meetings over the pairs it seats is least. Tables are filled greedily, then
improved by swapping two bots of different tables while that lowers the cost (a local
search, as used for social-golfer designs), and kicked out of its local optima by random
swaps aimed at the tables that repeat (`search`). A Swiss round adds a cost for the rank
distance of the bots seated together, so that tables stay within score groups, and one for
each table that repeats at all (`Cost`).
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Callable, Mapping, Sequence

Met = Callable[[str, str], int]
NEAR_TABLES = 24
"""A swap is tried between tables at most this far apart in the table order (when there are
many tables); enough for the search to reach every table of a score group."""
KICK_NEAR = 4
"""A kick of `search` (and the local search after it) spans at most this many tables on
either side of the table it aims at."""
SPREAD_KICK_TABLES, SPREAD_KICKS, SPREAD_STALE = 2, 100, 30
"""`spread_rounds` kicks rounds of at most this many tables, at most this many times, and
stops after this many kicks in a row that lowered nothing (each sweep kicks again)."""
SPREAD_WEIGHT = 256
"""In `spread_rounds`, one earlier meeting outweighs the count of pairs that met of any
window the search compares (at most 9 tables of 8 seats: 252 pairs)."""
STALE_KICKS = 30
"""`search` stops after this many kicks in a row that lowered nothing."""


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


class Cost:
    """The cost of a table: `weight` x the earlier meetings of its pairs, plus `again` per
    pair that met at all, plus `flag` when it seats any pair that met, plus (with `rank`)
    the rank distance of its pairs."""

    def __init__(self, met: Met, rank: Mapping[str, int] | None = None, weight: int = 1,
                 flag: int = 0, again: int = 0) -> None:
        self.met, self.rank, self.weight, self.flag = met, rank, weight, flag
        self.again = again
        # the local search prices the same pairs over and over: a pair's cost is looked up
        # once (a dict hit instead of a meeting count and two ranks; ~3x faster searches)
        self._pairs: dict[tuple[str, str], tuple[int, bool]] = {}

    def pair(self, a: str, b: str) -> tuple[int, bool]:
        """A pair's share of the cost, and whether it met before."""
        key = (a, b) if a < b else (b, a)
        return self._pairs.get(key) or self._price(key)

    def _price(self, key: tuple[str, str]) -> tuple[int, bool]:
        a, b = key
        m = self.met(a, b)
        spread = abs(self.rank[a] - self.rank[b]) if self.rank is not None else 0
        found = self._pairs[key] = (self.weight * m + spread + (self.again if m else 0), m > 0)
        return found

    def __call__(self, table: Sequence[str]) -> int:
        total = 0
        repeat = False
        pairs = self._pairs  # the innermost loop of every search: no method call per pair
        for a, b in itertools.combinations(table, 2):
            key = (a, b) if a < b else (b, a)
            value, met = pairs.get(key) or self._price(key)
            total += value
            repeat = repeat or met
        return total + (self.flag if repeat else 0)

    def total(self, tables: Sequence[Sequence[str]]) -> int:
        """The cost of a round."""
        return sum(self(t) for t in tables)


def improve(tables: list[list[str]], met: Met | Cost, near: int = NEAR_TABLES,
            passes: int = 20) -> None:
    """Swap bots between tables (in place) while a swap lowers the cost (a `Cost`, or
    plain earlier meetings). Tables at most `near` apart in the list are tried."""
    cost = met if isinstance(met, Cost) else Cost(met)
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


def search(tables: list[list[str]], cost: Cost, rng: random.Random, kicks: int,
           stale: int = STALE_KICKS, near: int = NEAR_TABLES) -> None:
    """`improve`, then perturbations aimed at the tables that still seat a pair that met
    before (in place; an iterated local search).

    A kick swaps a bot of such a pair with a random bot of a table at most `KICK_NEAR`
    away, improves those few tables and keeps the result unless it costs more (equal
    costs are kept, so the search can cross plateaus). It stops when no table seats a
    repeated pair, after `kicks` kicks, or after `stale` kicks in a row that lowered
    nothing. Kicks touch a small window, so each costs the same in any field.
    """
    improve(tables, cost, near)
    since = 0
    for _ in range(kicks if len(tables) > 1 else 0):
        bad = [i for i, t in enumerate(tables) if _repeated(t, cost)]
        if not bad or since >= stale:
            return
        i = rng.choice(bad)
        lo, hi = max(0, i - KICK_NEAR), min(len(tables), i + KICK_NEAR + 1)
        window = [list(t) for t in tables[lo:hi]]
        before = cost.total(window)
        first = window[i - lo]
        x = rng.choice(_repeated(first, cost))
        j = rng.choice([t for t in range(len(window)) if t != i - lo])
        y = rng.randrange(len(window[j]))
        first[x], window[j][y] = window[j][y], first[x]
        improve(window, cost, near)
        after = cost.total(window)
        since = 0 if after < before else since + 1
        if after <= before:
            tables[lo:hi] = window


def _repeated(table: Sequence[str], cost: Cost) -> list[int]:
    """The seats of `table` whose bot has met another bot of the table before."""
    return [i for i, a in enumerate(table) if any(cost.pair(a, b)[1] for b in table if b != a)]


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
    meetings of all the other rounds, a few sweeps over the rounds.

    The cost is the earlier meetings of the pairs seated (the sum of squared meetings
    over the design), then the pairs seated that met at all: of designs as even, the one
    where the most pairs meet. Rounds of at most `SPREAD_KICK_TABLES` tables also get
    `search`'s kicks (a swap between two big tables moves many pairs at once, and plain
    swaps stall: 12 bots at tables of 6 left 8 pairs unmet, where none need be).
    """
    for _ in range(sweeps):
        for number, tables in enumerate(rounds):
            order = list(range(len(tables)))
            rng.shuffle(order)
            shuffled = [tables[i] for i in order]
            cost = Cost(counter_met(pair_counts(rounds, skip=number)), weight=SPREAD_WEIGHT,
                        again=1)
            if len(shuffled) <= SPREAD_KICK_TABLES:
                search(shuffled, cost, rng, SPREAD_KICKS, stale=SPREAD_STALE)
            else:
                improve(shuffled, cost)
            rounds[number] = shuffled
