"""Pairing: who plays whom, where, in which round. Pure functions of standings, history, seed.

A round is a set of tables; no bot sits at two tables of one round. A table holds one
seating per repeat (`games_per_pairing`), rotated so that seat advantage cancels.
Round-robin and gauntlet schedules are fixed up front; a Swiss round is computed from the
ranking after the previous rounds, so the same results and seed give the same pairing.
"""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from arena.core.game import Json
from arena.core.rng import derive_seed
from arena.tournament import swiss
from arena.tournament.designs import cycled, resolvable
from arena.tournament.grouping import greedy, improve, spread_rounds
from arena.tournament.seating import balance, rotations, seat_counts, seat_greedily
from arena.tournament.swiss_tables import LOOKAHEAD_TABLES, swiss_tables

ALL_SUBSETS_LIMIT = 256
BYE_CHOICES = 4
"""An N-seat Swiss round of few tables tries at most this many sets of bots for its byes
(lowest-ranked first) when the first one forces a repeated meeting now or later."""
"""Up to this many tables, an N-player round-robin plays every k-subset of the bots."""


@dataclass(frozen=True, slots=True)
class Table:
    """One table of a round: a seating (bot names by seat) per repeat."""

    index: int
    seatings: tuple[tuple[str, ...], ...]

    @property
    def bots(self) -> tuple[str, ...]:
        """The bots at this table, in their first seating's order."""
        return self.seatings[0]


@dataclass(frozen=True, slots=True)
class RoundPlan:
    """The pairing of one round: its tables and the bots with a bye."""

    round: int
    tables: tuple[Table, ...]
    byes: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Json]:
        """Return the pairing as JSON-ready data (stored with the results)."""
        return {"round": self.round, "byes": list(self.byes),
                "tables": [[list(s) for s in t.seatings] for t in self.tables]}

    @classmethod
    def from_json(cls, data: Mapping[str, Json]) -> RoundPlan:
        """Rebuild a pairing from `to_json` data."""
        tables = tuple(Table(i, tuple(tuple(s) for s in t))
                       for i, t in enumerate(data["tables"]))
        return cls(int(data["round"]), tables, tuple(data["byes"]))


@dataclass
class History:
    """What earlier rounds did: meetings per pair, seats held, byes had."""

    meetings: Counter[tuple[str, str]] = field(default_factory=Counter)
    seats: dict[str, Counter[int]] = field(default_factory=dict)
    byes: Counter[str] = field(default_factory=Counter)
    sized: dict[tuple[str, int], Counter[int]] = field(default_factory=dict)
    """Seats held per (bot, table size)."""
    two_seat: dict[str, list[int]] = field(default_factory=dict)
    """Each bot's seats (0 first, 1 second) in its two-seat games, in the order played."""
    tables: list[list[tuple[str, ...]]] = field(default_factory=list)
    """The bots of each table, per round (byes left out)."""

    @classmethod
    def of(cls, rounds: Iterable[RoundPlan]) -> History:
        """Summarise the given rounds."""
        history = cls()
        seatings: list[tuple[str, ...]] = []
        for plan in rounds:
            history.byes.update(plan.byes)
            history.tables.append([table.bots for table in plan.tables])
            for table in plan.tables:
                seatings.extend(table.seatings)
                history.meetings.update(_pairs(table.bots))
        history.seats = seat_counts(seatings)
        for seating in seatings:
            for seat, bot in enumerate(seating):
                history.sized.setdefault((bot, len(seating)), Counter())[seat] += 1
                if len(seating) == 2:
                    history.two_seat.setdefault(bot, []).append(seat)
        return history

    def met(self, a: str, b: str) -> int:
        """Return how many tables `a` and `b` have shared."""
        return self.meetings[(a, b) if a < b else (b, a)]


def _pairs(bots: Iterable[str]) -> list[tuple[str, str]]:
    return [(a, b) if a < b else (b, a) for a, b in itertools.combinations(bots, 2)]


def table_sizes(players: int, size: int, smallest: int) -> tuple[list[int], int]:
    """Split `players` into tables of `size`, or `size - 1`.. `smallest`; return (sizes, byes).

    Tables are as even as possible; when even that is too small, full tables and byes.
    """
    if players < smallest:
        return [], players
    count = math.ceil(players / size)
    base, extra = divmod(players, count)
    if base >= smallest:
        return [base + 1] * extra + [base] * (count - extra), 0
    full, rest = divmod(players, size)
    sizes = [size] * full
    if rest >= smallest:
        return [*sizes, rest], 0
    return sizes, rest


