"""Swiss rounds of k seats: tables that repeat no meeting the field can avoid, within score
groups as far as that allows.

A round is scored lexicographically, as an arbiter would pair: first the tables seating a
pair that met before, then the earlier meetings seated together, then the rank spread of
the tables (score groups). The tables are cut top-down from the ranking and improved by an
iterated local search (`arena.tournament.grouping.search`). In a small field (at most
`LOOKAHEAD_TABLES` tables) that is not enough: the field runs out of new opponents, and a
round that avoids repeats today can force them in the last rounds. There, more local
searches start from other groupings, and each candidate is judged by how the rounds left
could then be paired (planned without results, as a round-robin design plans them); the
round that repeats least now, then later, then keeps score groups best is played.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Callable, Sequence

from arena.tournament.anchor import anchored_round
from arena.tournament.grouping import Cost, counter_met, greedy, improve, search
from arena.tournament.placing import Tables

SWISS_KICKS = 400
"""At most this many perturbations of a round's local search, aimed at the tables that
still seat a pair that met (see `grouping.search`); none once no table does."""
LOOKAHEAD_TABLES, STARTS, LOOKAHEAD_KICKS = 8, 8, 15
"""A round of at most `LOOKAHEAD_TABLES` tables that repeats, or has rounds to follow, is
chosen among `STARTS` more local searches (of `LOOKAHEAD_KICKS` kicks each)."""
FEW_TABLES, FEW_STARTS = 4, 24
"""Rounds of at most `FEW_TABLES` tables (each search cheap, and the field small enough to
run out of new opponents soonest) get `FEW_STARTS` more local searches instead."""

Sizes = Callable[[int], tuple[list[int], int]]
"""Table sizes and the number of byes for a number of bots (`pairing.table_sizes`)."""


def swiss_tables(playing: Sequence[str], sizes: Sequence[int],
                 meetings: Counter[tuple[str, str]], byes: Counter[str],
                 field: Sequence[str], sizes_of: Sizes, rounds_left: int,
                 rng: random.Random, played: Sequence[Tables] = ()
                 ) -> tuple[list[list[str]], tuple[int, int]]:
    """Group `playing` (ranked, best first) into tables of `sizes`; return the tables and
    their score: (repeats now, tables repeating in the rounds left as planned), where
    repeats now is, lexicographically, tables seating a pair that met then meetings.

    `meetings` counts the earlier meetings per pair (sorted names), `byes` the byes each
    bot has had (this round's included); `field` is every bot of the round, byes included,
    and `rounds_left` the rounds still to pair, this one included. `played` holds the
    tables of the earlier rounds: where they fit a resolvable design (`anchor`), the round
    is chosen so that no meeting repeats, now or in the rounds left.
    """
    met = counter_met(meetings)
    rank = {b: i for i, b in enumerate(playing)}
    # a table seating a pair that met outweighs any number of earlier meetings, and one
    # earlier meeting any rank spread a round can have (n per pair, n * size pairs at most)
    weight = len(playing) ** 2 * max(sizes, default=1) + 1
    cost = Cost(met, rank, weight, weight * len(playing) ** 2)
    found = greedy(playing, sizes, met, window=3 * max(sizes, default=1))
    search(found, cost, rng, SWISS_KICKS)
    if played and (anchored := anchored_round(playing, played, cost, met,
                                              random.Random(rng.random()), [found])
                   ) is not None:
        return anchored, (0, 0)
    if len(found) > LOOKAHEAD_TABLES:
        return found, (cost.total(found) // weight, 0)

    def score(tables: list[list[str]]) -> tuple[int, int, int]:
        now = cost.total(tables)
        later = 0
        if rounds_left > 1:
            later = _future_repeats(meetings, tables, byes, field, sizes_of, rounds_left - 1,
                                    random.Random(planner.random()))
        return now // weight, later, now

    planner = random.Random(rng.random())
    best, best_score = found, score(found)
    starts = [greedy(playing, sizes, met, window=len(playing))]  # meetings first, as a design
    for number in range(FEW_STARTS if len(found) <= FEW_TABLES else STARTS):
        if best_score[:2] == (0, 0):  # nothing repeats, now or later: nothing to gain
            break
        if number < len(starts):
            tables = starts[number]
        else:
            order = list(playing)
            rng.shuffle(order)
            cuts = itertools.accumulate(sizes)
            tables = [order[end - k:end] for k, end in zip(sizes, cuts, strict=True)]
        search(tables, cost, rng, LOOKAHEAD_KICKS)
        if (trial := score(tables)) < best_score:
            best, best_score = tables, trial
    return best, best_score[:2]


def _future_repeats(meetings: Counter[tuple[str, str]], tables: Sequence[Sequence[str]],
                    byes: Counter[str], field: Sequence[str], sizes_of: Sizes, count: int,
                    rng: random.Random) -> int:
    """Tables repeating a pair in `count` rounds after `tables`, planned without results
    (byes to the bots with the fewest, tables by meetings alone)."""
    meetings = Counter(meetings)
    for table in tables:
        meetings.update(_pairs(table))
    had = Counter(byes)
    met = counter_met(meetings)
    out = 0
    for _ in range(count):
        order = list(field)
        rng.shuffle(order)
        order.sort(key=lambda b: -had[b])
        sizes, bye_count = sizes_of(len(order))
        playing = order[:len(order) - bye_count]
        had.update(order[len(playing):])
        planned = greedy(playing, sizes, met, window=len(playing))
        improve(planned, Cost(met, flag=len(playing) ** 2 * max(sizes, default=1)))
        out += sum(1 for t in planned if any(met(a, b) for a, b in _pairs(t)))
        for table in planned:
            meetings.update(_pairs(table))
    return out


def _pairs(table: Sequence[str]) -> list[tuple[str, str]]:
    return [(a, b) if a < b else (b, a) for a, b in itertools.combinations(table, 2)]
