"""The table solver: find a legal play, and the best one, for a hand and a table.

A play rebuilds the whole table: every table card must end in a valid meld, and any subset
of the hand may join them. The best play places the most hand penalty points (so a joker,
25, is worth placing before an ace, 11).

Algorithm. Cards are counted in two pools of 53 counts: `required` (the table: every card
must be placed) and `optional` (the hand). The search takes the lowest required card (by
suit, then rank; jokers last); it must sit in some meld, so it branches over every meld
containing it that the two pools can supply (`melds_gen.melds_with`), taking each other
card from the required pool when it holds one (never worse: a required copy must be placed
anyway, an optional one may then still be placed elsewhere). Once nothing is required, it
takes the lowest optional card and either leaves it in hand or places it in a meld of
optional cards. The value of a state is memoised under the byte string of both pools, so
each multiset pair is solved once; the chosen meld is memoised too, to rebuild the table.
Hand cards that cannot be in any meld with the whole pool are dropped first.

Bounds: a node budget (deterministic, used by the engine's rules) and an optional wall
clock deadline (bots). When a bound stops the search, `solve` falls back to the best cheap
move (`moves.simple_plays`) and says the answer is not proven optimal.

Imports only the standard library and this package.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from arena.games.rummy.cards import CARD_TYPES, CODES, INDEX, JOKER_INDEX, PENALTY, natural
from arena.games.rummy.melds import canonical
from arena.games.rummy.melds_gen import Meld, melds_with
from arena.games.rummy.moves import simple_plays

NEG = -(10**9)
ORDER = tuple(natural(rank, suit) for rank in range(1, 14) for suit in range(4)) + (JOKER_INDEX,)
"""Cards are decided lowest rank first: every meld then holds only its lowest card and
cards not yet decided, so states differ only near the current rank and the memo hits."""
ENGINE_NODE_LIMIT = 20_000
"""Node budget of the rules' own questions (`draw_when_able: false`): deterministic."""


@dataclass(frozen=True, slots=True)
class Solution:
    """A play: the complete new table and what it places from the hand."""

    table: tuple[tuple[str, ...], ...]
    placed: tuple[str, ...]
    value: int
    """Hand penalty points placed."""
    optimal: bool
    """True when the search finished, so no play places more points."""
    nodes: int = 0


class _OutOfBudget(Exception):
    pass


class _Search:
    """One memoised search over (required, optional) card counts."""

    def __init__(self, required: list[int], optional: list[int], max_jokers: int,
                 node_limit: int | None, deadline: float | None) -> None:
        self.req = required
        self.opt = optional
        self.max_jokers = max_jokers
        self.node_limit = node_limit
        self.deadline = deadline
        self.nodes = 0
        self.memo: dict[bytes, tuple[int, Meld | None]] = {}

    def _avail(self, index: int) -> int:
        return self.req[index] + self.opt[index]

    def _tick(self) -> None:
        self.nodes += 1
        if self.node_limit is not None and self.nodes > self.node_limit:
            raise _OutOfBudget
        if self.deadline is not None and self.nodes % 256 == 0 \
                and time.perf_counter() > self.deadline:
            raise _OutOfBudget

    def _first(self) -> int | None:
        """Return the lowest card left (by rank, then suit; jokers last)."""
        for index in ORDER:
            if self.req[index] or self.opt[index]:
                return index
        return None

    def _take(self, meld: Meld, skip: int) -> tuple[list[int], int]:
        """Remove `meld` minus one `skip` card from the pools; return optional ones taken."""
        from_opt: list[int] = []
        skipped = False
        for index in meld:
            if index == skip and not skipped:
                skipped = True
                continue
            if self.req[index]:
                self.req[index] -= 1
            else:
                self.opt[index] -= 1
                from_opt.append(index)
        return from_opt, sum(PENALTY[i] for i in from_opt)

    def _put_back(self, meld: Meld, skip: int, from_opt: list[int]) -> None:
        rest = list(meld)
        rest.remove(skip)
        for index in from_opt:
            rest.remove(index)
            self.opt[index] += 1
        for index in rest:
            self.req[index] += 1

    def best(self) -> int:
        """Return the most optional points placeable with every required card placed."""
        key = bytes(self.req) + bytes(self.opt)
        hit = self.memo.get(key)
        if hit is not None:
            return hit[0]
        self._tick()
        card = self._first()
        if card is None:
            self.memo[key] = (0, None)
            return 0
        pool = self.req if self.req[card] else self.opt
        gain = 0 if pool is self.req else PENALTY[card]
        pool[card] -= 1
        value, choice = NEG, None
        if pool is self.opt:  # an optional card may stay in hand
            value = self.best()
        for meld in sorted(melds_with(card, self._avail, self.max_jokers)):
            from_opt, points = self._take(meld, card)
            sub = self.best()
            self._put_back(meld, card, from_opt)
            if sub > NEG and sub + points + gain > value:
                value, choice = sub + points + gain, meld
        pool[card] += 1
        self.memo[key] = (value, choice)
        return value

    def melds(self) -> list[Meld]:
        """Replay the memoised choices from the current pools; return the melds chosen."""
        chosen: list[Meld] = []
        while True:
            entry = self.memo.get(bytes(self.req) + bytes(self.opt))
            card = self._first()
            if card is None or entry is None:
                return chosen
            (self.req if self.req[card] else self.opt)[card] -= 1
            if entry[1] is not None:
                self._take(entry[1], card)
                chosen.append(entry[1])


