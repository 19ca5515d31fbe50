"""The search that found the base classes stored in `arena.tournament.kirkman` (never run
by a tournament: its results are stored there as data, and a test runs it again).

A Kirkman triple system KTS(v), v = 6t + 3, is looked for under a cyclic group Z_n that
fixes one or three points and moves the others in orbits of n: point s * n + x is x in
orbit s, the fixed points are numbered last. The (v - 1) / 2 rounds are shifts (x -> x + i
mod n in every orbit) of one or two base classes, so only those are searched: partitions
of the v points into triples such that the developed rounds cover every pair once.
Three shapes (`Shape.kind`), m = (v - 1) / 2:

- "orbits": n is the odd part of m, 2m / n orbits, m / n base classes each shifted n
  times: two orbits and one class where m is odd (v = 15, 39, 63, 87, ...), four orbits
  and two classes where m = 2 mod 4 (v = 21, 45, 69, 93, ...). A group of even order
  cannot act so: the pairs {x, x + n/2} of an orbit would be covered twice or never.
- "rotational" (the default where v = 3 or 9 mod 24): n = v - 1, one orbit, one base
  class that the shift by m maps onto itself, shifted m times (1-rotational: v = 27, 33,
  51, 57, 75, ...); its triple through the fixed point is {inf, 0, m}, its others come
  in pairs b, b + m.
- "triad" (v = 9 mod 12): n = (v - 3) / 2, two orbits and three fixed points; one base
  class shifted n times, and one round that every shift maps onto itself: the fixed
  points together, and {x, x + n/3, x + 2n/3} in each orbit (45 was found at once, 69
  from the 58th seed, by restarts of 60,000 moves: the one v up to 99 that no other
  source builds).

The search is simulated annealing on the sum over pair orbits of (times covered -
times wanted)^2, moving points between the triples of a base class, from a seeded random
source, so that a run is reproducible: `python -m arena.tournament.kirkman_search V`
prints the entry `arena.tournament.kirkman` stores for V (with the arguments that
`kirkman.SEARCHED_AS` names, where it names some). A multiplier restricts the search
to base classes that multiplying every point by a unit mod n maps onto themselves (as
the classical constructions are): 87 was found so in a few hundred moves, where the
plain search had not found it in minutes.
"""

from __future__ import annotations

import math
import random
import sys
import textwrap
from dataclasses import dataclass

from arena.tournament.kirkman import Kind, Shape, Triple


