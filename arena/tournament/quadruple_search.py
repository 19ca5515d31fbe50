"""The search that found the base classes stored in `arena.tournament.quadruples` (never
run by a tournament: its results are stored there as data, and a test runs it again).

A resolvable 2-(v, 4, 1) design, v = 4 mod 12, is looked for under the cyclic group Z_r,
r = (v - 1) / 3, that moves the points in three orbits of r and fixes one (see
`quadruples`): only the base class is searched, a partition of the v points into tables
of 4 whose 6 v / 4 pairs fall one in each of the v (v - 1) / (2 r) orbits of pairs
(cells): the fixed point with an orbit (3 cells), two points of one orbit at difference
+-d (3 (r - 1) / 2 cells; r is odd, so d and -d are one cell), two of different orbits at
difference d (3 r cells).

The search is simulated annealing on the sum over cells of (times covered - 1)^2,
swapping points between tables, from a seeded random source, so that a run is
reproducible: `python -m arena.tournament.quadruple_search V[:MULTIPLIER[:STEPS]]`
prints the entry that `quadruples.STORED` holds for V (with the argument that
`quadruples.SEARCHED_AS` names, where it names one). A multiplier restricts the search
to base classes that multiplying every point by a unit mod r maps onto themselves: 40
was found so (by 3, of order 3 mod 13) in under a thousand moves, where the plain search
had not found it in 50 seeds of 200,000 moves. (A 1-rotational shape, Z_{v-1} and one
base class that the shift by r maps onto itself, was tried first: no seed found one for
28 or 40.) No multiplier helps at 52: the units mod 17 form a cyclic group of order 16,
so every unit but 1 has -1 among its powers, which `Anneal` refuses.
"""

from __future__ import annotations

import math
import random
import sys
import textwrap

from arena.tournament.quadruples import Quadruple, orbit_size


def cells(v: int) -> list[list[int]]:
    """The cell of each pair of points (-1 on the diagonal).

    Raises:
        ValueError: v is not 4 mod 12 and at least 28.
    """
    if v % 12 != 4 or v < 28:
        raise ValueError(f"no resolvable design of tables of 4 is searched for {v} points")
    r = orbit_size(v)
    number: dict[tuple[int, ...], int] = {}

    def cell(a: int, b: int) -> int:
        a, b = min(a, b), max(a, b)
        (s, x), (t, y) = divmod(a, r), divmod(b, r)
        key: tuple[int, ...]
        if b == 3 * r:
            key = (0, s)
        elif s == t:
            key = (1, s, min((y - x) % r, (x - y) % r))
        else:
            key = (2, s, t, (y - x) % r)
        return number.setdefault(key, len(number))

    return [[cell(a, b) if a != b else -1 for b in range(v)] for a in range(v)]


