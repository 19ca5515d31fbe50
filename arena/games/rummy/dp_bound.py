"""Jokers each suit's cards need at least: a dead-state test for the rank-by-rank programme
(`dp`).

On late-game tables (60 cards, two jokers, seven aces) about 95% of the programme's states
are dead, mostly because jokers went into early melds (or runs were left open) while the
cards above cannot be placed without more jokers than are left. This test reads each suit
alone: from a value on, the suit's cards go into its own runs (the open ones, or new ones)
or into groups. A run's jokers (gap jokers, and the extras a short run takes when it
closes) belong to its suit. The groups of a value are priced (a Lagrangian relaxation): a
copy of suit s sent to a group at value v costs `price[s][v]` (any sign), and the value's
groups bring back `base[v]`, the least of (the jokers its groups need, less the prices of
their cards) over every way of sending copies to groups. The fewest units each suit needs,
as a function of its open runs, is a small programme over that suit alone, worked out
state by state as the search asks, then in one pass once it asks many (`need`, `_solve`);
the bound of a state is their sum plus the bases still to come.

Why it is a lower bound, whatever the prices: in any solution each suit's decisions are
steps of that suit's programme, each run joker belongs to one suit, and the jokers of the
groups of value v are at least base[v] plus the prices of the copies sent to them. The
first prices are the plain shares (a copy sent to a group of a rank only s < 3 suits hold
brings (3 - s) / s of a joker; nothing when three suits hold it); `tighten` then moves them
by subgradient steps towards a higher bound at the start (what it buys: docs/rummy.md).
Table aces may sit at value 1 or 14, so neither end requires them here.

Imports only the standard library and this package.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import product

from arena.games.rummy.dp_steps import (
    LAST,
    Groups,
    SuitRuns,
    SuitStep,
    card_at,
    group_options,
    suit_steps,
)

INFINITE = 10**6
UNIT = 12
"""Units of one joker: prices and bounds are whole units (12 holds the halves and thirds
of the plain shares exactly)."""
PRICE_CAP = 4 * UNIT
"""Prices stay within four jokers either way (any prices give a valid bound; this keeps
sums far from `INFINITE`)."""
Node = tuple[int, SuitRuns, list[tuple[int, int, int]]]
"""A state of one suit's programme: (value, open runs, steps as (units of run jokers,
group copies, index of the next state))."""
Layers = tuple[list[int], list[tuple[int, list[tuple[int, list[tuple[int, int, int]]]]]]]
"""A suit's programme laid out for `SuitBound._solve` (`suit_layers`): the units of its
end states (the others' placeholders), then per value from the last down, its states as
(index, steps)."""
LAZY_STATES = 100
"""States of a suit's programme worked out one by one before the rest is solved in one
pass: a search that ends within a few dozen states (most going-out checks) needs few of
them, while a long one needs nearly all, which one pass works out far quicker (`_solve`)."""
NO_RUNS: tuple[SuitRuns, ...] = ((), (), (), ())


class SuitBound:
    """Per (value, suit, open runs of the suit): the fewest units of jokers (`UNIT` a
    joker) that the suit's cards need from that value on, its group copies priced."""

    def __init__(self, required: list[int], optional: list[int], jokers: int,
                 max_jokers: int) -> None:
        self.req, self.opt = required, optional
        self.jokers, self.max_jokers = jokers, max_jokers
        self.memo: dict[tuple[int, int, SuitRuns], int] = {}
        self.graphs: list[list[Node]] = [[] for _ in range(4)]
        self.layers: list[Layers | None] = [None] * 4
        self.keys: list[list[tuple[int, int, SuitRuns]]] = [[] for _ in range(4)]
        """Per suit, the memo's key of each state of `graphs` (built once: `tighten` fills
        the memo from the graph every round)."""
        self.avail = [[self._avail(value, suit) for value in range(LAST + 2)]
                      for suit in range(4)]
        self.low = [[0 if value in (1, LAST) or value > LAST else self.req[card_at(value, suit)]
                     for value in range(LAST + 2)] for suit in range(4)]
        """Copies a suit's step must use at a value (`_steps`, asked at every step of its
        programme, so a table)."""
        self.splits: list[list[tuple[Groups, int]] | None] = [None] * (LAST + 2)
        """Per value, once asked: (copies per suit, units of jokers) of each way its group
        copies can form groups; [] past the aces' groups."""
        self.cap = [[-1] * (LAST + 2) for _ in range(4)]
        """Most copies of a suit that any way of forming groups at a value takes (-1: not
        worked out yet; most searches ask few values)."""
        self.price = [[self._share(value) for value in range(LAST + 2)] for _ in range(4)]
        self.plain = True
        """The prices are the shares, so every base is 0: a group of n natural cards of a
        rank s suits hold (n <= s) holds at least 3 - n >= n (3 - s) / s jokers."""
        self.rest: list[int] = []
        self.lazy = [0] * 4
        """Per suit, the states `need` worked out one by one under the prices: past
        `LAZY_STATES`, the whole programme is solved in one pass instead."""
        self._settle()

    def _avail(self, value: int, suit: int) -> int:
        if value > LAST:
            return 0
        index = card_at(value, suit)
        return self.req[index] + self.opt[index]

    def _splits(self, value: int) -> list[tuple[Groups, int]]:
        known = self.splits[value]
        if known is not None:
            return known
        out: list[tuple[Groups, int]] = []
        self.splits[value] = out
        if value >= LAST:
            return out
        for x in product(*(range(self.avail[s][value] + 1) for s in range(4))):
            copies: Groups = (x[0], x[1], x[2], x[3])
            options = group_options(copies, self.jokers, self.max_jokers)
            if options:
                out.append((copies, UNIT * min(option[0] for option in options)))
        return out

    def _share(self, value: int) -> int:
        """Units of a joker each natural card of a group at `value` brings at least."""
        suits = sum(1 for t in range(4) if self.avail[t][value] > 0)
        if suits == 0 or suits >= 3:
            return 0
        return UNIT * (3 - suits) // suits

    def _settle(self) -> None:
        """Recompute the bases for the prices, and forget the suits' programmes."""
        base = [0] * (LAST + 3)
        for value in range(1, LAST) if not self.plain else ():
            p0, p1, p2, p3 = (self.price[s][value] for s in range(4))
            # spelt out, not zip and sum: `tighten` settles every round (a third of its time)
            base[value] = min(units - p0 * x[0] - p1 * x[1] - p2 * x[2] - p3 * x[3]
                              for x, units in self._splits(value))
        self.rest = [sum(base[value:]) for value in range(LAST + 3)]
        self.memo.clear()
        self.lazy = [0] * 4

    def need(self, value: int, suit: int, runs: SuitRuns) -> int:
        """Return the fewest units `suit` needs from `value` on, with the open runs `runs`
        coming in (`INFINITE` or more when no number will do)."""
        hit = self.memo.get((value, suit, runs))
        if hit is not None:
            return hit
        if self.lazy[suit] >= LAZY_STATES:
            self._solve(suit)
            hit = self.memo.get((value, suit, runs))
            if hit is not None:
                return hit
        self.lazy[suit] += 1
        hit = INFINITE
        if value > LAST + 1:
            hit = 0 if not runs else INFINITE
        elif self.plain:  # no price below 0: a step dearer than the best so far is skipped
            price = self.price[suit][value]
            cap = self.cap[suit][value]
            cap = cap if cap >= 0 else self._cap(suit, value)
            for step in self._steps(value, suit, runs):
                cost = UNIT * step.jokers + step.grouped * price
                if cost < hit and step.grouped <= cap:
                    hit = min(hit, cost + self.need(value + 1, suit, step.runs))
        else:
            hit = min((self.step_cost(value, suit, step.jokers, step.grouped)
                       + self.need(value + 1, suit, step.runs)
                       for step in self._steps(value, suit, runs)), default=INFINITE)
        self.memo[(value, suit, runs)] = hit
        return hit

    def _steps(self, value: int, suit: int, runs: SuitRuns) -> tuple[SuitStep, ...]:
        """Return the suit's steps at `value` (up to value 15, where runs close): table
        copies all used, but aces, which may sit at either end."""
        return suit_steps(runs, self.avail[suit][value], self.low[suit][value], self.jokers,
                          self.max_jokers, value)

    def _graph(self, suit: int) -> list[Node]:
        """Return the suit's programme (`suit_graph`) for its copies, the copies its steps
        must use and the most copies its steps may send to groups, per value."""
        graph = self.graphs[suit]
        if not graph:
            graph = self.graphs[suit] = suit_graph(*self._programme(suit))
        return graph

    def _layers(self, suit: int) -> Layers:
        """Return the suit's programme laid out for `_solve` (`suit_layers`)."""
        layers = self.layers[suit]
        if layers is None:
            layers = self.layers[suit] = suit_layers(*self._programme(suit))
        return layers

    def _programme(self, suit: int) -> tuple[tuple[int, ...], tuple[int, ...],
                                             tuple[int, ...], int, int]:
        caps = tuple(self._cap(suit, value) if 1 <= value <= LAST + 1 else 0
                     for value in range(LAST + 2))
        return (tuple(self.avail[suit]), tuple(self.low[suit]), caps, self.jokers,
                self.max_jokers)

    def _solve(self, suit: int, fill: bool = True) -> tuple[int, list[int]]:
        """Work out the fewest units of `suit` from every state of its programme under the
        prices, all states at once (what `need` does lazily, in one pass), into the memo
        unless `fill` is off (`tighten` reads only the start's). Return the start's units
        and the group copies per value of a cheapest path from it (the prices'
        subgradient)."""
        graph = self._graph(suit)
        ends, layers = self._layers(suit)
        best = list(ends)
        price = self.price[suit]
        # no choice kept per node (a third of the loop's time): the one path the
        # subgradient needs is traced afterwards
        for value, nodes in layers:
            unit = price[value]
            for i, steps in nodes:
                cost = INFINITE
                for units, grouped, child in steps:
                    total = units + grouped * unit + best[child]
                    if total < cost:
                        cost = total
                best[i] = cost
        if fill:
            keys = self.keys[suit]
            if not keys:
                keys += [(value, suit, runs) for value, runs, _ in graph]
            self.memo.update(zip(keys, best, strict=True))
        copies = [0] * (LAST + 2)
        i = 0
        while graph[i][0] <= LAST + 1 and best[i] < INFINITE:
            value, _, steps = graph[i]
            unit, target = price[value], best[i]
            # the first cheapest step, by a loop: `next` over a generator cost a fifth of a pass
            for units, grouped, child in steps:
                if units + grouped * unit + best[child] == target:
                    break
            copies[value], i = grouped, child
        return best[0], copies

    def _cap(self, suit: int, value: int) -> int:
        if self.cap[suit][value] < 0:
            splits = self._splits(value)
            for s in range(4):
                self.cap[s][value] = max((x[s] for x, _ in splits), default=0)
        return self.cap[suit][value]

    def step_cost(self, value: int, suit: int, jokers: int, grouped: int) -> int:
        """Return the units one step of `suit` at `value` costs: its run jokers and the
        prices of its group copies."""
        cap = self.cap[suit][value]
        if grouped > (cap if cap >= 0 else self._cap(suit, value)):
            return INFINITE
        return UNIT * jokers + grouped * self.price[suit][value]

    def total(self, value: int, suit: int, runs: tuple[SuitRuns, ...],
              groups: Groups = (0, 0, 0, 0)) -> int:
        """Return the units a state deciding `suit` at `value` needs: the suits before it
        have decided `value` already (sending `groups` copies to its groups)."""
        need, price = self.need, self.price
        total = self.rest[value]
        for s in range(4):
            if s < suit:
                total += need(value + 1, s, runs[s]) + price[s][value] * groups[s]
            else:
                total += need(value, s, runs[s])
        return total

    def tighten(self, rounds: int, trial: int) -> int:
        """Move the prices by up to `rounds` subgradient steps towards a higher bound at
        the start, keep the best prices met, and return that bound (units). Stop after
        `trial` rounds that did not raise the bound above the first prices', or once it
        shows there is no solution.

        The steps are Polyak's, aimed at half a joker more than there are, each along the
        subgradient plus half the step before (a deflected subgradient: the plain steps
        zig-zagged, the bound falling every other round); the prices move as fractions
        and are rounded to units, since any prices give a valid bound. On bench/rummy.py's
        slowest positions (235 cards) 12 such rounds proved 110 cards out by the bound
        alone, where the plain steps proved 58 in 12 rounds and 154 in 50.
        """
        first = best_bound = -INFINITE
        best_price: list[list[int]] = []
        target = UNIT * self.jokers + UNIT // 2
        exact = [[float(p) for p in row] for row in self.price]
        before: list[list[float]] | None = None
        for done in range(rounds + 1):
            solved = [self._solve(suit, fill=False) for suit in range(4)]
            bound = self.rest[1] + sum(start for start, _ in solved)
            grad = [copies for _, copies in solved]
            first = bound if done == 0 else first
            if bound > best_bound:
                best_bound, best_price = bound, [list(p) for p in self.price]
            if bound > UNIT * self.jokers or done == rounds \
                    or (done == trial and best_bound <= first):
                break  # no solution (enough said), or no more rounds
            direction = self._direction(grad, before)
            norm = sum(g * g for row in direction for g in row)
            if norm == 0:
                break
            before, step = direction, (target - bound) / norm
            for s in range(4):
                for value in range(1, LAST):
                    price = max(-PRICE_CAP, min(PRICE_CAP, exact[s][value]
                                                + step * direction[s][value]))
                    exact[s][value], self.price[s][value] = price, round(price)
            self.plain = False
            self._settle()
        if best_price != self.price:
            self.use_prices(best_price)
        return best_bound

    def _direction(self, grad: list[list[int]], before: list[list[float]] | None
                   ) -> list[list[float]]:
        """Return the step's direction: the subgradient (the suits' group copies on their
        cheapest paths less those of the bases, `grad` holding the former) plus half the
        direction of the step before."""
        out = [[0.0] * (LAST + 2) for _ in range(4)]
        for value in range(1, LAST):
            copies = self._base_copies(value)
            for s in range(4):
                out[s][value] = grad[s][value] - copies[s] \
                    + (0.0 if before is None else before[s][value] / 2)
        return out

    def use_prices(self, price: list[list[int]]) -> None:
        """Take `price` (per suit and value, in units) as the prices: any prices give a
        valid bound (the check starts a card's prices from the last card's)."""
        self.price = [list(row) for row in price]
        self.plain = False
        self._settle()

    def take_mirrored(self, other: SuitBound) -> None:
        """Use the prices of `other`, the bound of the mirrored cards (`cards.mirrored`):
        value v there is value 15 - v here, the aces' groups staying at value 1. The
        mirror's programme is this one read downwards, so its bound at the start is the
        same and the prices need no rounds of their own."""
        for suit in range(4):
            self.price[suit][1] = other.price[suit][1]
            for value in range(2, LAST):
                self.price[suit][value] = other.price[suit][LAST + 1 - value]
        self.plain = False
        self._settle()

    def _base_copies(self, value: int) -> Groups:
        """Return the copies of a way of forming groups at `value` that reaches its base."""
        p0, p1, p2, p3 = (self.price[s][value] for s in range(4))
        return min(self._splits(value), key=lambda split: split[1] - p0 * split[0][0]
                   - p1 * split[0][1] - p2 * split[0][2] - p3 * split[0][3])[0]


@lru_cache(maxsize=256)
def suit_graph(avail: tuple[int, ...], low: tuple[int, ...], caps: tuple[int, ...],
               jokers: int, max_jokers: int) -> list[Node]:
    """Return a suit's programme as (value, runs, steps) in order of value, each step
    (units of its run jokers, group copies, index of the state it leads to): `avail`
    copies per value, `low` of them to use at least, steps sending more copies to groups
    than `caps` (what any way of forming groups takes) left out, as no price makes them
    possible.

    Cached (never mutated by its readers): the check asks the same suit's programme of
    each hand card's search, the table the same but for the card's suit, and of the
    searches of a game's next turns; building it was a seventh of a check's time.
    """
    index: dict[tuple[int, SuitRuns], int] = {(1, ()): 0}
    graph: list[Node] = [(1, (), [])]
    for value, runs, steps in graph:  # grows while it is read: states in value order
        if value > LAST + 1:
            continue
        for step in suit_steps(runs, avail[value], low[value], jokers, max_jokers, value):
            child = (value + 1, step.runs)
            if child not in index:
                index[child] = len(graph)
                graph.append((value + 1, step.runs, []))
            if step.grouped <= caps[value]:
                steps.append((UNIT * step.jokers, step.grouped, index[child]))
    # steps into states with no way to the end are dropped (a quarter of them on a
    # 60-card table): no prices make such a state's units finite, and `_solve`, which
    # `tighten` runs four times a round, no longer reads them
    alive = [False] * len(graph)
    for i in range(len(graph) - 1, -1, -1):
        value, runs, steps = graph[i]
        if value > LAST + 1:
            alive[i] = not runs
        else:
            steps[:] = [step for step in steps if alive[step[2]]]
            alive[i] = bool(steps)
    return graph


@lru_cache(maxsize=256)
def suit_layers(avail: tuple[int, ...], low: tuple[int, ...], caps: tuple[int, ...],
                jokers: int, max_jokers: int) -> Layers:
    """Return the programme of `suit_graph` laid out for `SuitBound._solve`: the end
    states' units set once, and the other states grouped by value, last first, so a pass
    reads a value's price once and tests no state for its end (a pass over a 60-card
    table's suit: 60 -> 46 us in a loop of its own). Cached as `suit_graph` is, never
    mutated by its readers."""
    graph = suit_graph(avail, low, caps, jokers, max_jokers)
    ends = [(INFINITE if runs else 0) if value > LAST + 1 else INFINITE
            for value, runs, _ in graph]
    layers: list[tuple[int, list[tuple[int, list[tuple[int, int, int]]]]]] = []
    for i in range(len(graph) - 1, -1, -1):
        value, _, steps = graph[i]
        if value > LAST + 1:
            continue
        if not layers or layers[-1][0] != value:
            layers.append((value, []))
        layers[-1][1].append((i, steps))
    return ends, layers
