"""Kirkman triple systems: v bots at tables of 3 in (v - 1) / 2 rounds, every pair once.

A KTS(v) exists for every v = 3 mod 6 (Ray-Chaudhuri and Wilson, 1971). Arena builds one
for each v in `built()` (every v from 3 to 99, and many above), from three sources,
tried in this order:

- base classes found by a seeded search (`arena.tournament.kirkman_search`) and stored in
  `STORED`: the rounds are shifts of one or two base classes under a cyclic group Z_n
  that fixes one or three points (the kind of shape follows from n, see `Shape`): 15,
  21, 33, 39, 51, 57, 69, 75, 87;
- tripling: a KTS(w) gives a KTS(3w) (below), from KTS(3), a single table, up: 9, 27,
  81, 243; and 45 from 15, 63 from 21, 99 from 33, ...;
- the classical construction for 3q, q a prime = 1 mod 6 (`three_q`): 93, 111, 129, ...

Tripling: the points are (x, i), x a point of the KTS(w), i in Z_3. On a table {x0, x1,
x2} of the KTS(w), the 9 points (xj, i) less the three columns {xj} x Z_3 form three
parallel classes of the affine plane of order 3: the lines {(xj, a + c j)} of slope c.
Each round of the KTS(w) and each slope c make a round; the columns make one more:
3 (w - 1) / 2 + 1 = (3w - 1) / 2 rounds. Two points of different columns share a table
of the KTS(w), and one line of it; two of one column share their column.

Building one takes at most about a millisecond up to 99 bots (`bench/tournament.py`
prints each v's).
"""

from __future__ import annotations

import functools
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

Triple = tuple[int, int, int]
Kind = Literal["orbits", "rotational", "triad"]

STORED: dict[int, tuple[int, int, str]] = {
    # v: (n, the search's seed, the base classes' triples, class after class)
    15: (7, 0,
         "10,11,5 8,13,6 2,0,3 14,4,7 12,9,1"),
    21: (5, 6,
         "0,8,12 18,4,1 6,20,2 7,9,16 10,5,15 19,11,17 3,14,13 19,20,12 6,4,5 8,16,3 15,11,9 "
         "13,7,10 14,1,0 17,18,2"),
    33: (32, 0,
         "32,0,16 6,12,20 8,3,7 18,15,25 17,26,5 30,11,13 22,28,4 24,19,23 2,31,9 1,10,21 "
         "14,27,29"),
    39: (19, 3,
         "29,35,20 26,17,8 9,23,38 34,2,3 11,4,6 14,10,30 25,15,37 27,1,12 33,28,36 18,5,22 "
         "32,7,31 0,19,21 24,16,13"),
    51: (50, 0,
         "50,0,25 45,42,44 21,14,5 13,18,1 27,49,12 16,8,40 11,32,22 31,35,4 48,34,28 20,17,19 "
         "46,39,30 38,43,26 2,24,37 41,33,15 36,7,47 6,10,29 23,9,3"),
    57: (56, 0,
         "56,0,28 14,27,17 34,33,39 26,49,22 46,9,25 52,10,35 41,43,19 3,12,23 44,29,36 48,4,30 "
         "42,55,45 6,5,11 54,21,50 18,37,53 24,38,7 13,15,47 31,40,51 16,1,8 20,32,2"),
    69: (33, 57,
         "26,36,29 61,68,13 12,2,31 54,24,23 63,30,67 37,28,33 9,1,22 14,34,64 60,11,6 44,59,7 "
         "35,62,3 5,20,65 45,40,4 57,50,32 48,19,25 39,53,51 43,56,21 58,49,41 10,38,27 15,8,17 "
         "52,42,18 55,66,16 0,47,46"),
    75: (74, 3,
         "74,0,37 2,5,53 44,73,45 11,60,43 41,65,56 54,10,46 69,1,13 51,24,31 63,67,3 33,12,52 "
         "21,62,64 22,57,35 18,29,34 39,42,16 7,36,8 48,23,6 4,28,19 17,47,9 32,38,50 14,61,68 "
         "26,30,40 70,49,15 58,25,27 59,20,72 55,66,71"),
    87: (43, 0,
         "86,43,0 70,39,54 75,8,64 65,27,44 85,32,84 45,22,47 82,42,78 51,2,59 40,74,62 6,67,48 "
         "31,81,76 24,53,63 38,66,46 10,83,80 23,49,55 5,69,60 33,77,52 20,61,68 3,50,79 "
         "37,72,57 12,71,58 19,73,56 41,34,36 4,18,14 35,7,15 16,29,13 11,28,17 21,30,9 1,26,25"),
}
"""The base classes found by `python -m arena.tournament.kirkman_search V` (from the seed
given here, with the arguments of `SEARCHED_AS` where it names some); tests/tournament/
test_kirkman.py runs the searches again and checks that they find these, and checks
every system built."""

