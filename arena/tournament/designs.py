"""Resolvable designs: round-robin schedules in which every pair of bots meets exactly once.

When the field has q^2 bots and the tables seat q, for q a prime power (3, 4, 5, 7, 8 at
the table sizes arena plays), the affine plane of order q is such a schedule: its points
are the bots, its lines the tables, and its q + 1 parallel classes (the lines of one
slope) the rounds. Each pair of points lies on exactly one line, so in q + 1 rounds every
bot meets every other exactly once, with no bye (Kirkman's schoolgirls, 15 bots at tables
of 3, are another such design; the local search of `grouping` stands in for the designs
not built here). Later rounds repeat the classes in turn, so that meetings never differ
by more than one.
"""

from __future__ import annotations

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


def cycled(design: list[list[list[str]]], count: int) -> list[list[list[str]]]:
    """`count` rounds of a resolvable design, its rounds taken in turn."""
    return [[list(t) for t in design[r % len(design)]] for r in range(count)]
