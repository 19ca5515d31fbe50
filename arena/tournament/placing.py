"""Placing the rounds of a Swiss on a resolvable design: a relabelling under which each
round played is a parallel class of the design (`arena.tournament.anchor` uses it).

`embed` is a backtracking search over bots: each pair of bots that shared a table in a
round must lie on a block of that round's class; once two rounds are placed, a bot's
point is the meeting point of two blocks, so the search is nearly forced in the
symmetric designs (the affine planes and spaces). It restarts with seeded orders and is
bounded (`SEARCH_NODES`), so rounds that do not fit (paired by an older arena) give up at
a known, deterministic cost. The Kirkman systems have few symmetries, and there a wrong
early choice can cost an exhaustive subtree; whole rounds are then placed class by class
(`by_isomorphism`): a round may only be a class that crosses the other rounds' classes
as it crosses those rounds (`meeting_profile`, kept by any relabelling), and each prefix
is matched by labelled graph isomorphism (networkx's VF2++).
"""

from __future__ import annotations

import functools
import itertools
import random
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar, cast

from arena.tournament.designs import resolvable

if TYPE_CHECKING:
    import networkx as nx

SEARCH_NODES = 20_000
"""A placing search of the played rounds gives up after this many assignments
(deterministic, unlike a time limit); where they fit, a placing of 64 bots is found in
about one assignment per bot, of the 15 of the Kirkman system in at most about 300."""
ISOMORPHISM_TRIES = 40
"""`by_isomorphism` checks at most this many assignments of classes to rounds."""
Tables = Sequence[Sequence[str]]
T = TypeVar("T", bound=Hashable)


@dataclass(frozen=True, slots=True)
class Design:
    """A perfect resolvable design on points 0..n-1, indexed for the placing search."""

    size: int
    line: tuple[tuple[int, ...], ...]
    """line[p][q]: the class of the one block holding p and q (-1 where p == q)."""
    block: tuple[tuple[int, ...], ...]
    """block[c][p]: which block of class c holds p."""
    members: tuple[tuple[tuple[int, ...], ...], ...]
    """members[c][j]: the points of block j of class c."""
    mask: tuple[tuple[int, ...], ...]
    """mask[c][p]: the other points of p's block of class c, as bits (the search works on
    sets of points as integers: an intersection is one AND, about 10x faster than sets)."""

    @property
    def points(self) -> int:
        return len(self.line)

    @property
    def classes(self) -> int:
        return len(self.members)


@functools.cache
def design_for(n: int, size: int) -> Design | None:
    """The design `designs.resolvable` builds for n bots at tables of `size`, or None."""
    rounds = resolvable([str(i) for i in range(n)], size)
    if rounds is None:
        return None
    line = [[-1] * n for _ in range(n)]
    block = [[0] * n for _ in rounds]
    mask = [[0] * n for _ in rounds]
    members = []
    for c, tables in enumerate(rounds):
        points = [tuple(sorted(int(b) for b in t)) for t in tables]
        members.append(tuple(points))
        for j, table in enumerate(points):
            bits = sum(1 << p for p in table)
            for p in table:
                block[c][p], mask[c][p] = j, bits & ~(1 << p)
                for q in table:
                    if p != q:
                        line[p][q] = c
    return Design(size, tuple(map(tuple, line)), tuple(map(tuple, block)), tuple(members),
                  tuple(map(tuple, mask)))


def meeting_profile(first: Sequence[Sequence[T]], where: Mapping[T, int]) -> tuple[
        tuple[int, ...], ...]:
    """How two partitions of one set cross, as an invariant of relabelling: for each part
    of `first`, how many parts of the second (`where`: each element's part) it shares with
    each other part of `first`, sorted.

    Two rounds can be two classes of a design only if they cross as those classes do; in
    the Kirkman systems of 21 to 63 bots the ordered pairs of classes cross in 6 to 16
    different ways, so checking it prunes most wrong pairs of classes before any placing
    is tried (in the search, and in `by_isomorphism`, where it matters most)."""
    parts = [frozenset(where[x] for x in part) for part in first]
    return tuple(sorted(tuple(sorted(len(a & b) for b in parts if b is not a)) for a in parts))


@functools.cache
def class_profile(n: int, size: int, first: int, second: int) -> tuple[
        tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...]]:
    """`meeting_profile` of two classes of the design for n bots at tables of `size`, both
    ways round."""
    design = design_for(n, size)
    assert design is not None
    return (meeting_profile(design.members[first], dict(enumerate(design.block[second]))),
            meeting_profile(design.members[second], dict(enumerate(design.block[first]))))