SEARCHED_AS: dict[int, str] = {69: "69:triad::60000", 87: "87:orbits:41"}
"""The argument that found the v whose search was not the default one: 69 under the
triad shape, 60,000 moves per seed (restarts find it sooner than long runs: its
annealing sits at one collision); 87 among the base classes that multiplying each point
by 41 maps onto themselves (41 has order 7 mod 43: 4 triples searched, not 28)."""


@dataclass(frozen=True, slots=True)
class Shape:
    """How the points of a KTS(v) fall into orbits of the cyclic group Z_n: point s * n + x
    is x in orbit s, the points fixed by the group come last. Three kinds, m = (v - 1) / 2:
    "orbits" (n odd divides m: m / n base classes, each shifted n times), "rotational"
    (n = v - 1: one base class shifted m times, which the shift by m maps onto itself) and
    "triad" (n = (v - 3) / 2, three fixed points: one base class shifted n times, and
    one round that every shift maps onto itself: the fixed points, and {x, x + n/3,
    x + 2n/3} in each orbit)."""

    v: int
    n: int

    @property
    def kind(self) -> Kind:
        if self.n == self.v - 1:
            return "rotational"
        return "orbits" if (self.v - 1) % self.n == 0 else "triad"

    @property
    def orbits(self) -> int:
        return (self.v - 1) // self.n

    @property
    def fixed(self) -> int:
        """The number of the first fixed point (the others follow it)."""
        return self.orbits * self.n

    @property
    def translates(self) -> int:
        """How many shifts of each base class are rounds."""
        return (self.v - 1) // 2 if self.kind == "rotational" else self.n

    @property
    def classes(self) -> int:
        """How many base classes the rounds are developed from."""
        return ((self.v - 1) // 2 - (self.kind == "triad")) // self.translates

    def shifted(self, point: int, by: int) -> int:
        if point >= self.fixed:
            return point
        return point - point % self.n + (point + by) % self.n

    def invariant_round(self) -> list[Triple]:
        """The triad's round that every shift maps onto itself (empty for other kinds)."""
        if self.kind != "triad":
            return []
        third = self.n // 3
        return [(self.fixed, self.fixed + 1, self.fixed + 2)] + [
            (s * self.n + x, s * self.n + x + third, s * self.n + x + 2 * third)
            for s in range(self.orbits) for x in range(third)]


def stored_triples(v: int) -> list[Triple]:
    """The triples of the base classes stored for v, class after class."""
    numbers = [[int(p) for p in t.split(",")] for t in STORED[v][2].split()]
    return [(t[0], t[1], t[2]) for t in numbers]


def developed(v: int) -> list[list[Triple]]:
    """The rounds of the KTS(v) stored as base classes (v in `STORED`)."""
    form = Shape(v, STORED[v][0])
    triples = stored_triples(v)
    size = v // 3
    rounds = [[(form.shifted(a, i), form.shifted(b, i), form.shifted(c, i))
               for a, b, c in triples[start:start + size]]
              for start in range(0, len(triples), size) for i in range(form.translates)]
    extra = form.invariant_round()
    return rounds + [extra] if extra else rounds


def tripled(rounds: list[list[Triple]], w: int) -> list[list[Triple]]:
    """The rounds of a KTS(3w) from those of a KTS(w): point i * w + x is (x, i)."""
    out = []
    for one in rounds:
        for slope in range(3):
            out.append([(w * a + x, w * ((a + slope) % 3) + y, w * ((a + 2 * slope) % 3) + z)
                        for x, y, z in one for a in range(3)])
    out.append([(x, w + x, 2 * w + x) for x in range(w)])
    return out


def _primitive_root(q: int) -> int | None:
    """The least generator of the units mod q, or None where q is not a prime."""
    if q < 2 or any(q % d == 0 for d in range(2, int(q ** 0.5) + 1)):
        return None
    factors = {d for d in range(2, q) if (q - 1) % d == 0
               and all(d % e for e in range(2, int(d ** 0.5) + 1))}
    return next(g for g in range(1, q) if all(pow(g, (q - 1) // f, q) != 1 for f in factors))


def three_q(q: int) -> list[list[Triple]] | None:
    """The rounds of a KTS(3q) for a prime q = 6t + 1, or None for another q.

    A classical direct construction (the tests check it for each such q up to 43): the
    points (x, j) = j * q + x, x in Z_q, j in Z_3; g a primitive root, e = g^(2t) a cube
    root of unity. A_i = {(g^i, 0), (g^(i+2t), 1), (g^(i+4t), 2)}. For each i whose sextant
    i // t is 0, 2 or 4, the shifts of A_i are a round; the other q rounds are the shifts of
    one class: {(0, 0), (0, 1), (0, 2)}, the cosets {(g^i, j), (g^i e, j), (g^i e^2, j)} for
    i < t in each orbit j, and A_i for the sextants 1, 3 and 5."""
    g = _primitive_root(q)
    if g is None or q % 6 != 1:
        return None
    t = q // 6

    def a(i: int) -> Triple:
        return (pow(g, i, q), q + pow(g, i + 2 * t, q), 2 * q + pow(g, i + 4 * t, q))

    def shifted(triple: Triple, s: int) -> Triple:
        x, y, z = (p - p % q + (p + s) % q for p in triple)
        return (x, y, z)

    base = [(0, q, 2 * q)] + [
        (j * q + pow(g, i, q), j * q + pow(g, i + 2 * t, q), j * q + pow(g, i + 4 * t, q))
        for j in range(3) for i in range(t)] + [a(i) for i in range(6 * t) if i // t % 2]
    return ([[shifted(triple, s) for triple in base] for s in range(q)]
            + [[shifted(a(i), s) for s in range(q)] for i in range(6 * t) if i // t % 2 == 0])


@functools.cache
def rounds_of(v: int) -> tuple[tuple[Triple, ...], ...] | None:
    """The rounds of the KTS(v) built here, on the points 0..v-1, or None."""
    if v == 3:
        return (((0, 1, 2),),)
    if v in STORED:
        return tuple(tuple(r) for r in developed(v))
    if v % 9 == 0:
        smaller = rounds_of(v // 3)
        if smaller is not None:
            return tuple(tuple(r) for r in tripled([list(r) for r in smaller], v // 3))
    algebraic = three_q(v // 3) if v % 3 == 0 else None
    return None if algebraic is None else tuple(tuple(r) for r in algebraic)


def built(up_to: int) -> list[int]:
    """Every v up to `up_to` with a KTS(v) built here."""
    return [v for v in range(3, up_to + 1, 6) if rounds_of(v) is not None]


def kirkman(bots: Sequence[str],
            rng: random.Random | None = None) -> list[list[list[str]]] | None:
    """The (v - 1) / 2 rounds of a Kirkman triple system on the v `bots` (shuffled onto
    the points by `rng`), or None where none is built (then `rng` is left untouched)."""
    rounds = rounds_of(len(bots))
    return None if rounds is None else placed(rounds, bots, rng)


def placed(rounds: Sequence[Sequence[Sequence[int]]], bots: Sequence[str],
           rng: random.Random | None) -> list[list[list[str]]]:
    """A design's rounds of points with the `bots` on them (shuffled by `rng`)."""
    if rng is not None:
        bots = list(bots)
        rng.shuffle(bots)
    # each round turns its tables' seats by one: the constructions put the same kind of
    # point first at every table of a round, which left seating.balance most of the work
    # (a round-robin of 93 bots: 0.9 s, 0.06 s turned)
    return [[[bots[table[(r + s) % len(table)]] for s in range(len(table))]
             for table in one] for r, one in enumerate(rounds)]
