"""Every meld that contains a given card, drawn from a pool of card counts (solver helper).

Cards are indices (see `cards`): naturals 0..51, the joker 52. A pool is a list of 53
counts. Melds come out as sorted tuples of indices, each multiset once (a joker's role is
implied, so `5H 6H JK` is one meld whether the joker is the 4 or the 7).

Runs longer than `run_cap(max_jokers)` are never generated: with at most 2 jokers per meld,
any longer run splits into valid runs of 3..5 cards, so nothing is lost and the search
branches far less. Imports only the standard library and this package.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import combinations

from arena.games.rummy.cards import JOKER_INDEX, natural, rank_of, suit_of

Meld = tuple[int, ...]
Avail = Callable[[int], int]


def run_cap(max_jokers: int) -> int:
    """Return the longest run the solver needs to consider."""
    return 5 if max_jokers <= 2 else 13


def _rank_at(position: int) -> int:
    return 1 if position == 14 else position


def groups_with(rank: int, need_suit: int | None, avail: Avail, jokers: int,
                need_joker: bool) -> set[Meld]:
    """Return the groups of `rank` containing suit `need_suit` (or a joker, if None)."""
    out: set[Meld] = set()
    others = [natural(rank, s) for s in range(4)
              if s != need_suit and avail(natural(rank, s)) > 0]
    base = [] if need_suit is None else [natural(rank, need_suit)]
    low_j = 1 if need_joker else 0
    for k in range(len(others) + 1):
        for subset in combinations(others, k):
            naturals = len(base) + k
            if naturals == 0:
                continue
            for j in range(low_j, jokers + 1):
                if 3 <= naturals + j <= 4:
                    out.add(tuple(sorted([*base, *subset, *[JOKER_INDEX] * j])))
    return out


def runs_in_window(suit: int, low: int, high: int, avail: Avail, jokers: int,
                   fixed: int | None, need_joker: bool) -> set[Meld]:
    """Return the runs on positions low..high of `suit`, keeping position `fixed` natural."""
    present = [p for p in range(low, high + 1) if avail(natural(_rank_at(p), suit)) > 0
               or p == fixed]
    missing = (high - low + 1) - len(present)
    if missing > jokers:
        return set()
    out: set[Meld] = set()
    swappable = [p for p in present if p != fixed]
    for extra in range(0, jokers - missing + 1):
        if missing + extra == 0 and need_joker:
            continue
        for swapped in combinations(swappable, extra):
            kept = [natural(_rank_at(p), suit) for p in present if p not in swapped]
            if kept:
                out.add(tuple(sorted([*kept, *[JOKER_INDEX] * (missing + extra)])))
    return out


def melds_with(card: int, avail: Avail, max_jokers: int) -> set[Meld]:
    """Return every meld containing `card` whose other cards `avail` can supply.

    `avail(i)` counts the cards of index i on offer besides `card` itself.
    """
    jokers = min(max_jokers, avail(JOKER_INDEX) + (card == JOKER_INDEX))
    cap = run_cap(max_jokers)
    if card == JOKER_INDEX:
        return _melds_with_joker(avail, jokers, cap)
    rank, suit = rank_of(card), suit_of(card)
    out = groups_with(rank, suit, avail, jokers, need_joker=False)
    present = [False] + [avail(natural(_rank_at(p), suit)) > 0 for p in range(1, 15)]
    for position in ((1, 14) if rank == 1 else (rank,)):
        have = present[:]
        have[position] = True
        _runs_through(out, suit, position, have, jokers, cap)
    return out


def _runs_through(out: set[Meld], suit: int, position: int, have: list[bool], jokers: int,
                  cap: int) -> None:
    """Add the runs through `position` (kept natural) to `out`, growing windows outwards."""
    missing_low = 0
    for low in range(position, max(0, position - cap), -1):
        missing_low += not have[low]
        if missing_low > jokers:
            break
        missing = missing_low
        for high in range(position + 1, min(14, low + cap - 1) + 1):
            missing += not have[high]
            if missing > jokers:
                break
            if high - low >= 2:
                _window(out, suit, low, high, have, jokers - missing, missing, position)
        if low + 2 <= position <= 14 and position - low >= 2:
            _window(out, suit, low, position, have, jokers - missing_low, missing_low,
                    position)


def _window(out: set[Meld], suit: int, low: int, high: int, have: list[bool], spare: int,
            missing: int, fixed: int) -> None:
    present = [p for p in range(low, high + 1) if have[p]]
    out.add(tuple(sorted([natural(_rank_at(p), suit) for p in present]
                         + [JOKER_INDEX] * missing)))
    if spare <= 0:
        return
    swappable = [p for p in present if p != fixed]
    for extra in range(1, spare + 1):
        for swapped in combinations(swappable, extra):
            kept = [natural(_rank_at(p), suit) for p in present if p not in swapped]
            out.add(tuple(sorted([*kept, *[JOKER_INDEX] * (missing + extra)])))


def _melds_with_joker(avail: Avail, jokers: int, cap: int) -> set[Meld]:
    out: set[Meld] = set()
    if jokers < 1:
        return out
    for rank in range(1, 14):
        out |= groups_with(rank, None, avail, jokers, need_joker=True)
    for suit in range(4):
        for low in range(1, 13):
            for high in range(low + 2, min(14, low + cap - 1) + 1):
                out |= runs_in_window(suit, low, high, avail, jokers, None, True)
    return out