@dataclass(frozen=True, slots=True)
class Placing:
    """Bots placed on a design's points, and the class each round is."""

    point: Mapping[str, int]
    kind: tuple[int, ...]
    """The class of each round fitted (-1: not yet fixed, a partial round of one bot)."""


def embed(design: Design, rounds: Sequence[Tables], hint: Placing | None = None,
          budget: int = SEARCH_NODES) -> Placing | None:
    """A placing under which every table of `rounds` lies in a block of its round's class,
    the rounds in distinct classes (the last round may be partial), or None when there is
    none or the search spent `budget` assignments. Tried first: the points of `hint`.

    The search restarts with the points tried in another (seeded) order, each try allowed
    twice the assignments of the one before, starting from one per point: a wrong early
    choice can cost an exhaustive subtree (49 bots at tables of 7: one search of 4,000
    assignments missed placings that restarts find in a few hundred). Where that fails
    and the rounds are whole, `by_isomorphism` is tried (the Kirkman systems, whose few
    symmetries leave the bot-by-bot search lost in wrong subtrees)."""
    allowed, left = design.points, budget
    for attempt in itertools.count():
        allowed = min(allowed, left)
        order = random.Random(attempt) if attempt else None
        found = _Search(design, rounds, hint, allowed, order).run()
        left -= allowed
        if found is not None:
            return found
        if left <= 0:
            break
        allowed *= 2
    if budget < SEARCH_NODES:  # a candidate's check: not worth the fallback
        return None
    return by_isomorphism(design, rounds)


def by_isomorphism(design: Design, rounds: Sequence[Tables],
                   tries: int = ISOMORPHISM_TRIES) -> Placing | None:
    """A placing of whole `rounds` found class by class: each round is given a class that
    crosses the classes given to the earlier rounds as it crosses those rounds
    (`meeting_profile`), and the rounds so far are matched to their classes by a labelled
    graph isomorphism (VF2++, networkx) of bots and tables to points and blocks before
    the next round is given one; at most `tries` isomorphisms. None if a round is not
    whole."""
    if any(sum(map(len, tables)) != design.points for tables in rounds):
        return None
    import networkx as nx  # as in `swiss`: imported where used, it is slow to import

    kinds: list[int] = []
    count = 0

    def matched() -> dict[tuple[object, ...], tuple[object, ...]] | None:
        """A labelled isomorphism between the rounds given classes so far and those
        classes' blocks, or None."""
        nonlocal count
        count += 1
        blocks = [[list(block) for block in design.members[c]] for c in kinds]
        return nx.vf2pp_isomorphism(_incidence(rounds[:len(kinds)]), _incidence(blocks),
                                    node_label="label")

    def assign() -> Placing | None:
        i = len(kinds)
        for c in range(design.classes):
            if c in kinds or not all(
                    _profile(rounds, i, j) == class_profile(design.points, design.size, c, e)
                    for j, e in enumerate(kinds)):
                continue
            kinds.append(c)
            # every prefix must match already: prune a wrong class before extending it
            mapping = matched() if len(kinds) >= 2 or len(kinds) == len(rounds) else {}
            found: Placing | None = None
            if mapping is not None and len(kinds) == len(rounds):
                point = {cast(str, node[1]): cast(int, target[1])
                         for node, target in mapping.items() if node[0] == "bot"}
                found = Placing(point, tuple(kinds))
            elif mapping is not None and count < tries:
                found = assign()
            kinds.pop()
            if found is not None or count >= tries:
                return found
        return None

    return assign()


def _incidence(rounds: Sequence[Sequence[Sequence[object]]]) -> nx.Graph[tuple[object, ...]]:
    """The bots (or points) and the tables (or blocks) of `rounds`, each table joined to
    its members and labelled by its round."""
    import networkx as nx

    graph: nx.Graph[tuple[object, ...]] = nx.Graph()
    for i, tables in enumerate(rounds):
        for j, table in enumerate(tables):
            graph.add_node(("table", i, j), label=i)
            for member in table:
                graph.add_node(("bot", member), label=-1)
                graph.add_edge(("table", i, j), ("bot", member))
    return graph