def shape(v: int, kind: Kind | None = None) -> Shape:
    """The shape searched for a KTS(v): `kind`, or by default "rotational" where v = 3 or
    9 mod 24 (the only v with a 1-rotational Steiner triple system under Z_{v-1}: Phelps
    and Rosa, 1981) and "orbits" elsewhere.

    Raises:
        ValueError: v is not 3 mod 6 and at least 15, or has no shape of that kind.
    """
    m = (v - 1) // 2
    if v % 6 != 3 or v < 15:
        raise ValueError(f"no Kirkman triple system is searched for {v} points")
    kind = kind or ("rotational" if v % 24 in (3, 9) else "orbits")
    if kind == "rotational" and v % 24 in (3, 9):
        return Shape(v, v - 1)
    if kind == "triad" and v % 12 == 9:
        return Shape(v, (v - 3) // 2)
    odd = m
    while odd % 2 == 0:
        odd //= 2
    if kind == "orbits" and odd > 1:
        return Shape(v, odd)
    raise ValueError(f"no {kind} shape for {v} points")


class Cells:
    """The orbits of pairs under the group (cells), and how often each must be covered
    by the triples of the base classes."""

    def __init__(self, form: Shape) -> None:
        self.form = form
        self.number: dict[tuple[object, ...], int] = {}
        self.wanted: list[int] = []
        points = range(form.v)
        self.of = [[self._cell(a, b) if a != b else -1 for b in points] for a in points]
        """The cell of each pair of points, looked up rather than computed in the search."""

    def _cell(self, a: int, b: int) -> int:
        form, n = self.form, self.form.n
        a, b = min(a, b), max(a, b)
        key: tuple[object, ...]
        wanted = 1
        if a >= form.fixed:  # two fixed points: only the triad's fixed round joins them
            key, wanted = ("fixed", a, b), 0
        elif b >= form.fixed:
            key = ("with", b, a // n)
            wanted = 0 if form.kind == "rotational" else 1  # {inf, 0, m} is not searched
        else:
            (s, x), (t, y) = divmod(a, n), divmod(b, n)
            if s == t:
                d = min((y - x) % n, (x - y) % n)
                key = ("within", s, d)
                if (form.kind == "rotational" and 2 * d == n
                        or form.kind == "triad" and 3 * d == n):
                    wanted = 0  # covered by {inf, 0, m}, or by the triad's fixed round
            else:
                key = ("across", s, t, (y - x) % n)
        if key not in self.number:
            self.number[key] = len(self.wanted)
            self.wanted.append(wanted)
        return self.number[key]


class Anneal:
    """One annealing run: base classes as lists of mutable triples, and cell covers."""

    def __init__(self, form: Shape, rng: random.Random, multiplier: int = 1) -> None:
        self.form, self.rng = form, rng
        self.powers = [1]  # of the multiplier, mod n, up to its order
        while multiplier > 1 and self.powers[-1] * multiplier % form.n != 1:
            self.powers.append(self.powers[-1] * multiplier % form.n)
        self.still = [self._image(p, 1) == p for p in range(form.v)]
        """The points the multiplier fixes (all of them without a multiplier)."""
        self.cells = Cells(form)
        self.cover = [0] * len(self.cells.wanted)
        self.classes = [self._start() for _ in range(form.classes)]
        self.cost = sum((c - w) ** 2 for c, w in zip(self.cover, self.cells.wanted,
                                                     strict=True))

    def _start(self) -> list[list[int]]:
        form = self.form
        if form.kind == "rotational":
            m = (form.v - 1) // 2
            rest = list(range(1, m))
            self.rng.shuffle(rest)
            rest = [x + m * self.rng.randrange(2) for x in rest]
            triples = [[form.fixed, 0, m]] + [rest[i:i + 3] for i in range(0, len(rest), 3)]
        elif len(self.powers) > 1:
            triples = self._start_symmetric()
        else:
            points = list(range(form.fixed))
            self.rng.shuffle(points)
            fixed = list(range(form.fixed, form.v))
            triples = [[f, points.pop(), points.pop()] for f in fixed]
            triples += [points[i:i + 3] for i in range(0, len(points), 3)]
        for triple in self.searched(triples):
            self._count(triple, 1)
        return triples

    def _start_symmetric(self) -> list[list[int]]:
        """Triples of the points the multiplier fixes, then one triple for each three
        orbits of the others under it (a point of each orbit: its images are the rest).

        Raises:
            ValueError: these points do not fall into triples so.
        """
        fixed = [p for p in range(self.form.v) if self.still[p]]
        orbits = [p for p in range(self.form.v)  # the least point of each orbit
                  if not self.still[p] and p == min(self._image(p, j)
                                                    for j in range(len(self.powers)))]
        if len(fixed) % 3 or len(orbits) % 3:
            raise ValueError(f"the multiplier leaves {len(fixed)} points and "
                             f"{len(orbits)} orbits of points: not triples")
        self.rng.shuffle(fixed)
        self.rng.shuffle(orbits)
        moved = [self._image(p, self.rng.randrange(len(self.powers))) for p in orbits]
        return ([fixed[i:i + 3] for i in range(0, len(fixed), 3)]
                + [moved[i:i + 3] for i in range(0, len(moved), 3)])

    def _image(self, point: int, power: int) -> int:
        """The point times the multiplier's `power`-th power (fixed points stay)."""
        if point >= self.form.fixed:
            return point
        n = self.form.n
        return point - point % n + self.powers[power % len(self.powers)] * point % n

    def _images(self, triple: list[int]) -> list[list[int]]:
        """The triples that a triple of the search stands for: its images under the
        multiplier's powers (itself alone where the multiplier fixes its points)."""
        if self.still[triple[0]]:
            return [triple]
        return [[self._image(p, j) for p in triple] for j in range(len(self.powers))]

    def searched(self, triples: list[list[int]]) -> list[list[int]]:
        """The triples that the search moves: in a rotational class, one of each mirror
        pair (the first third of the list past {inf, 0, m}); else all."""
        if self.form.kind == "rotational":
            return triples[1:]
        return triples

    def _count(self, triple: list[int], step: int) -> int:
        """Add `step` to the cover of the cells of the triple (and of its images); return
        the cost's change."""
        change = 0
        of, cover, wanted = self.cells.of, self.cover, self.cells.wanted
        for a, b, c in self._images(triple):
            for cell in (of[a][b], of[a][c], of[b][c]):
                before = cover[cell]
                cover[cell] = before + step
                change += (before + step - wanted[cell]) ** 2 - (before - wanted[cell]) ** 2
        return change

    def _conflicted(self, triples: list[list[int]], low: int) -> int:
        """A triple of the class with a cell covered too often, if a few draws find one:
        moves that touch no conflict only drift."""
        rng, of, cover, wanted = self.rng, self.cells.of, self.cover, self.cells.wanted
        i = low
        for _ in range(8):
            i = rng.randrange(low, len(triples))
            if any(cover[c] > wanted[c] for c in (of[triples[i][0]][triples[i][1]],
                                                   of[triples[i][0]][triples[i][2]],
                                                   of[triples[i][1]][triples[i][2]])):
                return i
        return i

    def step(self, temperature: float) -> None:
        """Swap two points between two triples of one class, both of points the
        multiplier fixes or both not (or replace a point by its image: x + m in a
        rotational class, a multiple in one searched with a multiplier); keep the move
        if the cost allows it."""
        rng, form = self.rng, self.form
        triples = self.classes[rng.randrange(len(self.classes))]
        low = 1 if form.kind == "rotational" else 0
        i = self._conflicted(triples, low)
        if form.kind == "rotational" and rng.random() < 0.3:
            place = rng.randrange(3)
            changed = [(i, place, (triples[i][place] + form.n // 2) % form.n)]
        elif len(self.powers) > 1 and not self.still[triples[i][0]] and rng.random() < 0.3:
            place = rng.randrange(3)
            changed = [(i, place, self._image(triples[i][place],
                                              rng.randrange(1, len(self.powers))))]
        else:
            if len(self.powers) > 1:  # the fixed points' triples come first
                group = [t for t in range(len(triples))
                         if self.still[triples[t][0]] == self.still[triples[i][0]]]
                low, top = group[0], group[-1] + 1
                if top - low < 2:
                    return
            else:
                top = len(triples)
            j = rng.randrange(low, top - 1)
            j += j >= i
            p, q = rng.randrange(3), rng.randrange(3)
            changed = [(i, p, triples[j][q]), (j, q, triples[i][p])]
        touched = sorted({index for index, _, _ in changed})
        old = [list(triples[t]) for t in touched]
        change = sum(self._count(triples[t], -1) for t in touched)
        for index, place, point in changed:
            triples[index][place] = point
        change += sum(self._count(triples[t], 1) for t in touched)
        if change <= 0 or rng.random() < math.exp(-change / temperature):
            self.cost += change
            return
        for t, before in zip(touched, old, strict=True):
            self._count(triples[t], -1)
            triples[t][:] = before
            self._count(triples[t], 1)

    def found(self) -> list[list[Triple]]:
        """The base classes, a rotational class with its mirror halves added, a class
        searched with a multiplier with the images of its triples."""
        out = []
        for triples in self.classes:
            whole = [(t[0], t[1], t[2]) for triple in triples for t in self._images(triple)]
            if self.form.kind == "rotational":
                m = self.form.n // 2
                whole += [((a + m) % self.form.n, (b + m) % self.form.n, (c + m) % self.form.n)
                          for a, b, c in whole[1:]]
            out.append(whole)
        return out


TEMPERATURE = 0.35
"""Where the cost is a few squared collisions: hot enough to leave a local minimum, cool
enough not to undo a nearly found system (tried 0.3 to 1.2 on v = 21 to 45)."""


def search(form: Shape, seed: int, steps: int,
           multiplier: int = 1) -> list[list[Triple]] | None:
    """The base classes found by annealing from `seed` within `steps` moves, or None.
    With a `multiplier` (a unit mod n), only classes that multiplying every point by it
    maps onto themselves are searched: a far smaller search, where they exist."""
    run = Anneal(form, random.Random(f"kirkman:{form.v}:{form.kind}:{seed}"), multiplier)
    for _ in range(steps):
        if run.cost == 0:
            return run.found()
        run.step(TEMPERATURE)
    return run.found() if run.cost == 0 else None


STEPS = 400_000
"""Moves per seed: most systems found were found within this many, from some seed."""


def entry(form: Shape, seed: int, classes: list[list[Triple]]) -> str:
    """The lines of `kirkman.STORED` that hold these base classes."""
    text = " ".join(",".join(map(str, t)) for c in classes for t in c)
    lines = textwrap.wrap(text, 86)
    body = " \"\n         \"".join(lines)
    return f"    {form.v}: ({form.n}, {seed},\n         \"{body}\"),"


@dataclass(frozen=True, slots=True)
class Run:
    """What one command-line argument asks to search."""

    form: Shape
    multiplier: int = 1
    steps: int = STEPS
    """Moves per seed."""


def parse(arg: str) -> Run:
    """Read "V[:kind[:multiplier[:steps]]]" (kind empty for the default one).

    Raises:
        ValueError: not so, or no shape of that kind for V.
    """
    kinds: dict[str, Kind | None] = {"": None, "orbits": "orbits", "rotational": "rotational",
                                     "triad": "triad"}
    v, kind, multiplier, steps = (arg.split(":") + ["", "", ""])[:4]
    if kind not in kinds:
        raise ValueError(f"{arg}: the kind is one of orbits, rotational, triad")
    return Run(shape(int(v), kinds[kind]), int(multiplier or 1), int(steps or STEPS))


def main(argv: list[str]) -> None:
    """Search each argument's V (see `parse`) from seed 0 up; print what is found."""
    for arg in argv:
        run = parse(arg)
        for seed in range(1000):
            found = search(run.form, seed, run.steps, run.multiplier)
            if found is not None:
                print(entry(run.form, seed, found), flush=True)
                break


if __name__ == "__main__":
    main(sys.argv[1:])
