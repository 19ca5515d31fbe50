"""The rank-by-rank dynamic programme behind the table solver.

After van Rijn, Takes and Vis, "The Complexity of Rummikub Problems" (arXiv:1604.07553).
The values are processed in order 1..14 (the ace is value 1 low and value 14 high; each ace
copy is used at one of them). At every value and suit the state holds the runs that are
still open: each described only by its length so far (1, 2 or "3 or more") and the jokers
it holds. Deciding a value means, per suit: extend each open run with a natural card or a
joker (filling a gap), or close it; start new runs; send copies into groups; leave hand
copies in hand (table copies must all be used). Then the copies sent to groups are split
into groups of 3-4 distinct suits, with jokers. The memo key is (value, suit, open runs,
ace copies kept for value 14, group copies so far at this value, jokers used), so the work
is polynomial in the number of values, not exponential in the cards.

Jokers. A run's jokers are gap jokers (between its natural cards, taken when the run is
extended) and extra jokers (added when it closes: their positions are free, above or
below). Every run starts with a natural card; a run reaching 3 only with extras gets them
at closing. At most `max_jokers` sit in one meld. Table jokers must all be placed, hand
jokers are optional (25 points each).

Speed, all exact: `RankDP._race` runs a bound-led search (branch and bound on the optional
points left) and the full programme by turns; states equal but for their jokers bound
each other (fewer placed and as much held is at least as good); dead states (groups that
cannot form, runs short of cards or jokers, table copies with nowhere to go, fewer jokers
left than each suit's cards need from here on: `dp_bound`) are cut early.

Imports only the standard library and this package.
"""

from __future__ import annotations

from itertools import product

from arena.games.rummy.cards import JOKER_INDEX, PENALTY, natural
from arena.games.rummy.dp_bound import UNIT, SuitBound
from arena.games.rummy.dp_build import Builder
from arena.games.rummy.dp_moves import NO_GROUPS, Moves
from arena.games.rummy.dp_race import Budget, OutOfBudget, Race, TurnOver
from arena.games.rummy.dp_steps import (
    LAST,
    NEG,
    RUNS_BITS,
    RUNS_MASK,
    Child,
    Groups,
    Key,
    Pend,
    card_at,
    group_options,
    suit_runs,
    useful,
)

__all__ = ["RACE_NODES", "OutOfBudget", "RankDP"]

RACE_NODES = 500
"""States of the first turn of each search in `RankDP._race` (then doubled every round)."""


