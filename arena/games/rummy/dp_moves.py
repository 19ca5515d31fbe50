"""The steps of one value and suit in the rank DP (`dp.RankDP`), memoised per search.

A step of a suit decides its copies of one value: which open runs it extends or closes,
which runs it starts, which copies go to groups, and what stays in hand (`dp_steps`).
Here the steps are filtered by cheap necessary tests (runs and table copies that can
still be placed, group copies that can still make groups, the jokers bound of `dp_bound`)
and kept per state less what the step does not read, which is what makes a state cheap.
Apart from `dp.py` so that each module holds one concern: this one what a state may do
next, that one the search over the states.

Imports only the standard library and this package.
"""

from __future__ import annotations

from arena.games.rummy.cards import PENALTY
from arena.games.rummy.dp_bound import UNIT, SuitBound
from arena.games.rummy.dp_steps import (
    LAST,
    RUNS_BITS,
    RUNS_MASK,
    RUNS_OF,
    Groups,
    Pend,
    SuitRuns,
    SuitStep,
    card_at,
    runs_id,
    shortness,
    suit_steps,
)

NO_GROUPS: Groups = (0, 0, 0, 0)

Move = tuple[int, int, tuple[int, int] | None, Groups, int, int, int, int, int,
             SuitStep]
"""A step of one suit (`Moves._steps`): (points, what it adds to the state's packed runs
(`dp_steps.pack_runs`): the id of the suit's open runs after less before, shifted), ace copies
kept at value 1 or None, group copies after, jokers left after, jokers placed after, room
it adds, units the bound's need changes by, most units the state may need for the step to
be live, the step). Jokers placed after is what the search's key holds: the step's memo
is per jokers left, so it is worked out once here, not at every state met."""