def _counts(cards: Sequence[str]) -> list[int]:
    pool = [0] * CARD_TYPES
    for code in cards:
        pool[INDEX[code]] += 1
    return pool


def _useful(optional: list[int], required: list[int], max_jokers: int) -> list[int]:
    """Drop optional cards that fit no meld even with every card of both pools."""
    def avail(index: int) -> int:
        return required[index] + optional[index]

    kept = list(optional)
    for index in range(CARD_TYPES):
        if kept[index]:
            optional[index] -= 1
            if not melds_with(index, avail, max_jokers):
                kept[index] = 0
            optional[index] += 1
    return kept


def search_table(required: Sequence[str], optional: Sequence[str], max_jokers: int,
                 node_limit: int | None = None, deadline: float | None = None
                 ) -> tuple[int, list[tuple[str, ...]], int] | None:
    """Partition `required` plus a subset of `optional` into melds, maximising the subset.

    Returns (points placed, melds in canonical order, nodes) or None when `required` alone
    cannot be placed. Raises `_OutOfBudget` past a bound.
    """
    req = _counts(required)
    search = _Search(req, _useful(_counts(optional), req, max_jokers), max_jokers,
                     node_limit, deadline)
    value = search.best()
    if value <= NEG:
        return None
    melds = [canonical([CODES[i] for i in meld]) for meld in search.melds()]
    return value, melds, search.nodes


def solve(hand: Sequence[str], table: Sequence[Sequence[str]], max_jokers: int, *,
          keep_table: bool = False, node_limit: int | None = 200_000,
          time_limit: float | None = None) -> Solution | None:
    """Return the best play for `hand` on `table`, or None when there is none.

    `keep_table` (the opening rule) leaves the table's melds untouched and only adds melds
    made from the hand. When a bound stops the search, the best cheap move is returned with
    `optimal` False (None if there is no cheap move either).
    """
    deadline = None if time_limit is None else time.perf_counter() + time_limit
    required = [] if keep_table else [c for meld in table for c in meld]
    try:
        found = search_table(required, hand, max_jokers, node_limit, deadline)
    except _OutOfBudget:
        return _fallback(hand, table, max_jokers, keep_table)
    if found is None or found[0] <= 0:
        return None
    value, melds, nodes = found
    new_table = [tuple(m) for m in table] + melds if keep_table else melds
    return Solution(tuple(new_table), placed_cards(table, new_table), value, True, nodes)


def find_play(hand: Sequence[str], table: Sequence[Sequence[str]], max_jokers: int, *,
              keep_table: bool = False, node_limit: int | None = ENGINE_NODE_LIMIT
              ) -> Solution | None:
    """Return some legal play, cheap moves first; None when none exists (or none was found
    within `node_limit`, which then counts as none: the budget makes the answer
    deterministic)."""
    cheap = simple_plays(hand, table, max_jokers, keep_table=keep_table, limit=1)
    if cheap:
        return _as_solution(table, cheap[0], optimal=False)
    return solve(hand, table, max_jokers, keep_table=keep_table, node_limit=node_limit)


def _fallback(hand: Sequence[str], table: Sequence[Sequence[str]], max_jokers: int,
              keep_table: bool) -> Solution | None:
    plays = simple_plays(hand, table, max_jokers, keep_table=keep_table)
    if not plays:
        return None
    return max((_as_solution(table, p, optimal=False) for p in plays), key=lambda s: s.value)


def _as_solution(table: Sequence[Sequence[str]], new_table: Sequence[Sequence[str]],
                 optimal: bool) -> Solution:
    placed = placed_cards(table, new_table)
    return Solution(tuple(tuple(m) for m in new_table), placed,
                    sum(PENALTY[INDEX[c]] for c in placed), optimal)


def placed_cards(table: Sequence[Sequence[str]], new_table: Sequence[Sequence[str]]
            ) -> tuple[str, ...]:
    before = _counts([c for m in table for c in m])
    after = _counts([c for m in new_table for c in m])
    return tuple(CODES[i] for i in range(CARD_TYPES) for _ in range(after[i] - before[i]))