class RankDP(Moves, Budget):
    """One search: `required` counts must all be placed, `optional` counts may be.

    The ace copies kept at value 1 for value 14 matter only at value 14, so the states of
    values 2..13 are solved once for all of them (a list of values, one per pend) instead
    of once per pend: this is what keeps tables with several aces fast.
    """

    def __init__(self, required: list[int], optional: list[int], max_jokers: int,
                 node_limit: int | None = None, deadline: float | None = None) -> None:
        self.req = required
        self.opt = useful(required, optional, max_jokers)
        self.jr = required[JOKER_INDEX]
        self.feasibility = not any(self.opt)
        """Nothing optional: every solution is worth the same, so the first one will do."""
        self.profiling = False
        self.satisfice = False
        """Any solution above the bound asked will do (`gains`): stop at the first one."""
        Budget.__init__(self, node_limit, deadline)
        self.race: Race | None = None
        """The race's progress (`_race`)."""
        self.resume = False
        """A call stopped by `node_limit` leaves the race where it was, for the next call
        to take up (else the next call starts it afresh)."""
        self.jokers = required[JOKER_INDEX] + optional[JOKER_INDEX]
        self.max_jokers = min(max_jokers, self.jokers)
        self.suit_bound: SuitBound | None = SuitBound(self.req, self.opt, self.jokers,
                                                      self.max_jokers)
        """The dead-state test of `dp_bound` (None: off, for measurements and tests)."""
        self.memo: dict[Key, int] = {}
        self.upper: dict[Key, int] = {}
        """Upper bounds of states whose search was cut off (branch and bound)."""
        self.rivals: dict[tuple[int, int, int, Pend, Groups],
                          list[tuple[int, int, int]]] = {}
        """Per state less its jokers: (jokers placed, placed plus room, bound) of each one
        searched. Fewer placed and as much held is at least as good (see `_best`)."""
        self.closing = {}
        """Per value's end (`_closing`): the jokers the open runs need."""
        self.group_memo = {}
        self.suffix = self._suffix()
        self.table_fits = useful(self.opt, self.req, self.max_jokers) == self.req
        """Every table card fits some meld (asked once, not at every turn of a race)."""
        self.copies = [[(self.req[card_at(value, suit)], self.opt[card_at(value, suit)])
                        if 1 <= value <= LAST else (0, 0) for suit in range(4)]
                       for value in range(LAST + 4)]
        """(table, hand) copies per value (to 3 past the high ace) and suit; read at value
        14 only for the pend (`_copies`). A table: the steps' tests ask them at every step
        met, and indexing the counts cost a call each."""
        self.avail = [[table + hand for table, hand in row] for row in self.copies]
        self.profiles: dict[Key, list[int]] = {}
        self.moves = {}
        self.steps = {}
        self.pends = self._pends()
        self.pend_id = {pend: i for i, pend in enumerate(self.pends)}
        self.pend_max: Pend = tuple((max(p[s][0] for p in self.pends),
                                     max(p[s][1] for p in self.pends)) for s in range(4))

    @property
    def start(self) -> Key:
        """The first state (its units under the bound's prices now, or with it off)."""
        units = 0 if self.suit_bound is None else self.suit_bound.total(1, 0, ((),) * 4)
        return (1, 0, 0, ((0, 0),) * 4, (0, 0, 0, 0), 0, 0, units)

    def _suffix(self) -> list[list[int]]:
        """Return, per value and suit, the optional points from there on (values 2..13)."""
        table = [[0] * 5 for _ in range(LAST + 2)]
        total = 0
        for value in range(LAST - 1, 1, -1):
            table[value][4] = total
            for suit in range(3, -1, -1):
                index = natural(value, suit)
                total += self.opt[index] * PENALTY[index]
                table[value][suit] = total
        table[1][4] = total
        aces = sum(self.opt[natural(1, suit)] * PENALTY[natural(1, suit)] for suit in range(4))
        for suit in range(5):
            table[1][suit] = total + aces
        return table

    def _bound(self, key: Key, pend: Pend) -> int:
        """Return an upper bound of the optional points placeable from `key` on."""
        value, suit = key[0], key[1]
        jokers = 25 * (self.jokers - self.jr)
        if value > LAST:
            return jokers
        aces = sum(pend[s][1] for s in range(suit if value == LAST else 0, 4)) * 11
        if value == 1:
            aces = 0
        elif value == LAST:
            return aces + jokers
        return self.suffix[value][suit] + aces + jokers

    def _pends(self) -> list[Pend]:
        """Return every pend value 1 can leave that value 14 might place.

        Each table ace kept for value 14 ends a run through a queen and a king of its
        suit: a missing one is a joker, at most `max_jokers` in a run, `jokers` in all.
        """
        per_suit = []
        for suit in range(4):
            req, opt = self.req[natural(1, suit)], self.opt[natural(1, suit)]
            options = {(max(0, req - t), opt - max(0, t - req)) for t in range(req + opt + 1)}
            per_suit.append(sorted(options))
        return [pend for pend in product(*per_suit) if self._placeable_high(pend)]

    def _placeable_high(self, pend: Pend) -> bool:
        total = 0
        for suit, (kept, _) in enumerate(pend):
            need = sum(max(0, kept - self.req[natural(rank, suit)] - self.opt[natural(rank, suit)])
                       for rank in (12, 13))
            if need > kept * self.max_jokers:
                return False
            total += need
        return total <= self.jokers

    def solve(self) -> int:
        """Return the most optional points placeable with all required cards (NEG: none)."""
        if not self.table_fits:
            return NEG  # a table card that fits no meld at all
        # a feasibility question races too: its bound-led turns stop at the first solution,
        # while proving that there is none is the full programme's job (a plain search took
        # seconds, the race a tenth of that, on the bench's hardest tables)
        return self._race()

    def gains(self) -> int:
        """Return the points of some solution that places optional cards, or a value <= 0
        when none does (NEG: not even the required cards can be placed).

        The feasibility question behind "may this seat draw?": `_race` with the bound-led
        search asked for more than nothing, which stops at its first solution above it,
        while the full programme's turns settle the tables where no play exists. A solution
        found early is not the best one, so the memo holds it as exact only on the path
        that found it; the search ends there (every caller up the path is satisfied at
        once), and the programme's turns never stop early.
        """
        if not self.table_fits:
            return NEG
        if self.feasibility:
            return 0  # nothing optional can be placed
        self.satisfice = True
        try:
            return self._race(floor=0)
        finally:
            self.satisfice = False

    def feasible(self) -> bool:
        """Return whether the required cards can all be placed, with any optional ones
        (stopping at the first solution met, which `melds` then rebuilds)."""
        if not self.table_fits:
            return False
        self.satisfice = True
        try:
            return self._race(floor=-1) > NEG
        finally:
            self.satisfice = False

    def _race(self, floor: int | None = None) -> int:
        """Run the bound-led search and the full programme by turns, budgets doubling.

        The bound-led search asks, round after round, whether the best play reaches the
        bound the last round proved (`_best` with `need` one below it): close to the bound
        nearly every branch is cut, so a table whose best play places (almost) every
        useful card is settled at once. Far from it the full programme (profiles over the
        ace copies kept) is quicker. Neither is told in advance, so each gets turns; what a
        turn settled stays in the memo, so a turn cut short loses only its open states.
        With a `floor`, the bound-led search asks only for more than it (`gains`).

        With `resume`, a call stopped by `node_limit` (`OutOfBudget`) is taken up by the
        next one where it stopped (`Race`): the draw check gives the table and its mirror
        a few hundred states at a time, and a race started afresh at every call gave the
        bound-led search no turn at all in turns shorter than the full programme's.
        """
        race = self.race
        if race is None or race.floor != floor or not self.resume:
            need = self._bound(self.start, self.start[3]) - 1 if floor is None else floor
            race = self.race = Race(floor, need, RACE_NODES, self.nodes + RACE_NODES)
        try:
            while True:
                self.profiling = race.profiling
                self.turn_limit = race.end
                try:
                    if race.profiling:
                        return self._value(self.start, self.start[3])
                    while True:
                        found = self._best(self.start, race.need)
                        if found > race.need or found <= NEG or floor is not None:
                            return found
                        race.need = found - 1
                except TurnOver:
                    pass
                race.next_turn(self.nodes)
        finally:
            self.turn_limit = None  # rebuilding the melds must not stop at a turn's end

    def _profiled(self, value: int) -> bool:
        # a feasibility question stops at its first solution: a plain search is quicker
        return self.profiling and 2 <= value < LAST

    def _children(self, key: Key) -> list[Child]:
        """Return (points, next state, choice) for every decision at `key`."""
        value, suit, runs, pend, groups, used, room, units = key
        left = self.jokers - used
        if suit == 4:
            return self._value_end(key, left)
        suit_pend = (pend or self.pend_max)[suit]
        # the memo read here, not in `_steps`: a call less at every state
        steps = self.steps.get((value, suit, runs >> (RUNS_BITS * suit) & RUNS_MASK,
                                suit_pend, left, groups))
        if steps is None:
            steps = self._steps(value, suit, suit_runs(runs, suit), suit_pend, left, groups)
        nxt = suit + 1
        return [(points, (value, nxt, runs + change,
                          pend if kept is None else pend[:suit] + (kept,) + pend[suit + 1:],
                          new_groups, placed, held if (held := room + more) < after_left
                          else after_left, units + delta), step)
                for points, change, kept, new_groups, after_left, placed, more, delta, most,
                step in steps
                if units <= most]

    def _value_end(self, key: Key, left: int) -> list[Child]:
        """Return `_children` at the end of a value: its group copies formed into groups."""
        value, _, runs, pend, groups, used, room, units = key
        nxt = () if self.profiling and 2 <= value + 1 < LAST else pend  # `_profiled`
        full = pend or self.pend_max
        short = self.closing.get((value, runs, full))  # the memo of `_closing`, a call less
        if short is None:
            short = self._closing(value, runs, full)
        if short > left:
            return []
        # the groups' own jokers come next: the open runs' and the bound's first
        after = self._units_after(value, units, groups)
        joint = max(short, -(-after // UNIT))
        if groups == NO_GROUPS:
            return [(0, (value + 1, 0, runs, nxt, groups, used, room, after), (0, 0, ()))]
        return [(0, (value + 1, 0, runs, nxt, (0, 0, 0, 0), used + extra,
                     min(room + more, left - extra), after), (extra, more, plan))
                for extra, more, plan in group_options(groups, left, self.max_jokers)
                if joint <= left - extra]

    def _final(self, used: int, room: int) -> int:
        """Value at the end: fill the room with jokers; every table joker must be placed."""
        total = used + min(room, self.jokers - used)
        return NEG if total < self.jr else 25 * (total - self.jr)

    def _value(self, key: Key, pend: Pend, need: int = NEG) -> int:
        """Return the value of `key` when the ace copies kept are `pend` (see `_best`)."""
        if self._profiled(key[0]):
            pid = self.pend_id.get(pend)
            return NEG if pid is None else self._profile(key)[pid]
        return self._best(key, need)

    def _best(self, key: Key, need: int = NEG) -> int:
        """Return the value of `key` if it is above `need`, else an upper bound <= `need`.

        Branch and bound: a state whose optional points left cannot beat `need` is not
        searched; its cut-off result is kept as a bound, so the memo stays exact.
        """
        hit = self.memo.get(key)
        if hit is not None:
            return hit
        if self.profiles and 2 <= key[0] < LAST:  # the full programme's turns may know it
            profile = self.profiles.get(key[:3] + ((),) + key[4:])
            if profile is not None:
                pid = self.pend_id.get(key[3])
                return NEG if pid is None else profile[pid]
        if need > NEG:
            bound = self.upper.get(key)
            if bound is None:
                bound = self._bound(key, key[3])
            if bound <= need:
                return bound
        used, held = key[5], key[5] + key[6]
        rivals = self.rivals.get(key[:5])
        if rivals is not None:
            for rival_used, rival_held, bound in rivals:
                if rival_used <= used and rival_held >= held and bound <= need:
                    return bound
        else:
            rivals = self.rivals[key[:5]] = []
        self.nodes += 1
        if self.nodes > self.stop:
            self.passed()
        if key[0] > LAST + 1:
            best = self._final(key[5], key[6])
        else:
            best = NEG
            stop_early = self.feasibility or (self.satisfice and not self.profiling)
            profiling, pend_id, pend = self.profiling, self.pend_id, key[3]
            for points, child, _ in self._children(key):
                # `_value` spelt out: a call less per child
                value = child[0]
                if profiling and 2 <= value < LAST:
                    pid = pend_id.get(child[3] or pend)
                    sub = NEG if pid is None else self._profile(child)[pid]
                else:
                    sub = self._best(child, (best if best > need else need) - points)
                if sub > NEG and sub + points > best:
                    best = sub + points
                    if stop_early and (self.feasibility or best > need):
                        break
        if best > need or best <= NEG:
            self.memo[key] = best
        else:
            self.upper[key] = best
        rivals.append((used, held, best))
        return best

    def _profile(self, key: Key) -> list[int]:
        """Return the values of `key` (values 2..13) for every pend (`pends`)."""
        return self.profiles.get(key) or self._new_profile(key)

    def _new_profile(self, key: Key) -> list[int]:
        """`_profile` of a state not in the memo (a profile is never empty)."""
        self.nodes += 1
        if self.nodes > self.stop:
            self.passed()
        best: list[int] | None = None
        profiles = self.profiles
        for points, child, _ in self._children(key):
            if child[0] < LAST:
                # the memo read here: a call less for the states met again
                sub = profiles.get(child) or self._new_profile(child)
            else:
                head, tail, best_of = child[:3], child[4:], self._best
                sub = [best_of((*head, pend, *tail)) for pend in self.pends]
            if points:
                sub = [NEG if s <= NEG else s + points for s in sub]
            # most states have one child: its profile is theirs, shared (never mutated);
            # the larger of two spelt out, not map(max): no call per pend (up to 39)
            best = sub if best is None \
                else [a if a >= b else b for a, b in zip(best, sub, strict=True)]
        if best is None:
            best = [NEG] * len(self.pends)
        self.profiles[key] = best
        return best

    def melds(self) -> list[list[str]]:
        """Rebuild the melds of the best solution (call after `solve` found one)."""
        builder = Builder(self.max_jokers)
        key, pend = self.start, self.start[3]
        while key[0] <= LAST + 1:
            target = self._value(key, pend)
            for points, child, step in self._children(key):
                child_pend = child[3] or pend
                if not self._profiled(child[0]):
                    child = child[:3] + (child_pend,) + child[4:]
                sub = self._value(child, child_pend, target - points - 1)
                if sub > NEG and sub + points == target:
                    builder.apply(key, step)
                    key, pend = child, child_pend
                    break
            else:
                raise AssertionError("no solution to rebuild")
        used, room = key[5], key[6]
        builder.fill(min(room, self.jokers - used))
        return builder.melds
