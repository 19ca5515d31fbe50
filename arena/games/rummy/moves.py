"""Cheap plays: a new meld made from the hand, or one hand card laid off onto a table meld.

These are what the random policy plays and what the solver tries before searching. Every
play returned is legal (each new or changed meld is checked by `melds.meld_problem`).
Imports only the standard library and this package.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from functools import lru_cache
from itertools import combinations

from arena.games.rummy.cards import CODES, INDEX, JOKER, natural, rank_of, suit_of
from arena.games.rummy.melds import canonical, meld_problem
from arena.games.rummy.melds_gen import run_cap

Table = tuple[tuple[str, ...], ...]


def hand_melds(hand: Sequence[str], max_jokers: int) -> list[tuple[str, ...]]:
    """Return the melds made only of hand cards, sorted: groups, and runs up to the solver's
    cap whose gaps (or one end) hold jokers."""
    have = {INDEX[code] for code in hand}
    jokers = min(max_jokers, sum(code == JOKER for code in hand))
    found: set[tuple[str, ...]] = set()
    for rank in range(1, 14):
        suits = [s for s in range(4) if natural(rank, s) in have]
        for size in range(1, len(suits) + 1):
            for subset in combinations(suits, size):
                for used in range(max(0, 3 - size), min(jokers, 4 - size) + 1):
                    found.add(canonical([CODES[natural(rank, s)] for s in subset]
                                        + [JOKER] * used))
    cap = run_cap(max_jokers)
    for suit in range(4):
        present = [False] + [natural(1 if p == 14 else p, suit) in have for p in range(1, 15)]
        for low in range(1, 14):
            if not present[low]:
                continue
            for high in range(low + 1, min(14, low + cap - 1) + 1):
                missing = sum(not present[p] for p in range(low, high + 1))
                if missing > jokers:
                    break
                if not present[high]:
                    continue
                cards = [CODES[natural(1 if p == 14 else p, suit)]
                         for p in range(low, high + 1) if present[p]]
                size = high - low + 1
                for extra in range(max(0, 3 - size), jokers - missing + 1):
                    if size + extra <= 13:
                        found.add(canonical(cards + [JOKER] * (missing + extra)))
    return sorted(found, key=lambda meld: [INDEX[c] for c in meld])


@lru_cache(maxsize=4096)
def _targets(meld: tuple[str, ...], max_jokers: int) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """Return (card, meld after) for every card that can be laid off onto `meld`."""
    naturals = [INDEX[code] for code in meld if code != JOKER]
    ranks = {rank_of(i) for i in naturals}
    suits = {suit_of(i) for i in naturals}
    out = []
    for code in CODES:
        index = INDEX[code]
        # only a joker, the meld's rank (a group) or its suit (a run) can join it
        if code != JOKER and ranks != {rank_of(index)} and suits != {suit_of(index)}:
            continue
        grown = (*meld, code)
        if meld_problem(grown, max_jokers) is None:
            out.append((code, canonical(grown)))
    return tuple(out)


def lay_offs(hand: Sequence[str], table: Sequence[Sequence[str]], max_jokers: int) -> list[Table]:
    """Return every table made by adding one hand card to one table meld."""
    plays: list[Table] = []
    kinds = set(hand)
    base = [tuple(meld) for meld in table]
    for m, meld in enumerate(base):
        for card, grown in _targets(meld, max_jokers):
            if card in kinds:
                new = list(base)
                new[m] = grown
                plays.append(tuple(new))
    return plays


def simple_plays(hand: Sequence[str], table: Sequence[Sequence[str]], max_jokers: int, *,
                 keep_table: bool = False, limit: int | None = None) -> list[Table]:
    """Return cheap legal plays: new melds from hand first, then lay-offs.

    `keep_table` (the opening rule) allows only new melds from hand. At most `limit` plays.
    """
    base = tuple(tuple(m) for m in table)
    plays: list[Table] = [(*base, meld) for meld in hand_melds(hand, max_jokers)]
    if not keep_table and (limit is None or len(plays) < limit):
        plays.extend(lay_offs(hand, table, max_jokers))
    return plays if limit is None else plays[:limit]


def hand_is_subset(cards: Sequence[str], hand: Sequence[str]) -> bool:
    """Return whether `cards` is a sub-multiset of `hand`."""
    return not Counter(cards) - Counter(hand)
