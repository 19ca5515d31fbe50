"""Resolvable designs: round-robin schedules in which every pair of bots meets exactly once.

When the field has q^2 bots and the tables seat q, for q a prime power (3, 4, 5, 7, 8 at
the table sizes arena plays), the affine plane of order q is such a schedule: its points
are the bots, its lines the tables, and its q + 1 parallel classes (the lines of one
slope) the rounds. Each pair of points lies on exactly one line, so in q + 1 rounds every
bot meets every other exactly once, with no bye (Kirkman's schoolgirls, 15 bots at tables
of 3, are another such design; the local search of `grouping` stands in for the designs
not built here). Later rounds repeat the classes in turn, so that meetings never differ
by more than one.

Two more resolvable designs of triples (Kirkman triple systems: every pair of bots meets
exactly once in (v - 1) / 2 rounds) are built: 15 bots (Kirkman's schoolgirls) from a
starter round developed mod 7, and 27 bots as the affine space of dimension 3 over GF(3),
whose lines fall into 13 parallel classes. The same affine-space construction gives
q^3 bots at tables of q for the other orders in `FIELDS`.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence

FIELDS: dict[int, tuple[int, int]] = {3: (3, 0), 4: (2, 0b111), 5: (5, 0), 7: (7, 0),
                                      8: (2, 0b1011)}
"""Orders q of the planes built: (the characteristic p, and for q = 2^e the irreducible
polynomial of GF(q) as bits; 0 for a prime q, whose field is the integers mod q)."""


def _arithmetic(q: int) -> tuple[list[list[int]], list[list[int]]]:
    """Addition and multiplication tables of the field of order q (elements 0..q-1)."""
    p, modulus = FIELDS[q]
    if modulus == 0:
        return ([[(a + b) % q for b in range(q)] for a in range(q)],
                [[(a * b) % q for b in range(q)] for a in range(q)])

    def times(a: int, b: int) -> int:  # carry-less product, reduced by the modulus
        out = 0
        while b:
            if b & 1:
                out ^= a
            b >>= 1
            a <<= 1
            if a & q:
                a ^= modulus
        return out

    return ([[a ^ b for b in range(q)] for a in range(q)],
            [[times(a, b) for b in range(q)] for a in range(q)])


def affine_plane(bots: Sequence[str], size: int,
                 rng: random.Random | None = None) -> list[list[list[str]]] | None:
    """The q + 1 rounds of the affine plane of order q = `size` on `bots` (q^2 of them,
    placed on the points in an order `rng` shuffles), or None when there is none to build
    (then `rng` is left untouched)."""
    q = size
    if q not in FIELDS or len(bots) != q * q:
        return None
    add, mul = _arithmetic(q)
    if rng is not None:
        bots = list(bots)
        rng.shuffle(bots)

    def at(x: int, y: int) -> str:
        return bots[x * q + y]

    rounds = [[[at(x, add[mul[m][x]][c]) for x in range(q)] for c in range(q)]
              for m in range(q)]  # the lines y = m x + c of each slope m
    rounds.append([[at(x, y) for y in range(q)] for x in range(q)])  # x = c
    return rounds


KIRKMAN_15_STARTER: tuple[tuple[int, int, int], ...] = (
    (14, 0, 7), (1, 2, 4), (3, 8, 12), (5, 11, 13), (6, 9, 10))
"""The first round of a KTS(15) on the points Z_7 x {0, 1} and a fixed point: x in 0..6 is
(x, 0), 7 + x is (x, 1), 14 is the fixed point. Round i adds i mod 7 to the first
coordinate; {1, 2, 4} are the squares mod 7, as in the classic cyclic solutions. Found by
exhaustive search over such starter rounds; tests/tournament/test_schedules.py checks
that the 7 rounds are partitions in which every pair meets exactly once."""


def kirkman_15(bots: Sequence[str],
               rng: random.Random | None = None) -> list[list[list[str]]] | None:
    """The 7 rounds of a Kirkman triple system on 15 `bots` (shuffled onto the points by
    `rng`), or None for another field size (then `rng` is left untouched)."""
    if len(bots) != 15:
        return None
    if rng is not None:
        bots = list(bots)
        rng.shuffle(bots)

    def moved(point: int, shift: int) -> int:
        return point if point == 14 else (point + shift) % 7 + 7 * (point // 7)

    return [[[bots[moved(p, shift)] for p in table] for table in KIRKMAN_15_STARTER]
            for shift in range(7)]


def affine_space(bots: Sequence[str], size: int,
                 rng: random.Random | None = None) -> list[list[list[str]]] | None:
    """The q^2 + q + 1 rounds of the affine space of dimension 3 and order q = `size` on
    `bots` (q^3 of them, shuffled onto the points by `rng`): each round holds the lines of
    one direction, and two points lie on exactly one line. None when there is none to
    build (then `rng` is left untouched)."""
    q = size
    if q not in FIELDS or len(bots) != q ** 3:
        return None
    add, mul = _arithmetic(q)
    if rng is not None:
        bots = list(bots)
        rng.shuffle(bots)
    points = list(itertools.product(range(q), repeat=3))
    number = {p: i for i, p in enumerate(points)}
    # the directions: one nonzero vector per line through the origin (first nonzero = 1)
    directions = [d for d in points if d != (0, 0, 0) and d[next(i for i in range(3) if d[i])] == 1]
    rounds = []
    for d in directions:
        seen: set[int] = set()
        tables = []
        for p in points:
            if number[p] in seen:
                continue
            line = [number[tuple(add[p[i]][mul[t][d[i]]] for i in range(3))] for t in range(q)]
            seen.update(line)
            tables.append([bots[i] for i in line])
        rounds.append(tables)
    return rounds


def resolvable(bots: Sequence[str], size: int,
               rng: random.Random | None = None) -> list[list[list[str]]] | None:
    """A resolvable design built here for this field (every pair exactly once over its
    rounds), or None (then `rng` is left untouched)."""
    if size == 3 and len(bots) == 15:
        return kirkman_15(bots, rng)
    return affine_plane(bots, size, rng) or affine_space(bots, size, rng)


def cycled(design: list[list[list[str]]], count: int) -> list[list[list[str]]]:
    """`count` rounds of a resolvable design, its rounds taken in turn."""
    return [[list(t) for t in design[r % len(design)]] for r in range(count)]