class Anneal:
    """One annealing run: the base class as mutable tables, and the cells' covers.

    With a multiplier (a unit mod r), only base classes that multiplying every point by
    it maps onto themselves are searched: the fixed point and the three zeros, which it
    fixes, are one table, and each searched table stands for its images under the
    multiplier's powers (one point is searched for each orbit of points under it)."""

    def __init__(self, v: int, rng: random.Random, multiplier: int = 1) -> None:
        self.rng, self.v = rng, v
        r = orbit_size(v)
        self.powers = [1]  # of the multiplier, mod r, up to its order
        while multiplier > 1 and self.powers[-1] * multiplier % r != 1:
            self.powers.append(self.powers[-1] * multiplier % r)
        self.of = cells(v)
        self.cover = [0] * (v * (v - 1) // 2 // r)
        self.still: list[list[int]] = []
        """The table of the points the multiplier fixes (none without a multiplier)."""
        if len(self.powers) > 1:
            self.still = [[3 * r, 0, r, 2 * r]]
            points = [p for p in range(3 * r)  # the least point of each orbit
                      if p % r and p == min(self._image(p, j) for j in range(len(self.powers)))]
            rng.shuffle(points)
            points = [self._image(p, rng.randrange(len(self.powers))) for p in points]
        else:
            points = list(range(v))
            rng.shuffle(points)
        if r - 1 in self.powers:
            # x -> -x maps each pair {x, x + d} of an orbit onto another pair of the cell
            # +-d: a table and its image would cover that cell twice
            raise ValueError(f"the multiplier {multiplier} has -1 among its powers mod {r}: "
                             "no class it maps onto itself covers each pair once")
        if len(points) % 4:
            raise ValueError(f"the multiplier {multiplier} leaves {len(points)} orbits of "
                             "points: not tables of 4")
        self.tables = [points[i:i + 4] for i in range(0, len(points), 4)]
        for table in self.still + self.tables:
            self._count(table, 1)
        self.cost = sum((c - 1) ** 2 for c in self.cover)

    def _image(self, point: int, power: int) -> int:
        """The point times the multiplier's `power`-th power (the fixed point stays)."""
        r = orbit_size(self.v)
        if point == 3 * r:
            return point
        return point - point % r + self.powers[power % len(self.powers)] * point % r

    def _images(self, table: list[int]) -> list[list[int]]:
        """The tables that a searched table stands for (itself, without a multiplier)."""
        if len(self.powers) == 1 or table in self.still:
            return [table]
        return [[self._image(p, j) for p in table] for j in range(len(self.powers))]

    def _count(self, table: list[int], step: int) -> int:
        """Add `step` to the cover of the cells of the table (and of its images); return
        the cost's change."""
        change = 0
        of, cover = self.of, self.cover
        for one in self._images(table):
            for i in range(3):
                for j in range(i + 1, 4):
                    cell = of[one[i]][one[j]]
                    before = cover[cell]
                    cover[cell] = before + step
                    change += (before + step - 1) ** 2 - (before - 1) ** 2
        return change

    def step(self, temperature: float) -> None:
        """Swap two points of two tables (or, with a multiplier, replace a point by one of
        its images); keep the move if the cost allows it."""
        rng, tables = self.rng, self.tables
        i = rng.randrange(len(tables))
        one = tables[i]
        if len(self.powers) > 1 and rng.random() < 0.3:
            p = rng.randrange(4)
            before = list(one)
            change = self._count(one, -1)
            one[p] = self._image(one[p], rng.randrange(1, len(self.powers)))
            change += self._count(one, 1)
            if change <= 0 or rng.random() < math.exp(-change / temperature):
                self.cost += change
                return
            self._count(one, -1)
            one[:] = before
            self._count(one, 1)
            return
        j = rng.randrange(len(tables) - 1)
        j += j >= i
        p, q = rng.randrange(4), rng.randrange(4)
        two = tables[j]
        change = self._count(one, -1) + self._count(two, -1)
        one[p], two[q] = two[q], one[p]
        change += self._count(one, 1) + self._count(two, 1)
        if change <= 0 or rng.random() < math.exp(-change / temperature):
            self.cost += change
            return
        self._count(one, -1)
        self._count(two, -1)
        one[p], two[q] = two[q], one[p]
        self._count(one, 1)
        self._count(two, 1)

    def found(self) -> list[Quadruple]:
        """The base class: the multiplier's fixed table first, then each searched table
        with its images."""
        return [(t[0], t[1], t[2], t[3]) for table in self.still + self.tables
                for t in self._images(table)]


TEMPERATURE = 0.35
"""As kirkman_search's: the cost is a few squared collisions near a solution."""

STEPS = 200_000
"""Moves per seed."""


def search(v: int, seed: int, steps: int = STEPS, multiplier: int = 1) -> list[Quadruple] | None:
    """The base class found by annealing from `seed` within `steps` moves, or None (with
    a `multiplier`, among the classes it maps onto themselves, see `Anneal`)."""
    name = f"rbibd:{v}:{seed}" if multiplier == 1 else f"rbibd:{v}:{multiplier}:{seed}"
    run = Anneal(v, random.Random(name), multiplier)
    for _ in range(steps):
        if run.cost == 0:
            return run.found()
        run.step(TEMPERATURE)
    return run.found() if run.cost == 0 else None


def entry(v: int, seed: int, tables: list[Quadruple]) -> str:
    """The lines of `quadruples.STORED` that hold this base class."""
    text = " ".join(",".join(map(str, t)) for t in tables)
    body = " \"\n         \"".join(textwrap.wrap(text, 86))
    return f"    {v}: ({seed},\n         \"{body}\"),"


def parse(arg: str) -> tuple[int, int, int]:
    """Read "V[:multiplier[:steps]]" into (V, multiplier, steps)."""
    v, multiplier, steps = (arg.split(":") + ["", ""])[:3]
    return int(v), int(multiplier or 1), int(steps or STEPS)


def main(argv: list[str]) -> None:
    """Search V (see `parse`) from seed 0 up; print what is found."""
    v, multiplier, steps = parse(argv[0])
    for seed in range(1000):
        found = search(v, seed, steps, multiplier)
        if found is not None:
            print(entry(v, seed, found), flush=True)
            return


if __name__ == "__main__":
    main(sys.argv[1:])
