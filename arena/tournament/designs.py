"""Resolvable designs: round-robin schedules in which every pair of bots meets exactly once.

When the field has q^2 bots and the tables seat q, for q a prime power (3, 4, 5, 7, 8 at
the table sizes arena plays), the affine plane of order q is such a schedule: its points
are the bots, its lines the tables, and its q + 1 parallel classes (the lines of one
slope) the rounds. Each pair of points lies on exactly one line, so in q + 1 rounds every
bot meets every other exactly once, with no bye (the local search of `grouping` stands
in for the designs not built here). Later rounds repeat the classes in turn, so that
meetings never differ by more than one.

The affine space of dimension 3 over GF(q) gives q^3 bots at tables of q (27 at 3, 64 at
4): its lines fall into q^2 + q + 1 parallel classes. At tables of 3, Kirkman triple
systems (`arena.tournament.kirkman`: every pair of v bots once in (v - 1) / 2 rounds)
serve the other fields of v = 3 mod 6 that are built: 15, 21, 33, ... (`kirkman.built`).
At tables of 4, resolvable 2-(v, 4, 1) designs (`arena.tournament.quadruples`: every pair
once in (v - 1) / 3 rounds) serve the fields of v = 4 mod 12 stored there (28, 40).
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence

from arena.tournament.kirkman import kirkman
from arena.tournament.quadruples import quadruples

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
    design = affine_plane(bots, size, rng) or affine_space(bots, size, rng)
    if design is None and size == 3:
        design = kirkman(bots, rng)
    if design is None and size == 4:
        design = quadruples(bots, rng)
    return design


def cycled(design: list[list[list[str]]], count: int) -> list[list[list[str]]]:
    """`count` rounds of a resolvable design, its rounds taken in turn."""
    return [[list(t) for t in design[r % len(design)]] for r in range(count)]