@functools.lru_cache(maxsize=4096)
def _profile_cached(key: tuple[tuple[tuple[str, ...], ...], tuple[tuple[str, ...], ...]]
                    ) -> tuple[object, object]:
    first, second = key
    return (meeting_profile(first, _parts(second)), meeting_profile(second, _parts(first)))


def _profile(rounds: Sequence[Tables], i: int, j: int) -> tuple[object, object]:
    return _profile_cached((tuple(map(tuple, rounds[i])), tuple(map(tuple, rounds[j]))))


class _Search:
    """Backtracking over bots, most constrained first (the fewest points left)."""

    def __init__(self, design: Design, rounds: Sequence[Tables], hint: Placing | None,
                 budget: int, order: random.Random | None = None) -> None:
        self.d, self.budget, self.order = design, budget, order
        self.prefer = dict(hint.point) if hint is not None else {}
        self.mates: dict[str, list[tuple[str, int]]] = {}
        for i, tables in enumerate(rounds):
            for table in tables:
                for a in table:
                    self.mates.setdefault(a, []).extend((b, i) for b in table if b != a)
        self.bots = sorted(self.mates)
        self.rounds = rounds
        self.whole = [sum(map(len, tables)) == design.points for tables in rounds]
        self.profiles: dict[tuple[int, int], tuple[object, object]] = {}
        self.point: dict[str, int] = {}
        self.free = (1 << design.points) - 1
        self.kind = [-1] * len(rounds)

    def run(self) -> Placing | None:
        if len(self.bots) > self.d.points or len(self.kind) > self.d.classes:
            return None
        if not self._place():
            return None
        return Placing(dict(self.point), tuple(self.kind))

    def _options(self, bot: str) -> int:
        """The free points `bot` may take, as bits."""
        found = self.free
        mask = self.d.mask
        for mate, i in self.mates[bot]:
            p = self.point.get(mate)
            if p is None:
                continue
            c = self.kind[i]
            if c >= 0:
                found &= mask[c][p]
            else:  # the round's class is still open: off p's blocks of the classes taken
                found &= ~(1 << p)
                for taken in self.kind:
                    if taken >= 0:
                        found &= ~mask[taken][p]
            if not found:
                return 0
        return found

    def _place(self) -> bool:
        best: tuple[str, int, int] | None = None
        for bot in self.bots:
            if bot in self.point:
                continue
            options = self._options(bot)
            count = options.bit_count()
            if best is None or count < best[2]:
                best = bot, options, count
                if not count:
                    return False
        if best is None:
            return True
        bot, options, _ = best
        order = [q for q in range(self.d.points) if options >> q & 1]
        if self.order is not None:
            self.order.shuffle(order)
        want = self.prefer.get(bot)
        if want in order:
            order.remove(want)
            order.insert(0, want)
        for q in order:
            self.budget -= 1
            if self.budget < 0:
                return False
            fixed = self._fix_kinds(bot, q)
            if fixed is None:
                continue
            self.point[bot] = q
            self.free &= ~(1 << q)
            if self._place():
                return True
            del self.point[bot]
            self.free |= 1 << q
            for i in fixed:
                self.kind[i] = -1
            if self.budget < 0:
                return False
        return False

    def _fix_kinds(self, bot: str, q: int) -> list[int] | None:
        """Fix the classes that placing `bot` at q decides; the rounds fixed, or None
        when two rounds would share a class."""
        fixed: list[int] = []
        for mate, i in self.mates[bot]:
            p = self.point.get(mate)
            if p is None or self.kind[i] >= 0:
                continue
            c = self.d.line[p][q]
            if c in self.kind or not self._crosses(i, c):
                for j in fixed:
                    self.kind[j] = -1
                return None
            self.kind[i] = c
            fixed.append(i)
        return fixed

    def _crosses(self, i: int, c: int) -> bool:
        """Whether round i can be class c: it crosses every whole round of a fixed class
        as the two classes cross (`meeting_profile`)."""
        if not self.whole[i]:
            return True
        for j, e in enumerate(self.kind):
            if e < 0 or j == i or not self.whole[j]:
                continue
            key = (i, j)
            if key not in self.profiles:
                self.profiles[key] = (
                    meeting_profile(self.rounds[i], _parts(self.rounds[j])),
                    meeting_profile(self.rounds[j], _parts(self.rounds[i])))
            if self.profiles[key] != class_profile(self.d.points, self.d.size, c, e):
                return False
        return True


def _parts(tables: Tables) -> dict[str, int]:
    return {b: index for index, table in enumerate(tables) for b in table}
