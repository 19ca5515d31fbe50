"""Cheap plays: a new meld made from the hand, or one hand card laid off onto a table meld.

These are what the random policy plays and what the solver tries before searching. Every
play returned is legal (each new or changed meld is checked by `melds.meld_problem`).
Imports only the standard library and this package.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from arena.games.rummy.cards import CODES, INDEX, JOKER, rank_of, suit_of
from arena.games.rummy.melds import canonical, meld_problem
from arena.games.rummy.melds_gen import melds_with

Table = tuple[tuple[str, ...], ...]


def hand_melds(hand: Sequence[str], max_jokers: int) -> list[tuple[str, ...]]:
    """Return every meld (runs up to the solver's cap) made only of hand cards, sorted."""
    pool = [0] * len(CODES)
    for code in hand:
        pool[INDEX[code]] += 1
    found: set[tuple[int, ...]] = set()
    for index in sorted({INDEX[c] for c in hand}):
        pool[index] -= 1
        found |= melds_with(index, pool.__getitem__, max_jokers)
        pool[index] += 1
    return [canonical([CODES[i] for i in meld]) for meld in sorted(found)]


def _may_extend(meld: Sequence[str], card: str) -> bool:
    """Cheap filter before the full check: same rank for a group, same suit for a run."""
    if card == JOKER:
        return True
    naturals = [INDEX[c] for c in meld if c != JOKER]
    index = INDEX[card]
    return all(rank_of(i) == rank_of(index) for i in naturals) or \
        all(suit_of(i) == suit_of(index) for i in naturals)


def lay_offs(hand: Sequence[str], table: Sequence[Sequence[str]], max_jokers: int) -> list[Table]:
    """Return every table made by adding one hand card to one table meld."""
    plays: list[Table] = []
    kinds = sorted(set(hand), key=INDEX.__getitem__)
    for m, meld in enumerate(table):
        for card in kinds:
            grown = [*meld, card]
            if _may_extend(meld, card) and meld_problem(grown, max_jokers) is None:
                new = [tuple(x) for x in table]
                new[m] = canonical(grown)
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