class Moves:
    """The step generation of a search; `dp.RankDP` sets these attributes in its
    `__init__` and adds the search."""

    jokers: int
    max_jokers: int
    suit_bound: SuitBound | None
    copies: list[list[tuple[int, int]]]
    """(table, hand) copies per value (to 3 past the high ace) and suit."""
    avail: list[list[int]]
    """Their sums (table and hand copies together)."""
    moves: dict[tuple[int, int, SuitRuns, tuple[int, int], int],
                list[tuple[int, SuitStep, tuple[int, int] | None, int]]]
    steps: dict[tuple[int, int, int, tuple[int, int], int, Groups], list[Move]]
    """Per value, suit, id of its open runs (`dp_steps.runs_id`), pend, jokers left and
    group copies so far: the live steps (`_steps`)."""
    closing: dict[tuple[int, int, Pend], int]
    group_memo: dict[tuple[int, int, Groups, int], bool]

    def _copies(self, value: int, suit: int, pend: tuple[int, int]) -> tuple[int, int]:
        if value == LAST:
            return pend
        return self.copies[value][suit]

    def _viable(self, runs: SuitRuns, value: int, suit: int, pend: tuple[int, int],
                jokers: int) -> bool:
        """Can the runs after a step, and the next value's table copies, still be placed?

        A cheap necessary test: short runs need cards (or jokers) at the next two values;
        each table copy of the next value extends an open run, starts a run (which needs
        the two values above it), or joins a group (which needs two cards of other suits).
        The copies are read off `avail` (at value 14 off the pend), not summed per call:
        every step of a state's suit met for the first time asks this.
        """
        avail = self.avail
        short, two = shortness(runs)
        if short:
            if short > (sum(pend) if value + 1 == LAST else avail[value + 1][suit]) + jokers:
                return False
            if two > (sum(pend) if value + 2 == LAST else avail[value + 2][suit]) + jokers:
                return False
        if value + 1 >= LAST:
            return True  # ace copies kept for value 14 are not known here in a profile
        need = self.copies[value + 1][suit][0] - len(runs)
        if need <= 0:
            return True
        starts = min(sum(pend) if value + 2 == LAST else avail[value + 2][suit],
                     sum(pend) if value + 3 == LAST else avail[value + 3][suit]) + jokers
        if need <= starts:
            return True
        row = avail[value + 1]
        others = sum(min(need, row[t]) for t in range(4) if t != suit)
        return need <= starts + (others + min(jokers, need * self.max_jokers)) // 2

    def _moves(self, value: int, suit: int, runs: SuitRuns, pend: tuple[int, int], left: int
               ) -> list[tuple[int, SuitStep, tuple[int, int] | None, int]]:
        """Return (points, step, ace copies kept or None, units the bound's need changes
        by) for one suit, viable steps only.

        The units of a child are its parent's plus the step's change: the other suits'
        part is the same after every step (it took a lookup of all four suits' runs per
        state, and most states missed it), and the change is worked out here, not per
        group copies of the other suits (`_steps`).
        """
        key = (value, suit, runs, pend, left)
        hit = self.moves.get(key)
        if hit is not None:
            return hit
        req, opt = self._copies(value, suit, pend)
        points = PENALTY[card_at(min(value, LAST), suit)]
        bound = self.suit_bound
        own = 0 if bound is None else bound.need(value, suit, runs)
        out: list[tuple[int, SuitStep, tuple[int, int] | None, int]] = []
        for step in suit_steps(runs, req + opt, 0 if value == 1 else req, left,
                               self.max_jokers, value):
            placed = max(0, step.used - req)
            kept = None
            if value == 1:
                kept = (max(0, req - step.used), opt - placed)
            if self._viable(step.runs, value, suit, pend if kept is None else kept,
                            left - step.jokers):
                delta = 0 if bound is None else bound.step_cost(value, suit, 0, step.grouped) \
                    + bound.need(value + 1, suit, step.runs) - own
                out.append((placed * points, step, kept, delta))
        # the richest first (sharper bounds sooner), then groups first: measured on the
        # bench positions, a feasibility search meets its first solution far sooner so
        out.sort(key=lambda move: (-move[0], -move[1].grouped))
        self.moves[key] = out
        return out

    def _closing(self, value: int, runs: int, pend: Pend) -> int:
        """Return, at the end of `value`, the jokers the open runs need at least to reach
        3 cards, all suits together (the short runs missing a card at the next value or
        the one after). Memoised: a value's end recurs with other jokers and group copies.
        """
        key = (value, runs, pend)
        hit = self.closing.get(key)
        if hit is not None:
            return hit
        short = 0
        avail = self.avail
        for suit in range(4):
            if not runs >> (RUNS_BITS * suit) & RUNS_MASK:
                continue  # no open runs (id 0)
            few, two = shortness(RUNS_OF[runs >> (RUNS_BITS * suit) & RUNS_MASK])
            if few:
                short += max(0, few - (sum(pend[suit]) if value + 1 == LAST
                                       else avail[value + 1][suit]))
            if two:
                short += max(0, two - (sum(pend[suit]) if value + 2 == LAST
                                       else avail[value + 2][suit]))
        self.closing[key] = short
        return short

    def _units_after(self, value: int, units: int, groups: Groups) -> int:
        """Return the units of the bound (`dp_bound`) at the start of the next value, for
        a state at the end of `value` needing `units` with `groups` copies sent to groups
        (0 with the bound off).

        The state's units are the suits' needs from the next value on, the bases from
        this one on and the prices of its group copies (`SuitBound.total`), so the next
        value's are those less this value's base and prices: arithmetic where summing the
        four suits' needs again took a call and four lookups at every value's end.
        """
        bound = self.suit_bound
        if bound is None:
            return 0
        after = units - bound.rest[value] + bound.rest[value + 1]
        if groups != NO_GROUPS:
            price = bound.price
            after -= price[0][value] * groups[0] + price[1][value] * groups[1] \
                + price[2][value] * groups[2] + price[3][value] * groups[3]
        return after

    def _groups_ok(self, value: int, suit: int, groups: Groups, left: int) -> bool:
        """Can the group copies so far still make groups? (a cheap necessary test)

        `groups` holds at least as many groups as its largest count (one copy of a suit
        per group), each of 3 cards: the copies sent, at most one per group from each suit
        still to decide, and the jokers the groups may hold must reach that.
        """
        key = (value, suit, groups, left)
        hit = self.group_memo.get(key)
        if hit is None:
            count = max(groups)
            cards = sum(groups) + min(count * self.max_jokers, left)
            for later in range(suit + 1, 4):
                cards += min(count, sum(self.copies[value][later]))
            hit = self.group_memo[key] = cards >= 3 * count
        return hit

    def _steps(self, value: int, suit: int, runs: SuitRuns, pend: tuple[int, int],
               left: int, groups: Groups) -> list[Move]:
        """Return `_moves` with the group copies after each, dead groups left out: a step
        is live when the state's units of jokers needed (`dp_bound`) after it are at most
        the jokers left (in units)."""
        before = runs_id(runs)
        key = (value, suit, before, pend, left, groups)
        hit = self.steps.get(key)
        if hit is not None:
            return hit
        out: list[Move] = []
        group_memo = self.group_memo
        shift = RUNS_BITS * suit
        for points, step, kept, delta in self._moves(value, suit, runs, pend, left):
            new_groups = groups
            if step.grouped:
                lst = list(groups)
                lst[suit] = step.grouped
                new_groups = (lst[0], lst[1], lst[2], lst[3])
            after_left = left - step.jokers
            if new_groups != NO_GROUPS:  # the memo of `_groups_ok` read here, a call less
                ok = group_memo.get((value, suit, new_groups, after_left))
                if not (self._groups_ok(value, suit, new_groups, after_left) if ok is None
                        else ok):
                    continue
            out.append((points, (runs_id(step.runs) - before) << shift, kept, new_groups,
                        after_left,
                        self.jokers - after_left, step.room, delta, UNIT * after_left - delta,
                        step))
        self.steps[key] = out
        return out

    def prices_changed(self) -> None:
        """Forget what was worked out under the bound's old prices (`SuitBound.tighten`).

        Before searching only: the states carry their units under the prices (`Key`), so
        a state met again under new ones would be searched again as another.
        """
        self.moves.clear()
        self.steps.clear()
        self.closing.clear()