# round-robin ---------------------------------------------------------------------------

def round_robin(bots: Sequence[str], size: int, smallest: int, repeats: int, seed: int,
                rounds: int | None = None) -> list[RoundPlan]:
    """Return the whole round-robin schedule.

    Two seats: the circle method, every pair once per repeat. N seats: every k-subset of
    the bots when there are at most `ALL_SUBSETS_LIMIT`, else `rounds` rounds (default: enough
    for every bot to meet every other about once): a resolvable design where one is built
    (`arena.tournament.designs`: k^2 or k^3 bots, or 15 at tables of 3: every pair exactly
    once over its rounds), else tables that minimise repeated meetings.
    """
    rng = random.Random(derive_seed(seed, "round-robin"))
    n = len(bots)
    if size == 2 and smallest == 2:
        groups = _circle(bots)
    elif n <= size:
        groups = [[list(bots)]] if n >= smallest else []
    elif rounds is None and math.comb(n, size) <= ALL_SUBSETS_LIMIT:
        groups = _pack([list(c) for c in itertools.combinations(bots, size)])
    else:
        count = rounds or math.ceil((n - 1) / (size - 1))
        plane = resolvable(bots, size, rng)
        groups = (cycled(plane, count) if plane is not None
                  else _balanced_rounds(bots, size, smallest, count, rng))
    return _finish(groups, bots, repeats)


