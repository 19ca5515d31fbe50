"""Resolvable designs at tables of 4: v bots in (v - 1) / 3 rounds, every pair once.

A resolvable 2-(v, 4, 1) design exists for every v = 4 mod 12 (Hanani, Ray-Chaudhuri and
Wilson, 1972). The affine plane and space (`arena.tournament.designs`) give 16 and 64;
this module gives 28 and 40, from one base class each,
found by a seeded search (`arena.tournament.quadruple_search`) and stored in `STORED`.

The shape: r = (v - 1) / 3 is odd, and the cyclic group Z_r moves the points in three
orbits of r and fixes one: point s * r + x is x in orbit s, the fixed point is 3r. The r
rounds are the shifts (x -> x + i mod r in every orbit) of one base class, a partition of
the v points into tables of 4 whose pairs meet each orbit of pairs under the group once:
so every pair meets once over the r rounds.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Sequence

from arena.tournament.kirkman import placed

Quadruple = tuple[int, int, int, int]

STORED: dict[int, tuple[int, str]] = {
    # v: (the search's seed, the base class's tables)
    28: (11,
         "16,26,8,12 6,3,1,18 2,11,9,17 27,0,14,22 23,21,10,7 13,19,20,25 15,5,24,4"),
    40: (0,
         "39,0,13,26 6,23,21,12 5,17,24,10 2,25,20,4 30,15,27,16 38,19,29,22 36,18,35,14 "
         "33,1,11,31 34,3,7,28 37,9,8,32"),
}
"""The base classes found by `python -m arena.tournament.quadruple_search V` from the
seed given here (with the argument of `SEARCHED_AS` where it names one); tests/
tournament/test_quadruples.py runs the searches again and checks that they find these,
and checks every design built."""

SEARCHED_AS: dict[int, str] = {40: "40:3"}
"""The argument that found the v whose search was not the plain one: 40 among the base
classes that multiplying each point by 3 maps onto themselves (3 has order 3 mod 13)."""


def orbit_size(v: int) -> int:
    """r = (v - 1) / 3: the order of the group, and the number of rounds."""
    return (v - 1) // 3


def shifted(v: int, point: int, by: int) -> int:
    """The point moved by `by` in its orbit (the fixed point stays)."""
    r = orbit_size(v)
    if point == 3 * r:
        return point
    return point - point % r + (point + by) % r


def stored_tables(v: int) -> list[Quadruple]:
    """The tables of the base class stored for v."""
    numbers = [[int(p) for p in t.split(",")] for t in STORED[v][1].split()]
    return [(t[0], t[1], t[2], t[3]) for t in numbers]


def developed(v: int, base: Sequence[Quadruple]) -> list[list[Quadruple]]:
    """The r rounds: the shifts of the base class."""
    return [[(shifted(v, a, i), shifted(v, b, i), shifted(v, c, i), shifted(v, d, i))
             for a, b, c, d in base] for i in range(orbit_size(v))]


@functools.cache
def rounds_of(v: int) -> tuple[tuple[Quadruple, ...], ...] | None:
    """The rounds of the design on the points 0..v-1 built here, or None."""
    if v not in STORED:
        return None
    return tuple(tuple(one) for one in developed(v, stored_tables(v)))


def quadruples(bots: Sequence[str],
               rng: random.Random | None = None) -> list[list[list[str]]] | None:
    """The (v - 1) / 3 rounds of the design on the v `bots` (shuffled onto the points by
    `rng`), or None where none is built (then `rng` is left untouched)."""
    rounds = rounds_of(len(bots))
    # seats turned each round, as kirkman's: a shifted base class puts the same orbit's
    # point in the same seat every round
    return None if rounds is None else placed(rounds, bots, rng)