def _circle(bots: Sequence[str]) -> list[list[list[str]]]:
    players: list[str | None] = list(bots)
    if len(players) % 2:
        players.append(None)
    n = len(players)
    out: list[list[list[str]]] = []
    for r in range(n - 1):
        tables = []
        for i in range(n // 2):
            a, b = players[i], players[n - 1 - i]
            if a is not None and b is not None:
                tables.append([a, b] if (r + i) % 2 == 0 else [b, a])
        out.append(tables)
        players = [players[0], players[-1], *players[1:-1]]
    return out


def _pack(tables: list[list[str]]) -> list[list[list[str]]]:
    """Put tables into rounds, each into the first round where none of its bots sits yet."""
    rounds: list[list[list[str]]] = []
    seated: list[set[str]] = []
    for table in tables:
        for index, busy in enumerate(seated):
            if busy.isdisjoint(table):
                rounds[index].append(table)
                busy.update(table)
                break
        else:
            rounds.append([table])
            seated.append(set(table))
    return rounds


def _balanced_rounds(bots: Sequence[str], size: int, smallest: int, count: int,
                     rng: random.Random) -> list[list[list[str]]]:
    history = History()
    out: list[list[list[str]]] = []
    for _ in range(count):
        order = list(bots)
        rng.shuffle(order)
        sizes, bye_count = table_sizes(len(order), size, smallest)
        order.sort(key=lambda b: -history.byes[b])  # stable: the fewest byes rest next
        playing, resting = order[:len(order) - bye_count], order[len(order) - bye_count:]
        history.byes.update(resting)
        tables = greedy(playing, sizes, history.met, window=len(playing))
        improve(tables, history.met)
        for table in tables:
            history.meetings.update(_pairs(table))
        out.append(tables)
    spread_rounds(out, rng)
    return out


def _finish(groups: list[list[list[str]]], bots: Sequence[str],
            repeats: int) -> list[RoundPlan]:
    """Rotate each table over its repeats, balance seats globally, and number everything."""
    games = [list(s) for tables in groups for t in tables for s in rotations(t, repeats)]
    balance(games)
    it = iter(games)
    plans = []
    for number, tables in enumerate(groups, start=1):
        seated = {b for t in tables for b in t}
        plan_tables = tuple(Table(i, tuple(tuple(next(it)) for _ in range(repeats)))
                            for i, _ in enumerate(tables))
        plans.append(RoundPlan(number, plan_tables, tuple(b for b in bots if b not in seated)))
    return plans


# gauntlet ------------------------------------------------------------------------------

def gauntlet(challengers: Sequence[str], field: Sequence[str], size: int, smallest: int,
             repeats: int, seed: int) -> list[RoundPlan]:
    """Return a schedule where each challenger meets the field, never another challenger.

    Each table is one challenger and `size - 1` field bots: every such subset of the field
    when there are few, else the field dealt round-robin into groups so each field bot
    meets each challenger about equally often.
    """
    rng = random.Random(derive_seed(seed, "gauntlet"))
    others = max(1, min(size - 1, len(field)))
    if others + 1 < smallest:
        return []
    tables: list[list[str]] = []
    for challenger in challengers:
        if math.comb(len(field), others) <= ALL_SUBSETS_LIMIT:
            subsets = [list(c) for c in itertools.combinations(field, others)]
        else:
            order = list(field)
            rng.shuffle(order)
            groups = math.ceil(len(order) / others)
            subsets = [[order[(g * others + i) % len(order)] for i in range(others)]
                       for g in range(groups)]
        tables.extend([challenger, *subset] for subset in subsets)
    all_bots = [*challengers, *field]
    return _finish(_pack(tables), all_bots, repeats)


# swiss ---------------------------------------------------------------------------------

def swiss_round(number: int, ranked: Sequence[str], history: History, size: int,
                smallest: int, repeats: int,
                points: Mapping[str, float] | None = None, rounds_left: int = 1) -> RoundPlan:
    """Pair one Swiss round from the current ranking (best first), the points behind it
    (for score groups) and earlier rounds.

    Two seats: a maximum-weight matching of the whole field (`arena.tournament.swiss`),
    which looks `rounds_left` rounds ahead (this one included) in small fields.
    N seats: tables that repeat no meeting the search can avoid, then within score groups
    (`arena.tournament.swiss_tables`, looking ahead `rounds_left` rounds in small fields);
    byes to the lowest-ranked bots with the fewest byes, or to the next few such sets when
    that forces a repeat; seats to whoever held them least at tables of that size.
    """
    if size == 2 and smallest == 2:
        fld = swiss.Field(ranked, swiss.score_groups(ranked, points),
                          {b: swiss.seat_history(history.two_seat.get(b, [])) for b in ranked},
                          history.meetings, history.byes, rounds_left)
        pairs, bye = swiss.pair(fld)
        return RoundPlan(number, tuple(Table(i, tuple(rotations(p, repeats)))
                                       for i, p in enumerate(pairs)), (bye,) if bye else ())
    sizes, bye_count = table_sizes(len(ranked), size, smallest)
    best: tuple[tuple[int, int], list[list[str]], set[str]] | None = None
    for byes in _swiss_byes(ranked, history, bye_count):
        playing = [b for b in ranked if b not in byes]
        rng = random.Random(derive_seed(number, "swiss", *playing))
        tables, score = swiss_tables(playing, sizes, history.meetings,
                                     history.byes + Counter(byes), ranked,
                                     lambda n: table_sizes(n, size, smallest), rounds_left, rng,
                                     history.tables)
        if best is None or score < best[0]:
            best = score, tables, byes
        if score == (0, 0) or len(tables) > LOOKAHEAD_TABLES:
            break
    assert best is not None
    _, tables, byes = best
    rank = {b: i for i, b in enumerate(ranked)}
    tables.sort(key=lambda t: min(rank[b] for b in t))
    out = []
    for index, table in enumerate(tables):
        counts = {b: history.sized.get((b, len(table)), Counter()) for b in table}
        seating = seat_greedily(sorted(table, key=rank.__getitem__), counts)
        out.append(Table(index, tuple(rotations(seating, repeats))))
    return RoundPlan(number, tuple(out), tuple(b for b in ranked if b in byes))


def _swiss_byes(ranked: Sequence[str], history: History, count: int) -> list[set[str]]:
    """The sets of bots that may have the byes, preferred first: the lowest-ranked with the
    fewest byes, then (as the 2-seat Swiss does for repeats) the next few sets of bots with
    that fewest count, lowest-ranked first (at most `BYE_CHOICES`)."""
    if not count:
        return [set()]
    bottom_up = list(reversed(ranked))
    bottom_up.sort(key=lambda b: history.byes[b])  # stable: lowest-ranked first per bye count
    fewest = [b for b in bottom_up if history.byes[b] <= history.byes[bottom_up[count - 1]]]
    pool = fewest[:count + 2]
    choices = sorted(itertools.combinations(range(len(pool)), count), key=sum)
    return [{pool[i] for i in c} for c in choices[:BYE_CHOICES]]
